//! The deadline sweep at scale: 1,000,000 active matches of which 10,000
//! are due. `cargo bench --bench sweep` (env `SWEEP_ACTIVE`, `SWEEP_DUE`).
//!
//! One real match is created over HTTP; the due ones are copies of it (row,
//! seats, events) whose deadline has passed, the rest copies of its row with
//! deadlines far ahead (the sweep never loads those: it must cost what is
//! due, not what is active). Reported: the time of a sweep with nothing
//! due, and of the sweep that settles every due match, per deadline.

#[path = "../service/support.rs"]
#[allow(dead_code)]
mod support;

use chrono::Duration;
use diesel::RunQueryDsl;
use serde_json::json;
use std::time::Instant;
use support::TestApp;

fn env_number(name: &str, default: i64) -> i64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

const COPY_ROW: &str = "INSERT INTO matches (id, game, variant, mode, options, status, seq, rated, turn_seconds, \
    created_by, created_at, updated_at, to_act, awaiting, notice_at, deadline_at, result) \
    SELECT {new_id}, m.game, m.variant, m.mode, m.options, m.status, m.seq, m.rated, m.turn_seconds, \
    m.created_by, m.created_at, m.updated_at, m.to_act, m.awaiting, {notice}, {deadline}, m.result \
    FROM matches m, {source} WHERE m.id = '{id}'";

fn main() {
    let active = env_number("SWEEP_ACTIVE", 1_000_000);
    let due = env_number("SWEEP_DUE", 10_000);
    actix_rt::System::new().block_on(async move {
        let app = TestApp::start().await;
        let alice = app.register("alice").await;
        app.register("bob").await;
        let m = app.post("/v1/matches", &alice, json!({"game": "checkers", "opponents": ["bob"]})).await.body;
        let id = m["id"].as_str().unwrap().to_owned();
        let pool = app.state.pool.clone();
        let started = Instant::now();
        let (p, template) = (pool.clone(), id.clone());
        actix_web::web::block(move || {
            let conn = &mut p.get().unwrap();
            let far = "now() + interval '3650 days'";
            let quiet = COPY_ROW
                .replace("{new_id}", "gen_random_uuid()")
                .replace("{source}", &format!("generate_series(1, {})", active - due))
                .replace("{notice}", "NULL")
                .replace("{deadline}", far)
                .replace("{id}", &template);
            diesel::sql_query(quiet).execute(conn).unwrap();
            diesel::sql_query("CREATE TEMP TABLE due_ids (id uuid)").execute(conn).unwrap();
            diesel::sql_query(format!("INSERT INTO due_ids SELECT gen_random_uuid() FROM generate_series(1, {due})"))
                .execute(conn)
                .unwrap();
            let copy = COPY_ROW
                .replace("{new_id}", "d.id")
                .replace("{source}", "due_ids d")
                .replace("{notice}", "m.notice_at")
                .replace("{deadline}", "m.deadline_at")
                .replace("{id}", &template);
            diesel::sql_query(copy).execute(conn).unwrap();
            diesel::sql_query(format!(
                "INSERT INTO match_seats SELECT d.id, s.seat, s.user_id FROM due_ids d, match_seats s WHERE s.match_id = '{template}'"
            ))
            .execute(conn)
            .unwrap();
            diesel::sql_query(format!(
                "INSERT INTO match_events SELECT d.id, e.seq, e.at, e.seat, e.rules, e.body FROM due_ids d, match_events e WHERE e.match_id = '{template}'"
            ))
            .execute(conn)
            .unwrap();
            diesel::sql_query("ANALYZE").execute(conn).unwrap();
        })
        .await
        .unwrap();
        println!("setup: {active} active matches ({due} due + the original) in {:.1} s", started.elapsed().as_secs_f64());

        let t = Instant::now();
        let idle = app.blocking(|s| posthorn::jobs::deadlines::Sweeper::of(s).sweep()).await.unwrap();
        println!("sweep with nothing due: {:.2} ms ({idle:?})", t.elapsed().as_secs_f64() * 1e3);

        app.clock.advance(Duration::hours(49));
        let t = Instant::now();
        let done = app.blocking(|s| posthorn::jobs::deadlines::Sweeper::of(s).sweep()).await.unwrap();
        let secs = t.elapsed().as_secs_f64();
        println!(
            "sweep of {} due matches ({} deadlines): {:.2} s, {:.3} ms per deadline, {:.0} deadlines/s",
            done.matches,
            done.deadlines,
            secs,
            secs * 1e3 / done.deadlines.max(1) as f64,
            done.deadlines as f64 / secs
        );
        assert_eq!(done.deadlines as i64, due + 1);
        app.stop().await;
    });
}
