//! Janggi state (docs/rules/janggi.md §J): the actions, the events, the state and its
//! fold over events.

use super::board::{square_name, Kind, Move, Position, Side};
use super::Setups;
use crate::{Outcome, RuleError, Seat, Told};
use serde::{Deserialize, Serialize};

/// One step a seat may take.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    /// `{"type": "move", "move": "b1c3"}`.
    Move {
        #[serde(rename = "move")]
        notation: String,
    },
    /// §J5, only when not in check.
    Pass {},
    Resign {},
}

/// The facts of a Janggi match.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// The seat drawn to play Cho, the setups and the start (FEN).
    Started {
        cho: Seat,
        setups: Setups,
        position: String,
    },
    Moved {
        seat: Seat,
        #[serde(rename = "move")]
        notation: String,
        /// The piece taken, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        captured: Option<Kind>,
    },
    Passed {
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
    pub cho: Seat,
    pub setups: Setups,
    pub position: Position,
    /// Plies played, passes included (§J6).
    pub plies: u32,
    /// Whether the last ply was a pass (two in a row end the match).
    pub passed: bool,
    /// Positions since the last capture, the current one last (§J6).
    pub history: Vec<Position>,
    pub last_move: Option<String>,
    pub outcome: Option<Outcome>,
}

impl State {
    pub fn seat_of(&self, side: Side) -> Seat {
        match side {
            Side::Cho => self.cho,
            Side::Han => Seat(1 - self.cho.0),
        }
    }

    pub fn side_of(&self, seat: Seat) -> Side {
        if seat == self.cho {
            Side::Cho
        } else {
            Side::Han
        }
    }

    pub fn on_move(&self) -> Seat {
        self.seat_of(self.position.turn)
    }

    /// §J7: each seat's points now, in seat order.
    pub fn scores(&self) -> Vec<f64> {
        (0..2)
            .map(|i| self.position.points(self.side_of(Seat(i))))
            .collect()
    }

    pub(super) fn repetitions(&self) -> usize {
        self.history.iter().filter(|p| **p == self.position).count()
    }

    /// A move as a turn notice tells it (issue #66 item 7: "차 e2→e7"),
    /// read against the state after its append: the squares as the move
    /// writes them, the piece on the destination if it is the mover's.
    /// A pass (§J5) moves nothing.
    pub fn told(&self, event: &Event) -> Option<Told> {
        let Event::Moved { seat, notation, .. } = event else {
            return None;
        };
        let Move::Step { from, to } = Move::parse(notation)? else {
            return None;
        };
        let piece = self
            .position
            .piece(to)
            .filter(|p| p.side == self.side_of(*seat))
            .map(|p| word(p.kind));
        Some(Told::Moved {
            piece,
            from: square_name(from),
            to: square_name(to),
        })
    }

    pub(super) fn finish(&self, winner: Seat, reason: &str) -> Event {
        let mut result = Outcome::win(vec![winner], reason);
        result.scores = Some(self.scores());
        Event::Finished { result }
    }

    /// §J6/§J7: the end on points; Han's komi rules out a tie.
    pub(super) fn finish_on_points(&self, reason: &str) -> Event {
        let (cho, han) = (
            self.position.points(Side::Cho),
            self.position.points(Side::Han),
        );
        let winner = if cho > han { Side::Cho } else { Side::Han };
        self.finish(self.seat_of(winner), reason)
    }
}

impl State {
    /// Fold one event into the state.
    pub fn apply(&mut self, event: &Event) -> Result<(), RuleError> {
        let state = self;
        match event {
            Event::Started {
                cho,
                setups,
                position,
            } => {
                let position = Position::from_fen(position)
                    .map_err(|e| RuleError::unreadable("position", e))?;
                *state = State {
                    cho: *cho,
                    setups: *setups,
                    position,
                    history: vec![position],
                    ..State::default()
                };
            }
            Event::Moved { .. } | Event::Passed { .. } => {
                let mv = match event {
                    Event::Moved { notation, .. } => Move::parse(notation).ok_or_else(|| {
                        RuleError::malformed(format!(
                            "a stored move that does not parse: {notation}"
                        ))
                    })?,
                    _ => Move::Pass,
                };
                let (next, captured) = state.position.play(mv);
                state.position = next;
                state.plies += 1;
                state.passed = mv == Move::Pass;
                if captured.is_some() {
                    state.history.clear();
                }
                state.history.push(next);
                state.last_move = Some(mv.to_string());
            }
            Event::Resigned { .. } | Event::Abandoned { .. } => {}
            Event::Finished { result } => state.outcome = Some(result.clone()),
        }
        Ok(())
    }
}

pub(super) fn other(seat: Seat) -> Seat {
    Seat(1 - seat.0)
}

/// The web client's word key of a piece (`src/web/words.js`).
fn word(kind: Kind) -> &'static str {
    match kind {
        Kind::King => "piece_janggi_king",
        Kind::Guard => "piece_janggi_guard",
        Kind::Chariot => "piece_janggi_chariot",
        Kind::Cannon => "piece_janggi_cannon",
        Kind::Horse => "piece_janggi_horse",
        Kind::Elephant => "piece_janggi_elephant",
        Kind::Soldier => "piece_janggi_soldier",
    }
}
