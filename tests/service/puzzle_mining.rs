//! Mining the service's own matches (docs/puzzles.md, "Where puzzles come
//! from"): a finished match worth it is queued once as a job, searched
//! once whichever instance claims it, charged to its players' engine
//! time, kept under the match's id and naming no player; a match still
//! being played is never read; a short unrated match is not searched and
//! a player over budget has their match skipped.

use crate::support::plays_on;
use crate::support::TestApp;
use chrono::Duration;
use posthorn::jobs::one_off::run_due;
use posthorn::puzzles::mining::{Miner, LONG_ENOUGH};
use posthorn_rules::SplitMix64;
use serde_json::{json, Value};

/// The first checkers puzzle of the rules crate's mined file: the options
/// of a match from its start position, and its line.
fn a_checkers_puzzle() -> (Value, Value) {
    let (mut options, found) = crate::puzzles::mined("checkers.jsonl", 1).remove(0);
    options["position"] = found.events[0]["position"].clone();
    (options, serde_json::to_value(&found.line).unwrap())
}

/// A match from the puzzle's position between `first` and `second`
/// (unrated: a custom start never is rated), played on at random until it
/// is long enough to be worth a search, then resigned. Its id.
async fn a_long_match_from_the_puzzle(app: &TestApp, first: &str, second: &str) -> String {
    let (options, _) = a_checkers_puzzle();
    let name = app.get("/v1/me", second).await.body["username"].clone();
    let body = json!({"game": "checkers", "options": options, "opponents": [name]});
    let m = app.post("/v1/matches", first, body).await;
    assert_eq!(m.status, 201, "{}", m.body);
    let id = m.body["id"].as_str().unwrap().to_owned();
    let mut random = SplitMix64::new(11);
    let mut played = app
        .play_moves(&[first, second], &id, &mut random, 60, plays_on)
        .await;
    assert!(
        played["seq"].as_i64().unwrap() >= LONG_ENOUGH as i64,
        "long enough: {}",
        played["seq"]
    );
    if played["status"] == "active" {
        let on_move = played["to_act"][0]["seat"].as_u64().unwrap() as usize;
        let first_id = app.get("/v1/me", first).await.body["id"].clone();
        let token = if played["seats"][on_move]["user"]["id"] == first_id {
            first
        } else {
            second
        };
        played = app.act(token, &id, json!({"type": "resign"})).await.body["match"].clone();
    }
    assert_eq!(played["status"], "finished", "{played}");
    id
}

async fn mine_jobs(app: &TestApp, id: &str) -> i64 {
    app.count(format!(
        "SELECT count(*) AS n FROM jobs WHERE kind = 'puzzle.mine' AND key = 'mine:{id}'"
    ))
    .await
}

#[actix_web::test]
async fn a_finished_match_is_mined_once_by_two_instances_charged_to_its_players_naming_nobody() {
    let app = TestApp::start().await;
    let other = app.sibling().await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let (options, line) = a_checkers_puzzle();
    let finished_id = a_long_match_from_the_puzzle(&app, &alice, &bob).await;
    assert_eq!(
        mine_jobs(&app, &finished_id).await,
        1,
        "queued once, by its end"
    );
    let live = json!({"game": "checkers", "options": options, "opponents": ["alice"]});
    let live = app.post("/v1/matches", &bob, live).await;
    assert_eq!(live.status, 201, "{}", live.body);
    let live_id = live.body["id"].as_str().unwrap().to_owned();

    // Both instances run their jobs at once: one of them searches it.
    let now = posthorn::clock::Clock::now(&app.clock);
    let (mine, theirs) = futures_util::future::join(
        app.blocking(move |s| run_due(&s.pool, &[&Miner], now).unwrap().done),
        other.blocking(move |s| run_due(&s.pool, &[&Miner], now).unwrap().done),
    )
    .await;
    assert_eq!(mine + theirs, 1, "one job, run once");
    let searched = app
        .count(format!(
            "SELECT count(*) AS n FROM mined_matches WHERE match_id = '{finished_id}'"
        ))
        .await;
    assert_eq!(searched, 1);
    // Kept under the match's id, with the line the players met, and
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
    // Charged to both players, in equal shares.
    let charged = app
        .count(
            "SELECT count(DISTINCT t.owner) AS n FROM engine_time t JOIN users u ON u.id = t.owner \
             WHERE u.username IN ('alice', 'bob')"
                .into(),
        )
        .await;
    assert_eq!(charged, 2, "each player pays a share of the search");
    let live_read = app
        .count(format!(
            "SELECT count(*) AS n FROM mined_matches WHERE match_id = '{live_id}'"
        ))
        .await;
    assert_eq!(live_read, 0, "a match being played was read");
    // Searched once: a later run finds nothing to do.
    let again = app
        .blocking(move |s| run_due(&s.pool, &[&Miner], now).unwrap().done)
        .await;
    assert_eq!(again, 0);
    other.stop().await;
    app.stop().await;
}

#[actix_web::test]
async fn a_short_unrated_match_is_not_searched_and_a_player_over_budget_is_skipped() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    // Unrated, resigned at once: not worth a search.
    let m = app
        .post(
            "/v1/matches",
            &alice,
            json!({"game": "checkers", "opponents": ["bob"]}),
        )
        .await;
    let id = m.body["id"].as_str().unwrap().to_owned();
    assert_eq!(
        app.act(&alice, &id, json!({"type": "resign"})).await.status,
        200
    );
    assert_eq!(mine_jobs(&app, &id).await, 0, "a short unrated match");
    // Bob has spent his hour's engine time: his long match is queued,
    // then skipped, and nobody is charged for it.
    let now = posthorn::clock::Clock::now(&app.clock);
    let budget = posthorn::computer::budget::PER_PLAYER.num_milliseconds();
    app.count(format!(
        "WITH spent AS (INSERT INTO engine_time (owner, at, millis) \
         SELECT id, '{}', {budget} FROM users WHERE username = 'bob' RETURNING 1) \
         SELECT count(*) AS n FROM spent",
        (now - Duration::minutes(5)).to_rfc3339()
    ))
    .await;
    let rated = a_long_match_from_the_puzzle(&app, &alice, &bob).await;
    assert_eq!(mine_jobs(&app, &rated).await, 1);
    let ran = app
        .blocking(move |s| run_due(&s.pool, &[&Miner], now).unwrap().done)
        .await;
    assert_eq!(ran, 1);
    let found = app
        .count(format!(
            "SELECT count(*) AS n FROM puzzles WHERE source = '{rated}'"
        ))
        .await;
    assert_eq!(found, 0, "not searched");
    let searched = app
        .count(format!(
            "SELECT count(*) AS n FROM mined_matches WHERE match_id = '{rated}'"
        ))
        .await;
    assert_eq!(searched, 1, "and not queued again");
    let charges = app
        .count("SELECT count(*) AS n FROM engine_time".into())
        .await;
    assert_eq!(charges, 1, "only Bob's own hour");
    app.stop().await;
}
