//! Four-player chess state (docs/rules/four-player-chess.md §Q): the actions, the events, the
//! state and its fold over events.

use super::board::{square_name, Army, Kind, Mode, Move, Owner, Position};
use crate::{Outcome, OutcomeKind, RuleError, Seat, Told};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    /// `{"type": "move", "move": "h2h4"}`; promotion `h10h11q`.
    Move {
        #[serde(rename = "move")]
        notation: String,
    },
    Resign {},
}

/// Which seat plays an army.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ArmySeat {
    pub army: Army,
    pub seat: Seat,
}

/// A piece taken by a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Captured {
    pub owner: Owner,
    pub kind: Kind,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub promoted: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// The mode, the armies drawn to each seat (absent armies unlisted)
    /// and the start position (§Q12).
    Started {
        mode: Mode,
        armies: Vec<ArmySeat>,
        position: String,
    },
    Moved {
        seat: Seat,
        army: Army,
        #[serde(rename = "move")]
        notation: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        captured: Option<Captured>,
    },
    /// §Q6: a stalemated army's turn passes in `teams`.
    Skipped {
        army: Army,
    },
    /// §Q7/Q9/Q10: the army leaves play; its pieces stay, dead. `reason`:
    /// `checkmate`, `stalemate`, `king_captured`, `resigned`, `abandoned`.
    Eliminated {
        army: Army,
        reason: String,
    },
    /// §Q8 points: `capture`, `king_captured`, `checkmate`, `double_check`,
    /// `triple_check`, `self_stalemate`, `stalemated_opponent`.
    Scored {
        army: Army,
        points: i32,
        reason: String,
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
    pub position: Position,
    /// Per army, the seat playing it (`None`: absent).
    pub seats: [Option<Seat>; 4],
    /// Per army, §Q8 points.
    pub scores: [i32; 4],
    pub plies: u32,
    /// Consecutive §Q6 skips.
    pub skips: usize,
    /// Per army, the ply of its last move (§Q8: who delivered a mate).
    pub last_moved: [u32; 4],
    /// Per army, whether its own last move left it without a legal move
    /// (§Q8 "stalemating yourself").
    pub stuck_after_own_move: [bool; 4],
    /// Fingerprints of the positions since the last irreversible change,
    /// the current one last (§Q6 repetition; kept small for cheap clones).
    pub history: Vec<u64>,
    pub last_move: Option<String>,
    pub outcome: Option<Outcome>,
    /// The armies eliminated, in the order they went (placements).
    pub out_order: Vec<Army>,
    /// Times the turn came round past the last army again: the round is
    /// one more (rewards §R3: a turn of every army in play, skips
    /// counted, the eliminated no longer waited for).
    pub rounds_done: u32,
}

impl State {
    pub fn mode(&self) -> Mode {
        self.position.mode
    }

    pub fn seat_of(&self, army: Army) -> Option<Seat> {
        self.seats[army.index()]
    }

    pub fn armies_of(&self, seat: Seat) -> Vec<Army> {
        Army::ALL
            .into_iter()
            .filter(|a| self.seat_of(*a) == Some(seat))
            .collect()
    }

    pub fn seat_count(&self) -> usize {
        self.seats
            .iter()
            .flatten()
            .map(|s| s.index() + 1)
            .max()
            .unwrap_or(0)
    }

    pub fn on_move(&self) -> Option<Seat> {
        self.seat_of(self.position.to_move)
    }

    /// The seats playing `team` (§Q1), for a teams result.
    pub(super) fn team_seats(&self, team: usize) -> Vec<Seat> {
        let mut seats: Vec<Seat> = Army::ALL
            .into_iter()
            .filter(|a| a.team() == team)
            .filter_map(|a| self.seat_of(a))
            .collect();
        seats.sort();
        seats.dedup();
        seats
    }

    /// Per seat, the sum of its armies' points.
    pub fn seat_scores(&self) -> Vec<f64> {
        let mut scores = vec![0.0; self.seat_count()];
        for army in Army::ALL {
            if let Some(seat) = self.seat_of(army) {
                scores[seat.index()] += self.scores[army.index()] as f64;
            }
        }
        scores
    }

    /// §Q8: the most points wins; equal top scores draw.
    pub(super) fn on_points(&self, reason: &str) -> Outcome {
        let scores = self.seat_scores();
        let top = scores.iter().copied().fold(f64::MIN, f64::max);
        let tops: Vec<Seat> = (0..scores.len())
            .filter(|i| scores[*i] == top)
            .map(|i| Seat(i as u8))
            .collect();
        let mut result = if tops.len() == 1 {
            Outcome {
                outcome: OutcomeKind::Points,
                winners: tops,
                reason: reason.to_owned(),
                scores: None,
            }
        } else {
            Outcome::draw(reason)
        };
        result.scores = Some(scores);
        result
    }

    /// The end when one army is left (§Q7, Q8).
    pub(super) fn last_standing(&self, reason: &str) -> Outcome {
        match self.mode() {
            Mode::Points => self.on_points(reason),
            _ => {
                let winners = self
                    .position
                    .live_armies()
                    .into_iter()
                    .filter_map(|a| self.seat_of(a))
                    .collect();
                Outcome::win(winners, reason)
            }
        }
    }

    /// A draw, or in `points` the end on points.
    pub(super) fn drawn(&self, reason: &str) -> Outcome {
        match self.mode() {
            Mode::Points => self.on_points(reason),
            _ => Outcome::draw(reason),
        }
    }

    /// A move as a turn notice tells it (issue #66 item 7), read against
    /// the state after its append: the move's squares, the piece on the
    /// destination if it is the moving army's. That army may be out by
    /// the end of the append (§Q7: its pieces stay, dead), and no other
    /// piece moves in it, so a dead piece there is still the one moved.
    pub fn told(&self, event: &Event) -> Option<Told> {
        let Event::Moved { army, notation, .. } = event else {
            return None;
        };
        let mv = Move::parse(notation)?;
        let piece = self
            .position
            .piece(mv.to)
            .filter(|p| matches!(p.owner, Owner::Dead) || p.owner == Owner::of(*army))
            .map(|p| chess_word(p.kind));
        Some(Told::Moved {
            piece,
            from: square_name(mv.from),
            to: square_name(mv.to),
        })
    }

    pub(super) fn repetitions(&self) -> usize {
        let now = fingerprint(&self.position);
        self.history.iter().filter(|p| **p == now).count()
    }
}

impl State {
    /// Fold one event into the state.
    pub fn apply(&mut self, event: &Event) -> Result<(), RuleError> {
        let before = self.position.to_move;
        self.fold(event)?;
        let after = self.position.to_move;
        if !matches!(event, Event::Started { .. }) && after.index() < before.index() {
            self.rounds_done += 1;
        }
        Ok(())
    }

    fn fold(&mut self, event: &Event) -> Result<(), RuleError> {
        let state = self;
        match event {
            Event::Started {
                armies, position, ..
            } => {
                let position = Position::from_notation(position)
                    .map_err(|e| RuleError::unreadable("position", e))?;
                let mut seats = [None; 4];
                for a in armies {
                    seats[a.army.index()] = Some(a.seat);
                }
                *state = State {
                    history: vec![fingerprint(&position)],
                    position,
                    seats,
                    ..State::default()
                };
            }
            Event::Moved { army, notation, .. } => {
                let Some(mv) = Move::parse(notation) else {
                    return Err(RuleError::malformed(format!(
                        "a stored move that does not parse: {notation}"
                    )));
                };
                let pawn = state
                    .position
                    .piece(mv.from)
                    .is_some_and(|p| p.kind == Kind::Pawn);
                if state.mode() == Mode::Points {
                    state.stuck_after_own_move[army.index()] = state.position.strands(*army, mv);
                }
                let (mut next, captured) = state.position.play(mv);
                next.pass_turn();
                state.position = next;
                state.plies += 1;
                state.skips = 0;
                state.last_moved[army.index()] = state.plies;
                if pawn || captured.is_some() {
                    state.history.clear();
                }
                state.history.push(fingerprint(&state.position));
                state.last_move = Some(notation.clone());
            }
            Event::Skipped { .. } => {
                state.position.pass_turn();
                state.skips += 1;
                state.history.push(fingerprint(&state.position));
            }
            Event::Eliminated { army, .. } => {
                state.position.eliminate(*army);
                state.out_order.push(*army);
                state.history.clear();
                state.history.push(fingerprint(&state.position));
            }
            Event::Scored { army, points, .. } => state.scores[army.index()] += points,
            Event::Resigned { .. } | Event::Abandoned { .. } => {}
            Event::Finished { result } => state.outcome = Some(result.clone()),
        }
        Ok(())
    }
}

/// A position's fingerprint for the repetition count: SipHash with fixed
/// keys, so the same on every machine and every replay.
fn fingerprint(position: &Position) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    position.hash(&mut hasher);
    hasher.finish()
}

/// The web client's word key of a chess piece (`src/web/words.js`); a
/// promoted queen is told as the queen it moves as (§Q8 scores it as a
/// pawn).
fn chess_word(kind: Kind) -> &'static str {
    match kind {
        Kind::King => "piece_chess_k",
        Kind::Queen => "piece_chess_q",
        Kind::Rook => "piece_chess_r",
        Kind::Bishop => "piece_chess_b",
        Kind::Knight => "piece_chess_n",
        Kind::Pawn => "piece_chess_p",
    }
}
