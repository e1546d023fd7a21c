//! Checkers (docs/rules/checkers.md §C). Seat 0 plays Black and seat 1 White.
//!
//! Every variant of §C2: American (§C1, the default) on its tuned 32-bit
//! board (`board.rs`), the others on the draughts board (`draughts.rs`)
//! with the variant's rules as one value ([`Variant::rules`]); `table.rs`
//! gives the game one face for both.
//!
//! * `state` — actions, events, the state and its fold.
//! * `turn` — validating an action into events.
//! * `notation` — PDN moves and PDN FEN, for both boards.

mod board;
pub mod draughts;
mod notation;
mod record;
pub mod state;
mod table;
mod turn;

pub use board::{perft, Color, Move, Position};
pub use state::{Action, Event, State};
pub use table::{Board, Step};

use crate::{
    About, Departure, Duty, DutyKind, Env, Game, Outcome, Random, RuleError, Seat, Viewer,
};
use serde::{Deserialize, Serialize};
use state::{other, win};

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

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PieceView {
    pub square: u8,
    pub colour: String,
    pub king: bool,
}

/// What any viewer sees: checkers has no hidden information.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct View {
    pub variant: Variant,
    /// Squares a side: 8, or 10 for international.
    pub size: u8,
    /// How the squares are numbered.
    pub numbering: String,
    /// PDN FEN of the position.
    pub position: String,
    pub pieces: Vec<PieceView>,
    pub side_to_move: String,
    /// Seat 0 plays Black, seat 1 White.
    pub colours: [String; 2],
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
        hides: false,
        titles: &[],
    };

    type Config = Config;
    type State = State;
    type Action = Action;
    type Event = Event;
    type View = View;

    /// Rewards §R3: a round is a turn of each side, so ⌊plies/2⌋ + 1.
    fn round(state: &State) -> u32 {
        state.plies / 2 + 1
    }

    fn departure(event: &Event) -> Option<(Seat, Departure)> {
        match event {
            Event::Resigned { seat } => Some((*seat, Departure::Resigned)),
            Event::Abandoned { seat } => Some((*seat, Departure::Abandoned)),
            _ => None,
        }
    }

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

    fn apply(state: &mut State, event: &Event) -> Result<(), RuleError> {
        state.apply(event)
    }

    fn told(state: &State, event: &Event) -> Option<crate::Told> {
        state.told(event)
    }

    fn act(
        state: &State,
        seat: Seat,
        action: &Action,
        env: &mut Env,
    ) -> Result<Vec<Event>, RuleError> {
        turn::act(state, seat, action, env)
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
                colour: colour.name().to_owned(),
                king,
            })
            .collect();
        let size = state.variant.size();
        View {
            variant: state.variant,
            size,
            numbering: numbering(size).to_owned(),
            position: pos.to_fen(state.variant),
            pieces,
            side_to_move: pos.turn().name().to_owned(),
            colours: ["black".to_owned(), "white".to_owned()],
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
