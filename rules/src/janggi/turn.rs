//! Acting in Janggi (docs/rules/janggi.md §J4–§J6): validating an action and the
//! facts it produces, with the endings that follow a ply.

use super::board::Move;
use super::state::{other, Action, Event, State};
use super::{PLY_LIMIT, REPETITIONS_FOR_END};
use crate::{Env, RuleError, Seat};

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
        return Err(RuleError::illegal("there is no such seat in janggi"));
    }
    match action {
        Action::Move { notation } => {
            let mv = Move::parse(notation)
                .filter(|m| *m != Move::Pass)
                .ok_or_else(|| {
                    RuleError::malformed(format!(
                        "{notation:?} is not a move: write from and to, as b1c3"
                    ))
                })?;
            act_move(state, seat, mv)
        }
        Action::Pass {} => act_move(state, seat, Move::Pass),
        Action::Resign {} => Ok(vec![
            Event::Resigned { seat },
            state.finish(other(seat), "resigned"),
        ]),
    }
}

fn act_move(state: &State, seat: Seat, mv: Move) -> Result<Vec<Event>, RuleError> {
    if seat != state.on_move() {
        return Err(RuleError::not_your_turn());
    }
    let pos = &state.position;
    if !pos.is_legal(mv) {
        return Err(RuleError::illegal(match mv {
            Move::Pass => "you may not pass while in check (rules §J5)".to_owned(),
            _ if pos.in_check(pos.turn) => format!("{mv} does not answer the check"),
            _ => format!("{mv} is not a legal move here"),
        }));
    }
    let event = match mv {
        Move::Pass => Event::Passed { seat },
        Move::Step { to, .. } => Event::Moved {
            seat,
            notation: mv.to_string(),
            captured: pos.piece(to).map(|p| p.kind),
        },
    };
    let mut after = state.clone();
    after.apply(&event)?;
    let end = judge(state, &after, seat);
    Ok(std::iter::once(event).chain(end).collect())
}

/// After `mover`'s ply: checkmate, then the endings on points (§J6).
fn judge(before: &State, after: &State, mover: Seat) -> Option<Event> {
    let pos = &after.position;
    if pos.in_check(pos.turn) && !pos.has_step() {
        return Some(after.finish(mover, "checkmate"));
    }
    let reason = if pos.kings_face() {
        "bikjang"
    } else if before.passed && after.passed {
        "double_pass"
    } else if after.repetitions() >= REPETITIONS_FOR_END {
        "threefold_repetition"
    } else if after.plies >= PLY_LIMIT {
        "ply_limit"
    } else {
        return None;
    };
    Some(after.finish_on_points(reason))
}
