//! Bad input gets a clear 4xx problem document and changes nothing
//! (issue #3 point 7).

use crate::support::TestApp;
use posthorn::config::Config;
use serde_json::json;

#[actix_web::test]
async fn malformed_requests_get_problem_documents() {
    let app = TestApp::start_with(Config {
        max_body_bytes: 4096,
        ..Config::default()
    })
    .await;
    let token = app.register("alice").await;
    let raw = |body: &'static str, content_type: &'static str| {
        let client = awc::Client::default();
        let url = format!("{}/v1/matches", app.base);
        let token = token.clone();
        async move {
            let mut res = client
                .post(url)
                .insert_header(("Authorization", format!("Bearer {token}")))
                .insert_header(("Content-Type", content_type))
                .send_body(body)
                .await
                .unwrap();
            let status = res.status().as_u16();
            let ct = res
                .headers()
                .get("content-type")
                .unwrap()
                .to_str()
                .unwrap()
                .to_owned();
            let body: serde_json::Value =
                serde_json::from_slice(&res.body().await.unwrap()).unwrap();
            (status, ct, body)
        }
    };
    for (body, content_type, status, code) in [
        ("{not json", "application/json", 400, "validation_failed"),
        ("[1, 2]", "application/json", 400, "validation_failed"),
        (
            r#"{"game": "checkers"}"#,
            "text/plain",
            400,
            "validation_failed",
        ),
        (
            r#"{"game": "checkers", "colour": "red"}"#,
            "application/json",
            400,
            "validation_failed",
        ),
        (
            r#"{"game": 7}"#,
            "application/json",
            400,
            "validation_failed",
        ),
    ] {
        let (got, ct, doc) = raw(body, content_type).await;
        assert_eq!(
            (got, doc["code"].as_str().unwrap()),
            (status, code),
            "{body}: {doc}"
        );
        assert_eq!(ct, "application/problem+json");
        for field in ["type", "title", "status", "detail", "code"] {
            assert!(doc.get(field).is_some(), "{field} in {doc}");
        }
    }
    let big = json!({"game": "checkers", "options": {"position": "x".repeat(10_000)}});
    let reply = app.post("/v1/matches", &token, big).await;
    assert_eq!(
        (reply.status.as_u16(), reply.code()),
        (413, "payload_too_large")
    );

    let reply = app.get("/v1/matches/not-a-uuid", &token).await;
    assert_eq!(reply.status, 404);
    let reply = app.get("/v1/matches?status=lost", &token).await;
    assert_eq!(
        (reply.status.as_u16(), reply.code()),
        (400, "validation_failed")
    );
    let reply = app.get("/v1/matches?colour=red", &token).await;
    assert_eq!(reply.status, 400);
    let reply = app
        .post(
            "/v1/matches",
            &token,
            json!({"game": "checkers", "options": {"position": "B:W33:B1"}}),
        )
        .await;
    // A position is a free string in the document: one the rules cannot
    // read is refused for its meaning (issue #65's fuzzing).
    assert_eq!(
        (reply.status.as_u16(), reply.code()),
        (422, "validation_failed")
    );
    assert!(reply.body["detail"]
        .as_str()
        .unwrap()
        .contains("off the board"));
    let list = app.get("/v1/matches", &token).await.body;
    assert!(
        list["items"].as_array().unwrap().is_empty(),
        "nothing was created"
    );
    app.stop().await;
}

#[actix_web::test]
async fn bad_account_input_is_refused_clearly() {
    let app = TestApp::start().await;
    for body in [
        json!({"username": "x", "password": "a long password"}),
        json!({"username": "valid_name", "password": "short"}),
        json!({"username": "valid_name", "password": "a long password", "email": "nope"}),
        json!({"username": "guest-me", "password": "a long password"}),
        json!({"username": "valid_name", "password": "a long password", "time_zone": "Mars/Base One"}),
        json!({"username": "valid_name", "password": "a long password", "admin": true}),
    ] {
        let reply = app
            .request("POST", "/v1/accounts", None, Some(body.clone()), &[])
            .await;
        assert_eq!(
            (reply.status.as_u16(), reply.code()),
            (400, "validation_failed"),
            "{body}"
        );
    }
    app.stop().await;
}

/// Issue #12: a problem's `type` is a page this service serves, saying what
/// the code means; an unknown code is 404.
#[actix_web::test]
async fn a_problem_type_names_a_page_this_service_serves() {
    let app = TestApp::start().await;
    let token = app.register("alice").await;
    let missing = app
        .get("/v1/matches/00000000-0000-4000-8000-000000000000", &token)
        .await;
    assert_eq!(missing.body["type"], "/problems/not_found");
    for code in ["not_found", "stale_seq", "illegal_action", "invite_expired"] {
        let page = app
            .request("GET", &format!("/problems/{code}"), None, None, &[])
            .await;
        assert_eq!(page.status, 200, "{code}");
        let text = page.body.as_str().unwrap();
        assert!(text.contains(code) && text.contains("<p>"), "{text}");
    }
    let unknown = app
        .request("GET", "/problems/teapot", None, None, &[])
        .await;
    assert_eq!(unknown.status, 404);
    app.stop().await;
}

/// Issue #30 item 15: a body is read as the document describes it. serde
/// also fills a struct from an array of its fields (`PATCH /v1/me` took
/// `[null, null]` with 200, the settings `[]`); and JSON Schema counts
/// `1.0` as an integer, which serde alone refused.
#[actix_web::test]
async fn requests_the_document_refuses_are_refused() {
    let app = TestApp::start().await;
    let token = app.register("alice").await;
    let send = |method: &'static str, path: &'static str, body: serde_json::Value| {
        app.request(method, path, Some(&token), Some(body), &[])
    };
    for (method, path, body) in [
        ("PATCH", "/v1/me", json!([null, null])),
        ("PATCH", "/v1/me", json!(["ko", "Asia/Seoul"])),
        ("PATCH", "/v1/me", json!({"time_zone": "v"})),
        ("PUT", "/v1/me/notification-settings", json!([])),
        (
            "PUT",
            "/v1/me/notification-settings",
            json!({"quiet_hours": ["22:00", "07:00"]}),
        ),
        (
            "POST",
            "/v1/seeks",
            json!({"game": "checkers", "rating_range": [0, 10]}),
        ),
        (
            "POST",
            "/v1/sessions",
            json!({"login": "Z\u{0}", "password": "x"}),
        ),
    ] {
        let reply = send(method, path, body.clone()).await;
        assert_eq!(
            (reply.status.as_u16(), reply.code()),
            (400, "validation_failed"),
            "{method} {path} {body}"
        );
    }
    let keys = json!({"p256dh": format!("B{}", "A".repeat(86)), "auth": "A".repeat(22)});
    let push = |expiration: serde_json::Value| json!({"endpoint": "https://push.example/x", "keys": keys, "expirationTime": expiration});
    let wrong = send("POST", "/v1/push-subscriptions", push(json!([null, null]))).await;
    assert_eq!(wrong.status, 400, "{}", wrong.body);
    let right = send("POST", "/v1/push-subscriptions", push(json!(1.8e12))).await;
    assert_eq!(right.status, 201, "{}", right.body);
    let me = app.get("/v1/me", &token).await.body;
    assert_eq!(
        (me["locale"].as_str(), me["time_zone"].as_str()),
        (Some("en"), Some("UTC"))
    );

    let created = send(
        "POST",
        "/v1/matches",
        json!({"game": "checkers", "open_seats": 1.0}),
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.body);
    let seek = send(
        "POST",
        "/v1/seeks",
        json!({"game": "checkers", "players": 2.0}),
    )
    .await;
    assert_eq!(seek.status, 201, "{}", seek.body);
    let half = send(
        "POST",
        "/v1/seeks",
        json!({"game": "janggi", "players": 2.5}),
    )
    .await;
    assert_eq!(half.status, 400, "{}", half.body);
    app.stop().await;
}

/// Issue #46, item 8: requests the document allows but the service
/// refuses for what they mean answer 422, not 400; one's own match holds
/// no challenge to accept (409: it exists).
#[actix_web::test]
async fn refusals_of_meaning_are_422_and_ones_own_challenge_409() {
    let app = TestApp::start().await;
    let ann = app.register("ann").await;
    app.register("bob").await;
    let seek = app
        .post(
            "/v1/seeks",
            &ann,
            json!({"game": "checkers", "rating_range": {"min": 1500, "max": 1200}}),
        )
        .await;
    assert_eq!(
        (seek.status.as_u16(), seek.code()),
        (422, "validation_failed"),
        "{}",
        seek.body
    );
    let tournament = app
        .post(
            "/v1/tournaments",
            &ann,
            json!({"name": "Cup", "format": "round_robin", "game": "checkers", "options": {"no_such_option": 1}}),
        )
        .await;
    assert_eq!(tournament.status, 422, "{}", tournament.body);
    let past = (posthorn::clock::Clock::now(&app.clock) - chrono::Duration::hours(1)).to_rfc3339();
    let early = app
        .post(
            "/v1/tournaments",
            &ann,
            json!({"name": "Cup", "format": "round_robin", "game": "checkers", "starts_at": past}),
        )
        .await;
    assert_eq!(early.status, 422, "{}", early.body);
    // A NUL in a string breaks the document's pattern (400); in a key of a
    // free-form value nothing in the document can say so (422).
    let m = app
        .post(
            "/v1/matches",
            &ann,
            json!({"game": "checkers", "opponents": ["bob"]}),
        )
        .await;
    let id = m.body["id"].as_str().unwrap();
    let path = format!("/v1/matches/{id}/actions");
    let in_key = app
        .post(
            &path,
            &ann,
            json!({"seq": 0, "action": {"type": "move", "a\u{0}": 1}}),
        )
        .await;
    assert_eq!(in_key.status, 422, "{}", in_key.body);
    let in_text = app
        .post(&path, &ann, json!({"seq": 0, "action": {"type": "a\u{0}"}}))
        .await;
    assert_eq!(in_text.status, 400, "{}", in_text.body);
    let own = app
        .post(&format!("/v1/matches/{id}/accept"), &ann, json!({}))
        .await;
    assert_eq!(
        (own.status.as_u16(), own.code()),
        (409, "conflict"),
        "{}",
        own.body
    );
    let stranger = app.register("cyd").await;
    let theirs = app
        .post(&format!("/v1/matches/{id}/accept"), &stranger, json!({}))
        .await;
    assert_eq!(theirs.status, 404, "{}", theirs.body);
    app.stop().await;
}
