//! Banqi, Chinese dark chess under Taiwan rules (docs/rules/banqi.md §B). The second
//! hidden-information game: the server draws the layout of 32 face-down
//! pieces (recorded in the `started` event, §H2, and blanked for every
//! viewer) and no one learns a piece before it is turned up (§B8).
//!
//! The seat that acts first is drawn (§B2); the first piece turned up gives
//! its turner that colour for the whole match.
//!
//! Actions: `{"type": "turn_up", "square": "a1"}` and `{"type": "move",
//! "move": "a1-a2"}` (a capture is `"a1xa2"`), and `resign`.

pub mod board;
mod record;
pub mod state;
mod turn;

pub use board::{perft, Cell, Colour, Kind, Piece, Position, Step, QUIET_PLY_LIMIT};
pub use state::{Action, Event, State};

use crate::{
    About, Departure, Duty, DutyKind, Env, Game, Outcome, Random, RuleError, Seat, Viewer,
};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use state::other;

/// §B7: the same position with the same side to act this many times.
pub const REPETITIONS_FOR_DRAW: usize = 3;

/// Creation options: a whole position in §B9 notation (lessons, tests),
/// instead of a freshly shuffled layout.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PieceView {
    pub square: String,
    pub colour: Colour,
    pub kind: Kind,
}

/// The face-up pieces each colour has lost.
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Captured {
    pub red: Vec<Kind>,
    pub black: Vec<Kind>,
}

/// What any viewer sees: the face-up pieces, which squares are face down
/// (never what lies there), and the match's progress.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct View {
    pub pieces: Vec<PieceView>,
    pub face_down: Vec<String>,
    /// Each seat's colour; `null` until the first turn-up fixes them.
    pub colours: [Option<Colour>; 2],
    /// The seat to act, and its colour once known.
    pub on_move: Seat,
    pub colour_to_act: Option<Colour>,
    pub captured: Captured,
    pub plies: u32,
    /// Quiet plies (no turn-up, no capture) left before the §B7 draw.
    pub plies_until_no_progress_draw: u32,
    pub last_action: Option<String>,
}

pub struct Banqi;

/// The start of §B1: the 32 pieces shuffled face down.
pub fn shuffled(random: &mut dyn Random) -> Position {
    let mut pieces = Piece::set();
    for i in (1..pieces.len()).rev() {
        let j = random.below(i as u64 + 1) as usize;
        pieces.swap(i, j);
    }
    Position::face_down(&pieces)
}

impl Game for Banqi {
    const ABOUT: About = About {
        id: "banqi",
        name: "Banqi",
        variants: &[],
        modes: &[],
        seats: (2, 2),
        options: &[(
            "position",
            "start from this position (rules §B9: face-down pieces as ?K) instead of a shuffled layout",
        )],
        // 32 turn-ups and 30 captures, each after at most 179 quiet plies,
        // and a resignation.
        action_cap: 62 * QUIET_PLY_LIMIT as usize + 1,
        rating: crate::Rating::Pairwise,
        hides: true,
        titles: &[],
    };

    type Config = Config;
    type State = State;
    type Action = Action;
    type Event = Event;
    type View = View;

    /// Rewards §R3: a round is a turn of each side, so ⌊plies (a turn-up is a ply)/2⌋ + 1.
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

    /// §B9: a given position is a custom start; one that names its
    /// face-down pieces fixes what neither player may know (issue #30).
    fn start(config: &Config) -> crate::Start {
        let Some(text) = &config.position else {
            return crate::Start::Standard;
        };
        let names_hidden = Position::from_notation(text)
            .is_ok_and(|p| p.cells.iter().any(|c| matches!(c, Cell::Down(_))));
        if names_hidden {
            crate::Start::FixesHidden
        } else {
            crate::Start::Custom
        }
    }

    fn setup(
        config: &Config,
        seats: usize,
        random: &mut dyn Random,
    ) -> Result<Vec<Event>, RuleError> {
        if seats != 2 {
            return Err(RuleError::malformed("banqi is played by two"));
        }
        let position = match &config.position {
            Some(text) => Position::from_notation(text)?,
            None => shuffled(random),
        };
        if position.is_over() {
            return Err(RuleError::malformed(
                "the match would already be over in that position",
            ));
        }
        let face_down = (0..board::SQUARES as u8)
            .filter(|sq| matches!(position.cells[*sq as usize], Cell::Down(_)))
            .map(board::square_name)
            .collect();
        // §B2: who acts first is drawn. In a given position whose colours
        // are fixed already, the seat drawn plays the colour to act.
        Ok(vec![Event::Started {
            first: Seat(random.below(2) as u8),
            position: Some(position.to_notation()),
            face_down,
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
            let mut steps = Vec::new();
            state.position.legal_steps(&mut steps);
            actions.extend(steps.iter().map(|s| match s {
                Step::TurnUp(sq) => Action::TurnUp {
                    square: board::square_name(*sq),
                },
                _ => Action::Move {
                    notation: s.to_string(),
                },
            }));
        }
        actions.push(Action::Resign {});
        actions
    }

    fn to_act(state: &State) -> Vec<Duty> {
        if state.outcome.is_some() {
            return Vec::new();
        }
        vec![Duty::new(state.on_move(), DutyKind::Turn)]
    }

    /// The seat drawn to act first, first.
    fn side(state: &State, seat: Seat) -> usize {
        usize::from(seat != state.first)
    }

    fn outcome(state: &State) -> Option<Outcome> {
        state.outcome.clone()
    }

    fn view(state: &State, _viewer: Viewer) -> View {
        let pos = &state.position;
        let mut view = View {
            pieces: Vec::new(),
            face_down: Vec::new(),
            colours: [state.colour_of(Seat(0)), state.colour_of(Seat(1))],
            on_move: state.on_move(),
            colour_to_act: pos.to_act,
            captured: Captured::default(),
            plies: state.plies,
            plies_until_no_progress_draw: QUIET_PLY_LIMIT.saturating_sub(pos.quiet),
            last_action: state.last_action.clone(),
        };
        for (sq, cell) in pos.cells.iter().enumerate() {
            let square = board::square_name(sq as u8);
            match cell {
                Cell::Up(p) => view.pieces.push(PieceView {
                    square,
                    colour: p.colour,
                    kind: p.kind,
                }),
                Cell::Down(_) => view.face_down.push(square),
                Cell::Empty => {}
            }
        }
        for piece in &state.captured {
            match piece.colour {
                Colour::Red => view.captured.red.push(piece.kind),
                Colour::Black => view.captured.black.push(piece.kind),
            }
        }
        view
    }

    /// §B8: the layout reaches nobody; a turn-up is everyone's from then on.
    fn redact(event: &Event, _viewer: Viewer) -> Event {
        match event {
            Event::Started {
                first, face_down, ..
            } => Event::Started {
                first: *first,
                position: None,
                face_down: face_down.clone(),
            },
            other => other.clone(),
        }
    }

    fn expire(_state: &State, _env: &mut Env) -> Vec<Event> {
        Vec::new()
    }

    fn deadline_passed(state: &State, duty: &Duty) -> Vec<Event> {
        if state.outcome.is_some() || duty.kind != DutyKind::Turn || duty.seat != state.on_move() {
            return Vec::new();
        }
        vec![
            Event::Abandoned { seat: duty.seat },
            Event::Finished {
                result: Outcome::win(vec![other(duty.seat)], "abandoned"),
            },
        ]
    }

    /// Every face-down piece, in each shape that could betray it: the
    /// position notation, its `?K` code, and the view's piece object on its
    /// square. Nobody may see any (§B8), spectators included.
    fn secrets(state: &State, _viewer: Viewer) -> Vec<Value> {
        let pos = &state.position;
        let mut out = Vec::new();
        let mut any = false;
        for (sq, cell) in pos.cells.iter().enumerate() {
            if let Cell::Down(p) = cell {
                any = true;
                out.push(json!(format!("?{}", p.letter())));
                out.push(json!({"square": board::square_name(sq as u8), "colour": p.colour, "kind": p.kind}));
            }
        }
        if any {
            out.push(json!(pos.to_notation()));
        }
        out
    }

    fn perft(_config: &Config, position: &str, depth: usize) -> Result<u64, RuleError> {
        Ok(perft(&Position::from_notation(position)?, depth))
    }
}
