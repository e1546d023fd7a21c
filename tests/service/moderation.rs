//! Reports and moderators (issue #50 item 6; docs/decisions/table-talk.md
//! "Reports and moderators"), over HTTP against the real database, the
//! role granted by the binary's own command.

use crate::support::{a_move, TestApp};
use serde_json::{json, Value};

/// A started checkers match of `a` and `b`: its id and their tokens.
async fn table(app: &TestApp, a: &str, b: &str) -> (String, String, String) {
    let (ta, tb) = (app.register(a).await, app.register(b).await);
    let body = json!({"game": "checkers", "opponents": [b]});
    let id = app.post("/v1/matches", &ta, body).await.body["id"]
        .as_str()
        .unwrap()
        .to_owned();
    (id, ta, tb)
}

async fn say(app: &TestApp, id: &str, token: &str, text: &str) -> crate::support::Reply {
    let path = format!("/v1/matches/{id}/messages");
    (app.request(
        "POST",
        &path,
        Some(token),
        Some(json!({ "text": text })),
        &[],
    ))
    .await
}

async fn report(app: &TestApp, message: &Value, token: &str) -> crate::support::Reply {
    let path = format!("/v1/messages/{}/report", message["id"].as_str().unwrap());
    let body = json!({"reason": "abuse", "detail": "rude"});
    app.request("POST", &path, Some(token), Some(body), &[])
        .await
}

/// `posthorn moderator <verb> <username>`, the binary on the test's
/// database.
fn command(app: &TestApp, verb: &str, username: &str) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_posthorn"))
        .args(["moderator", verb, username])
        .env("DATABASE_URL", app.database_url())
        .env("RUST_LOG", "warn")
        .output()
        .unwrap()
}

async fn act(app: &TestApp, token: &str, path: &str, body: Value) -> crate::support::Reply {
    app.request("POST", path, Some(token), Some(body), &[])
        .await
}

#[actix_web::test]
async fn a_report_reaches_a_moderator_granted_by_the_command_who_hides_mutes_and_logs() {
    // Tokens that outlast the day's mute.
    let app = TestApp::start_with(posthorn::config::Config {
        access_token_seconds: 3 * 24 * 3600,
        ..Default::default()
    })
    .await;
    let (id, rude, kind) = table(&app, "rude", "kind").await;
    let moderator = app.register("mod").await;
    assert_eq!(say(&app, &id, &kind, "good luck!").await.status, 201);
    let insult = say(&app, &id, &rude, "you play like a potato").await.body;
    // The API grants nothing: a player is refused every moderator's path.
    assert_eq!(
        app.get("/v1/moderation/reports", &moderator).await.status,
        403
    );
    let granted = command(&app, "grant", "mod");
    assert!(granted.status.success(), "{granted:?}");
    assert_eq!(app.get("/v1/me", &moderator).await.body["moderator"], true);
    assert!(app
        .get("/v1/me", &kind)
        .await
        .body
        .get("moderator")
        .is_none());

    // Kind reports; again is the same report; her own is refused; a
    // stranger finds no message.
    let (first, second) =
        futures_util::future::join(report(&app, &insult, &kind), report(&app, &insult, &kind))
            .await;
    let statuses = (first.status.as_u16(), second.status.as_u16());
    assert_eq!(statuses, (201, 201), "{}", second.body);
    assert_eq!(
        second.body["id"], first.body["id"],
        "a double tap is one report"
    );
    assert_eq!(
        report(&app, &insult, &kind).await.body["id"],
        first.body["id"]
    );
    let own = say(&app, &id, &kind, "gg").await.body;
    assert_eq!(report(&app, &own, &kind).await.status, 422);
    assert_eq!(report(&app, &insult, &moderator).await.status, 404);

    // The reported player learns nothing of who reported: nothing in
    // their view of the talk, their match or their notices names it.
    for path in [
        format!("/v1/matches/{id}/messages"),
        format!("/v1/matches/{id}"),
        "/v1/me/summary".to_owned(),
    ] {
        let seen = app.get(&path, &rude).await.body.to_string();
        assert!(!seen.contains("report"), "{path}: {seen}");
    }
    let told = app
        .count(
            "SELECT (SELECT count(*) FROM notices WHERE payload::text LIKE '%report%') \
             + (SELECT count(*) FROM notifications WHERE payload::text LIKE '%report%') AS n"
                .into(),
        )
        .await;
    assert_eq!(told, 0, "no notice says a word of it");

    let open = app.get("/v1/moderation/reports", &moderator).await.body;
    assert_eq!(open.as_array().unwrap().len(), 1, "{open}");
    assert_eq!(open[0]["message"]["text"], "you play like a potato");
    assert_eq!(open[0]["reporter"]["username"], "kind");
    assert_eq!(open[0]["reason"], "abuse");
    assert_eq!(open[0]["before"][0]["text"], "good luck!", "its context");

    // Hide: every reader sees it hidden, the report closes.
    let path = format!(
        "/v1/moderation/messages/{}/hide",
        insult["id"].as_str().unwrap()
    );
    assert_eq!(
        act(&app, &moderator, &path, json!({"why": ""}))
            .await
            .status,
        400
    );
    let hidden = act(&app, &moderator, &path, json!({"why": "insult"})).await;
    assert_eq!(hidden.status, 204, "{}", hidden.body);
    for token in [&rude, &kind] {
        let items = app
            .get(&format!("/v1/matches/{id}/messages"), token)
            .await
            .body["items"]
            .clone();
        assert_eq!(items[1]["hidden"], true);
        assert!(items[1]["text"].is_null(), "{items}");
        assert_eq!(items[0]["text"], "good luck!", "the others shown");
    }
    assert_eq!(
        app.get("/v1/moderation/reports", &moderator).await.body,
        json!([])
    );
    let hidden_again = report(&app, &insult, &moderator).await;
    assert_eq!(hidden_again.status, 404, "not the moderator's table");
    let rereport = app
        .request(
            "POST",
            &format!("/v1/messages/{}/report", insult["id"].as_str().unwrap()),
            Some(&kind),
            Some(json!({"reason": "spam"})),
            &[],
        )
        .await;
    assert_eq!(rereport.status, 422, "hidden: nothing to report");

    // Mute for a day: no talk anywhere until it ends.
    let mute = json!({"hours": 24, "why": "second warning"});
    let muted = act(&app, &moderator, "/v1/moderation/players/rude/mute", mute).await;
    assert_eq!(muted.status, 200, "{}", muted.body);
    let refused = say(&app, &id, &rude, "sorry").await;
    assert_eq!(refused.status, 403);
    assert!(
        refused.body["detail"].as_str().unwrap().contains("muted"),
        "{}",
        refused.body
    );
    app.clock.advance(chrono::Duration::hours(25));
    assert_eq!(
        say(&app, &id, &rude, "sorry").await.status,
        201,
        "the mute ended"
    );

    // The audit log keeps who did what and why, the grant first.
    let log = app.get("/v1/moderation/log", &moderator).await.body;
    let said: Vec<(String, String)> = (log.as_array().unwrap().iter())
        .map(|e| {
            (
                e["action"].as_str().unwrap().into(),
                e["why"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        said,
        [
            ("mute".into(), "second warning".into()),
            ("hide".into(), "insult".into()),
            ("grant".into(), "the command line".into()),
        ]
    );
    assert_eq!(log[0]["moderator"]["username"], "mod");
    assert_eq!(log[0]["player"]["username"], "rude");
    assert!(log[2]["moderator"].is_null(), "the command line");
    // Revoked by the command, the role is gone.
    assert!(command(&app, "revoke", "mod").status.success());
    assert_eq!(app.get("/v1/moderation/log", &moderator).await.status, 403);
    app.stop().await;
}

#[actix_web::test]
async fn a_suspended_account_cannot_sign_in_and_its_running_matches_end_as_resignations() {
    let app = TestApp::start().await;
    let (id, cheat, fair) = table(&app, "cheat", "fair").await;
    let moderator = app.register("boss").await;
    assert!(command(&app, "grant", "boss").status.success());
    // A move first, so the match is running whoever sat first.
    let mover = if app.legal_actions(&cheat, &id).await.iter().any(a_move) {
        &cheat
    } else {
        &fair
    };
    let action = (app.legal_actions(mover, &id).await.into_iter())
        .find(a_move)
        .unwrap();
    assert_eq!(app.act(mover, &id, action).await.status, 200);
    let why = json!({"why": "threats in three matches"});
    let suspended = act(
        &app,
        &moderator,
        "/v1/moderation/players/cheat/suspend",
        why.clone(),
    )
    .await;
    assert_eq!(suspended.status, 204, "{}", suspended.body);
    assert_eq!(
        act(
            &app,
            &moderator,
            "/v1/moderation/players/cheat/suspend",
            why
        )
        .await
        .status,
        409,
        "once"
    );
    // The match ended as cheat's resignation; fair won.
    let view = app.get(&format!("/v1/matches/{id}"), &fair).await.body;
    assert_eq!(view["status"], "finished", "{view}");
    assert_eq!(view["result"]["reason"], "resigned", "{view}");
    // Their token stops, and no sign-in opens a session.
    assert_eq!(app.get("/v1/me", &cheat).await.status, 401);
    let login = json!({"login": "cheat", "password": "a long password"});
    let signed = app
        .request("POST", "/v1/sessions", None, Some(login.clone()), &[])
        .await;
    assert_eq!(
        (signed.status.as_u16(), signed.code()),
        (403, "suspended"),
        "{}",
        signed.body
    );
    // A moderator never suspends themselves; a player never suspends.
    let own = act(
        &app,
        &moderator,
        "/v1/moderation/players/boss/suspend",
        json!({"why": "x"}),
    )
    .await;
    assert_eq!(own.status, 422);
    // A player is refused every moderator's act, before anything is read
    // of the request (an empty why too).
    let any = uuid::Uuid::new_v4();
    for path in [
        "/v1/moderation/players/boss/suspend".to_owned(),
        "/v1/moderation/players/cheat/reinstate".to_owned(),
        format!("/v1/moderation/messages/{any}/hide"),
        format!("/v1/moderation/reports/{any}/dismiss"),
    ] {
        let by_player = act(&app, &fair, &path, json!({"why": ""})).await;
        assert_eq!(by_player.status, 403, "{path}");
    }
    let mute = json!({"hours": 0, "why": ""});
    let by_player = act(&app, &fair, "/v1/moderation/players/boss/mute", mute).await;
    assert_eq!(by_player.status, 403);
    assert_eq!(app.get("/v1/moderation/log", &fair).await.status, 403);
    // Reinstated, they sign in again.
    let back = act(
        &app,
        &moderator,
        "/v1/moderation/players/cheat/reinstate",
        json!({"why": "appeal heard"}),
    )
    .await;
    assert_eq!(back.status, 204);
    let signed = app
        .request("POST", "/v1/sessions", None, Some(login), &[])
        .await;
    assert_eq!(signed.status, 201, "{}", signed.body);
    let again = act(
        &app,
        &moderator,
        "/v1/moderation/players/cheat/reinstate",
        json!({"why": "twice"}),
    )
    .await;
    assert_eq!(again.status, 409, "nothing to lift");
    // The log keeps both acts, who and why.
    let log = app.get("/v1/moderation/log", &moderator).await.body;
    let acts: Vec<(Value, Value, Value)> = (log.as_array().unwrap().iter())
        .take(2)
        .map(|e| {
            (
                e["action"].clone(),
                e["why"].clone(),
                e["player"]["username"].clone(),
            )
        })
        .collect();
    assert_eq!(
        acts,
        [
            (json!("reinstate"), json!("appeal heard"), json!("cheat")),
            (
                json!("suspend"),
                json!("threats in three matches"),
                json!("cheat")
            ),
        ]
    );
    assert_eq!(log[0]["moderator"]["username"], "boss");
    app.stop().await;
}

#[actix_web::test]
async fn reports_are_limited_to_twenty_a_day() {
    let app = TestApp::start().await;
    let (id, loud, tired) = table(&app, "loud", "tired").await;
    let mut said = Vec::new();
    for n in 0..21 {
        if n % 10 == 0 {
            app.clock.advance(chrono::Duration::minutes(2));
        }
        said.push(say(&app, &id, &loud, &format!("spam {n}")).await.body);
    }
    let mut statuses = Vec::new();
    for message in &said {
        statuses.push(report(&app, message, &tired).await.status.as_u16());
    }
    assert_eq!(statuses[..20], [201; 20]);
    assert_eq!(statuses[20], 429);
    app.stop().await;
}
