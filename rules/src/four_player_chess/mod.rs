//! Four-player chess (docs/rules/four-player-chess.md §Q): `teams`, `ffa` and `points`, with 2 to
//! 4 players. Each seat plays one army, or in `teams` with two players a
//! whole team (two armies, moving in turn order). Which seat plays which
//! army is drawn when the match starts and recorded in `started`.
//!
//! Moves are `from` + `to` (`h2h4`), a promotion ends in `q` (`h10h11q`),
//! castling is the king's move (`h1j1`). Positions use §Q12's notation.
//!
//! Decisions of this module where docs/rules/ is silent (docs/decisions/games.md, "Four-player
//! chess"):
//! - A seat running two armies in `teams` holds one seat, which owes every
//!   turn of both; the request's `seat` is not needed for it.
//! - The draw rules of §Q6 (threefold repetition, 1,000 plies) end `ffa`
//!   (a draw among those left) and `points` (on points) too, so every
//!   match ends.
//! - §Q8 double and triple checks score when the move puts at least two
//!   live enemy kings in check that the mover did not already check.
//! - `points` ends with `outcome: points` naming the top scorer, or
//!   `outcome: draw` when the top scores are equal; `scores` per seat.
//! - A player who resigns (or whose deadline passes) in `ffa`/`points`
//!   is eliminated at once, on move or not.

mod attacks;
pub mod board;
mod moves;
mod notation;
mod record;
pub mod state;
mod turn;

pub use board::{perft, Army, Kind, Mode, Move, Owner, Piece, Position, Start};
pub use moves::Verdict;
pub use state::{Action, ArmySeat, Captured, Event, State};

use crate::{
    About, Departure, Duty, DutyKind, Env, Game, Outcome, PutOut, Random, RuleError, Seat, Viewer,
};
use serde::{Deserialize, Serialize};

/// §Q6: the match is drawn (ended) after this many plies.
pub const PLY_LIMIT: u32 = 1_000;
/// §Q6: the same position with the same army to move this many times.
pub const REPETITIONS_FOR_END: usize = 3;
/// §Q8: a checkmate (or a king capture, §Q10) and a stalemate's points.
pub const MATE_POINTS: i32 = 20;
pub const SELF_STALEMATE_POINTS: i32 = 20;
pub const STALEMATED_OPPONENT_POINTS: i32 = 10;

/// Creation options: the mode, or a whole position (§Q12), whose `mode=`
/// must then be the mode chosen.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub mode: Mode,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<String>,
}

pub struct FourPlayerChess;

/// §Q5/Q14: the armies `players` play in `ffa`/`points`.
fn armies_for(players: usize) -> Vec<Army> {
    match players {
        2 => vec![Army::Red, Army::Blue],
        3 => vec![Army::Red, Army::Green, Army::Blue],
        _ => Army::ALL.to_vec(),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Alive,
    Eliminated,
    Absent,
}

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ArmyView {
    pub army: Army,
    /// The seat playing it; absent armies have none.
    pub seat: Option<Seat>,
    pub status: Status,
    /// §Q8 points (always 0 outside `points`).
    pub points: i32,
    pub in_check: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PieceView {
    /// `h1`.
    pub square: String,
    /// The army, or `dead` (§Q7).
    pub owner: Owner,
    pub kind: Kind,
    /// A promoted queen (scores as a pawn, §Q8).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub promoted: bool,
}

/// What any viewer sees: four-player chess hides nothing.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct View {
    pub mode: Mode,
    /// The position in docs/rules/four-player-chess.md §Q12 notation.
    pub position: String,
    pub pieces: Vec<PieceView>,
    /// Every army in turn order, with its seat, status and points.
    pub armies: Vec<ArmyView>,
    /// The army to move and the seat playing it (none once finished).
    pub army_to_move: Option<Army>,
    pub seat_to_move: Option<Seat>,
    pub plies: u32,
    pub plies_until_ply_limit: u32,
    pub last_move: Option<String>,
}

impl Game for FourPlayerChess {
    const ABOUT: About = About {
        id: "four_player_chess",
        name: "Four-player chess",
        variants: &[],
        modes: &["teams", "ffa", "points"],
        seats: (2, 4),
        options: &[(
            "position",
            "start from this position (rules §Q12) instead (its mode= must be the match's mode)",
        )],
        // §Q6: 1,000 plies, then up to three players giving up.
        action_cap: PLY_LIMIT as usize + 4,
        rating: crate::Rating::Placings,
        hides: false,
        titles: &[],
    };

    type Config = Config;
    type State = State;
    type Action = Action;
    type Event = Event;
    type View = View;

    /// Places for the ratings (issue #19): in points mode by score; else
    /// the winners first, then the others by how long they lasted (the
    /// last army out is next, and so on back); a two-seat draw ties.
    fn placements(state: &State, seats: usize) -> Vec<usize> {
        let Some(outcome) = &state.outcome else {
            return vec![1; seats];
        };
        if let (Some(scores), Mode::Points) = (&outcome.scores, state.mode()) {
            return (0..seats)
                .map(|i| 1 + scores.iter().filter(|s| **s > scores[i]).count())
                .collect();
        }
        let draw = outcome.outcome == crate::OutcomeKind::Draw;
        if draw && outcome.winners.is_empty() && seats == 2 {
            return vec![1; seats];
        }
        let out: Vec<usize> = (state.out_order.iter())
            .filter_map(|army| state.seat_of(*army))
            .map(|s| s.index())
            .collect();
        (0..seats)
            .map(|seat| {
                if outcome.winners.iter().any(|w| w.index() == seat) {
                    1
                } else if let Some(pos) = out.iter().position(|s| *s == seat) {
                    seats - pos
                } else if draw {
                    1
                } else {
                    2
                }
            })
            .collect()
    }

    /// §Q: in teams, the seats of partnered armies (Red and Blue, Green
    /// and Gray) are one team; in the other modes everyone plays alone.
    fn teams(state: &State, seats: usize) -> Vec<usize> {
        (0..seats)
            .map(|seat| match state.mode() {
                Mode::Teams => (state.seats.iter())
                    .position(|s| *s == Some(Seat(seat as u8)))
                    .map_or(seat, |army| army % 2),
                _ => seat,
            })
            .collect()
    }

    /// §Q7/§Q9/§Q10: an army eliminated while the match goes on.
    fn put_out(event: &Event) -> Option<PutOut> {
        match event {
            Event::Eliminated { army, reason } => Some(PutOut {
                side: army.name().to_owned(),
                reason: reason.clone(),
            }),
            _ => None,
        }
    }

    /// Rewards §R3: a round is a turn of every army in play, a skipped
    /// turn counted (a player of two armies has two turns a round); it
    /// ends when the turn passes the last army and comes round again.
    fn round(state: &State) -> u32 {
        state.rounds_done + 1
    }

    /// §Q9: a resignation or an abandonment, by the seat that gave up.
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
            Event::Resigned { .. }
                | Event::Abandoned { .. }
                | Event::Finished { .. }
                | Event::Eliminated { .. }
                | Event::Scored { .. }
                | Event::Skipped { .. }
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
        let position = match &config.position {
            Some(text) => {
                let pos = Position::from_notation(text)?;
                if pos.mode != config.mode {
                    return Err(RuleError::malformed(format!(
                        "the position is a {} position but the mode is {}",
                        pos.mode.name(),
                        config.mode.name()
                    )));
                }
                if pos.start_of_turn() != Start::Moves {
                    return Err(RuleError::malformed("the army to move has no legal move"));
                }
                pos
            }
            None => {
                let playing = match config.mode {
                    Mode::Teams => Army::ALL.to_vec(),
                    _ => armies_for(seats),
                };
                Position::start(config.mode, Army::ALL.map(|a| playing.contains(&a)))
            }
        };
        let playing = position.live_armies();
        let mut armies = Vec::new();
        if config.mode == Mode::Teams {
            if playing.len() != 4 || !(seats == 2 || seats == 4) {
                return Err(RuleError::malformed(
                    "teams is played by 4 players, or by 2 each running a team, with all four armies",
                ));
            }
            if seats == 2 {
                // §Q5: each of two players takes a whole team, drawn.
                let first = random.below(2) as u8;
                for army in playing.iter().copied() {
                    let seat = if army.team() == 0 { first } else { 1 - first };
                    armies.push(ArmySeat {
                        army,
                        seat: Seat(seat),
                    });
                }
            }
        } else if playing.len() != seats || !(2..=4).contains(&seats) {
            return Err(RuleError::malformed(format!(
                "{} needs one player per army in play (2 to 4); this position has {}",
                config.mode.name(),
                playing.len()
            )));
        }
        if armies.is_empty() {
            let mut order: Vec<u8> = (0..seats as u8).collect();
            for i in (1..order.len()).rev() {
                order.swap(i, random.below(i as u64 + 1) as usize);
            }
            armies = playing
                .into_iter()
                .zip(order)
                .map(|(army, seat)| ArmySeat {
                    army,
                    seat: Seat(seat),
                })
                .collect();
        }
        Ok(vec![Event::Started {
            mode: config.mode,
            armies,
            position: position.to_notation(),
        }])
    }

    /// Teams takes 2 or 4 (setup refuses 3, naming why); ffa and points
    /// 2 to 4.
    fn seats(_config: &Config) -> std::ops::RangeInclusive<usize> {
        2..=4
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
        if state.outcome.is_some() || !turn::in_play(state, seat) {
            return Vec::new();
        }
        let mut actions = Vec::new();
        if state.on_move() == Some(seat) {
            let mut moves = Vec::new();
            state.position.legal_moves(&mut moves);
            actions.extend(moves.iter().map(|m| Action::Move {
                notation: m.to_string(),
            }));
        }
        actions.push(Action::Resign {});
        actions
    }

    fn to_act(state: &State) -> Vec<Duty> {
        match (&state.outcome, state.on_move()) {
            (None, Some(seat)) => vec![Duty::new(seat, DutyKind::Turn)],
            _ => Vec::new(),
        }
    }

    /// The seat's (first) army, clockwise from Red.
    fn side(state: &State, seat: Seat) -> usize {
        state
            .armies_of(seat)
            .first()
            .map_or(seat.index(), |a| a.index())
    }

    fn outcome(state: &State) -> Option<Outcome> {
        state.outcome.clone()
    }

    fn view(state: &State, _viewer: Viewer) -> View {
        let pos = &state.position;
        let over = state.outcome.is_some();
        View {
            mode: pos.mode,
            position: pos.to_notation(),
            pieces: pos
                .pieces()
                .map(|(sq, p)| PieceView {
                    square: board::square_name(sq),
                    owner: p.owner,
                    kind: p.kind,
                    promoted: p.promoted,
                })
                .collect(),
            armies: Army::ALL
                .into_iter()
                .map(|army| ArmyView {
                    army,
                    seat: state.seat_of(army),
                    status: match (state.seat_of(army), pos.live(army)) {
                        (None, _) => Status::Absent,
                        (Some(_), true) => Status::Alive,
                        (Some(_), false) => Status::Eliminated,
                    },
                    points: state.scores[army.index()],
                    in_check: pos.live(army) && pos.in_check(army),
                })
                .collect(),
            army_to_move: (!over).then_some(pos.to_move),
            seat_to_move: if over { None } else { state.on_move() },
            plies: state.plies,
            plies_until_ply_limit: PLY_LIMIT.saturating_sub(state.plies),
            last_move: state.last_move.clone(),
        }
    }

    fn redact(event: &Event, _viewer: Viewer) -> Event {
        event.clone()
    }

    fn expire(_state: &State, _env: &mut Env) -> Vec<Event> {
        Vec::new()
    }

    /// §Q9: abandonment — the team loses, or the player is eliminated.
    fn deadline_passed(state: &State, duty: &Duty) -> Vec<Event> {
        if state.outcome.is_some()
            || duty.kind != DutyKind::Turn
            || state.on_move() != Some(duty.seat)
        {
            return Vec::new();
        }
        turn::give_up(
            state,
            duty.seat,
            Event::Abandoned { seat: duty.seat },
            "abandoned",
        )
    }

    /// Four-player chess hides nothing.
    fn secrets(_state: &State, _viewer: Viewer) -> Vec<serde_json::Value> {
        Vec::new()
    }

    /// §Q13: the mode is the position's own `mode=`.
    fn perft(_config: &Config, position: &str, depth: usize) -> Result<u64, RuleError> {
        Ok(perft(&Position::from_notation(position)?, depth))
    }
}
