//! An independent check of FlipChess's "win this turn" puzzles (issue
//! #52, docs/puzzles.md), written apart from the miner
//! (`rules/src/flipchess/puzzle.rs`, `rules/src/engine/flipchess.rs`): it
//! uses only the rules' own `legal_actions`, `act` and `outcome`.
//!
//! For each puzzle of `puzzles/flipchess.jsonl`:
//! * the opening replays; the solver is on move at the start of a turn in
//!   round 4 or later (§F9), holding at least two cards;
//! * the line is the solver's alone, each action legal, and ends with the
//!   solver's win by the rules' outcome within that one turn;
//! * at each step every other legal action of the solver (a play with or
//!   without "last card!" counted once, resigning left out) takes no king
//!   this turn, by this file's own exhaustive search of the turn;
//! * every hidden state consistent with the solver's view gives the same
//!   line: the line draws nothing and exchanges no hands (no event of it
//!   names a card from the deck or the other hand), and the rules give
//!   the very same events with the hidden cards dealt otherwise — the
//!   other hand and the deck emptied, and swapped with each other. Since
//!   no action of the turn reads them, all consistent states are one
//!   class.
//!
//! `PUZZLES_CHECKED=n` checks about `n` of them (CI's small data).

mod harness;

use posthorn_rules::flipchess::{Action, Event, FlipChess, State};
use posthorn_rules::puzzles::{Found, Goal};
use posthorn_rules::{Env, Game, Seat, SplitMix64};

fn events_of(state: &State, seat: Seat, action: &Action) -> Option<Vec<Event>> {
    let mut random = SplitMix64::new(7);
    let mut env = Env {
        now: 0,
        random: &mut random,
    };
    FlipChess::act(state, seat, action, &mut env).ok()
}

fn played(state: &State, seat: Seat, action: &Action) -> Option<State> {
    let mut next = state.clone();
    for event in events_of(state, seat, action)? {
        FlipChess::apply(&mut next, &event).ok()?;
    }
    Some(next)
}

/// The solver's options: the rules' legal actions but resigning, a play
/// named once whether or not it calls "last card!".
fn options(state: &State, seat: Seat) -> Vec<Action> {
    let mut out: Vec<Action> = Vec::new();
    for action in FlipChess::legal_actions(state, seat) {
        let action = match action {
            Action::Resign {} => continue,
            Action::Play { card, colour, .. } => Action::Play {
                card,
                colour,
                last_card: false,
            },
            other => other,
        };
        if !out.contains(&action) {
            out.push(action);
        }
    }
    out
}

/// The action as the rules take it: a play that leaves one card calls.
fn as_played(state: &State, seat: Seat, action: &Action) -> Action {
    if let Action::Play { card, colour, .. } = action {
        let called = Action::Play {
            card: card.clone(),
            colour: *colour,
            last_card: true,
        };
        if FlipChess::legal_actions(state, seat).contains(&called) {
            return called;
        }
    }
    action.clone()
}

/// Whether `seat` wins before the turn count moves past `turn`.
fn takes_the_king(state: &State, seat: Seat, turn: u32) -> bool {
    if let Some(outcome) = FlipChess::outcome(state) {
        return outcome.winners == vec![seat];
    }
    if state.turns != turn {
        return false;
    }
    options(state, seat).iter().any(|a| {
        played(state, seat, &as_played(state, seat, a))
            .is_some_and(|n| takes_the_king(&n, seat, turn))
    })
}

fn check(found: &Found) -> Result<(), String> {
    let mut state = State::default();
    for event in &found.events {
        let event: Event = serde_json::from_value(event.clone()).map_err(|e| e.to_string())?;
        FlipChess::apply(&mut state, &event).map_err(|e| format!("{e:?}"))?;
    }
    let solver = found.solver;
    let turn = state.turns;
    if state.round() < 4 || state.on_move() != solver || state.hand(solver).len() < 2 {
        return Err("not a turn's start in round 4 or later with two cards".into());
    }
    if found.goal != Goal::Win {
        return Err("a FlipChess puzzle is won".into());
    }
    for (i, step) in found.line.iter().enumerate() {
        if step.seat != solver {
            return Err(format!("step {i} is not the solver's"));
        }
        let action: Action =
            serde_json::from_value(step.action.clone()).map_err(|e| e.to_string())?;
        let events = events_of(&state, solver, &action).ok_or(format!("step {i} refused"))?;
        hidden_bears_not(&state, solver, &action, &events).map_err(|e| format!("step {i}: {e}"))?;
        let key = options(&state, solver);
        let chosen = match &action {
            Action::Play { card, colour, .. } => Action::Play {
                card: card.clone(),
                colour: *colour,
                last_card: false,
            },
            other => other.clone(),
        };
        for other in key.iter().filter(|a| **a != chosen) {
            let next = played(&state, solver, &as_played(&state, solver, other));
            if next.is_some_and(|n| takes_the_king(&n, solver, turn)) {
                return Err(format!("step {i}: {other:?} wins this turn as well"));
            }
        }
        state = played(&state, solver, &action).ok_or(format!("step {i} refused"))?;
        if state.turns != turn && FlipChess::outcome(&state).is_none() {
            return Err(format!("the turn ended at step {i} with no king taken"));
        }
    }
    match FlipChess::outcome(&state) {
        Some(outcome) if outcome.winners == vec![solver] => Ok(()),
        other => Err(format!("the line ends in {other:?}")),
    }
}

/// The step's events name no hidden card, and are the same with the
/// other hand and the deck emptied, or swapped with each other.
fn hidden_bears_not(
    state: &State,
    solver: Seat,
    action: &Action,
    events: &[Event],
) -> Result<(), String> {
    let reads = events.iter().any(|e| {
        matches!(
            e,
            Event::Drew { .. } | Event::Reshuffled { .. } | Event::HandsExchanged { .. }
        )
    });
    if reads {
        return Err("the line draws or exchanges hands".into());
    }
    let other = 1 - solver.0 as usize;
    let mut emptied = state.clone();
    emptied.hands[other].clear();
    emptied.deck.clear();
    let mut swapped = state.clone();
    std::mem::swap(&mut swapped.hands[other], &mut swapped.deck);
    for dealt in [emptied, swapped] {
        if events_of(&dealt, solver, action).as_deref() != Some(events) {
            return Err("the hidden cards change what the rules do".into());
        }
    }
    Ok(())
}

#[test]
fn mined_flipchess_puzzles_win_this_turn_in_every_hidden_state_f9_h1() {
    let found = harness::mined("flipchess.jsonl", 365);
    let failures: Vec<String> = found
        .iter()
        .enumerate()
        .filter_map(|(i, p)| check(p).err().map(|e| format!("#{i}: {e}")))
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} fail: {failures:?}",
        failures.len(),
        found.len()
    );
}

/// The check bites: a line with its last move changed, or cut short,
/// fails.
#[test]
fn the_check_refuses_a_changed_or_short_line() {
    let found = harness::mined("flipchess.jsonl", 1).remove(0);
    check(&found).expect("the mined puzzle holds");
    let mut short = found.clone();
    short.line.pop();
    assert!(check(&short).is_err(), "a line cut short takes no king");
    let mut state = State::default();
    for event in &found.events {
        FlipChess::apply(&mut state, &serde_json::from_value(event.clone()).unwrap()).unwrap();
    }
    for step in &found.line[..found.line.len() - 1] {
        state = played(
            &state,
            found.solver,
            &serde_json::from_value(step.action.clone()).unwrap(),
        )
        .unwrap();
    }
    let last: Action = serde_json::from_value(found.line.last().unwrap().action.clone()).unwrap();
    let other = options(&state, found.solver)
        .into_iter()
        .find(|a| *a != last && matches!(a, Action::Move { .. }))
        .expect("another move");
    let mut changed = found.clone();
    changed.line.last_mut().unwrap().action = serde_json::to_value(&other).unwrap();
    assert!(check(&changed).is_err(), "another last move is no win");
}
