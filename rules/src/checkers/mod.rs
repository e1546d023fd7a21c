//! Checkers (RULES.md §C). Seat 0 plays Black and seat 1 White.
//!
//! Every variant of §C2: American (§C1, the default) on its tuned 32-bit
//! board (`board.rs`), the others on the draughts board (`draughts.rs`)
//! with the variant's rules as one value ([`Variant::rules`]); `table.rs`
//! gives the game one face for both.

mod board;
pub mod draughts;
mod table;

pub use board::{perft, Color, Move, Position};
pub use table::{Board, Step};

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
    Brazilian,
    Russian,
    Pool,
    Spanish,
    International,
    Thai,
}

impl Variant {
    pub const ALL: &'static [Variant] = &[
        Variant::American,
        Variant::Brazilian,
        Variant::Russian,
        Variant::Pool,
        Variant::Spanish,
        Variant::International,
        Variant::Thai,
    ];
    /// The catalogue's names of [`Variant::ALL`], in the same order.
    pub const NAMES: &'static [&'static str] = &[
        "american",
        "brazilian",
        "russian",
        "pool",
        "spanish",
        "international",
        "thai",
    ];

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
    /// Squares a side: 8, or 10 for international.
    pub size: u8,
    /// How the squares are numbered.
    pub numbering: &'static str,
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

/// The PDN numbering of a `size` board, for the view.
fn numbering(size: u8) -> &'static str {
    if size == 10 {
        "PDN (FMJD) 1-50: 1 = b10, 5 = j10, 46 = a1, 50 = i1; Black on 1-20 at the top, White on 31-50"
    } else {
        "PDN 1-32: 1 = b8, 4 = h8, 5 = a7, 29 = a1, 32 = g1; Black on 1-12 at the top, White on 21-32"
    }
}

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

    fn apply_move(state: &mut State, path: &[u8], capture: bool) {
        let pos = state.position;
        let Some(mv) = Self::replay_move(state.variant, &pos, path, capture) else {
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

    fn replay_move(variant: Variant, pos: &Board, path: &[u8], capture: bool) -> Option<Step> {
        let text: Vec<String> = path.iter().map(u8::to_string).collect();
        pos.find_move(variant, &text.join(if capture { "x" } else { "-" }))
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
        rating: crate::Rating::Pairwise,
        titles: &[],
    };

    type Config = Config;
    type State = State;
    type Action = Action;
    type Event = Event;
    type View = View;

    /// Resigning, abandoning and the end are not moves of one's own
    /// (a seat with nothing else never played: its match is aborted).
    fn is_own_move(event: &Event) -> bool {
        !matches!(
            event,
            Event::Resigned { .. } | Event::Abandoned { .. } | Event::Finished { .. }
        )
    }

    /// A given position is a custom start (issue #30); nothing hidden is
    /// fixed by it.
    fn start(config: &Config) -> crate::Start {
        match config.position {
            Some(_) => crate::Start::Custom,
            None => crate::Start::Standard,
        }
    }

    fn setup(
        config: &Config,
        seats: usize,
        _random: &mut dyn Random,
    ) -> Result<Vec<Event>, RuleError> {
        if seats != 2 {
            return Err(RuleError::malformed("checkers is played by two"));
        }
        let position = match &config.position {
            Some(fen) => Board::from_fen(config.variant, fen)?,
            None => Board::start(config.variant),
        };
        if !position.has_legal_move(config.variant) {
            return Err(RuleError::malformed(
                "the side to move has no legal move in that position",
            ));
        }
        Ok(vec![Event::Started {
            variant: config.variant,
            position: position.to_fen(config.variant),
        }])
    }

    fn seats(_config: &Config) -> std::ops::RangeInclusive<usize> {
        2..=2
    }

    fn apply(state: &mut State, event: &Event) {
        match event {
            Event::Started { variant, position } => {
                let position =
                    Board::from_fen(*variant, position).unwrap_or_else(|_| Board::start(*variant));
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
            let moves = state.position.legal_moves(state.variant);
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
        let pieces = pos
            .pieces()
            .into_iter()
            .map(|(square, colour, king)| PieceView {
                square,
                colour: colour.name(),
                king,
            })
            .collect();
        let size = state.variant.size();
        View {
            variant: state.variant,
            size,
            numbering: numbering(size),
            position: pos.to_fen(state.variant),
            pieces,
            side_to_move: pos.turn().name(),
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

    fn perft(config: &Config, position: &str, depth: usize) -> Result<u64, RuleError> {
        Ok(Board::from_fen(config.variant, position)?.perft(config.variant, depth))
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
