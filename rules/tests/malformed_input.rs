//! Arbitrary strings and JSON as moves, positions and actions: always a
//! precise error or a legal result, never a panic.

mod harness;

use harness::arbitrary_string;
use posthorn_rules::checkers::Position;
use posthorn_rules::{Env, GameId, MatchState, Seat, SplitMix64};
use serde_json::{json, Value};

fn checkers_match() -> MatchState {
    let events =
        MatchState::setup(GameId::Checkers, &json!({}), 2, &mut SplitMix64::new(0)).unwrap();
    MatchState::replay(GameId::Checkers, &events).unwrap()
}

#[test]
fn arbitrary_strings_as_positions_and_moves_never_panic() {
    let mut random = SplitMix64::new(42);
    let state = checkers_match();
    for _ in 0..20_000 {
        let text = arbitrary_string(&mut random);
        if let Err(e) = Position::from_fen(&text) {
            assert_eq!(e.code, "validation_failed");
            assert!(!e.message.is_empty());
        }
        let action = json!({"type": "move", "move": text});
        let mut env = Env {
            now: 0,
            random: &mut random,
        };
        match state.act(Seat(0), &action, &mut env) {
            Ok(events) => assert!(!events.is_empty()),
            Err(e) => assert!(
                ["validation_failed", "illegal_action"].contains(&e.code.as_str()),
                "{text:?}: {e}"
            ),
        }
        let config = json!({"position": text});
        if let Err(e) = MatchState::setup(GameId::Checkers, &config, 2, &mut SplitMix64::new(1)) {
            assert_eq!(e.code, "validation_failed");
        }
    }
}

#[test]
fn malformed_action_documents_are_refused_with_validation_failed() {
    let state = checkers_match();
    let cases: Vec<Value> = vec![
        json!(null),
        json!(7),
        json!("11-15"),
        json!([]),
        json!({}),
        json!({"type": "teleport"}),
        json!({"type": "move"}),
        json!({"type": "move", "move": 1115}),
        json!({"type": "move", "move": "11-15", "extra": true}),
        json!({"type": "resign", "why": "bored"}),
    ];
    for action in cases {
        let mut random = SplitMix64::new(0);
        let mut env = Env {
            now: 0,
            random: &mut random,
        };
        let err = state
            .act(Seat(0), &action, &mut env)
            .expect_err(&action.to_string());
        assert_eq!(err.code, "validation_failed", "{action}");
    }
}

#[test]
fn unknown_options_are_refused() {
    let err = MatchState::setup(
        GameId::Checkers,
        &json!({"variant": "martian"}),
        2,
        &mut SplitMix64::new(0),
    )
    .unwrap_err();
    assert_eq!(err.code, "validation_failed");
    let err = MatchState::setup(
        GameId::Checkers,
        &json!({"colour": "red"}),
        2,
        &mut SplitMix64::new(0),
    )
    .unwrap_err();
    assert_eq!(err.code, "validation_failed");
    let err =
        MatchState::setup(GameId::Checkers, &json!({}), 3, &mut SplitMix64::new(0)).unwrap_err();
    assert_eq!(err.code, "validation_failed");
}
