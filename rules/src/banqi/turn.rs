//! Acting in Banqi (docs/rules/banqi.md §B3–§B7): validating an action and the facts
//! it produces, with the endings that follow.

use super::board::{self, Cell, Step, QUIET_PLY_LIMIT};
use super::state::{other, Action, Event, State};
use super::REPETITIONS_FOR_DRAW;
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
        return Err(RuleError::illegal("there is no such seat in banqi"));
    }
    match action {
        Action::TurnUp { square } => {
            let sq = parse_square(square)?;
            act_step(state, seat, Step::TurnUp(sq))
        }
        Action::Move { notation } => {
            let step = Step::parse(notation)
                .filter(|s| !matches!(s, Step::TurnUp(_)))
                .ok_or_else(|| {
                    RuleError::malformed(format!(
                        "{notation:?} is not a move: write a1-a2, or a1xa2 for a capture"
                    ))
                })?;
            act_step(state, seat, step)
        }
        Action::Resign {} => Ok(vec![
            Event::Resigned { seat },
            Event::Finished {
                result: Outcome::win(vec![other(seat)], "resigned"),
            },
        ]),
    }
}

fn act_step(state: &State, seat: Seat, step: Step) -> Result<Vec<Event>, RuleError> {
    if seat != state.on_move() {
        return Err(RuleError::not_your_turn());
    }
    let pos = &state.position;
    pos.check(step)?;
    let event = match step {
        Step::TurnUp(sq) => {
            let Cell::Down(piece) = pos.cells[sq as usize] else {
                return Err(RuleError::illegal("that square is not face down"));
            };
            Event::TurnedUp {
                seat,
                square: board::square_name(sq),
                piece,
            }
        }
        Step::Move(..) | Step::Capture(..) => Event::Moved {
            seat,
            notation: step.to_string(),
            captured: match step {
                Step::Capture(_, to) => match pos.cells[to as usize] {
                    Cell::Up(p) => Some(p),
                    _ => None,
                },
                _ => None,
            },
        },
    };
    let mut after = state.clone();
    after.apply(&event)?;
    Ok(std::iter::once(event).chain(judge(&after, seat)).collect())
}

/// After `mover`'s action: a win (§B6), then the draws (§B7).
fn judge(after: &State, mover: Seat) -> Option<Event> {
    let pos = &after.position;
    let colour = pos.to_act?;
    let result = if pos.pieces_of(colour) == 0 {
        Outcome::win(vec![mover], "no_pieces")
    } else if !pos.has_legal_step() {
        Outcome::win(vec![mover], "no_legal_move")
    } else if after.repetitions() >= REPETITIONS_FOR_DRAW {
        Outcome::draw("threefold_repetition")
    } else if pos.quiet >= QUIET_PLY_LIMIT {
        Outcome::draw("no_progress")
    } else {
        return None;
    };
    Some(Event::Finished { result })
}

fn parse_square(text: &str) -> Result<u8, RuleError> {
    board::parse_square(text).ok_or_else(|| {
        RuleError::malformed(format!("{text:?} is not a square: files a–h, ranks 1–4"))
    })
}
