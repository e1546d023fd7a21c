//! The mining job over the service's own matches (issue #52,
//! docs/puzzles.md): a finished match between people is searched once and
//! gives its puzzle, kept under the match's id and naming no player; a
//! match still being played is never read.

use crate::support::TestApp;
use posthorn::puzzles::mining::{pass, Mined};
use serde_json::{json, Value};

/// The first checkers puzzle of the rules crate's mined file: the options
/// of a match from its start position, and its line.
fn a_checkers_puzzle() -> (Value, Value) {
    let (mut options, found) = crate::puzzles::mined("checkers.jsonl", 1).remove(0);
    options["position"] = found.events[0]["position"].clone();
    (options, serde_json::to_value(&found.line).unwrap())
}

#[actix_web::test]
async fn a_finished_match_gives_its_puzzle_once_naming_nobody_and_a_live_one_is_not_read() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let (options, line) = a_checkers_puzzle();
    let start =
        |opponent: &str| json!({"game": "checkers", "options": options, "opponents": [opponent]});
    let finished = app.post("/v1/matches", &alice, start("bob")).await;
    assert_eq!(finished.status, 201, "{}", finished.body);
    let finished_id = finished.body["id"].as_str().unwrap().to_owned();
    // The player on move, facing the puzzle, resigns instead.
    let seat = finished.body["to_act"][0]["seat"].as_u64().unwrap() as usize;
    let on_move = &finished.body["seats"][seat]["user"]["id"];
    let alice_id = app.get("/v1/me", &alice).await.body["id"].clone();
    let mover = if *on_move == alice_id { &alice } else { &bob };
    let resigned = app
        .act(mover, &finished_id, json!({"type": "resign"}))
        .await;
    assert_eq!(resigned.status, 200, "{}", resigned.body);
    assert_eq!(resigned.body["match"]["status"], "finished");
    let live = app.post("/v1/matches", &bob, start("alice")).await;
    assert_eq!(live.status, 201, "{}", live.body);
    let live_id = live.body["id"].as_str().unwrap().to_owned();
    assert_eq!(live.body["status"], "active");

    let now = posthorn::clock::Clock::now(&app.clock);
    let first = app.blocking(move |s| pass(&s.pool, 0, now).unwrap()).await;
    assert_eq!(
        first,
        Mined {
            matches: 1,
            engine_matches: 0,
            puzzles: 1
        }
    );
    // Kept under the match's id, with the same line the miner found, and
    // nothing of the players: not their names, not their accounts.
    let stored = app
        .count(format!(
            "SELECT count(*) AS n FROM puzzles WHERE source = '{finished_id}' AND line = '{line}'::jsonb"
        ))
        .await;
    assert_eq!(stored, 1);
    let naming = app
        .count(
            "SELECT count(*) AS n FROM puzzles p, users u WHERE p::text ILIKE '%' || u.username || '%' \
             OR p::text ILIKE '%' || u.display_name || '%' OR p::text LIKE '%' || u.id::text || '%'"
                .into(),
        )
        .await;
    assert_eq!(naming, 0);
    let live_read = app
        .count(format!(
            "SELECT count(*) AS n FROM mined_matches WHERE match_id = '{live_id}'"
        ))
        .await;
    assert_eq!(live_read, 0, "a match being played was read");
    // Searched once: the next pass finds nothing new.
    let again = app.blocking(move |s| pass(&s.pool, 0, now).unwrap()).await;
    assert_eq!(again, Mined::default());
    app.stop().await;
}
