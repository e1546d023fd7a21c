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
