//! Checkers state (docs/rules/checkers.md §C): the actions, the events, the state and
//! its fold over events.

use super::{Board, Color, Step, Variant, NO_PROGRESS_PLIES};
use crate::{Outcome, RuleError, Seat, Told};
use serde::{Deserialize, Serialize};
use std::str::FromStr;

/// One step a seat may take.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    /// `{"type": "move", "move": "11x18x25"}` — PDN notation.
    Move {
        #[serde(rename = "move")]
        notation: String,
    },
    // Empty braces, not unit variants: serde ignores unknown fields on unit
    // variants of a tagged enum, and extra fields must be refused.
    OfferDraw {},
    AcceptDraw {},
    DeclineDraw {},
    Resign {},
}

/// `"11-15"` reads as a move; the other actions by their type name.
impl FromStr for Action {
    type Err = RuleError;
    fn from_str(s: &str) -> Result<Self, RuleError> {
        Ok(match s.trim() {
            "offer_draw" => Action::OfferDraw {},
            "accept_draw" => Action::AcceptDraw {},
            "decline_draw" => Action::DeclineDraw {},
            "resign" => Action::Resign {},
            text => Action::Move {
                notation: text.to_owned(),
            },
        })
    }
}

/// The facts of a checkers match. Squares are PDN numbers (1–32).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    Started {
        variant: Variant,
        position: String,
    },
    Moved {
        seat: Seat,
        #[serde(rename = "move")]
        notation: String,
        path: Vec<u8>,
        captured: Vec<u8>,
        crowned: bool,
    },
    DrawOffered {
        seat: Seat,
    },
    DrawDeclined {
        seat: Seat,
    },
    /// §C1: the offer lapses when the offerer's opponent moves or at the
    /// deadline.
    DrawOfferLapsed {
        seat: Seat,
    },
    DrawAccepted {
        seat: Seat,
    },
    Resigned {
        seat: Seat,
    },
    Abandoned {
        seat: Seat,
    },
    Finished {
        result: Outcome,
    },
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct State {
    pub variant: Variant,
    pub position: Board,
    /// Plies played in this match.
    pub plies: u32,
    /// Plies in a row with no capture and no man move.
    pub quiet_plies: u32,
    /// Positions since the last irreversible move, the current one last.
    pub history: Vec<Board>,
    /// The seat whose draw offer is pending.
    pub draw_offer: Option<Seat>,
    /// A seat whose offer was declined or lapsed may offer again only after
    /// a move of its own, so offers cannot be used to pester.
    pub offer_spent: [bool; 2],
    pub last_move: Option<String>,
    pub outcome: Option<Outcome>,
}

impl State {
    pub fn seat_of(color: Color) -> Seat {
        match color {
            Color::Black => Seat(0),
            Color::White => Seat(1),
        }
    }

    pub fn on_move(&self) -> Seat {
        Self::seat_of(self.position.turn())
    }

    /// Plies left before the §C1 no-progress draw.
    pub fn plies_until_no_progress_draw(&self) -> u32 {
        NO_PROGRESS_PLIES.saturating_sub(self.quiet_plies)
    }

    pub(super) fn repetitions(&self) -> usize {
        self.history.iter().filter(|p| **p == self.position).count()
    }

    /// A move as a turn notice tells it (issue #66 item 7), read against
    /// the state after its append: a multiple jump is one move (§C1), so
    /// from its first square to its last, PDN numbers; the piece as it
    /// stands there now, a man crowned on the far row (§C1) a king.
    pub fn told(&self, event: &Event) -> Option<Told> {
        let Event::Moved { seat, path, .. } = event else {
            return None;
        };
        let (from, to) = (*path.first()?, *path.last()?);
        let mover = [Color::Black, Color::White]
            .into_iter()
            .find(|c| Self::seat_of(*c) == *seat)?;
        let piece = self
            .position
            .pieces()
            .into_iter()
            .find(|&(square, colour, _)| square == to && colour == mover)
            .map(|(_, _, king)| match king {
                true => "piece_checkers_king",
                false => "piece_checkers_man",
            });
        Some(Told::Moved {
            piece,
            from: from.to_string(),
            to: to.to_string(),
        })
    }
}

impl State {
    /// Fold one event into the state.
    pub fn apply(&mut self, event: &Event) -> Result<(), RuleError> {
        let state = self;
        match event {
            Event::Started { variant, position } => {
                let position = Board::from_fen(*variant, position)
                    .map_err(|e| RuleError::unreadable("position", e))?;
                *state = State {
                    variant: *variant,
                    position,
                    history: vec![position],
                    ..State::default()
                };
            }
            Event::Moved {
                seat,
                path,
                captured,
                ..
            } => {
                apply_move(state, path, !captured.is_empty())?;
                state.offer_spent[seat.index()] = false;
            }
            Event::DrawOffered { seat } => state.draw_offer = Some(*seat),
            Event::DrawDeclined { .. } | Event::DrawOfferLapsed { .. } => {
                if let Some(offerer) = state.draw_offer.take() {
                    state.offer_spent[offerer.index()] = true;
                }
            }
            Event::DrawAccepted { .. } | Event::Resigned { .. } | Event::Abandoned { .. } => {
                state.draw_offer = None;
            }
            Event::Finished { result } => state.outcome = Some(result.clone()),
        }
        Ok(())
    }
}

fn apply_move(state: &mut State, path: &[u8], capture: bool) -> Result<(), RuleError> {
    let pos = state.position;
    let Some(mv) = replay_move(state.variant, &pos, path, capture) else {
        return Err(RuleError::malformed(format!(
            "a stored move that is not legal here: {path:?}"
        )));
    };
    let irreversible = mv.is_capture() || pos.moves_man(&mv);
    state.position = pos.play(&mv);
    state.plies += 1;
    if irreversible {
        state.quiet_plies = 0;
        state.history.clear();
    } else {
        state.quiet_plies += 1;
    }
    state.history.push(state.position);
    state.last_move = Some(mv.to_string());
    Ok(())
}

fn replay_move(variant: Variant, pos: &Board, path: &[u8], capture: bool) -> Option<Step> {
    let text: Vec<String> = path.iter().map(u8::to_string).collect();
    pos.find_move(variant, &text.join(if capture { "x" } else { "-" }))
        .ok()
}

pub(super) fn other(seat: Seat) -> Seat {
    Seat(1 - seat.0)
}

pub(super) fn win(seat: Seat, reason: &str) -> Event {
    Event::Finished {
        result: Outcome::win(vec![seat], reason),
    }
}
