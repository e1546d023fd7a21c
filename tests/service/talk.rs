//! Table talk (issue #50; docs/decisions/table-talk.md): messages between
//! the players of a match and private notes, over HTTP against the real
//! database.

use crate::support::{a_move, TestApp};
use serde_json::{json, Value};

/// A started checkers match of alice and bob: its id and their tokens,
/// the one on move first.
pub(crate) async fn table(app: &TestApp) -> (String, String, String) {
    let (alice, bob) = (app.register("alice").await, app.register("bob").await);
    let m = app
        .post(
            "/v1/matches",
            &alice,
            json!({"game": "checkers", "opponents": ["bob"]}),
        )
        .await
        .body;
    let id = m["id"].as_str().unwrap().to_owned();
    (id, alice, bob)
}

async fn post_message(app: &TestApp, id: &str, token: &str, body: Value) -> crate::support::Reply {
    let path = format!("/v1/matches/{id}/messages");
    app.request("POST", &path, Some(token), Some(body), &[])
        .await
}

async fn say(app: &TestApp, id: &str, token: &str, text: &str) -> crate::support::Reply {
    post_message(app, id, token, json!({ "text": text })).await
}

/// The texts `token` reads at the table, oldest first.
async fn heard(app: &TestApp, id: &str, token: &str) -> Vec<String> {
    let page = app.get(&format!("/v1/matches/{id}/messages"), token).await;
    assert_eq!(page.status, 200, "{}", page.body);
    (page.body["items"].as_array().unwrap().iter())
        .map(|m| m["text"].as_str().unwrap_or("(deleted)").to_owned())
        .collect()
}

#[actix_web::test]
async fn only_the_players_read_and_write_and_a_message_moves_no_seq() {
    let app = TestApp::start().await;
    let (id, alice, bob) = table(&app).await;
    let carol = app.register("carol").await;
    let before = app.get(&format!("/v1/matches/{id}"), &alice).await.body["seq"].clone();
    let said = say(&app, &id, &alice, "  잘 부탁해요! good luck  ").await;
    assert_eq!(said.status, 201, "{}", said.body);
    assert_eq!(said.body["text"], "잘 부탁해요! good luck", "trimmed");
    assert_eq!(said.body["at_seq"], before, "written at the match's seq");
    let keys: Vec<&str> = said
        .body
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.as_str())
        .collect();
    assert_eq!(keys, ["at", "at_seq", "author", "id", "team", "text"]);
    assert_eq!(heard(&app, &id, &bob).await, ["잘 부탁해요! good luck"]);
    // A stranger: as if the match did not exist, for reading and writing.
    let path = format!("/v1/matches/{id}/messages");
    assert_eq!(app.get(&path, &carol).await.status, 404);
    assert_eq!(say(&app, &id, &carol, "hi").await.status, 404);
    let view = app.get(&format!("/v1/matches/{id}"), &alice).await.body;
    assert_eq!(view["seq"], before, "a message is no event");
    // A move posted with the seq from before the message lands.
    let mover = if app.legal_actions(&alice, &id).await.iter().any(a_move) {
        &alice
    } else {
        &bob
    };
    let action = app
        .legal_actions(mover, &id)
        .await
        .into_iter()
        .find(a_move)
        .unwrap();
    let body = json!({ "seq": before, "action": action });
    let moved = app
        .request(
            "POST",
            &format!("/v1/matches/{id}/actions"),
            Some(mover),
            Some(body),
            &[],
        )
        .await;
    assert_eq!(moved.status, 200, "{}", moved.body);
    app.stop().await;
}

#[actix_web::test]
async fn unread_counts_follow_the_reader_and_a_muted_table_counts_nothing() {
    let app = TestApp::start().await;
    let (id, alice, bob) = table(&app).await;
    for text in ["one", "two", "three"] {
        assert_eq!(say(&app, &id, &alice, text).await.status, 201);
    }
    let unread = |token: String| {
        let app = &app;
        async move { app.get("/v1/me/summary", &token).await.body["unread_messages"].clone() }
    };
    assert_eq!(unread(bob.clone()).await, 3);
    assert_eq!(unread(alice.clone()).await, 0, "my own messages are read");
    let listed = app.get("/v1/matches", &bob).await.body;
    assert_eq!(listed["items"][0]["unread_messages"], 3);
    assert_eq!(
        app.get(&format!("/v1/matches/{id}"), &bob).await.body["unread_messages"],
        3
    );
    let read = app
        .request(
            "POST",
            &format!("/v1/matches/{id}/messages/read"),
            Some(&bob),
            None,
            &[],
        )
        .await;
    assert_eq!(read.status, 204);
    assert_eq!(unread(bob.clone()).await, 0);
    let muted = app
        .request(
            "PUT",
            &format!("/v1/matches/{id}/mute"),
            Some(&bob),
            Some(json!({"muted": true})),
            &[],
        )
        .await;
    assert_eq!(muted.body, json!({"muted": true}));
    assert_eq!(say(&app, &id, &alice, "four").await.status, 201);
    assert_eq!(unread(bob.clone()).await, 0, "a muted table counts nothing");
    let page = app
        .get(&format!("/v1/matches/{id}/messages"), &bob)
        .await
        .body;
    assert_eq!(
        (
            page["muted"].clone(),
            page["items"].as_array().unwrap().len()
        ),
        (json!(true), 4),
        "still there to read"
    );
    app.stop().await;
}

#[actix_web::test]
async fn a_block_hides_the_talk_both_ways_past_messages_too() {
    let app = TestApp::start().await;
    let (id, alice, bob) = table(&app).await;
    assert_eq!(say(&app, &id, &alice, "from alice").await.status, 201);
    assert_eq!(say(&app, &id, &bob, "from bob").await.status, 201);
    assert_eq!(heard(&app, &id, &alice).await, ["from alice", "from bob"]);
    assert_eq!(
        app.post("/v1/blocks", &bob, json!({"username": "alice"}))
            .await
            .status,
        201
    );
    assert_eq!(heard(&app, &id, &alice).await, ["from alice"]);
    assert_eq!(heard(&app, &id, &bob).await, ["from bob"]);
    assert_eq!(say(&app, &id, &alice, "after").await.status, 201);
    assert_eq!(heard(&app, &id, &bob).await, ["from bob"]);
    let summary = app.get("/v1/me/summary", &bob).await.body;
    assert_eq!(
        summary["unread_messages"], 1,
        "only what came before the block"
    );
    app.stop().await;
}

#[actix_web::test]
async fn friends_only_and_nobody_hold() {
    let app = TestApp::start().await;
    let (id, alice, bob) = table(&app).await;
    let settings = |token: &str, who: &str| {
        let body = json!({ "who": who });
        let token = token.to_owned();
        let app = &app;
        async move {
            app.request("PUT", "/v1/me/talk-settings", Some(&token), Some(body), &[])
                .await
        }
    };
    assert_eq!(
        settings(&bob, "friends").await.body,
        json!({"who": "friends"})
    );
    assert_eq!(say(&app, &id, &alice, "not a friend yet").await.status, 201);
    assert_eq!(heard(&app, &id, &bob).await, Vec::<String>::new());
    assert_eq!(
        app.get("/v1/me/summary", &bob).await.body["unread_messages"],
        0
    );
    app.post("/v1/friends/requests", &alice, json!({"username": "bob"}))
        .await;
    app.post("/v1/friends/requests", &bob, json!({"username": "alice"}))
        .await;
    assert_eq!(
        heard(&app, &id, &bob).await,
        ["not a friend yet"],
        "friends now"
    );
    assert_eq!(settings(&bob, "nobody").await.status, 200);
    assert_eq!(heard(&app, &id, &bob).await, Vec::<String>::new());
    let refused = say(&app, &id, &bob, "hello").await;
    assert_eq!(
        (refused.status.as_u16(), refused.code()),
        (403, "forbidden")
    );
    let page = app
        .get(&format!("/v1/matches/{id}/messages"), &bob)
        .await
        .body;
    assert_eq!(page["may_write"], false);
    let bad = settings(&bob, "strangers").await;
    assert_eq!(bad.status, 400);
    app.stop().await;
}

#[actix_web::test]
async fn bad_text_is_refused_with_a_problem_document_and_changes_nothing() {
    let app = TestApp::start().await;
    let (id, alice, bob) = table(&app).await;
    let long = "가".repeat(501);
    for bad in [
        "",
        "   ",
        "nul\u{0}here",
        "two\nlines",
        "bidi \u{202E}olleh",
        "isolate \u{2066}x\u{2069}",
        long.as_str(),
    ] {
        let reply = say(&app, &id, &alice, bad).await;
        // Too long breaks the documented form (400); the rest have the
        // form and are refused for what they say (422).
        let status = if bad.chars().count() > 500 { 400 } else { 422 };
        let status = if bad.is_empty() || bad.contains('\u{0}') {
            400
        } else {
            status
        };
        assert_eq!(reply.status, status, "{bad:?}: {}", reply.body);
        assert_eq!(
            (reply.body["field"].as_str(), reply.body["rule"].as_str()),
            (Some("text"), Some("form"))
        );
    }
    let malformed = app
        .request(
            "POST",
            &format!("/v1/matches/{id}/messages"),
            Some(&alice),
            Some(json!({"text": 5})),
            &[],
        )
        .await;
    assert_eq!(malformed.status, 400);
    assert_eq!(heard(&app, &id, &bob).await, Vec::<String>::new());
    app.stop().await;
}

#[actix_web::test]
async fn twenty_messages_at_once_meet_the_limit_and_a_retry_is_one_message() {
    let app = TestApp::start().await;
    let (id, alice, bob) = table(&app).await;
    let path = format!("/v1/matches/{id}/messages");
    let first = app
        .request(
            "POST",
            &path,
            Some(&alice),
            Some(json!({"text": "once"})),
            &[("Idempotency-Key", "k-1")],
        )
        .await;
    let again = app
        .request(
            "POST",
            &path,
            Some(&alice),
            Some(json!({"text": "once"})),
            &[("Idempotency-Key", "k-1")],
        )
        .await;
    assert_eq!((first.status.as_u16(), again.status.as_u16()), (201, 201));
    assert_eq!(first.body["id"], again.body["id"], "the first answer again");
    assert_eq!(heard(&app, &id, &bob).await, ["once"]);
    let texts: Vec<String> = (0..20).map(|n| format!("m{n}")).collect();
    let sent = futures_util::future::join_all(texts.iter().map(|t| say(&app, &id, &bob, t))).await;
    let statuses: Vec<u16> = sent.iter().map(|r| r.status.as_u16()).collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == 201).count(),
        10,
        "{statuses:?}"
    );
    assert_eq!(
        statuses.iter().filter(|s| **s == 429).count(),
        10,
        "{statuses:?}"
    );
    assert!(sent
        .iter()
        .filter(|r| r.status == 429)
        .all(|r| r.code() == "rate_limited"));
    assert_eq!(heard(&app, &id, &alice).await.len(), 11);
    app.stop().await;
}

#[actix_web::test]
async fn a_team_channel_is_read_by_the_team_alone() {
    let app = TestApp::start().await;
    let mut tokens = Vec::new();
    for name in ["ann", "ben", "cat", "dan"] {
        tokens.push(app.register(name).await);
    }
    let m = app
        .post("/v1/matches", &tokens[0], json!({"game": "four_player_chess", "mode": "teams", "opponents": ["ben", "cat", "dan"]}))
        .await
        .body;
    let id = m["id"].as_str().unwrap().to_owned();
    let team = post_message(
        &app,
        &id,
        &tokens[0],
        json!({"text": "push left", "team": true}),
    )
    .await;
    assert_eq!(team.status, 201, "{}", team.body);
    assert_eq!(say(&app, &id, &tokens[1], "hello all").await.status, 201);
    let mut readers = 0;
    for token in &tokens[1..] {
        let texts = heard(&app, &id, token).await;
        assert!(texts.contains(&"hello all".to_owned()));
        readers += usize::from(texts.contains(&"push left".to_owned()));
    }
    assert_eq!(readers, 1, "the partner alone");
    // Counted unread for those who read it: ann's message for her partner,
    // ben's for the two others.
    for (n, token) in tokens.iter().enumerate().skip(1) {
        let partner = heard(&app, &id, token)
            .await
            .contains(&"push left".to_owned());
        let expected = i64::from(partner) + i64::from(n != 1);
        let summary = app.get("/v1/me/summary", token).await.body;
        assert_eq!(summary["unread_messages"], expected, "seat of token {n}");
    }
    // Free-for-all has no team channel.
    let ffa = app
        .post(
            "/v1/matches",
            &tokens[0],
            json!({"game": "four_player_chess", "mode": "ffa", "opponents": ["ben", "cat", "dan"]}),
        )
        .await
        .body;
    let ffa = ffa["id"].as_str().unwrap();
    let refused = post_message(&app, ffa, &tokens[0], json!({"text": "x", "team": true})).await;
    assert_eq!(refused.status, 422, "{}", refused.body);
    app.stop().await;
}

#[actix_web::test]
async fn a_note_is_its_authors_alone_kept_exported_and_erased_with_the_account() {
    let app = TestApp::start().await;
    let (id, alice, bob) = table(&app).await;
    let path = format!("/v1/matches/{id}/note");
    let put = |token: &str, text: &str| {
        let (body, token, path, app) = (json!({ "text": text }), token.to_owned(), &path, &app);
        async move {
            app.request("PUT", path, Some(&token), Some(body), &[])
                .await
        }
    };
    let kept = put(&alice, "  their left flank is weak\nwatch 22  ").await;
    assert_eq!(kept.status, 200, "{}", kept.body);
    assert_eq!(kept.body["text"], "their left flank is weak\nwatch 22");
    assert_eq!(
        app.get(&path, &alice).await.body["text"],
        "their left flank is weak\nwatch 22"
    );
    assert_eq!(
        app.get(&path, &bob).await.body["text"],
        "",
        "bob has his own, empty"
    );
    let carol = app.register("carol").await;
    assert_eq!(app.get(&path, &carol).await.status, 404);
    assert_eq!(say(&app, &id, &alice, "good game").await.status, 201);
    let export = app.get("/v1/me/export", &alice).await;
    assert_eq!(export.status, 200, "{}", export.body);
    let exported: &Value = &export.body["matches"][0];
    assert_eq!(exported["note"], "their left flank is weak\nwatch 22");
    assert_eq!(exported["my_messages"][0]["text"], "good game");
    // Deleted: the message keeps its place without its text; the note goes.
    let deleted = app
        .request(
            "POST",
            "/v1/me/deletion",
            Some(&alice),
            Some(json!({"password": "a long password"})),
            &[],
        )
        .await;
    assert!(deleted.status.is_success(), "{}", deleted.body);
    assert_eq!(heard(&app, &id, &bob).await, ["(deleted)"]);
    let left = app
        .count(format!(
            "SELECT count(*) AS n FROM notes WHERE match_id = '{id}'"
        ))
        .await;
    assert_eq!(left, 0);
    app.stop().await;
}
