//! Issue #35's performance bar: starting a 16-player double round robin
//! (240 matches) and reading a tournament with all its matches.
//! `cargo bench --bench tournament` (env `TOURNAMENT_RUNS`, default 5).
//!
//! Each run registers 16 players, creates the tournament over HTTP and has
//! everyone join; then times `POST /v1/tournaments/{id}/start` (one
//! transaction laying out all 240 matches) and `GET /v1/tournaments/{id}`
//! (standings, crosstable, every match), each as the client sees it.

#[path = "../service/support.rs"]
#[allow(dead_code)]
mod support;

use serde_json::json;
use std::time::{Duration, Instant};
use support::TestApp;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let runs: usize = std::env::var("TOURNAMENT_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    actix_rt::System::new().block_on(async move {
        let app = TestApp::start().await;
        let (mut starts, mut reads) = (Vec::new(), Vec::new());
        for run in 0..runs {
            let names: Vec<String> = (0..16).map(|i| format!("r{run}p{i:02}")).collect();
            let mut tokens = Vec::new();
            for name in &names {
                tokens.push(app.register(name).await);
            }
            let body = json!({"name": "Bench", "format": "double_round_robin", "game": "checkers",
                "players": names[1..].to_vec(), "rated": true});
            let made = app.post("/v1/tournaments", &tokens[0], body).await;
            assert_eq!(made.status, 201, "{}", made.body);
            let id = made.body["id"].as_str().unwrap().to_owned();
            for token in &tokens[1..] {
                let joined = app.post(&format!("/v1/tournaments/{id}/join"), token, json!({})).await;
                assert_eq!(joined.status, 200);
            }
            let clock = Instant::now();
            let started = app.post(&format!("/v1/tournaments/{id}/start"), &tokens[0], json!({})).await;
            starts.push(clock.elapsed());
            assert_eq!(started.status, 200, "{}", started.body);
            assert_eq!(started.body["matches"].as_array().unwrap().len(), 240);
            for _ in 0..20 {
                let clock = Instant::now();
                let read = app.get(&format!("/v1/tournaments/{id}"), &tokens[5]).await;
                reads.push(clock.elapsed());
                assert_eq!(read.status, 200);
            }
        }
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        let (max_start, max_read) = (*starts.iter().max().unwrap(), *reads.iter().max().unwrap());
        println!("start a 16-player double round robin (240 matches): median {:.0} ms, max {:.0} ms over {} runs",
            ms(median(starts.clone())), ms(max_start), starts.len());
        println!("read it (standings, crosstable, 240 matches): median {:.1} ms, max {:.1} ms over {} reads",
            ms(median(reads.clone())), ms(max_read), reads.len());
        app.stop().await;
    });
}
