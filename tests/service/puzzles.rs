//! Puzzles over the API (issue #52, docs/puzzles.md): served one move at
//! a time with nothing of the line sent early, the daily puzzle the same
//! for everyone whose day it is, streaks across days, Glicko-2 for
//! accounts and nothing for guests. The puzzles are the rules crate's
//! mined ones (`rules/puzzles/`), stored as the mining job
//! stores them.

use crate::support::TestApp;
use chrono::Duration;
use posthorn_rules::puzzles::Found;
use posthorn_rules::{Env, GameId, MatchState, Seat, SplitMix64};
use serde_json::{json, Value};

/// The games with mined puzzles, and the file each is read from.
const MINED: [(&str, &str); 5] = [
    ("checkers", "checkers.jsonl"),
    ("janggi", "janggi.jsonl"),
    ("banqi", "banqi.jsonl"),
    ("four_player_chess", "four_player_chess.jsonl"),
    ("flipchess", "flipchess.jsonl"),
];

pub(crate) fn mined(file: &str, take: usize) -> Vec<(Value, Found)> {
    let path = format!("{}/rules/puzzles/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    text.lines()
        .take(take)
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (v["config"].clone(), serde_json::from_value(v).unwrap())
        })
        .collect()
}

/// Store `take` puzzles of each game, as the mining job does.
pub(crate) async fn seed(app: &TestApp, take: usize) {
    let now = posthorn::clock::Clock::now(&app.clock);
    app.blocking(move |s| {
        let conn = &mut s.pool.get().unwrap();
        for (game, file) in MINED {
            let game = GameId::parse(game).unwrap();
            for (i, (config, found)) in mined(file, take).into_iter().enumerate() {
                let source = format!("test:{}:{i}", game.id());
                assert!(
                    posthorn::puzzles::store(conn, game, &config, &found, &source, now).unwrap()
                );
            }
        }
    })
    .await;
}

fn effect(state: &MatchState, seat: Seat, action: &Value) -> Option<Vec<Value>> {
    let mut random = SplitMix64::new(0);
    let mut env = Env {
        now: 0,
        random: &mut random,
    };
    state.act(seat, action, &mut env).ok()
}

/// The line of a puzzle, read from the database (the API never sends it
/// early), and its board as the solver sees it now.
async fn line_of(app: &TestApp, id: &str) -> Vec<(u8, Value)> {
    let id: uuid::Uuid = id.parse().unwrap();
    let line: Value = app
        .blocking(move |s| {
            use diesel::prelude::*;
            use posthorn::schema::puzzles;
            let conn = &mut s.pool.get().unwrap();
            puzzles::table
                .find(id)
                .select(puzzles::line)
                .first::<Value>(conn)
                .unwrap()
        })
        .await;
    line.as_array()
        .unwrap()
        .iter()
        .map(|s| (s["seat"].as_u64().unwrap() as u8, s["action"].clone()))
        .collect()
}

/// The puzzle's board now: its opening and what was played, replayed by
/// the rules.
fn board_now(puzzle: &Value) -> MatchState {
    let game = GameId::parse(puzzle["game"].as_str().unwrap()).unwrap();
    let events: Vec<Value> = puzzle["_events"].as_array().unwrap().clone();
    let mut state = MatchState::replay(game, &events).unwrap();
    for s in puzzle["played"].as_array().unwrap() {
        let seat = Seat(s["seat"].as_u64().unwrap() as u8);
        for e in effect(&state, seat, &s["action"]).unwrap() {
            state.apply(&e).unwrap();
        }
    }
    state
}

/// A legal action of the solver that is not `right` (another effect), on
/// `puzzle`'s board.
fn a_wrong_move(puzzle: &Value, right: &Value) -> Option<Value> {
    let seat = Seat(puzzle["seat"].as_u64().unwrap() as u8);
    let state = board_now(puzzle);
    let good = effect(&state, seat, right).unwrap();
    state
        .legal_actions(seat)
        .into_iter()
        .filter(crate::support::plays_on)
        .find(|a| effect(&state, seat, a).unwrap() != good)
}

/// Nothing the solver's seat may not see (the rules' own list: the deck
/// and the other hand in FlipChess, what lies face down in Banqi) is in
/// `body`, the answer about `puzzle` as it stands.
fn nothing_hidden(puzzle: &Value, body: &Value) {
    let seat = Seat(puzzle["seat"].as_u64().unwrap() as u8);
    let text = body.to_string();
    for secret in board_now(puzzle).secrets(posthorn_rules::Viewer::Seat(seat)) {
        let secret = secret.to_string();
        assert!(!text.contains(&secret), "{secret} shown: {text}");
    }
}

async fn events_of(app: &TestApp, id: &str) -> Vec<Value> {
    let id: uuid::Uuid = id.parse().unwrap();
    app.blocking(move |s| {
        use diesel::prelude::*;
        use posthorn::schema::puzzles;
        let conn = &mut s.pool.get().unwrap();
        let v: Value = puzzles::table
            .find(id)
            .select(puzzles::events)
            .first(conn)
            .unwrap();
        v.as_array().unwrap().clone()
    })
    .await
}

/// Nothing of the line beyond what is played is in `body`.
fn nothing_ahead(body: &Value, line: &[(u8, Value)], played: usize) {
    assert!(
        body["solution"].is_null(),
        "no solution while playing: {body}"
    );
    // The view and my legal moves may name the squares of a move; the
    // line's own entries must not appear.
    let mut shown = body.clone();
    shown["legal"] = Value::Null;
    let text = shown.to_string();
    for (seat, action) in &line[played..] {
        let entry = json!({"seat": seat, "action": action}).to_string();
        assert!(!text.contains(&entry), "{entry} sent early: {text}");
    }
}

/// Issue #52: in every game with puzzles, a puzzle is solved one move at
/// a time: an illegal move is refused (422, nothing changes), a wrong one
/// is "not the move" and shows nothing, the right ones bring the replies
/// and then the solution; nothing of the line is sent before.
#[actix_web::test]
async fn a_puzzle_is_solved_move_by_move_and_its_line_is_never_sent_early() {
    let app = TestApp::start().await;
    seed(&app, 3).await;
    let token = app.register("solver").await;
    for (game, _) in MINED {
        let reply = app
            .get(&format!("/v1/puzzles/next?game={game}"), &token)
            .await;
        assert_eq!(reply.status, 200, "{}", reply.body);
        let mut puzzle = reply.body.clone();
        let id = puzzle["id"].as_str().unwrap().to_owned();
        let line = line_of(&app, &id).await;
        nothing_ahead(&puzzle, &line, 0);
        assert_eq!(puzzle["state"], "playing");
        let solver = puzzle["seat"].as_u64().unwrap() as u8;
        let path = format!("/v1/puzzles/{id}/moves");

        let illegal = app
            .post(
                &path,
                &token,
                json!({"action": {"type": "move", "notation": "z9-z10"}}),
            )
            .await;
        assert!(
            illegal.status == 422 || illegal.status == 400,
            "{}",
            illegal.body
        );
        puzzle["_events"] = Value::from(events_of(&app, &id).await);
        nothing_hidden(&puzzle, &reply.body);
        // A wrong move at the first step that has one (a FlipChess turn
        // may open with its only playable card).
        let (mut at, mut missed_once) = (0, false);
        while at < line.len() {
            assert_eq!(line[at].0, solver);
            let mut now = puzzle.clone();
            now["played"] = json!(line[..at]
                .iter()
                .map(|(seat, action)| json!({"seat": seat, "action": action}))
                .collect::<Vec<_>>());
            if let Some(wrong) = a_wrong_move(&now, &line[at].1).filter(|_| !missed_once) {
                let missed = app.post(&path, &token, json!({ "action": wrong })).await;
                assert_eq!(missed.status, 200, "{}", missed.body);
                assert_eq!(missed.body["verdict"], "not_the_move");
                assert_eq!(
                    missed.body["puzzle"]["played"], now["played"],
                    "the board is unchanged"
                );
                nothing_ahead(&missed.body["puzzle"], &line, at);
                missed_once = true;
            }
            let answer = app
                .post(&path, &token, json!({ "action": line[at].1 }))
                .await;
            assert_eq!(answer.status, 200, "{}", answer.body);
            let mut now = answer.body["puzzle"].clone();
            now["_events"] = puzzle["_events"].clone();
            if answer.body["verdict"] == "right" {
                nothing_hidden(&now, &answer.body);
            }
            at += 1;
            while at < line.len() && line[at].0 != solver {
                at += 1;
            }
            if at < line.len() {
                assert_eq!(answer.body["verdict"], "right");
                assert_eq!(
                    answer.body["puzzle"]["played"].as_array().unwrap().len(),
                    at
                );
                nothing_ahead(&answer.body["puzzle"], &line, at);
            } else {
                assert_eq!(answer.body["verdict"], "solved", "{}", answer.body);
                assert_eq!(
                    answer.body["puzzle"]["solution"].as_array().unwrap().len(),
                    line.len()
                );
                // A first wrong move made this attempt a loss.
                assert!(
                    answer.body["my_rating"].is_null(),
                    "it counted at the wrong move"
                );
            }
        }
        assert!(missed_once, "{game}: a wrong move was tried");
        let again = app
            .post(&path, &token, json!({ "action": line[0].1 }))
            .await;
        assert_eq!(again.status, 409, "{}", again.body);
    }
    let counted = app
        .count("SELECT count(*) AS n FROM puzzle_ratings WHERE attempts = 1".into())
        .await;
    assert_eq!(
        counted,
        MINED.len() as i64,
        "each game's attempt counted once"
    );
    app.stop().await;
}

/// Issue #52: giving up shows the solution and counts as a loss; a
/// guest's attempts rate nothing, neither the guest nor the puzzle.
#[actix_web::test]
async fn giving_up_shows_the_solution_and_a_guest_rates_nothing() {
    let app = TestApp::start().await;
    seed(&app, 2).await;
    let guest = app.guest("Wanderer").await;
    let puzzle = app.get("/v1/puzzles/next?game=checkers", &guest).await.body;
    let id = puzzle["id"].as_str().unwrap().to_owned();
    let line = line_of(&app, &id).await;
    let solver = puzzle["seat"].as_u64().unwrap() as u8;
    let mut answer = Value::Null;
    for (seat, action) in &line {
        if *seat == solver {
            answer = app
                .post(
                    &format!("/v1/puzzles/{id}/moves"),
                    &guest,
                    json!({ "action": action }),
                )
                .await
                .body;
        }
    }
    assert_eq!(answer["verdict"], "solved");
    assert!(answer["my_rating"].is_null());
    let rated = app
        .count("SELECT count(*) AS n FROM puzzle_ratings".into())
        .await;
    assert_eq!(rated, 0, "a guest has no puzzle rating");
    let plays = app
        .count("SELECT coalesce(sum(plays), 0)::bigint AS n FROM puzzles".into())
        .await;
    assert_eq!(plays, 0, "nor does a guest's attempt move a puzzle's");

    let player = app.register("quitter").await;
    let puzzle = app.get("/v1/puzzles/next?game=janggi", &player).await.body;
    let id = puzzle["id"].as_str().unwrap().to_owned();
    let shown = app
        .post(&format!("/v1/puzzles/{id}/give-up"), &player, json!({}))
        .await;
    assert_eq!(shown.status, 200, "{}", shown.body);
    assert_eq!(shown.body["state"], "given_up");
    assert_eq!(
        shown.body["solution"].as_array().unwrap().len(),
        line_of(&app, &id).await.len()
    );
    let mine = app.get("/v1/me/puzzles?game=janggi", &player).await.body;
    assert!(
        mine["rating"]["rating"].as_i64().unwrap() < 1500,
        "a give-up is a loss: {mine}"
    );
    assert_eq!(mine["rating"]["attempts"], 1);
    app.stop().await;
}

/// Issue #52: two players in the same time zone get the same daily
/// puzzle on the same day and a new one the next; solving it day after
/// day makes a streak, which a missed day ends.
/// A service whose tokens outlive the days the clock is moved by.
async fn days_long() -> TestApp {
    TestApp::start_with(posthorn::config::Config {
        access_token_seconds: 30 * 24 * 3600,
        ..Default::default()
    })
    .await
}

/// Solve today's checkers puzzle as `token`: its id.
pub(crate) async fn solve_daily(app: &TestApp, token: String) -> String {
    let puzzle = app
        .get("/v1/puzzles/daily?game=checkers", &token)
        .await
        .body;
    let id = puzzle["id"].as_str().unwrap().to_owned();
    let solver = puzzle["seat"].as_u64().unwrap() as u8;
    for (seat, action) in line_of(app, &id).await {
        if seat == solver {
            app.post(
                &format!("/v1/puzzles/{id}/moves"),
                &token,
                json!({ "action": action }),
            )
            .await;
        }
    }
    id
}

/// Issue #65 item 11: two "days" in one by hopping time zones make a
/// streak of one; the next real day makes it two.
#[actix_web::test]
async fn hopping_time_zones_grows_a_streak_once_a_real_day() {
    let app = days_long().await;
    seed(&app, 6).await;
    let ann = app.register("ann").await;
    let zone = |name: &'static str| {
        let (app, ann) = (&app, ann.clone());
        async move {
            let body = json!({ "time_zone": name });
            let reply = app
                .request("PATCH", "/v1/me", Some(&ann), Some(body), &[])
                .await;
            assert_eq!(reply.status, 200, "{}", reply.body);
        }
    };
    // 09:00 UTC on the 7th: 23:00 on the 6th in Honolulu, 23:00 on the
    // 7th in Kiritimati.
    zone("Pacific/Honolulu").await;
    let first = solve_daily(&app, ann.clone()).await;
    zone("Pacific/Kiritimati").await;
    let second = solve_daily(&app, ann.clone()).await;
    assert_ne!(first, second, "two dates' puzzles");
    let mine = app.get("/v1/me/puzzles?game=checkers", &ann).await.body;
    assert_eq!(mine["streak"], 1, "one real day: {mine}");
    app.clock.advance(Duration::days(1));
    solve_daily(&app, ann.clone()).await;
    let mine = app.get("/v1/me/puzzles?game=checkers", &ann).await.body;
    assert_eq!(mine["streak"], 2, "the next real day: {mine}");
    app.stop().await;
}

#[actix_web::test]
async fn the_daily_puzzle_is_shared_changes_daily_and_makes_a_streak() {
    let app = days_long().await;
    seed(&app, 6).await;
    let ann = app.register("ann").await;
    let bob = app.register("bob").await;
    let solve_daily = |token: String| solve_daily(&app, token);
    let first = app.get("/v1/puzzles/daily?game=checkers", &ann).await.body;
    let same = app.get("/v1/puzzles/daily?game=checkers", &bob).await.body;
    assert_eq!(
        first["id"], same["id"],
        "one daily puzzle for everyone that day"
    );
    assert!(first["daily"].is_string());
    let day1 = solve_daily(ann.clone()).await;
    let streak = app.get("/v1/me/puzzles?game=checkers", &ann).await.body;
    assert_eq!(streak["streak"], 1, "{streak}");
    assert_eq!(streak["solved_today"], true);

    app.clock.advance(Duration::days(1));
    let day2 = solve_daily(ann.clone()).await;
    assert_ne!(day1, day2, "a new puzzle the next day");
    let streak = app.get("/v1/me/puzzles?game=checkers", &ann).await.body;
    assert_eq!(
        streak["streak"], 2,
        "counted across the day boundary: {streak}"
    );

    app.clock.advance(Duration::days(1));
    let streak = app.get("/v1/me/puzzles?game=checkers", &ann).await.body;
    assert_eq!(streak["streak"], 2, "today's still to do");
    assert_eq!(streak["solved_today"], false);
    app.clock.advance(Duration::days(1));
    let streak = app.get("/v1/me/puzzles?game=checkers", &ann).await.body;
    assert_eq!(streak["streak"], 0, "a missed day ends it");
    let bob_streak = app.get("/v1/me/puzzles?game=checkers", &bob).await.body;
    assert_eq!(bob_streak["streak"], 0);
    app.stop().await;
}

/// Issue #52: bad input changes nothing: an unknown game, someone's
/// malformed move, a puzzle that does not exist.
#[actix_web::test]
async fn bad_puzzle_requests_are_refused_with_problems() {
    let app = TestApp::start().await;
    seed(&app, 1).await;
    let token = app.register("careful").await;
    let unknown = app.get("/v1/puzzles/daily?game=go", &token).await;
    assert_eq!(unknown.status, 400, "{}", unknown.body);
    let missing = app
        .get(&format!("/v1/puzzles/{}", uuid::Uuid::new_v4()), &token)
        .await;
    assert_eq!(missing.status, 404);
    let puzzle = app.get("/v1/puzzles/next?game=checkers", &token).await.body;
    let id = puzzle["id"].as_str().unwrap();
    let malformed = app
        .post(
            &format!("/v1/puzzles/{id}/moves"),
            &token,
            json!({"action": 7}),
        )
        .await;
    assert!(malformed.status.is_client_error(), "{}", malformed.body);
    let extra = app
        .post(
            &format!("/v1/puzzles/{id}/moves"),
            &token,
            json!({"action": {}, "hint": true}),
        )
        .await;
    assert_eq!(extra.status, 400, "{}", extra.body);
    let after = app.get(&format!("/v1/puzzles/{id}"), &token).await.body;
    assert_eq!(after["played"], json!([]));
    assert_eq!(after["missed"], false);
    app.stop().await;
}

/// A puzzle's Glicko-2 rating, deviation and volatility, as stored.
async fn rating_of(app: &TestApp, id: uuid::Uuid) -> (f64, f64, f64) {
    app.blocking(move |s| {
        use diesel::prelude::*;
        use posthorn::schema::puzzles;
        puzzles::table
            .find(id)
            .select((puzzles::rating, puzzles::deviation, puzzles::volatility))
            .first::<(f64, f64, f64)>(&mut s.pool.get().unwrap())
            .unwrap()
    })
    .await
}

/// Attempts counted at the same moment all count: a player's first
/// puzzle rating is made before it is locked, so first attempts counted
/// at once lose none; and a crowd giving up one puzzle at once moves its
/// rating exactly as those results one after another would (Glicko-2),
/// none lost to another.
#[actix_web::test]
async fn attempts_counted_at_once_all_count() {
    use posthorn::puzzles::rating::{settle, START};
    let app = TestApp::start().await;
    seed(&app, 4).await;
    let token = app.register("hasty").await;
    let ids: Vec<uuid::Uuid> = app
        .blocking(|s| {
            use diesel::prelude::*;
            use posthorn::schema::puzzles;
            let conn = &mut s.pool.get().unwrap();
            puzzles::table
                .filter(puzzles::game.eq("checkers"))
                .order(puzzles::id)
                .select(puzzles::id)
                .load::<uuid::Uuid>(conn)
                .unwrap()
        })
        .await;
    assert_eq!(ids.len(), 4);
    let paths: Vec<String> = ids
        .iter()
        .map(|id| format!("/v1/puzzles/{id}/give-up"))
        .collect();
    let at_once = paths[..3].iter().map(|p| app.post(p, &token, json!({})));
    for reply in futures_util::future::join_all(at_once).await {
        assert_eq!(reply.status, 200, "{}", reply.body);
    }
    let attempts = app
        .count("SELECT attempts::bigint AS n FROM puzzle_ratings".into())
        .await;
    assert_eq!(attempts, 3, "every first attempt counted");

    let crowd_puzzle = ids[3];
    let (r, d, v) = rating_of(&app, crowd_puzzle).await;
    let mut players = Vec::new();
    for i in 0..6 {
        players.push(app.register(&format!("crowd{i}")).await);
    }
    let crowd = players.iter().map(|t| app.post(&paths[3], t, json!({})));
    for reply in futures_util::future::join_all(crowd).await {
        assert_eq!(reply.status, 200, "{}", reply.body);
    }
    // Six new players, alike: the order does not matter, a lost one would.
    let mut it = skillratings::glicko2::Glicko2Rating {
        rating: r,
        deviation: d,
        volatility: v,
    };
    for _ in 0..6 {
        it = settle(START, it, false).1;
    }
    let (r, d, _) = rating_of(&app, crowd_puzzle).await;
    assert!(
        (r - it.rating).abs() < 1e-6,
        "rating {r}, not {}",
        it.rating
    );
    assert!(
        (d - it.deviation).abs() < 1e-6,
        "deviation {d}, not {}",
        it.deviation
    );
    app.stop().await;
}

/// A game's dailies repeat only once every puzzle has been one: with one
/// puzzle in the middling band, the next days take the never-daily ones
/// outside it, nearest the band first, and only then repeat.
#[actix_web::test]
async fn the_daily_takes_every_puzzle_outside_the_band_before_it_repeats_one() {
    let app = days_long().await;
    seed(&app, 3).await;
    let rated = |sql: &str| {
        app.count(format!(
            "WITH u AS ({sql} RETURNING 1) SELECT count(*) AS n FROM u"
        ))
    };
    let ids: Vec<String> = app
        .blocking(|s| {
            use diesel::prelude::*;
            use posthorn::schema::puzzles;
            (puzzles::table.filter(puzzles::game.eq("checkers")))
                .order(puzzles::source)
                .select(puzzles::id)
                .load::<uuid::Uuid>(&mut s.pool.get().unwrap())
                .unwrap()
        })
        .await
        .iter()
        .map(|id| id.to_string())
        .collect();
    assert_eq!(ids.len(), 3);
    for (id, rating) in ids.iter().zip([1400, 2600, 1900]) {
        let set = format!("UPDATE puzzles SET rating = {rating} WHERE id = '{id}'");
        assert_eq!(rated(&set).await, 1);
    }
    let ann = app.register("ann").await;
    let mut dailies = Vec::new();
    for _ in 0..4 {
        let daily = app.get("/v1/puzzles/daily?game=checkers", &ann).await;
        assert_eq!(daily.status, 200, "{}", daily.body);
        dailies.push(daily.body["id"].as_str().unwrap().to_owned());
        app.clock.advance(Duration::days(1));
    }
    assert_eq!(
        dailies[..3],
        [ids[0].clone(), ids[2].clone(), ids[1].clone()],
        "in the band, then nearest it, then the farthest"
    );
    assert!(ids.contains(&dailies[3]), "then a repeat");
    app.stop().await;
}

/// A Janggi puzzle offers no pass (docs/puzzles.md, "Serving"): the rules
/// let the solver pass there, but no line passes, and a pass tapped by
/// mistake would be a miss.
#[actix_web::test]
async fn a_puzzle_whose_line_never_passes_offers_no_pass() {
    let app = TestApp::start().await;
    seed(&app, 1).await;
    let ann = app.register("ann").await;
    let puzzle = app.get("/v1/puzzles/next?game=janggi", &ann).await;
    assert_eq!(puzzle.status, 200, "{}", puzzle.body);
    let offered = puzzle.body["legal"].as_array().unwrap();
    assert!(!offered.is_empty());
    assert!(offered.iter().all(|a| a["type"] != "pass"), "{offered:?}");
    let id = puzzle.body["id"].as_str().unwrap();
    let mut body = puzzle.body.clone();
    body["_events"] = Value::from(events_of(&app, id).await);
    let seat = Seat(body["seat"].as_u64().unwrap() as u8);
    let rules = board_now(&body).legal_actions(seat);
    assert!(
        rules.iter().any(|a| a["type"] == "pass"),
        "the rules would let them pass"
    );
    app.stop().await;
}

/// The daily checkers puzzle is the player's own variant (docs/puzzles.md,
/// "Serving"): American for a new player, else the variant they play
/// most; any variant when asked for, the same for everyone that day; a
/// variant the game does not have is refused.
#[actix_web::test]
async fn the_daily_checkers_puzzle_is_in_the_players_own_variant() {
    let app = TestApp::start().await;
    let now = posthorn::clock::Clock::now(&app.clock);
    app.blocking(move |s| {
        let conn = &mut s.pool.get().unwrap();
        let text = GameId::Checkers.shipped_puzzles();
        posthorn::puzzles::shipped::keep_lines(conn, text, now).unwrap()
    })
    .await;
    let daily = |token: String, query: &'static str| {
        let app = &app;
        async move {
            let reply = app.get(&format!("/v1/puzzles/daily?{query}"), &token).await;
            assert_eq!(reply.status, 200, "{query}: {}", reply.body);
            reply.body
        }
    };
    let ann = app.register("ann").await;
    let bob = app.register("bob").await;
    let first = daily(ann.clone(), "game=checkers").await;
    assert_eq!(first["options"]["variant"], "american", "a new player's");
    let asked = daily(ann.clone(), "game=checkers&variant=international").await;
    assert_eq!(asked["options"]["variant"], "international");
    let same = daily(bob.clone(), "game=checkers&variant=international").await;
    assert_eq!(
        asked["id"], same["id"],
        "one international daily for everyone"
    );
    for _ in 0..2 {
        let m = json!({"game": "checkers", "variant": "russian", "computers": [{"level": "easy"}]});
        let made = app.post("/v1/matches", &bob, m).await;
        assert_eq!(made.status, 201, "{}", made.body);
    }
    let russian = daily(bob.clone(), "game=checkers").await;
    assert_eq!(
        russian["options"]["variant"], "russian",
        "the variant bob plays most"
    );
    for query in [
        "game=checkers&variant=klingon",
        "game=janggi&variant=american",
    ] {
        let refused = app.get(&format!("/v1/puzzles/daily?{query}"), &ann).await;
        assert_eq!(refused.status, 400, "{query}: {}", refused.body);
    }
    app.stop().await;
}

/// Issue #68 item 3, §H: a Banqi puzzle with pieces face down is dealt
/// anew for each solver, one of the ways to lay them that the proof
/// covers; two solvers dealt differently see the same board, neither
/// learns what lies face down (not from the view, not from turning one
/// up, which is "not the move" and shows nothing), and the one line
/// solves it for both.
#[actix_web::test]
async fn a_hidden_piece_banqi_puzzle_is_dealt_anew_for_each_solver_and_solved_in_each_h() {
    let app = TestApp::start().await;
    let game = GameId::parse("banqi").unwrap();
    let (config, found) = (mined("banqi.jsonl", usize::MAX).into_iter())
        .find(|(_, f)| game.puzzle_deals(&f.events).unwrap().len() > 1)
        .expect("a shipped Banqi puzzle with pieces face down");
    let deals = game.puzzle_deals(&found.events).unwrap();
    let now = posthorn::clock::Clock::now(&app.clock);
    let stored = found.clone();
    app.blocking(move |s| {
        let conn = &mut s.pool.get().unwrap();
        posthorn::puzzles::store(conn, game, &config, &stored, "test:banqi:hidden", now).unwrap();
    })
    .await;
    let id: uuid::Uuid = app
        .blocking(|s| {
            use diesel::prelude::*;
            use posthorn::schema::puzzles;
            let conn = &mut s.pool.get().unwrap();
            puzzles::table.select(puzzles::id).first(conn).unwrap()
        })
        .await;
    // Two solvers dealt two different layouts.
    let mut solvers: Vec<(String, usize)> = Vec::new();
    for i in 0.. {
        let token = app.register(&format!("dealt{i}")).await;
        let me: uuid::Uuid = app.get("/v1/me", &token).await.body["id"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        let deal = posthorn::puzzles::solve::deal_for(me, id, deals.len());
        if solvers.iter().all(|(_, d)| *d != deal) {
            solvers.push((token, deal));
        }
        if solvers.len() == 2 {
            break;
        }
    }
    assert_ne!(deals[solvers[0].1], deals[solvers[1].1], "two layouts");
    // What no solver may see: every face-down piece of every deal.
    let secrets: Vec<String> = (deals.iter())
        .flat_map(|d| {
            MatchState::replay(game, d)
                .unwrap()
                .secrets(posthorn_rules::Viewer::Seat(found.solver))
        })
        .map(|s| s.to_string())
        .collect();
    let hides = |body: &Value| {
        let text = body.to_string();
        for secret in &secrets {
            assert!(!text.contains(secret), "{secret} shown: {text}");
        }
    };
    let path = format!("/v1/puzzles/{id}/moves");
    let mut boards = Vec::new();
    for (token, _) in &solvers {
        let shown = app.get(&format!("/v1/puzzles/{id}"), token).await;
        assert_eq!(shown.status, 200, "{}", shown.body);
        hides(&shown.body);
        boards.push(shown.body["view"].clone());
        // Turning a piece up is legal, and not the move: the answer says
        // nothing of what it was.
        let square = shown.body["view"]["face_down"][0].clone();
        let turned = app
            .post(
                &path,
                token,
                json!({"action": {"type": "turn_up", "square": square}}),
            )
            .await;
        assert_eq!(turned.status, 200, "{}", turned.body);
        assert_eq!(turned.body["verdict"], "not_the_move");
        hides(&turned.body);
        let mine: Vec<&Value> = (found.line.iter())
            .filter(|s| s.seat == found.solver)
            .map(|s| &s.action)
            .collect();
        for (k, action) in mine.iter().enumerate() {
            let answer = app.post(&path, token, json!({ "action": action })).await;
            assert_eq!(answer.status, 200, "{}", answer.body);
            let expected = if k + 1 == mine.len() {
                "solved"
            } else {
                "right"
            };
            assert_eq!(answer.body["verdict"], expected, "{}", answer.body);
            hides(&answer.body);
        }
    }
    assert_eq!(boards[0], boards[1], "the same board, whatever was dealt");
    app.stop().await;
}
