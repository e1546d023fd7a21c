//! Acting in four-player chess (docs/rules/four-player-chess.md §Q4–Q10): validating an action
//! and writing the facts it produces, with the judgments that follow.

use super::board::{Army, Kind, Mode, Move};
use super::moves::Verdict;
use super::state::{Action, Captured, Event, State};
use super::{MATE_POINTS, PLY_LIMIT, REPETITIONS_FOR_END};
use crate::{Env, Outcome, RuleError, Seat};

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

/// The events of one action, each folded into a copy of the state as it
/// is written, so every judgment reads the state that fact made.
struct Script {
    state: State,
    events: Vec<Event>,
}

impl Script {
    fn push(&mut self, event: Event) {
        // The game's own fresh event always folds (only a stored move that
        // does not parse fails, which `MatchState` reports).
        let folded = self.state.apply(&event);
        debug_assert!(folded.is_ok(), "{folded:?}");
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

    /// §Q4, Q6–Q8: the judgments at the start of each turn
    /// ([`super::Position::judge_start`]), until an army with a legal move is to
    /// move or the match is over.
    fn settle(&mut self) {
        while !self.over() {
            let state = &self.state;
            let pos = &state.position;
            let army = pos.to_move;
            let stranded = |army: Army| state.stuck_after_own_move[army.index()];
            let verdict = pos.judge_start(state.skips, &state.last_moved, stranded);
            for (scorer, points, reason) in verdict.scores(pos) {
                self.score(scorer, points, reason);
            }
            match verdict {
                Verdict::Moves => break,
                Verdict::TeamMated => self.team_loses(army, "checkmate"),
                Verdict::Skipped { last } => {
                    self.push(Event::Skipped { army });
                    if last {
                        self.finish(Outcome::draw("stalemate"));
                    }
                }
                Verdict::Mated { .. } => self.eliminate(army, "checkmate"),
                Verdict::Stalemated { last: true, .. } => {
                    let result = self.state.drawn("stalemate");
                    self.finish(result);
                }
                Verdict::Stalemated { last: false, .. } => self.eliminate(army, "stalemate"),
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

/// Validate `action` by `seat` and return the facts it produces.
pub fn act(
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
    if !in_play(state, seat) {
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
            act_move(state, seat, mv)
        }
        Action::Resign {} => Ok(give_up(state, seat, Event::Resigned { seat }, "resigned")),
    }
}

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

pub fn give_up(state: &State, seat: Seat, event: Event, reason: &str) -> Vec<Event> {
    let mut script = Script {
        state: state.clone(),
        events: Vec::new(),
    };
    script.push(event);
    script.give_up(seat, reason);
    script.events
}

pub fn in_play(state: &State, seat: Seat) -> bool {
    state
        .armies_of(seat)
        .iter()
        .any(|a| state.position.live(*a))
}
