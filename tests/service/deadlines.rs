//! Correspondence deadlines (docs/rules/timing.md §T, issue #5), with the manual clock
//! and the sweep run directly.

use crate::support::{start_time, TestApp};
use chrono::{DateTime, Duration, Utc};
use posthorn::jobs::deadlines::{Sweeper, Swept};
use serde_json::{json, Value};

/// A service whose access tokens outlive the days these tests skip.
async fn start() -> TestApp {
    TestApp::start_with(posthorn::config::Config {
        access_token_seconds: 90 * 24 * 3600,
        ..Default::default()
    })
    .await
}

async fn run_sweep(app: &TestApp) -> Swept {
    app.blocking(|s| Sweeper::of(s).sweep()).await.unwrap()
}

fn time(v: &Value) -> DateTime<Utc> {
    v.as_str().unwrap().parse().unwrap()
}

struct Game {
    id: String,
    /// (token of the seat on move, the other's token)
    on_move: String,
    waiting: String,
}

async fn start_game(app: &TestApp, turn_hours: f64) -> Game {
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let m = app
        .post(
            "/v1/matches",
            &alice,
            json!({"game": "checkers", "opponents": ["bob"], "turn_hours": turn_hours}),
        )
        .await
        .body;
    let alice_moves = m["my_seats"][0] == m["to_act"][0]["seat"];
    let (on_move, waiting) = if alice_moves {
        (alice, bob)
    } else {
        (bob, alice)
    };
    Game {
        id: m["id"].as_str().unwrap().to_owned(),
        on_move,
        waiting,
    }
}

async fn events_of_type(app: &TestApp, g: &Game, kind: &str) -> Vec<Value> {
    let feed = app
        .get(&format!("/v1/matches/{}/events", g.id), &g.on_move)
        .await
        .body;
    feed["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == kind)
        .cloned()
        .collect()
}

#[actix_web::test]
async fn t2_the_notice_comes_at_half_the_turn_once_and_is_not_a_loss() {
    let app = start().await;
    let g = start_game(&app, 48.0).await;
    let view = app
        .get(&format!("/v1/matches/{}", g.id), &g.on_move)
        .await
        .body;
    assert_eq!(
        time(&view["to_act"][0]["notice_at"]),
        start_time() + Duration::hours(24)
    );
    assert_eq!(
        time(&view["to_act"][0]["deadline_at"]),
        start_time() + Duration::hours(48)
    );

    app.clock
        .advance(Duration::hours(24) - Duration::seconds(1));
    assert_eq!(run_sweep(&app).await, Swept::default());
    app.clock.advance(Duration::seconds(1));
    for _ in 0..4 {
        run_sweep(&app).await;
    }
    let notices = events_of_type(&app, &g, "timeout_notice").await;
    assert_eq!(notices.len(), 1, "one notice however many sweeps");
    let view = app
        .get(&format!("/v1/matches/{}", g.id), &g.on_move)
        .await
        .body;
    assert_eq!(view["status"], "active", "no loss at the notice");
    assert_eq!(notices[0]["seat"], view["to_act"][0]["seat"]);
    app.stop().await;
}

#[actix_web::test]
async fn t3_the_seat_on_move_loses_by_abandonment_at_the_deadline() {
    let app = start().await;
    let g = start_game(&app, 48.0).await;
    app.clock.advance(Duration::hours(48));
    let done = run_sweep(&app).await;
    assert_eq!(done.deadlines, 1);
    let view = app
        .get(&format!("/v1/matches/{}", g.id), &g.waiting)
        .await
        .body;
    assert_eq!(view["status"], "finished");
    assert_eq!(view["result"]["reason"], "abandoned");
    assert_eq!(
        view["result"]["winners"],
        json!([view["my_seats"][0]]),
        "the waiting seat wins"
    );
    assert_eq!(events_of_type(&app, &g, "abandoned").await.len(), 1);
    app.stop().await;
}

#[actix_web::test]
async fn a_move_just_before_the_deadline_resets_both_times() {
    let app = start().await;
    let g = start_game(&app, 48.0).await;
    app.clock
        .advance(Duration::hours(48) - Duration::minutes(1));
    run_sweep(&app).await;
    let moved = app
        .act(&g.on_move, &g.id, json!({"type": "move", "move": "11-15"}))
        .await;
    let moved = if moved.status == 200 {
        moved
    } else {
        app.act(&g.on_move, &g.id, json!({"type": "move", "move": "22-18"}))
            .await
    };
    assert_eq!(moved.status, 200, "{}", moved.body);
    let duty = &moved.body["match"]["to_act"][0];
    let now = start_time() + Duration::hours(48) - Duration::minutes(1);
    assert_eq!(time(&duty["notice_at"]), now + Duration::hours(24));
    assert_eq!(time(&duty["deadline_at"]), now + Duration::hours(48));
    app.clock.advance(Duration::minutes(2));
    assert_eq!(run_sweep(&app).await.deadlines, 0);
    let view = app
        .get(&format!("/v1/matches/{}", g.id), &g.on_move)
        .await
        .body;
    assert_eq!(view["status"], "active");
    app.stop().await;
}

#[actix_web::test]
async fn the_opponent_may_grant_24_hours_three_times() {
    let app = start().await;
    let g = start_game(&app, 48.0).await;
    let legal = app
        .get(&format!("/v1/matches/{}/legal-actions", g.id), &g.waiting)
        .await
        .body;
    assert!(legal["actions"]
        .as_array()
        .unwrap()
        .contains(&json!({"type": "grant_time"})));
    let own = app
        .act(&g.on_move, &g.id, json!({"type": "grant_time"}))
        .await;
    assert_eq!(
        (own.status.as_u16(), own.code()),
        (422, "illegal_action"),
        "not to oneself: {}",
        own.body
    );

    for n in 1..=3 {
        let reply = app
            .act(&g.waiting, &g.id, json!({"type": "grant_time"}))
            .await;
        assert_eq!(reply.status, 200, "{}", reply.body);
        let deadline = time(&reply.body["match"]["to_act"][0]["deadline_at"]);
        assert_eq!(deadline, start_time() + Duration::hours(48 + 24 * n));
    }
    let fourth = app
        .act(&g.waiting, &g.id, json!({"type": "grant_time"}))
        .await;
    assert_eq!(
        (fourth.status.as_u16(), fourth.code()),
        (422, "illegal_action")
    );
    assert_eq!(events_of_type(&app, &g, "time_granted").await.len(), 3);

    app.clock
        .advance(Duration::hours(48 + 72) - Duration::seconds(1));
    run_sweep(&app).await;
    let view = app
        .get(&format!("/v1/matches/{}", g.id), &g.on_move)
        .await
        .body;
    assert_eq!(
        view["status"], "active",
        "no loss before the granted deadline"
    );
    app.clock.advance(Duration::seconds(1));
    run_sweep(&app).await;
    let view = app
        .get(&format!("/v1/matches/{}", g.id), &g.on_move)
        .await
        .body;
    assert_eq!(view["result"]["reason"], "abandoned");
    app.stop().await;
}

#[actix_web::test]
async fn a_finished_match_is_never_swept_again() {
    let app = start().await;
    let g = start_game(&app, 48.0).await;
    let resigned = app.act(&g.waiting, &g.id, json!({"type": "resign"})).await;
    assert_eq!(resigned.status, 200);
    let seq = resigned.body["match"]["seq"].clone();
    app.clock.advance(Duration::days(30));
    assert_eq!(run_sweep(&app).await, Swept::default());
    let view = app
        .get(&format!("/v1/matches/{}", g.id), &g.on_move)
        .await
        .body;
    assert_eq!(view["seq"], seq);
    assert_eq!(view["result"]["reason"], "resigned");
    app.stop().await;
}

#[actix_web::test]
async fn fractional_turns_down_to_the_configured_floor() {
    let app = TestApp::start_with(posthorn::config::Config {
        min_turn_seconds: 60,
        access_token_seconds: 90 * 24 * 3600,
        ..Default::default()
    })
    .await;
    let g = start_game(&app, 0.05).await; // 3 minutes
    let view = app
        .get(&format!("/v1/matches/{}", g.id), &g.on_move)
        .await
        .body;
    assert_eq!(
        time(&view["to_act"][0]["deadline_at"]),
        start_time() + Duration::minutes(3)
    );
    app.clock.advance(Duration::minutes(3));
    assert_eq!(run_sweep(&app).await.deadlines, 1);
    app.stop().await;
}

#[actix_web::test]
async fn three_instances_sweeping_one_database_record_each_deadline_once() {
    let app = start().await;
    let alice = app.register("alice").await;
    app.register("bob").await;
    let mut ids = Vec::new();
    for _ in 0..100 {
        let m = app
            .post(
                "/v1/matches",
                &alice,
                json!({"game": "checkers", "opponents": ["bob"]}),
            )
            .await
            .body;
        ids.push(m["id"].as_str().unwrap().to_owned());
    }
    // Three instances: three pools on the same database and clock.
    let instances: Vec<posthorn::state::AppState> = (0..3)
        .map(|_| {
            let config = posthorn::config::Config {
                jwt_secret: Some("a test secret that is long enough for HS256".into()),
                pool_size: 4,
                ..Default::default()
            };
            posthorn::app_state(
                config,
                &app.database_url(),
                std::sync::Arc::new(app.clock.clone()),
            )
            .unwrap()
        })
        .collect();
    let sweep_all = |instances: &Vec<posthorn::state::AppState>| {
        std::thread::scope(|s| {
            let handles: Vec<_> = instances
                .iter()
                .map(|st| s.spawn(move || Sweeper::of(st).sweep().unwrap()))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap())
                .collect::<Vec<Swept>>()
        })
    };
    app.clock.advance(Duration::hours(24));
    let notices: usize = sweep_all(&instances).iter().map(|s| s.notices).sum();
    assert_eq!(notices, 100);
    app.clock.advance(Duration::hours(24));
    let deadlines: usize = sweep_all(&instances).iter().map(|s| s.deadlines).sum();
    assert_eq!(deadlines, 100);
    for id in &ids {
        let feed = app
            .get(&format!("/v1/matches/{id}/events"), &alice)
            .await
            .body;
        let count = |t: &str| {
            feed["events"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|e| e["type"] == t)
                .count()
        };
        assert_eq!(
            (
                count("timeout_notice"),
                count("abandoned"),
                count("finished")
            ),
            (1, 1, 1),
            "{id}"
        );
    }
    app.stop().await;
}

#[actix_web::test]
async fn t4_a_draw_offer_lapses_at_its_own_deadline_and_the_turn_runs_on() {
    let app = start().await;
    let g = start_game(&app, 48.0).await;
    // The seat on move offers, then moves an hour later: the opponent now
    // owes a reply (since the offer) and a move (since the move).
    let offer = app
        .act(&g.on_move, &g.id, json!({"type": "offer_draw"}))
        .await;
    assert_eq!(offer.status, 200, "{}", offer.body);
    app.clock.advance(Duration::hours(1));
    let legal = app
        .get(&format!("/v1/matches/{}/legal-actions", g.id), &g.on_move)
        .await
        .body;
    let first_move = legal["actions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["type"] == "move")
        .unwrap()
        .clone();
    assert_eq!(app.act(&g.on_move, &g.id, first_move).await.status, 200);

    app.clock.advance(Duration::hours(47));
    run_sweep(&app).await;
    assert_eq!(events_of_type(&app, &g, "draw_offer_lapsed").await.len(), 1);
    let view = app
        .get(&format!("/v1/matches/{}", g.id), &g.waiting)
        .await
        .body;
    assert_eq!(view["status"], "active", "only the offer lapsed");
    assert_eq!(view["view"]["draw_offer"], Value::Null);

    app.clock.advance(Duration::hours(1));
    run_sweep(&app).await;
    let view = app
        .get(&format!("/v1/matches/{}", g.id), &g.waiting)
        .await
        .body;
    assert_eq!(view["result"]["reason"], "abandoned");
    app.stop().await;
}

/// The text of each match row's columns the sweep writes, and the notices
/// it left, read straight from the database.
async fn row_and_notices(app: &TestApp, id: &str) -> (String, Vec<String>) {
    #[derive(diesel::QueryableByName)]
    struct Text {
        #[diesel(sql_type = diesel::sql_types::Text)]
        t: String,
    }
    let id = id.to_owned();
    app.blocking(move |s| {
        use diesel::RunQueryDsl;
        let conn = &mut s.pool.get().unwrap();
        let row = diesel::sql_query(format!(
            "SELECT concat_ws(' | ', status, seq, awaiting, coalesce(notice_at::text, '-'), \
             coalesce(deadline_at::text, '-'), coalesce(result::text, '-')) AS t \
             FROM matches WHERE id = '{id}'"
        ))
        .get_result::<Text>(conn)
        .unwrap()
        .t;
        let notices = diesel::sql_query(format!(
            "SELECT kind || ' ' || seq AS t FROM notices WHERE match_id = '{id}' ORDER BY seq, kind"
        ))
        .load::<Text>(conn)
        .unwrap();
        (row, notices.into_iter().map(|n| n.t).collect())
    })
    .await
}

/// Issue #21: a sweep batch writes every settled match in one statement.
/// Each match must still get exactly its own events, row and notices, as
/// the per-match writes gave: here one match gets its notice (§T2) and
/// another, in the same batch, its abandonment (§T3).
#[actix_web::test]
async fn one_sweep_batch_writes_each_matchs_own_events_row_and_notices() {
    let app = start().await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let mut ids = Vec::new();
    for hours in [48, 24] {
        let body = json!({"game": "checkers", "opponents": ["bob"], "turn_hours": hours});
        let m = app.post("/v1/matches", &alice, body).await.body;
        ids.push(m["id"].as_str().unwrap().to_owned());
    }
    let (fast, slow) = (ids.pop().unwrap(), ids.pop().unwrap());
    let slow = Game {
        id: slow,
        on_move: alice.clone(),
        waiting: bob,
    };
    // Notices left by the set-up (invitation, your turn) stay unfanned.
    let (slow_before, slow_earlier) = row_and_notices(&app, &slow.id).await;
    let (_, fast_earlier) = row_and_notices(&app, &fast).await;
    app.clock.advance(Duration::hours(24));
    let done = run_sweep(&app).await;
    assert_eq!(
        (done.matches, done.notices, done.deadlines),
        (2, 1, 1),
        "one batch: a notice and a deadline"
    );

    let (slow_row, slow_notices) = row_and_notices(&app, &slow.id).await;
    let before: Vec<&str> = slow_before.split(" | ").collect();
    let after: Vec<&str> = slow_row.split(" | ").collect();
    assert_eq!(after[0], "active", "{slow_row}");
    assert_eq!(
        after[1].parse::<i32>().unwrap(),
        before[1].parse::<i32>().unwrap() + 1
    );
    assert_eq!(after[2], before[2], "still awaited: {slow_row}");
    assert_eq!(after[3], "-", "the notice is spent: {slow_row}");
    assert_eq!(
        after[4], before[4],
        "the notice moves no deadline: {slow_row}"
    );
    assert_eq!(events_of_type(&app, &slow, "timeout_notice").await.len(), 1);
    let new = |all: Vec<String>, earlier: &[String]| all[earlier.len()..].to_vec();
    assert_eq!(
        new(slow_notices, &slow_earlier),
        vec![format!("timeout_notice {}", after[1])]
    );

    let (fast_row, fast_notices) = row_and_notices(&app, &fast).await;
    assert!(fast_row.starts_with("finished | "), "{fast_row}");
    assert!(fast_row.contains("abandoned"), "{fast_row}");
    assert!(
        fast_row.contains(" | {} | - | - | "),
        "nobody awaited, no deadline: {fast_row}"
    );
    let view = app.get(&format!("/v1/matches/{fast}"), &alice).await.body;
    assert_eq!(view["status"], "finished");
    assert_eq!(view["result"]["reason"], "abandoned");
    let fast_notices = new(fast_notices, &fast_earlier);
    assert_eq!(
        fast_notices.len(),
        2,
        "both players hear the end: {fast_notices:?}"
    );
    assert!(fast_notices
        .iter()
        .all(|n| n.starts_with("match_finished ")));

    // Written once: another sweep finds nothing.
    assert_eq!(run_sweep(&app).await, Swept::default());
    app.stop().await;
}

/// Issue #31 (jobs): the sweep and the outbox delivery run on ticks of
/// their own, so a mail server that accepts and then never answers holds
/// up its mail, not the deadlines.
#[actix_web::test]
async fn a_stalled_mail_server_does_not_delay_a_deadline() {
    // A peer that takes connections and says nothing.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("smtp://{}", silent.local_addr().unwrap());
    let app = TestApp::start_with(posthorn::config::Config {
        smtp_url: Some(url),
        access_token_seconds: 90 * 24 * 3600,
        ..Default::default()
    })
    .await;
    let g = start_game(&app, 48.0).await;
    let scheduler = posthorn::jobs::start(app.state.clone(), std::time::Duration::from_secs(1))
        .await
        .unwrap();
    app.clock.advance(Duration::hours(49));
    let mut status = String::new();
    for _ in 0..50 {
        let view = app
            .get(&format!("/v1/matches/{}", g.id), &g.waiting)
            .await
            .body;
        status = view["status"].as_str().unwrap().to_owned();
        if status == "finished" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(
        status, "finished",
        "the deadline fired while the mail waits"
    );
    let mut scheduler = scheduler;
    scheduler.shutdown().await.unwrap();
    drop(silent);
    app.stop().await;
}
