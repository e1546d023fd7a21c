//! Checkers (RULES.md §C). Seat 0 plays Black and seat 1 White.
//!
//! Implemented: American checkers / English draughts (§C1), the default
//! variant. The other §C2 variants are not offered yet; they will come in
//! as values of [`Variant`] that change the hooks in `board.rs` (men capture
//! backward, flying kings, majority capture, crowning mid-capture), not as
//! a separate engine.

mod board;

pub use board::{perft, Color, Move, Position};

use crate::{About, Duty, DutyKind, Env, Game, Outcome, Random, RuleError, Seat, Viewer};
use serde::{Deserialize, Serialize};
use std::str::FromStr;

/// §C1 draw caps, in one place.
pub const NO_PROGRESS_PLIES: u32 = 80;
pub const PLY_LIMIT: u32 = 400;
pub const REPETITIONS_FOR_DRAW: usize = 3;

#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Variant {
    #[default]
    American,
}

impl Variant {
    pub const ALL: &'static [Variant] = &[Variant::American];
    /// The catalogue's names of [`Variant::ALL`], in the same order.
    pub const NAMES: &'static [&'static str] = &["american"];

    pub fn name(self) -> &'static str {
        Self::NAMES[Self::ALL.iter().position(|v| *v == self).unwrap_or(0)]
    }
}

/// Creation options. `position` starts the match from a PDN FEN position
/// (lessons, puzzles, playing on from a book position) instead of §C1's.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub variant: Variant,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<String>,
}

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
    pub position: Position,
    /// Plies played in this match.
    pub plies: u32,
    /// Plies in a row with no capture and no man move.
    pub quiet_plies: u32,
    /// Positions since the last irreversible move, the current one last.
    pub history: Vec<Position>,
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
        Self::seat_of(self.position.turn)
    }

    /// Plies left before the §C1 no-progress draw.
    pub fn plies_until_no_progress_draw(&self) -> u32 {
        NO_PROGRESS_PLIES.saturating_sub(self.quiet_plies)
    }

    fn repetitions(&self) -> usize {
        self.history.iter().filter(|p| **p == self.position).count()
    }
}

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct PieceView {
    pub square: u8,
    pub colour: &'static str,
    pub king: bool,
}

/// What any viewer sees: checkers has no hidden information.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct View {
    pub variant: Variant,
    /// PDN FEN of the position.
    pub position: String,
    pub pieces: Vec<PieceView>,
    pub side_to_move: &'static str,
    /// Seat 0 plays Black, seat 1 White.
    pub colours: [&'static str; 2],
    pub plies: u32,
    pub plies_until_no_progress_draw: u32,
    pub plies_until_ply_limit: u32,
    pub draw_offer: Option<Seat>,
    pub last_move: Option<String>,
}

pub struct Checkers;

fn other(seat: Seat) -> Seat {
    Seat(1 - seat.0)
}

fn win(seat: Seat, reason: &str) -> Event {
    Event::Finished {
        result: Outcome::win(vec![seat], reason),
    }
}

impl Checkers {
    fn act_move(state: &State, seat: Seat, notation: &str) -> Result<Vec<Event>, RuleError> {
        if seat != state.on_move() {
            return Err(RuleError::not_your_turn());
        }
        let pos = &state.position;
        let mv = pos.find_move(notation)?;
        let mut events = Vec::new();
        if state.draw_offer == Some(other(seat)) {
            events.push(Event::DrawOfferLapsed { seat: other(seat) });
        }
        let squares = |bits: u32| {
            (0..32u8)
                .filter(|i| bits & (1 << i) != 0)
                .map(|i| i + 1)
                .collect()
        };
        events.push(Event::Moved {
            seat,
            notation: mv.to_string(),
            path: mv.path().iter().map(|s| s + 1).collect(),
            captured: squares(mv.captured),
            crowned: pos.crowns(&mv),
        });
        let mut after = state.clone();
        for e in &events {
            Self::apply(&mut after, e);
        }
        if let Some(end) = Self::judge(&after, seat) {
            events.push(end);
        }
        Ok(events)
    }

    /// After `mover`'s move: a win first (the opponent cannot move), then
    /// the automatic draws of §C1.
    fn judge(after: &State, mover: Seat) -> Option<Event> {
        let pos = &after.position;
        if pos.pieces(pos.turn) == 0 {
            return Some(win(mover, "no_pieces"));
        }
        if !pos.has_legal_move() {
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

    fn apply_move(state: &mut State, path: &[u8], capture: bool) {
        let pos = state.position;
        let Some(mv) = Self::replay_move(&pos, path, capture) else {
            debug_assert!(false, "a logged move must be legal: {path:?}");
            return;
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
    }

    fn replay_move(pos: &Position, path: &[u8], capture: bool) -> Option<Move> {
        let text: Vec<String> = path.iter().map(u8::to_string).collect();
        pos.find_move(&text.join(if capture { "x" } else { "-" }))
            .ok()
    }
}

impl Game for Checkers {
    const ABOUT: About = About {
        id: "checkers",
        name: "Checkers",
        variants: Variant::NAMES,
        modes: &[],
        seats: (2, 2),
        options: &[(
            "position",
            "start from this PDN FEN position instead of the standard one",
        )],
        // §C1: 400 plies; before each, at most a draw offer and its answer.
        action_cap: 3 * PLY_LIMIT as usize,
    };

    type Config = Config;
    type State = State;
    type Action = Action;
    type Event = Event;
    type View = View;

    fn setup(
        config: &Config,
        seats: usize,
        _random: &mut dyn Random,
    ) -> Result<Vec<Event>, RuleError> {
        if seats != 2 {
            return Err(RuleError::malformed("checkers is played by two"));
        }
        let position = match &config.position {
            Some(fen) => Position::from_fen(fen)?,
            None => Position::start(),
        };
        if !position.has_legal_move() {
            return Err(RuleError::malformed(
                "the side to move has no legal move in that position",
            ));
        }
        Ok(vec![Event::Started {
            variant: config.variant,
            position: position.to_fen(),
        }])
    }

    fn seats(_config: &Config) -> std::ops::RangeInclusive<usize> {
        2..=2
    }

    fn apply(state: &mut State, event: &Event) {
        match event {
            Event::Started { variant, position } => {
                let position = Position::from_fen(position).unwrap_or_default();
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
                Self::apply_move(state, path, !captured.is_empty());
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
    }

    fn act(
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
            Action::Move { notation } => Self::act_move(state, seat, notation),
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

    fn legal_actions(state: &State, seat: Seat) -> Vec<Action> {
        if state.outcome.is_some() || seat.index() > 1 {
            return Vec::new();
        }
        let mut actions = Vec::new();
        if seat == state.on_move() {
            let mut moves = Vec::new();
            state.position.legal_moves(&mut moves);
            actions.extend(moves.iter().map(|m| Action::Move {
                notation: m.to_string(),
            }));
        }
        match state.draw_offer {
            Some(offerer) if offerer != seat => {
                actions.push(Action::AcceptDraw {});
                actions.push(Action::DeclineDraw {});
            }
            None if !state.offer_spent[seat.index()] => actions.push(Action::OfferDraw {}),
            _ => {}
        }
        actions.push(Action::Resign {});
        actions
    }

    fn to_act(state: &State) -> Vec<Duty> {
        if state.outcome.is_some() {
            return Vec::new();
        }
        let mut duties = vec![Duty::new(state.on_move(), DutyKind::Turn)];
        if let Some(offerer) = state.draw_offer {
            duties.push(Duty::new(other(offerer), DutyKind::DrawReply));
        }
        duties
    }

    fn outcome(state: &State) -> Option<Outcome> {
        state.outcome.clone()
    }

    fn view(state: &State, _viewer: Viewer) -> View {
        let pos = &state.position;
        let mut pieces = Vec::new();
        for sq in 0..32u8 {
            let bit = 1u32 << sq;
            let color = if pos.black & bit != 0 {
                Color::Black
            } else if pos.white & bit != 0 {
                Color::White
            } else {
                continue;
            };
            pieces.push(PieceView {
                square: sq + 1,
                colour: color.name(),
                king: pos.kings & bit != 0,
            });
        }
        View {
            variant: state.variant,
            position: pos.to_fen(),
            pieces,
            side_to_move: pos.turn.name(),
            colours: ["black", "white"],
            plies: state.plies,
            plies_until_no_progress_draw: state.plies_until_no_progress_draw(),
            plies_until_ply_limit: PLY_LIMIT.saturating_sub(state.plies),
            draw_offer: state.draw_offer,
            last_move: state.last_move.clone(),
        }
    }

    fn redact(event: &Event, _viewer: Viewer) -> Event {
        event.clone()
    }

    fn expire(_state: &State, _env: &mut Env) -> Vec<Event> {
        Vec::new()
    }

    /// Checkers hides nothing.
    fn secrets(_state: &State, _viewer: Viewer) -> Vec<serde_json::Value> {
        Vec::new()
    }

    fn perft(_config: &Config, position: &str, depth: usize) -> Result<u64, RuleError> {
        let position = Position::from_fen(position)?;
        Ok(perft(&position, depth, &mut vec![Vec::new(); depth.max(1)]))
    }

    fn deadline_passed(state: &State, duty: &Duty) -> Vec<Event> {
        if state.outcome.is_some() {
            return Vec::new();
        }
        match duty.kind {
            DutyKind::Turn if duty.seat == state.on_move() => vec![
                Event::Abandoned { seat: duty.seat },
                win(other(duty.seat), "abandoned"),
            ],
            DutyKind::DrawReply if state.draw_offer == Some(other(duty.seat)) => {
                vec![Event::DrawOfferLapsed {
                    seat: other(duty.seat),
                }]
            }
            _ => Vec::new(),
        }
    }
}
