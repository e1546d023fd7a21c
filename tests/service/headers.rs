//! Issue #30, item 12: every answer of every route carries the security
//! headers — `nosniff` always, the Content-Security-Policy and
//! `X-Frame-Options` on HTML, and a `Cache-Control` that keeps personal
//! answers out of caches — errors included.

use crate::support::{Reply, TestApp};
use serde_json::{json, Value};

const METRICS_TOKEN: &str = "a scraper's token for the header test";

/// Check one answer; `personal`: asked with credentials, or a write.
fn assert_secured(what: &str, reply: &Reply, personal: bool) {
    let header = |name: &str| {
        reply
            .headers
            .get(name)
            .map(|v| v.to_str().unwrap().to_owned())
    };
    assert_eq!(
        header("x-content-type-options").as_deref(),
        Some("nosniff"),
        "{what} ({}): nosniff",
        reply.status
    );
    let html = header("content-type").is_some_and(|t| t.starts_with("text/html"));
    if html {
        let policy = header("content-security-policy")
            .unwrap_or_else(|| panic!("{what}: an HTML page without a policy"));
        for directive in [
            "frame-ancestors 'none'",
            "script-src 'self'",
            "object-src 'none'",
        ] {
            assert!(policy.contains(directive), "{what}: {policy}");
        }
        assert!(
            !policy.contains("unsafe-inline") && !policy.contains("unsafe-eval"),
            "{what}: {policy}"
        );
        assert_eq!(header("x-frame-options").as_deref(), Some("DENY"), "{what}");
    }
    if personal {
        let cache = header("cache-control")
            .unwrap_or_else(|| panic!("{what} ({}): no Cache-Control", reply.status));
        assert!(
            cache.contains("no-store") || cache.contains("private"),
            "{what}: Cache-Control {cache}"
        );
    }
}

/// A real value for each path parameter, so that most routes answer for
/// real rather than 404 (both are checked).
fn fill(template: &str, values: &[(&str, String)]) -> String {
    let mut path = template.to_owned();
    for (name, value) in values {
        path = path.replace(&format!("{{{name}}}"), value);
    }
    assert!(
        !path.contains('{'),
        "no value for a parameter of {template}"
    );
    path
}

#[actix_web::test]
async fn every_route_answers_with_the_security_headers() {
    let app = TestApp::start_with(posthorn::config::Config {
        metrics_token: Some(METRICS_TOKEN.into()),
        ..Default::default()
    })
    .await;
    let alice = app.register("alice").await;
    let _bob = app.register("bob").await;
    let open = app
        .post("/v1/matches", &alice, json!({"game": "checkers"}))
        .await
        .body;
    let (id, code) = (
        open["id"].as_str().unwrap().to_owned(),
        open["invite"]["code"].as_str().unwrap().to_owned(),
    );
    let values = |template: &str| {
        let code = if template.starts_with("/problems/") {
            "not_found".to_owned()
        } else {
            code.clone()
        };
        let id = if template.starts_with("/v1/matches/") {
            id.clone()
        } else {
            uuid::Uuid::new_v4().to_string()
        };
        vec![
            ("id", id),
            ("code", code),
            ("username", "bob".to_owned()),
            ("perf", "checkers/american".to_owned()),
            ("seq", "1".to_owned()),
            ("provider", "google".to_owned()),
            ("game", "flipchess".to_owned()),
            ("step", "colour".to_owned()),
            ("token", "no-such-link".to_owned()),
        ]
    };

    // The pages and files that are not API operations.
    let me: Value = app.get("/v1/me", &alice).await.body;
    let user: uuid::Uuid = me["id"].as_str().unwrap().parse().unwrap();
    let unsubscribe = app.state.keys.sign_unsubscribe(user, "your_turn");
    let pages = [
        "/".to_owned(),
        "/matches/abc".to_owned(),
        "/invite/abc".to_owned(),
        "/shared/abc".to_owned(),
        "/docs".to_owned(),
        "/docs/".to_owned(),
        "/docs/index.html".to_owned(),
        "/docs/swagger-ui.css".to_owned(),
        "/docs/swagger-ui-bundle.js".to_owned(),
        "/docs/swagger-initializer.js".to_owned(),
        "/problems/not_found".to_owned(),
        "/problems/no_such_code".to_owned(),
        format!("/v1/unsubscribe?token={unsubscribe}"),
        "/v1/unsubscribe?token=forged".to_owned(),
        "/app.js".to_owned(),
        "/app.css".to_owned(),
        "/sw.js".to_owned(),
        "/manifest.webmanifest".to_owned(),
        "/icon.svg".to_owned(),
        "/nothing.js".to_owned(),
        "/v1/nothing-here".to_owned(),
        "/v1/me%00".to_owned(),
        "/healthz".to_owned(),
        "/metrics".to_owned(),
    ];
    for page in &pages {
        let reply = app.request("GET", page, None, None, &[]).await;
        assert_secured(&format!("GET {page}"), &reply, false);
    }
    for (page, kind) in [
        ("/", "text/html"),
        ("/docs/", "text/html"),
        ("/problems/not_found", "text/html"),
        ("/v1/unsubscribe?token=", "text/html"),
    ] {
        let path = if page.ends_with("token=") {
            format!("{page}{unsubscribe}")
        } else {
            page.to_owned()
        };
        let reply = app.request("GET", &path, None, None, &[]).await;
        assert_eq!(reply.status, 200, "{page}");
        let content_type = reply.headers.get("content-type").unwrap().to_str().unwrap();
        assert!(content_type.starts_with(kind), "{page}: {content_type}");
    }

    // What the handlers chose themselves is kept: public files their
    // caching, a match's view `private` with its ETag, the unsubscribe
    // page (its address holds a token) and the invitation preview (its
    // code is a secret) no-store.
    let cache = |reply: &Reply| {
        reply
            .headers
            .get("cache-control")
            .map(|v| v.to_str().unwrap().to_owned())
    };
    let script = app.request("GET", "/app.js", None, None, &[]).await;
    assert_eq!(cache(&script).as_deref(), Some("no-cache"));
    let icon = app.request("GET", "/icon.svg", None, None, &[]).await;
    assert_eq!(cache(&icon).as_deref(), Some("max-age=86400"));
    let games = app.request("GET", "/v1/games", None, None, &[]).await;
    assert_eq!(cache(&games), None, "public");
    let path = format!("/v1/unsubscribe?token={unsubscribe}");
    let page = app.request("GET", &path, None, None, &[]).await;
    assert_eq!(cache(&page).as_deref(), Some("no-store"));
    let path = format!("/v1/invites/{code}");
    let preview = app.request("GET", &path, None, None, &[]).await;
    assert_eq!(
        (preview.status.as_u16(), cache(&preview).as_deref()),
        (200, Some("no-store"))
    );
    let view = app.get(&format!("/v1/matches/{id}"), &alice).await;
    assert_eq!(view.status, 200);
    assert_eq!(cache(&view).as_deref(), Some("private, no-cache"));
    let etag = view.header("etag");
    let unchanged = app
        .request(
            "GET",
            &format!("/v1/matches/{id}"),
            Some(&alice),
            None,
            &[("If-None-Match", &etag)],
        )
        .await;
    assert_eq!(unchanged.status, 304);
    assert_eq!(cache(&unchanged).as_deref(), Some("private, no-cache"));
    assert_secured("a 304", &unchanged, true);
    // Answers carrying tokens are kept by no cache.
    let session = app
        .request(
            "POST",
            "/v1/sessions",
            None,
            Some(json!({"login": "bob", "password": "a long password"})),
            &[],
        )
        .await;
    assert_eq!(session.status, 201);
    assert_eq!(cache(&session).as_deref(), Some("no-store"));
    let metrics = app
        .request("GET", "/metrics", Some(METRICS_TOKEN), None, &[])
        .await;
    assert_eq!(metrics.status, 200);
    assert_secured("GET /metrics as the scraper", &metrics, true);

    // Every operation of the served document, signed in and not. Reads
    // first, then writes, and signing out last: every answer is checked,
    // but most should be answered for real.
    let doc = app
        .request("GET", "/v1/openapi.json", None, None, &[])
        .await;
    assert_secured("GET /v1/openapi.json", &doc, false);
    let mut operations: Vec<(String, String)> = Vec::new();
    for (template, item) in doc.body["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            if ["get", "put", "post", "delete", "patch"].contains(&method.as_str()) {
                operations.push((method.to_uppercase(), fill(template, &values(template))));
            }
        }
    }
    assert!(operations.len() > 40, "{operations:?}");
    let rank = |(method, path): &(String, String)| match (method.as_str(), path.as_str()) {
        (_, "/v1/sessions/current") => 2,
        ("GET", _) => 0,
        _ => 1,
    };
    operations.sort_by_key(rank);
    let mut answered = Vec::new();
    for (method, path) in &operations {
        let body = (method != "GET" && method != "DELETE").then(|| json!({}));
        let what = format!("{method} {path}");
        let anonymous = app.request(method, path, None, body.clone(), &[]).await;
        assert_secured(&what, &anonymous, method != "GET");
        let signed_in = app.request(method, path, Some(&alice), body, &[]).await;
        assert_secured(&what, &signed_in, true);
        answered.push(signed_in.status.as_u16());
    }
    assert!(
        answered.iter().filter(|s| **s == 200).count() >= 15,
        "most reads answered for real: {answered:?}"
    );

    app.stop().await;
}
