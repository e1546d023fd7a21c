//! Accounts and sessions (docs/api.md §Accounts, issue #3 point 4).

use crate::support::TestApp;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use chrono::Duration;
use serde_json::json;

async fn login(app: &TestApp, login: &str, password: &str) -> crate::support::Reply {
    app.request(
        "POST",
        "/v1/sessions",
        None,
        Some(json!({"login": login, "password": password})),
        &[],
    )
    .await
}

async fn refresh(app: &TestApp, token: &impl serde::Serialize) -> crate::support::Reply {
    let body = json!({ "refresh_token": token });
    app.request("POST", "/v1/sessions/refresh", None, Some(body), &[])
        .await
}

/// Issue #18 (settings page): language, time zone and email are changed
/// with `PATCH /v1/me`; a bad zone changes nothing, and a new email only
/// waits for its verification link (issue #30).
#[actix_web::test]
async fn patch_me_changes_locale_time_zone_and_email_and_refuses_bad_values() {
    let app = TestApp::start().await;
    let token = app.register("alice").await;
    app.register("bob").await;
    let patch =
        |body: serde_json::Value| app.request("PATCH", "/v1/me", Some(&token), Some(body), &[]);
    let changed = patch(json!({"locale": "ko-KR", "time_zone": "Asia/Seoul"})).await;
    assert_eq!(changed.status, 200, "{}", changed.body);
    assert_eq!(changed.body["locale"], "ko-KR");
    assert_eq!(changed.body["time_zone"], "Asia/Seoul");
    assert_eq!(
        changed.body["email"], "alice@example.test",
        "left out: kept"
    );
    for (bad, status) in [
        (json!({"time_zone": "Mars/Olympus"}), 400),
        (json!({"locale": "ko KR!"}), 400),
        (json!({"email": "not an address"}), 400),
        // Issue #30: a taken address is answered like any other (its
        // owner is mailed); it only waits, unverified.
        (
            json!({"email": "bob@example.test", "password": "a long password"}),
            200,
        ),
        (json!({"nickname": "x"}), 400),
    ] {
        let reply = patch(bad.clone()).await;
        assert_eq!(reply.status, status, "{bad}: {}", reply.body);
    }
    let me = app.get("/v1/me", &token).await.body;
    assert_eq!(
        (me["locale"].as_str(), me["time_zone"].as_str()),
        (Some("ko-KR"), Some("Asia/Seoul"))
    );
    assert_eq!(me["email"], "alice@example.test");
    assert_eq!(me["email_pending"], "bob@example.test");
    // Issue #65: the address controls the password, so changing it takes
    // the password.
    let removed = patch(json!({"email": null, "password": "a long password"})).await;
    assert_eq!(removed.body["email"], serde_json::Value::Null);
    let login = app
        .request(
            "POST",
            "/v1/sessions",
            None,
            Some(json!({"login": "alice", "password": "a long password"})),
            &[],
        )
        .await;
    assert_eq!(login.body["user"]["time_zone"], "Asia/Seoul");
}

/// Issue #49 item 9: a refused value names its field and the rule it
/// broke (`field`, `rule` in the problem document), in every language, so
/// a form says which box is wrong in the player's words.
#[actix_web::test]
async fn each_refused_value_names_its_field_and_rule() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    let long = "a long password";
    let cases = [
        (
            "POST",
            "/v1/accounts",
            None,
            json!({"username": "a", "password": long}),
            400,
            "username",
            "form",
        ),
        (
            "POST",
            "/v1/accounts",
            None,
            json!({"username": "guest-zed", "password": long}),
            400,
            "username",
            "reserved",
        ),
        (
            "POST",
            "/v1/accounts",
            None,
            json!({"username": "zed", "password": "short"}),
            400,
            "password",
            "form",
        ),
        (
            "POST",
            "/v1/accounts",
            None,
            json!({"username": "zed", "password": long, "email": "zed@"}),
            400,
            "email",
            "form",
        ),
        (
            "POST",
            "/v1/accounts",
            None,
            json!({"username": "ALICE", "password": long}),
            409,
            "username",
            "taken",
        ),
        (
            "POST",
            "/v1/accounts",
            None,
            json!({"username": "a1ice", "password": long}),
            422,
            "username",
            "look_alike",
        ),
        (
            "POST",
            "/v1/guests",
            None,
            json!({"nickname": "Alice"}),
            422,
            "nickname",
            "look_alike",
        ),
        (
            "PATCH",
            "/v1/me",
            Some(&alice),
            json!({"time_zone": "Mars/Olympus"}),
            400,
            "time_zone",
            "form",
        ),
        (
            "PATCH",
            "/v1/me",
            Some(&alice),
            json!({"email": "not an address"}),
            400,
            "email",
            "form",
        ),
        (
            "POST",
            "/v1/me/password",
            Some(&alice),
            json!({"current_password": long, "new_password": "short"}),
            400,
            "new_password",
            "form",
        ),
        (
            "POST",
            "/v1/me/password",
            Some(&alice),
            json!({"current_password": "not it at all", "new_password": "another long one"}),
            401,
            "current_password",
            "wrong",
        ),
    ];
    for (method, path, token, body, status, field, rule) in cases {
        for language in ["en", "ko"] {
            let token = token.map(String::as_str);
            let reply = app
                .request(
                    method,
                    path,
                    token,
                    Some(body.clone()),
                    &[("accept-language", language)],
                )
                .await;
            assert_eq!(reply.status, status, "{body} in {language}: {}", reply.body);
            assert_eq!(
                (reply.body["field"].as_str(), reply.body["rule"].as_str()),
                (Some(field), Some(rule)),
                "{body} in {language}: {}",
                reply.body
            );
        }
    }
    let me = app.get("/v1/me", &alice).await.body;
    assert_eq!(me["time_zone"], "UTC", "nothing changed");
    app.stop().await;
}

#[actix_web::test]
async fn register_then_sign_in_by_username_or_email_and_read_me() {
    let app = TestApp::start().await;
    let token = app.register("alice").await;
    let me = app.get("/v1/me", &token).await;
    assert_eq!(me.status, 200);
    assert_eq!(me.body["username"], "alice");
    assert_eq!(me.body["guest"], false);
    assert_eq!(me.body["email"], "alice@example.test");
    for name in ["alice", "ALICE", "alice@example.test"] {
        let reply = login(&app, name, "a long password").await;
        assert_eq!(reply.status, 201, "{name}: {}", reply.body);
        assert_eq!(reply.body["token_type"], "Bearer");
        assert_eq!(reply.body["user"]["username"], "alice");
    }
    let again = app
        .request(
            "POST",
            "/v1/accounts",
            None,
            Some(json!({"username": "Alice", "password": "another password"})),
            &[],
        )
        .await;
    assert_eq!((again.status.as_u16(), again.code()), (409, "conflict"));
    app.stop().await;
}

#[actix_web::test]
async fn wrong_password_and_unknown_user_get_the_same_answer() {
    let app = TestApp::start().await;
    app.register("bob").await;
    let wrong = login(&app, "bob", "not the password").await;
    let unknown = login(&app, "nobody", "not the password").await;
    assert_eq!(wrong.status, 401);
    assert_eq!(wrong.status, unknown.status);
    assert_eq!(wrong.body, unknown.body);
    app.stop().await;
}

#[actix_web::test]
async fn sign_in_is_rate_limited_per_account() {
    let app = TestApp::start().await;
    app.register("carol").await;
    for _ in 0..posthorn::limits::Limit::SignInAccountAddress.allowed() {
        assert_eq!(login(&app, "carol", "guessing").await.status, 401);
    }
    let limited = login(&app, "carol", "a long password").await;
    assert_eq!(
        (limited.status.as_u16(), limited.code()),
        (429, "rate_limited")
    );
    // The window passes; the right password works again.
    app.clock
        .advance(posthorn::limits::Limit::SignInAccountAddress.window() + Duration::minutes(1));
    assert_eq!(login(&app, "carol", "a long password").await.status, 201);
    app.stop().await;
}

#[actix_web::test]
async fn refresh_rotates_and_a_token_refreshed_again_after_the_reuse_interval_ends_the_session() {
    let app = TestApp::start().await;
    app.register("dave").await;
    let first = login(&app, "dave", "a long password").await.body;
    let old = first["refresh_token"].as_str().unwrap();
    let rotated = refresh(&app, &old).await;
    assert_eq!(rotated.status, 200, "{}", rotated.body);
    let new = rotated.body["refresh_token"].as_str().unwrap().to_owned();
    assert_ne!(new, old);
    let access = rotated.body["access_token"].as_str().unwrap().to_owned();
    assert_eq!(app.get("/v1/me", &access).await.status, 200);

    // Past the reuse interval (issue #47) a second use is a copy's.
    app.clock.advance(Duration::seconds(61));
    let reused = refresh(&app, &old).await;
    assert_eq!(
        (reused.status.as_u16(), reused.code()),
        (401, "unauthorized")
    );
    // Reuse means a copy exists: the whole session is revoked.
    let after = refresh(&app, &new).await;
    assert_eq!(after.status, 401);
    app.stop().await;
}

#[actix_web::test]
async fn sign_out_revokes_the_refresh_token() {
    let app = TestApp::start().await;
    app.register("erin").await;
    let session = login(&app, "erin", "a long password").await.body;
    let access = session["access_token"].as_str().unwrap();
    let out = app
        .request("DELETE", "/v1/sessions/current", Some(access), None, &[])
        .await;
    assert_eq!(out.status, 204);
    let refresh = refresh(&app, &session["refresh_token"]).await;
    assert_eq!(refresh.status, 401);
    app.stop().await;
}

#[actix_web::test]
async fn expired_tampered_and_alg_none_tokens_are_refused() {
    let app = TestApp::start().await;
    let token = app.register("frank").await;
    let parts: Vec<&str> = token.split('.').collect();

    // alg: none, with the same claims and no signature.
    let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"none","typ":"JWT"}"#);
    let none = format!("{header}.{}.", parts[1]);
    // Tampered: the claims say someone else, the signature is the old one.
    let mut claims: serde_json::Value =
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[1]).unwrap()).unwrap();
    claims["sub"] = json!(uuid::Uuid::new_v4());
    let tampered = format!(
        "{}.{}.{}",
        parts[0],
        URL_SAFE_NO_PAD.encode(claims.to_string()),
        parts[2]
    );
    for bad in [none.as_str(), tampered.as_str(), "not-a-token", ""] {
        let reply = app.get("/v1/me", bad).await;
        assert_eq!(
            (reply.status.as_u16(), reply.code()),
            (401, "unauthorized"),
            "{bad}"
        );
    }
    assert_eq!(
        app.request("GET", "/v1/me", None, None, &[]).await.status,
        401
    );

    assert_eq!(app.get("/v1/me", &token).await.status, 200);
    app.clock.advance(Duration::minutes(16));
    let expired = app.get("/v1/me", &token).await;
    assert_eq!(expired.status, 401);
    assert!(expired.body["detail"].as_str().unwrap().contains("expired"));
    app.stop().await;
}

#[actix_web::test]
async fn a_guest_account_from_a_nickname() {
    let app = TestApp::start().await;
    let token = app.guest("Grandma Kim").await;
    let me = app.get("/v1/me", &token).await;
    assert_eq!(me.body["guest"], true);
    assert_eq!(me.body["display_name"], "Grandma Kim");
    assert!(me.body["username"].as_str().unwrap().starts_with("guest-"));
    let bad = app
        .request(
            "POST",
            "/v1/guests",
            None,
            Some(json!({"nickname": "  "})),
            &[],
        )
        .await;
    assert_eq!(
        (bad.status.as_u16(), bad.code()),
        (400, "validation_failed")
    );
    app.stop().await;
}
