//! A tournament's room (issue #50 item 2; docs/decisions/table-talk.md):
//! its joined players talk there by a match table's rules.

use crate::support::TestApp;
use serde_json::{json, Value};

/// Ann's tournament: Ben and Cat joined, Dan only invited. Its id and
/// the tokens of ann, ben, cat, dan.
async fn room(app: &TestApp) -> (String, [String; 4]) {
    let mut tokens = Vec::new();
    for name in ["ann", "ben", "cat", "dan"] {
        tokens.push(app.register(name).await);
    }
    let body = json!({"name": "Friday club", "format": "round_robin", "game": "checkers",
        "players": ["ben", "cat", "dan"], "turn_hours": 48});
    let created = app.post("/v1/tournaments", &tokens[0], body).await;
    assert_eq!(created.status, 201, "{}", created.body);
    let id = created.body["id"].as_str().unwrap().to_owned();
    for token in &tokens[1..3] {
        let joined = app
            .post(&format!("/v1/tournaments/{id}/join"), token, json!({}))
            .await;
        assert_eq!(joined.status, 200, "{}", joined.body);
    }
    (id, tokens.try_into().unwrap())
}

async fn say(app: &TestApp, id: &str, token: &str, body: Value, key: Option<&str>) -> (u16, Value) {
    let path = format!("/v1/tournaments/{id}/messages");
    let headers: Vec<(&str, &str)> = key.map(|k| ("Idempotency-Key", k)).into_iter().collect();
    let reply = app
        .request("POST", &path, Some(token), Some(body), &headers)
        .await;
    (reply.status.as_u16(), reply.body)
}

/// (status, the texts `token` reads in the room, oldest first).
async fn heard(app: &TestApp, id: &str, token: &str) -> (u16, Vec<String>) {
    let page = app
        .get(&format!("/v1/tournaments/{id}/messages"), token)
        .await;
    let texts = (page.body["items"].as_array().into_iter().flatten())
        .map(|m| m["text"].as_str().unwrap_or("(deleted)").to_owned())
        .collect();
    (page.status.as_u16(), texts)
}

#[actix_web::test]
async fn only_the_joined_players_talk_in_a_tournaments_room_by_a_tables_rules() {
    let app = TestApp::start().await;
    let (id, [ann, ben, cat, dan]) = room(&app).await;
    let eve = app.register("eve").await;
    let (status, said) = say(&app, &id, &ann, json!({"text": " 환영해요! "}), None).await;
    assert_eq!(status, 201, "{said}");
    assert_eq!(said["text"], "환영해요!");
    assert!(
        said.get("at_seq").is_none(),
        "no seq in a tournament: {said}"
    );
    // A retry with the same key is the same message.
    let once = say(&app, &id, &cat, json!({"text": "hi all"}), Some("c-1")).await;
    let again = say(&app, &id, &cat, json!({"text": "hi all"}), Some("c-1")).await;
    assert_eq!((once.0, again.0), (201, 201));
    assert_eq!(once.1["id"], again.1["id"]);
    assert_eq!(
        heard(&app, &id, &ben).await,
        (200, vec!["환영해요!".into(), "hi all".into()])
    );

    // Invited only: turned away; a stranger finds no tournament.
    assert_eq!(heard(&app, &id, &dan).await.0, 403);
    assert_eq!(
        say(&app, &id, &dan, json!({"text": "me?"}), None).await.0,
        403
    );
    assert_eq!(heard(&app, &id, &eve).await.0, 404);
    let (status, problem) = say(&app, &id, &eve, json!({"text": "hello"}), None).await;
    assert_eq!((status, problem["code"].clone()), (404, json!("not_found")));

    // The table's refusals: no team channel, a bidirectional control.
    let team = say(&app, &id, &ben, json!({"text": "psst", "team": true}), None).await;
    assert_eq!(team.0, 422, "{}", team.1);
    let bidi = say(&app, &id, &ben, json!({"text": "a\u{202E}b"}), None).await;
    assert_eq!((bidi.0, bidi.1["field"].clone()), (422, json!("text")));

    // A block hides both ways; "nobody" neither reads nor writes.
    let blocked = app
        .post("/v1/blocks", &ben, json!({"username": "cat"}))
        .await;
    assert_eq!(blocked.status, 201);
    assert_eq!(heard(&app, &id, &ben).await.1, ["환영해요!"]);
    assert_eq!(
        say(&app, &id, &ben, json!({"text": "from ben"}), None)
            .await
            .0,
        201
    );
    assert_eq!(heard(&app, &id, &cat).await.1, ["환영해요!", "hi all"]);
    let off = app
        .request(
            "PUT",
            "/v1/me/talk-settings",
            Some(&ann),
            Some(json!({"who": "nobody"})),
            &[],
        )
        .await;
    assert_eq!(off.status, 200);
    assert_eq!(
        say(&app, &id, &ann, json!({"text": "?"}), None).await.0,
        403
    );
    assert_eq!(heard(&app, &id, &ann).await.1, ["환영해요!"], "only my own");

    // A room's messages count nowhere unread; the refused wrote nothing:
    // three messages stored.
    let summary = app.get("/v1/me/summary", &ben).await.body;
    assert_eq!(summary["unread_messages"], 0);
    let stored = app
        .count(format!(
            "SELECT count(*) AS n FROM messages WHERE tournament_id = '{id}'"
        ))
        .await;
    assert_eq!(stored, 3);
    // My words in the room are in my export.
    let export = app.get("/v1/me/export", &ben).await.body;
    let mine = &export["tournament_messages"];
    assert_eq!(mine.as_array().map(Vec::len), Some(1), "{mine}");
    assert_eq!(
        (mine[0]["text"].clone(), mine[0]["tournament_id"].clone()),
        (json!("from ben"), json!(id))
    );
    app.stop().await;
}
