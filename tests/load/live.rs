//! Issue #49's live bar: with 200 match pages open (both players of 100
//! checkers matches, each page on `GET /v1/matches/{id}/live`), a move
//! shows on the other player's page in under 1 s at p99.
//!
//! `cargo bench --bench live` (env `LIVE_PAGES`, default 200; `LIVE_ROUNDS`,
//! default 5). Each match moves once a round, at a random moment of a 2-s
//! round, so moves overlap as in play. Timed per move: from the mover's
//! answer (the move acknowledged) to the other page's stream saying the
//! new seq, and to the page's re-read of the match (`GET`, as the web
//! client does) being in hand: that is when the move shows. The service
//! runs in this process (two workers), as in the other load scripts.

#[path = "../service/support.rs"]
#[allow(dead_code)]
mod support;

use futures_util::StreamExt;
use serde_json::json;
use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};
use support::{a_move, TestApp};

type Stream = awc::ClientResponse<
    actix_web::dev::Decompress<actix_http::Payload<actix_http::BoxedPayloadStream>>,
>;

/// Read `stream` until it says a seq of at least `seq`.
async fn hear(stream: &mut Stream, buffer: &mut String, seq: i64) {
    loop {
        while let Some(end) = buffer.find("\n\n") {
            let block: String = buffer.drain(..end + 2).collect();
            let said = block
                .lines()
                .find_map(|l| l.strip_prefix("data: "))
                .and_then(|d| serde_json::from_str::<serde_json::Value>(d).ok())
                .and_then(|v| v["seq"].as_i64());
            if said.is_some_and(|s| s >= seq) {
                return;
            }
        }
        let bytes = stream.next().await.expect("the stream stays open").unwrap();
        buffer.push_str(std::str::from_utf8(&bytes).unwrap());
    }
}

struct Table {
    id: String,
    tokens: [String; 2],
    streams: [(Stream, String); 2],
}

async fn open(client: &awc::Client, app: &TestApp, token: &str, id: &str) -> (Stream, String) {
    let stream = client
        .get(format!("{}/v1/matches/{id}/live", app.base))
        .insert_header(("Authorization", format!("Bearer {token}")))
        .send()
        .await
        .expect("the stream opens");
    assert_eq!(stream.status(), 200);
    (stream, String::new())
}

/// One match's rounds: the seat on move moves, the other page hears it.
async fn play(
    app: Rc<TestApp>,
    mut table: Table,
    rounds: usize,
    seed: u64,
    times: Rc<RefCell<Times>>,
) {
    let mut random = seed;
    for _ in 0..rounds {
        random = random
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        actix_rt::time::sleep(Duration::from_millis((random >> 33) % 2000)).await;
        let path = format!("/v1/matches/{}", table.id);
        let mover = if app
            .legal_actions(&table.tokens[0], &table.id)
            .await
            .iter()
            .any(a_move)
        {
            0
        } else {
            1
        };
        let action = app
            .legal_actions(&table.tokens[mover], &table.id)
            .await
            .into_iter()
            .find(a_move);
        let Some(action) = action else { return };
        let seq = app.get(&path, &table.tokens[mover]).await.body["seq"].clone();
        let answer = app
            .post(
                &format!("{path}/actions"),
                &table.tokens[mover],
                json!({"seq": seq, "action": action}),
            )
            .await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        let acknowledged = Instant::now();
        let now = answer.body["match"]["seq"].as_i64().unwrap();
        let (stream, buffer) = &mut table.streams[1 - mover];
        hear(stream, buffer, now).await;
        let heard = acknowledged.elapsed();
        let shown = app.get(&path, &table.tokens[1 - mover]).await;
        assert_eq!(shown.body["seq"].as_i64(), Some(now));
        let mut times = times.borrow_mut();
        times.heard.push(heard);
        times.shown.push(acknowledged.elapsed());
    }
}

#[derive(Default)]
struct Times {
    heard: Vec<Duration>,
    shown: Vec<Duration>,
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1]
}

fn report(name: &str, mut list: Vec<Duration>) {
    list.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "{name:<28} n={:>4}  p50 {:>7.1} ms  p99 {:>7.1} ms  max {:>7.1} ms",
        list.len(),
        ms(percentile(&list, 0.5)),
        ms(percentile(&list, 0.99)),
        ms(list[list.len() - 1])
    );
}

fn main() {
    let env = |name: &str, default: usize| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let (pages, rounds) = (env("LIVE_PAGES", 200), env("LIVE_ROUNDS", 5));
    actix_rt::System::new().block_on(async move {
        let app = Rc::new(TestApp::start().await);
        // No cap on open connections: every page holds one.
        let client = awc::Client::builder()
            .connector(awc::Connector::new().limit(0))
            .timeout(Duration::from_secs(30))
            .finish();
        let mut tables = Vec::new();
        for n in 0..pages / 2 {
            let (a, b) = (format!("ann{n}"), format!("bob{n}"));
            let ta = app.register(&a).await;
            let tb = app.register(&b).await;
            let m = app
                .post(
                    "/v1/matches",
                    &ta,
                    json!({"game": "checkers", "opponents": [b]}),
                )
                .await;
            let id = m.body["id"].as_str().unwrap().to_owned();
            let streams = [
                open(&client, &app, &ta, &id).await,
                open(&client, &app, &tb, &id).await,
            ];
            tables.push(Table {
                id,
                tokens: [ta, tb],
                streams,
            });
        }
        println!(
            "{} pages open, {} matches, {rounds} rounds",
            pages / 2 * 2,
            pages / 2
        );
        let times = Rc::new(RefCell::new(Times::default()));
        let started = Instant::now();
        let games: Vec<_> = tables
            .into_iter()
            .enumerate()
            .map(|(i, t)| {
                actix_rt::spawn(play(app.clone(), t, rounds, i as u64 + 1, times.clone()))
            })
            .collect();
        for g in games {
            g.await.unwrap();
        }
        let times = Rc::try_unwrap(times).ok().unwrap().into_inner();
        println!(
            "{} moves in {:.1} s",
            times.heard.len(),
            started.elapsed().as_secs_f64()
        );
        report("acknowledged → heard", times.heard);
        report("acknowledged → shown", times.shown);
    });
}
