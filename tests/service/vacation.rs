//! Vacation (issue #34): a player away loses no match on the 48-hour rule;
//! their duties pause with the time they had left and resume with it; the
//! allowance is spent by the started hour from the first paused duty;
//! auto-vacation saves a match at its deadline until the allowance is
//! gone; the sweep does each of it once on any number of instances.

use crate::support::TestApp;
use chrono::Duration;
use posthorn::jobs::deadlines::{Sweeper, Swept};
use serde_json::{json, Value};

/// Tokens that outlive the weeks the clock is moved by.
async fn start() -> TestApp {
    TestApp::start_with(posthorn::config::Config {
        access_token_seconds: 90 * 24 * 3600,
        ..Default::default()
    })
    .await
}

fn now(app: &TestApp) -> chrono::DateTime<chrono::Utc> {
    posthorn::clock::Clock::now(&app.clock)
}

async fn sweep(app: &TestApp) -> Swept {
    app.blocking(|s| Sweeper::of(s).sweep()).await.unwrap()
}

async fn view(app: &TestApp, token: &str, id: &str) -> Value {
    app.get(&format!("/v1/matches/{id}"), token).await.body
}

async fn first_move(app: &TestApp, token: &str, id: &str) -> Option<Value> {
    let actions = app.legal_actions(token, id).await;
    actions.into_iter().find(|a| a["type"] == "move")
}

/// A checkers match `a` makes against `b` (named `b_name`), in which it is
/// `a`'s turn: if `b` moves first, `b` plays a move.
async fn match_where_first(app: &TestApp, a: &str, b: &str, b_name: &str) -> String {
    let body = json!({"game": "checkers", "opponents": [b_name], "rated": false});
    let m = app.post("/v1/matches", a, body).await;
    assert_eq!(m.status, 201, "{}", m.body);
    let id = m.body["id"].as_str().unwrap().to_owned();
    if first_move(app, a, &id).await.is_none() {
        let mv = first_move(app, b, &id).await.unwrap();
        assert_eq!(app.act(b, &id, mv).await.status, 200);
    }
    id
}

async fn events_of(app: &TestApp, id: &str, kind: &str) -> i64 {
    app.count(format!("SELECT count(*) AS n FROM match_events WHERE match_id = '{id}' AND body->>'type' = '{kind}'"),
    )
    .await
}

async fn notices_of(app: &TestApp, id: &str, kind: &str) -> i64 {
    app.count(format!(
        "SELECT count(*) AS n FROM notices WHERE match_id = '{id}' AND kind = '{kind}'"
    ))
    .await
}

async fn set_allowance(app: &TestApp, name: &str, hours: i32) {
    let at = now(app).to_rfc3339();
    let sql = format!(
        "INSERT INTO vacations (user_id, hours, hours_at) \
         SELECT id, {hours}, '{at}' FROM users WHERE username = '{name}' \
         ON CONFLICT (user_id) DO UPDATE SET hours = EXCLUDED.hours, hours_at = EXCLUDED.hours_at"
    );
    app.blocking(move |s| {
        use diesel::RunQueryDsl;
        let conn = &mut s.pool.get().unwrap();
        diesel::sql_query(sql).execute(conn).unwrap();
    })
    .await;
}

#[actix_web::test]
async fn a_player_away_loses_nothing_and_their_duties_resume_with_the_time_left() {
    let app = start().await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let mine = match_where_first(&app, &alice, &bob, "bob").await;
    let theirs = match_where_first(&app, &bob, &alice, "alice").await;
    let before = view(&app, &alice, &mine).await["to_act"][0].clone();
    app.clock.advance(Duration::hours(10));
    let until = (now(&app) + Duration::days(14)).to_rfc3339();
    let away = app
        .post("/v1/me/vacation", &alice, json!({ "until": until }))
        .await;
    assert_eq!(away.status, 200, "{}", away.body);
    // A vacation that pauses a duty costs at least a day (issue #46).
    assert_eq!(away.body["hours_left"], 720 - 24);
    assert!(away.body["since"].is_string());
    assert_eq!(
        app.post("/v1/me/vacation", &alice, json!({})).await.status,
        409
    );
    // Bob hears once per match that Alice is away; her duty shows paused.
    assert_eq!(notices_of(&app, &mine, "opponent_on_vacation").await, 1);
    assert_eq!(notices_of(&app, &theirs, "opponent_on_vacation").await, 1);
    let paused = view(&app, &bob, &mine).await["to_act"][0].clone();
    assert!(paused["paused_at"].is_string(), "{paused}");
    assert!(
        paused["away_until"].is_string(),
        "on vacation until …: {paused}"
    );
    // A week passes: no notice, no deadline; Bob's move in the other match
    // gives Alice a new duty, which pauses when its notice would come.
    let mv = first_move(&app, &bob, &theirs).await.unwrap();
    assert_eq!(app.act(&bob, &theirs, mv).await.status, 200);
    app.clock.advance(Duration::days(7));
    let swept = sweep(&app).await;
    assert_eq!(
        (swept.notices, swept.deadlines, swept.paused),
        (0, 0, 1),
        "{swept:?}"
    );
    assert_eq!(sweep(&app).await, Swept::default(), "nothing due any more");
    for id in [&mine, &theirs] {
        assert_eq!(view(&app, &alice, id).await["status"], "active");
        assert_eq!(notices_of(&app, id, "timeout_notice").await, 0);
    }
    // Back: 7 days spent (168 started hours from the first paused duty,
    // and the hour of grace a duty may resume with, issue #46), and the
    // duty's 38 hours left (48 − 10) run again from now.
    let back = app
        .request("DELETE", "/v1/me/vacation", Some(&alice), None, &[])
        .await;
    assert_eq!(back.status, 200, "{}", back.body);
    assert_eq!(back.body["hours_left"], 720 - 169);
    assert!(back.body.get("since").is_none());
    let resumed = view(&app, &alice, &mine).await["to_act"][0].clone();
    let at =
        |v: &Value, k: &str| chrono::DateTime::parse_from_rfc3339(v[k].as_str().unwrap()).unwrap();
    let now = now(&app);
    assert!(resumed.get("paused_at").is_none());
    assert_eq!(at(&resumed, "deadline_at"), now + Duration::hours(38));
    assert_eq!(
        at(&resumed, "notice_at") - at(&before, "notice_at"),
        at(&resumed, "deadline_at") - at(&before, "deadline_at")
    );
    assert_eq!(notices_of(&app, &mine, "opponent_back").await, 1);
    // The new duty in the other match kept its whole turn.
    let fresh = view(&app, &alice, &theirs).await["to_act"][0].clone();
    assert_eq!(at(&fresh, "deadline_at"), now + Duration::hours(48));
    app.stop().await;
}

#[actix_web::test]
async fn auto_vacation_saves_a_match_and_loses_it_when_the_allowance_is_gone() {
    let app = start().await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let auto = app
        .request(
            "PUT",
            "/v1/me/vacation/auto",
            Some(&alice),
            Some(json!({"on": true})),
            &[],
        )
        .await;
    assert_eq!(auto.body["auto"], true, "{}", auto.body);
    let saved = match_where_first(&app, &alice, &bob, "bob").await;
    // Past the deadline: a vacation starts instead of the forfeit.
    app.clock.advance(Duration::hours(49));
    let swept = sweep(&app).await;
    assert_eq!((swept.deadlines, swept.paused), (0, 1), "{swept:?}");
    assert_eq!(view(&app, &alice, &saved).await["status"], "active");
    let status = app.get("/v1/me/vacation", &alice).await.body;
    assert!(status["since"].is_string(), "{status}");
    // She comes back and plays: the move ends the vacation.
    app.clock.advance(Duration::hours(3));
    let mv = first_move(&app, &alice, &saved).await.unwrap();
    assert_eq!(app.act(&alice, &saved, mv).await.status, 200);
    let status = app.get("/v1/me/vacation", &alice).await.body;
    assert!(status.get("since").is_none(), "{status}");
    // Three hours away cost the least a vacation costs: a day (issue #46).
    assert_eq!(status["hours_left"], 720 - 24);
    // With 5 hours left, the next missed deadline is saved for 4 hours and
    // the hour of grace a resumed duty gets, then lost.
    let lost = match_where_first(&app, &alice, &bob, "bob").await;
    app.clock.advance(Duration::hours(49));
    set_allowance(&app, "alice", 5).await;
    assert_eq!(sweep(&app).await.paused, 1);
    app.clock.advance(Duration::hours(5));
    sweep(&app).await;
    let status = app.get("/v1/me/vacation", &alice).await.body;
    assert_eq!(
        (status.get("since"), &status["hours_left"]),
        (None, &json!(0))
    );
    assert_eq!(view(&app, &alice, &lost).await["status"], "active");
    app.clock.advance(Duration::hours(1));
    assert_eq!(sweep(&app).await.deadlines, 1);
    let over = view(&app, &alice, &lost).await;
    assert_eq!(over["status"], "finished", "{over}");
    app.stop().await;
}

#[actix_web::test]
async fn three_instances_sweeping_start_and_end_an_auto_vacation_once() {
    let app = start().await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    app.request(
        "PUT",
        "/v1/me/vacation/auto",
        Some(&alice),
        Some(json!({"on": true})),
        &[],
    )
    .await;
    let id = match_where_first(&app, &alice, &bob, "bob").await;
    // Three instances: three pools on the same database and clock.
    let instances: Vec<posthorn::state::AppState> = (0..3)
        .map(|_| {
            let config = posthorn::config::Config {
                jwt_secret: Some("a test secret that is long enough for HS256".into()),
                pool_size: 4,
                ..Default::default()
            };
            let clock = std::sync::Arc::new(app.clock.clone());
            posthorn::app_state(config, &app.database_url(), clock).unwrap()
        })
        .collect();
    let sweep_all = |instances: &Vec<posthorn::state::AppState>| {
        std::thread::scope(|s| {
            let handles: Vec<_> = (instances.iter())
                .map(|st| s.spawn(move || Sweeper::of(st).sweep().unwrap()))
                .collect();
            handles.into_iter().for_each(|h| {
                h.join().unwrap();
            });
        })
    };
    app.clock.advance(Duration::hours(49));
    // Two hours left when the deadline passes.
    set_allowance(&app, "alice", 2).await;
    sweep_all(&instances);
    assert_eq!(events_of(&app, &id, "on_vacation").await, 1);
    app.clock.advance(Duration::hours(2));
    sweep_all(&instances);
    assert_eq!(events_of(&app, &id, "back_from_vacation").await, 1);
    assert_eq!(notices_of(&app, &id, "opponent_on_vacation").await, 1);
    drop(instances);
    app.stop().await;
}

#[actix_web::test]
async fn guests_have_no_vacation_and_an_end_date_lies_ahead() {
    let app = start().await;
    let guest = app.guest("wanderer").await;
    let refused = app.post("/v1/me/vacation", &guest, json!({})).await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    let alice = app.register("alice").await;
    let past = (now(&app) - Duration::hours(1)).to_rfc3339();
    let bad = app
        .post("/v1/me/vacation", &alice, json!({"until": past}))
        .await;
    assert_eq!(bad.status, 422, "{}", bad.body);
    // An end date ends it by itself.
    let until = (now(&app) + Duration::days(2)).to_rfc3339();
    let away = app
        .post("/v1/me/vacation", &alice, json!({"until": until}))
        .await;
    assert_eq!(away.status, 200, "{}", away.body);
    app.clock.advance(Duration::days(2));
    sweep(&app).await;
    let back = app.get("/v1/me/vacation", &alice).await.body;
    assert!(back.get("since").is_none(), "{back}");
    // Nothing was owed while away: nothing was spent.
    assert_eq!(back["hours_left"], 720);
    app.stop().await;
}

/// The deadline of the first duty in `m`.
fn deadline(m: &Value) -> chrono::DateTime<chrono::FixedOffset> {
    let at = m["to_act"][0]["deadline_at"].as_str().unwrap();
    chrono::DateTime::parse_from_rfc3339(at).unwrap()
}

#[actix_web::test]
async fn twenty_vacation_toggles_before_a_deadline_gain_no_more_clock_than_they_cost_issue_46() {
    let app = start().await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let id = match_where_first(&app, &alice, &bob, "bob").await;
    // A minute before her deadline, Alice starts and ends a vacation 20
    // times in a row: once a pause of a second cost nothing and handed
    // the duty an hour, again and again.
    app.clock
        .advance(Duration::hours(48) - Duration::minutes(1));
    let before = deadline(&view(&app, &alice, &id).await);
    let (mut started, mut refused) = (0, 0);
    for _ in 0..20 {
        let start = app.post("/v1/me/vacation", &alice, json!({})).await;
        match start.status.as_u16() {
            200 => started += 1,
            429 => {
                assert_eq!(start.code(), "rate_limited", "{}", start.body);
                assert!(start.body["detail"].is_string(), "{}", start.body);
                refused += 1;
            }
            other => panic!("a vacation start answered {other}: {}", start.body),
        }
        app.clock.advance(Duration::seconds(1));
        let end = app
            .request("DELETE", "/v1/me/vacation", Some(&alice), None, &[])
            .await;
        assert_eq!(end.status, 200, "{}", end.body);
        app.clock.advance(Duration::seconds(1));
    }
    assert_eq!((started, refused), (1, 19), "one vacation starts a day");
    let after = deadline(&view(&app, &alice, &id).await);
    let left = app.get("/v1/me/vacation", &alice).await.body["hours_left"]
        .as_i64()
        .unwrap();
    let charged = Duration::hours(720 - left);
    assert_eq!(charged, Duration::hours(24), "the least a vacation costs");
    assert!(
        after - before <= charged,
        "the deadline moved {} for {charged} charged",
        after - before
    );
    // A day later she may go away again.
    app.clock.advance(Duration::hours(24));
    let again = app.post("/v1/me/vacation", &alice, json!({})).await;
    assert_eq!(again.status, 200, "{}", again.body);
    app.stop().await;
}

#[actix_web::test]
async fn moves_posted_while_the_opponent_toggles_vacation_all_apply_and_mail_once_issue_46() {
    let app = start().await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let id = match_where_first(&app, &alice, &bob, "bob").await;
    let (mut applied, mut started) = (0, Vec::new());
    for _ in 0..10 {
        // Alice loads the board, Bob toggles his vacation (a start, then
        // its end, a second apart), and Alice's move arrives 2 s after
        // she loaded, with the seq she saw.
        let seq = view(&app, &alice, &id).await["seq"].clone();
        let Some(mv) = first_move(&app, &alice, &id).await else {
            break;
        };
        let start = app.post("/v1/me/vacation", &bob, json!({})).await;
        started.push(start.status.as_u16());
        app.clock.advance(Duration::seconds(1));
        app.request("DELETE", "/v1/me/vacation", Some(&bob), None, &[])
            .await;
        app.clock.advance(Duration::seconds(1));
        let path = format!("/v1/matches/{id}/actions");
        let posted = app
            .post(&path, &alice, json!({"seq": seq, "action": mv}))
            .await;
        assert_eq!(posted.status, 200, "{}", posted.body);
        applied += 1;
        if let Some(reply) = first_move(&app, &bob, &id).await {
            assert_eq!(app.act(&bob, &id, reply).await.status, 200);
        }
    }
    assert_eq!(applied, 10);
    // His first start went through; the others met the day's limit.
    assert_eq!(started[0], 200);
    assert!(started[1..].iter().all(|s| *s == 429), "{started:?}");
    assert_eq!(events_of(&app, &id, "on_vacation").await, 1);
    // A move decided before the position changed is still refused.
    let seq = view(&app, &alice, &id).await["seq"].clone();
    let mv = first_move(&app, &alice, &id).await.unwrap();
    let path = format!("/v1/matches/{id}/actions");
    let first = app
        .post(&path, &alice, json!({"seq": seq, "action": mv}))
        .await;
    assert_eq!(first.status, 200, "{}", first.body);
    let reply = first_move(&app, &bob, &id).await.unwrap();
    let late = app
        .post(&path, &bob, json!({"seq": seq, "action": reply}))
        .await;
    assert_eq!(
        (late.status.as_u16(), late.code()),
        (409, "stale_seq"),
        "{}",
        late.body
    );
    // Alice heard of Bob's vacation once in all.
    let told = app
        .count(
            "SELECT count(*) AS n FROM notices n JOIN users u ON u.id = n.user_id \
             WHERE u.username = 'alice' AND n.kind IN ('opponent_on_vacation', 'opponent_back')"
                .into(),
        )
        .await;
    assert_eq!(told, 1);
    app.stop().await;
}

#[actix_web::test]
async fn every_move_is_rebased_over_a_real_vacation_and_a_timeout_notice_issue_46() {
    let app = start().await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let id = match_where_first(&app, &alice, &bob, "bob").await;
    let path = format!("/v1/matches/{id}/actions");
    for round in 0..10 {
        // Alice loads the board; a day later (her timeout notice comes,
        // and Bob may start a vacation again) Bob goes away and comes
        // back; her move, with the seq she loaded, is played.
        let seq = view(&app, &alice, &id).await["seq"].clone();
        let mv = first_move(&app, &alice, &id).await.unwrap();
        app.clock.advance(Duration::hours(25));
        sweep(&app).await;
        let start = app.post("/v1/me/vacation", &bob, json!({})).await;
        assert_eq!(start.status, 200, "round {round}: {}", start.body);
        app.request("DELETE", "/v1/me/vacation", Some(&bob), None, &[])
            .await;
        let posted = app
            .post(&path, &alice, json!({"seq": seq, "action": mv}))
            .await;
        assert_eq!(posted.status, 200, "round {round}: {}", posted.body);
        let reply = first_move(&app, &bob, &id).await.unwrap();
        assert_eq!(app.act(&bob, &id, reply).await.status, 200);
    }
    assert_eq!(events_of(&app, &id, "on_vacation").await, 10);
    assert_eq!(events_of(&app, &id, "timeout_notice").await, 10);
    app.stop().await;
}
