//! Web Push (issue #6): a local endpoint plays the push service, decrypts
//! the aes128gcm payload with the subscription's private key (RFC 8291)
//! and verifies the VAPID token's ES256 signature and claims (RFC 8292).

use crate::push_service::{start_push_service, Received};
use crate::support::TestApp;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use posthorn::notify::worker::deliver_due;
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
    assert_eq!(to_phone.len(), 1 + bob_moves as usize, "{done:?}");
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
        assert!(["invitation", "your_turn"].contains(&kind), "{payload}");
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
