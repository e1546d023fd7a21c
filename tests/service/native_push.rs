//! Push to the native apps (issue #51) against the local APNs and FCM
//! peers of `native_peers.rs`: HTTP/2 over TLS, every token and header
//! verified there.

pub(crate) use crate::native_peers::config;
use crate::native_peers::{self, apns_peer, fcm_peer};
use crate::support::TestApp;
use chrono::Duration;
use posthorn::clock::Clock;
use posthorn::jobs::delivery::deliver_due;
use posthorn::notify::worker::Delivered;
use posthorn_rules::SplitMix64;
use serde_json::{json, Value};
use std::collections::VecDeque;

/// An APNs device token (64 hex digits) and an FCM registration token.
pub(crate) fn ios_token(n: u32) -> String {
    format!("{n:064x}")
}

pub(crate) fn android_token(name: &str) -> String {
    format!("fcm:{name}-{}", "k".repeat(40))
}

pub(crate) async fn register_device(
    app: &TestApp,
    token: &str,
    body: Value,
) -> crate::support::Reply {
    app.post("/v1/devices", token, body).await
}

/// An iPhone (`ios_token(ios)`) and an Android phone
/// (`android_token(android)`) for the player of `token`.
async fn phones(app: &TestApp, token: &str, ios: u32, android: &str) {
    for body in [
        json!({"platform": "ios", "token": ios_token(ios)}),
        json!({"platform": "android", "token": android_token(android)}),
    ] {
        assert_eq!(register_device(app, token, body).await.status, 201);
    }
}

pub(crate) async fn deliver(app: &TestApp) -> Delivered {
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
    // English, an Android phone, an iPhone set to Japanese.
    for body in [
        json!({"platform": "ios", "token": ios_token(1), "app_id": native_peers::TOPIC}),
        json!({"platform": "ios", "token": ios_token(2).to_uppercase(), "locale": "en"}),
        json!({"platform": "android", "token": android_token("bob"), "app_id": "app.posthorn.android"}),
        // A phone in a language without words here: the account's Korean.
        json!({"platform": "ios", "token": ios_token(3), "locale": "ja-JP"}),
    ] {
        let made = register_device(&app, &bob, body).await;
        assert_eq!(made.status, 201, "{}", made.body);
    }
    let listed = app.get("/v1/devices", &bob).await.body;
    assert_eq!(listed["devices"].as_array().unwrap().len(), 4, "{listed}");
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
        [ios_token(1), ios_token(2), ios_token(3)],
        "one notice per iOS device"
    );
    for r in &turns {
        // One per match and urgency (issue #66 item 4).
        assert_eq!(r.headers["apns-collapse-id"], format!("{id}.turn"));
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
        assert_eq!(hangul(title), r.device != ios_token(2), "{title}");
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
    assert_eq!(m["android"]["notification"]["tag"], format!("{id}.turn"));
    assert_eq!(m["android"]["collapse_key"], format!("{id}.turn"));
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
    // Retried with the outbox's backoff (30 s), and not before the
    // Retry-After given: the 503s (0 s) after 31 s, the 429s (120 s) then.
    app.clock.advance(Duration::seconds(31));
    let second = deliver(&app).await;
    assert_eq!((second.sent, second.failed), (2, 0), "{second:?}");
    app.clock.advance(Duration::seconds(60));
    assert_eq!(
        deliver(&app).await.sent,
        0,
        "the 429s wait their two minutes"
    );
    app.clock.advance(Duration::seconds(30));
    let third = deliver(&app).await;
    assert_eq!((third.sent, third.failed), (2, 0), "{third:?}");
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
    for (service, outcome) in [
        ("apns", "removed"),
        ("fcm", "removed"),
        ("apns", "retried"),
        ("fcm", "retried"),
        ("apns", "delivered"),
    ] {
        assert!(counted(service, outcome) >= 1, "{service} {outcome}");
    }
}

/// Held by the tests that read the credential counters exactly: the
/// counters are the process's, and the held notices' test renews FCM's
/// access token seven times.
static CREDENTIAL_COUNTERS: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// A counter of `/metrics`'s native push series (this test's process).
fn counted(service: &str, outcome: &str) -> u64 {
    let series =
        format!("posthorn_native_push_total{{service=\"{service}\",outcome=\"{outcome}\"}} ");
    posthorn::notify::native::metrics()
        .lines()
        .find_map(|l| l.strip_prefix(&series))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no series {series}"))
}

#[actix_web::test]
async fn an_expired_provider_token_and_a_refused_access_token_are_renewed_and_the_notice_sent() {
    let _counters = CREDENTIAL_COUNTERS.lock().await;
    let tls = native_peers::tls();
    let (apns, fcm) = (apns_peer(&tls), fcm_peer(&tls));
    let app = TestApp::start_with(config(&tls, Some(&apns), Some(&fcm))).await;
    let (id, alice, bob) = table(&app).await;
    phones(&app, &bob, 20, "bob").await;
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
    let refused_before = [
        counted("apns", "credential_refused"),
        counted("fcm", "credential_refused"),
    ];
    let done = turn(3).await;
    assert_eq!(done.failed + done.retried, 0, "{done:?}");
    let third = apns.log.lock().unwrap().received.last().unwrap().clone();
    assert!(third.delivered);
    assert_ne!(third.provider_token, second.provider_token, "renewed");
    assert_eq!(third.iat, app.clock.now().timestamp());
    assert_eq!(counted("apns", "credential_refused") - refused_before[0], 1);
    assert_eq!(counted("fcm", "credential_refused") - refused_before[1], 1);
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
    let mut ids = Vec::new();
    for n in 0..11 {
        app.clock.advance(Duration::seconds(1));
        let body = json!({"platform": "ios", "token": ios_token(100 + n)});
        let made = register_device(&app, &alice, body).await;
        assert_eq!(made.status, 201);
        ids.push(made.body["id"].as_str().unwrap().to_owned());
    }
    let kept = app.get("/v1/devices", &alice).await.body.to_string();
    assert_eq!(count(alice.clone()).await, 10);
    assert!(
        !kept.contains(&ids[0]),
        "the one registered longest ago went"
    );
    assert!(ids[1..].iter().all(|id| kept.contains(id)), "{kept}");
    // At one instant (a frozen clock), the one registered now is kept.
    let body = json!({"platform": "ios", "token": ios_token(150)});
    let now = register_device(&app, &alice, body).await.body;
    let listed = app.get("/v1/devices", &alice).await.body.to_string();
    assert!(listed.contains(now["id"].as_str().unwrap()), "{listed}");
    // Signing out of a session removes its devices; another session's stay.
    let login = json!({"login": "alice", "password": "a long password"});
    let other = app
        .request("POST", "/v1/sessions", None, Some(login), &[])
        .await;
    let other = other.body["access_token"].as_str().unwrap().to_owned();
    let there = json!({"platform": "ios", "token": ios_token(200)});
    assert_eq!(register_device(&app, &other, there).await.status, 201);
    assert_eq!(
        app.request("DELETE", "/v1/sessions/current", Some(&alice), None, &[])
            .await
            .status,
        204
    );
    let left: Vec<Value> = app.get("/v1/devices", &other).await.body["devices"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(left.len(), 1, "the other session's phone stays: {left:?}");
    assert_eq!(left[0]["current"], true);
    assert_eq!(count(bob.clone()).await, 1);
    assert_eq!(
        app.request("DELETE", &theirs, Some(&bob), None, &[])
            .await
            .status,
        204
    );
    assert_eq!(count(bob.clone()).await, 0);
    // Deleting the account takes its devices along.
    let body = json!({"platform": "ios", "token": ios_token(300)});
    assert_eq!(register_device(&app, &bob, body).await.status, 201);
    let password = json!({"password": "a long password"});
    let deleted = app
        .request("POST", "/v1/me/deletion", Some(&bob), Some(password), &[])
        .await;
    assert!(deleted.status.is_success(), "{}", deleted.body);
    let rows = app
        .count(format!(
            "SELECT count(*) AS n FROM app_devices WHERE token = '{}'",
            ios_token(300)
        ))
        .await;
    assert_eq!(rows, 0, "the deleted account's phone is forgotten");
}

/// Issue #66 item 6: a notice refused for a bad credential (APNs 403
/// InvalidProviderToken; FCM 401 even after a new access token) is held,
/// not dropped: tried again every five minutes with no attempt spent, more
/// often than the outbox's attempts allow, and delivered once the key is
/// fixed. Its `apns-id` is the same on every try and names no counter.
#[actix_web::test]
async fn a_refused_credential_holds_the_notice_until_it_is_fixed_and_then_it_goes_once() {
    let _counters = CREDENTIAL_COUNTERS.lock().await;
    let tls = native_peers::tls();
    let (apns, fcm) = (apns_peer(&tls), fcm_peer(&tls));
    let app = TestApp::start_with(config(&tls, Some(&apns), Some(&fcm))).await;
    let (id, alice, bob) = table(&app).await;
    phones(&app, &bob, 30, "held").await;
    deliver(&app).await;
    // Refused seven times in a row: more than the outbox's five attempts.
    let refusals = 7;
    let apns_refusals = VecDeque::from(vec![(403, "InvalidProviderToken"); refusals]);
    let fcm_refusals = VecDeque::from(vec![(401, "UNAUTHENTICATED"); 2 * refusals]);
    (apns.script.lock().unwrap().answers).insert(ios_token(30), apns_refusals);
    (fcm.script.lock().unwrap().answers).insert(android_token("held"), fcm_refusals);
    apns.log.lock().unwrap().received.clear();
    let mut random = SplitMix64::new(5);
    app.play_moves(&[&alice, &bob], &id, &mut random, 1, crate::support::a_move)
        .await;
    for _ in 0..refusals {
        let held = deliver(&app).await;
        assert_eq!((held.failed, held.retried), (0, 2), "{held:?}");
        app.clock.advance(Duration::minutes(2));
        let early = deliver(&app).await;
        assert_eq!(early.retried + early.failed, 0, "held five minutes");
        app.clock.advance(Duration::minutes(3));
    }
    let spent = "SELECT max(attempts)::int8 AS n FROM notifications WHERE channel LIKE 'app:%'";
    assert_eq!(
        app.count(spent.into()).await,
        0,
        "no attempt spent while held"
    );
    // The key is fixed (the scripts are used up): each goes out once.
    let fixed = deliver(&app).await;
    assert_eq!(
        (fixed.sent, fixed.failed, fixed.retried),
        (2, 0, 0),
        "{fixed:?}"
    );
    app.clock.advance(Duration::hours(1));
    assert_eq!(deliver(&app).await, Delivered::default(), "nothing more");
    let tries: Vec<String> = (apns.log.lock().unwrap().received.iter())
        .filter(|r| r.device == ios_token(30))
        .map(|r| r.headers["apns-id"].clone())
        .collect();
    assert_eq!(tries.len(), refusals + 1);
    let fcm_delivered = (fcm.log.lock().unwrap().received.iter())
        .filter(|r| r.delivered && r.message["token"] == android_token("held"))
        .count();
    assert_eq!(fcm_delivered, 1);
    assert!(
        tries.iter().all(|t| *t == tries[0]),
        "one apns-id: {tries:?}"
    );
    assert!(
        !tries[0].starts_with("706f7374"),
        "no counter in it: {}",
        tries[0]
    );
    assert!(counted("apns", "held") >= refusals as u64);
    assert!(counted("fcm", "held") >= refusals as u64);
}
