//! Four-player chess over HTTP (issue #16, docs/rules/four-player-chess.md §Q): four users finish
//! whole matches by random legal actions, two users each run a whole team,
//! and a player whose deadline passes in an ffa match is eliminated while
//! the other three play on to the end.

use crate::support::{a_move, TestApp};
use chrono::Duration;
use diesel::RunQueryDsl;
use posthorn_rules::{Random, SplitMix64};
use serde_json::{json, Value};
use std::collections::HashMap;

const PLAYERS: [&str; 4] = ["alice", "bob", "carol", "dave"];

/// A service whose tokens outlive the days the deadline test skips.
async fn start() -> TestApp {
    TestApp::start_with(posthorn::config::Config {
        access_token_seconds: 90 * 24 * 3600,
        ..Default::default()
    })
    .await
}

struct Table {
    path: String,
    /// Per seat, the token of the user holding it.
    tokens: Vec<String>,
    last: Value,
}

/// `players[0]` creates a `mode` match naming the others (who accept).
async fn create(
    app: &TestApp,
    mode: &str,
    players: &[&str],
    tokens: &HashMap<String, String>,
) -> Table {
    let creator = &tokens[players[0]];
    let reply = app
        .post(
            "/v1/matches",
            creator,
            json!({"game": "four_player_chess", "mode": mode, "opponents": players[1..]}),
        )
        .await;
    assert_eq!(reply.status, 201, "{}", reply.body);
    let path = format!("/v1/matches/{}", reply.body["id"].as_str().unwrap());
    let last = app.get(&path, creator).await.body;
    assert_eq!(last["status"], "active", "{last}");
    let tokens = last["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| tokens[s["user"]["username"].as_str().unwrap()].clone())
        .collect();
    Table { path, tokens, last }
}

async fn users(app: &TestApp, names: &[&str]) -> HashMap<String, String> {
    let mut tokens = HashMap::new();
    for name in names {
        tokens.insert(name.to_string(), app.register(name).await);
    }
    tokens
}

fn seat_on_move(m: &Value) -> usize {
    m["to_act"][0]["seat"].as_u64().unwrap() as usize
}

/// The seat on move plays one random legal move.
async fn play_one(app: &TestApp, table: &mut Table, random: &mut SplitMix64) {
    let token = &table.tokens[seat_on_move(&table.last)];
    let listed = app
        .get(&format!("{}/legal-actions", table.path), token)
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
            &format!("{}/actions", table.path),
            token,
            json!({"seq": listed["seq"], "action": action}),
        )
        .await;
    assert_eq!(reply.status, 200, "{action}: {}", reply.body);
    table.last = reply.body["match"].clone();
}

/// Random legal moves until the match ends (§Q6: within 1,000 plies).
async fn play_out(app: &TestApp, table: &mut Table, random: &mut SplitMix64) {
    let tokens: Vec<&str> = table.tokens.iter().map(String::as_str).collect();
    let id = table.path.trim_start_matches("/v1/matches/");
    table.last = app.play_moves(&tokens, id, random, 1_001, a_move).await;
    assert_eq!(table.last["status"], "finished", "within 1,000 plies");
}

#[actix_web::test]
async fn q5_four_players_finish_a_teams_and_a_points_match_by_random_legal_moves() {
    let app = start().await;
    let tokens = users(&app, &PLAYERS).await;
    let mut random = SplitMix64::new(16);
    for mode in ["teams", "points"] {
        let mut table = create(&app, mode, &PLAYERS, &tokens).await;
        let armies = table.last["view"]["armies"].as_array().unwrap().clone();
        let mut seats: Vec<u64> = armies.iter().map(|a| a["seat"].as_u64().unwrap()).collect();
        seats.sort();
        assert_eq!(seats, [0, 1, 2, 3], "one army per seat: {armies:?}");
        play_out(&app, &mut table, &mut random).await;
        let result = &table.last["result"];
        match mode {
            "teams" => assert!(
                result["outcome"] == "draw" || result["winners"].as_array().unwrap().len() == 2,
                "a team wins: {result}"
            ),
            _ => assert_eq!(result["scores"].as_array().unwrap().len(), 4, "{result}"),
        }
        assert!(table.last["to_act"].as_array().unwrap().is_empty());
    }
    app.stop().await;
}

#[actix_web::test]
async fn q5_two_players_each_run_a_whole_team_moving_both_armies_in_turn() {
    let app = start().await;
    let tokens = users(&app, &PLAYERS[..2]).await;
    let mut table = create(&app, "teams", &PLAYERS[..2], &tokens).await;
    let seat_of = |army: usize| table.last["view"]["armies"][army]["seat"].clone();
    assert_eq!(seat_of(0), seat_of(2), "Red and Blue are one player's");
    assert_eq!(seat_of(1), seat_of(3), "Green and Gray the other's");
    assert_ne!(seat_of(0), seat_of(1));
    let red = seat_of(0).as_u64().unwrap() as usize;
    let mut random = SplitMix64::new(2);
    let mut movers = Vec::new();
    for _ in 0..8 {
        movers.push((
            seat_on_move(&table.last),
            table.last["view"]["army_to_move"].clone(),
        ));
        play_one(&app, &mut table, &mut random).await;
    }
    let expected: Vec<usize> = (0..8)
        .map(|i| if i % 2 == 0 { red } else { 1 - red })
        .collect();
    let got: Vec<usize> = movers.iter().map(|(s, _)| *s).collect();
    assert_eq!(got, expected, "{movers:?}");
    // The team's player resigns for both armies: the other player wins.
    let reply = app
        .act(
            &table.tokens[red],
            table.path.trim_start_matches("/v1/matches/"),
            json!({"type": "resign"}),
        )
        .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.body["match"]["result"]["winners"], json!([1 - red]));
    app.stop().await;
}

#[actix_web::test]
async fn q9_a_deadline_passed_in_ffa_eliminates_that_player_and_three_play_on() {
    let app = start().await;
    let tokens = users(&app, &PLAYERS).await;
    let mut table = create(&app, "ffa", &PLAYERS, &tokens).await;
    let red = seat_on_move(&table.last);
    assert_eq!(table.last["view"]["army_to_move"], "red");
    app.clock.advance(Duration::hours(48));
    app.blocking(|s| posthorn::jobs::deadlines::Sweeper::of(s).sweep())
        .await
        .unwrap();
    table.last = app.get(&table.path, &table.tokens[0]).await.body;
    assert_eq!(table.last["status"], "active", "three players remain");
    assert_eq!(table.last["view"]["armies"][0]["status"], "eliminated");
    assert_eq!(table.last["view"]["army_to_move"], "green");
    let to_act = table.last["to_act"].as_array().unwrap();
    assert_eq!(to_act.len(), 1);
    assert_ne!(seat_on_move(&table.last), red, "the duty passed on");
    // Out of the match: nothing to do, and a move is refused.
    let out = &table.tokens[red];
    let listed = app
        .get(&format!("{}/legal-actions", table.path), out)
        .await
        .body;
    assert_eq!(listed["actions"], json!([]), "{listed}");
    let refused = app
        .act(
            out,
            table.path.trim_start_matches("/v1/matches/"),
            json!({"type": "move", "move": "e2e4"}),
        )
        .await;
    assert!(refused.status.is_client_error(), "{}", refused.body);
    // Every player hears of the elimination.
    #[derive(diesel::QueryableByName)]
    struct Count {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let told = app
        .blocking(|s| {
            let conn = &mut s.pool.get().unwrap();
            posthorn::notify::outbox::fan_out(conn, &posthorn::talk::told::TURN_TALK).unwrap();
            diesel::sql_query(
                "SELECT count(DISTINCT user_id) AS n FROM notifications WHERE kind = 'player_eliminated'",
            )
            .get_result::<Count>(conn)
            .unwrap()
            .n
        })
        .await;
    assert_eq!(told, 4);
    let mut random = SplitMix64::new(9);
    play_out(&app, &mut table, &mut random).await;
    let result = &table.last["result"];
    assert!(
        !result["winners"].as_array().unwrap().contains(&json!(red)),
        "{result}"
    );
    let events = app
        .get(&format!("{}/events", table.path), &table.tokens[0])
        .await
        .body;
    let abandoned = events["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "eliminated" && e["reason"] == "abandoned")
        .count();
    assert_eq!(abandoned, 1);
    app.stop().await;
}
