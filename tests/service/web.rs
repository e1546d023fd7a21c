//! The web client's side of the service (issue #18): the links in mail and
//! invitations open the app's shell under a CSP that allows only the
//! service's own files, and an invitation says who invites to what.

use crate::support::TestApp;
use serde_json::json;

#[actix_web::test]
async fn every_page_link_opens_the_shell_under_a_strict_csp() {
    let app = TestApp::start().await;
    for path in [
        "/",
        "/invite/ABCDEF2345",
        "/matches/00000000-0000-0000-0000-000000000000",
        "/new",
        "/settings",
        "/app.js",
        "/boards.js",
        "/app.css",
        "/sw.js",
        "/manifest.webmanifest",
        "/icon.svg",
    ] {
        let reply = app.request("GET", path, None, None, &[]).await;
        assert_eq!(reply.status, 200, "{path}");
        let csp = reply
            .headers
            .get("content-security-policy")
            .unwrap()
            .to_str()
            .unwrap();
        assert!(
            csp.contains("script-src 'self'") && !csp.contains("unsafe-inline"),
            "{path}: {csp}"
        );
        assert!(csp.contains("frame-ancestors 'none'"));
    }
    let unknown = app.request("GET", "/nowhere", None, None, &[]).await;
    assert_eq!(unknown.status, 404, "only the client's own pages");
    app.stop().await;
}

#[actix_web::test]
async fn an_invitation_shows_who_invites_to_which_game_until_it_is_used() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    let m = app
        .post(
            "/v1/matches",
            &alice,
            json!({"game": "janggi", "open_seats": 1, "turn_hours": 24}),
        )
        .await
        .body;
    let code = m["invite"]["code"].as_str().unwrap();
    let preview = app
        .request("GET", &format!("/v1/invites/{code}"), None, None, &[])
        .await;
    assert_eq!(preview.status, 200, "{}", preview.body);
    assert_eq!(preview.body["inviter"]["username"], "alice");
    assert_eq!(
        (
            preview.body["game"].clone(),
            preview.body["turn_hours"].clone()
        ),
        (json!("janggi"), json!(24.0))
    );
    assert_eq!(preview.body["open"], true);
    let bob = app.register("bob").await;
    app.challenge(&format!("/v1/invites/{code}/accept"), &bob, json!({}))
        .await;
    let used = app
        .request("GET", &format!("/v1/invites/{code}"), None, None, &[])
        .await;
    assert_eq!(used.body["open"], false);
    let missing = app
        .request("GET", "/v1/invites/NOSUCHCODE", None, None, &[])
        .await;
    assert_eq!(missing.status, 404);
    app.stop().await;
}
