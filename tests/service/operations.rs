//! Operations endpoints and the OpenAPI document (issue #3 point 8).

use crate::support::TestApp;

/// The operator's scraper token (`POSTHORN_METRICS_TOKEN`).
const METRICS_TOKEN: &str = "the operator's scraper token";

fn with_metrics() -> posthorn::config::Config {
    posthorn::config::Config {
        metrics_token: Some(METRICS_TOKEN.into()),
        ..Default::default()
    }
}

#[actix_web::test]
async fn health_readiness_and_metrics() {
    let app = TestApp::start_with(with_metrics()).await;
    assert_eq!(
        app.request("GET", "/healthz", None, None, &[]).await.status,
        200
    );
    let ready = app.request("GET", "/readyz", None, None, &[]).await;
    assert_eq!(ready.body["status"], "ready");
    let reply = app
        .request(
            "GET",
            "/v1/games",
            None,
            None,
            &[("X-Request-Id", "abc-123")],
        )
        .await;
    assert_eq!(reply.headers.get("x-request-id").unwrap(), "abc-123");
    let metrics = app.get("/metrics", METRICS_TOKEN).await;
    let text = metrics.body.as_str().unwrap();
    assert!(
        text.contains("posthorn_http_responses_total{class=\"2xx\"}"),
        "{text}"
    );
    assert!(text.contains("posthorn_http_request_duration_seconds_count"));
    app.stop().await;
}

fn counter(text: &str, name: &str) -> u64 {
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.trim().parse().ok())
        .unwrap_or_else(|| panic!("{name} missing: {text}"))
}

/// Issue #12: the appended-events counter counts (it stayed at 0 before).
#[actix_web::test]
async fn the_events_appended_metric_counts_every_appended_event() {
    let app = TestApp::start_with(with_metrics()).await;
    let alice = app.register("alice").await;
    let metrics = || app.get("/metrics", METRICS_TOKEN);
    let name = "posthorn_events_appended_total";
    let before = counter(metrics().await.body.as_str().unwrap(), name);
    let created = app
        .post(
            "/v1/matches",
            &alice,
            serde_json::json!({"game": "checkers"}),
        )
        .await;
    let id = created.body["id"].as_str().unwrap().to_owned();
    let code = created.body["invite"]["code"].as_str().unwrap().to_owned();
    let bob = app.guest("bob").await;
    app.post(
        &format!("/v1/invites/{code}/accept"),
        &bob,
        serde_json::json!(null),
    )
    .await;
    let seq = app.get(&format!("/v1/matches/{id}"), &alice).await.body["seq"]
        .as_u64()
        .unwrap();
    let after = counter(metrics().await.body.as_str().unwrap(), name);
    // Other tests in this process append too: at least this match's events.
    assert!(
        after - before >= seq,
        "{before} → {after}, this match alone {seq}"
    );
    app.stop().await;
}

/// Issue #30, item 13: the metrics are the operator's. Without a token
/// configured nobody reads them; with one, only its bearer — everyone
/// else gets the 404 of a path that does not exist.
#[actix_web::test]
async fn metrics_are_served_only_to_the_configured_token() {
    let unconfigured = TestApp::start().await;
    let alice = unconfigured.register("alice").await;
    for token in [None, Some(alice.as_str()), Some(""), Some(METRICS_TOKEN)] {
        let reply = unconfigured
            .request("GET", "/metrics", token, None, &[])
            .await;
        assert_eq!(
            (reply.status.as_u16(), reply.code()),
            (404, "not_found"),
            "{token:?}"
        );
    }
    unconfigured.stop().await;

    let app = TestApp::start_with(with_metrics()).await;
    let alice = app.register("alice").await;
    let unknown = app.request("GET", "/no-such-path", None, None, &[]).await;
    let wrong = format!("{METRICS_TOKEN}!");
    let prefix = &METRICS_TOKEN[..METRICS_TOKEN.len() - 1];
    for token in [
        None,
        Some(alice.as_str()),
        Some(wrong.as_str()),
        Some(prefix),
    ] {
        let reply = app.request("GET", "/metrics", token, None, &[]).await;
        assert_eq!(reply.status, 404, "{token:?}");
        assert_eq!(reply.body["code"], unknown.body["code"], "{token:?}");
        assert!(!reply.body.to_string().contains("posthorn_"), "{token:?}");
    }
    let basic = app
        .request(
            "GET",
            "/metrics",
            None,
            None,
            &[("Authorization", &format!("Basic {METRICS_TOKEN}"))],
        )
        .await;
    assert_eq!(basic.status, 404);
    let scraped = app.get("/metrics", METRICS_TOKEN).await;
    assert_eq!(scraped.status, 200);
    assert!(scraped
        .headers
        .get("content-type")
        .unwrap()
        .to_str()
        .unwrap()
        .starts_with("text/plain"));
    assert!(scraped
        .body
        .as_str()
        .unwrap()
        .contains("posthorn_http_responses_total"));
    app.stop().await;
}

#[actix_web::test]
async fn the_openapi_document_is_valid_and_names_every_route() {
    let app = TestApp::start().await;
    let doc = app
        .request("GET", "/v1/openapi.json", None, None, &[])
        .await
        .body;
    assert!(doc["openapi"].as_str().unwrap().starts_with("3."));
    assert!(doc["info"]["title"].is_string());
    let routes = [
        ("get", "/healthz"),
        ("get", "/readyz"),
        ("get", "/metrics"),
        ("get", "/problems/{code}"),
        ("get", "/v1/games"),
        ("post", "/v1/accounts"),
        ("post", "/v1/sessions"),
        ("post", "/v1/sessions/refresh"),
        ("delete", "/v1/sessions/current"),
        ("post", "/v1/guests"),
        ("get", "/v1/me"),
        ("patch", "/v1/me"),
        ("get", "/v1/me/summary"),
        ("post", "/v1/matches"),
        ("get", "/v1/matches"),
        ("post", "/v1/invites/{code}/accept"),
        ("get", "/v1/matches/{id}"),
        ("get", "/v1/matches/{id}/legal-actions"),
        ("post", "/v1/matches/{id}/actions"),
        ("get", "/v1/matches/{id}/events"),
        ("get", "/v1/me/notification-settings"),
        ("put", "/v1/me/notification-settings"),
        ("post", "/v1/unsubscribe"),
        ("get", "/v1/unsubscribe"),
        ("get", "/v1/push/vapid-public-key"),
        ("post", "/v1/push-subscriptions"),
        ("delete", "/v1/push-subscriptions/{id}"),
        ("post", "/v1/matches/{id}/accept"),
        ("post", "/v1/matches/{id}/decline"),
        ("post", "/v1/matches/{id}/cancel"),
        ("get", "/v1/friends"),
        ("post", "/v1/friends/requests"),
        ("post", "/v1/friends/requests/{username}/accept"),
        ("post", "/v1/friends/requests/{username}/decline"),
        ("delete", "/v1/friends/{username}"),
        ("get", "/v1/blocks"),
        ("post", "/v1/blocks"),
        ("delete", "/v1/blocks/{username}"),
        ("post", "/v1/seeks"),
        ("get", "/v1/seeks"),
        ("post", "/v1/seeks/{id}/accept"),
        ("delete", "/v1/seeks/{id}"),
        ("get", "/v1/me/challenge-settings"),
        ("put", "/v1/me/challenge-settings"),
        ("post", "/v1/matches/{id}/rematch"),
        ("get", "/v1/leaderboards/{perf}"),
        ("get", "/v1/users/{username}"),
        ("get", "/v1/users/{username}/head-to-head"),
        ("get", "/v1/invites/{code}"),
        ("get", "/v1/matches/{id}/positions/{seq}"),
        ("delete", "/v1/sessions"),
        ("post", "/v1/me/password"),
        ("post", "/v1/email-verifications"),
        ("get", "/v1/bots"),
        ("post", "/v1/matches/{id}/takeback"),
        ("post", "/v1/matches/{id}/takeback/accept"),
        ("post", "/v1/matches/{id}/takeback/decline"),
        ("get", "/v1/me/vacation"),
        ("post", "/v1/me/vacation"),
        ("delete", "/v1/me/vacation"),
        ("put", "/v1/me/vacation/auto"),
        ("get", "/v1/matches/{id}/conditional-moves"),
        ("put", "/v1/matches/{id}/conditional-moves"),
        ("delete", "/v1/matches/{id}/conditional-moves"),
        ("get", "/v1/matches/{id}/conditional-moves/options"),
        ("post", "/v1/password-resets"),
        ("post", "/v1/password-resets/complete"),
        ("post", "/v1/me/registration"),
        ("get", "/v1/me/sessions"),
        ("delete", "/v1/me/sessions/{id}"),
        ("get", "/v1/sign-in-providers"),
        ("post", "/v1/sessions/nonce"),
        ("post", "/v1/sessions/identity"),
        ("get", "/v1/me/identities"),
        ("post", "/v1/me/identities"),
        ("delete", "/v1/me/identities/{provider}"),
        ("post", "/v1/me/deletion"),
        ("get", "/v1/me/export"),
        ("get", "/v1/matches/{id}/live"),
        ("get", "/v1/matches/{id}/messages"),
        ("post", "/v1/matches/{id}/messages"),
        ("post", "/v1/matches/{id}/messages/read"),
        ("put", "/v1/matches/{id}/mute"),
        ("get", "/v1/matches/{id}/note"),
        ("put", "/v1/matches/{id}/note"),
        ("get", "/v1/me/talk-settings"),
        ("put", "/v1/me/talk-settings"),
        ("get", "/v1/puzzles/daily"),
        ("get", "/v1/puzzles/next"),
        ("get", "/v1/puzzles/{id}"),
        ("post", "/v1/puzzles/{id}/moves"),
        ("post", "/v1/puzzles/{id}/give-up"),
        ("get", "/v1/me/puzzles"),
        ("get", "/v1/matches/{id}/record"),
        ("get", "/v1/lessons/{game}"),
        ("get", "/v1/lessons/{game}/{step}"),
        ("post", "/v1/lessons/{game}/{step}/moves"),
        ("post", "/v1/email-undos"),
        ("post", "/v1/matches/{id}/analysis"),
        ("get", "/v1/matches/{id}/analysis"),
        ("post", "/v1/matches/{id}/share"),
        ("delete", "/v1/matches/{id}/share"),
        ("get", "/v1/shared/{token}"),
        ("get", "/v1/shared/{token}/positions/{seq}"),
        ("get", "/v1/matches/{id}/picture"),
        ("get", "/v1/shared/{token}/picture"),
        ("get", "/v1/shared/{token}/game.gif"),
        ("get", "/v1/invites/{code}/picture"),
        ("get", "/v1/me/coins"),
        ("get", "/v1/me/looks"),
        ("put", "/v1/me/looks"),
        ("post", "/v1/me/looks/purchases"),
    ];
    let paths = doc["paths"].as_object().unwrap();
    for (method, path) in routes {
        let op = &paths[path][method];
        assert!(op.is_object(), "{method} {path} missing");
        assert!(
            op["responses"].as_object().is_some_and(|r| !r.is_empty()),
            "{method} {path} responses"
        );
    }
    assert_eq!(
        paths.len(),
        112,
        "every documented path is a real route: {:?}",
        paths.keys().collect::<Vec<_>>()
    );
    // Every schema a path refers to exists.
    let text = doc.to_string();
    let schemas = doc["components"]["schemas"].as_object().unwrap();
    for reference in text.split("\"$ref\":\"#/components/schemas/").skip(1) {
        let name = reference.split('"').next().unwrap();
        assert!(schemas.contains_key(name), "dangling $ref {name}");
    }
    // Every failure a route can meet is documented as a problem document:
    // 401 where a token is needed, 400 and 413 where a body is read.
    for (path, item) in paths {
        for (method, op) in item.as_object().unwrap() {
            let responses = op["responses"].as_object().unwrap();
            let needs_token = op["security"].as_array().is_some_and(|s| !s.is_empty());
            let mut shared = vec!["default"];
            if needs_token {
                shared.push("401");
            }
            if op.get("requestBody").is_some() {
                shared.extend(["400", "413"]);
            }
            for status in shared {
                assert!(responses.contains_key(status), "{method} {path}: {status}");
            }
            for (status, response) in responses {
                if status == "default" || status.as_str() >= "400" {
                    assert_eq!(
                        response["content"]["application/problem+json"]["schema"]["$ref"],
                        "#/components/schemas/Problem",
                        "{method} {path} {status}"
                    );
                }
            }
        }
    }
    let docs = app.request("GET", "/docs/", None, None, &[]).await;
    assert_eq!(docs.status, 200);
    assert!(
        docs.body.as_str().unwrap().contains("swagger"),
        "the docs page is served locally"
    );
    app.stop().await;
}

#[actix_web::test]
async fn an_exhausted_database_pool_answers_503_not_a_hang() {
    let app = TestApp::start_with(posthorn::config::Config {
        pool_size: 1,
        ..Default::default()
    })
    .await;
    let token = app.register("alice").await;
    // Hold the only connection while a request needs one.
    // Hold the only connection while requests need one: the first waits
    // for it, the second in the queue behind the first; both give up.
    let held = app.state.pool.get().unwrap();
    let started = std::time::Instant::now();
    let (first, queued) =
        futures_util::future::join(app.get("/v1/me", &token), app.get("/v1/me", &token)).await;
    for reply in [first, queued] {
        assert_eq!((reply.status.as_u16(), reply.code()), (503, "unavailable"));
    }
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    drop(held);
    assert_eq!(app.get("/v1/me", &token).await.status, 200);
    app.stop().await;
}

#[actix_web::test]
async fn a_known_path_asked_with_another_method_answers_405_with_allow() {
    let app = TestApp::start().await;
    let token = app.register("alice").await;
    let cases = [
        ("DELETE", "/v1/games".to_owned(), "GET"),
        ("TRACE", "/v1/matches".to_owned(), "GET, POST"),
        (
            "PUT",
            format!("/v1/matches/{}", uuid::Uuid::new_v4()),
            "GET",
        ),
        ("GET", "/v1/sessions/current".to_owned(), "DELETE"),
    ];
    for (method, path, allow) in cases {
        let reply = app.request(method, &path, Some(&token), None, &[]).await;
        assert_eq!(reply.status, 405, "{method} {path}");
        assert_eq!(reply.code(), "method_not_allowed");
        assert_eq!(
            reply.headers.get("allow").unwrap(),
            allow,
            "{method} {path}"
        );
    }
    let unknown = app
        .request("GET", "/v1/nothing-here", None, None, &[])
        .await;
    assert_eq!(
        (unknown.status.as_u16(), unknown.code()),
        (404, "not_found")
    );
    app.stop().await;
}
