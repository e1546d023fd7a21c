//! Banqi, Chinese dark chess under Taiwan rules (RULES.md §B). The second
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

pub use board::{perft, Cell, Colour, Kind, Piece, Position, Step, QUIET_PLY_LIMIT};

use crate::{About, Duty, DutyKind, Env, Game, Outcome, Random, RuleError, Seat, Viewer};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

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

    /// §B7: the same pieces on the same squares (face-down ones
    /// included) with the same side to act; the quiet count is not part
    /// of it.
    fn repetitions(&self) -> usize {
        let now = &self.position;
        self.history
            .iter()
            .filter(|p| p.cells == now.cells && p.to_act == now.to_act)
            .count()
    }
}

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct PieceView {
    pub square: String,
    pub colour: Colour,
    pub kind: Kind,
}

/// The face-up pieces each colour has lost.
#[derive(Clone, Debug, Default, Serialize, schemars::JsonSchema)]
pub struct Captured {
    pub red: Vec<Kind>,
    pub black: Vec<Kind>,
}

/// What any viewer sees: the face-up pieces, which squares are face down
/// (never what lies there), and the match's progress.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
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

fn other(seat: Seat) -> Seat {
    Seat(1 - seat.0)
}

/// The start of §B1: the 32 pieces shuffled face down.
pub fn shuffled(random: &mut dyn Random) -> Position {
    let mut pieces = Piece::set();
    for i in (1..pieces.len()).rev() {
        let j = random.below(i as u64 + 1) as usize;
        pieces.swap(i, j);
    }
    Position::face_down(&pieces)
}

impl Banqi {
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
        Self::apply(&mut after, &event);
        Ok(std::iter::once(event)
            .chain(Self::judge(&after, seat))
            .collect())
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
            "start from this position (RULES.md §B9, face-down pieces as ?K) instead of a shuffled layout",
        )],
        // 32 turn-ups and 30 captures, each after at most 179 quiet plies,
        // and a resignation.
        action_cap: 62 * QUIET_PLY_LIMIT as usize + 1,
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

    fn apply(state: &mut State, event: &Event) {
        match event {
            Event::Started {
                first, position, ..
            } => {
                let position = position
                    .as_deref()
                    .and_then(|p| Position::from_notation(p).ok())
                    .unwrap_or_default();
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
                if let Some(sq) = board::parse_square(square) {
                    state.position = state.position.play(Step::TurnUp(sq));
                }
                state.history.clear();
                state.history.push(state.position);
                state.plies += 1;
                state.last_action = Some(square.clone());
            }
            Event::Moved {
                notation, captured, ..
            } => {
                if let Some(step) = Step::parse(notation) {
                    state.position = state.position.play(step);
                }
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
            return Err(RuleError::illegal("there is no such seat in banqi"));
        }
        match action {
            Action::TurnUp { square } => {
                let sq = Self::parse_square(square)?;
                Self::act_step(state, seat, Step::TurnUp(sq))
            }
            Action::Move { notation } => {
                let step = Step::parse(notation)
                    .filter(|s| !matches!(s, Step::TurnUp(_)))
                    .ok_or_else(|| {
                        RuleError::malformed(format!(
                            "{notation:?} is not a move: write a1-a2, or a1xa2 for a capture"
                        ))
                    })?;
                Self::act_step(state, seat, step)
            }
            Action::Resign {} => Ok(vec![
                Event::Resigned { seat },
                Event::Finished {
                    result: Outcome::win(vec![other(seat)], "resigned"),
                },
            ]),
        }
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
