//! Web Push (issue #6): a local endpoint plays the push service, decrypts
//! the aes128gcm payload with the subscription's private key (RFC 8291)
//! and verifies the VAPID token's ES256 signature and claims (RFC 8292).

use crate::push_service::{start_push_service, Received};
use crate::support::TestApp;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use posthorn::jobs::delivery::deliver_due;
use serde_json::{json, Value};

/// Check the VAPID header: an ES256 JWT for this push service's origin,
/// signed by the key in `k`, which is the service's public key.
fn verify_vapid(authorization: &str, audience: &str, server_key: &str) -> Value {
    let rest = authorization
        .strip_prefix("vapid ")
        .expect("a vapid authorization");
    let part = |name: &str| {
        rest.split(',')
            .map(str::trim)
            .find_map(|p| p.strip_prefix(name))
            .unwrap()
            .to_owned()
    };
    let (token, key) = (part("t="), part("k="));
    assert_eq!(key, server_key, "signed with the key the apps were given");
    let point = URL_SAFE_NO_PAD.decode(&key).unwrap();
    assert_eq!(
        (point.len(), point[0]),
        (65, 4),
        "an uncompressed P-256 point"
    );
    let (x, y) = (
        URL_SAFE_NO_PAD.encode(&point[1..33]),
        URL_SAFE_NO_PAD.encode(&point[33..]),
    );
    let decoding = jsonwebtoken::DecodingKey::from_ec_components(&x, &y).unwrap();
    let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::ES256);
    validation.set_audience(&[audience]);
    validation.set_required_spec_claims(&["exp", "aud", "sub"]);
    jsonwebtoken::decode::<Value>(&token, &decoding, &validation)
        .expect("a valid ES256 VAPID token")
        .claims
}

#[actix_web::test]
async fn pushes_are_encrypted_for_the_device_signed_with_vapid_and_a_410_removes_the_subscription()
{
    let (push_base, inbox) = start_push_service().await;
    let app = TestApp::start_with(posthorn::config::Config {
        allow_insecure_push_endpoints: true,
        vapid_subject: "mailto:ops@posthorn.test".into(),
        ..Default::default()
    })
    .await;
    let alice = app.register("alice").await;
    let bob = app.guest("Bob").await; // no email: push only
    let server_key = app.get("/v1/push/vapid-public-key", &bob).await.body["key"]
        .as_str()
        .unwrap()
        .to_owned();

    let (device, auth) = ece::generate_keypair_and_auth_secret().unwrap();
    let subscription = json!({
        "endpoint": format!("{push_base}/push/phone"),
        "keys": {"p256dh": URL_SAFE_NO_PAD.encode(device.pub_as_raw().unwrap()), "auth": URL_SAFE_NO_PAD.encode(auth)},
    });
    let made = app.post("/v1/push-subscriptions", &bob, subscription).await;
    assert_eq!(made.status, 201, "{}", made.body);
    let gone = json!({"endpoint": format!("{push_base}/push/gone"), "keys": {"p256dh": URL_SAFE_NO_PAD.encode(device.pub_as_raw().unwrap()), "auth": URL_SAFE_NO_PAD.encode(auth)}});
    assert_eq!(
        app.post("/v1/push-subscriptions", &bob, gone).await.status,
        201
    );
    let bad = app
        .post(
            "/v1/push-subscriptions",
            &bob,
            json!({"endpoint": "not a url", "keys": {"p256dh": "x", "auth": "y"}}),
        )
        .await;
    assert_eq!(bad.status, 400);

    // Alice invites Bob: he is told by push (he has no email), and again
    // when it is his turn if he moves first.
    let bob_name = app.get("/v1/me", &bob).await.body["username"]
        .as_str()
        .unwrap()
        .to_owned();
    let m = app
        .post(
            "/v1/matches",
            &alice,
            json!({"game": "flipchess", "opponents": [bob_name]}),
        )
        .await
        .body;
    let bob_moves = m["my_seats"][0] != m["to_act"][0]["seat"];
    let done = app.blocking(|s| deliver_due(&s.courier())).await.unwrap();

    let received = inbox.lock().unwrap().clone();
    let to_phone: Vec<&Received> = received.iter().filter(|r| r.device == "phone").collect();
    // One push: when Bob moves first, "your turn" goes without the quieter
    // invitation of the same batch, which could arrive last and take its
    // place (issue #66 item 4).
    assert_eq!(to_phone.len(), 1, "{done:?}");
    assert_eq!(done.dropped, 2 * bob_moves as usize, "{done:?}");
    // Sent side by side, recorded row by row: each push to the gone
    // device, and only those, is recorded as failed.
    assert_eq!(done.failed, to_phone.len(), "{done:?}");
    for push in &to_phone {
        assert_eq!(push.encoding, "aes128gcm");
        assert_eq!(push.ttl, "86400");
        let claims = verify_vapid(&push.authorization, &push_base, &server_key);
        assert_eq!(claims["sub"], "mailto:ops@posthorn.test");
        let plain = ece::decrypt(&device.raw_components().unwrap(), &auth, &push.body)
            .expect("decrypts with the device's key");
        let payload: Value = serde_json::from_slice(&plain).unwrap();
        let kind = payload["type"].as_str().unwrap();
        let expected = if bob_moves { "your_turn" } else { "invitation" };
        assert_eq!(kind, expected, "{payload}");
        let (urgency, id) = (
            if bob_moves { "turn" } else { "news" },
            m["id"].as_str().unwrap(),
        );
        assert_eq!(payload["tag"], format!("{id}.{urgency}"), "{payload}");
        assert!(
            !push.topic.is_empty() && push.topic.len() <= 32,
            "{}",
            push.topic
        );
        assert_eq!(
            push.urgency,
            if kind == "your_turn" {
                "high"
            } else {
                "normal"
            }
        );
        assert_eq!(payload["match_id"], m["id"]);
        assert!(payload["url"]
            .as_str()
            .unwrap()
            .ends_with(&format!("/matches/{}", m["id"].as_str().unwrap())));
        assert!(payload["title"].is_string() && payload["body"].is_string());
        for card in ["red-", "blue-", "green-", "yellow-", "wild"] {
            assert!(
                !String::from_utf8_lossy(&plain).contains(card),
                "no card in a push"
            );
        }
    }
    // The 410 removed that subscription; the phone's remains.
    let count = app
        .blocking(|s| {
            use diesel::prelude::*;
            posthorn::schema::push_subscriptions::table
                .count()
                .get_result::<i64>(&mut s.pool.get().unwrap())
                .unwrap()
        })
        .await;
    assert_eq!(count, 1);
    let id = made.body["id"].as_str().unwrap();
    let removed = app
        .request(
            "DELETE",
            &format!("/v1/push-subscriptions/{id}"),
            Some(&bob),
            None,
            &[],
        )
        .await;
    assert_eq!(removed.status, 204);
    let again = app
        .request(
            "DELETE",
            &format!("/v1/push-subscriptions/{id}"),
            Some(&bob),
            None,
            &[],
        )
        .await;
    assert_eq!(again.status, 404);
    app.stop().await;
}

/// A subscription's keys as a browser gives them.
fn device_keys() -> Value {
    let (device, auth) = ece::generate_keypair_and_auth_secret().unwrap();
    json!({"p256dh": URL_SAFE_NO_PAD.encode(device.pub_as_raw().unwrap()), "auth": URL_SAFE_NO_PAD.encode(auth)})
}

/// Issue #30, item 14: a push endpoint on an address that is not public —
/// NAT64 and IPv4-mapped forms of loopback, 6to4, multicast, "this
/// network", Teredo, documentation, unique-local — is refused when it is
/// registered.
#[actix_web::test]
async fn a_subscription_to_a_non_public_address_is_refused() {
    let app = TestApp::start().await;
    let bob = app.guest("Bob").await;
    for endpoint in [
        "https://[64:ff9b::7f00:1]/push",
        "https://[64:ff9b::a9fe:a9fe]/push",
        "https://[64:ff9b:1::a00:1]/push",
        "https://[::ffff:a9fe:a9fe]/push",
        "https://[2002:7f00:1::1]/push",
        "https://[2002:808:808::1]/push",
        "https://[ff02::1]/push",
        "https://224.0.0.251/push",
        "https://0.0.0.0/push",
        "https://0.1.2.3/push",
        "https://100.64.1.1/push",
        "https://192.0.0.8/push",
        "https://198.18.0.1/push",
        "https://240.0.0.1/push",
        "https://255.255.255.255/push",
        "https://[2001::1]/push",
        "https://[2001:db8::1]/push",
        "https://[100::1]/push",
        "https://[fd12:3456::1]/push",
        "https://[fe80::1]/push",
        "https://localhost/push",
        "https://localhost./push",
        "https://printer.localhost/push",
        "http://push.example.com/push",
    ] {
        let reply = app
            .post(
                "/v1/push-subscriptions",
                &bob,
                json!({"endpoint": endpoint, "keys": device_keys()}),
            )
            .await;
        assert_eq!(
            (reply.status.as_u16(), reply.code()),
            (400, "validation_failed"),
            "{endpoint}: {}",
            reply.body
        );
    }
    for endpoint in [
        "https://fcm.googleapis.com/fcm/send/abc",
        "https://[2a00:1450:4001::1]/push",
        "https://[64:ff9b::808:808]/push",
    ] {
        let reply = app
            .post(
                "/v1/push-subscriptions",
                &bob,
                json!({"endpoint": endpoint, "keys": device_keys()}),
            )
            .await;
        assert_eq!(reply.status, 201, "{endpoint}: {}", reply.body);
    }
    app.stop().await;
}

/// Issue #30, item 14: a name is judged by what it resolves to when the
/// push is sent, by the resolver of the connection itself — here
/// `localhost`, stored as a name re-pointed after registration would be
/// (registration refuses it by name). Nothing reaches the push service on
/// loopback, and the notification is recorded as failed, not retried.
#[actix_web::test]
async fn a_name_resolving_to_loopback_is_refused_at_send_time() {
    use diesel::prelude::*;
    use posthorn::schema::{notifications, push_subscriptions};
    let (push_base, inbox) = start_push_service().await;
    let port = push_base.rsplit(':').next().unwrap().to_owned();
    let app = TestApp::start().await; // no POSTHORN_ALLOW_INSECURE_PUSH_ENDPOINTS
    let alice = app.register("alice").await;
    let bob = app.guest("Bob").await;
    let me = app.get("/v1/me", &bob).await.body;
    let (bob_id, bob_name): (uuid::Uuid, String) = (
        me["id"].as_str().unwrap().parse().unwrap(),
        me["username"].as_str().unwrap().to_owned(),
    );
    let keys = device_keys();
    let endpoint = format!("https://localhost:{port}/push/phone");
    let refused = app
        .post(
            "/v1/push-subscriptions",
            &bob,
            json!({"endpoint": endpoint, "keys": keys}),
        )
        .await;
    assert_eq!(refused.status, 400, "{}", refused.body);
    let now = posthorn::clock::Clock::now(&app.clock);
    app.blocking(move |s| {
        diesel::insert_into(push_subscriptions::table)
            .values((
                push_subscriptions::id.eq(uuid::Uuid::new_v4()),
                push_subscriptions::user_id.eq(bob_id),
                push_subscriptions::endpoint.eq(endpoint),
                push_subscriptions::p256dh.eq(keys["p256dh"].as_str().unwrap()),
                push_subscriptions::auth.eq(keys["auth"].as_str().unwrap()),
                push_subscriptions::created_at.eq(now),
            ))
            .execute(&mut s.pool.get().unwrap())
            .unwrap();
    })
    .await;
    let challenge = app
        .challenge(
            "/v1/matches",
            &alice,
            json!({"game": "checkers", "opponents": [bob_name]}),
        )
        .await;
    assert_eq!(challenge.status, 201, "{}", challenge.body);
    let done = app.blocking(|s| deliver_due(&s.courier())).await.unwrap();
    assert!(inbox.lock().unwrap().is_empty(), "nothing reached loopback");
    let pushes: Vec<(String, i32, Option<String>)> = app
        .blocking(move |s| {
            notifications::table
                .filter(notifications::user_id.eq(bob_id))
                .filter(notifications::channel.like("push:%"))
                .select((
                    notifications::status,
                    notifications::attempts,
                    notifications::last_error,
                ))
                .load(&mut s.pool.get().unwrap())
                .unwrap()
        })
        .await;
    assert!(!pushes.is_empty(), "{done:?}");
    assert_eq!(done.failed, pushes.len(), "{done:?}");
    for (status, attempts, error) in pushes {
        let error = error.unwrap_or_default();
        assert_eq!((status.as_str(), attempts), ("failed", 1), "{error}");
        assert!(
            error.contains("localhost resolves to") && error.contains("not a public address"),
            "{error}"
        );
    }
    app.stop().await;
}
