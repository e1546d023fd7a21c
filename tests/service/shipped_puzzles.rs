//! Puzzles from the first start (docs/puzzles.md, "Shipped sets"): two
//! service binaries started together on an empty database keep the
//! checked sets shipped with the rules before they say they are ready, so
//! every game and every checkers variant has its daily puzzle at once,
//! and each puzzle is kept once.

use crate::native_push_crash::until;
use crate::support::{spawn_binary, TestApp};
use posthorn_rules::GameId;
use std::collections::BTreeSet;
use std::io::{Read, Write};

/// Whether the binary at `addr` answers `/readyz` with 200.
fn ready(addr: &str) -> bool {
    let Ok(mut stream) = std::net::TcpStream::connect(addr) else {
        return false;
    };
    let head = "GET /readyz HTTP/1.1\r\nHost: posthorn\r\nConnection: close\r\n\r\n";
    let mut read = String::new();
    stream.write_all(head.as_bytes()).is_ok()
        && stream.read_to_string(&mut read).is_ok()
        && read.starts_with("HTTP/1.1 200")
}

/// The distinct puzzles shipped, by their source (game and opening).
fn shipped() -> BTreeSet<String> {
    (GameId::ALL.iter())
        .flat_map(|g| g.shipped_puzzles().lines())
        .map(|line| {
            let (game, _, found) = posthorn::puzzles::read_mined(line).unwrap();
            posthorn::puzzles::shipped::source_of(game, &found).unwrap()
        })
        .collect()
}

#[actix_web::test]
async fn two_instances_started_together_have_every_daily_puzzle_once_they_are_ready() {
    let app = TestApp::start().await;
    assert_eq!(
        app.count("SELECT count(*) AS n FROM puzzles".into()).await,
        0
    );
    let (_first, one) = spawn_binary(&app, &[]);
    let (_second, two) = spawn_binary(&app, &[]);
    until("both instances are ready", async || {
        ready(&one) && ready(&two)
    })
    .await;
    let reader = app.register("reader").await;
    for game in GameId::ALL {
        let variants = game
            .about()
            .variants
            .iter()
            .map(|v| format!("&variant={v}"));
        for query in std::iter::once(String::new()).chain(variants) {
            let path = format!("/v1/puzzles/daily?game={}{query}", game.id());
            let daily = app.get(&path, &reader).await;
            assert_eq!(daily.status, 200, "{path}: {}", daily.body);
        }
    }
    let shipped = shipped();
    let kept = app.count("SELECT count(*) AS n FROM puzzles".into()).await;
    let sources = (app.count("SELECT count(DISTINCT source) AS n FROM puzzles".into())).await;
    assert_eq!(
        (kept, sources),
        (shipped.len() as i64, shipped.len() as i64),
        "every distinct shipped puzzle kept once"
    );
}
