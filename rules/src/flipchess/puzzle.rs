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

use super::cards::{Card, Face};
use super::{Action, Config, Deal, Event, FlipChess, Phase, State};
use crate::puzzles::{json, Found, Goal, Puzzles, Step};
use crate::{Game, RuleError, Seat, SplitMix64};

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
    crate::puzzles::play::<FlipChess>(&mut next, seat, action, &mut SplitMix64::new(0))?;
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

/// The first "win this turn" puzzle of a match's log: looked for just
/// before each card a player plays or draw they make, when the turn is
/// whole (no effect of the last one still to come), and proved again on
/// the puzzle's own new match.
pub fn mine(events: &[Event]) -> Result<Option<Found>, RuleError> {
    let mut state = State::default();
    for (i, event) in events.iter().enumerate() {
        let acts = matches!(event, Event::CardPlayed { .. })
            || matches!(event, Event::Drew { reason, .. } if reason == "no_playable_card");
        if i > 0 && acts {
            if let Some(found) = puzzle_at(&state, events.len() as u64) {
                return Ok(Some(found));
            }
        }
        state.apply(event)?;
        if state.outcome.is_some() {
            break;
        }
    }
    Ok(None)
}

fn puzzle_at(state: &State, seed: u64) -> Option<Found> {
    win_this_turn(state, state.on_move())?;
    let config = dealt(state)?;
    let opening = FlipChess::setup(&config, 2, &mut SplitMix64::new(seed)).ok()?;
    let mut fresh = State::default();
    for event in &opening {
        fresh.apply(event).ok()?;
    }
    let solver = fresh.on_move();
    let line = win_this_turn(&fresh, solver)?;
    Some(Found {
        events: opening.iter().map(json).collect(),
        seats: 2,
        solver,
        depth: line.len() as u32,
        line: line
            .iter()
            .map(|a| Step {
                seat: solver,
                action: json(a),
            })
            .collect(),
        goal: Goal::Win,
        margin: <FlipChess as Puzzles>::RULE.margin,
    })
}
