//! Acting in checkers (docs/rules/checkers.md §C1): validating an action and the facts
//! it produces, with the endings and automatic draws that follow a move.

use super::state::{other, win, Action, Event, State};
use super::{NO_PROGRESS_PLIES, PLY_LIMIT, REPETITIONS_FOR_DRAW};
use crate::{Env, Outcome, RuleError, Seat};

/// Validate `action` by `seat` and return the facts it produces.
pub fn act(
    state: &State,
    seat: Seat,
    action: &Action,
    _env: &mut Env,
) -> Result<Vec<Event>, RuleError> {
    if state.outcome.is_some() {
        return Err(RuleError::finished());
    }
    if seat.index() > 1 {
        return Err(RuleError::illegal("there is no such seat in checkers"));
    }
    match action {
        Action::Move { notation } => act_move(state, seat, notation),
        Action::OfferDraw {} => match state.draw_offer {
            Some(_) => Err(RuleError::illegal("a draw offer is already pending")),
            None if state.offer_spent[seat.index()] => Err(RuleError::illegal(
                "you may offer a draw again after your next move",
            )),
            None => Ok(vec![Event::DrawOffered { seat }]),
        },
        Action::AcceptDraw {} | Action::DeclineDraw {} => {
            if state.draw_offer != Some(other(seat)) {
                return Err(RuleError::illegal(
                    "there is no draw offer for you to answer",
                ));
            }
            Ok(if matches!(action, Action::AcceptDraw {}) {
                vec![
                    Event::DrawAccepted { seat },
                    Event::Finished {
                        result: Outcome::draw("draw_agreed"),
                    },
                ]
            } else {
                vec![Event::DrawDeclined { seat }]
            })
        }
        Action::Resign {} => Ok(vec![Event::Resigned { seat }, win(other(seat), "resigned")]),
    }
}

fn act_move(state: &State, seat: Seat, notation: &str) -> Result<Vec<Event>, RuleError> {
    if seat != state.on_move() {
        return Err(RuleError::not_your_turn());
    }
    let pos = &state.position;
    let mv = pos.find_move(state.variant, notation)?;
    let mut events = Vec::new();
    if state.draw_offer == Some(other(seat)) {
        events.push(Event::DrawOfferLapsed { seat: other(seat) });
    }
    events.push(Event::Moved {
        seat,
        notation: mv.to_string(),
        path: mv.path(),
        captured: mv.captured(),
        crowned: pos.crowns(&mv),
    });
    let mut after = state.clone();
    for e in &events {
        after.apply(e)?;
    }
    if let Some(end) = judge(&after, seat) {
        events.push(end);
    }
    Ok(events)
}

/// After `mover`'s move: a win first (the opponent cannot move), then
/// the automatic draws of §C1.
fn judge(after: &State, mover: Seat) -> Option<Event> {
    let pos = &after.position;
    if pos.count(pos.turn()) == 0 {
        return Some(win(mover, "no_pieces"));
    }
    if !pos.has_legal_move(after.variant) {
        return Some(win(mover, "no_legal_move"));
    }
    let reason = if after.repetitions() >= REPETITIONS_FOR_DRAW {
        "threefold_repetition"
    } else if after.quiet_plies >= NO_PROGRESS_PLIES {
        "no_progress"
    } else if after.plies >= PLY_LIMIT {
        "ply_limit"
    } else {
        return None;
    };
    Some(Event::Finished {
        result: Outcome::draw(reason),
    })
}
