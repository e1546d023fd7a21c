//! Checkers variants over HTTP (issue #17): each variant of docs/rules/checkers.md §C2 is
//! created by name and played to its end by random legal actions.

use crate::support::TestApp;
use posthorn_rules::{Random, SplitMix64};
use serde_json::{json, Value};

#[actix_web::test]
async fn c2_a_whole_match_of_every_variant_by_random_legal_actions() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let catalogue = app.request("GET", "/v1/games", None, None, &[]).await.body;
    let checkers = catalogue
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["id"] == "checkers")
        .unwrap();
    let variants: Vec<&str> = checkers["variants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(
        variants,
        [
            "american",
            "brazilian",
            "russian",
            "pool",
            "spanish",
            "international",
            "thai"
        ]
    );
    let mut random = SplitMix64::new(17);
    for variant in variants {
        let m = app
            .post(
                "/v1/matches",
                &alice,
                json!({"game": "checkers", "variant": variant, "opponents": ["bob"]}),
            )
            .await;
        assert_eq!(m.status, 201, "{variant}: {}", m.body);
        let m = m.body;
        assert_eq!(m["variant"], variant);
        let size = if variant == "international" { 10 } else { 8 };
        assert_eq!(m["view"]["size"], size, "{variant}");
        assert!(m["view"]["numbering"].as_str().unwrap().starts_with("PDN"));
        let seats = if m["my_seats"][0] == 0 {
            [&alice, &bob]
        } else {
            [&bob, &alice]
        };
        let path = format!("/v1/matches/{}", m["id"].as_str().unwrap());
        let mut last = m;
        for _ in 0..500 {
            if last["status"] == "finished" {
                break;
            }
            let seat = last["to_act"][0]["seat"].as_u64().unwrap() as usize;
            let listed = app
                .get(&format!("{path}/legal-actions"), seats[seat])
                .await
                .body;
            let moves: Vec<&Value> = listed["actions"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|a| a["type"] == "move")
                .collect();
            let action = moves[random.below(moves.len() as u64) as usize].clone();
            let reply = app
                .post(
                    &format!("{path}/actions"),
                    seats[seat],
                    json!({"seq": listed["seq"], "action": action}),
                )
                .await;
            assert_eq!(reply.status, 200, "{variant} {action}: {}", reply.body);
            last = reply.body["match"].clone();
        }
        assert_eq!(last["status"], "finished", "{variant}: {last}");
        assert!(last["result"]["reason"].is_string(), "{variant}");
    }
    app.stop().await;
}

#[actix_web::test]
async fn c2_russian_moves_may_be_posted_algebraically_and_are_answered_in_pdn() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let m = app
        .post(
            "/v1/matches",
            &alice,
            json!({"game": "checkers/russian", "opponents": ["bob"]}),
        )
        .await
        .body;
    // White moves first in every variant but American.
    assert_eq!(m["view"]["side_to_move"], "white");
    let white = if m["my_seats"][0] == 1 { &alice } else { &bob };
    let reply = app
        .act(
            white,
            m["id"].as_str().unwrap(),
            json!({"type": "move", "move": "c3-d4"}),
        )
        .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.body["match"]["view"]["last_move"], "22-18");
    app.stop().await;
}
