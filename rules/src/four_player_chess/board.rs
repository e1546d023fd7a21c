//! The four-player chess board (docs/rules/four-player-chess.md §Q1–Q4, Q10–Q14): geometry, the
//! armies and pieces, moves, the position and `perft` (§Q13). Check is in
//! `attacks.rs`; move generation and the start-of-turn judgments in
//! `moves.rs`; the position notation of §Q12 in `notation.rs`.
//!
//! Squares are `rank * 14 + file`, files `a`–`n` and ranks `1`–`14` from
//! Red's side; the 3×3 corners do not exist.

use crate::grid::Grid;
use serde::{Deserialize, Serialize};
use std::fmt;

pub const SIZE: i8 = 14;
pub const SQUARES: usize = 196;
/// The 14×14 square, corners included ([`exists`] removes them).
const GRID: Grid = Grid::new(SIZE as u8, SIZE as u8);

/// §Q1: the four armies, in clockwise turn order from Red.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Army {
    Red,
    Green,
    Blue,
    Gray,
}

impl Army {
    pub const ALL: [Army; 4] = [Army::Red, Army::Green, Army::Blue, Army::Gray];

    pub fn index(self) -> usize {
        self as usize
    }

    pub fn name(self) -> &'static str {
        ["red", "green", "blue", "gray"][self.index()]
    }

    pub fn parse(name: &str) -> Option<Army> {
        Army::ALL.into_iter().find(|a| a.name() == name)
    }

    /// The next army clockwise (§Q1).
    pub fn next(self) -> Army {
        Army::ALL[(self.index() + 1) % 4]
    }

    /// §Q1: Red + Blue against Green + Gray.
    pub fn team(self) -> usize {
        self.index() % 2
    }

    /// Where this army's pawns go (§Q3): toward the opposite side.
    pub(super) fn forward(self) -> (i8, i8) {
        [(0, 1), (1, 0), (0, -1), (-1, 0)][self.index()]
    }

    /// The row of `sq` counted from this army's own back row (1-based).
    pub(super) fn row(self, sq: u8) -> i8 {
        let (f, r) = coords(sq);
        match self {
            Army::Red => r + 1,
            Army::Green => f + 1,
            Army::Blue => SIZE - r,
            Army::Gray => SIZE - f,
        }
    }

    /// §Q2: the home squares of king, short-side rook and long-side rook.
    /// (Constants: `play` asks for them on every move.)
    pub(super) fn homes(self) -> (u8, u8, u8) {
        match self {
            // h1, k1, d1
            Army::Red => (at(7, 0), at(10, 0), at(3, 0)),
            // a8, a11, a4
            Army::Green => (at(0, 7), at(0, 10), at(0, 3)),
            // g14, d14, k14
            Army::Blue => (at(6, 13), at(3, 13), at(10, 13)),
            // n7, n4, n11
            Army::Gray => (at(13, 6), at(13, 3), at(13, 10)),
        }
    }

    /// §Q2: the back row, from the file or rank the queen's rook stands on.
    fn layout(self) -> Vec<(Kind, u8)> {
        use Kind::*;
        let back = match self {
            Army::Red | Army::Green => [Rook, Knight, Bishop, Queen, King, Bishop, Knight, Rook],
            Army::Blue | Army::Gray => [Rook, Knight, Bishop, King, Queen, Bishop, Knight, Rook],
        };
        let mut pieces = Vec::new();
        for (i, kind) in back.into_iter().enumerate() {
            let i = i as i8 + 3;
            let (back_sq, pawn_sq) = match self {
                Army::Red => ((i, 0), (i, 1)),
                Army::Blue => ((i, 13), (i, 12)),
                Army::Green => ((0, i), (1, i)),
                Army::Gray => ((13, i), (12, i)),
            };
            pieces.push((kind, at(back_sq.0, back_sq.1)));
            pieces.push((Pawn, at(pawn_sq.0, pawn_sq.1)));
        }
        pieces
    }
}

impl fmt::Display for Army {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// §Q5: how the match is played and won.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    #[default]
    Teams,
    Ffa,
    Points,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Teams => "teams",
            Mode::Ffa => "ffa",
            Mode::Points => "points",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    King,
    Queen,
    Rook,
    Bishop,
    Knight,
    Pawn,
}

impl Kind {
    pub(super) fn letter(self) -> char {
        ['K', 'Q', 'R', 'B', 'N', 'P'][self as usize]
    }
}

/// Who a piece belongs to: a live army, or nobody (§Q7 dead pieces).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Owner {
    Red,
    Green,
    Blue,
    Gray,
    Dead,
}

impl Owner {
    pub fn army(self) -> Option<Army> {
        Army::ALL.get(self as usize).copied()
    }

    pub(super) fn of(army: Army) -> Owner {
        [Owner::Red, Owner::Green, Owner::Blue, Owner::Gray][army.index()]
    }
}

/// A piece; a promoted queen moves as a queen and scores as a pawn (§Q8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    pub owner: Owner,
    pub kind: Kind,
    pub promoted: bool,
}

impl Piece {
    /// §Q8: what capturing it scores (a king's capture scores as a mate).
    pub fn value(self) -> i32 {
        if self.owner == Owner::Dead {
            return 0;
        }
        match (self.kind, self.promoted) {
            (_, true) | (Kind::Pawn, _) => 1,
            (Kind::Knight, _) => 3,
            (Kind::Bishop | Kind::Rook, _) => 5,
            (Kind::Queen, _) => 9,
            (Kind::King, _) => 0,
        }
    }
}

pub fn coords(sq: u8) -> (i8, i8) {
    GRID.coords(sq)
}

const fn at(f: i8, r: i8) -> u8 {
    (r as u8) * (SIZE as u8) + f as u8
}

/// §Q1: on the board and not in a removed corner.
pub fn exists(f: i8, r: i8) -> bool {
    let inside = GRID.contains(f, r);
    let edge = |x: i8| !(3..=10).contains(&x);
    inside && !(edge(f) && edge(r))
}

pub(super) fn step(sq: u8, (df, dr): (i8, i8)) -> Option<u8> {
    let (f, r) = coords(sq);
    exists(f + df, r + dr).then(|| at(f + df, r + dr))
}

pub fn square_name(sq: u8) -> String {
    GRID.name(sq)
}

pub fn parse_square(s: &str) -> Option<u8> {
    let mut chars = s.chars();
    let file = chars.next()?;
    let rank: i8 = chars.as_str().parse().ok()?;
    if !file.is_ascii_lowercase() || chars.as_str().starts_with('0') {
        return None;
    }
    let (f, r) = ((file as u8 - b'a') as i8, rank - 1);
    exists(f, r).then(|| at(f, r))
}

/// One ply: `h2h4`, a promotion `h10h11q`, castling as the king's move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    pub from: u8,
    pub to: u8,
    pub promotion: bool,
}

impl Move {
    pub fn parse(s: &str) -> Option<Move> {
        let promotion = s.ends_with('q');
        let body = s.strip_suffix('q').unwrap_or(s);
        // The second square starts at the second letter.
        let split = body
            .char_indices()
            .skip(1)
            .find(|(_, c)| c.is_ascii_lowercase())?
            .0;
        let (from, to) = body.split_at(split);
        Some(Move {
            from: parse_square(from)?,
            to: parse_square(to)?,
            promotion,
        })
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", square_name(self.from), square_name(self.to))?;
        if self.promotion {
            f.write_str("q")?;
        }
        Ok(())
    }
}

pub(super) const ROOK_DIRS: [(i8, i8); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
pub(super) const BISHOP_DIRS: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
/// The queen's lines and the king's steps.
pub(super) const ALL_DIRS: [(i8, i8); 8] = [
    (1, 0),
    (-1, 0),
    (0, 1),
    (0, -1),
    (1, 1),
    (1, -1),
    (-1, 1),
    (-1, -1),
];
pub(super) const KNIGHT_JUMPS: [(i8, i8); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];
/// Castling rights: the short side (`K`) and the long side (`Q`), §Q11.
pub const SHORT: u8 = 1;
pub const LONG: u8 = 2;

/// What the army to move finds at the start of its turn (§Q4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    Moves,
    Checkmated,
    Stalemated,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    pub cells: [Option<Piece>; SQUARES],
    pub to_move: Army,
    pub mode: Mode,
    /// Per army, `SHORT | LONG` bits still held.
    pub castling: [u8; 4],
    /// Armies not in play: absent from the start, or eliminated.
    pub out: [bool; 4],
}

impl Default for Position {
    fn default() -> Self {
        Position::start(Mode::Teams, [true; 4])
    }
}

impl Position {
    /// §Q2 with the armies `playing` placed; Red, or the first present
    /// army in turn order, moves first (§Q14).
    pub fn start(mode: Mode, playing: [bool; 4]) -> Position {
        let mut pos = Position {
            cells: [None; SQUARES],
            to_move: Army::Red,
            mode,
            castling: [0; 4],
            out: playing.map(|p| !p),
        };
        for army in Army::ALL.into_iter().filter(|a| playing[a.index()]) {
            for (kind, sq) in army.layout() {
                pos.cells[sq as usize] = Some(Piece {
                    owner: Owner::of(army),
                    kind,
                    promoted: false,
                });
            }
            pos.castling[army.index()] = SHORT | LONG;
        }
        pos.to_move = Army::ALL
            .into_iter()
            .find(|a| playing[a.index()])
            .unwrap_or(Army::Red);
        pos
    }

    pub fn live(&self, army: Army) -> bool {
        !self.out[army.index()]
    }

    pub fn live_armies(&self) -> Vec<Army> {
        Army::ALL.into_iter().filter(|a| self.live(*a)).collect()
    }

    pub fn piece(&self, sq: u8) -> Option<Piece> {
        self.cells[sq as usize]
    }

    pub fn pieces(&self) -> impl Iterator<Item = (u8, Piece)> + '_ {
        (0..SQUARES as u8).filter_map(|sq| self.piece(sq).map(|p| (sq, p)))
    }

    pub fn king(&self, army: Army) -> Option<u8> {
        self.pieces()
            .find(|(_, p)| p.owner == Owner::of(army) && p.kind == Kind::King)
            .map(|(sq, _)| sq)
    }

    /// Whether `army` may capture (and so threaten) a piece of `owner`:
    /// dead pieces and other live armies, never a partner in teams (§Q6).
    pub fn hostile(&self, army: Army, owner: Owner) -> bool {
        match owner.army() {
            None => true,
            Some(other) => {
                other != army && !(self.mode == Mode::Teams && other.team() == army.team())
            }
        }
    }
}

/// §Q13: plies from `pos`; the start's own skip or elimination first.
pub fn perft(pos: &Position, depth: usize) -> u64 {
    match pos.clone().settle() {
        Some(pos) => count(&pos, depth),
        None => u64::from(depth == 0),
    }
}

fn count(pos: &Position, depth: usize) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    moves
        .iter()
        .map(|mv| match pos.successor(*mv) {
            Some(next) => count(&next, depth - 1),
            None => u64::from(depth == 1),
        })
        .sum()
}
