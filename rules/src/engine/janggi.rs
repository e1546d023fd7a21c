//! The Janggi engine (issue #32), docs/rules/janggi.md §J.
//!
//! The position is rebuilt from the seat's own view, read into the rules'
//! [`View`] (the FEN, which seat plays Cho, whether the last ply was a
//! pass, the plies left); Janggi hides nothing, so the engine sees it
//! whole ([`Search`]). Every ending
//! is searched as the rules judge it: checkmate loses (§J4), and bikjang,
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

/// §J1 geometry, as the board module has it: `(file, rank)` of a square.
fn coords(sq: u8) -> (i8, i8) {
    ((sq % 9) as i8, (sq / 9) as i8)
}

fn offset(sq: u8, (df, dr): (i8, i8)) -> Option<u8> {
    let (f, r) = coords(sq);
    let (f, r) = (f + df, r + dr);
    ((0..9).contains(&f) && (0..10).contains(&r)).then(|| (r * 9 + f) as u8)
}

const ORTHOGONAL: [(i8, i8); 4] = [(0, 1), (0, -1), (1, 0), (-1, 0)];
const DIAGONAL: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

/// §J1: the palace holding `sq`, if any (Cho's: ranks 1–3).
fn palace_of(sq: u8) -> Option<Side> {
    let (f, r) = coords(sq);
    if !(3..=5).contains(&f) {
        return None;
    }
    match r {
        0..=2 => Some(Side::Cho),
        7..=9 => Some(Side::Han),
        _ => None,
    }
}

fn on_palace_diagonal(sq: u8) -> bool {
    let (f, r) = coords(sq);
    palace_of(sq).is_some() && (f - 4).abs() == (r % 7 - 1).abs()
}

fn is_palace_centre(sq: u8) -> bool {
    matches!(coords(sq), (4, 1) | (4, 8))
}

/// One step along a palace diagonal line (one end is the centre).
fn palace_step(sq: u8, dir: (i8, i8)) -> Option<u8> {
    let next = offset(sq, dir)?;
    (on_palace_diagonal(sq)
        && on_palace_diagonal(next)
        && (is_palace_centre(sq) || is_palace_centre(next)))
    .then_some(next)
}

fn forward(side: Side) -> i8 {
    match side {
        Side::Cho => 1,
        Side::Han => -1,
    }
}

/// The pseudo-legal steps of the side to move (§J3), exactly as the
/// board module generates them; the engine filters them for the king's
/// safety itself, testing only the steps that can touch it.
fn steps(board: &Board, out: &mut Vec<(u8, u8)>) {
    let us = board.turn;
    for from in 0..90u8 {
        let Some(piece) = board.piece(from).filter(|p| p.side == us) else {
            continue;
        };
        let mut push = |to: u8| {
            if board.piece(to).is_none_or(|p| p.side != us) {
                out.push((from, to));
            }
        };
        match piece.kind {
            Kind::King | Kind::Guard => {
                for d in ORTHOGONAL {
                    if let Some(to) = offset(from, d).filter(|&to| palace_of(to) == Some(us)) {
                        push(to);
                    }
                }
                for d in DIAGONAL {
                    if let Some(to) = palace_step(from, d) {
                        push(to);
                    }
                }
            }
            Kind::Chariot | Kind::Cannon => {
                let cannon = piece.kind == Kind::Cannon;
                for d in ORTHOGONAL {
                    slide(board, from, cannon, |sq| offset(sq, d), &mut push);
                }
                for d in DIAGONAL {
                    slide(board, from, cannon, |sq| palace_step(sq, d), &mut push);
                }
            }
            Kind::Horse | Kind::Elephant => {
                let legs = if piece.kind == Kind::Horse { 1 } else { 2 };
                for d in ORTHOGONAL {
                    let Some(first) = offset(from, d).filter(|&s| board.piece(s).is_none()) else {
                        continue;
                    };
                    for side in [1, -1] {
                        let diag = (d.0 + d.1 * side, d.1 + d.0 * side);
                        let mut sq = Some(first);
                        for _ in 1..legs {
                            sq = sq
                                .and_then(|s| offset(s, diag))
                                .filter(|&s| board.piece(s).is_none());
                        }
                        if let Some(to) = sq.and_then(|s| offset(s, diag)) {
                            push(to);
                        }
                    }
                }
            }
            Kind::Soldier => {
                let ahead = forward(us);
                for d in [(0, ahead), (1, 0), (-1, 0)] {
                    if let Some(to) = offset(from, d) {
                        push(to);
                    }
                }
                if palace_of(from) == Some(us.other()) {
                    for d in [(1, ahead), (-1, ahead)] {
                        if let Some(to) = palace_step(from, d) {
                            push(to);
                        }
                    }
                }
            }
        }
    }
}

/// A chariot's or a cannon's line (§J3: a cannon over exactly one screen
/// that is not a cannon, never onto a cannon).
fn slide(
    board: &Board,
    from: u8,
    cannon: bool,
    step: impl Fn(u8) -> Option<u8>,
    push: &mut impl FnMut(u8),
) {
    let mut sq = from;
    let mut screen = !cannon;
    while let Some(next) = step(sq) {
        sq = next;
        match board.piece(sq) {
            None if screen => push(sq),
            None => {}
            Some(p) if !screen => {
                if p.kind == Kind::Cannon {
                    return;
                }
                screen = true;
            }
            Some(p) => {
                if !(cannon && p.kind == Kind::Cannon) {
                    push(sq);
                }
                return;
            }
        }
    }
}

fn king_of(board: &Board, side: Side) -> Option<u8> {
    (0..90u8).find(|&sq| {
        board
            .piece(sq)
            .is_some_and(|p| p.side == side && p.kind == Kind::King)
    })
}

/// Whether a step from `from` to `to` can change what attacks the king
/// on `king`: every attack on it runs along its file or rank or starts
/// within three points of it (horses, elephants and their legs, palace
/// lines, soldiers).
fn touches(king: u8, from: u8, to: u8) -> bool {
    let (kf, kr) = coords(king);
    [from, to].into_iter().any(|sq| {
        let (f, r) = coords(sq);
        f == kf || r == kr || ((f - kf).abs() <= 3 && (r - kr).abs() <= 3)
    })
}

/// The legal steps of the side to move (§J4), not the pass; none when the
/// kings face each other (§J6: the match is over).
fn legal_steps(board: &Board, out: &mut Vec<Move>) {
    if board.kings_face() {
        return;
    }
    let us = board.turn;
    let mut pseudo = Vec::with_capacity(64);
    steps(board, &mut pseudo);
    let in_check = board.in_check(us);
    let king = king_of(board, us);
    for (from, to) in pseudo {
        let mv = Move::Step { from, to };
        let risky = in_check || king.is_none_or(|k| touches(k, from, to));
        if !risky || !board.play(mv).0.in_check(us) {
            out.push(mv);
        }
    }
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

    /// The result for Cho (side 0) if the match is over here.
    fn result(&self) -> Option<i32> {
        let turn = self.board.turn;
        if self.board.in_check(turn) {
            let mut moves = Vec::new();
            legal_steps(&self.board, &mut moves);
            if moves.is_empty() && !self.board.kings_face() {
                // §J4: checkmated, the side to move loses.
                return Some(if turn == Side::Cho { -WIN } else { WIN });
            }
        }
        if self.double_pass || self.plies_left == 0 || self.board.kings_face() {
            return Some(if self.points_winner() == 0 { WIN } else { -WIN });
        }
        None
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

impl Search for Position {
    type Move = Move;

    fn mover(&self) -> usize {
        side_index(self.board.turn)
    }

    /// The legal steps, captures first (the most valuable piece taken by
    /// the least valuable taker); a pass only when there is no step, or
    /// right after the opponent's pass, where it ends the match on points.
    fn moves(&self, out: &mut Vec<Move>) {
        if self.double_pass || self.plies_left == 0 || self.board.kings_face() {
            return;
        }
        let mut legal = Vec::with_capacity(64);
        legal_steps(&self.board, &mut legal);
        let pass = !self.board.in_check(self.board.turn);
        let mut steps: Vec<(Move, i32)> = legal
            .into_iter()
            .map(|mv| {
                let order = match mv {
                    Move::Step { from, to } => match self.board.piece(to) {
                        Some(victim) => {
                            let taker = self.board.piece(from).map_or(0, |p| worth(p.kind));
                            10_000 + worth(victim.kind) * 4 - taker / 100
                        }
                        None => 0,
                    },
                    Move::Pass => 0,
                };
                (mv, order)
            })
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
        let mut scored = root_scores(&pos, level.depth(), &mut Budget::new(nodes(level)));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SplitMix64;

    /// The engine's own move generator lists exactly the board's legal
    /// steps (§J3, §J4), over seeded random playouts.
    #[test]
    fn j4_the_engine_generates_exactly_the_legal_steps() {
        use crate::Random;
        for seed in 0..20 {
            let mut random = SplitMix64::new(seed);
            let mut board = crate::janggi::start_position(Default::default());
            for _ in 0..150 {
                let mut theirs = Vec::new();
                board.legal_moves(&mut theirs);
                theirs.retain(|m| *m != Move::Pass);
                let mut ours = Vec::new();
                legal_steps(&board, &mut ours);
                let key = |m: &Move| m.to_string();
                theirs.sort_by_key(key);
                ours.sort_by_key(key);
                assert_eq!(ours, theirs, "at {board:?}");
                if ours.is_empty() {
                    break;
                }
                let mv = ours[random.below(ours.len() as u64) as usize];
                board = board.play(mv).0;
            }
        }
    }
}
