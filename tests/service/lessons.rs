//! First steps over the API (issue #52, docs/lessons.md): every step of
//! every game completed action by action, a legal move the step does not
//! teach turned back with nothing played, an illegal one refused, nothing
//! hidden shown, and progress kept per account — a guest's too.

use crate::support::TestApp;
use posthorn_rules::lessons::{attempt, lessons, offered, opening};
use posthorn_rules::{GameId, Viewer};
use serde_json::{json, Value};

/// Nothing the student may not see is in `body`: the rules' own list of
/// what that seat may not see (the deck, the other hand, what lies face
/// down), on the board after `played` of `step`'s line.
fn nothing_hidden(game: GameId, step: &str, played: usize, body: &Value) {
    let lesson = lessons(game).into_iter().find(|l| l.key == step).unwrap();
    let tried = attempt(game, &lesson, &lesson.line[..played]).unwrap();
    let text = body.to_string();
    for secret in tried.state.secrets(Viewer::Seat(tried.student)) {
        let secret = secret.to_string();
        assert!(
            !text.contains(&secret),
            "{game:?} {step}: {secret} shown: {text}"
        );
    }
}

/// A legal action of the student's that the step does not teach.
fn a_wrong_action(game: GameId, step: &str) -> Option<Value> {
    let lesson = lessons(game).into_iter().find(|l| l.key == step).unwrap();
    let (start, student) = opening(game, &lesson).unwrap();
    start
        .legal_actions(student)
        .into_iter()
        .filter(|a| a["type"] != "resign" && a["type"] != "offer_draw")
        .find(|a| {
            attempt(game, &lesson, std::slice::from_ref(a))
                .map(|t| t.accepted == 0)
                .unwrap_or(false)
        })
}

/// Issue #52: every step of every game, by a guest: opened, a wrong move
/// explained and not played, an illegal one refused, then the line played
/// one action at a time to `done`; the list then marks every step done.
#[actix_web::test]
async fn every_step_of_every_game_is_completed_action_by_action() {
    let app = TestApp::start().await;
    let token = app.guest("pupil").await;
    for &game in GameId::ALL {
        let id = game.id();
        let list = app.get(&format!("/v1/lessons/{id}"), &token).await;
        assert_eq!(list.status, 200, "{}", list.body);
        let steps = lessons(game);
        assert_eq!(list.body["steps"].as_array().unwrap().len(), steps.len());
        assert!(list.body["steps"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["done"] == false));
        for lesson in &steps {
            let key = lesson.key;
            let opened = app.get(&format!("/v1/lessons/{id}/{key}"), &token).await;
            assert_eq!(opened.status, 200, "{}", opened.body);
            assert_eq!(opened.body["verdict"], "playing");
            let (start, student) = opening(game, lesson).unwrap();
            let tappable = json!(offered(&start, student));
            assert_eq!(
                opened.body["legal"], tappable,
                "{game:?} {key}: my actions to tap"
            );
            nothing_hidden(game, key, 0, &opened.body);
            let path = format!("/v1/lessons/{id}/{key}/moves");

            let illegal = app
                .post(
                    &path,
                    &token,
                    json!({"actions": [{"type": "move", "move": "z9z9"}]}),
                )
                .await;
            assert!(
                illegal.status == 400 || illegal.status == 422,
                "{game:?} {key}: {}",
                illegal.body
            );
            if let Some(wrong) = a_wrong_action(game, key) {
                let turned = app.post(&path, &token, json!({ "actions": [wrong] })).await;
                assert_eq!(turned.status, 200, "{}", turned.body);
                assert_eq!(turned.body["verdict"], "not_this_way", "{game:?} {key}");
                assert_eq!(turned.body["accepted"], 0);
                assert_eq!(turned.body["view"], opened.body["view"], "nothing played");
            }
            for played in 1..=lesson.line.len() {
                let sent = &lesson.line[..played];
                let answer = app.post(&path, &token, json!({ "actions": sent })).await;
                assert_eq!(answer.status, 200, "{game:?} {key}: {}", answer.body);
                let want = if played == lesson.line.len() {
                    "done"
                } else {
                    "playing"
                };
                assert_eq!(answer.body["verdict"], want, "{game:?} {key} {played}");
                assert_eq!(answer.body["accepted"], played);
                nothing_hidden(game, key, played, &answer.body);
            }
        }
        let list = app.get(&format!("/v1/lessons/{id}"), &token).await;
        assert!(
            list.body["steps"]
                .as_array()
                .unwrap()
                .iter()
                .all(|s| s["done"] == true),
            "{}",
            list.body
        );
    }
    app.stop().await;
}

/// Progress is each account's own, and a step is recorded only once done.
#[actix_web::test]
async fn progress_is_kept_per_account_and_only_when_done() {
    let app = TestApp::start().await;
    let (ann, bea) = (app.register("ann").await, app.register("bea").await);
    let lesson = lessons(GameId::FlipChess).remove(1);
    let path = format!("/v1/lessons/flipchess/{}/moves", lesson.key);
    let partway = app
        .post(&path, &ann, json!({"actions": &lesson.line[..1]}))
        .await;
    assert_eq!(partway.body["verdict"], "playing");
    assert_eq!(
        app.count("SELECT count(*) AS n FROM lessons_done".into())
            .await,
        0
    );
    let done = app.post(&path, &ann, json!({"actions": lesson.line})).await;
    assert_eq!(done.body["verdict"], "done", "{}", done.body);
    let again = app.post(&path, &ann, json!({"actions": lesson.line})).await;
    assert_eq!(again.status, 200, "a step may be replayed");
    let mine = app.get("/v1/lessons/flipchess", &ann).await.body;
    let theirs = app.get("/v1/lessons/flipchess", &bea).await.body;
    let done_of = |v: &Value| -> Vec<bool> {
        v["steps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["done"] == true)
            .collect()
    };
    assert_eq!(
        done_of(&mine),
        vec![false, true, false, false, false, false, false]
    );
    assert!(done_of(&theirs).iter().all(|d| !d));

    let unknown = app.get("/v1/lessons/flipchess/nope", &ann).await;
    assert_eq!(unknown.status, 404);
    let too_long = [lesson.line.clone(), lesson.line.clone()].concat();
    let refused = app.post(&path, &ann, json!({ "actions": too_long })).await;
    // The document sets no length: refused for its meaning (issue #65).
    assert_eq!(refused.status, 422, "{}", refused.body);
    let malformed = app.post(&path, &ann, json!({"actions": "e2e4"})).await;
    assert_eq!(malformed.status, 400, "{}", malformed.body);
    app.stop().await;
}

/// A visitor with no account plays first steps (docs/lessons.md, "A
/// visitor"): the list, a step and its moves answer without a token, a
/// finished step says `done` and nothing is written: no account, no
/// guest, no completed step. A token that is there must be good.
#[actix_web::test]
async fn a_visitor_plays_a_first_step_without_an_account_and_nothing_is_kept() {
    let app = TestApp::start().await;
    let game = GameId::Janggi;
    let lesson = lessons(game).remove(0);
    let (id, key) = (game.id(), lesson.key);
    let visit = |method: &'static str, path: String, body: Option<Value>| {
        let app = &app;
        async move { app.request(method, &path, None, body, &[]).await }
    };
    let count = |table: &str| app.count(format!("SELECT count(*) AS n FROM {table}"));
    // The computers' accounts are there from the start.
    let (users, done) = (count("users").await, count("lessons_done").await);
    let list = visit("GET", format!("/v1/lessons/{id}"), None).await;
    assert_eq!(list.status, 200, "{}", list.body);
    let step = visit("GET", format!("/v1/lessons/{id}/{key}"), None).await;
    assert_eq!(step.status, 200, "{}", step.body);
    let played = visit(
        "POST",
        format!("/v1/lessons/{id}/{key}/moves"),
        Some(json!({ "actions": lesson.line })),
    )
    .await;
    assert_eq!(played.status, 200, "{}", played.body);
    assert_eq!(played.body["verdict"], "done");
    assert_eq!(
        (count("users").await, count("lessons_done").await),
        (users, done),
        "no account, guest or step kept for a visitor"
    );
    let stale = app
        .request(
            "GET",
            &format!("/v1/lessons/{id}"),
            Some("not-a-token"),
            None,
            &[],
        )
        .await;
    assert_eq!(stale.status, 401, "{}", stale.body);
    app.stop().await;
}
