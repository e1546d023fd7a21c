//! Issue #32, the computer's path through the service seen from inside:
//! the engine is handed the computer seat's own view and nothing more
//! (§H1), and a decision whose match moved on while it was made (the
//! person took back) meets the seq check at the act, moving nothing.

use crate::support::TestApp;
use posthorn::computer::moves::Mover;
use posthorn::jobs::one_off::{run_due, Ran};
use posthorn::matches::Table;
use posthorn_rules::engine::{self, Level};
use posthorn_rules::{GameId, Random, RuleError, Seat, Viewer};
use serde_json::{json, Value};
use std::sync::{Barrier, Mutex};

/// The views the spy engine was handed.
static SEEN: Mutex<Vec<Value>> = Mutex::new(Vec::new());

/// The real engine, recording what it is handed.
fn spy_engine(
    game: GameId,
    view: &Value,
    seat: Seat,
    level: Level,
    random: &mut dyn Random,
) -> Result<Value, RuleError> {
    SEEN.lock().unwrap().push(view.clone());
    engine::decide(game, view, seat, level, random)
}

/// FlipChess (§F: the person's hand and the deck are hidden from the
/// computer's seat): what the engine is handed is exactly the computer
/// seat's view, and none of what that seat may not see is in it.
#[actix_web::test]
async fn the_engine_is_handed_the_computer_seats_own_view_and_nothing_hidden_h1() {
    let app = TestApp::start_seeded(5).await;
    let mina = app.register("mina").await;
    let created = app
        .post(
            "/v1/matches",
            &mina,
            json!({"game": "flipchess", "computers": [{"level": "easy"}], "side": 1}),
        )
        .await;
    assert_eq!(created.status, 201, "{}", created.body);
    let id: uuid::Uuid = created.body["id"].as_str().unwrap().parse().unwrap();
    let seat = Seat(1 - created.body["my_seats"][0].as_u64().unwrap() as u8);
    // The computer owes the first action: its seat's view and secrets now.
    let (expected, secrets) = app
        .blocking(move |s| {
            let mut c = s.pool.get().unwrap();
            let table = Table::load(&mut c, id, false).unwrap().unwrap();
            (
                table.state.view(Viewer::Seat(seat)),
                table.state.secrets(Viewer::Seat(seat)),
            )
        })
        .await;
    assert!(!secrets.is_empty(), "the person's hand is hidden from it");
    let ran = app
        .blocking(|s| {
            let mover = Mover {
                engine: spy_engine,
                ..Mover::new(s.dice.clone())
            };
            run_due(&s.pool, &[&mover], s.clock.now()).unwrap()
        })
        .await;
    assert_eq!(ran.done, 1, "{ran:?}");
    let seen = SEEN.lock().unwrap().clone();
    assert_eq!(seen.first(), Some(&expected), "the computer seat's view");
    for view in &seen {
        crate::banqi::assert_hides(view, &secrets, "the engine's input");
    }
    app.stop().await;
}

/// The engine's two meeting points with the test: decided, then let go.
static DECIDED: Barrier = Barrier::new(2);
static GO_ON: Barrier = Barrier::new(2);

/// The real engine, which holds its answer until the test lets it go.
fn slow_engine(
    game: GameId,
    view: &Value,
    seat: Seat,
    level: Level,
    random: &mut dyn Random,
) -> Result<Value, RuleError> {
    let action = engine::decide(game, view, seat, level, random);
    DECIDED.wait();
    GO_ON.wait();
    action
}

/// While the computer thinks, the person takes back their move: the
/// computer's answer, decided at the old seq, meets the newer seq at the
/// act (not only at the read) and moves nothing; the job is done.
#[actix_web::test]
async fn a_reply_decided_before_a_takeback_moves_nothing() {
    let app = TestApp::start_seeded(6).await;
    let mina = app.register("mina").await;
    let created = app
        .post(
            "/v1/matches",
            &mina,
            json!({"game": "checkers", "computers": [{"level": "easy"}], "side": 0}),
        )
        .await;
    let id = created.body["id"].as_str().unwrap().to_owned();
    let legal = app
        .get(&format!("/v1/matches/{id}/legal-actions"), &mina)
        .await
        .body;
    let moved = app
        .post(
            &format!("/v1/matches/{id}/actions"),
            &mina,
            json!({"seq": legal["seq"], "action": legal["actions"][0]}),
        )
        .await;
    assert_eq!(moved.status, 200, "{}", moved.body);
    let thinking = app.blocking(|s| {
        let mover = Mover {
            engine: slow_engine,
            ..Mover::new(s.dice.clone())
        };
        run_due(&s.pool, &[&mover], s.clock.now()).unwrap()
    });
    let person = async {
        app.blocking(|_| DECIDED.wait()).await;
        let seq = app.get(&format!("/v1/matches/{id}"), &mina).await.body["seq"].clone();
        let back = app
            .post(
                &format!("/v1/matches/{id}/takeback"),
                &mina,
                json!({"seq": seq}),
            )
            .await;
        app.blocking(|_| GO_ON.wait()).await;
        back
    };
    let (ran, back) = futures_util::future::join(thinking, person).await;
    assert_eq!(back.status, 200, "{}", back.body);
    assert_eq!(
        ran,
        Ran {
            done: 1,
            retried: 0
        },
        "a stale answer is no failure"
    );
    let after = app.get(&format!("/v1/matches/{id}"), &mina).await.body;
    assert_eq!(
        after["seq"], back.body["seq"],
        "nothing moved after the takeback"
    );
    let mine = after["my_seats"][0].clone();
    assert_eq!(after["to_act"][0]["seat"], mine, "the person's turn again");
    app.stop().await;
}

/// Four-player chess mixes people and computers in any seats (issue #32):
/// two friends against two computers in teams. With other people at the
/// table the match is timed for everyone and never rated, it starts when
/// the challenged friend accepts, the computers answer by themselves, and
/// nobody takes back at once (other people's turns are at stake).
#[actix_web::test]
async fn two_friends_play_four_player_teams_against_two_computers() {
    let app = TestApp::start_seeded(8).await;
    let mina = app.register("mina").await;
    let bob = app.register("bob").await;
    let ask = |extra: Value| {
        let mut body = json!({
            "game": "four_player_chess/teams",
            "seat": 0,
            "opponents": ["bob"],
            "computers": [{"level": "easy", "seat": 1}, {"level": "normal", "seat": 3}],
        });
        for (k, v) in extra.as_object().unwrap() {
            body[k] = v.clone();
        }
        body
    };
    let rated = app
        .post("/v1/matches", &mina, ask(json!({"rated": true})))
        .await;
    // Refused for its meaning: 422 since issue #46.
    assert_eq!(rated.status, 422, "never rated: {}", rated.body);
    // `challenge`: bob is asked, not seated by the harness.
    let created = app
        .challenge("/v1/matches", &mina, ask(json!({"turn_hours": 24})))
        .await;
    assert_eq!(created.status, 201, "{}", created.body);
    let m = &created.body;
    assert_eq!(m["status"], "waiting", "until bob accepts");
    assert_eq!(m["rated"], false);
    assert_eq!(m["turn_hours"], 24.0, "timed, as between people");
    let id = m["id"].as_str().unwrap().to_owned();
    let accepted = app
        .request(
            "POST",
            &format!("/v1/matches/{id}/accept"),
            Some(&bob),
            None,
            &[],
        )
        .await;
    assert_eq!(accepted.status, 200, "{}", accepted.body);
    let m = app.get(&format!("/v1/matches/{id}"), &mina).await.body;
    assert_eq!(m["status"], "active");
    assert_eq!(m["seats"][2]["user"]["username"], "bob", "mina's partner");
    assert_eq!(m["seats"][1]["user"]["computer"], "easy");
    assert_eq!(m["seats"][3]["user"]["computer"], "normal");
    // Play round the table: the person to move moves, the computer after
    // them answers by itself (partners sit opposite: turns alternate
    // between people and computers), every person's turn has a deadline.
    for _ in 0..4 {
        let m = app.get(&format!("/v1/matches/{id}"), &mina).await.body;
        let duty = &m["to_act"][0];
        assert!(duty["deadline_at"].is_string(), "{duty}");
        let token = if duty["seat"] == 0 { &mina } else { &bob };
        assert!(
            duty["seat"] == 0 || duty["seat"] == 2,
            "a person's turn: {duty}"
        );
        let legal = app
            .get(&format!("/v1/matches/{id}/legal-actions"), token)
            .await
            .body;
        let first_move = (legal["actions"].as_array().unwrap().iter())
            .find(|a| a["type"] == "move")
            .unwrap()
            .clone();
        let moved = app
            .post(
                &format!("/v1/matches/{id}/actions"),
                token,
                json!({"seq": legal["seq"], "action": first_move}),
            )
            .await;
        assert_eq!(moved.status, 200, "{}", moved.body);
        let ran = app
            .blocking(|s| {
                let mover = Mover::new(s.dice.clone());
                run_due(&s.pool, &[&mover], s.clock.now()).unwrap()
            })
            .await;
        assert_eq!(
            ran,
            Ran {
                done: 1,
                retried: 0
            },
            "the computer after answers"
        );
    }
    let m = app.get(&format!("/v1/matches/{id}"), &mina).await.body;
    let back = app
        .post(
            &format!("/v1/matches/{id}/takeback"),
            &mina,
            json!({"seq": m["seq"]}),
        )
        .await;
    assert_eq!(back.status, 422, "{}", back.body);
    // Mina resigns for the team (§Q9 in teams); a rematch, once both
    // friends ask, seats the computers again and stays timed.
    let resigned = app.act(&mina, &id, json!({"type": "resign"})).await;
    assert_eq!(resigned.status, 200, "{}", resigned.body);
    let rematch = format!("/v1/matches/{id}/rematch");
    let asked = app.post(&rematch, &mina, json!({})).await;
    assert_eq!(asked.status, 200, "{}", asked.body);
    let started = app.post(&rematch, &bob, json!({})).await.body["rematch"].clone();
    let again = app
        .get(
            &format!("/v1/matches/{}", started["id"].as_str().unwrap()),
            &bob,
        )
        .await
        .body;
    assert_eq!(again["turn_hours"], 24.0, "{again}");
    assert_eq!(again["rated"], false);
    let computers = (again["seats"].as_array().unwrap().iter())
        .filter(|s| s["user"]["computer"].is_string())
        .count();
    assert_eq!(computers, 2);
    app.stop().await;
}
