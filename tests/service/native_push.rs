//! Push to the native apps (issue #51) against the local APNs and FCM
//! peers of `native_peers.rs`: HTTP/2 over TLS, every token and header
//! verified there.

use crate::native_peers::{self, apns_peer, fcm_peer, temp_file, ApnsPeer, FcmPeer, Tls};
use crate::support::TestApp;
use chrono::Duration;
use posthorn::clock::Clock;
use posthorn::jobs::outbox::deliver_due;
use posthorn::notify::worker::Delivered;
use posthorn_rules::SplitMix64;
use serde_json::{json, Value};
use std::collections::VecDeque;

fn config(tls: &Tls, apns: Option<&ApnsPeer>, fcm: Option<&FcmPeer>) -> posthorn::config::Config {
    posthorn::config::Config {
        apns: apns.map(|p| posthorn::config::Apns {
            key_file: p.key_file.clone(),
            key_id: native_peers::KEY_ID.into(),
            team_id: native_peers::TEAM_ID.into(),
            topic: native_peers::TOPIC.into(),
            host: p.base.clone(),
        }),
        fcm: fcm.map(|p| posthorn::config::Fcm {
            service_account_file: p.account_file.clone(),
            project: None,
            endpoint: p.base.clone(),
            token_uri: None,
        }),
        native_push_ca_file: Some(temp_file("ca.pem", &tls.cert_pem)),
        // Tokens that outlast the hours the clock is moved on.
        access_token_seconds: 24 * 3600,
        ..Default::default()
    }
}

/// An APNs device token (64 hex digits) and an FCM registration token.
fn ios_token(n: u32) -> String {
    format!("{n:064x}")
}

fn android_token(name: &str) -> String {
    format!("fcm:{name}-{}", "k".repeat(40))
}

async fn register_device(app: &TestApp, token: &str, body: Value) -> crate::support::Reply {
    app.post("/v1/devices", token, body).await
}

async fn deliver(app: &TestApp) -> Delivered {
    app.blocking(|s| deliver_due(&s.courier())).await.unwrap()
}

/// Alice (English) and Bob (Korean) at a checkers table; returns the
/// match id once Alice is on move, with every notice so far delivered.
async fn table(app: &TestApp) -> (String, String, String) {
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let korean = app
        .request(
            "PATCH",
            "/v1/me",
            Some(&bob),
            Some(json!({"locale": "ko-KR"})),
            &[],
        )
        .await;
    assert_eq!(korean.status, 200);
    let m = app
        .post(
            "/v1/matches",
            &alice,
            json!({"game": "checkers", "opponents": ["bob"]}),
        )
        .await
        .body;
    let id = m["id"].as_str().unwrap().to_owned();
    let last = app.get(&format!("/v1/matches/{id}"), &alice).await.body;
    if last["my_seats"][0] != last["to_act"][0]["seat"] {
        let mut random = SplitMix64::new(1);
        app.play_moves(&[&alice, &bob], &id, &mut random, 1, crate::support::a_move)
            .await;
    }
    deliver(app).await;
    (id, alice, bob)
}

fn hangul(text: &str) -> bool {
    text.chars().any(|c| ('\u{AC00}'..='\u{D7A3}').contains(&c))
}

#[actix_web::test]
async fn a_turn_reaches_each_of_the_players_devices_once_in_their_language_collapsed_by_match() {
    let tls = native_peers::tls();
    let (apns, fcm) = (apns_peer(&tls), fcm_peer(&tls));
    let app = TestApp::start_with(config(&tls, Some(&apns), Some(&fcm))).await;
    let platforms = app
        .request("GET", "/v1/push/platforms", None, None, &[])
        .await;
    assert_eq!(
        platforms.body,
        json!({"ios": true, "android": true, "web": true})
    );
    let (id, alice, bob) = table(&app).await;
    // Bob's phones: an iPhone in the account's Korean, an iPad set to
    // English, an Android phone.
    for body in [
        json!({"platform": "ios", "token": ios_token(1), "app_id": native_peers::TOPIC}),
        json!({"platform": "ios", "token": ios_token(2).to_uppercase(), "locale": "en"}),
        json!({"platform": "android", "token": android_token("bob"), "app_id": "app.posthorn.android"}),
    ] {
        let made = register_device(&app, &bob, body).await;
        assert_eq!(made.status, 201, "{}", made.body);
    }
    let listed = app.get("/v1/devices", &bob).await.body;
    assert_eq!(listed["devices"].as_array().unwrap().len(), 3, "{listed}");
    assert!(
        listed.to_string().find(&ios_token(1)).is_none(),
        "a token is never shown"
    );
    deliver(&app).await;
    apns.log.lock().unwrap().received.clear();
    fcm.log.lock().unwrap().received.clear();

    let mut random = SplitMix64::new(2);
    app.play_moves(&[&alice, &bob], &id, &mut random, 1, crate::support::a_move)
        .await;
    let done = deliver(&app).await;
    assert_eq!(done.failed, 0, "{done:?}");

    let log = apns.log.lock().unwrap();
    assert!(log.malformed.is_empty(), "{:?}", log.malformed);
    let turns: Vec<_> = log
        .received
        .iter()
        .filter(|r| r.payload["type"] == "your_turn")
        .collect();
    let mut devices: Vec<&str> = turns.iter().map(|r| r.device.as_str()).collect();
    devices.sort_unstable();
    assert_eq!(
        devices,
        [ios_token(1), ios_token(2)],
        "one notice per iOS device"
    );
    for r in &turns {
        assert_eq!(r.headers["apns-collapse-id"], id);
        assert_eq!(r.payload["aps"]["thread-id"], id.as_str());
        assert_eq!(
            r.headers["apns-priority"], "10",
            "a move owed is sent at once"
        );
        assert_eq!(r.headers["apns-topic"], native_peers::TOPIC);
        assert!(r.payload["url"]
            .as_str()
            .unwrap()
            .ends_with(&format!("/matches/{id}")));
        assert!(
            r.payload["aps"]["badge"].as_i64().unwrap() >= 1,
            "the move owed counts"
        );
        let title = r.payload["aps"]["alert"]["title"].as_str().unwrap();
        assert_eq!(hangul(title), r.device == ios_token(1), "{title}");
        assert_eq!(
            r.iat,
            app.clock.now().timestamp(),
            "iat is the signing time"
        );
    }
    drop(log);
    let log = fcm.log.lock().unwrap();
    assert!(log.malformed.is_empty(), "{:?}", log.malformed);
    let turns: Vec<_> = log
        .received
        .iter()
        .filter(|r| r.message["data"]["type"] == "your_turn")
        .collect();
    assert_eq!(turns.len(), 1, "one notice to the Android device");
    let m = &turns[0].message;
    assert_eq!(m["token"], android_token("bob"));
    assert_eq!(m["android"]["notification"]["tag"], id.as_str());
    assert_eq!(m["android"]["collapse_key"], id.as_str());
    assert_eq!(m["android"]["priority"], "HIGH");
    assert!(hangul(m["notification"]["title"].as_str().unwrap()), "{m}");
    assert_eq!(log.granted.len(), 1, "one access token for every send");
}

#[actix_web::test]
async fn gone_devices_are_removed_and_busy_services_retried_until_delivered_once() {
    let tls = native_peers::tls();
    let (apns, fcm) = (apns_peer(&tls), fcm_peer(&tls));
    let app = TestApp::start_with(config(&tls, Some(&apns), Some(&fcm))).await;
    let (id, alice, bob) = table(&app).await;
    let scripts = [
        ("ios", ios_token(10), (410, "Unregistered")),
        ("ios", ios_token(11), (400, "BadDeviceToken")),
        ("ios", ios_token(12), (429, "TooManyRequests")),
        ("ios", ios_token(13), (503, "ServiceUnavailable")),
        ("android", android_token("gone"), (404, "UNREGISTERED")),
        ("android", android_token("bad"), (400, "INVALID_ARGUMENT")),
        ("android", android_token("busy"), (429, "QUOTA_EXCEEDED")),
        ("android", android_token("down"), (503, "UNAVAILABLE")),
    ];
    for (platform, token, _) in &scripts {
        let made = register_device(&app, &bob, json!({"platform": platform, "token": token})).await;
        assert_eq!(made.status, 201, "{}", made.body);
    }
    deliver(&app).await;
    for (platform, token, answer) in &scripts {
        let answers = VecDeque::from([*answer]);
        match *platform {
            "ios" => apns
                .script
                .lock()
                .unwrap()
                .answers
                .insert(token.clone(), answers),
            _ => fcm
                .script
                .lock()
                .unwrap()
                .answers
                .insert(token.clone(), answers),
        };
    }
    apns.log.lock().unwrap().received.clear();
    fcm.log.lock().unwrap().received.clear();

    let mut random = SplitMix64::new(3);
    app.play_moves(&[&alice, &bob], &id, &mut random, 1, crate::support::a_move)
        .await;
    let first = deliver(&app).await;
    assert_eq!((first.failed, first.retried), (4, 4), "{first:?}");
    let left = app.get("/v1/devices", &bob).await.body["devices"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(left, 4, "the four gone devices are removed");
    // Retried with the outbox's backoff (the peers say Retry-After: 0).
    app.clock.advance(Duration::seconds(31));
    let second = deliver(&app).await;
    assert_eq!((second.sent, second.failed), (4, 0), "{second:?}");
    app.clock.advance(Duration::hours(2));
    assert_eq!(deliver(&app).await, Delivered::default(), "nothing more");
    let delivered_to = |token: &str| {
        let apns = apns.log.lock().unwrap();
        let fcm = fcm.log.lock().unwrap();
        let a = apns
            .received
            .iter()
            .filter(|r| r.delivered && r.device == token)
            .count();
        let f = fcm
            .received
            .iter()
            .filter(|r| r.delivered && r.message["token"] == token)
            .count();
        a + f
    };
    for token in [
        ios_token(12),
        ios_token(13),
        android_token("busy"),
        android_token("down"),
    ] {
        assert_eq!(delivered_to(&token), 1, "{token}: delivered once");
    }
    let metrics = posthorn::notify::native::metrics();
    assert!(
        metrics.contains("service=\"apns\",outcome=\"removed\""),
        "{metrics}"
    );
}

#[actix_web::test]
async fn an_expired_provider_token_and_a_refused_access_token_are_renewed_and_the_notice_sent() {
    let tls = native_peers::tls();
    let (apns, fcm) = (apns_peer(&tls), fcm_peer(&tls));
    let app = TestApp::start_with(config(&tls, Some(&apns), Some(&fcm))).await;
    let (id, alice, bob) = table(&app).await;
    for body in [
        json!({"platform": "ios", "token": ios_token(20)}),
        json!({"platform": "android", "token": android_token("bob")}),
    ] {
        assert_eq!(register_device(&app, &bob, body).await.status, 201);
    }
    // Two plies: Alice's move, then Bob's, each telling the other.
    let turn = |seed: u64| {
        let (app, alice, bob, id) = (&app, &alice, &bob, &id);
        async move {
            let mut random = SplitMix64::new(seed);
            app.play_moves(&[alice, bob], id, &mut random, 2, crate::support::a_move)
                .await;
            deliver(app).await
        }
    };
    turn(1).await;
    let first = apns.log.lock().unwrap().received.last().unwrap().clone();
    // Within 40 minutes the provider token is reused.
    app.clock.advance(Duration::minutes(30));
    turn(2).await;
    let second = apns.log.lock().unwrap().received.last().unwrap().clone();
    assert_eq!(
        second.provider_token, first.provider_token,
        "reused, not renewed"
    );
    // APNs calls it expired; FCM refuses its access token.
    apns.log
        .lock()
        .unwrap()
        .expired
        .insert(second.provider_token.clone());
    {
        let mut log = fcm.log.lock().unwrap();
        let granted = log.granted.clone();
        log.revoked.extend(granted);
    }
    app.clock.advance(Duration::minutes(1));
    let done = turn(3).await;
    assert_eq!(done.failed + done.retried, 0, "{done:?}");
    let third = apns.log.lock().unwrap().received.last().unwrap().clone();
    assert!(third.delivered);
    assert_ne!(third.provider_token, second.provider_token, "renewed");
    assert_eq!(third.iat, app.clock.now().timestamp());
    {
        let fcm_log = fcm.log.lock().unwrap();
        assert_eq!(fcm_log.granted.len(), 2, "a new access token after the 401");
        assert!(fcm_log.received.last().unwrap().delivered);
    }
    // After 40 minutes it is renewed before APNs must ask.
    app.clock.advance(Duration::minutes(41));
    turn(4).await;
    let fourth = apns.log.lock().unwrap().received.last().unwrap().clone();
    assert!(fourth.delivered);
    assert_ne!(fourth.provider_token, third.provider_token);
}

#[actix_web::test]
async fn with_no_platform_set_up_devices_are_refused_and_web_push_still_works() {
    let (push_base, inbox) = crate::push_service::start_push_service().await;
    let app = TestApp::start_with(posthorn::config::Config {
        allow_insecure_push_endpoints: true,
        ..Default::default()
    })
    .await;
    let platforms = app
        .request("GET", "/v1/push/platforms", None, None, &[])
        .await;
    assert_eq!(
        platforms.body,
        json!({"ios": false, "android": false, "web": true})
    );
    let (id, alice, bob) = table(&app).await;
    for platform in ["ios", "android"] {
        let token = if platform == "ios" {
            ios_token(1)
        } else {
            android_token("b")
        };
        let refused =
            register_device(&app, &bob, json!({"platform": platform, "token": token})).await;
        assert_eq!(
            (refused.status.as_u16(), refused.code()),
            (422, "platform_unavailable")
        );
    }
    let keys = (
        "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
        "BTBZMqHH6r4Tts7J_aSIgg",
    );
    let subscription = json!({"endpoint": format!("{push_base}/push/phone"), "keys": {"p256dh": keys.0, "auth": keys.1}});
    assert_eq!(
        app.post("/v1/push-subscriptions", &bob, subscription)
            .await
            .status,
        201
    );
    let mut random = SplitMix64::new(5);
    app.play_moves(&[&alice, &bob], &id, &mut random, 1, crate::support::a_move)
        .await;
    let done = deliver(&app).await;
    assert_eq!(done.failed, 0, "{done:?}");
    assert_eq!(
        inbox.lock().unwrap().len(),
        1,
        "Bob's browser is told of his turn"
    );
}

#[actix_web::test]
async fn a_token_moves_to_its_last_account_ten_are_kept_and_a_session_takes_its_devices_along() {
    let tls = native_peers::tls();
    let apns = apns_peer(&tls);
    let app = TestApp::start_with(config(&tls, Some(&apns), None)).await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let count = |token: String| {
        let app = &app;
        async move {
            app.get("/v1/devices", &token).await.body["devices"]
                .as_array()
                .unwrap()
                .len()
        }
    };
    let phone = json!({"platform": "ios", "token": ios_token(7)});
    let first = register_device(&app, &alice, phone.clone()).await.body;
    assert_eq!(first["current"], true);
    // Bob signs in on Alice's phone: the token is his now, a new device.
    let moved = register_device(&app, &bob, phone).await.body;
    assert_ne!(moved["id"], first["id"]);
    assert_eq!(
        (count(alice.clone()).await, count(bob.clone()).await),
        (0, 1)
    );
    let theirs = format!("/v1/devices/{}", moved["id"].as_str().unwrap());
    let not_hers = app
        .request("DELETE", &theirs, Some(&alice), None, &[])
        .await;
    assert_eq!(not_hers.status, 404);
    // Malformed and refused.
    for (body, status) in [
        (json!({"platform": "ios", "token": "not hex"}), 400),
        (
            json!({"platform": "ios", "token": ios_token(8), "app_id": "other.app"}),
            422,
        ),
        (json!({"platform": "windows", "token": ios_token(8)}), 400),
        (
            json!({"platform": "ios", "token": ios_token(8), "locale": "ko KR"}),
            400,
        ),
        (
            json!({"platform": "ios", "token": ios_token(8), "extra": 1}),
            400,
        ),
    ] {
        assert_eq!(
            register_device(&app, &alice, body.clone()).await.status,
            status,
            "{body}"
        );
    }
    assert_eq!(count(alice.clone()).await, 0, "nothing refused was kept");
    // Ten kept: the eleventh forgets the one registered longest ago.
    for n in 0..11 {
        app.clock.advance(Duration::seconds(1));
        let body = json!({"platform": "ios", "token": ios_token(100 + n)});
        assert_eq!(register_device(&app, &alice, body).await.status, 201);
    }
    assert_eq!(count(alice.clone()).await, 10);
    // Signing out of this session removes its devices; another session's stay.
    assert_eq!(
        app.request("DELETE", "/v1/sessions/current", Some(&alice), None, &[])
            .await
            .status,
        204
    );
    let removed = app
        .count("SELECT count(*) AS n FROM app_devices WHERE token LIKE '%' AND user_id = (SELECT id FROM users WHERE username = 'alice')".into())
        .await;
    assert_eq!(removed, 0);
    assert_eq!(count(bob.clone()).await, 1);
    assert_eq!(
        app.request("DELETE", &theirs, Some(&bob), None, &[])
            .await
            .status,
        204
    );
    assert_eq!(count(bob).await, 0);
}

/// The service binary on the test's database, pushing to `apns`, its
/// outbox swept every second.
fn spawn_service(app: &TestApp, tls: &Tls, apns: &ApnsPeer) -> std::process::Child {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let data = temp_file("placeholder", b"").parent().unwrap().to_owned();
    std::process::Command::new(env!("CARGO_BIN_EXE_posthorn"))
        .env("DATABASE_URL", app.database_url())
        .env("POSTHORN_BIND", format!("127.0.0.1:{port}"))
        // Links the same from one run to the next.
        .env("POSTHORN_PUBLIC_URL", "https://posthorn.test")
        .env("POSTHORN_DATA_DIR", data)
        .env(
            "POSTHORN_JWT_SECRET",
            "a test secret that is long enough for HS256",
        )
        .env("POSTHORN_SWEEP_INTERVAL_SECONDS", "1")
        .env("POSTHORN_APNS_KEY_FILE", &apns.key_file)
        .env("POSTHORN_APNS_KEY_ID", native_peers::KEY_ID)
        .env("POSTHORN_APNS_TEAM_ID", native_peers::TEAM_ID)
        .env("POSTHORN_APNS_TOPIC", native_peers::TOPIC)
        .env("POSTHORN_APNS_HOST", &apns.base)
        .env(
            "POSTHORN_NATIVE_PUSH_CA_FILE",
            temp_file("ca.pem", &tls.cert_pem),
        )
        .env("RUST_LOG", "error")
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

/// Wait (up to a minute) until `done` holds.
async fn until(what: &str, mut done: impl AsyncFnMut() -> bool) {
    for _ in 0..600 {
        if done().await {
            return;
        }
        actix_rt::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("timed out waiting until {what}");
}

/// Issue #51, "nothing acknowledged is lost and nothing is delivered
/// twice when the worker is killed mid-batch": the service is killed
/// (SIGKILL) with a batch's requests in flight, and started again. Every
/// notice is then delivered and recorded once; what the first run had
/// committed is never sent again; the only repeats are the interrupted
/// batch's, each with the same apns-id, collapse id and payload as its
/// first, so the phone shows it once (docs/decisions/native-push.md).
#[actix_web::test]
async fn a_worker_killed_mid_batch_loses_nothing_and_repeats_only_its_batch_the_same() {
    const DEVICES: usize = 10;
    const PER_DEVICE: usize = 60;
    const BATCH: usize = 256;
    let tls = native_peers::tls();
    let apns = apns_peer(&tls);
    let app = TestApp::start_with(config(&tls, Some(&apns), None)).await;
    // A guest: no address, so the app's devices are the only channel.
    let reader = app.guest("Reader").await;
    for n in 0..DEVICES {
        let body = json!({"platform": "ios", "token": ios_token(500 + n as u32)});
        assert_eq!(register_device(&app, &reader, body).await.status, 201);
    }
    let total = DEVICES * PER_DEVICE;
    // Notices as actions write them, due now; the first batch is
    // answered, then requests are held: the worker is mid-batch.
    app.count(format!(
        "WITH i AS (INSERT INTO notices (user_id, match_id, seq, kind, payload, created_at) \
         SELECT u.id, gen_random_uuid(), g, 'your_turn', '{{\"game\": \"checkers\"}}', now() - interval '1 hour' \
         FROM users u, generate_series(1, {PER_DEVICE}) g WHERE u.display_name = 'Reader' RETURNING 1) \
         SELECT count(*) AS n FROM i"
    ))
    .await;
    apns.script.lock().unwrap().hold_after = Some(BATCH + 20);
    let sent = || {
        app.count("SELECT count(*) AS n FROM notifications WHERE status = 'sent' AND channel LIKE 'app:%'".into())
    };
    let mut service = spawn_service(&app, &tls, &apns);
    until(
        "the first batch is committed and the second held",
        async || {
            let held = apns
                .log
                .lock()
                .unwrap()
                .received
                .iter()
                .filter(|r| !r.delivered)
                .count();
            held >= 32 && sent().await == BATCH as i64
        },
    )
    .await;
    service.kill().unwrap();
    service.wait().unwrap();
    let before: Vec<native_peers::ApnsReceived> = apns.log.lock().unwrap().received.clone();
    assert_eq!(
        sent().await,
        BATCH as i64,
        "the interrupted batch was not committed"
    );

    apns.script.lock().unwrap().hold_after = None;
    let mut service = spawn_service(&app, &tls, &apns);
    until("every notice is sent", async || {
        sent().await == total as i64
    })
    .await;
    service.kill().unwrap();
    service.wait().unwrap();

    let failed = app
        .count(
            "SELECT count(*) AS n FROM notifications WHERE status <> 'sent' OR attempts <> 1"
                .into(),
        )
        .await;
    assert_eq!(failed, 0, "nothing lost or failed, each recorded sent once");
    let log = apns.log.lock().unwrap();
    assert!(log.malformed.is_empty(), "{:?}", log.malformed);
    let mut by_id: std::collections::HashMap<&str, Vec<&native_peers::ApnsReceived>> =
        Default::default();
    for r in &log.received {
        by_id
            .entry(r.headers["apns-id"].as_str())
            .or_default()
            .push(r);
    }
    assert_eq!(by_id.len(), total, "every notice reached the service");
    let first_batch: std::collections::HashSet<&str> = before
        .iter()
        .filter(|r| r.delivered)
        .take(BATCH)
        .map(|r| r.headers["apns-id"].as_str())
        .collect();
    let repeated: Vec<&str> = by_id
        .iter()
        .filter(|(_, rs)| rs.len() > 1)
        .map(|(id, _)| *id)
        .collect();
    assert!(!repeated.is_empty(), "the kill interrupted sends");
    assert!(
        repeated.len() <= BATCH,
        "only the interrupted batch: {}",
        repeated.len()
    );
    for id in repeated {
        assert!(!first_batch.contains(id), "a committed notice sent again");
        let rs = &by_id[id];
        assert!(
            rs.iter().all(
                |r| r.headers["apns-collapse-id"] == rs[0].headers["apns-collapse-id"]
                    && r.payload == rs[0].payload
            ),
            "{id}: a repeat is the same notice"
        );
    }
    let delivered: usize = by_id
        .values()
        .map(|rs| rs.iter().filter(|r| r.delivered).count().min(1))
        .sum();
    assert_eq!(delivered, total, "each notice answered 200 at least once");
}

/// What plays on: a move, a Banqi flip, a FlipChess card or flip.
fn playing(action: &Value) -> bool {
    !["resign", "offer_draw", "grant_time", "claim_draw"]
        .contains(&action["type"].as_str().unwrap_or(""))
}

#[actix_web::test]
async fn a_banqi_push_shows_no_face_down_piece() {
    push_hides_secrets("banqi", posthorn_rules::GameId::Banqi).await;
}

#[actix_web::test]
async fn a_flipchess_push_shows_no_hand_and_no_deck() {
    push_hides_secrets("flipchess", posthorn_rules::GameId::FlipChess).await;
}

/// Hidden information (DESIGN: never in a push): a Banqi or FlipChess
/// table, Alice on an Android phone and Bob on an iPhone; after every
/// ply each payload delivered since is checked against what is hidden
/// from its reader's seat at that moment.
async fn push_hides_secrets(game: &str, id_of: posthorn_rules::GameId) {
    use posthorn_rules::{Seat, Viewer};
    let tls = native_peers::tls();
    let (apns, fcm) = (apns_peer(&tls), fcm_peer(&tls));
    let app = TestApp::start_with(config(&tls, Some(&apns), Some(&fcm))).await;
    let (alice, bob) = (app.register("alice").await, app.register("bob").await);
    for (token, body) in [
        (
            &alice,
            json!({"platform": "android", "token": android_token("alice")}),
        ),
        (&bob, json!({"platform": "ios", "token": ios_token(7)})),
    ] {
        assert_eq!(register_device(&app, token, body).await.status, 201);
    }
    let m = app
        .post(
            "/v1/matches",
            &alice,
            json!({"game": game, "opponents": ["bob"]}),
        )
        .await
        .body;
    let id = m["id"].as_str().unwrap().to_owned();
    let alice_seat = Seat(m["my_seats"][0].as_u64().unwrap() as u8);
    let bob_seat = Seat(1 - alice_seat.0);
    let mut random = SplitMix64::new(5);
    let (mut seen_apns, mut seen_fcm, mut checked) = (0, 0, 0);
    for _ in 0..12 {
        let last = app
            .play_moves(&[&alice, &bob], &id, &mut random, 1, playing)
            .await;
        deliver(&app).await;
        let (state, _) = crate::banqi::recorded_game(&app, id.parse().unwrap(), id_of).await;
        for (seat, payloads) in [
            (bob_seat, {
                let log = apns.log.lock().unwrap();
                let new: Vec<Value> = log.received[seen_apns..]
                    .iter()
                    .map(|r| json!([r.headers, r.payload]))
                    .collect();
                seen_apns = log.received.len();
                new
            }),
            (alice_seat, {
                let log = fcm.log.lock().unwrap();
                let new: Vec<Value> = log.received[seen_fcm..]
                    .iter()
                    .map(|r| r.message.clone())
                    .collect();
                seen_fcm = log.received.len();
                new
            }),
        ] {
            let hidden = state.secrets(Viewer::Seat(seat));
            assert!(
                !hidden.is_empty(),
                "something is hidden from seat {}",
                seat.0
            );
            for payload in &payloads {
                crate::banqi::assert_hides(payload, &hidden, "a native push");
                checked += 1;
            }
        }
        if last["status"] == "finished" {
            break;
        }
    }
    assert!(checked >= 6, "turn notices reached both phones ({checked})");
    app.stop().await;
}
