//! Load: many concurrent checkers matches driven through the HTTP API, next
//! to `pgbench -N` at the same client count on the same PostgreSQL.
//!
//! `cargo bench --bench load` (env: `LOAD_CLIENTS`, default 32;
//! `LOAD_SECONDS`, default 20; `LOAD_POOL`, the service's database pool, default the service's own; `POSTHORN_TEST_DATABASE_URL` to use a given
//! server, else the private cluster under `target/`, default durability).
//! Each client plays its own match: read the legal actions, post one, and
//! start a new match when one ends. Reported: actions/s (posts answered
//! 200), p50/p99 latency of the posts, errors.

#[path = "../service/support.rs"]
#[allow(dead_code)]
mod support;

use posthorn_rules::checkers::Position;
use posthorn_rules::{Random, SplitMix64};
use serde::Deserialize;
use serde_json::{json, Value};
use std::process::Command;
use std::rc::Rc;
use std::time::{Duration, Instant};
use support::TestApp;

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

struct Tally {
    latencies: Vec<Duration>,
    errors: u64,
    matches: u64,
}

async fn new_match(app: &TestApp, tokens: &[String; 2], client: usize) -> Value {
    let reply = app
        .post(
            "/v1/matches",
            &tokens[0],
            json!({"game": "checkers", "opponents": [format!("load{client}b")]}),
        )
        .await;
    assert_eq!(reply.status, 201, "{}", reply.body);
    reply.body
}

/// Two players and their first match; made before the clock starts, so the
/// password hashing of sign-up is not counted.
async fn seat_players(app: Rc<TestApp>, client: usize) -> ([String; 2], Value) {
    let tokens = [
        app.register(&format!("load{client}a")).await,
        app.register(&format!("load{client}b")).await,
    ];
    let m = new_match(&app, &tokens, client).await;
    (tokens, m)
}

/// The few fields of an action's answer the client needs.
#[derive(Deserialize)]
struct Answer {
    #[serde(rename = "match")]
    table: Lite,
}

#[derive(Deserialize)]
struct Lite {
    seq: i64,
    status: String,
    to_act: Vec<LiteDuty>,
    view: LiteView,
}

#[derive(Deserialize)]
struct LiteDuty {
    seat: u8,
}

#[derive(Deserialize)]
struct LiteView {
    position: String,
}

/// A POST of ready-made JSON, answered as raw bytes.
async fn post_raw(
    client: &awc::Client,
    url: String,
    token: &str,
    body: Vec<u8>,
) -> (u16, actix_web::web::Bytes) {
    let mut res = client
        .post(url)
        .insert_header(("Authorization", format!("Bearer {token}")))
        .insert_header(("Content-Type", "application/json"))
        .send_body(body)
        .await
        .expect("the request reaches the server");
    let bytes = res.body().limit(16 * 1024 * 1024).await.unwrap();
    (res.status().as_u16(), bytes)
}

async fn client_loop(
    app: Rc<TestApp>,
    client: usize,
    (tokens, first): ([String; 2], Value),
    until: Instant,
) -> Tally {
    let mut random = SplitMix64::new(client as u64);
    let mut tally = Tally {
        latencies: Vec::new(),
        errors: 0,
        matches: 1,
    };
    let http = awc::Client::builder()
        .timeout(Duration::from_secs(30))
        .finish();
    let mut m = first;
    let mut lite: Lite = serde_json::from_value(m.clone()).unwrap();
    while Instant::now() < until {
        if lite.status == "finished" {
            m = new_match(&app, &tokens, client).await;
            lite = serde_json::from_value(m.clone()).unwrap();
            tally.matches += 1;
        }
        // As a phone would: the legal moves come from the rules crate, run
        // on the position in the last answer; only the action is posted.
        let creator_seat = m["my_seats"][0].as_u64().unwrap() as u8;
        let mover = if lite.to_act[0].seat == creator_seat {
            0
        } else {
            1
        };
        let position = Position::from_fen(&lite.view.position).unwrap();
        let mut moves = Vec::new();
        position.legal_moves(&mut moves);
        let pick = moves[random.below(moves.len() as u64) as usize].to_string();
        let path = format!("/v1/matches/{}/actions", m["id"].as_str().unwrap());
        let body = json!({"seq": lite.seq, "action": {"type": "move", "move": pick}});
        let started = Instant::now();
        let url = format!("{}{path}", app.base);
        let (status, bytes) = post_raw(
            &http,
            url,
            &tokens[mover],
            serde_json::to_vec(&body).unwrap(),
        )
        .await;
        tally.latencies.push(started.elapsed());
        if status != 200 {
            tally.errors += 1;
            let fresh = app
                .get(
                    &format!("/v1/matches/{}", m["id"].as_str().unwrap()),
                    &tokens[0],
                )
                .await
                .body;
            lite = serde_json::from_value(fresh).unwrap();
            continue;
        }
        lite = serde_json::from_slice::<Answer>(&bytes).unwrap().table;
    }
    tally
}

fn pgbench(url: &str, clients: u64, seconds: u64) -> Option<String> {
    let bin = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.path().join("bin/pgbench"))
        .find(|p| p.exists())?;
    let run = |args: &[&str]| Command::new(&bin).args(args).output().ok();
    run(&["-i", "-q", "-s", "10", url])?;
    let out = run(&[
        "-N",
        "-c",
        &clients.to_string(),
        "-j",
        "2",
        "-T",
        &seconds.to_string(),
        url,
    ])?;
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    text.lines()
        .find(|l| l.starts_with("tps"))
        .map(str::to_owned)
}

fn main() {
    let clients = env_number("LOAD_CLIENTS", 32);
    let seconds = env_number("LOAD_SECONDS", 20);
    actix_rt::System::new().block_on(async move {
        let app = Rc::new(TestApp::start_with(posthorn::config::Config { pool_size: env_number("LOAD_POOL", posthorn::config::Config::default().pool_size as u64) as u32, ..Default::default() }).await);
        let url = app.database_url();
        let setups = (0..clients as usize).map(|c| actix_rt::spawn(seat_players(app.clone(), c)));
        let tables: Vec<_> = futures_util::future::join_all(setups).await.into_iter().map(Result::unwrap).collect();
        let until = Instant::now() + Duration::from_secs(seconds);
        let started = Instant::now();
        let tasks = tables
            .into_iter()
            .enumerate()
            .map(|(c, table)| actix_rt::spawn(client_loop(app.clone(), c, table, until)));
        let tallies: Vec<Tally> = futures_util::future::join_all(tasks).await.into_iter().map(Result::unwrap).collect();
        let elapsed = started.elapsed().as_secs_f64();
        let mut latencies: Vec<Duration> = tallies.iter().flat_map(|t| t.latencies.iter().copied()).collect();
        latencies.sort();
        let pct = |p: f64| latencies[((latencies.len() as f64 * p) as usize).min(latencies.len() - 1)];
        let errors: u64 = tallies.iter().map(|t| t.errors).sum();
        let matches: u64 = tallies.iter().map(|t| t.matches).sum();
        println!(
            "posthorn: {clients} clients, {seconds} s: {} actions, {:.0} actions/s, p50 {:.1} ms, p99 {:.1} ms, {errors} errors, {matches} matches",
            latencies.len(),
            latencies.len() as f64 / elapsed,
            pct(0.50).as_secs_f64() * 1e3,
            pct(0.99).as_secs_f64() * 1e3,
        );
        let bench_db = url.rsplit_once('/').map(|(base, _)| format!("{base}/postgres")).unwrap();
        match pgbench(&bench_db, clients, seconds) {
            Some(line) => println!("pgbench -N -c {clients} -j 2 -T {seconds} (same server): {line}"),
            None => println!("pgbench not found: install postgresql-contrib for the comparison"),
        }
        Rc::try_unwrap(app).ok().expect("clients are done").stop().await;
    });
}
