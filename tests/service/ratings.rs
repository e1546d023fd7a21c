//! Ratings and leaderboards (issue #19): rated matches move ratings in the
//! transaction that ends them, exactly once however the ends race;
//! guests, unrated and aborted matches never do; ranks agree with a
//! brute-force ranking; profiles and head-to-head.

use crate::support::TestApp;
use chrono::Duration;
use diesel::RunQueryDsl;
use posthorn::clock::Clock;
use posthorn_rules::{Random, SplitMix64};
use serde_json::{json, Value};
use std::collections::HashMap;

fn id(m: &Value) -> String {
    m["id"].as_str().unwrap().to_owned()
}

/// Tokens by seat.
fn by_seat(m: &Value, tokens: &HashMap<String, String>) -> Vec<String> {
    m["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| tokens[s["user"]["username"].as_str().unwrap()].clone())
        .collect()
}

/// The seat on move plays its first legal move; the new match.
async fn move_once(app: &TestApp, m: &Value, seats: &[String]) -> Value {
    let seat = m["to_act"][0]["seat"].as_u64().unwrap() as usize;
    let path = format!("/v1/matches/{}/legal-actions", id(m));
    let listed = app.get(&path, &seats[seat]).await.body;
    let action = listed["actions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["type"] == "move" || a["type"] == "turn_up")
        .unwrap()
        .clone();
    let reply = app.act(&seats[seat], &id(m), action).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    reply.body["match"].clone()
}

/// Alice (`t["alice"]`) creates `body`; each player makes one move. The
/// match on, and the tokens by seat.
async fn after_two_moves(
    app: &TestApp,
    t: &HashMap<String, String>,
    body: Value,
) -> (Value, Vec<String>) {
    let m = app.post("/v1/matches", &t["alice"], body).await.body;
    let seats = by_seat(&m, t);
    let m = move_once(app, &m, &seats).await;
    let m = move_once(app, &m, &seats).await;
    (m, seats)
}

async fn resign(app: &TestApp, m: &Value, token: &str) -> Value {
    let reply = app.act(token, &id(m), json!({"type": "resign"})).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    reply.body["match"].clone()
}

async fn profile(app: &TestApp, token: &str, name: &str) -> Value {
    app.get(&format!("/v1/users/{name}"), token).await.body
}

fn perf_of<'a>(profile: &'a Value, perf: &str) -> Option<&'a Value> {
    profile["perfs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["perf"] == perf)
}

async fn users(app: &TestApp, names: &[&str]) -> HashMap<String, String> {
    let mut tokens = HashMap::new();
    for name in names {
        tokens.insert(name.to_string(), app.register(name).await);
    }
    tokens
}

#[actix_web::test]
async fn a_rated_match_moves_both_ratings_and_shows_the_changes() {
    let app = TestApp::start().await;
    let t = users(&app, &["alice", "bob"]).await;
    let (m, seats) = after_two_moves(
        &app,
        &t,
        json!({"game": "checkers", "opponents": ["bob"], "rated": true}),
    )
    .await;
    let loser = m["to_act"][0]["seat"].as_u64().unwrap() as usize;
    let end = resign(&app, &m, &seats[loser]).await;
    let changes = end["result"]["ratings"]
        .as_array()
        .expect("the result shows the changes");
    assert_eq!(changes.len(), 2);
    for change in changes {
        let seat = change["seat"].as_u64().unwrap() as usize;
        let delta = change["change"].as_f64().unwrap();
        assert!(
            if seat == loser {
                delta < 0.0
            } else {
                delta > 0.0
            },
            "{change}"
        );
        assert_eq!(change["before"], 1500.0);
    }
    let winner_name = if seats[1 - loser] == t["alice"] {
        "alice"
    } else {
        "bob"
    };
    let seen = profile(&app, &t["alice"], winner_name).await;
    let record = perf_of(&seen, "checkers/american").expect("a checkers record");
    assert_eq!(
        (
            record["games"].clone(),
            record["wins"].clone(),
            record["losses"].clone()
        ),
        (json!(1), json!(1), json!(0))
    );
    assert_eq!(
        record["provisional"], true,
        "one game leaves the deviation high"
    );
    let h2h = app
        .get("/v1/users/bob/head-to-head", &t["alice"])
        .await
        .body;
    assert_eq!(
        h2h["perfs"][0]["last"].as_array().unwrap().len(),
        1,
        "{h2h}"
    );
    app.stop().await;
}

#[actix_web::test]
async fn unrated_aborted_and_guest_matches_never_change_a_rating() {
    let app = TestApp::start().await;
    let t = users(&app, &["alice", "bob"]).await;
    // Unrated.
    let (m, seats) =
        after_two_moves(&app, &t, json!({"game": "checkers", "opponents": ["bob"]})).await;
    let seat = m["to_act"][0]["seat"].as_u64().unwrap() as usize;
    let end = resign(&app, &m, &seats[seat]).await;
    assert_eq!(end["result"]["ratings"], Value::Null);
    // Aborted: the first mover resigns before any move.
    let m = app
        .post(
            "/v1/matches",
            &t["alice"],
            json!({"game": "checkers", "opponents": ["bob"], "rated": true}),
        )
        .await
        .body;
    let seats = by_seat(&m, &t);
    let seat = m["to_act"][0]["seat"].as_u64().unwrap() as usize;
    let end = resign(&app, &m, &seats[seat]).await;
    assert!(end["result"]["aborted"].is_string(), "{}", end["result"]);
    // A guest at a rated table.
    let m = app
        .post(
            "/v1/matches",
            &t["alice"],
            json!({"game": "checkers", "open_seats": 1, "rated": true}),
        )
        .await
        .body;
    let guest = app.guest("gus").await;
    let code = m["invite"]["code"].as_str().unwrap();
    let joined = app
        .challenge(&format!("/v1/invites/{code}/accept"), &guest, json!({}))
        .await
        .body;
    let mut tokens = t.clone();
    let seats_json = joined["seats"].as_array().unwrap();
    let guest_seat = seats_json
        .iter()
        .find(|s| s["user"]["username"] != "alice")
        .unwrap();
    tokens.insert(
        guest_seat["user"]["username"].as_str().unwrap().to_owned(),
        guest,
    );
    let seats = by_seat(&joined, &tokens);
    let m = move_once(&app, &joined, &seats).await;
    let m = move_once(&app, &m, &seats).await;
    let seat = m["to_act"][0]["seat"].as_u64().unwrap() as usize;
    let end = resign(&app, &m, &seats[seat]).await;
    assert!(end["result"]["unrated"].is_string(), "{}", end["result"]);
    for name in ["alice", "bob"] {
        assert_eq!(
            profile(&app, &t["alice"], name).await["perfs"],
            json!([]),
            "{name}"
        );
    }
    app.stop().await;
}

/// Issue #46: a rated FlipChess seek pairs and deals at once; a player
/// who resigns on seeing their hand, before any move, loses a rated
/// match (otherwise they could shop for hands unrated). A checkers match
/// resigned before a move stays aborted (above): nothing was dealt.
#[actix_web::test]
async fn a_flipchess_hand_resigned_before_a_move_is_a_rated_loss() {
    let app = TestApp::start().await;
    let t = users(&app, &["alice", "bob"]).await;
    let seek = json!({"game": "flipchess", "rated": true, "turn_hours": 48.0});
    let waiting = app.challenge("/v1/seeks", &t["alice"], seek.clone()).await;
    assert_eq!(waiting.status, 201, "{}", waiting.body);
    let paired = app.challenge("/v1/seeks", &t["bob"], seek).await;
    assert_eq!(paired.status, 201, "{}", paired.body);
    let m = paired.body["match"].clone();
    assert_eq!(
        (m["status"].as_str(), m["rated"].as_bool()),
        (Some("active"), Some(true)),
        "{m}"
    );
    // Bob sees his hand and resigns before anyone has moved.
    let seen = app
        .get(&format!("/v1/matches/{}", id(&m)), &t["bob"])
        .await
        .body;
    assert_eq!(
        seen["seq"].as_i64().map(|s| s > 0),
        Some(true),
        "dealt: {seen}"
    );
    let end = resign(&app, &m, &t["bob"]).await;
    assert_eq!(end["status"], "finished", "{end}");
    assert_eq!(end["result"]["aborted"], Value::Null, "{}", end["result"]);
    let changes = end["result"]["ratings"].as_array().expect("rated").clone();
    assert_eq!(changes.len(), 2, "{changes:?}");
    for change in &changes {
        assert_eq!(change["perf"], "flipchess");
        assert_ne!(change["change"], 0, "{change}");
    }
    let bob = perf_of(&profile(&app, &t["alice"], "bob").await, "flipchess").cloned();
    let bob = bob.expect("Bob has a FlipChess rating");
    assert_eq!(
        (bob["games"].as_i64(), bob["losses"].as_i64()),
        (Some(1), Some(1)),
        "{bob}"
    );
    assert!(bob["rating"].as_f64().unwrap() < 1500.0, "{bob}");
    let alice = perf_of(&profile(&app, &t["bob"], "alice").await, "flipchess").cloned();
    assert_eq!(alice.expect("Alice is rated")["wins"], 1);
    app.stop().await;
}

/// Red, Green, Blue and Gray each push a pawn; then `resigning` give up.
async fn four_player(
    app: &TestApp,
    t: &HashMap<String, String>,
    mode: &str,
    resigning: &[&str],
) -> (Value, HashMap<String, String>) {
    let m = app
        .post(
            "/v1/matches",
            &t["alice"],
            json!({"game": "four_player_chess", "mode": mode, "opponents": ["bob", "carol", "dave"], "rated": true}),
        )
        .await
        .body;
    let seats = by_seat(&m, t);
    let mut army_of = HashMap::new();
    for (army, a) in ["red", "green", "blue", "gray"]
        .iter()
        .zip(m["view"]["armies"].as_array().unwrap())
    {
        let seat = a["seat"].as_u64().unwrap() as usize;
        let name = m["seats"][seat]["user"]["username"]
            .as_str()
            .unwrap()
            .to_owned();
        army_of.insert(army.to_string(), name);
    }
    let mut m = m;
    for mv in ["d2d3", "b5c5", "d13d12", "m5l5"] {
        let seat = m["to_act"][0]["seat"].as_u64().unwrap() as usize;
        let reply = app
            .act(&seats[seat], &id(&m), json!({"type": "move", "move": mv}))
            .await;
        assert_eq!(reply.status, 200, "{}", reply.body);
        m = reply.body["match"].clone();
    }
    for army in resigning {
        m = resign(app, &m, &t[army_of[*army].as_str()]).await;
    }
    (m, army_of)
}

fn change_of(end: &Value, seat_of: impl Fn(u64) -> bool) -> f64 {
    end["result"]["ratings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| seat_of(c["seat"].as_u64().unwrap()))
        .unwrap()["change"]
        .as_f64()
        .unwrap()
}

#[actix_web::test]
async fn four_player_teams_and_ffa_move_ratings_toward_the_winners() {
    let app = TestApp::start().await;
    let t = users(&app, &["alice", "bob", "carol", "dave"]).await;
    for (mode, resigning) in [
        ("teams", vec!["green"]),
        ("ffa", vec!["green", "blue", "gray"]),
    ] {
        let (end, army_of) = four_player(&app, &t, mode, &resigning).await;
        assert_eq!(end["status"], "finished", "{mode}");
        let seat_of = |army: &str| {
            end["seats"]
                .as_array()
                .unwrap()
                .iter()
                .find(|s| s["user"]["username"] == army_of[army].as_str())
                .unwrap()["seat"]
                .as_u64()
                .unwrap()
        };
        let red = change_of(&end, |s| s == seat_of("red"));
        let green = change_of(&end, |s| s == seat_of("green"));
        assert!(red > 0.0 && green < 0.0, "{mode}: {}", end["result"]);
        if mode == "teams" {
            assert!(
                change_of(&end, |s| s == seat_of("blue")) > 0.0,
                "Red's partner gains too"
            );
        }
    }
    app.stop().await;
}

#[actix_web::test]
async fn a_four_player_points_match_rates_by_points() {
    let app = TestApp::start().await;
    let t = users(&app, &["alice", "bob", "carol", "dave"]).await;
    // Red's rook takes Green's queen on its second move: 9 points to none.
    let position = "to=red; mode=points; castle=red:-,green:-,blue:-,gray:-; out=; red=Kh1,Re4,Pd2; green=Ka8,Qe9,Pb5; blue=Kg14,Pd13; gray=Kn7,Pm5; dead=";
    let m = app
        .post(
            "/v1/matches",
            &t["alice"],
            json!({"game": "four_player_chess", "mode": "points", "options": {"position": position}, "opponents": ["bob", "carol", "dave"]}),
        )
        .await;
    assert_eq!(m.status, 201, "{}", m.body);
    let mut m = m.body;
    // A custom start is never rated (issue #30); this test is about the
    // points' rating maths, so the fixture marks the match rated itself.
    let match_id: uuid::Uuid = id(&m).parse().unwrap();
    app.blocking(move |s| {
        use diesel::prelude::*;
        use posthorn::schema::matches::dsl as mt;
        diesel::update(mt::matches.find(match_id))
            .set(mt::rated.eq(true))
            .execute(&mut s.pool.get().unwrap())
            .unwrap();
    })
    .await;
    let seats = by_seat(&m, &t);
    let armies = m["view"]["armies"].as_array().unwrap().clone();
    let seat_of = |army: usize| armies[army]["seat"].as_u64().unwrap();
    for mv in ["d2d3", "b5c5", "d13d12", "m5l5", "e4e9"] {
        let seat = m["to_act"][0]["seat"].as_u64().unwrap() as usize;
        let reply = app
            .act(&seats[seat], &id(&m), json!({"type": "move", "move": mv}))
            .await;
        assert_eq!(reply.status, 200, "{mv}: {}", reply.body);
        m = reply.body["match"].clone();
    }
    for army in [1, 2, 3] {
        m = resign(&app, &m, &seats[seat_of(army) as usize]).await;
    }
    assert_eq!(m["result"]["outcome"], "points", "{}", m["result"]);
    assert!(change_of(&m, |s| s == seat_of(0)) > 0.0);
    for army in [1, 2, 3] {
        assert!(
            change_of(&m, |s| s == seat_of(army)) < 0.0,
            "{}",
            m["result"]
        );
    }
    app.stop().await;
}

#[actix_web::test]
async fn twenty_rated_matches_of_one_player_ending_at_once_all_count_once() {
    let app = TestApp::start_with(posthorn::config::Config {
        access_token_seconds: 90 * 24 * 3600,
        ..Default::default()
    })
    .await;
    let other = app.sibling().await;
    let alice = app.register("alice").await;
    let mut games = Vec::new();
    for n in 0..20 {
        let name = format!("rival{n}");
        let token = app.register(&name).await;
        let mut t = HashMap::new();
        t.insert("alice".to_owned(), alice.clone());
        t.insert(name.clone(), token);
        let body = json!({"game": "checkers", "opponents": [name], "rated": true});
        games.push(after_two_moves(&app, &t, body).await);
    }
    // Every deadline passes; half the players on move resign just then,
    // while two instances sweep.
    app.clock.advance(Duration::hours(48));
    other.clock.advance(Duration::hours(48));
    let resigns = games
        .iter()
        .enumerate()
        .filter(|(n, _)| n % 2 == 0)
        .map(|(_, (m, seats))| {
            let seat = m["to_act"][0]["seat"].as_u64().unwrap() as usize;
            app.act(
                &seats[seat],
                m["id"].as_str().unwrap(),
                json!({"type": "resign"}),
            )
        });
    let (answers, swept_a, swept_b) = futures_util::future::join3(
        futures_util::future::join_all(resigns),
        app.blocking(|s| posthorn::jobs::deadlines::Sweeper::of(s).sweep()),
        other.blocking(|s| posthorn::jobs::deadlines::Sweeper::of(s).sweep()),
    )
    .await;
    for answer in answers {
        assert!(
            answer.status == 200 || answer.status == 409,
            "{}",
            answer.body
        );
    }
    swept_a.unwrap();
    swept_b.unwrap();
    let me = profile(&app, &alice, "alice").await;
    let record = perf_of(&me, "checkers/american").unwrap();
    assert_eq!(record["games"], 20, "{me}");
    #[derive(diesel::QueryableByName)]
    struct Count {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let changes = app
        .blocking(|s| {
            diesel::sql_query("SELECT count(*) AS n FROM rating_changes rc JOIN users u ON u.id = rc.user_id WHERE u.username = 'alice'")
                .get_result::<Count>(&mut s.pool.get().unwrap())
                .unwrap()
                .n
        })
        .await;
    assert_eq!(changes, 20);
    other.stop_instance().await;
    app.stop().await;
}

/// Fill a perf with `n` players of random ratings (ties on purpose) and
/// deviations, through the service's own count keeping.
async fn fill_board(
    app: &TestApp,
    perf: &'static str,
    n: usize,
    seed: u64,
) -> Vec<(String, i32, bool)> {
    let mut random = SplitMix64::new(seed);
    let players: Vec<(String, i32, bool)> = (0..n)
        .map(|i| {
            let rating = 1300 + random.below(40) as i32 * 10;
            (format!("p{i}"), rating, random.below(4) != 0)
        })
        .collect();
    let rows = players.clone();
    // Rated "now" on the service's clock.
    let rated_at = app.clock.now().to_rfc3339();
    app.blocking(move |s| {
        let mut conn = s.pool.get().unwrap();
        let mut counts = std::collections::BTreeMap::new();
        for (name, rating, established) in &rows {
            diesel::sql_query(format!(
                "INSERT INTO users (id, username, display_name, guest, locale, time_zone, created_at) \
                 VALUES (gen_random_uuid(), '{name}', '{name}', false, 'en', 'UTC', now())"
            ))
            .execute(&mut conn)
            .unwrap();
            let deviation = if *established { 60.0 } else { 200.0 };
            let board = if *established { rating.to_string() } else { "NULL".into() };
            diesel::sql_query(format!(
                "INSERT INTO ratings (user_id, perf, rating, deviation, volatility, games, last_rated_at, board_rating) \
                 SELECT id, '{perf}', {rating}, {deviation}, 0.06, 30, '{rated_at}', {board} FROM users WHERE username = '{name}'"
            ))
            .execute(&mut conn)
            .unwrap();
            if *established {
                *counts.entry(*rating).or_insert(0) += 1;
            }
        }
        posthorn::ratings::update::shift_counts(&mut conn, perf, &counts).unwrap();
    })
    .await;
    players
}

#[actix_web::test]
async fn leaderboard_ranks_agree_with_a_brute_force_ranking() {
    let app = TestApp::start().await;
    let viewer = app.register("viewer").await;
    let players = fill_board(&app, "janggi", 260, 19).await;
    let brute =
        |rating: i32| 1 + players.iter().filter(|(_, r, e)| *e && *r > rating).count() as i64;
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let path = match &cursor {
            Some(c) => format!("/v1/leaderboards/janggi?cursor={c}"),
            None => "/v1/leaderboards/janggi".to_owned(),
        };
        let page = app.get(&path, &viewer).await;
        assert_eq!(page.status, 200, "{}", page.body);
        for row in page.body["rows"].as_array().unwrap() {
            let rating = row["rating"].as_i64().unwrap() as i32;
            assert_eq!(row["rank"].as_i64().unwrap(), brute(rating), "{row}");
            assert_eq!(row["provisional"], false, "only established players: {row}");
            assert!(row["title"].is_string(), "Janggi rows carry a title");
            seen.push(row["username"].as_str().unwrap().to_owned());
        }
        cursor = page.body["next_cursor"].as_str().map(str::to_owned);
        if cursor.is_none() {
            break;
        }
    }
    let established = players.iter().filter(|(_, _, e)| *e).count();
    assert_eq!(seen.len(), established, "every established player once");
    // A provisional player: not on the board, but around=me shows them.
    let provisional = players.iter().find(|(_, _, e)| !e).unwrap();
    assert!(!seen.contains(&provisional.0));
    let unknown = app.get("/v1/leaderboards/chess", &viewer).await;
    assert_eq!(
        (unknown.status.as_u16(), unknown.body["code"].as_str()),
        (404, Some("not_found"))
    );
    app.stop().await;
}

#[actix_web::test]
async fn around_me_shows_a_provisional_player_and_friends_scope_only_friends() {
    let app = TestApp::start().await;
    fill_board(&app, "banqi", 40, 7).await;
    let t = users(&app, &["alice", "bob", "carol"]).await;
    // Alice and Bob play one rated Banqi match: provisional both.
    let (m, seats) = after_two_moves(
        &app,
        &t,
        json!({"game": "banqi", "opponents": ["bob"], "rated": true}),
    )
    .await;
    let seat = m["to_act"][0]["seat"].as_u64().unwrap() as usize;
    resign(&app, &m, &seats[seat]).await;
    let around = app
        .get("/v1/leaderboards/banqi?around=me", &t["alice"])
        .await
        .body;
    let rows = around["rows"].as_array().unwrap();
    let me = rows
        .iter()
        .find(|r| r["username"] == "alice")
        .expect("me in around=me");
    assert_eq!(me["provisional"], true);
    assert_eq!(me["rank"], Value::Null);
    assert!(rows.len() > 1, "players around me: {around}");
    let board = app.get("/v1/leaderboards/banqi", &t["alice"]).await.body;
    assert!(!board["rows"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["username"] == "alice"));
    // Friends scope: Alice and her friend Bob, not Carol nor strangers.
    app.post(
        "/v1/friends/requests",
        &t["alice"],
        json!({"username": "bob"}),
    )
    .await;
    app.challenge("/v1/friends/requests/alice/accept", &t["bob"], json!({}))
        .await;
    let friends = app
        .get("/v1/leaderboards/banqi?scope=friends", &t["alice"])
        .await
        .body;
    let mut names: Vec<&str> = friends["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["username"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["alice", "bob"]);
    // A block hides the profile beyond the public name (issue #20).
    app.post("/v1/blocks", &t["carol"], json!({"username": "alice"}))
        .await;
    let hidden = profile(&app, &t["alice"], "carol").await;
    assert_eq!(
        (hidden["perfs"].clone(), hidden["member_since"].clone()),
        (json!([]), Value::Null)
    );
    let shown = profile(&app, &t["carol"], "bob").await;
    assert!(shown["member_since"].is_string());
    let nobody = app.get("/v1/users/nobody", &t["carol"]).await;
    assert_eq!(
        (nobody.status.as_u16(), nobody.body["code"].as_str()),
        (404, Some("not_found"))
    );
    app.stop().await;
}

#[actix_web::test]
async fn players_idle_for_180_days_leave_the_board_in_the_sweep() {
    let app = TestApp::start_with(posthorn::config::Config {
        access_token_seconds: 400 * 24 * 3600,
        ..Default::default()
    })
    .await;
    let viewer = app.register("viewer").await;
    fill_board(&app, "flipchess", 30, 5).await;
    let on_board = |body: &Value| body["rows"].as_array().unwrap().len();
    let before = app.get("/v1/leaderboards/flipchess", &viewer).await.body;
    assert!(on_board(&before) > 0);
    app.clock.advance(Duration::days(179));
    app.blocking(|s| posthorn::jobs::deadlines::Sweeper::of(s).sweep())
        .await
        .unwrap();
    let still = app.get("/v1/leaderboards/flipchess", &viewer).await.body;
    assert_eq!(on_board(&still), on_board(&before), "179 days: still there");
    app.clock.advance(Duration::days(2));
    app.blocking(|s| posthorn::jobs::deadlines::Sweeper::of(s).sweep())
        .await
        .unwrap();
    let after = app.get("/v1/leaderboards/flipchess", &viewer).await.body;
    assert_eq!(on_board(&after), 0, "{after}");
    app.stop().await;
}

/// Issue #47 (review): a four-player seat eliminated, then its player's
/// account deleted, stays seated until the match ends: the others are
/// rated as ever, and nothing is written or told for the deleted player.
#[actix_web::test]
async fn a_deleted_players_eliminated_seat_gets_no_rating_when_the_match_ends() {
    let app = TestApp::start().await;
    let t = users(&app, &["alice", "bob", "carol", "dave"]).await;
    let (m, army_of) = four_player(&app, &t, "ffa", &["green"]).await;
    assert_eq!(m["status"], "active");
    let green = army_of["green"].clone();
    let deleted = app
        .request(
            "POST",
            "/v1/me/deletion",
            Some(&t[green.as_str()]),
            Some(json!({"password": "a long password"})),
            &[],
        )
        .await;
    assert_eq!(deleted.status, 204, "{}", deleted.body);
    let red = &t[army_of["red"].as_str()];
    let mut m = app.get(&format!("/v1/matches/{}", id(&m)), red).await.body;
    for army in ["blue", "gray"] {
        m = resign(&app, &m, &t[army_of[army].as_str()]).await;
    }
    assert_eq!(m["status"], "finished", "{m}");
    let changes = m["result"]["ratings"].as_array().unwrap();
    assert_eq!(changes.len(), 3, "the three still here: {}", m["result"]);
    let gone_seat = (m["seats"].as_array().unwrap().iter())
        .find(|s| s["user"]["deleted"] == true)
        .unwrap()["seat"]
        .clone();
    assert!(changes.iter().all(|c| c["seat"] != gone_seat));
    let written = "SELECT (SELECT count(*) FROM ratings r JOIN users u ON u.id = r.user_id \
        WHERE u.deleted_at IS NOT NULL) + (SELECT count(*) FROM rating_changes r \
        JOIN users u ON u.id = r.user_id WHERE u.deleted_at IS NOT NULL) \
        + (SELECT count(*) FROM notifications n JOIN users u ON u.id = n.user_id \
        WHERE u.deleted_at IS NOT NULL AND n.status = 'pending') AS n";
    app.fan_out().await;
    assert_eq!(app.count(written.into()).await, 0);
    app.stop().await;
}
