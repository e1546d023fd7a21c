//! Four-player chess (RULES.md §Q): `teams`, `ffa` and `points`, with 2 to
//! 4 players. Each seat plays one army, or in `teams` with two players a
//! whole team (two armies, moving in turn order). Which seat plays which
//! army is drawn when the match starts and recorded in `started`.
//!
//! Moves are `from` + `to` (`h2h4`), a promotion ends in `q` (`h10h11q`),
//! castling is the king's move (`h1j1`). Positions use §Q12's notation.
//!
//! Decisions of this module where RULES.md is silent (docs/decisions/games.md, "Four-player
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

pub mod board;

pub use board::{perft, Army, Kind, Mode, Move, Owner, Piece, Position, Start};

use crate::{
    About, Duty, DutyKind, Env, Game, Outcome, OutcomeKind, Random, RuleError, Seat, Viewer,
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

/// §Q8: checking two or three kings at once, with queens only or not.
fn multi_check_points(kings: usize, only_queens: bool) -> i32 {
    match (kings, only_queens) {
        (2, true) => 1,
        (2, false) => 5,
        (3, true) => 5,
        (3, false) => 20,
        _ => 0,
    }
}

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
    fn team_seats(&self, team: usize) -> Vec<Seat> {
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
    fn on_points(&self, reason: &str) -> Outcome {
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
    fn last_standing(&self, reason: &str) -> Outcome {
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
    fn drawn(&self, reason: &str) -> Outcome {
        match self.mode() {
            Mode::Points => self.on_points(reason),
            _ => Outcome::draw(reason),
        }
    }

    fn repetitions(&self) -> usize {
        let now = fingerprint(&self.position);
        self.history.iter().filter(|p| **p == now).count()
    }
}

/// The events of one action, each folded into a copy of the state as it
/// is written, so every judgment reads the state that fact made.
struct Script {
    state: State,
    events: Vec<Event>,
}

impl Script {
    fn push(&mut self, event: Event) {
        FourPlayerChess::apply(&mut self.state, &event);
        self.events.push(event);
    }

    fn over(&self) -> bool {
        self.state.outcome.is_some()
    }

    fn finish(&mut self, result: Outcome) {
        self.push(Event::Finished { result });
    }

    fn score(&mut self, army: Army, points: i32, reason: &str) {
        if self.state.mode() == Mode::Points && points > 0 {
            self.push(Event::Scored {
                army,
                points,
                reason: reason.to_owned(),
            });
        }
    }

    /// §Q7/Q9/Q10: out of play; the last one left ends the match.
    fn eliminate(&mut self, army: Army, reason: &str) {
        self.push(Event::Eliminated {
            army,
            reason: reason.to_owned(),
        });
        if self.state.position.live_armies().len() <= 1 {
            let result = self.state.last_standing(reason);
            self.finish(result);
        }
    }

    /// The team against `army`'s wins (§Q6, Q9, Q10).
    fn team_loses(&mut self, army: Army, reason: &str) {
        let winners = self.state.team_seats(1 - army.team());
        self.finish(Outcome::win(winners, reason));
    }

    /// §Q4, Q6–Q8: the judgments at the start of each turn, until an army
    /// with a legal move is to move or the match is over.
    fn settle(&mut self) {
        while !self.over() {
            let pos = &self.state.position;
            let (army, mode, live) = (pos.to_move, pos.mode, pos.live_armies());
            match (pos.start_of_turn(), mode) {
                (Start::Moves, _) => break,
                (Start::Checkmated, Mode::Teams) => self.team_loses(army, "checkmate"),
                (Start::Checkmated, _) => {
                    // §Q8 Decision: the last mover among those checking.
                    let mater = live
                        .iter()
                        .copied()
                        .filter(|b| *b != army && pos.checks(*b, army))
                        .max_by_key(|b| self.state.last_moved[b.index()]);
                    if let Some(mater) = mater {
                        self.score(mater, MATE_POINTS, "checkmate");
                    }
                    self.eliminate(army, "checkmate");
                }
                (Start::Stalemated, Mode::Teams) => {
                    self.push(Event::Skipped { army });
                    if self.state.skips >= live.len() {
                        self.finish(Outcome::draw("stalemate"));
                    }
                }
                (Start::Stalemated, _) => {
                    if self.state.stuck_after_own_move[army.index()] {
                        self.score(army, SELF_STALEMATE_POINTS, "self_stalemate");
                    } else {
                        for other in live.iter().copied().filter(|b| *b != army) {
                            self.score(other, STALEMATED_OPPONENT_POINTS, "stalemated_opponent");
                        }
                    }
                    if live.len() <= 2 {
                        let result = self.state.drawn("stalemate");
                        self.finish(result);
                    } else {
                        self.eliminate(army, "stalemate");
                    }
                }
            }
        }
    }

    /// §Q6: repetition and the ply limit, once the turn has settled.
    fn judge_draws(&mut self) {
        if self.over() {
            return;
        }
        let reason = if self.state.repetitions() >= REPETITIONS_FOR_END {
            "threefold_repetition"
        } else if self.state.plies >= PLY_LIMIT {
            "ply_limit"
        } else {
            return;
        };
        let result = self.state.drawn(reason);
        self.finish(result);
    }

    /// §Q9: resignation or abandonment by `seat`.
    fn give_up(&mut self, seat: Seat, reason: &str) {
        let armies: Vec<Army> = self
            .state
            .armies_of(seat)
            .into_iter()
            .filter(|a| self.state.position.live(*a))
            .collect();
        if self.state.mode() == Mode::Teams {
            self.team_loses(armies[0], reason);
            return;
        }
        for army in armies {
            if !self.over() {
                self.eliminate(army, reason);
            }
        }
        self.settle();
    }
}

pub struct FourPlayerChess;

impl FourPlayerChess {
    fn act_move(state: &State, seat: Seat, mv: Move) -> Result<Vec<Event>, RuleError> {
        let pos = &state.position;
        let army = pos.to_move;
        if state.seat_of(army) != Some(seat) {
            return Err(RuleError::not_your_turn());
        }
        if !pos.is_legal(mv) {
            return Err(RuleError::illegal(if pos.in_check(army) {
                format!("{mv} does not answer the check on {army}'s king")
            } else {
                format!("{mv} is not a legal move for {army} here")
            }));
        }
        let captured = pos.piece(mv.to);
        let enemies = pos.enemies(army);
        let checked_before: Vec<Army> = enemies
            .iter()
            .copied()
            .filter(|e| pos.checks(army, *e))
            .collect();
        let mut script = Script {
            state: state.clone(),
            events: Vec::new(),
        };
        script.push(Event::Moved {
            seat,
            army,
            notation: mv.to_string(),
            captured: captured.map(|p| Captured {
                owner: p.owner,
                kind: p.kind,
                promoted: p.promoted,
            }),
        });
        let victim = captured
            .filter(|p| p.kind == Kind::King)
            .and_then(|p| p.owner.army());
        // A king's capture scores as a mate (below), not as a capture.
        if let (Some(p), None) = (captured, victim) {
            script.score(army, p.value(), "capture");
        }
        // §Q8: two or three kings newly put in check at once.
        let after = &script.state.position;
        let checked: Vec<Army> = enemies
            .iter()
            .copied()
            .filter(|e| Some(*e) != victim && !checked_before.contains(e) && after.checks(army, *e))
            .collect();
        let only_queens = checked
            .iter()
            .all(|e| after.checks_only_with_queens(army, *e));
        let reason = if checked.len() == 3 {
            "triple_check"
        } else {
            "double_check"
        };
        script.score(army, multi_check_points(checked.len(), only_queens), reason);
        if let Some(victim) = victim {
            // §Q10: a king capture counts as the mate of its army.
            if state.mode() == Mode::Teams {
                script.team_loses(victim, "king_captured");
            } else {
                script.score(army, MATE_POINTS, "king_captured");
                script.eliminate(victim, "king_captured");
            }
        }
        script.settle();
        script.judge_draws();
        Ok(script.events)
    }

    fn give_up(state: &State, seat: Seat, event: Event, reason: &str) -> Vec<Event> {
        let mut script = Script {
            state: state.clone(),
            events: Vec::new(),
        };
        script.push(event);
        script.give_up(seat, reason);
        script.events
    }

    fn in_play(state: &State, seat: Seat) -> bool {
        state
            .armies_of(seat)
            .iter()
            .any(|a| state.position.live(*a))
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

/// §Q5/Q14: the armies `players` play in `ffa`/`points`.
fn armies_for(players: usize) -> Vec<Army> {
    match players {
        2 => vec![Army::Red, Army::Blue],
        3 => vec![Army::Red, Army::Green, Army::Blue],
        _ => Army::ALL.to_vec(),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Alive,
    Eliminated,
    Absent,
}

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ArmyView {
    pub army: Army,
    /// The seat playing it; absent armies have none.
    pub seat: Option<Seat>,
    pub status: Status,
    /// §Q8 points (always 0 outside `points`).
    pub points: i32,
    pub in_check: bool,
}

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
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
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct View {
    pub mode: Mode,
    /// The position in RULES.md §Q12 notation.
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
            "start from this RULES.md §Q12 position instead (its mode= must be the match's mode)",
        )],
        // §Q6: 1,000 plies, then up to three players giving up.
        action_cap: PLY_LIMIT as usize + 4,
        rating: crate::Rating::Placings,
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

    fn apply(state: &mut State, event: &Event) {
        match event {
            Event::Started {
                armies, position, ..
            } => {
                let position = Position::from_notation(position).unwrap_or_default();
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
                    return;
                };
                let pawn = state
                    .position
                    .piece(mv.from)
                    .is_some_and(|p| p.kind == Kind::Pawn);
                if state.mode() == Mode::Points {
                    // Judged after the ply's own king capture, if any: the
                    // captured army's pieces are dead then (§Q14).
                    let mut own = state.position.after_eliminations(mv);
                    own.to_move = *army;
                    state.stuck_after_own_move[army.index()] = !own.has_legal_move();
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
        if state.armies_of(seat).is_empty() {
            return Err(RuleError::illegal("there is no such seat in this match"));
        }
        if !Self::in_play(state, seat) {
            return Err(RuleError::illegal(
                "you have been eliminated from this match",
            ));
        }
        match action {
            Action::Move { notation } => {
                let mv = Move::parse(notation).ok_or_else(|| {
                    RuleError::malformed(format!(
                        "{notation:?} is not a move: write from and to, as h2h4 (h10h11q to promote)"
                    ))
                })?;
                Self::act_move(state, seat, mv)
            }
            Action::Resign {} => Ok(Self::give_up(
                state,
                seat,
                Event::Resigned { seat },
                "resigned",
            )),
        }
    }

    fn legal_actions(state: &State, seat: Seat) -> Vec<Action> {
        if state.outcome.is_some() || !Self::in_play(state, seat) {
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
        Self::give_up(
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
