//! Janggi over HTTP (issue #14): two users play whole matches by random
//! legal actions with chosen setups (docs/rules/janggi.md §J2), and a match ending by
//! bikjang (§J6) reports both scores (§J7).

use crate::support::TestApp;
use posthorn_rules::SplitMix64;
use serde_json::{json, Value};

/// The endings of §J6–§J8 as result reasons.
const REASONS: [&str; 7] = [
    "checkmate",
    "bikjang",
    "double_pass",
    "threefold_repetition",
    "ply_limit",
    "resigned",
    "abandoned",
];

/// Alice's and Bob's tokens, by the seat each holds in `m`.
fn by_seat<'a>(m: &Value, alice: &'a str, bob: &'a str) -> [&'a str; 2] {
    if m["my_seats"][0] == 0 {
        [alice, bob]
    } else {
        [bob, alice]
    }
}

#[actix_web::test]
async fn j2_two_players_finish_whole_matches_by_random_legal_actions_with_chosen_setups() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let mut random = SplitMix64::new(14);
    let mut reasons = Vec::new();
    for (cho, han) in [("MSSM", "SMMS"), ("SMSM", "MSMS")] {
        let created = app
            .post(
                "/v1/matches",
                &alice,
                json!({"game": "janggi", "opponents": ["bob"], "options": {"setups": {"cho": cho, "han": han}}}),
            )
            .await;
        assert_eq!(created.status, 201, "{}", created.body);
        let m = created.body;
        assert_eq!(m["view"]["setups"], json!({"cho": cho, "han": han}));
        assert_eq!(m["view"]["points"], json!({"cho": 72.0, "han": 73.5}));
        let seats = by_seat(&m, &alice, &bob);
        let cho_seat = m["view"]["cho"].as_u64().unwrap() as usize;
        assert_eq!(
            m["to_act"][0]["seat"].as_u64().unwrap() as usize,
            cho_seat,
            "Cho moves first"
        );
        // Every action but giving up or giving time: passes and draw
        // offers too (§J).
        let playing = |a: &Value| a["type"] != "resign" && a["type"] != "grant_time";
        let id = m["id"].as_str().unwrap();
        let last = app.play_moves(&seats, id, &mut random, 400, playing).await;
        assert_eq!(
            last["status"], "finished",
            "the match ends within 200 plies"
        );
        let result = &last["result"];
        assert!(
            REASONS.contains(&result["reason"].as_str().unwrap()),
            "{result}"
        );
        assert_eq!(result["scores"].as_array().unwrap().len(), 2, "{result}");
        assert!(last["view"]["plies"].as_u64().unwrap() <= 200);
        reasons.push(result["reason"].clone());
    }
    assert_eq!(reasons.len(), 2);
    app.stop().await;
}

#[actix_web::test]
async fn j6_a_match_ended_by_bikjang_reports_both_scores() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    // Cho: king e1, chariot e5 between the kings; Han: king e10, chariot a10.
    let position = "r3k4/9/9/9/9/4R4/9/9/9/4K4 w - - 0 1";
    let m = app
        .post(
            "/v1/matches",
            &alice,
            json!({"game": "janggi", "opponents": ["bob"], "options": {"position": position}}),
        )
        .await
        .body;
    let seats = by_seat(&m, &alice, &bob);
    let cho = m["view"]["cho"].as_u64().unwrap() as usize;
    let han = 1 - cho;
    let reply = app
        .act(
            seats[cho],
            m["id"].as_str().unwrap(),
            json!({"type": "move", "move": "e5b5"}),
        )
        .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let result = &reply.body["match"]["result"];
    assert_eq!(result["reason"], "bikjang");
    // Each 13 for a chariot, Han 1.5 more: Han wins on points.
    let mut scores = [0.0; 2];
    scores[cho] = 13.0;
    scores[han] = 14.5;
    assert_eq!(result["scores"], json!(scores));
    assert_eq!(result["winners"], json!([han]));
    let finished: Vec<&Value> = reply.body["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "finished")
        .collect();
    assert_eq!(finished.len(), 1, "the ending is in the log");
    // The match no longer takes actions.
    let late = app
        .act(
            seats[han],
            m["id"].as_str().unwrap(),
            json!({"type": "pass"}),
        )
        .await;
    assert_eq!((late.status.as_u16(), late.code()), (409, "match_finished"));
    app.stop().await;
}

#[actix_web::test]
async fn j5_a_pass_in_check_is_refused_and_changes_nothing() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    // Cho's king on d1 is checked by Han's chariot on d5.
    let position = "5k3/9/9/9/9/3r5/9/9/9/3K5 w - - 0 1";
    let m = app
        .post(
            "/v1/matches",
            &alice,
            json!({"game": "janggi", "opponents": ["bob"], "options": {"position": position}}),
        )
        .await
        .body;
    assert_eq!(m["view"]["in_check"], true);
    let cho = by_seat(&m, &alice, &bob)[m["view"]["cho"].as_u64().unwrap() as usize];
    let id = m["id"].as_str().unwrap();
    let listed = app
        .get(&format!("/v1/matches/{id}/legal-actions"), cho)
        .await
        .body;
    assert!(!listed["actions"]
        .as_array()
        .unwrap()
        .iter()
        .any(|a| a["type"] == "pass"));
    let reply = app.act(cho, id, json!({"type": "pass"})).await;
    assert_eq!(
        (reply.status.as_u16(), reply.code()),
        (422, "illegal_action")
    );
    assert!(
        reply.body["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("check"),
        "{}",
        reply.body
    );
    let after = app.get(&format!("/v1/matches/{id}"), &alice).await.body;
    assert_eq!(after["seq"], m["seq"]);
    app.stop().await;
}
