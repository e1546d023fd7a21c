//! Takebacks by consent (issue #34): between two people a player asks to
//! take back their own last move before the opponent answers it; the
//! opponent accepts or declines, if their setting lets them be asked in
//! this match (never / unrated, the default / always). None past hidden
//! information (§H1) and none in four-player chess.

use crate::support::TestApp;
use serde_json::{json, Value};

async fn view(app: &TestApp, token: &str, id: &str) -> Value {
    app.get(&format!("/v1/matches/{id}"), token).await.body
}

/// A checkers match between alice and bob (rated or not), and the token of
/// whoever is to move first, then the other's.
async fn checkers(app: &TestApp, rated: bool) -> (String, String, String) {
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let body = json!({"game": "checkers", "opponents": ["bob"], "rated": rated});
    let m = app.post("/v1/matches", &alice, body).await;
    assert_eq!(m.status, 201, "{}", m.body);
    let id = m.body["id"].as_str().unwrap().to_owned();
    let alice_moves = legal(app, &alice, &id).await.is_some();
    let (first, second) = if alice_moves {
        (alice, bob)
    } else {
        (bob, alice)
    };
    (id, first, second)
}

/// The first legal move of the caller, if it is theirs to play.
async fn legal(app: &TestApp, token: &str, id: &str) -> Option<Value> {
    let actions = app.legal_actions(token, id).await;
    actions.into_iter().find(|a| a["type"] == "move")
}

async fn play(app: &TestApp, token: &str, id: &str) {
    let action = legal(app, token, id).await.expect("a move to play");
    let reply = app.act(token, id, action).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
}

async fn takeback(app: &TestApp, token: &str, id: &str, what: &str) -> crate::support::Reply {
    let seq = view(app, token, id).await["seq"].clone();
    let path = format!("/v1/matches/{id}/takeback{what}");
    app.post(&path, token, json!({"seq": seq})).await
}

/// The kinds of notices `id` gave, in order.
async fn notices(app: &TestApp, id: &str) -> Vec<String> {
    #[derive(diesel::QueryableByName)]
    struct Kind {
        #[diesel(sql_type = diesel::sql_types::Text)]
        kind: String,
    }
    let id = id.to_owned();
    app.blocking(move |s| {
        use diesel::RunQueryDsl;
        let conn = &mut s.pool.get().unwrap();
        let sql = format!("SELECT kind FROM notices WHERE match_id = '{id}' ORDER BY seq, kind");
        let rows: Vec<Kind> = diesel::sql_query(sql).load(conn).unwrap();
        rows.into_iter().map(|k| k.kind).collect()
    })
    .await
}

#[actix_web::test]
async fn an_accepted_takeback_returns_the_game_to_before_the_move_and_the_log_replays_to_it() {
    let app = TestApp::start_seeded(34).await;
    let (id, first, second) = checkers(&app, false).await;
    let before = view(&app, &first, &id).await["view"].clone();
    play(&app, &first, &id).await;
    let asked = takeback(&app, &first, &id, "").await;
    assert_eq!(asked.status, 200, "{}", asked.body);
    let asker_seat = asked.body["my_seats"][0].clone();
    assert_eq!(asked.body["takeback_asked_by"], asker_seat);
    // The opponent sees the request; the asker cannot answer it.
    assert_eq!(
        view(&app, &second, &id).await["takeback_asked_by"],
        asker_seat
    );
    assert_eq!(takeback(&app, &first, &id, "/accept").await.status, 422);
    // A second request while one waits is refused.
    assert_eq!(takeback(&app, &first, &id, "").await.status, 409);
    let accepted = takeback(&app, &second, &id, "/accept").await;
    assert_eq!(accepted.status, 200, "{}", accepted.body);
    assert_eq!(
        accepted.body["view"], before,
        "the position before the move"
    );
    assert!(accepted.body.get("takeback_asked_by").is_none());
    assert!(
        legal(&app, &first, &id).await.is_some(),
        "the asker's turn again"
    );
    assert!(legal(&app, &second, &id).await.is_none());
    // The log keeps the move, the request and the takeback; a replay of
    // it to the last seq stands where the match stands.
    let m = view(&app, &first, &id).await;
    let events = app
        .get(&format!("/v1/matches/{id}/events?after=0"), &first)
        .await
        .body["events"]
        .clone();
    let types: Vec<&str> = (events.as_array().unwrap().iter())
        .filter_map(|e| e["type"].as_str())
        .filter(|t| t.starts_with("take"))
        .collect();
    assert_eq!(types, ["takeback_requested", "taken_back"]);
    let seq = m["seq"].as_i64().unwrap();
    let replayed = app
        .get(&format!("/v1/matches/{id}/positions/{seq}"), &first)
        .await;
    assert_eq!(replayed.status, 200, "{}", replayed.body);
    assert_eq!(replayed.body["view"], m["view"]);
    // Play goes on from there.
    play(&app, &first, &id).await;
    let kinds = notices(&app, &id).await;
    assert!(
        kinds.contains(&"takeback_requested".to_owned()),
        "{kinds:?}"
    );
    assert!(kinds.contains(&"takeback_answered".to_owned()), "{kinds:?}");
    app.stop().await;
}

#[actix_web::test]
async fn a_declined_takeback_leaves_the_move_standing_and_a_move_answers_a_request() {
    let app = TestApp::start_seeded(35).await;
    let (id, first, second) = checkers(&app, false).await;
    play(&app, &first, &id).await;
    let after_move = view(&app, &first, &id).await["view"].clone();
    assert_eq!(takeback(&app, &first, &id, "").await.status, 200);
    let declined = takeback(&app, &second, &id, "/decline").await;
    assert_eq!(declined.status, 200, "{}", declined.body);
    assert_eq!(declined.body["view"], after_move);
    assert!(declined.body.get("takeback_asked_by").is_none());
    // Nothing waits any more.
    assert_eq!(takeback(&app, &second, &id, "/accept").await.status, 409);
    let kinds = notices(&app, &id).await;
    assert!(kinds.contains(&"takeback_answered".to_owned()), "{kinds:?}");
    // Asked again, the opponent moves instead: that answers it, and the
    // first move can no longer be taken back.
    assert_eq!(takeback(&app, &first, &id, "").await.status, 200);
    play(&app, &second, &id).await;
    assert!(view(&app, &first, &id)
        .await
        .get("takeback_asked_by")
        .is_none());
    let late = takeback(&app, &first, &id, "").await;
    assert_eq!(late.status, 422, "{}", late.body);
    assert!(late.body["detail"]
        .as_str()
        .unwrap()
        .contains("moved since"));
    app.stop().await;
}

#[actix_web::test]
async fn the_opponents_setting_decides_and_a_rated_match_is_refused_under_the_default() {
    let app = TestApp::start_seeded(36).await;
    let (id, first, second) = checkers(&app, true).await;
    play(&app, &first, &id).await;
    // Default `unrated`: a rated match takes no requests.
    let refused = takeback(&app, &first, &id, "").await;
    assert_eq!(refused.status, 422, "{}", refused.body);
    assert!(refused.body["detail"].as_str().unwrap().contains("setting"));
    let me = app.get("/v1/me", &second).await.body;
    assert_eq!(me["takebacks"], "unrated");
    // `always`: the rated match takes them.
    let patch = |setting: &str| json!({"takebacks": setting});
    let changed = app
        .request("PATCH", "/v1/me", Some(&second), Some(patch("always")), &[])
        .await;
    assert_eq!(changed.body["takebacks"], "always", "{}", changed.body);
    assert_eq!(takeback(&app, &first, &id, "").await.status, 200);
    assert_eq!(takeback(&app, &second, &id, "/decline").await.status, 200);
    // `never`: not even unrated matches.
    app.request("PATCH", "/v1/me", Some(&second), Some(patch("never")), &[])
        .await;
    let carol = app.register("carol").await;
    let body = json!({"game": "checkers", "opponents": ["bob"], "rated": false});
    let casual = app.post("/v1/matches", &carol, body).await.body;
    let cid = casual["id"].as_str().unwrap().to_owned();
    if legal(&app, &carol, &cid).await.is_none() {
        play(&app, &second, &cid).await;
    }
    play(&app, &carol, &cid).await;
    let never = takeback(&app, &carol, &cid, "").await;
    assert_eq!(never.status, 422, "{}", never.body);
    let bad = app
        .request(
            "PATCH",
            "/v1/me",
            Some(&second),
            Some(patch("sometimes")),
            &[],
        )
        .await;
    assert_eq!(bad.status, 400, "{}", bad.body);
    app.stop().await;
}

#[actix_web::test]
async fn no_takeback_past_hidden_information_nor_in_four_player_chess() {
    let app = TestApp::start_seeded(37).await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    // Banqi: a turn-up shows a piece; undone, it would be known (§H1).
    let body = json!({"game": "banqi", "opponents": ["bob"], "rated": false});
    let banqi = app.post("/v1/matches", &alice, body).await.body;
    let bid = banqi["id"].as_str().unwrap().to_owned();
    let (mover, _) = if legal_any(&app, &alice, &bid).await.is_some() {
        (&alice, &bob)
    } else {
        (&bob, &alice)
    };
    let turn_up = legal_any(&app, mover, &bid).await.unwrap();
    assert_eq!(app.act(mover, &bid, turn_up).await.status, 200);
    let hidden = takeback(&app, mover, &bid, "").await;
    assert_eq!(hidden.status, 422, "{}", hidden.body);
    assert!(hidden.body["detail"].as_str().unwrap().contains("hidden"));
    // Four-player chess, two people with two armies each: refused.
    let body =
        json!({"game": "four_player_chess", "mode": "teams", "opponents": ["bob"], "rated": false});
    let four = app.post("/v1/matches", &alice, body).await;
    assert_eq!(four.status, 201, "{}", four.body);
    let fid = four.body["id"].as_str().unwrap().to_owned();
    let mover = if legal(&app, &alice, &fid).await.is_some() {
        &alice
    } else {
        &bob
    };
    play(&app, mover, &fid).await;
    let refused = takeback(&app, mover, &fid, "").await;
    assert_eq!(refused.status, 422, "{}", refused.body);
    assert!(refused.body["detail"]
        .as_str()
        .unwrap()
        .contains("two-player"));
    app.stop().await;
}

/// The caller's first legal action that is not an offer or resignation.
async fn legal_any(app: &TestApp, token: &str, id: &str) -> Option<Value> {
    let actions = app.legal_actions(token, id).await;
    (actions.into_iter()).find(|a| a["type"] == "turn_up" || a["type"] == "move")
}

/// Issue #48: the rating's "never moved" follows takebacks. The second
/// player's only move is taken back, by consent, in a rated match; they
/// resign: they never moved, so the match is aborted, not rated (a raw
/// read of the log would have counted the undone move).
#[actix_web::test]
async fn a_move_taken_back_is_not_a_move_for_the_rating() {
    let app = TestApp::start_seeded(48).await;
    let (id, first, second) = checkers(&app, true).await;
    // The first player lets themselves be asked in rated matches too.
    let always = app
        .request(
            "PATCH",
            "/v1/me",
            Some(&first),
            Some(json!({"takebacks": "always"})),
            &[],
        )
        .await;
    assert_eq!(always.status, 200, "{}", always.body);
    play(&app, &first, &id).await;
    play(&app, &second, &id).await;
    assert_eq!(takeback(&app, &second, &id, "").await.status, 200);
    let accepted = takeback(&app, &first, &id, "/accept").await;
    assert_eq!(accepted.status, 200, "{}", accepted.body);
    let end = app.act(&second, &id, json!({"type": "resign"})).await;
    assert_eq!(end.status, 200, "{}", end.body);
    let result = &end.body["match"]["result"];
    assert!(result["aborted"].is_string(), "{result}");
    assert!(result.get("ratings").is_none(), "{result}");
    app.stop().await;
}
