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
        "/computer",
        "/seek",
        "/settings",
        "/leaderboards/checkers/american",
        "/users/alice",
        "/friends",
        "/forgot-password",
        "/reset-password",
        "/account-deletion",
        "/signin/callback",
        "/identity.js",
        "/account.js",
        "/app.js",
        "/core.js",
        "/pages.js",
        "/social.js",
        "/match.js",
        "/computer.js",
        "/vacation.js",
        "/guests.js",
        "/conditional.js",
        "/seeks.js",
        "/flipchess.js",
        "/boards.js",
        "/games.js",
        "/checkers.js",
        "/janggi.js",
        "/banqi.js",
        "/four_player_chess.js",
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
    // A file the browser has is revalidated with an empty 304.
    let first = app.request("GET", "/match.js", None, None, &[]).await;
    let tag = first.header("etag");
    let again = app
        .request("GET", "/match.js", None, None, &[("if-none-match", &tag)])
        .await;
    assert_eq!(again.status, 304);
    assert_eq!(again.body, serde_json::Value::Null, "no body");
    let unknown = app.request("GET", "/nowhere", None, None, &[]).await;
    assert_eq!(unknown.status, 404, "only the client's own pages");
    let no_file = app.request("GET", "/secrets.js", None, None, &[]).await;
    assert_eq!(no_file.status, 404, "only the client's own files");
    assert_eq!(no_file.body["code"], "not_found");
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

#[actix_web::test]
async fn a_past_position_is_drawn_for_the_caller_only() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let carol = app.register("carol").await;
    let m = app
        .post(
            "/v1/matches",
            &alice,
            json!({"game": "flipchess", "opponents": ["bob"]}),
        )
        .await
        .body;
    let id = m["id"].as_str().unwrap();
    let seq = m["seq"].as_i64().unwrap();
    let path = format!("/v1/matches/{id}/positions/{seq}");
    let seen_by_alice = app.get(&path, &alice).await;
    assert_eq!(seen_by_alice.status, 200, "{}", seen_by_alice.body);
    let seen_by_bob = app.get(&path, &bob).await.body;
    let (a, b) = (&seen_by_alice.body["view"], &seen_by_bob["view"]);
    assert_eq!(a["game"], "flipchess");
    let seat_of = |token_view: &serde_json::Value, mine: &serde_json::Value| {
        mine["my_seats"][0]
            .as_u64()
            .map(|s| token_view["hand_sizes"][s as usize].clone())
    };
    let alice_match = app.get(&format!("/v1/matches/{id}"), &alice).await.body;
    let bob_match = app.get(&format!("/v1/matches/{id}"), &bob).await.body;
    assert_eq!(
        Some(json!(a["hand"].as_array().unwrap().len())),
        seat_of(a, &alice_match)
    );
    assert_eq!(
        Some(json!(b["hand"].as_array().unwrap().len())),
        seat_of(b, &bob_match)
    );
    assert_ne!(a["hand"], b["hand"], "each sees only their own hand");
    let stranger = app.get(&path, &carol).await;
    assert_eq!(stranger.status, 404);
    let beyond = app
        .get(&format!("/v1/matches/{id}/positions/{}", seq + 1), &alice)
        .await;
    // A well-formed seq the match has not reached: 422 (issue #46); so is
    // 0, the seq a waiting match's view names; below it breaks the shape.
    assert_eq!(
        (beyond.status.as_u16(), beyond.code()),
        (422, "validation_failed")
    );
    let zero = app
        .get(&format!("/v1/matches/{id}/positions/0"), &alice)
        .await;
    assert_eq!(zero.status, 422, "{}", zero.body);
    let below = app
        .get(&format!("/v1/matches/{id}/positions/-1"), &alice)
        .await;
    assert_eq!(below.status, 400, "{}", below.body);
    app.stop().await;
}

/// Issue #31: the service worker keeps offline exactly the client's files
/// the service serves (one list, in Rust), under a cache named by their
/// hash: no hand-bumped version to forget.
#[actix_web::test]
async fn the_service_worker_keeps_every_client_file_under_a_hashed_name() {
    let app = TestApp::start().await;
    let sw = app.request("GET", "/sw.js", None, None, &[]).await;
    let text = sw.body.as_str().unwrap().to_owned();
    let name = text
        .split("const SHELL = \"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap()
        .to_owned();
    assert!(
        name.starts_with("posthorn-shell-") && name.len() == "posthorn-shell-".len() + 16,
        "{name}"
    );
    let files = text
        .split("const FILES = [")
        .nth(1)
        .unwrap()
        .split(']')
        .next()
        .unwrap();
    let listed: Vec<&str> = files.split(", ").map(|f| f.trim_matches('"')).collect();
    assert!(
        listed.contains(&"/") && listed.contains(&"/computer.js") && !listed.contains(&"/sw.js")
    );
    for path in &listed {
        let reply = app.request("GET", path, None, None, &[]).await;
        assert_eq!(reply.status, 200, "{path} is kept offline, so it is served");
    }
    app.stop().await;
}

/// Every module a served script imports is served, kept offline and
/// preloaded by the shell: the
/// one list of files in `client.rs` misses none of the game modules the
/// registry (`games.js`) names (issue #31).
#[actix_web::test]
async fn every_module_a_script_imports_is_served_and_kept_offline() {
    let app = TestApp::start().await;
    let sw = app.request("GET", "/sw.js", None, None, &[]).await;
    let offline = sw.body.as_str().unwrap().to_owned();
    let shell = app.request("GET", "/", None, None, &[]).await;
    let shell = shell.body.as_str().unwrap().to_owned();
    let mut seen = std::collections::BTreeSet::new();
    let mut queue = vec!["app.js".to_owned()];
    while let Some(name) = queue.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let reply = app
            .request("GET", &format!("/{name}"), None, None, &[])
            .await;
        assert_eq!(reply.status, 200, "{name} is imported, so it is served");
        assert!(
            offline.contains(&format!("\"/{name}\"")),
            "{name} kept offline"
        );
        let preload = format!("<link rel=\"modulepreload\" href=\"/{name}\">");
        assert!(
            name == "app.js" || shell.contains(&preload),
            "{name} preloaded"
        );
        let text = reply.body.as_str().unwrap_or_default();
        for import in text.split("from \"./").skip(1) {
            queue.push(import.split('"').next().unwrap().to_owned());
        }
    }
    for game in [
        "checkers",
        "flipchess",
        "janggi",
        "banqi",
        "four_player_chess",
    ] {
        assert!(
            seen.contains(&format!("{game}.js")),
            "{game}'s module is reached"
        );
    }
    app.stop().await;
}
