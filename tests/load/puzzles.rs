//! Serving puzzles (issue #52, docs/benchmarks.md "Serving puzzles").
//!
//! `cargo bench --bench puzzles` (env `PUZZLE_SOLVERS`, default 100). The
//! service runs in this process (two workers), over HTTP, with every
//! puzzle of `rules/puzzles/` stored as the mining job stores
//! them. Timed from send to answer:
//! 1. one at a time: each solver opens the next checkers puzzle, then
//!    plays its line, one move after another, alone on the service;
//! 2. together: every solver opens today's FlipChess puzzle — one puzzle
//!    for all — and plays its line, all at once.

#[path = "../service/support.rs"]
#[allow(dead_code)]
mod support;

use posthorn_rules::puzzles::Found;
use posthorn_rules::GameId;
use serde_json::{json, Value};
use std::rc::Rc;
use std::time::{Duration, Instant};
use support::TestApp;

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1]
}

fn report(name: &str, mut list: Vec<Duration>, took: Duration) {
    if list.is_empty() {
        println!("{name:<44} none");
        return;
    }
    list.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "{name:<44} n={:>5}  {:>6.0}/s  p50 {:>6.2} ms  p99 {:>6.2} ms  max {:>7.2} ms",
        list.len(),
        list.len() as f64 / took.as_secs_f64(),
        ms(percentile(&list, 0.5)),
        ms(percentile(&list, 0.99)),
        ms(list[list.len() - 1])
    );
}

/// Store every mined puzzle of the rules crate's files.
async fn seed(app: &TestApp) -> usize {
    let now = posthorn::clock::Clock::now(&app.clock);
    app.blocking(move |s| {
        let conn = &mut s.pool.get().unwrap();
        let mut stored = 0;
        for game in GameId::ALL {
            let path = format!(
                "{}/rules/puzzles/{}.jsonl",
                env!("CARGO_MANIFEST_DIR"),
                game.id()
            );
            let text = std::fs::read_to_string(&path).unwrap();
            for (i, line) in text.lines().enumerate() {
                let v: Value = serde_json::from_str(line).unwrap();
                let found: Found = serde_json::from_value(v.clone()).unwrap();
                let source = format!("bench:{}:{i}", game.id());
                posthorn::puzzles::store(conn, *game, &v["config"], &found, &source, now).unwrap();
                stored += 1;
            }
        }
        stored
    })
    .await
}

async fn timed(
    client: &awc::Client,
    app: &TestApp,
    token: &str,
    method: &str,
    path: &str,
    body: Option<Value>,
) -> (Value, Duration) {
    let url = format!("{}{path}", app.base);
    let started = Instant::now();
    let request = match method {
        "GET" => client.get(url),
        _ => client.post(url),
    }
    .insert_header(("Authorization", format!("Bearer {token}")));
    let mut answer = match body {
        Some(b) => request.send_json(&b).await,
        None => request.send().await,
    }
    .expect("answered");
    let took = started.elapsed();
    let bytes = answer.body().limit(1 << 22).await.unwrap();
    assert!(
        answer.status().is_success(),
        "{}",
        String::from_utf8_lossy(&bytes)
    );
    (serde_json::from_slice(&bytes).unwrap(), took)
}

async fn line_of(app: &TestApp, id: &str) -> Vec<(u64, Value)> {
    let id: uuid::Uuid = id.parse().unwrap();
    let line: Value = app
        .blocking(move |s| {
            use diesel::prelude::*;
            use posthorn::schema::puzzles;
            puzzles::table
                .find(id)
                .select(puzzles::line)
                .first::<Value>(&mut s.pool.get().unwrap())
                .unwrap()
        })
        .await;
    line.as_array()
        .unwrap()
        .iter()
        .map(|s| (s["seat"].as_u64().unwrap(), s["action"].clone()))
        .collect()
}

/// Open a puzzle by `path` and play its line; the times of the opening
/// and of each move.
async fn solve(
    client: &awc::Client,
    app: &TestApp,
    token: &str,
    path: &str,
) -> (Duration, Vec<Duration>) {
    let (puzzle, opened) = timed(client, app, token, "GET", path, None).await;
    let id = puzzle["id"].as_str().unwrap().to_owned();
    let solver = puzzle["seat"].as_u64().unwrap();
    let mut moves = Vec::new();
    for (seat, action) in line_of(app, &id).await {
        if seat == solver {
            let path = format!("/v1/puzzles/{id}/moves");
            let (_, took) = timed(
                client,
                app,
                token,
                "POST",
                &path,
                Some(json!({ "action": action })),
            )
            .await;
            moves.push(took);
        }
    }
    (opened, moves)
}

fn main() {
    let solvers: usize = std::env::var("PUZZLE_SOLVERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    actix_rt::System::new().block_on(async move {
        let app = Rc::new(TestApp::start().await);
        let stored = seed(&app).await;
        println!("{stored} puzzles stored; {solvers} solvers");
        let client = awc::Client::builder()
            .connector(awc::Connector::new().limit(0))
            .timeout(Duration::from_secs(60))
            .finish();
        let mut tokens = Vec::new();
        for n in 0..solvers {
            tokens.push(app.register(&format!("solver{n}")).await);
        }
        let (mut opens, mut moves) = (Vec::new(), Vec::new());
        let started = Instant::now();
        for token in &tokens {
            let (o, m) = solve(&client, &app, token, "/v1/puzzles/next?game=checkers").await;
            opens.push(o);
            moves.extend(m);
        }
        let took = started.elapsed();
        report("open the next checkers puzzle, one at a time", opens, took);
        report("a checkers puzzle move, one at a time", moves, took);

        let started = Instant::now();
        let tasks: Vec<_> = tokens
            .iter()
            .cloned()
            .map(|token| {
                let (client, app) = (client.clone(), app.clone());
                actix_rt::spawn(async move {
                    solve(&client, &app, &token, "/v1/puzzles/daily?game=flipchess").await
                })
            })
            .collect();
        let (mut opens, mut moves) = (Vec::new(), Vec::new());
        for t in tasks {
            let (o, m) = t.await.unwrap();
            opens.push(o);
            moves.extend(m);
        }
        let took = started.elapsed();
        report("open today's FlipChess puzzle, all at once", opens, took);
        report("its moves, all solvers at once", moves, took);
    });
}
