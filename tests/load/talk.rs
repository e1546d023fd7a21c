//! Table talk at scale (issue #50, docs/benchmarks.md "Table talk").
//!
//! `cargo bench --bench talk` (env `TALK_WRITERS`, default 200;
//! `TALK_MESSAGES`, default 10,000,000; `TALK_READS`, default 2,000).
//!
//! 1. Posting: `TALK_WRITERS` players (both players of half as many
//!    checkers matches) write at once, over HTTP to the service in this
//!    process (two workers), each post timed from send to answer:
//!    - at a talker's pace: each writes a message at a random moment of
//!      every 4 s, for 10 messages (the service's clock is moved a minute
//!      on every ten seconds, so the 10-a-minute limit never refuses);
//!    - flat out: each writes its next message as soon as the last is
//!      answered, 10 each, so that 200 are always in flight.
//! 2. Reading: `TALK_MESSAGES` messages are stored by SQL over those
//!    matches, then `GET /v1/matches/{id}/messages` (the newest 50) is
//!    timed one request at a time for random matches and players.

#[path = "../service/support.rs"]
#[allow(dead_code)]
mod support;

use diesel::RunQueryDsl;
use serde_json::json;
use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};
use support::TestApp;

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1]
}

fn report(name: &str, mut list: Vec<Duration>, took: Duration) {
    list.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "{name:<34} n={:>6}  {:>6.0}/s  p50 {:>6.2} ms  p99 {:>6.2} ms  max {:>7.2} ms",
        list.len(),
        list.len() as f64 / took.as_secs_f64(),
        ms(percentile(&list, 0.5)),
        ms(percentile(&list, 0.99)),
        ms(list[list.len() - 1])
    );
}

/// A writer: a match and a token seated there.
#[derive(Clone)]
struct Writer {
    id: String,
    token: String,
}

/// Post one message; its time.
async fn post(client: &awc::Client, app: &TestApp, w: &Writer, text: String) -> Duration {
    let started = Instant::now();
    let mut answer = client
        .post(format!("{}/v1/matches/{}/messages", app.base, w.id))
        .insert_header(("Authorization", format!("Bearer {}", w.token)))
        .send_json(&json!({ "text": text }))
        .await
        .expect("the post is answered");
    let took = started.elapsed();
    let body = answer.body().await.unwrap();
    assert_eq!(answer.status(), 201, "{}", String::from_utf8_lossy(&body));
    took
}

/// Each writer posts `each` messages, waiting `pause(n)` before its n-th.
async fn write_all(
    client: &awc::Client,
    app: &Rc<TestApp>,
    writers: &[Writer],
    each: usize,
    paced: bool,
) -> (Vec<Duration>, Duration) {
    let times = Rc::new(RefCell::new(Vec::new()));
    let started = Instant::now();
    let tasks: Vec<_> = (writers.iter().cloned().enumerate())
        .map(|(i, w)| {
            let (client, app, times) = (client.clone(), app.clone(), times.clone());
            actix_rt::spawn(async move {
                let mut random = i as u64 + 1;
                for n in 0..each {
                    if paced {
                        random = random
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                        let at = Duration::from_millis(n as u64 * 4000 + (random >> 33) % 4000);
                        actix_rt::time::sleep(at.saturating_sub(started.elapsed())).await;
                    }
                    let took = post(&client, &app, &w, format!("message {n} from {i}")).await;
                    times.borrow_mut().push(took);
                }
            })
        })
        .collect();
    // The limits count by the service's clock: a minute on every 10 s.
    let ticking = {
        let app = app.clone();
        actix_rt::spawn(async move {
            loop {
                actix_rt::time::sleep(Duration::from_secs(10)).await;
                app.clock.advance(chrono::Duration::seconds(61));
            }
        })
    };
    for t in tasks {
        t.await.unwrap();
    }
    ticking.abort();
    let took = started.elapsed();
    (Rc::try_unwrap(times).ok().unwrap().into_inner(), took)
}

fn main() {
    let (writers, stored, reads) = (
        env("TALK_WRITERS", 200),
        env("TALK_MESSAGES", 10_000_000),
        env("TALK_READS", 2000),
    );
    actix_rt::System::new().block_on(async move {
        let app = Rc::new(TestApp::start().await);
        let client = awc::Client::builder()
            .connector(awc::Connector::new().limit(0))
            .timeout(Duration::from_secs(60))
            .finish();
        let mut all = Vec::new();
        for n in 0..writers / 2 {
            let (a, b) = (format!("ann{n}"), format!("bob{n}"));
            let ta = app.register(&a).await;
            let tb = app.register(&b).await;
            let body = json!({"game": "checkers", "opponents": [b]});
            let m = app.post("/v1/matches", &ta, body).await;
            let id = m.body["id"].as_str().unwrap().to_owned();
            all.push(Writer {
                id: id.clone(),
                token: ta,
            });
            all.push(Writer { id, token: tb });
        }
        println!("{} writers at {} matches", all.len(), all.len() / 2);
        let (times, took) = write_all(&client, &app, &all, 10, true).await;
        report("post, a message every ~4 s each", times, took);
        app.clock.advance(chrono::Duration::minutes(2));
        let (times, took) = write_all(&client, &app, &all, 10, false).await;
        report("post, flat out (all in flight)", times, took);

        println!("storing {stored} messages by SQL…");
        let filled = Instant::now();
        app.blocking(move |s| {
            let conn = &mut s.pool.get().unwrap();
            // Spread over the matches, each by one of its players.
            diesel::sql_query(format!(
                "WITH seats AS (SELECT array_agg(match_id ORDER BY match_id, user_id) AS m, \
                   array_agg(user_id ORDER BY match_id, user_id) AS u \
                   FROM match_seats WHERE user_id IS NOT NULL) \
                 INSERT INTO messages (id, match_id, author_id, body, at_seq, created_at) \
                 SELECT gen_random_uuid(), s.m[1 + g % cardinality(s.m)], \
                   s.u[1 + g % cardinality(s.u)], 'stored ' || g, 0, \
                   now() - interval '1 year' + g * interval '1 second' \
                 FROM seats s, generate_series(1, {stored}) g"
            ))
            .execute(conn)
            .unwrap();
            diesel::sql_query("VACUUM ANALYZE messages")
                .execute(conn)
                .unwrap();
        })
        .await;
        println!("stored in {:.0} s", filled.elapsed().as_secs_f64());
        let mut times = Vec::new();
        let started = Instant::now();
        for n in 0..reads {
            let w = &all[(n * 7919) % all.len()];
            let t = Instant::now();
            let page = app
                .get(&format!("/v1/matches/{}/messages", w.id), &w.token)
                .await;
            times.push(t.elapsed());
            assert_eq!(page.status, 200);
            assert_eq!(page.body["items"].as_array().map(Vec::len), Some(50));
        }
        report(
            "read the newest 50 (one at a time)",
            times,
            started.elapsed(),
        );
        if let Ok(app) = Rc::try_unwrap(app) {
            app.stop().await;
        }
    });
}
