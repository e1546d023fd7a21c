//! Issue #65 item 2: live streams are bounded. A session holds two (a
//! third displaces the oldest, which says `displaced` and ends); an
//! account, an address and a /48 hold a few dozen on an instance (429
//! past them); an instance holds no more than its open files allow (503),
//! and past that it still answers health checks and sign-ins. Real
//! sockets against the service binary under a low `ulimit -n`.

use crate::support::{spawn_binary_with_files, TestApp};
use serde_json::{json, Value};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A stream opened over a raw socket: its status, and the socket (held
/// open while the test needs the stream).
struct Raw {
    status: u16,
    socket: TcpStream,
    seen: String,
}

impl Raw {
    async fn open(addr: &str, token: &str, id: &str, from: &str) -> Raw {
        let mut socket = TcpStream::connect(addr).await.unwrap();
        let head = format!(
            "GET /v1/matches/{id}/live HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\n\
             X-Forwarded-For: {from}\r\nAccept: text/event-stream\r\n\r\n"
        );
        socket.write_all(head.as_bytes()).await.unwrap();
        let mut raw = Raw {
            status: 0,
            socket,
            seen: String::new(),
        };
        raw.read_until("\r\n\r\n", Duration::from_secs(10)).await;
        raw.status = raw.seen[9..12].parse().unwrap();
        raw
    }

    /// Read until `marker` has been seen (or `wait` passes): whether it was.
    async fn read_until(&mut self, marker: &str, wait: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + wait;
        let mut chunk = [0u8; 4096];
        while !self.seen.contains(marker) {
            let read = tokio::time::timeout_at(deadline, self.socket.read(&mut chunk)).await;
            match read {
                Ok(Ok(n)) if n > 0 => self.seen.push_str(&String::from_utf8_lossy(&chunk[..n])),
                _ => return false,
            }
        }
        true
    }

    /// Whether the server closed the stream within `wait`.
    async fn ends(&mut self, wait: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + wait;
        let mut chunk = [0u8; 4096];
        loop {
            match tokio::time::timeout_at(deadline, self.socket.read(&mut chunk)).await {
                Ok(Ok(0)) | Ok(Err(_)) => return true,
                Ok(Ok(n)) => self.seen.push_str(&String::from_utf8_lossy(&chunk[..n])),
                Err(_) => return false,
            }
        }
    }
}

/// A started checkers match of `a` and `b` on `app`: its id and `a`'s
/// token.
async fn table(app: &TestApp, a: &str, b: &str) -> (String, String) {
    let (id, tokens) = crate::live::checkers_of(app, a, b).await;
    let me = app.get("/v1/me", &tokens[0]).await.body;
    let mine = if me["username"] == a { 0 } else { 1 };
    (id, tokens[mine].clone())
}

async fn sign_in(app: &TestApp, name: &str) -> String {
    let body = json!({"login": name, "password": "a long password"});
    let reply = app
        .request("POST", "/v1/sessions", None, Some(body), &[])
        .await;
    assert_eq!(reply.status, 201, "{}", reply.body);
    reply.body["access_token"].as_str().unwrap().to_owned()
}

fn address(app: &TestApp) -> String {
    app.base.trim_start_matches("http://").to_owned()
}

#[actix_web::test]
async fn a_third_stream_of_a_session_displaces_the_oldest_which_says_so() {
    let app = TestApp::start().await;
    let (id, alice) = table(&app, "alice", "bob").await;
    let at = address(&app);
    let mut first = Raw::open(&at, &alice, &id, "198.51.100.1").await;
    let mut second = Raw::open(&at, &alice, &id, "198.51.100.1").await;
    assert_eq!((first.status, second.status), (200, 200));
    let third = Raw::open(&at, &alice, &id, "198.51.100.1").await;
    assert_eq!(third.status, 200);
    assert!(
        first
            .read_until("event: displaced", Duration::from_secs(5))
            .await,
        "{}",
        first.seen
    );
    assert!(first.ends(Duration::from_secs(5)).await, "and then ends");
    assert!(!second.seen.contains("displaced"));
    assert!(!second.ends(Duration::from_millis(300)).await, "still open");
    assert_eq!(app.state.live.streams(), 2);
    app.stop().await;
}

#[actix_web::test]
async fn an_account_holds_eight_streams_on_an_instance_and_the_ninth_is_429() {
    let app = TestApp::start().await;
    let (id, _) = table(&app, "alice", "bob").await;
    let at = address(&app);
    let mut held = Vec::new();
    for _ in 0..posthorn::live::PER_ACCOUNT / posthorn::live::PER_SESSION {
        let token = sign_in(&app, "alice").await;
        for _ in 0..posthorn::live::PER_SESSION {
            let stream = Raw::open(&at, &token, &id, "198.51.100.2").await;
            assert_eq!(stream.status, 200);
            held.push(stream);
        }
    }
    let token = sign_in(&app, "alice").await;
    let ninth = Raw::open(&at, &token, &id, "198.51.100.2").await;
    assert_eq!(ninth.status, 429, "{}", ninth.seen);
    // bob, from the same address, is another account.
    let bob = sign_in(&app, "bob").await;
    assert_eq!(Raw::open(&at, &bob, &id, "198.51.100.2").await.status, 200);
    assert_eq!(app.state.live.streams(), posthorn::live::PER_ACCOUNT + 1);
    drop(held);
    app.stop().await;
}

/// The binary under `ulimit -n 256`: guests from addresses of their own
/// open streams until the instance holds all it can (503); health checks,
/// new guests and moves still answer; the metrics count the refusals.
#[actix_web::test]
async fn an_instance_under_a_low_file_limit_holds_its_streams_and_keeps_answering() {
    let app = TestApp::start().await;
    let env = [
        ("POSTHORN_TRUSTED_PROXIES", "127.0.0.1".to_owned()),
        ("POSTHORN_METRICS_TOKEN", "caps-metrics".to_owned()),
    ];
    let (_binary, at) = spawn_binary_with_files(&app, &env, Some(256));
    let client = awc::Client::builder()
        .timeout(Duration::from_secs(20))
        .finish();
    let mut ready = false;
    for _ in 0..200 {
        if let Ok(r) = client.get(format!("http://{at}/readyz")).send().await {
            if r.status() == 200 {
                ready = true;
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(ready, "the binary starts");
    let capacity = posthorn::live::Capacity::of(256, posthorn::config::Config::default().pool_size);
    let guest = |n: usize| {
        let (client, at) = (client.clone(), at.clone());
        async move {
            let from = format!("10.77.{}.{}", n / 250, n % 250 + 1);
            let mut made = client
                .post(format!("http://{at}/v1/guests"))
                .insert_header(("X-Forwarded-For", from.clone()))
                .send_json(&json!({"nickname": "Watcher"}))
                .await
                .unwrap();
            assert_eq!(made.status(), 201);
            let token = made.json::<Value>().await.unwrap()["access_token"]
                .as_str()
                .unwrap()
                .to_owned();
            let mut game = client
                .post(format!("http://{at}/v1/matches"))
                .insert_header(("Authorization", format!("Bearer {token}")))
                .insert_header(("X-Forwarded-For", from.clone()))
                .send_json(&json!({"game": "checkers", "computers": [{"level": "easy"}]}))
                .await
                .unwrap();
            assert_eq!(game.status(), 201);
            let id = game.json::<Value>().await.unwrap()["id"]
                .as_str()
                .unwrap()
                .to_owned();
            (token, id, from)
        }
    };
    let mut held = Vec::new();
    let mut refused = None;
    for n in 0..capacity.streams {
        let (token, id, from) = guest(n).await;
        for _ in 0..posthorn::live::PER_SESSION {
            let stream = Raw::open(&at, &token, &id, &from).await;
            if stream.status != 200 {
                refused = Some((held.len(), stream.status));
                break;
            }
            held.push(stream);
        }
        if refused.is_some() {
            break;
        }
    }
    assert_eq!(
        refused,
        Some((capacity.streams, 503)),
        "the instance holds {} streams under 256 files",
        capacity.streams
    );
    // Everything else still answers while every stream is held.
    let health = client.get(format!("http://{at}/healthz")).send().await;
    assert_eq!(health.unwrap().status(), 200);
    let (_, id, _) = guest(9_000).await;
    assert!(!id.is_empty(), "a new guest and a new match");
    let mut metrics = client
        .get(format!("http://{at}/metrics"))
        .insert_header(("Authorization", "Bearer caps-metrics"))
        .send()
        .await
        .unwrap();
    let text = String::from_utf8(metrics.body().await.unwrap().to_vec()).unwrap();
    assert!(
        text.contains("posthorn_live_streams_refused_total{rule=\"instance\"} 1"),
        "{text}"
    );
    assert!(text.contains(&format!("posthorn_live_streams {}", capacity.streams)));
    drop(held);
    app.stop().await;
}
