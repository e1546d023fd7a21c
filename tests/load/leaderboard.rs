//! Leaderboards at scale (issue #19): one perf with 1,000,000 rated
//! players. `cargo bench --bench leaderboard` (env `BOARD_PLAYERS`,
//! `BOARD_REQUESTS`).
//!
//! The players are written by SQL (ratings of a realistic spread: the sum
//! of four uniforms around 1500, 90 % established), with the board counts
//! the service keeps. Then, one request at a time through the HTTP API:
//! the first page, a deep page (past 90 % of the board), `around=me` for
//! 100 registered players placed at random ratings, and the cost a rating
//! update adds to ending a match (a resignation in rated against unrated
//! checkers matches). Reported: p50 and p99 of each.

#[path = "../service/support.rs"]
#[allow(dead_code)]
mod support;

use diesel::RunQueryDsl;
use posthorn_rules::{Random, SplitMix64};
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use support::TestApp;

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn report(what: &str, mut times: Vec<Duration>) {
    times.sort();
    let at = |q: f64| times[((times.len() as f64 * q) as usize).min(times.len() - 1)];
    println!(
        "{what}: {} requests, p50 {:.2} ms, p99 {:.2} ms",
        times.len(),
        at(0.5).as_secs_f64() * 1e3,
        at(0.99).as_secs_f64() * 1e3
    );
}

async fn timed(app: &TestApp, path: &str, token: &str) -> (Duration, Value) {
    let t = Instant::now();
    let reply = app.get(path, token).await;
    let took = t.elapsed();
    assert_eq!(reply.status, 200, "{path}: {}", reply.body);
    (took, reply.body)
}

/// Two moves and a resignation; the time of the resignation.
async fn ended(app: &TestApp, tokens: &[String; 2], rated: bool) -> Duration {
    let m = app
        .post(
            "/v1/matches",
            &tokens[0],
            json!({"game": "checkers", "opponents": ["probe1"], "rated": rated}),
        )
        .await
        .body;
    let id = m["id"].as_str().unwrap().to_owned();
    let seat_token = |m: &Value| {
        let seat = m["to_act"][0]["seat"].as_u64().unwrap() as usize;
        let name = m["seats"][seat]["user"]["username"].as_str().unwrap();
        if name == "probe0" {
            tokens[0].clone()
        } else {
            tokens[1].clone()
        }
    };
    let mut m = m;
    for _ in 0..2 {
        let token = seat_token(&m);
        let listed = app
            .get(&format!("/v1/matches/{id}/legal-actions"), &token)
            .await
            .body;
        let action = listed["actions"][0].clone();
        m = app.act(&token, &id, action).await.body["match"].clone();
    }
    let token = seat_token(&m);
    let t = Instant::now();
    let reply = app.act(&token, &id, json!({"type": "resign"})).await;
    let took = t.elapsed();
    assert_eq!(reply.status, 200, "{}", reply.body);
    took
}

fn main() {
    let players = env_number("BOARD_PLAYERS", 1_000_000);
    let requests = env_number("BOARD_REQUESTS", 2_000) as usize;
    actix_rt::System::new().block_on(async move {
        let app = TestApp::start().await;
        let viewer = app.register("viewer").await;
        let mut probes = Vec::new();
        for n in 0..100 {
            probes.push(app.register(&format!("probe{n}")).await);
        }
        let started = Instant::now();
        app.blocking(move |s| {
            let conn = &mut s.pool.get().unwrap();
            for sql in [
                format!("INSERT INTO users (id, username, display_name, guest, locale, time_zone, created_at) \
                    SELECT gen_random_uuid(), 'p' || g, 'p' || g, false, 'en', 'UTC', now() FROM generate_series(1, {players}) g"),
                "INSERT INTO ratings (user_id, perf, rating, deviation, volatility, games, last_rated_at) \
                    SELECT id, 'checkers/american', 1500 + (random() + random() + random() + random() - 2) * 350, \
                    CASE WHEN random() < 0.9 THEN 60 ELSE 200 END, 0.06, 30, now() FROM users WHERE username ~ '^p[0-9]+$'".into(),
                "UPDATE ratings SET board_rating = round(rating) WHERE deviation <= 110".into(),
                "INSERT INTO rating_counts SELECT perf, board_rating, count(*) FROM ratings \
                    WHERE board_rating IS NOT NULL GROUP BY perf, board_rating".into(),
                // Measure the steady state, not the bulk load's aftermath.
                "VACUUM ANALYZE".into(),
                "CHECKPOINT".into(),
            ] {
                diesel::sql_query(sql).execute(conn).unwrap();
            }
        })
        .await;
        println!("setup: {players} players in one perf in {:.1} s", started.elapsed().as_secs_f64());

        for _ in 0..200 {
            timed(&app, "/v1/leaderboards/checkers/american", &viewer).await;
        }
        let mut first = Vec::new();
        for _ in 0..requests {
            first.push(timed(&app, "/v1/leaderboards/checkers/american", &viewer).await.0);
        }
        report("first page", first);

        // A cursor past 90 % of the board.
        let deep_cursor: String = app
            .blocking(|s| {
                #[derive(diesel::QueryableByName)]
                struct Cursor {
                    #[diesel(sql_type = diesel::sql_types::Text)]
                    c: String,
                }
                diesel::sql_query(
                    "SELECT board_rating || '_' || user_id AS c FROM ratings WHERE board_rating IS NOT NULL \
                     ORDER BY board_rating DESC, user_id OFFSET (SELECT count(*) * 9 / 10 FROM ratings WHERE board_rating IS NOT NULL) LIMIT 1",
                )
                .get_result::<Cursor>(&mut s.pool.get().unwrap())
                .unwrap()
                .c
            })
            .await;
        let mut deep = Vec::new();
        let mut deepest_rank = 0;
        for _ in 0..requests {
            let (took, body) = timed(&app, &format!("/v1/leaderboards/checkers/american?cursor={deep_cursor}"), &viewer).await;
            deepest_rank = body["rows"][0]["rank"].as_i64().unwrap_or(0);
            deep.push(took);
        }
        report(&format!("deep page (rank {deepest_rank})"), deep);

        // The probes at random ratings, established.
        let mut random = SplitMix64::new(19);
        let spots: Vec<i32> = (0..100).map(|_| 900 + random.below(1_200) as i32).collect();
        app.blocking(move |s| {
            let conn = &mut s.pool.get().unwrap();
            for (n, rating) in spots.iter().enumerate() {
                diesel::sql_query(format!(
                    "INSERT INTO ratings (user_id, perf, rating, deviation, volatility, games, last_rated_at, board_rating) \
                     SELECT id, 'checkers/american', {rating}, 60, 0.06, 30, now(), {rating} FROM users WHERE username = 'probe{n}'"
                ))
                .execute(conn)
                .unwrap();
                diesel::sql_query(format!(
                    "INSERT INTO rating_counts VALUES ('checkers/american', {rating}, 1) \
                     ON CONFLICT (perf, rating) DO UPDATE SET players = rating_counts.players + 1"
                ))
                .execute(conn)
                .unwrap();
            }
        })
        .await;
        let mut around = Vec::new();
        for _ in 0..requests {
            let token = &probes[random.below(probes.len() as u64) as usize];
            around.push(timed(&app, "/v1/leaderboards/checkers/american?around=me", token).await.0);
        }
        report("around=me", around);

        let pair = [probes[0].clone(), probes[1].clone()];
        let games = (requests / 10).max(20);
        let mut unrated = Vec::new();
        let mut rated = Vec::new();
        for _ in 0..games {
            unrated.push(ended(&app, &pair, false).await);
            rated.push(ended(&app, &pair, true).await);
        }
        let mut again = Vec::new();
        for _ in 0..requests {
            again.push(timed(&app, "/v1/leaderboards/checkers/american", &viewer).await.0);
        }
        report("first page, again at the end", again);
        report("ending an unrated match (resign)", unrated);
        report("ending a rated match (resign + rating update)", rated);
        app.stop().await;
    });
}
