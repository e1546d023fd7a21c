//! What mining a finished match costs its players (docs/puzzles.md,
//! "Where puzzles come from"): the security review's reproduction, four
//! accounts finishing a four-player match of random moves, then the miner
//! searching it as a job. Printed: the match's length, the search's time,
//! what each player was charged, and what a second such match does once a
//! player's hour is spent.
//!
//! `cargo test --bench mining` (env `MINING_MOVES`, default 123; the
//! rules crate is optimised in test builds, as the service's is in
//! release).

#[path = "../service/support.rs"]
#[allow(dead_code)]
mod support;

use posthorn::jobs::one_off::run_due;
use posthorn::puzzles::mining::Miner;
use posthorn_rules::SplitMix64;
use serde_json::json;
use std::time::Instant;
use support::{plays_on, TestApp};

async fn a_random_match(app: &TestApp, tokens: &[&str], moves: usize, seed: u64) -> String {
    let opponents = json!(["bea", "cai", "dov"]);
    let body =
        json!({"game": "four_player_chess", "options": {"mode": "ffa"}, "opponents": opponents});
    let m = app.post("/v1/matches", tokens[0], body).await;
    assert_eq!(m.status, 201, "{}", m.body);
    let id = m.body["id"].as_str().unwrap().to_owned();
    let mut random = SplitMix64::new(seed);
    let last = app
        .play_moves(tokens, &id, &mut random, moves, plays_on)
        .await;
    if last["status"] != "finished" {
        for token in tokens {
            app.act(token, &id, json!({"type": "resign"})).await;
        }
    }
    id
}

fn main() {
    let moves: usize = std::env::var("MINING_MOVES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(123);
    actix_rt::System::new().block_on(async move {
        let app = TestApp::start().await;
        let names = ["ann", "bea", "cai", "dov"];
        let mut tokens = Vec::new();
        for n in names {
            tokens.push(app.register(n).await);
        }
        let tokens: Vec<&str> = tokens.iter().map(String::as_str).collect();
        for round in 1..=2 {
            let id = a_random_match(&app, &tokens, moves, round).await;
            let seq = app.get(&format!("/v1/matches/{id}"), tokens[0]).await.body["seq"].clone();
            let queued = app
                .count(format!("SELECT count(*) AS n FROM jobs WHERE key = 'mine:{id}'"))
                .await;
            let before = app
                .count("SELECT coalesce(sum(millis), 0)::bigint AS n FROM engine_time".into())
                .await;
            let started = Instant::now();
            let now = posthorn::clock::Clock::now(&app.clock);
            app.blocking(move |s| run_due(&s.pool, &[&Miner], now).unwrap()).await;
            let took = started.elapsed();
            let after = app
                .count("SELECT coalesce(sum(millis), 0)::bigint AS n FROM engine_time".into())
                .await;
            let each = app
                .count(format!(
                    "SELECT count(DISTINCT owner) AS n FROM engine_time WHERE at = '{}'",
                    now.to_rfc3339()
                ))
                .await;
            println!(
                "match {round}: {seq} events, mining job queued {queued}; the job took {:.1} s; charged {:.1} s in all to {each} players ({:.1} s each)",
                took.as_secs_f64(),
                (after - before) as f64 / 1000.0,
                (after - before) as f64 / 1000.0 / each.max(1) as f64,
            );
            if round == 1 {
                // Ann's hour spent: the next match of hers is skipped.
                let budget = posthorn::computer::budget::PER_PLAYER.num_milliseconds();
                app.count(format!(
                    "WITH spent AS (INSERT INTO engine_time (owner, at, millis) \
                     SELECT id, '{}', {budget} FROM users WHERE username = 'ann' RETURNING 1) \
                     SELECT count(*) AS n FROM spent",
                    now.to_rfc3339()
                ))
                .await;
                println!("(ann's hour of engine time now spent)");
                app.clock.advance(chrono::Duration::minutes(1));
            }
        }
        app.stop().await;
    });
}
