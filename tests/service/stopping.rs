//! Stopping without a dropped request (issue #53 item 3): SIGTERM to the
//! service binary. It says it is not ready while it drains, finishes a
//! request in flight after it stops listening, hands back the job it holds
//! at once (another instance claims it in the same second, not after the
//! lease), and exits within its bound even with a worker stuck (the
//! rolling drill, tests/fault/rolling.py, sees it exit 0 when nothing is).

use crate::native_push_crash::until;
use crate::support::{spawn_binary, TestApp};
use diesel::prelude::*;
use serde_json::json;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// Send `head` (and `body`) on a new connection; the status and body.
fn http(addr: &str, head: &str, body: &str) -> std::io::Result<(u16, String)> {
    let mut stream = TcpStream::connect(addr)?;
    stream.write_all(head.as_bytes())?;
    stream.write_all(body.as_bytes())?;
    answer(stream)
}

fn answer(mut stream: TcpStream) -> std::io::Result<(u16, String)> {
    stream.set_read_timeout(Some(Duration::from_secs(20)))?;
    let mut read = String::new();
    stream.read_to_string(&mut read)?;
    let status = read.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
    Ok((status, read))
}

const READY: &str = "GET /readyz HTTP/1.1\r\nHost: posthorn\r\nConnection: close\r\n\r\n";

#[actix_web::test]
async fn a_stopped_instance_drains_finishes_its_requests_and_hands_back_its_job_at_once() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    // The computer is on move; its reply will be the binary's to make,
    // and this test holds the match's row so that the binary holds the
    // job while it waits.
    let created = app
        .post(
            "/v1/matches",
            &alice,
            json!({"game": "checkers", "seat": 1, "computers": [{"level": "easy"}]}),
        )
        .await;
    assert_eq!(created.status, 201, "{}", created.body);
    let id: uuid::Uuid = created.body["id"].as_str().unwrap().parse().unwrap();
    // Due by the binary's clock (the test's runs in 2030).
    let due = app
        .count(
            "WITH d AS (UPDATE jobs SET run_at = now() - interval '1 minute' RETURNING 1) \
             SELECT count(*) AS n FROM d"
                .into(),
        )
        .await;
    assert_eq!(due, 1, "the computer's reply is queued");
    let (url, (locked, is_locked), (free, freed)) = (
        app.database_url(),
        std::sync::mpsc::channel(),
        std::sync::mpsc::channel::<()>(),
    );
    let locker = std::thread::spawn(move || {
        let mut conn = PgConnection::establish(&url).unwrap();
        let _ = conn.transaction::<(), diesel::result::Error, _>(|c| {
            diesel::sql_query("SELECT 1 FROM matches WHERE id = $1 FOR UPDATE")
                .bind::<diesel::sql_types::Uuid, _>(id)
                .execute(c)?;
            locked.send(()).unwrap();
            let _ = freed.recv();
            Err(diesel::result::Error::RollbackTransaction)
        });
    });
    is_locked.recv().unwrap();
    let env = [
        ("POSTHORN_DRAIN_SECONDS", "2".to_owned()),
        ("POSTHORN_SHUTDOWN_SECONDS", "1".to_owned()),
        ("POSTHORN_JOB_LEASE_SECONDS", "600".to_owned()),
    ];
    let (mut service, addr) = spawn_binary(&app, &env);
    let leased = || {
        app.count(
            "SELECT count(*) AS n FROM jobs WHERE leased_until > now() AND done_at IS NULL".into(),
        )
    };
    until("the binary holds the computer's reply", async || {
        leased().await == 1
    })
    .await;
    assert_eq!(http(&addr, READY, "").unwrap().0, 200);

    // A request in flight: its head sent, its body not yet.
    let body = json!({"nickname": "Late"}).to_string();
    let mut in_flight = TcpStream::connect(&addr).unwrap();
    let head = format!(
        "POST /v1/guests HTTP/1.1\r\nHost: posthorn\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    in_flight.write_all(head.as_bytes()).unwrap();

    let term = std::process::Command::new("kill")
        .args(["-TERM", &service.id().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    let stopped = Instant::now();
    until("the job is handed back", async || leased().await == 0).await;
    let handed_back = stopped.elapsed();
    assert!(handed_back < Duration::from_secs(1), "{handed_back:?}");
    // Another instance (this test's) claims it now, not after the lease.
    let claimed = app
        .blocking(|s| {
            let mut conn = s.pool.get().unwrap();
            let now = chrono::Utc::now();
            let lanes = posthorn::job_queue::Lane::ALL;
            posthorn::job_queue::claim(
                &mut conn,
                &lanes,
                now,
                chrono::Duration::seconds(60),
                &posthorn::computer::budget::SPENT,
            )
            .unwrap()
        })
        .await
        .expect("the job is due again at once");
    assert_eq!(
        claimed.attempts, 2,
        "the stopped instance's attempt counted"
    );
    assert!(stopped.elapsed() < Duration::from_secs(1));

    // Draining: not ready, yet still taking connections.
    let (status, said) = http(&addr, READY, "").unwrap();
    assert_eq!(status, 503, "{said}");
    assert!(said.contains("draining"), "{said}");
    // After the drain it listens no more, and still answers the request
    // in flight.
    while TcpStream::connect(&addr).is_ok() {
        assert!(
            stopped.elapsed() < Duration::from_secs(10),
            "stops listening"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        stopped.elapsed() >= Duration::from_secs(2),
        "served through the drain"
    );
    in_flight.write_all(body.as_bytes()).unwrap();
    let (status, said) = answer(in_flight).unwrap();
    assert_eq!(status, 201, "the request in flight is answered: {said}");

    // The binary's worker still waits on the match: the process ends at
    // drain (2 s) + shutdown (1 s) + the last grace (5 s), not never.
    let exited = loop {
        if let Some(status) = service.try_wait().unwrap() {
            break status;
        }
        assert!(
            stopped.elapsed() < Duration::from_secs(12),
            "exits within its bound"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(exited.code(), Some(1), "cut at its bound");
    assert!(
        stopped.elapsed() >= Duration::from_secs(8),
        "{:?}",
        stopped.elapsed()
    );
    free.send(()).unwrap();
    locker.join().unwrap();
    let closed = app
        .count("SELECT count(*) AS n FROM jobs WHERE done_at IS NOT NULL".into())
        .await;
    assert_eq!(
        closed, 0,
        "the stopped instance closed no attempt but its own"
    );
    app.stop().await;
}
