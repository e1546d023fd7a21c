//! Seeded random playouts of whole checkers matches (DESIGN.md §6): no
//! panic, every listed action applies, fold(events) = state, and every match
//! ends by the rules' own caps (§C1: 400 plies at most).

use posthorn_rules::checkers::{Action, Checkers, Config, State, PLY_LIMIT};
use posthorn_rules::{Env, Game, GameId, MatchState, Random, Seat, SplitMix64};

const GAMES: u64 = 3000;

fn pick(random: &mut SplitMix64, actions: &[Action]) -> Action {
    // Mostly moves; draw offers and their answers now and then; resign rarely.
    let moves: Vec<&Action> = actions
        .iter()
        .filter(|a| matches!(a, Action::Move { .. }))
        .collect();
    let roll = random.below(1000);
    let side = |a: &&Action| !matches!(a, Action::Move { .. } | Action::Resign {});
    let others: Vec<&Action> = actions.iter().filter(side).collect();
    if roll < 1 || moves.is_empty() && others.is_empty() {
        return Action::Resign {};
    }
    if (roll < 40 || moves.is_empty()) && !others.is_empty() {
        return others[random.below(others.len() as u64) as usize].clone();
    }
    moves[random.below(moves.len() as u64) as usize].clone()
}

#[test]
fn playouts_never_panic_every_listed_action_applies_fold_equals_state_and_games_end() {
    let mut reasons = std::collections::BTreeMap::new();
    for seed in 0..GAMES {
        let mut random = SplitMix64::new(seed);
        let mut log = Checkers::setup(&Config::default(), 2, &mut random).unwrap();
        let mut state = State::default();
        for e in &log {
            Checkers::apply(&mut state, e);
        }
        let mut steps = 0;
        while Checkers::outcome(&state).is_none() {
            steps += 1;
            assert!(
                steps < 3 * PLY_LIMIT as usize,
                "seed {seed}: the match must end by the caps"
            );
            let duties = Checkers::to_act(&state);
            let seat = duties[random.below(duties.len() as u64) as usize].seat;
            let actions = Checkers::legal_actions(&state, seat);
            for action in &actions {
                let mut env = Env {
                    now: 0,
                    random: &mut random,
                };
                Checkers::act(&state, seat, action, &mut env)
                    .unwrap_or_else(|e| panic!("seed {seed}: listed {action:?} refused: {e}"));
            }
            let other = Seat(1 - seat.0);
            for action in Checkers::legal_actions(&state, other) {
                let mut env = Env {
                    now: 0,
                    random: &mut random,
                };
                assert!(
                    Checkers::act(&state, other, &action, &mut env).is_ok(),
                    "seed {seed}: {action:?}"
                );
            }
            let action = pick(&mut random, &actions);
            let mut env = Env {
                now: 0,
                random: &mut random,
            };
            let events = Checkers::act(&state, seat, &action, &mut env).unwrap();
            for e in &events {
                Checkers::apply(&mut state, e);
            }
            log.extend(events);
        }
        assert!(state.plies <= PLY_LIMIT);
        *reasons
            .entry(Checkers::outcome(&state).unwrap().reason)
            .or_insert(0) += 1;

        // The log alone replays the match, through the JSON the service stores.
        let stored: Vec<serde_json::Value> = log
            .iter()
            .map(|e| serde_json::to_value(e).unwrap())
            .collect();
        let replayed = MatchState::replay(GameId::Checkers, &stored).unwrap();
        assert_eq!(
            replayed,
            MatchState::Checkers(state),
            "seed {seed}: fold(events) = state"
        );
    }
    // The playouts reach the ways a match ends, not just one of them.
    for reason in [
        "no_legal_move",
        "no_pieces",
        "threefold_repetition",
        "draw_agreed",
        "resigned",
    ] {
        assert!(
            reasons.contains_key(reason),
            "no playout ended by {reason}: {reasons:?}"
        );
    }
}
