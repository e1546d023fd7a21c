//! Game records over the API (issue #69, docs/records.md): a finished
//! match downloads as a file in its game's format; its players get it
//! whole (§H3: Banqi's layout with it), a live match has none yet, and a
//! match one may not read has none for them.

use crate::support::TestApp;
use serde_json::{json, Value};

/// `token`'s legal actions in match `path`, but resigning and offers.
async fn plays(app: &TestApp, path: &str, token: &str) -> Vec<Value> {
    let listed = app.get(&format!("{path}/legal-actions"), token).await.body;
    (listed["actions"].as_array().unwrap().iter())
        .filter(|a| {
            !["resign", "offer_draw", "grant_time"].contains(&a["type"].as_str().unwrap_or(""))
        })
        .cloned()
        .collect()
}

/// A match `maker` challenged `opponent` to, still being played: its id.
pub(crate) async fn live_match(app: &TestApp, maker: &str, game: &str, opponent: &str) -> String {
    let body = json!({"game": game, "opponents": [opponent]});
    let live = app.post("/v1/matches", maker, body).await.body;
    live["id"].as_str().unwrap().to_owned()
}

/// Plays `n` actions (a turn-up where there is one, else the first legal
/// action of whoever owes), then the creator resigns: the match is
/// finished. Its path.
pub(crate) async fn played_then_resigned(
    app: &TestApp,
    game: &str,
    players: [&str; 2],
    n: usize,
) -> String {
    let m = app
        .post(
            "/v1/matches",
            players[0],
            json!({"game": game, "opponents": ["bob"]}),
        )
        .await
        .body;
    let path = format!("/v1/matches/{}", m["id"].as_str().unwrap());
    for _ in 0..n {
        let mut moved = false;
        for token in players {
            let listed = plays(app, &path, token).await;
            let turn_up = listed.iter().find(|a| a["type"] == "turn_up");
            if let Some(action) = turn_up.or(listed.first()) {
                let seq = app.get(&path, token).await.body["seq"].clone();
                let reply = app
                    .post(
                        &format!("{path}/actions"),
                        token,
                        json!({"seq": seq, "action": action}),
                    )
                    .await;
                assert!(reply.status.is_success(), "{}", reply.body);
                moved = true;
                break;
            }
        }
        assert!(moved, "someone owed an action");
    }
    let seq = app.get(&path, players[0]).await.body["seq"].clone();
    let resigned = app
        .post(
            &format!("{path}/actions"),
            players[0],
            json!({"seq": seq, "action": {"type": "resign"}}),
        )
        .await;
    assert!(resigned.status.is_success(), "{}", resigned.body);
    path
}

#[actix_web::test]
async fn a_finished_match_downloads_as_its_games_record_and_a_live_one_has_none() {
    let app = TestApp::start().await;
    let ada = app.register("ada_r").await;
    let bob = app.register("bob").await;
    let stranger = app.register("cyrus").await;

    // Checkers: PDN, American's GameType, the moves as played.
    let path = played_then_resigned(&app, "checkers", [&ada, &bob], 4).await;
    let record = app.get(&format!("{path}/record"), &ada).await;
    assert_eq!(record.status, 200, "{}", record.body);
    assert!(record.header("content-type").starts_with("text/plain"));
    let disposition = record.header("content-disposition");
    assert!(
        disposition.contains("attachment") && disposition.contains(".pdn"),
        "{disposition}"
    );
    let text = record.body.as_str().unwrap();
    assert!(
        text.contains("[GameType \"21\"]") && text.contains("[FEN \"B:W"),
        "{text}"
    );
    let events = app.get(&format!("{path}/events"), &ada).await.body;
    let moves: Vec<&str> = (events["events"].as_array().unwrap().iter())
        .filter_map(|e| e["move"].as_str())
        .collect();
    assert_eq!(moves.len(), 4);
    let movetext: Vec<&str> = text
        .split("\n\n")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .collect();
    for mv in &moves {
        assert!(movetext.contains(mv), "{mv} in {text}");
    }
    assert!(
        text.contains("ada_r") && text.contains("bob"),
        "the players named: {text}"
    );
    let other = app.get(&format!("{path}/record"), &stranger).await;
    assert_eq!(other.status, 404, "{}", other.body);

    // A live match has no record yet.
    let live = live_match(&app, &ada, "janggi", "bob").await;
    let refused = app.get(&format!("/v1/matches/{live}/record"), &ada).await;
    assert_eq!(refused.status, 409, "{}", refused.body);

    // Banqi: its players get the layout once it is over (§H3).
    let path = played_then_resigned(&app, "banqi", [&ada, &bob], 3).await;
    for token in [&ada, &bob] {
        let text = app.get(&format!("{path}/record"), token).await.body;
        let text = text.as_str().unwrap();
        assert!(text.contains("[Layout \"?"), "{text}");
        assert_eq!(text.matches('=').count(), 3, "three turn-ups: {text}");
    }
    app.stop().await;
}
