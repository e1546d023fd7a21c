//! The Janggi engine (docs/bots.md), docs/rules/janggi.md §J.
//!
//! The position is rebuilt from the seat's own view, read into the rules'
//! [`View`] (the FEN, which seat plays Cho, whether the last ply was a
//! pass, the plies left); Janggi hides nothing, so the engine sees it
//! whole ([`Search`]). Its moves are the rules' own
//! ([`Board::legal_moves`]), and every ending is searched as the rules
//! judge it ([`Board::ending`]): checkmate loses (§J4), and bikjang,
//! the double pass and the ply limit are decided on points with Han's komi
//! (§J6, §J7) — so a side ahead on points may seek bikjang and a side
//! behind avoids it. The evaluation is the §J7 points (chariot 13, cannon
//! 7, horse 5, elephant 3, guard 3, soldier 2) in hundredths, with small
//! terms for soldiers across the river and the king's guards. The
//! computer passes (§J5) only when it has no move, or to end the match
//! on points right after the opponent's pass; it never resigns.

use super::{choose_scored, root_scores, within, Budget, Engine, Level, Search, WIN};
use crate::janggi::{Action, Janggi, Kind, Move, Position as Board, Side, View};
use crate::{Random, RuleError, Seat};

/// The nodes one decision may visit here: Janggi's nodes cost several
/// times checkers' (a legal move list checks the king's safety), so normal
/// and hard search fewer than the shared [`Level::nodes`] to stay within
/// their think-time bars (0.3 s and 2 s, issue #32).
fn nodes(level: Level) -> u64 {
    match level {
        Level::Easy => level.nodes(),
        Level::Normal => 80_000,
        Level::Hard => 300_000,
        // Pinned: the puzzles were proved against it (docs/puzzles.md).
        Level::Puzzle => 300_000,
    }
}

/// Easy's weaker moves give away at most about a horse.
const EASY_FLOOR: i32 = 500;

/// Normal picks among moves within this much of its best (a fifth of a
/// soldier).
const NORMAL_MARGIN: i32 = 40;

/// A Janggi position as the engine searches it.
#[derive(Clone, Debug)]
pub struct Position {
    pub board: Board,
    /// The last ply was a pass: another ends the match (§J6).
    pub passed: bool,
    /// The last two plies were passes: the match is over (§J6).
    pub double_pass: bool,
    /// §J6: plies left before the match ends on points.
    pub plies_left: u32,
}

fn side_index(side: Side) -> usize {
    match side {
        Side::Cho => 0,
        Side::Han => 1,
    }
}

/// §J7 points in hundredths.
fn worth(kind: Kind) -> i32 {
    match kind {
        Kind::Chariot => 1300,
        Kind::Cannon => 700,
        Kind::Horse => 500,
        Kind::Elephant | Kind::Guard => 300,
        Kind::Soldier => 200,
        Kind::King => 0,
    }
}

/// `(file, rank)` of a square (§J1), for the evaluation.
fn coords(sq: u8) -> (i8, i8) {
    ((sq % 9) as i8, (sq / 9) as i8)
}

impl Position {
    /// §J6/§J7: the side that wins on points now (Han's komi rules out a tie).
    fn points_winner(&self) -> usize {
        if self.board.points(Side::Cho) > self.board.points(Side::Han) {
            0
        } else {
            1
        }
    }

    /// The result for Cho (side 0) if the match is over here: the rules'
    /// own judgement of the position ([`Board::ending`]), then the double
    /// pass and the ply limit, which need the line.
    fn result(&self) -> Option<i32> {
        let on_points = Some(if self.points_winner() == 0 { WIN } else { -WIN });
        match self.board.ending() {
            // §J4: checkmated, the side to move loses.
            Some("checkmate") => Some(if self.board.turn == Side::Cho {
                -WIN
            } else {
                WIN
            }),
            // §J6: bikjang ends the match on points.
            Some(_) => on_points,
            None if self.double_pass || self.plies_left == 0 => on_points,
            None => None,
        }
    }

    /// The static evaluation for Cho, in hundredths of a point.
    fn evaluate(&self) -> i32 {
        let mut score = [0i32; 2];
        let mut kings = [(0i8, 0i8); 2];
        let mut guards = [[(0i8, 0i8); 2]; 2];
        let mut guard_count = [0usize; 2];
        for sq in 0..90u8 {
            let Some(piece) = self.board.piece(sq) else {
                continue;
            };
            let s = side_index(piece.side);
            let (file, rank) = coords(sq);
            // Ranks advanced from the side's own back rank.
            let advanced = if piece.side == Side::Cho {
                rank
            } else {
                9 - rank
            };
            score[s] += worth(piece.kind);
            match piece.kind {
                Kind::Soldier if advanced >= 5 => {
                    // Across the river; more on the enemy palace's files.
                    score[s] += 15 + if (3..=5).contains(&file) { 10 } else { 0 };
                }
                Kind::Horse | Kind::Cannon | Kind::Chariot => {
                    // A little for leaving the back rank.
                    score[s] += if advanced > 0 { 10 } else { 0 };
                }
                Kind::King => kings[s] = (file, rank),
                Kind::Guard if guard_count[s] < 2 => {
                    guards[s][guard_count[s]] = (file, rank);
                    guard_count[s] += 1;
                }
                _ => {}
            }
        }
        // King safety: guards beside their king.
        for s in 0..2 {
            let (kf, kr) = kings[s];
            for &(gf, gr) in &guards[s][..guard_count[s]] {
                if (gf - kf).abs() <= 1 && (gr - kr).abs() <= 1 {
                    score[s] += 15;
                }
            }
        }
        // Han's komi (§J7), in the same hundredths.
        score[1] += 150;
        score[0] - score[1]
    }
}

impl Position {
    /// A move's place in the search's order: captures first, the most
    /// valuable piece taken by the least valuable taker.
    fn order(&self, mv: &Move) -> i32 {
        match *mv {
            Move::Step { from, to } => match self.board.piece(to) {
                Some(victim) => {
                    let taker = self.board.piece(from).map_or(0, |p| worth(p.kind));
                    10_000 + worth(victim.kind) * 4 - taker / 100
                }
                None => 0,
            },
            Move::Pass => 0,
        }
    }
}

impl Search for Position {
    type Move = Move;

    fn mover(&self) -> usize {
        side_index(self.board.turn)
    }

    /// The legal steps, captures first (the most valuable piece taken by
    /// the least valuable taker); a pass only when there is no step, or
    /// right after the opponent's pass, where it ends the match on points.
    fn moves(&self, out: &mut Vec<Move>) {
        if self.double_pass || self.plies_left == 0 {
            return;
        }
        // The rules' own list: the steps, then the pass unless in check;
        // none once the kings face (§J6).
        let mut legal = Vec::with_capacity(64);
        self.board.legal_moves(&mut legal);
        let pass = legal.last() == Some(&Move::Pass);
        if pass {
            legal.pop();
        }
        let mut steps: Vec<(Move, i32)> = (legal.into_iter())
            .map(|mv| (mv, self.order(&mv)))
            .collect();
        steps.sort_by_key(|m| std::cmp::Reverse(m.1));
        let any_step = !steps.is_empty();
        out.extend(steps.into_iter().map(|m| m.0));
        if pass && (!any_step || self.passed) {
            out.push(Move::Pass);
        }
    }

    fn play(&self, mv: &Move) -> Position {
        Position {
            board: self.board.play(*mv).0,
            passed: *mv == Move::Pass,
            double_pass: *mv == Move::Pass && self.passed,
            plies_left: self.plies_left.saturating_sub(1),
        }
    }

    fn value(&self, side: usize) -> i32 {
        let cho = self.result().unwrap_or_else(|| self.evaluate());
        if side == 0 {
            cho
        } else {
            -cho
        }
    }

    fn over(&self) -> bool {
        self.result().is_some()
    }

    fn key(&self) -> Option<u64> {
        Some(super::key_of(&(self.board, self.passed, self.plies_left)))
    }

    /// The captures in [`Search::moves`]' order: the most valuable piece
    /// taken first (§J7 points), by the least valuable taker.
    fn noisy(&self, out: &mut Vec<Move>) -> bool {
        out.clear();
        if self.double_pass || self.plies_left == 0 {
            return false;
        }
        self.board.captures(out);
        out.sort_by_key(|mv| std::cmp::Reverse(self.order(mv)));
        false
    }
}

/// Normal's margin, none when a forced win is seen: the quickest win is
/// played rather than one further off.
fn margin(scored: &[(Move, i32)]) -> i32 {
    match scored.iter().map(|m| m.1).max() {
        Some(best) if best > WIN / 2 => 0,
        _ => NORMAL_MARGIN,
    }
}

/// The engine's position from a seat's view of a Janggi match.
pub fn from_view(view: &View) -> Result<Position, RuleError> {
    Ok(Position {
        board: Board::from_fen(&view.position)?,
        passed: view.last_move.as_deref() == Some("pass"),
        double_pass: false,
        plies_left: view.plies_until_ply_limit,
    })
}

/// Puzzles (docs/puzzles.md): Janggi hides nothing. Six plies where hard
/// looks five (and seldom finishes them within its budget); an elephant's
/// lead at every step, a horse over the start ends a line.
impl super::puzzles::Puzzles for Janggi {
    type Whole = Position;
    const SHIPPED: &'static str = include_str!("../../puzzles/janggi.jsonl");
    const RULE: super::puzzles::Rule = super::puzzles::Rule {
        mined: true,
        from_people: true,
        scan: 3,
        depth: 6,
        margin: 300,
        decisive: 500,
        nodes: 4_000_000,
        players: super::puzzles::NORMAL_AGAINST_EASY,
    };

    fn whole(view: &View) -> Option<Position> {
        from_view(view).ok()
    }

    fn start_of(view: &View, _config: &crate::janggi::Config) -> Option<crate::janggi::Config> {
        Some(crate::janggi::Config {
            setups: view.setups,
            position: Some(view.position.clone()),
        })
    }

    fn action(mv: &Move) -> Action {
        match mv {
            Move::Pass => Action::Pass {},
            step => Action::Move {
                notation: step.to_string(),
            },
        }
    }

    fn material(pos: &Position, side: usize) -> i32 {
        (0..90u8)
            .filter_map(|sq| pos.board.piece(sq))
            .map(|p| {
                let sign = if side_index(p.side) == side { 1 } else { -1 };
                sign * worth(p.kind)
            })
            .sum()
    }
}

/// Janggi hides nothing: a play is judged in the position itself.
impl super::analysis::Analyse for Janggi {}

impl Engine for Janggi {
    fn decide(
        view: &View,
        seat: Seat,
        level: Level,
        random: &mut dyn Random,
    ) -> Result<Action, RuleError> {
        if seat.index() > 1 {
            return Err(RuleError::illegal("there is no such seat in janggi"));
        }
        let pos = from_view(view)?;
        let side = if seat == view.cho {
            Side::Cho
        } else {
            Side::Han
        };
        if pos.board.turn != side {
            return Err(RuleError::not_your_turn());
        }
        if pos.over() {
            return Err(RuleError::finished());
        }
        let mut scored = root_scores(
            &pos,
            level.depth(),
            &mut Budget::for_level(level, nodes(level)),
        );
        if level == Level::Easy {
            scored = within(&scored, EASY_FLOOR);
        }
        let mv = choose_scored(&scored, level, margin(&scored), random)
            .ok_or_else(RuleError::finished)?;
        Ok(match mv {
            Move::Pass => Action::Pass {},
            step => Action::Move {
                notation: step.to_string(),
            },
        })
    }
}
