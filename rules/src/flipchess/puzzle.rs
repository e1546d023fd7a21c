//! FlipChess's "win this turn" puzzles (issue #52, docs/puzzles.md): from
//! the start of a turn in round 4 or later (§F9: a taken king ends the
//! match), the solver's hand, the pile's top card and the board, the
//! actions of this one turn that take the opponent's king — when at every
//! step exactly one action keeps that win, and somewhere there was
//! another to choose.
//!
//! Nothing hidden bears on such a line: within the solver's own turn the
//! rules read the board, the solver's hand, the pile's top and the moves
//! left, never the deck or the other hand, and a line never draws (a
//! hand with nothing playable draws, so it has no line) and ends with
//! the king taken, before any card's effect (§F5.4). The puzzle's match
//! is set up anew from those (the `deal` option): the other hand is the
//! one the opponent held, the deck shuffled anew.
//!
//! Here is what such a line is, by FlipChess's own rules; the miner that
//! reads a match's log for one and makes it a puzzle sits with the other
//! puzzles, over the engines (`engine/flipchess.rs`), a floor above the
//! game.

use super::cards::{Card, Face};
use super::{Action, Config, Deal, FlipChess, Phase, State};
use crate::{Env, Game, Seat, SplitMix64};

/// The first round in which taking a king ends the match (§F7, §F9).
pub const FIRST_DECIDING_ROUND: u32 = 4;

/// The solver's choices at a step: card plays and moves. A play that may
/// call "last card!" is offered with the call only (the same play, §F8);
/// drawing, calls, catches, resigning and ending the turn early never
/// take a king.
pub fn choices(state: &State, seat: Seat) -> Vec<Action> {
    let all = FlipChess::legal_actions(state, seat);
    let called = |card: &String, colour| {
        all.contains(&Action::Play {
            card: card.clone(),
            colour,
            last_card: true,
        })
    };
    all.iter()
        .filter(|a| match a {
            Action::Play {
                card,
                colour,
                last_card,
            } => *last_card || !called(card, *colour),
            Action::Move { .. } => true,
            _ => false,
        })
        .cloned()
        .collect()
}

/// `state` after `seat` plays `action`, or `None` if the rules refuse it.
pub fn after(state: &State, seat: Seat, action: &Action) -> Option<State> {
    let mut next = state.clone();
    let mut env = Env {
        now: 0,
        random: &mut SplitMix64::new(0),
    };
    for event in FlipChess::act(state, seat, action, &mut env).ok()? {
        FlipChess::apply(&mut next, &event).ok()?;
    }
    Some(next)
}

/// Whether `seat` takes the king before turn `turn` is over.
fn wins(state: &State, seat: Seat, turn: u32) -> bool {
    if let Some(outcome) = &state.outcome {
        return outcome.winners == [seat];
    }
    if state.turns != turn || state.on_move() != seat {
        return false;
    }
    choices(state, seat)
        .iter()
        .any(|a| after(state, seat, a).is_some_and(|next| wins(&next, seat, turn)))
}

/// The line of a "win this turn" puzzle for `seat` from `state`, if it
/// has one.
pub fn win_this_turn(state: &State, seat: Seat) -> Option<Vec<Action>> {
    let ready = state.outcome.is_none()
        && state.round() >= FIRST_DECIDING_ROUND
        && state.phase == Phase::Play
        && state.on_move() == seat
        && state.last_card.is_none()
        && state.hand(seat).len() >= 2;
    if !ready {
        return None;
    }
    let turn = state.turns;
    let (mut state, mut line, mut chose) = (state.clone(), Vec::new(), false);
    while state.outcome.is_none() {
        let options = choices(&state, seat);
        let mut keeping = options.iter().filter_map(|a| {
            let next = after(&state, seat, a)?;
            wins(&next, seat, turn).then(|| (a.clone(), next))
        });
        let (action, next) = keeping.next()?;
        if keeping.next().is_some() {
            return None;
        }
        chose |= options.len() > 1;
        line.push(action);
        state = next;
    }
    chose.then_some(line)
}

/// The configuration that deals `state`'s board and cards anew, the
/// pile's top card a number (§F1's first discard is one).
pub fn dealt(state: &State) -> Option<Config> {
    let top = *state.discard.last()?;
    if !matches!(Card::of(top).face, Face::Number(_)) {
        return None;
    }
    let names = |seat: Seat| -> Vec<String> {
        state
            .hand(seat)
            .iter()
            .map(|&c| Card::of(c).name())
            .collect()
    };
    let black = Seat(1 - state.white.0);
    Some(Config {
        position: Some(state.board.to_fen()),
        deal: Some(Deal {
            white: names(state.white),
            black: names(black),
            top: Card::of(top).name(),
            turns: state.turns,
        }),
    })
}
