//! Janggi (docs/rules/janggi.md §J). The seats are drawn to Cho and Han when the match
//! starts (the `started` event records which seat plays Cho); Cho moves
//! first. Notation and positions follow Fairy-Stockfish's janggi: files
//! `a`–`i` from Cho's left, ranks `1`–`10` from Cho's back rank, a move is
//! `from` + `to` (`b1c3`), a pass is `pass`.
//!
//! No draws (§J6): every ending names its rule and carries both players'
//! points (§J7), in seat order.
//!
//! Decisions of this module where docs/rules/ is silent:
//! - A move that checkmates and also makes the kings face ends by
//!   `checkmate`: the mated side could not have answered anyway.
//! - A position given in `options.position` must leave the match open: the
//!   kings may not already face each other.

mod attacks;
pub mod board;
mod notation;
mod record;
pub mod state;
mod turn;

pub use board::{perft, Kind, Move, Position, Side};
pub use state::{Action, Event, State};

use crate::{
    About, Departure, Duty, DutyKind, Env, Game, Outcome, Random, RuleError, Seat, Viewer,
};
use serde::{Deserialize, Serialize};
use state::other;

/// §J6: the match ends on points after this many plies, passes included.
pub const PLY_LIMIT: u32 = 200;
/// §J6: the same position with the same side to move this many times.
pub const REPETITIONS_FOR_END: usize = 3;

/// §J2: a side's back-rank order of horses (M, 마) and elephants (S, 상)
/// between chariot and guard, read from that player's own left.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub enum Setup {
    #[serde(rename = "MSMS")]
    Msms,
    #[default]
    #[serde(rename = "SMSM")]
    Smsm,
    #[serde(rename = "MSSM")]
    Mssm,
    #[serde(rename = "SMMS")]
    Smms,
}

impl Setup {
    pub const ALL: [Setup; 4] = [Setup::Msms, Setup::Smsm, Setup::Mssm, Setup::Smms];

    /// The four pieces between chariot and guard, from the player's left.
    fn order(self) -> [Kind; 4] {
        use Kind::{Elephant as S, Horse as M};
        match self {
            Setup::Msms => [M, S, M, S],
            Setup::Smsm => [S, M, S, M],
            Setup::Mssm => [M, S, S, M],
            Setup::Smms => [S, M, M, S],
        }
    }
}

/// Each side's setup (§J2 Decision: each chooses its own; default SMSM).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Setups {
    #[serde(default)]
    pub cho: Setup,
    #[serde(default)]
    pub han: Setup,
}

/// The start position of §J2 for these setups, Cho to move.
pub fn start_position(setups: Setups) -> Position {
    // Cho reads from file a, Han (facing down the board) from file i.
    let fen_rank = |setup: Setup, side: Side| {
        let [a, b, c, d] = setup.order();
        let mut rank = [Kind::Chariot, a, b, Kind::Guard]
            .map(|k| k.letter().to_string())
            .join("");
        rank.push('1');
        rank.push_str(
            &[Kind::Guard, c, d, Kind::Chariot]
                .map(|k| k.letter().to_string())
                .join(""),
        );
        match side {
            Side::Cho => rank,
            Side::Han => rank.chars().rev().collect::<String>().to_ascii_lowercase(),
        }
    };
    let fen = format!(
        "{}/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/{} w - - 0 1",
        fen_rank(setups.han, Side::Han),
        fen_rank(setups.cho, Side::Cho)
    );
    // Built from §J2's template for one of the four setups each, never
    // stored: every one parses (`janggi_j.rs` checks them all), so the
    // default is never reached.
    Position::from_fen(&fen).unwrap_or_default()
}

/// Creation options: each side's setup, or a whole position (lessons and
/// tests) in Fairy-Stockfish's janggi FEN.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub setups: Setups,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PieceView {
    /// `e2`.
    pub square: String,
    pub side: Side,
    pub kind: Kind,
}

/// §J points of each side now (Han's with the 1.5 komi).
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Points {
    pub cho: f64,
    pub han: f64,
}

/// What any viewer sees: Janggi has no hidden information.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct View {
    /// Fairy-Stockfish janggi FEN of the position.
    pub position: String,
    pub pieces: Vec<PieceView>,
    pub side_to_move: Side,
    /// The seat playing Cho (drawn at the start) and the one playing Han.
    pub cho: Seat,
    pub han: Seat,
    pub setups: Setups,
    pub points: Points,
    pub plies: u32,
    pub plies_until_ply_limit: u32,
    /// Whether the side to move is in check (it may not pass).
    pub in_check: bool,
    pub last_move: Option<String>,
}

pub struct Janggi;

/// The Janggi seed's ranks by rating (5급 and below up to 1299, 1단 and
/// above from 1500); the steps between and beyond are ours: each entry is
/// the lowest rating of the title.
pub const JANGGI_TITLES: &[(i32, &str)] = &[
    (i32::MIN, "7급"),
    (1100, "6급"),
    (1200, "5급"),
    (1300, "4급"),
    (1350, "3급"),
    (1400, "2급"),
    (1450, "1급"),
    (1500, "1단"),
    (1600, "2단"),
    (1700, "3단"),
    (1800, "4단"),
    (1900, "5단"),
    (2000, "6단"),
    (2100, "7단"),
];

impl Game for Janggi {
    const ABOUT: About = About {
        id: "janggi",
        name: "Janggi",
        variants: &[],
        modes: &[],
        seats: (2, 2),
        options: &[
            (
                "setups",
                "each side's horse and elephant order from its own left: {\"cho\": \"SMSM\", \"han\": \"MSMS\"} (MSMS, SMSM, MSSM, SMMS; default SMSM)",
            ),
            (
                "position",
                "start from this Fairy-Stockfish janggi FEN instead (w: Cho to move)",
            ),
        ],
        // §J6: 200 plies, then a resignation at most.
        action_cap: PLY_LIMIT as usize + 1,
        rating: crate::Rating::Pairwise,
        hides: false,
        titles: JANGGI_TITLES,
    };

    type Config = Config;
    type State = State;
    type Action = Action;
    type Event = Event;
    type View = View;

    /// Rewards §R3: a round is a turn of each side, so ⌊plies (a pass is a ply)/2⌋ + 1.
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
        random: &mut dyn Random,
    ) -> Result<Vec<Event>, RuleError> {
        if seats != 2 {
            return Err(RuleError::malformed("janggi is played by two"));
        }
        let position = match &config.position {
            Some(fen) => Position::from_fen(fen)?,
            None => start_position(config.setups),
        };
        if position.kings_face() {
            return Err(RuleError::malformed(
                "the kings already face each other in that position",
            ));
        }
        let mut moves = Vec::new();
        position.legal_moves(&mut moves);
        if moves.is_empty() {
            return Err(RuleError::malformed(
                "the side to move is already checkmated",
            ));
        }
        // §J2: which seat plays Cho is drawn.
        let cho = Seat(random.below(2) as u8);
        Ok(vec![Event::Started {
            cho,
            setups: config.setups,
            position: position.to_fen(),
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
            let mut moves = Vec::new();
            state.position.legal_moves(&mut moves);
            actions.extend(moves.iter().map(|m| match m {
                Move::Pass => Action::Pass {},
                _ => Action::Move {
                    notation: m.to_string(),
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

    /// Cho first.
    fn side(state: &State, seat: Seat) -> usize {
        usize::from(seat != state.cho)
    }

    fn outcome(state: &State) -> Option<Outcome> {
        state.outcome.clone()
    }

    fn view(state: &State, _viewer: Viewer) -> View {
        let pos = &state.position;
        View {
            position: pos.to_fen(),
            pieces: pos
                .pieces()
                .map(|(sq, p)| PieceView {
                    square: board::square_name(sq),
                    side: p.side,
                    kind: p.kind,
                })
                .collect(),
            side_to_move: pos.turn,
            cho: state.cho,
            han: state.seat_of(Side::Han),
            setups: state.setups,
            points: Points {
                cho: pos.points(Side::Cho),
                han: pos.points(Side::Han),
            },
            plies: state.plies,
            plies_until_ply_limit: PLY_LIMIT.saturating_sub(state.plies),
            in_check: pos.in_check(pos.turn),
            last_move: state.last_move.clone(),
        }
    }

    fn redact(event: &Event, _viewer: Viewer) -> Event {
        event.clone()
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
            state.finish(other(duty.seat), "abandoned"),
        ]
    }

    /// Janggi hides nothing.
    fn secrets(_state: &State, _viewer: Viewer) -> Vec<serde_json::Value> {
        Vec::new()
    }

    fn perft(_config: &Config, position: &str, depth: usize) -> Result<u64, RuleError> {
        Ok(perft(&Position::from_fen(position)?, depth, false))
    }
}
