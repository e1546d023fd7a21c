//! Issue #66 item 5: everyone's clock is theirs, and a registered player
//! has a name others see. A guest takes the time zone its browser sends;
//! sign-up and settings set a display name under the rules of names
//! everywhere (its characters, look-alikes, computers' names).

use crate::support::TestApp;
use serde_json::json;

/// `POST /v1/guests` with `body`, as a browser at `address` sends it.
async fn guest_made(
    app: &TestApp,
    body: serde_json::Value,
    address: &str,
) -> crate::support::Reply {
    app.request(
        "POST",
        "/v1/guests",
        None,
        Some(body),
        &[("X-Forwarded-For", address)],
    )
    .await
}

#[actix_web::test]
async fn a_guest_takes_the_browsers_time_zone_and_a_wrong_one_is_refused() {
    let app = TestApp::start().await;
    let body = json!({"nickname": "민지", "time_zone": "Asia/Seoul", "locale": "ko"});
    let made = guest_made(&app, body, "198.51.100.70").await;
    assert_eq!(made.status, 201, "{}", made.body);
    assert_eq!(made.body["user"]["time_zone"], "Asia/Seoul");
    let token = made.body["access_token"].as_str().unwrap();
    assert_eq!(
        app.get("/v1/me", token).await.body["time_zone"],
        "Asia/Seoul"
    );
    let wrong = json!({"nickname": "Mina", "time_zone": "Mars/Olympus"});
    let refused = guest_made(&app, wrong, "198.51.100.71").await;
    assert_eq!(refused.status, 400, "{}", refused.body);
    // Left out, UTC, as before (a client sends the zone when it knows it).
    let plain = app.guest("Plain").await;
    assert_eq!(app.get("/v1/me", &plain).await.body["time_zone"], "UTC");
    app.stop().await;
}

#[actix_web::test]
async fn sign_up_and_settings_set_a_display_name_under_the_rules_of_names() {
    let app = TestApp::start().await;
    app.register("minji").await;
    let sign_up = |username: &'static str, display: &'static str, from: &'static str| {
        let app = &app;
        async move {
            let body = json!({"username": username, "password": "a long password", "display_name": display});
            app.request(
                "POST",
                "/v1/accounts",
                None,
                Some(body),
                &[("X-Forwarded-For", from)],
            )
            .await
        }
    };
    let made = sign_up("jiwoo", "지우", "198.51.100.80").await;
    assert_eq!(made.status, 201, "{}", made.body);
    assert_eq!(made.body["user"]["display_name"], "지우");
    // A look-alike of a registered player, a computer's name, a symbol.
    let alike = sign_up("other1", "MINJI", "198.51.100.81").await;
    assert_eq!(
        (alike.status.as_u16(), alike.body["rule"].as_str()),
        (422, Some("look_alike"))
    );
    let computer = sign_up("other2", "컴퓨터 · 어려움", "198.51.100.82").await;
    assert_eq!(
        (computer.status.as_u16(), computer.body["field"].as_str()),
        (422, Some("display_name"))
    );
    let symbol = sign_up("other3", "지우 ★", "198.51.100.83").await;
    assert_eq!(symbol.status, 422, "{}", symbol.body);
    // Nobody registers a look-alike of the display name either.
    let taken = sign_up("other4", "지우", "198.51.100.84").await;
    assert_eq!(taken.status, 422, "{}", taken.body);

    // Settings: a new name, one's own username's look, and the refusals.
    let jiwoo = made.body["access_token"].as_str().unwrap().to_owned();
    let rename = |name: &'static str| {
        let (app, jiwoo) = (&app, jiwoo.clone());
        async move {
            let body = json!({ "display_name": name });
            app.request("PATCH", "/v1/me", Some(&jiwoo), Some(body), &[])
                .await
        }
    };
    let renamed = rename("지우네 할머니").await;
    assert_eq!(renamed.status, 200, "{}", renamed.body);
    assert_eq!(renamed.body["display_name"], "지우네 할머니");
    assert_eq!(
        rename("JIWOO").await.status,
        200,
        "one's own username's look"
    );
    assert_eq!(rename("Minji").await.status, 422, "another player's look");
    assert_eq!(rename("\u{115F}").await.status, 400);
    let guest = app.guest("Wanderer").await;
    let body = json!({"display_name": "Traveller"});
    let refused = app
        .request("PATCH", "/v1/me", Some(&guest), Some(body), &[])
        .await;
    assert_eq!(refused.status, 403, "a guest's name is its nickname");
    app.stop().await;
}

/// Issue #66 item 5: a Korean guest made as the browser makes one (its
/// zone sent) hears nothing in its quiet hours and gets the morning's
/// puzzles at 08:00 in Seoul, by push (a guest has no address), on a
/// fixed clock that starts at 09:00 UTC, 18:00 in Seoul.
#[actix_web::test]
async fn a_seoul_guests_quiet_hours_and_morning_come_at_seoul_times() {
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine;
    use chrono::Duration;
    let (push, inbox) = crate::push_service::start_push_service().await;
    let app = TestApp::start_with(posthorn::config::Config {
        allow_insecure_push_endpoints: true,
        ..Default::default()
    })
    .await;
    let body = json!({"nickname": "하늘", "time_zone": "Asia/Seoul", "locale": "ko"});
    let made = guest_made(&app, body, "198.51.100.72").await;
    assert_eq!(made.status, 201, "{}", made.body);
    let guest = made.body["access_token"].as_str().unwrap().to_owned();
    let name = made.body["user"]["username"].as_str().unwrap().to_owned();
    let (device, auth) = ece::generate_keypair_and_auth_secret().unwrap();
    let subscription = json!({"endpoint": format!("{push}/push/phone"),
        "keys": {"p256dh": URL_SAFE_NO_PAD.encode(device.pub_as_raw().unwrap()),
                 "auth": URL_SAFE_NO_PAD.encode(auth)}});
    assert_eq!(
        app.post("/v1/push-subscriptions", &guest, subscription)
            .await
            .status,
        201
    );
    let settings = json!({"quiet_hours": {"start": "22:00", "end": "07:30"}, "daily_puzzle": true});
    let saved = app
        .request(
            "PUT",
            "/v1/me/notification-settings",
            Some(&guest),
            Some(settings),
            &[],
        )
        .await;
    assert_eq!(saved.status, 200, "{}", saved.body);
    let kinds = || -> Vec<String> {
        (inbox.lock().unwrap().iter())
            .map(|r| {
                let plain =
                    ece::decrypt(&device.raw_components().unwrap(), &auth, &r.body).unwrap();
                let payload: serde_json::Value = serde_json::from_slice(&plain).unwrap();
                payload["type"].as_str().unwrap().to_owned()
            })
            .collect()
    };
    // 18:00 in Seoul: this morning's puzzles are out.
    crate::native_push::deliver(&app).await;
    assert_eq!(kinds(), ["daily_puzzle"]);
    // 23:00 in Seoul: a challenge waits for the end of the quiet hours.
    app.clock.advance(Duration::hours(5));
    let alice = app.register("alice").await;
    let m = app
        .challenge(
            "/v1/matches",
            &alice,
            json!({"game": "checkers", "opponents": [name]}),
        )
        .await;
    assert_eq!(m.status, 201, "{}", m.body);
    let held = crate::native_push::deliver(&app).await;
    assert!(held.waiting >= 1, "{held:?}");
    assert_eq!(kinds().len(), 1, "quiet at 23:00 in Seoul");
    app.clock
        .advance(Duration::hours(8) + Duration::minutes(29));
    crate::native_push::deliver(&app).await;
    assert_eq!(kinds().len(), 1, "still quiet at 07:29 in Seoul");
    app.clock.advance(Duration::minutes(1));
    crate::native_push::deliver(&app).await;
    assert_eq!(kinds(), ["daily_puzzle", "invitation"], "07:30 in Seoul");
    // 07:59: not yet the morning's puzzles; 08:00 in Seoul: they are out.
    app.clock.advance(Duration::minutes(29));
    crate::native_push::deliver(&app).await;
    assert_eq!(kinds().len(), 2);
    app.clock.advance(Duration::minutes(1));
    crate::native_push::deliver(&app).await;
    assert_eq!(kinds(), ["daily_puzzle", "invitation", "daily_puzzle"]);
    app.stop().await;
}
