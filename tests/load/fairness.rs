//! Issue #46's fairness bar: while two players keep ten hard Janggi
//! matches each busy (every computer reply answered at once) and one of
//! them also runs a takeback loop, a third person's easy checkers reply
//! stays under 2 s at p99.
//!
//! `cargo bench --bench fairness` (env `FAIRNESS_REPLIES`, default 40).
//! The service's own scheduler runs the job lanes (`jobs::start`, a tick a
//! second each), so a reply's time includes the wait for its lane's tick,
//! as in production. Printed: the third person's reply times (p50, p99,
//! max), the hard searches done meanwhile and each player's engine time.

#[path = "../service/support.rs"]
#[allow(dead_code)]
mod support;

use serde_json::{json, Value};
use std::rc::Rc;
use std::time::{Duration, Instant};
use support::TestApp;

async fn create(app: &TestApp, token: &str, game: &str, level: &str) -> String {
    let body = json!({"game": game, "computers": [{"level": level}], "side": 0});
    let made = app.post("/v1/matches", token, body).await;
    assert_eq!(made.status, 201, "{}", made.body);
    made.body["id"].as_str().unwrap().to_owned()
}

/// The person's first move in `id` and the seq it is for, if it is
/// their turn in an active match.
async fn my_move(app: &TestApp, token: &str, id: &str) -> Option<(Value, Value)> {
    let legal = app
        .get(&format!("/v1/matches/{id}/legal-actions"), token)
        .await
        .body;
    let actions = legal["actions"].as_array()?;
    let mv = actions.iter().find(|a| a["type"] == "move")?.clone();
    Some((legal["seq"].clone(), mv))
}

async fn post_move(app: &TestApp, token: &str, id: &str, seq: Value, mv: Value) -> bool {
    let path = format!("/v1/matches/{id}/actions");
    let posted = app
        .post(&path, token, json!({"seq": seq, "action": mv}))
        .await;
    posted.status == 200
}

/// One flooding player: answer every computer reply at once, in all of
/// `matches`, until `stop`; with `takebacks`, the first match instead
/// moves and takes the move back again and again.
async fn flood(
    app: Rc<TestApp>,
    token: String,
    matches: Vec<String>,
    takebacks: bool,
    stop: Instant,
) {
    while Instant::now() < stop {
        for (i, id) in matches.iter().enumerate() {
            let Some((seq, mv)) = my_move(&app, &token, id).await else {
                continue;
            };
            let moved = post_move(&app, &token, id, seq, mv).await;
            if !(moved && takebacks && i == 0) {
                continue;
            }
            let m = app.get(&format!("/v1/matches/{id}"), &token).await.body;
            let path = format!("/v1/matches/{id}/takeback");
            app.post(&path, &token, json!({"seq": m["seq"]})).await;
        }
        actix_rt::time::sleep(Duration::from_millis(50)).await;
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1]
}

fn main() {
    let replies: usize = std::env::var("FAIRNESS_REPLIES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    actix_rt::System::new().block_on(async move {
        let app = Rc::new(TestApp::start().await);
        let scheduler = posthorn::jobs::start(app.state.clone(), Duration::from_secs(5))
            .await
            .unwrap();
        let (ann, bob, cho) = (
            app.register("ann").await,
            app.register("bob").await,
            app.register("cho").await,
        );
        // Spare work waiting all along (engines' matches for mining): the
        // hard searches' threads must take it only when no reply is due.
        let spare: i64 = std::env::var("FAIRNESS_SPARE")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(30);
        let now = posthorn::clock::Clock::now(&app.clock);
        app.blocking(move |s| {
            let conn = &mut s.pool.get().unwrap();
            for n in 0..spare {
                let work = posthorn::job_queue::Queued {
                    kind: posthorn::puzzles::mining::SELF_PLAY_JOB,
                    key: &format!("bench-self-play:{n}"),
                    payload: json!({"game": "four_player_chess", "seed": n}),
                    lane: posthorn::job_queue::Lane::Spare,
                    owner: None,
                };
                posthorn::job_queue::enqueue_work(conn, work, now, now).unwrap();
            }
        })
        .await;
        let mut floods = Vec::new();
        let stop = Instant::now() + Duration::from_secs(600);
        for (token, takebacks) in [(ann.clone(), true), (bob.clone(), false)] {
            let mut matches = Vec::new();
            for _ in 0..10 {
                matches.push(create(&app, &token, "janggi", "hard").await);
            }
            floods.push(actix_rt::spawn(flood(app.clone(), token, matches, takebacks, stop)));
        }
        // Let the flood fill the heavy lane first.
        actix_rt::time::sleep(Duration::from_secs(5)).await;
        let hard_before = done_in_lane(&app, 2).await;
        let spare_before = done_in_lane(&app, 3).await;
        let started = Instant::now();
        let mut times = Vec::new();
        let mut id = create(&app, &cho, "checkers", "easy").await;
        while times.len() < replies {
            let Some((seq, mv)) = my_move(&app, &cho, &id).await else {
                let m = app.get(&format!("/v1/matches/{id}"), &cho).await.body;
                if m["status"] == "finished" {
                    id = create(&app, &cho, "checkers", "easy").await;
                }
                actix_rt::time::sleep(Duration::from_millis(20)).await;
                continue;
            };
            let asked = Instant::now();
            assert!(post_move(&app, &cho, &id, seq, mv).await);
            loop {
                let m = app.get(&format!("/v1/matches/{id}"), &cho).await.body;
                let mine = (m["to_act"].as_array().into_iter().flatten())
                    .any(|d| m["my_seats"].as_array().is_some_and(|s| s.contains(&d["seat"])));
                if mine || m["status"] == "finished" {
                    break;
                }
                actix_rt::time::sleep(Duration::from_millis(20)).await;
            }
            times.push(asked.elapsed());
        }
        let took = started.elapsed();
        let hard = done_in_lane(&app, 2).await - hard_before;
        let spare_done = done_in_lane(&app, 3).await - spare_before;
        let engine = app
            .count(
                "SELECT coalesce(sum(millis), 0)::bigint AS n FROM engine_time".into(),
            )
            .await;
        for f in floods {
            f.abort();
        }
        times.sort();
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        println!(
            "third person's easy checkers replies: {} over {:.0} s, p50 {:.0} ms, p99 {:.0} ms, max {:.0} ms",
            times.len(),
            took.as_secs_f64(),
            ms(percentile(&times, 0.5)),
            ms(percentile(&times, 0.99)),
            ms(*times.last().unwrap()),
        );
        println!(
            "meanwhile: {hard} hard Janggi searches done, {spare_done} of {spare} spare jobs (engines' matches), {:.0} s of engine time charged in all",
            engine as f64 / 1000.0
        );
        drop(scheduler);
    });
}

async fn done_in_lane(app: &TestApp, lane: i16) -> i64 {
    app.count(format!(
        "SELECT count(*) AS n FROM jobs WHERE lane = {lane} AND done_at IS NOT NULL"
    ))
    .await
}
