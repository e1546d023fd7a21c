//! The Janggi board (docs/rules/janggi.md §J1, §J3, §J4): 9 files × 10 ranks of
//! intersections, the two palaces with their diagonals, every piece's
//! moves, bikjang and `perft`. Check is in `attacks.rs`, Fairy-Stockfish's
//! janggi FEN in `notation.rs`.
//!
//! Squares are `rank * 9 + file`; file 0 is `a` (Cho's left), rank 0 is
//! `1` (Cho's back rank). Cho is upper case in a FEN, at the bottom.

use crate::grid::Grid;
use serde::{Deserialize, Serialize};
use std::fmt;

pub const FILES: i8 = 9;
pub const RANKS: i8 = 10;
const SQUARES: usize = 90;
/// The board's intersections and their names.
pub(super) const GRID: Grid = Grid::new(FILES as u8, RANKS as u8);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// Green, at the bottom, moves first (§J1).
    Cho,
    /// Red, at the top, with the 1.5-point komi (§J1, §J7).
    Han,
}

impl Side {
    pub fn other(self) -> Side {
        match self {
            Side::Cho => Side::Han,
            Side::Han => Side::Cho,
        }
    }

    /// The rank step a soldier of this side moves forward by.
    pub(super) fn forward(self) -> i8 {
        match self {
            Side::Cho => 1,
            Side::Han => -1,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    King,
    Guard,
    Chariot,
    Cannon,
    Horse,
    Elephant,
    Soldier,
}

impl Kind {
    pub(super) const ALL: [Kind; 7] = [
        Kind::King,
        Kind::Guard,
        Kind::Chariot,
        Kind::Cannon,
        Kind::Horse,
        Kind::Elephant,
        Kind::Soldier,
    ];

    /// The FEN letter (upper case), as Fairy-Stockfish writes janggi.
    pub fn letter(self) -> char {
        match self {
            Kind::King => 'K',
            Kind::Guard => 'A',
            Kind::Chariot => 'R',
            Kind::Cannon => 'C',
            Kind::Horse => 'N',
            Kind::Elephant => 'B',
            Kind::Soldier => 'P',
        }
    }

    /// docs/rules/janggi.md §J7: the points a piece on the board is worth.
    pub fn points(self) -> f64 {
        match self {
            Kind::Chariot => 13.0,
            Kind::Cannon => 7.0,
            Kind::Horse => 5.0,
            Kind::Elephant | Kind::Guard => 3.0,
            Kind::Soldier => 2.0,
            Kind::King => 0.0,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    pub side: Side,
    pub kind: Kind,
}

/// A move from one intersection to another, or the §J5 pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    Step { from: u8, to: u8 },
    Pass,
}

pub fn square_name(sq: u8) -> String {
    GRID.name(sq)
}

fn parse_square(text: &str) -> Option<u8> {
    let file = text.chars().next()?;
    let rank: u8 = text.get(1..)?.parse().ok()?;
    if !('a'..='i').contains(&file) || !(1..=10).contains(&rank) {
        return None;
    }
    Some((rank - 1) * 9 + (file as u8 - b'a'))
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Move::Step { from, to } => write!(f, "{}{}", square_name(*from), square_name(*to)),
            Move::Pass => write!(f, "pass"),
        }
    }
}

impl Move {
    /// `b1c3`, `e9e10`, or `pass`.
    pub fn parse(text: &str) -> Option<Move> {
        if text == "pass" {
            return Some(Move::Pass);
        }
        // The second square starts at the second letter.
        let split = text
            .char_indices()
            .skip(1)
            .find(|(_, c)| c.is_ascii_alphabetic())?
            .0;
        let (from, to) = (parse_square(&text[..split])?, parse_square(&text[split..])?);
        (from != to).then_some(Move::Step { from, to })
    }
}

pub(super) const ORTHOGONAL: [(i8, i8); 4] = [(0, 1), (0, -1), (1, 0), (-1, 0)];
pub(super) const DIAGONAL: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

/// §J1: the palace whose ranks hold `sq`, if any (Cho's: ranks 1–3).
pub(super) fn palace_of(sq: u8) -> Option<Side> {
    let (f, r) = GRID.coords(sq);
    if !(3..=5).contains(&f) {
        return None;
    }
    match r {
        0..=2 => Some(Side::Cho),
        7..=9 => Some(Side::Han),
        _ => None,
    }
}

/// The palace's centre or one of its corners: the points its diagonals join.
fn on_palace_diagonal(sq: u8) -> bool {
    let (f, r) = GRID.coords(sq);
    palace_of(sq).is_some() && (f - 4).abs() == (r % 7 - 1).abs()
}

fn is_palace_centre(sq: u8) -> bool {
    matches!(GRID.coords(sq), (4, 1) | (4, 8))
}

/// One step along a palace diagonal line from `sq` in `dir`: the lines
/// join each corner to the centre, so one end of the step is the centre.
pub(super) fn palace_step(sq: u8, dir: (i8, i8)) -> Option<u8> {
    let next = GRID.offset(sq, dir)?;
    (on_palace_diagonal(sq)
        && on_palace_diagonal(next)
        && (is_palace_centre(sq) || is_palace_centre(next)))
    .then_some(next)
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    pub(super) cells: [Option<Piece>; SQUARES],
    pub turn: Side,
}

impl Default for Position {
    fn default() -> Self {
        Position {
            cells: [None; SQUARES],
            turn: Side::Cho,
        }
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.to_fen())
    }
}

impl Position {
    pub fn piece(&self, sq: u8) -> Option<Piece> {
        self.cells[sq as usize]
    }

    /// Every piece with its square, from a1 on.
    pub fn pieces(&self) -> impl Iterator<Item = (u8, Piece)> + '_ {
        (0..SQUARES as u8).filter_map(|sq| self.piece(sq).map(|p| (sq, p)))
    }

    pub(super) fn king(&self, side: Side) -> Option<u8> {
        self.pieces()
            .find(|(_, p)| p.side == side && p.kind == Kind::King)
            .map(|(sq, _)| sq)
    }

    /// docs/rules/janggi.md §J7: the points of `side`'s pieces on the board, with
    /// Han's komi.
    pub fn points(&self, side: Side) -> f64 {
        let komi = if side == Side::Han { KOMI } else { 0.0 };
        komi + self
            .pieces()
            .filter(|(_, p)| p.side == side)
            .map(|(_, p)| p.kind.points())
            .sum::<f64>()
    }

    /// §J6 bikjang: the kings on one file with nothing between them.
    pub fn kings_face(&self) -> bool {
        let (Some(cho), Some(han)) = (self.king(Side::Cho), self.king(Side::Han)) else {
            return false;
        };
        let ((cf, cr), (hf, hr)) = (GRID.coords(cho), GRID.coords(han));
        cf == hf
            && (cr.min(hr) + 1..cr.max(hr)).all(|r| self.cells[(r * 9 + cf) as usize].is_none())
    }

    /// Pseudo-legal steps of the side to move (own king's safety unchecked).
    fn steps(&self, out: &mut Vec<Move>) {
        let us = self.turn;
        for (from, piece) in self.pieces() {
            if piece.side != us {
                continue;
            }
            let mut push = |to: u8| {
                if self.piece(to).is_none_or(|p| p.side != us) {
                    out.push(Move::Step { from, to });
                }
            };
            match piece.kind {
                Kind::King | Kind::Guard => {
                    for d in ORTHOGONAL {
                        if let Some(to) =
                            GRID.offset(from, d).filter(|&to| palace_of(to) == Some(us))
                        {
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
                        self.slide(from, cannon, |sq| GRID.offset(sq, d), &mut push);
                    }
                    for d in DIAGONAL {
                        self.slide(from, cannon, |sq| palace_step(sq, d), &mut push);
                    }
                }
                Kind::Horse | Kind::Elephant => {
                    let legs = if piece.kind == Kind::Horse { 1 } else { 2 };
                    for d in ORTHOGONAL {
                        let Some(first) = GRID.offset(from, d).filter(|&s| self.piece(s).is_none())
                        else {
                            continue;
                        };
                        for side in [1, -1] {
                            let diag = (d.0 + d.1 * side, d.1 + d.0 * side);
                            let mut sq = Some(first);
                            for _ in 1..legs {
                                sq = sq
                                    .and_then(|s| GRID.offset(s, diag))
                                    .filter(|&s| self.piece(s).is_none());
                            }
                            if let Some(to) = sq.and_then(|s| GRID.offset(s, diag)) {
                                push(to);
                            }
                        }
                    }
                }
                Kind::Soldier => {
                    let forward = us.forward();
                    for d in [(0, forward), (1, 0), (-1, 0)] {
                        if let Some(to) = GRID.offset(from, d) {
                            push(to);
                        }
                    }
                    // §J3: diagonally forward only inside the enemy palace.
                    if palace_of(from) == Some(us.other()) {
                        for d in [(1, forward), (-1, forward)] {
                            if let Some(to) = palace_step(from, d) {
                                push(to);
                            }
                        }
                    }
                }
            }
        }
    }

    /// A chariot's (§J3: any distance) or a cannon's (§J3: over exactly
    /// one screen that is not a cannon, never onto a cannon) line moves.
    fn slide(
        &self,
        from: u8,
        cannon: bool,
        step: impl Fn(u8) -> Option<u8>,
        push: &mut impl FnMut(u8),
    ) {
        let mut sq = from;
        let mut screen = !cannon;
        while let Some(next) = step(sq) {
            sq = next;
            match self.piece(sq) {
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

    /// The position after `mv` (no legality check); the captured piece.
    pub fn play(&self, mv: Move) -> (Position, Option<Piece>) {
        let mut next = *self;
        next.turn = self.turn.other();
        let mut captured = None;
        if let Move::Step { from, to } = mv {
            captured = next.cells[to as usize].take();
            next.cells[to as usize] = next.cells[from as usize].take();
        }
        (next, captured)
    }

    /// Every legal move of the side to move (§J4, §J5): the steps that
    /// leave its own king unattacked, and the pass unless in check. None
    /// when the kings face each other: the match is over (§J6). The steps
    /// come first: by piece from a1 on, each piece's steps in a fixed
    /// order. The computer opponent's search lists its moves with this
    /// (`engine/janggi.rs`), so it is kept fast: only a step that can
    /// change what attacks the king is played out to see
    /// (`rules/tests/janggi_j.rs` checks the list against playing every
    /// step out).
    pub fn legal_moves(&self, out: &mut Vec<Move>) {
        out.clear();
        if self.kings_face() {
            return;
        }
        let in_check = self.in_check(self.turn);
        self.safe_steps(in_check, out);
        if !in_check {
            out.push(Move::Pass);
        }
    }

    /// The legal steps of the side to move that take a piece, in
    /// [`Position::legal_moves`]' order: what the engine's quiescence
    /// follows past its horizon, without judging every other step's
    /// safety.
    pub fn captures(&self, out: &mut Vec<Move>) {
        out.clear();
        if self.kings_face() {
            return;
        }
        let in_check = self.in_check(self.turn);
        let king = self.king(self.turn);
        self.steps(out);
        out.retain(|mv| {
            matches!(mv, Move::Step { to, .. } if self.piece(*to).is_some())
                && self.safe(*mv, in_check, king)
        });
    }

    /// The legal steps of the side to move, appended to `out`, knowing
    /// whether it is in check.
    fn safe_steps(&self, in_check: bool, out: &mut Vec<Move>) {
        let mut steps = Vec::with_capacity(48);
        self.steps(&mut steps);
        let king = self.king(self.turn);
        out.extend(
            steps
                .into_iter()
                .filter(|mv| self.safe(*mv, in_check, king)),
        );
    }

    /// Whether the step `mv` leaves the mover's own king (on `king`)
    /// unattacked (§J4). Out of check, a step that touches none of the
    /// king's lines can expose nothing: every attack on a king runs along
    /// its file or rank, or starts within three points of it (horses,
    /// elephants and their legs, the palace lines, soldiers), so only a
    /// step from or to such a point is played out.
    fn safe(&self, mv: Move, in_check: bool, king: Option<u8>) -> bool {
        let Move::Step { from, to } = mv else {
            return true;
        };
        let touches = |k: u8| {
            let (kf, kr) = GRID.coords(k);
            [from, to].into_iter().any(|sq| {
                let (f, r) = GRID.coords(sq);
                f == kf || r == kr || ((f - kf).abs() <= 3 && (r - kr).abs() <= 3)
            })
        };
        let risky = in_check || king.is_none_or(touches);
        !risky || !self.play(mv).0.in_check(self.turn)
    }

    /// Why the match is over in this position, as its result would name
    /// it: `checkmate` (§J4) or `bikjang` (§J6) — exactly when
    /// [`Position::legal_moves`] is empty. `None` while it goes on; the
    /// double pass, repetition and the ply limit need the history.
    pub fn ending(&self) -> Option<&'static str> {
        if self.in_check(self.turn) && !self.has_step() {
            Some("checkmate")
        } else if self.kings_face() {
            Some("bikjang")
        } else {
            None
        }
    }

    /// Whether the side to move has a legal step (not counting the pass).
    pub fn has_step(&self) -> bool {
        let mut steps = Vec::with_capacity(48);
        self.steps(&mut steps);
        let (in_check, king) = (self.in_check(self.turn), self.king(self.turn));
        steps.iter().any(|mv| self.safe(*mv, in_check, king))
    }

    /// Whether `mv` is one of [`Position::legal_moves`], without listing
    /// them all.
    pub fn is_legal(&self, mv: Move) -> bool {
        if self.kings_face() {
            return false;
        }
        match mv {
            Move::Pass => !self.in_check(self.turn),
            Move::Step { from, .. } => {
                if self.piece(from).is_none_or(|p| p.side != self.turn) {
                    return false;
                }
                let mut steps = Vec::with_capacity(48);
                self.steps(&mut steps);
                steps.contains(&mv) && !self.play(mv).0.in_check(self.turn)
            }
        }
    }
}

/// docs/rules/janggi.md §J7: Han's komi (덤).
pub const KOMI: f64 = 1.5;

/// Count the move sequences of `depth` (§J5 passes included). A position
/// where the match is over has no children: the kings face (bikjang made
/// by the last move) or the last two moves were passes (§J6).
pub fn perft(pos: &Position, depth: usize, passed: bool) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut moves = Vec::with_capacity(48);
    pos.legal_moves(&mut moves);
    if depth == 1 {
        return moves.len() as u64;
    }
    moves
        .iter()
        .map(|mv| match mv {
            // The second pass in a row ends the match: no children.
            Move::Pass if passed => 0,
            Move::Pass => perft(&pos.play(*mv).0, depth - 1, true),
            _ => perft(&pos.play(*mv).0, depth - 1, false),
        })
        .sum()
}
