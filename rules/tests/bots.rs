//! The computer opponents of checkers (docs/rules/checkers.md §C) and Janggi (§J), issue
//! #32: every decision at every level is one of the seat's legal actions,
//! seeded playouts of computer against computer end as the rules say, the
//! same seed and view give the same action, and a won position is won.
//! Every decision is made from the seat's own view only.

use posthorn_rules::engine::{decide, Level};
use posthorn_rules::{Env, GameId, MatchState, Seat, SplitMix64, Viewer};
use serde_json::{json, Value};

/// A match of `game` set up with `config` through the contract.
fn start(game: GameId, config: &Value, seed: u64) -> MatchState {
    let mut random = SplitMix64::new(seed);
    let events = MatchState::setup(game, config, 2, &mut random).expect("setup");
    MatchState::replay(game, &events).expect("replay")
}

/// One decision by `level` for the seat owing the first duty, checked to
/// be one of its legal actions, and played.
fn step(state: &mut MatchState, level: Level, random: &mut SplitMix64) -> Value {
    let duty = state.to_act()[0].clone();
    let view = state.view(Viewer::Seat(duty.seat));
    let action = decide(state.game(), &view, duty.seat, level, random)
        .unwrap_or_else(|e| panic!("{} at {view}: {e}", level.id()));
    let legal = state.legal_actions(duty.seat);
    assert!(
        legal.contains(&action),
        "{} chose {action}, not among {legal:?} at {view}",
        level.id()
    );
    let kind = action["type"].as_str().unwrap_or_default();
    // §J5: a pass only without a move, or to end the match on points
    // right after the opponent's pass.
    if kind == "pass" {
        assert!(
            view["last_move"] == "pass" || !legal.iter().any(|a| a["type"] == "move"),
            "a pass while a move was possible at {view}"
        );
    }
    assert!(
        kind != "resign" && kind != "offer_draw",
        "the computer never resigns nor offers a draw"
    );
    let mut env = Env { now: 0, random };
    for event in state.act(duty.seat, &action, &mut env).expect("act") {
        state.apply(&event).expect("apply");
    }
    action
}

/// Play to the end: `levels(ply)` decides each ply. The harness's end
/// checks: the match ends within the game's cap, nobody owes anything
/// then, and no seat has a legal action left.
fn play_out(state: &mut MatchState, seed: u64, levels: impl Fn(usize) -> Level) -> String {
    let mut random = SplitMix64::new(seed);
    let cap = state.game().about().action_cap;
    for ply in 0..cap {
        if state.outcome().is_some() {
            break;
        }
        step(state, levels(ply), &mut random);
    }
    let outcome = state.outcome().expect("the match ends within its cap");
    assert!(state.to_act().is_empty(), "nobody acts once it is over");
    for seat in 0..2 {
        assert!(state.legal_actions(Seat(seat)).is_empty());
    }
    outcome.reason
}

/// Every level, in turn, for the first `mixed` plies; easy afterwards.
fn mixed(mixed: usize) -> impl Fn(usize) -> Level {
    move |ply| {
        if ply < mixed {
            Level::ALL[ply % 3]
        } else {
            Level::Easy
        }
    }
}

#[test]
fn c1_every_level_plays_american_legally_to_the_end() {
    for seed in 0..2 {
        let mut state = start(GameId::Checkers, &json!({}), seed);
        play_out(&mut state, seed, mixed(18));
    }
}

#[test]
fn c2_every_variant_is_played_legally_to_the_end() {
    for variant in posthorn_rules::checkers::Variant::NAMES {
        let mut state = start(GameId::Checkers, &json!({ "variant": variant }), 3);
        let mixed_plies = if *variant == "international" { 3 } else { 6 };
        play_out(&mut state, 3, mixed(mixed_plies));
    }
}

#[test]
fn j_every_level_plays_janggi_legally_to_the_end() {
    for seed in 0..2 {
        let mut state = start(GameId::Janggi, &json!({}), seed);
        play_out(&mut state, seed, mixed(9));
    }
}

/// §C1: a draw offer made to the computer is declined, on its move or not.
#[test]
fn c1_the_computer_declines_a_draw_offer() {
    let mut state = start(GameId::Checkers, &json!({}), 0);
    let mut random = SplitMix64::new(0);
    let mut env = Env {
        now: 0,
        random: &mut random,
    };
    // Black (seat 0) offers; White, not on move, owes the reply.
    for event in state
        .act(Seat(0), &json!({"type": "offer_draw"}), &mut env)
        .unwrap()
    {
        state.apply(&event).unwrap();
    }
    let view = state.view(Viewer::Seat(Seat(1)));
    for level in Level::ALL {
        let action = decide(GameId::Checkers, &view, Seat(1), level, &mut random).unwrap();
        assert_eq!(action, json!({"type": "decline_draw"}));
    }
    // Black, who offered, still moves.
    let view = state.view(Viewer::Seat(Seat(0)));
    let action = decide(GameId::Checkers, &view, Seat(0), Level::Easy, &mut random).unwrap();
    assert_eq!(action["type"], "move");
}

#[test]
fn the_same_seed_and_view_give_the_same_action() {
    for (game, config) in [
        (GameId::Checkers, json!({})),
        (GameId::Checkers, json!({"variant": "russian"})),
        (GameId::Janggi, json!({})),
    ] {
        let mut state = start(game, &config, 5);
        let mut random = SplitMix64::new(5);
        for ply in 0..12 {
            let Some(duty) = state.to_act().first().cloned() else {
                break;
            };
            let view = state.view(Viewer::Seat(duty.seat));
            for level in [Level::Easy, Level::Normal] {
                let seed = 100 + ply;
                let a = decide(game, &view, duty.seat, level, &mut SplitMix64::new(seed));
                let b = decide(game, &view, duty.seat, level, &mut SplitMix64::new(seed));
                assert_eq!(a, b, "{game:?} {} at {view}", level.id());
            }
            step(&mut state, Level::Easy, &mut random);
        }
    }
}

/// A position that `level` wins by force: the first decision is checked
/// to be legal, the loser's replies are its only moves, and the match is
/// won within `plies`.
fn wins(game: GameId, config: Value, level: Level, plies: usize) -> (Seat, String) {
    let mut state = start(game, &config, 0);
    let winner = state.to_act()[0].seat;
    let mut random = SplitMix64::new(1);
    for _ in 0..plies {
        if state.outcome().is_some() {
            break;
        }
        step(&mut state, level, &mut random);
    }
    let outcome = state.outcome().expect("the won position is won in time");
    assert_eq!(outcome.winners, vec![winner], "{outcome:?}");
    (winner, outcome.reason)
}

/// §C1: Black gives a man (9-14), White must take it (18x9), and Black's
/// double jump (5x14x21) takes White's last two men.
#[test]
fn c1_normal_and_hard_find_the_two_for_one_shot() {
    let config = json!({"position": "B:W17,18:B5,9,10"});
    for level in [Level::Normal, Level::Hard] {
        let (_, reason) = wins(GameId::Checkers, config.clone(), level, 3);
        assert_eq!(reason, "no_pieces", "{}", level.id());
    }
}

/// §J4: the chariot from i1 to i10 mates the lone king on e10 (the other
/// chariot holds rank 9; Cho's king, off the e file behind its guards,
/// cannot make bikjang instead).
#[test]
fn j4_normal_and_hard_find_mate_in_one() {
    let config = json!({"position": "4k4/R8/9/9/9/9/9/9/4A4/3KA3R w - - 0 1"});
    for level in [Level::Normal, Level::Hard] {
        let (_, reason) = wins(GameId::Janggi, config.clone(), level, 1);
        assert_eq!(reason, "checkmate", "{}", level.id());
    }
}

/// §J5: with no step left and not in check, the computer passes: each of
/// the king's steps (d2, e1, e2) is attacked by Han's chariots on i2 and e5.
#[test]
fn j5_the_computer_passes_when_it_has_no_move() {
    let config = json!({"position": "5k3/9/9/9/9/4r4/9/9/8r/3K5 w - - 0 1"});
    let mut state = start(GameId::Janggi, &config, 0);
    let duty = state.to_act()[0].clone();
    assert_eq!(state.legal_actions(duty.seat).len(), 2, "pass or resign");
    let action = step(&mut state, Level::Hard, &mut SplitMix64::new(2));
    assert_eq!(action, json!({"type": "pass"}));
}

/// Every engine reads the seat's view into its game's own `View`: a value
/// that is not one (nothing, the wrong shape, another game's view) is a
/// validation error, never a panic nor a move.
#[test]
fn a_value_that_is_not_the_games_view_is_refused() {
    let mut random = SplitMix64::new(48);
    let views: Vec<Value> = GameId::ALL
        .iter()
        .map(|&game| start(game, &json!({}), 1).view(Viewer::Seat(Seat(0))))
        .collect();
    for &game in GameId::ALL {
        let mut bad = vec![
            json!(null),
            json!({}),
            json!([1, 2]),
            json!({"position": 7}),
        ];
        for (other, view) in GameId::ALL.iter().zip(&views) {
            if *other != game {
                bad.push(view.clone());
            }
        }
        for view in bad {
            for seat in [Seat(0), Seat(1)] {
                let refused = decide(game, &view, seat, Level::Easy, &mut random);
                let error = refused.expect_err(&format!("{game:?} took {view}"));
                assert_eq!(
                    error.code,
                    posthorn_rules::RuleCode::ValidationFailed,
                    "{game:?} on {view}: {error}"
                );
            }
        }
    }
}
