//! Conditional moves (issue #34): a stored line is played in the same
//! transaction as the opponent's matching move; a move that matches no
//! line drops them; an illegal stored reply is dropped and the turn stays
//! with its owner; the opponent never sees a line; in Banqi a line may
//! wait on a turned-up piece's identity, and a face-down piece cannot be
//! named (§H1).

use crate::support::TestApp;
use serde_json::{json, Value};

async fn view(app: &TestApp, token: &str, id: &str) -> Value {
    app.get(&format!("/v1/matches/{id}"), token).await.body
}

fn moves(actions: &[Value]) -> Vec<Value> {
    let kinds = ["move", "turn_up"];
    (actions.iter())
        .filter(|a| kinds.contains(&a["type"].as_str().unwrap_or_default()))
        .cloned()
        .collect()
}

/// The event a move made, as a pattern: the event without its place in
/// the log.
async fn pattern_of_last(app: &TestApp, token: &str, id: &str) -> Value {
    let feed = app
        .get(&format!("/v1/matches/{id}/events?after=0"), token)
        .await
        .body;
    let mut last = feed["events"].as_array().unwrap().last().unwrap().clone();
    for key in ["seq", "at"] {
        last.as_object_mut().unwrap().remove(key);
    }
    last
}

async fn put_lines(app: &TestApp, token: &str, id: &str, lines: Value) -> crate::support::Reply {
    let path = format!("/v1/matches/{id}/conditional-moves");
    app.request(
        "PUT",
        &path,
        Some(token),
        Some(json!({ "lines": lines })),
        &[],
    )
    .await
}

async fn lines(app: &TestApp, token: &str, id: &str) -> Value {
    let path = format!("/v1/matches/{id}/conditional-moves");
    app.get(&path, token).await.body["lines"].clone()
}

/// A checkers match; (id, first to move, the other).
async fn checkers(app: &TestApp) -> (String, String, String) {
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let body = json!({"game": "checkers", "opponents": ["bob"], "rated": false});
    let m = app.post("/v1/matches", &alice, body).await.body;
    let id = m["id"].as_str().unwrap().to_owned();
    if moves(&app.legal_actions(&alice, &id).await).is_empty() {
        (id, bob, alice)
    } else {
        (id, alice, bob)
    }
}

/// The first mover's move `m`, the reply `r` to it, the pattern of `m` as
/// the second sees it; the match back at its start (a takeback).
async fn a_move_and_its_reply(
    app: &TestApp,
    id: &str,
    first: &str,
    second: &str,
) -> (Value, Value, Value) {
    let m = moves(&app.legal_actions(first, id).await)[0].clone();
    assert_eq!(app.act(first, id, m.clone()).await.status, 200);
    let pattern = pattern_of_last(app, second, id).await;
    let r = moves(&app.legal_actions(second, id).await)[0].clone();
    let seq = view(app, first, id).await["seq"].clone();
    let path = format!("/v1/matches/{id}/takeback");
    assert_eq!(
        app.post(&path, first, json!({"seq": seq})).await.status,
        200
    );
    let seq = view(app, second, id).await["seq"].clone();
    let accept = format!("{path}/accept");
    assert_eq!(
        app.post(&accept, second, json!({"seq": seq})).await.status,
        200
    );
    (m, r, pattern)
}

#[actix_web::test]
async fn a_stored_reply_is_played_in_the_same_answer_as_the_matching_move() {
    let app = TestApp::start_seeded(41).await;
    let (id, first, second) = checkers(&app).await;
    // Not while it is my turn.
    let mine = put_lines(&app, &first, &id, json!([])).await;
    assert_eq!(mine.status, 409, "{}", mine.body);
    let (m, r, pattern) = a_move_and_its_reply(&app, &id, &first, &second).await;
    let line = json!([[{"when": pattern, "play": [r]}]]);
    let stored = put_lines(&app, &second, &id, line.clone()).await;
    assert_eq!(stored.status, 200, "{}", stored.body);
    assert_eq!(lines(&app, &second, &id).await, line);
    // One answer to the opponent shows both actions.
    let answer = app.act(&first, &id, m).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let events = answer.body["events"].as_array().unwrap();
    let seats: Vec<&Value> = events.iter().map(|e| &e["seat"]).collect();
    assert!(
        seats.len() >= 2 && seats[0] != seats[seats.len() - 1],
        "{seats:?}"
    );
    assert!(
        !moves(&app.legal_actions(&first, &id).await).is_empty(),
        "the first to move again"
    );
    assert_eq!(
        lines(&app, &second, &id).await,
        json!([]),
        "the line is used up"
    );
    // Its owner hears that it was played.
    let kinds = notices(&app, &id).await;
    assert!(
        kinds.contains(&"conditional_played".to_owned()),
        "{kinds:?}"
    );
    app.stop().await;
}

#[actix_web::test]
async fn a_move_matching_no_line_drops_them_and_an_illegal_reply_leaves_the_turn() {
    let app = TestApp::start_seeded(42).await;
    let (id, first, second) = checkers(&app).await;
    let (m, _, pattern) = a_move_and_its_reply(&app, &id, &first, &second).await;
    // A line waiting on another move is dropped when this one comes.
    let other = json!({"type": "moved", "move": "no-such-move"});
    let reply = json!({"type": "move", "move": "1-2"});
    put_lines(
        &app,
        &second,
        &id,
        json!([[{"when": other, "play": [reply]}]]),
    )
    .await;
    let before = view(&app, &second, &id).await["seq"].as_i64().unwrap();
    let answer = app.act(&first, &id, m.clone()).await;
    assert_eq!(
        answer.body["match"]["seq"].as_i64().unwrap(),
        before + 1,
        "no reply"
    );
    assert_eq!(lines(&app, &second, &id).await, json!([]));
    // Back to the start; an illegal stored reply is dropped, the turn stays.
    let seq = view(&app, &first, &id).await["seq"].clone();
    let path = format!("/v1/matches/{id}/takeback");
    app.post(&path, &first, json!({"seq": seq})).await;
    let seq = view(&app, &second, &id).await["seq"].clone();
    app.post(&format!("{path}/accept"), &second, json!({"seq": seq}))
        .await;
    let illegal = json!({"type": "move", "move": "1-2"});
    put_lines(
        &app,
        &second,
        &id,
        json!([[{"when": pattern, "play": [illegal]}]]),
    )
    .await;
    let answer = app.act(&first, &id, m).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert!(
        !moves(&app.legal_actions(&second, &id).await).is_empty(),
        "still its owner's turn"
    );
    assert_eq!(lines(&app, &second, &id).await, json!([]));
    app.stop().await;
}

#[actix_web::test]
async fn the_opponent_never_sees_a_stored_line() {
    let app = TestApp::start_seeded(43).await;
    let (id, first, second) = checkers(&app).await;
    let (m, r, pattern) = a_move_and_its_reply(&app, &id, &first, &second).await;
    // A marked line that will not match, and one that will.
    let marked = json!({"type": "moved", "move": "SECRET-LINE-7731"});
    let lines = json!([[{"when": marked, "play": [r]}], [{"when": pattern, "play": [r]}]]);
    assert_eq!(put_lines(&app, &second, &id, lines).await.status, 200);
    let mut seen = String::new();
    seen += &app
        .get(&format!("/v1/matches/{id}/conditional-moves"), &first)
        .await
        .body
        .to_string();
    seen += &view(&app, &first, &id).await.to_string();
    let answer = app.act(&first, &id, m).await;
    seen += &answer.body.to_string();
    for path in [
        format!("/v1/matches/{id}"),
        format!("/v1/matches/{id}/events?after=0"),
        format!("/v1/matches/{id}/legal-actions"),
        "/v1/matches".to_owned(),
        "/v1/me/summary".to_owned(),
    ] {
        seen += &app.get(&path, &first).await.body.to_string();
    }
    // Another's PUT is theirs alone: it does not reach these lines.
    let theirs = put_lines(&app, &first, &id, json!([])).await;
    seen += &theirs.body.to_string();
    seen += &notice_payloads(&app, &id).await;
    assert!(!seen.contains("SECRET-LINE"), "a stored line leaked");
    assert!(seen.contains("moved"), "the reads were made");
    app.stop().await;
}

#[actix_web::test]
async fn in_banqi_a_line_waits_on_a_turned_up_identity_and_never_on_a_face_down_piece() {
    let app = TestApp::start_seeded(44).await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let body = json!({"game": "banqi", "opponents": ["bob"], "rated": false});
    let m = app.post("/v1/matches", &alice, body).await.body;
    let id = m["id"].as_str().unwrap().to_owned();
    let (first, second) = if moves(&app.legal_actions(&alice, &id).await).is_empty() {
        (bob, alice)
    } else {
        (alice, bob)
    };
    // No line is played out on a board where pieces are hidden: the
    // opponent's choices would show them.
    let plan = format!("/v1/matches/{id}/conditional-moves/options?line=%5B%5D");
    let refused = app.get(&plan, &second).await;
    assert_eq!(refused.status, 422, "{}", refused.body);
    let turn_ups = moves(&app.legal_actions(&first, &id).await);
    let (x, y) = (turn_ups[0]["square"].clone(), turn_ups[1]["square"].clone());
    // What is under x: only the server's log knows (the test reads it).
    let piece = hidden_piece(&app, &id, x.as_str().unwrap()).await;
    let wrong = json!({"colour": piece["colour"], "kind": if piece["kind"] == "general" { "soldier" } else { "general" }});
    let play_y = json!([{"type": "turn_up", "square": y}]);
    let face_down = json!({"type": "turned_up", "square": y, "piece": piece});
    let lines = json!([
        // y is face down, and stays so: naming its piece never matches.
        [{"when": face_down, "play": play_y}],
        [{"when": {"type": "turned_up", "square": x, "piece": wrong}, "play": play_y}],
        [{"when": {"type": "turned_up", "square": x, "piece": piece}, "play": play_y}],
    ]);
    assert_eq!(put_lines(&app, &second, &id, lines).await.status, 200);
    let answer = app
        .act(&first, &id, json!({"type": "turn_up", "square": x}))
        .await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let events = answer.body["events"].as_array().unwrap();
    let played: Vec<&Value> = (events.iter())
        .filter(|e| e["type"] == "turned_up")
        .map(|e| &e["square"])
        .collect();
    assert_eq!(played, [&x, &y], "the reply on the revealed identity");
    app.stop().await;
}

async fn notices(app: &TestApp, id: &str) -> Vec<String> {
    text_rows(
        app,
        format!("SELECT kind AS t FROM notices WHERE match_id = '{id}' ORDER BY seq"),
    )
    .await
}

async fn notice_payloads(app: &TestApp, id: &str) -> String {
    let rows = text_rows(app, format!("SELECT payload::text AS t FROM notices WHERE match_id = '{id}' UNION ALL SELECT payload::text FROM notifications WHERE match_id = '{id}'")).await;
    rows.join(" ")
}

/// The identity of the face-down piece on `square`, read from the log's
/// full starting position (§B9; never shown to a player).
async fn hidden_piece(app: &TestApp, id: &str, square: &str) -> Value {
    let rows = text_rows(app, format!("SELECT body->>'position' AS t FROM match_events WHERE match_id = '{id}' AND body->>'type' = 'started'")).await;
    use posthorn_rules::banqi::{board::parse_square, Cell, Position};
    let position = Position::from_notation(&rows[0]).unwrap();
    match position.cells[parse_square(square).unwrap() as usize] {
        Cell::Down(piece) => serde_json::to_value(piece).unwrap(),
        other => panic!("{square} is not face down: {other:?}"),
    }
}

pub(crate) async fn text_rows(app: &TestApp, sql: String) -> Vec<String> {
    #[derive(diesel::QueryableByName)]
    struct Text {
        #[diesel(sql_type = diesel::sql_types::Text)]
        t: String,
    }
    app.blocking(move |s| {
        use diesel::RunQueryDsl;
        let conn = &mut s.pool.get().unwrap();
        let rows: Vec<Text> = diesel::sql_query(sql).load(conn).unwrap();
        rows.into_iter().map(|r| r.t).collect()
    })
    .await
}

#[actix_web::test]
async fn a_line_is_planned_on_the_board_where_nothing_is_hidden() {
    let app = TestApp::start_seeded(45).await;
    let (id, first, second) = checkers(&app).await;
    let plan = |line: Value| {
        let line = urlencode(&line.to_string());
        format!("/v1/matches/{id}/conditional-moves/options?line={line}")
    };
    let theirs = app.get(&plan(json!([])), &second).await.body;
    let their_moves = moves(theirs["actions"].as_array().unwrap());
    let first_moves = moves(&app.legal_actions(&first, &id).await);
    assert_eq!(their_moves, first_moves, "the opponent's moves");
    let m = theirs["actions"][0].clone();
    let mine = app.get(&plan(json!([m])), &second).await.body;
    assert_eq!(mine["seat"], view(&app, &second, &id).await["my_seats"][0]);
    assert!(mine["last_events"][0]["type"] == "moved", "{mine}");
    assert!(!mine["actions"].as_array().unwrap().is_empty());
    let bad = app
        .get(&plan(json!([{"type": "move", "move": "1-2"}])), &second)
        .await;
    assert_eq!(bad.status, 422, "{}", bad.body);
    // Nothing is planned on the match itself.
    assert_eq!(
        view(&app, &first, &id).await["seq"],
        view(&app, &second, &id).await["seq"]
    );
    assert!(!moves(&app.legal_actions(&first, &id).await).is_empty());
    app.stop().await;
}

fn urlencode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[actix_web::test]
async fn a_move_taken_back_is_not_what_a_line_waits_on() {
    let app = TestApp::start_seeded(46).await;
    let (id, first, second) = checkers(&app).await;
    // The first move is played and taken back; a line waits on it.
    let (m, r, pattern) = a_move_and_its_reply(&app, &id, &first, &second).await;
    put_lines(
        &app,
        &second,
        &id,
        json!([[{"when": pattern, "play": [r]}]]),
    )
    .await;
    // Another move comes instead: the undone one must not match.
    let other = moves(&app.legal_actions(&first, &id).await)
        .into_iter()
        .find(|a| *a != m)
        .unwrap();
    let before = view(&app, &second, &id).await["seq"].as_i64().unwrap();
    let answer = app.act(&first, &id, other).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(
        answer.body["match"]["seq"].as_i64().unwrap(),
        before + 1,
        "no reply"
    );
    assert_eq!(lines(&app, &second, &id).await, json!([]));
    app.stop().await;
}
