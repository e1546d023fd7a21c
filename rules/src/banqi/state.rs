//! Banqi state (docs/rules/banqi.md §B): the actions, the events, the state and its
//! fold over events.

use super::board::{self, Cell, Colour, Kind, Piece, Position, Step};
use crate::{Outcome, RuleError, Seat, Told};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    /// `{"type": "turn_up", "square": "a1"}`.
    TurnUp {
        square: String,
    },
    /// `{"type": "move", "move": "a1-a2"}`, or a capture `"a1xa2"`.
    Move {
        #[serde(rename = "move")]
        notation: String,
    },
    Resign {},
}

/// The facts of a Banqi match.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// The seat drawn to act first and the layout: the whole position in
    /// §B9 notation, which no viewer receives (`null` for everyone), and
    /// the squares that start face down.
    Started {
        first: Seat,
        #[serde(default)]
        position: Option<String>,
        face_down: Vec<String>,
    },
    /// A piece turned up: from now on everyone knows it.
    TurnedUp {
        seat: Seat,
        square: String,
        piece: Piece,
    },
    Moved {
        seat: Seat,
        #[serde(rename = "move")]
        notation: String,
        /// The face-up piece taken, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        captured: Option<Piece>,
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
    pub first: Seat,
    /// Seat 0's colour, once the first turn-up fixed it (§B2).
    pub seat0_colour: Option<Colour>,
    pub position: Position,
    pub plies: u32,
    /// Positions since the last turn-up or capture, the current one last.
    pub history: Vec<Position>,
    pub captured: Vec<Piece>,
    pub last_action: Option<String>,
    pub outcome: Option<Outcome>,
}

impl State {
    pub fn colour_of(&self, seat: Seat) -> Option<Colour> {
        self.seat0_colour
            .map(|c| if seat == Seat(0) { c } else { c.other() })
    }

    pub fn seat_of(&self, colour: Colour) -> Seat {
        if self.seat0_colour == Some(colour) {
            Seat(0)
        } else {
            Seat(1)
        }
    }

    /// The seat to act: the first seat until colours are fixed.
    pub fn on_move(&self) -> Seat {
        match self.position.to_act {
            Some(colour) if self.seat0_colour.is_some() => self.seat_of(colour),
            _ => self.first,
        }
    }

    /// An action as a turn notice tells it (issue #66 item 7), read
    /// against the state after its append. §B8: a piece is named only
    /// where this state shows it face up — a turn-up by the piece now up
    /// on its square (the turned-up piece is everyone's from then on), a
    /// move by the mover's piece on the destination — so a face-down
    /// piece is never told.
    pub fn told(&self, event: &Event) -> Option<Told> {
        let face_up = |sq: u8| match self.position.cells.get(sq as usize) {
            Some(Cell::Up(p)) => Some(*p),
            _ => None,
        };
        match event {
            Event::TurnedUp { square, piece, .. } => {
                let sq = board::parse_square(square)?;
                let up = face_up(sq).filter(|p| p == piece)?;
                Some(Told::TurnedUp {
                    piece: word(up.kind),
                    at: board::square_name(sq),
                })
            }
            Event::Moved { seat, notation, .. } => {
                let (Step::Move(from, to) | Step::Capture(from, to)) = Step::parse(notation)?
                else {
                    return None;
                };
                let piece = face_up(to)
                    .filter(|p| Some(p.colour) == self.colour_of(*seat))
                    .map(|p| word(p.kind));
                Some(Told::Moved {
                    piece,
                    from: board::square_name(from),
                    to: board::square_name(to),
                })
            }
            _ => None,
        }
    }

    /// §B7: the same pieces on the same squares (face-down ones
    /// included) with the same side to act; the quiet count is not part
    /// of it.
    pub(super) fn repetitions(&self) -> usize {
        let now = &self.position;
        self.history
            .iter()
            .filter(|p| p.cells == now.cells && p.to_act == now.to_act)
            .count()
    }
}

impl State {
    /// Fold one event into the state.
    pub fn apply(&mut self, event: &Event) -> Result<(), RuleError> {
        let state = self;
        match event {
            Event::Started {
                first, position, ..
            } => {
                // None: the standard start, dealt face down.
                let (position, captured) = match position.as_deref() {
                    Some(p) => {
                        let p = Position::from_notation(p)
                            .map_err(|e| RuleError::unreadable("position", e))?;
                        (p, missing(&p))
                    }
                    None => (Position::default(), Vec::new()),
                };
                *state = State {
                    first: *first,
                    seat0_colour: position.to_act.map(|c| {
                        if *first == Seat(0) {
                            c
                        } else {
                            c.other()
                        }
                    }),
                    position,
                    history: vec![position],
                    captured,
                    ..State::default()
                };
            }
            Event::TurnedUp {
                seat,
                square,
                piece,
            } => {
                if state.seat0_colour.is_none() {
                    // §B2: the turner plays the colour it turned up.
                    let colour = if *seat == Seat(0) {
                        piece.colour
                    } else {
                        piece.colour.other()
                    };
                    state.seat0_colour = Some(colour);
                }
                let sq = board::parse_square(square).ok_or_else(|| {
                    RuleError::malformed(format!("a stored square that does not parse: {square}"))
                })?;
                state.position = state.position.play(Step::TurnUp(sq));
                state.history.clear();
                state.history.push(state.position);
                state.plies += 1;
                state.last_action = Some(square.clone());
            }
            Event::Moved {
                notation, captured, ..
            } => {
                let step = Step::parse(notation).ok_or_else(|| {
                    RuleError::malformed(format!("a stored move that does not parse: {notation}"))
                })?;
                state.position = state.position.play(step);
                if let Some(piece) = captured {
                    state.captured.push(*piece);
                    state.history.clear();
                }
                state.history.push(state.position);
                state.plies += 1;
                state.last_action = Some(notation.clone());
            }
            Event::Resigned { .. } | Event::Abandoned { .. } => {}
            Event::Finished { result } => state.outcome = Some(result.clone()),
        }
        Ok(())
    }
}

/// §B9: the pieces of the set that a given position does not hold were
/// taken before it, and are shown as taken: so what lies face down is
/// exactly the pieces neither on the board face up nor taken, as in a
/// match played from the start (the engines' and the puzzles' unseen
/// pieces, §H). The standard start holds all 32: none.
fn missing(position: &Position) -> Vec<Piece> {
    let mut left = Piece::set();
    for cell in position.cells.iter() {
        if let Cell::Up(p) | Cell::Down(p) = cell {
            if let Some(i) = left.iter().position(|q| q == p) {
                left.remove(i);
            }
        }
    }
    left
}

pub(super) fn other(seat: Seat) -> Seat {
    Seat(1 - seat.0)
}

/// The web client's word key of a piece (`src/web/words.js`).
fn word(kind: Kind) -> &'static str {
    match kind {
        Kind::General => "piece_banqi_general",
        Kind::Advisor => "piece_banqi_advisor",
        Kind::Elephant => "piece_banqi_elephant",
        Kind::Chariot => "piece_banqi_chariot",
        Kind::Horse => "piece_banqi_horse",
        Kind::Cannon => "piece_banqi_cannon",
        Kind::Soldier => "piece_banqi_soldier",
    }
}
