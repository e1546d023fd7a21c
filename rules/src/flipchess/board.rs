//! The FlipChess board (docs/rules/flipchess.md §F3): chess pieces moved one at a time by
//! colour group, with no check and no checkmate — a king is captured like
//! any piece — no en passant, promotion by choice, and castling as a green
//! move allowed through and out of attacked squares.
//!
//! The chess FEN and reading a written move are in `notation.rs`.
//!
//! Squares are numbered a1 = 0 … h8 = 63. Moves are written as in UCI:
//! `e2e4`, `e7e8q`, castling as the king's move `e1g1`.

use crate::grid::Grid;
use crate::RuleError;
use std::fmt;

/// The 8×8 board's squares and names.
const GRID: Grid = Grid::new(8, 8);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    White,
    Black,
}

impl Side {
    pub fn other(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }
    /// The direction this side's pawns advance, in ranks.
    fn forward(self) -> i8 {
        match self {
            Side::White => 1,
            Side::Black => -1,
        }
    }
    pub(super) fn home_rank(self) -> u8 {
        match self {
            Side::White => 0,
            Side::Black => 7,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Pawn,
    Knight,
    Bishop,
    Rook,
    Queen,
    King,
}

impl Kind {
    pub(super) fn letter(self) -> char {
        match self {
            Kind::Pawn => 'p',
            Kind::Knight => 'n',
            Kind::Bishop => 'b',
            Kind::Rook => 'r',
            Kind::Queen => 'q',
            Kind::King => 'k',
        }
    }

    pub(super) fn from_letter(c: char) -> Option<Kind> {
        Some(match c.to_ascii_lowercase() {
            'p' => Kind::Pawn,
            'n' => Kind::Knight,
            'b' => Kind::Bishop,
            'r' => Kind::Rook,
            'q' => Kind::Queen,
            'k' => Kind::King,
            _ => return None,
        })
    }

    /// §F9 round-40 judgement: pawn 1, knight 3, bishop 3, rook 5, queen 9,
    /// king 0 (Decision: standard values).
    pub fn value(self) -> u32 {
        match self {
            Kind::Pawn => 1,
            Kind::Knight | Kind::Bishop => 3,
            Kind::Rook => 5,
            Kind::Queen => 9,
            Kind::King => 0,
        }
    }
}

/// The §F3 colour groups: which pieces a card of that colour moves (the
/// king always may move too).
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Group {
    /// Pawns.
    Red,
    /// Knights and bishops.
    Yellow,
    /// Rooks, and castling.
    Green,
    /// Queens.
    Blue,
}

impl Group {
    pub const ALL: [Group; 4] = [Group::Red, Group::Yellow, Group::Green, Group::Blue];

    /// Whether a piece of `kind` moves with this group (§F3; a promoted
    /// piece belongs to the group of its new kind).
    pub fn moves(self, kind: Kind) -> bool {
        matches!(
            (self, kind),
            (_, Kind::King)
                | (Group::Red, Kind::Pawn)
                | (Group::Yellow, Kind::Knight | Kind::Bishop)
                | (Group::Green, Kind::Rook)
                | (Group::Blue, Kind::Queen)
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    pub side: Side,
    pub kind: Kind,
}

/// A single piece move. Castling is the king's two-square move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    pub from: u8,
    pub to: u8,
    pub promotion: Option<Kind>,
}

pub fn square_name(sq: u8) -> String {
    GRID.name(sq)
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", square_name(self.from), square_name(self.to))?;
        if let Some(k) = self.promotion {
            write!(f, "{}", k.letter())?;
        }
        Ok(())
    }
}

impl Move {
    /// Read `e2e4` / `e7e8q` (the legality is checked against a board).
    pub fn parse(text: &str) -> Result<Move, RuleError> {
        let t = text.trim();
        let bad = || {
            RuleError::malformed(format!(
                "move {text:?}: write a move as e2e4, or e7e8q to promote"
            ))
        };
        let from = t.get(0..2).and_then(|s| GRID.parse(s)).ok_or_else(bad)?;
        let to = t.get(2..4).and_then(|s| GRID.parse(s)).ok_or_else(bad)?;
        let promotion = match t.get(4..) {
            Some("") | None => None,
            Some(p) if p.chars().count() == 1 => {
                match Kind::from_letter(p.chars().next().unwrap_or(' ')) {
                    Some(k @ (Kind::Queen | Kind::Rook | Kind::Bishop | Kind::Knight)) => Some(k),
                    _ => {
                        return Err(RuleError::malformed(format!(
                            "move {text:?}: promote to q, r, b or n"
                        )))
                    }
                }
            }
            Some(_) => return Err(bad()),
        };
        Ok(Move {
            from,
            to,
            promotion,
        })
    }
}

/// Castling rights: king side and queen side, for White then Black.
pub(super) const CASTLE_ROOKS: [(Side, u8, u8, u8); 4] = [
    // (side, rook square, king destination, rook destination)
    (Side::White, 7, 6, 5),
    (Side::White, 0, 2, 3),
    (Side::Black, 63, 62, 61),
    (Side::Black, 56, 58, 59),
];

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    pub squares: [Option<Piece>; 64],
    pub side: Side,
    /// Rights in the order of `CASTLE_ROOKS`: king and rook unmoved.
    pub castling: [bool; 4],
}

const KNIGHT: [(i8, i8); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];
const KING: [(i8, i8); 8] = [
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
];
const ROOK: [(i8, i8); 4] = [(1, 0), (0, 1), (-1, 0), (0, -1)];
const BISHOP: [(i8, i8); 4] = [(1, 1), (-1, 1), (-1, -1), (1, -1)];

impl Board {
    pub const START: &'static str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    pub fn start() -> Board {
        Board::from_fen(Self::START).expect("the start position is valid")
    }

    pub fn king(&self, side: Side) -> Option<u8> {
        (0..64u8).find(|&sq| {
            self.squares[sq as usize]
                == Some(Piece {
                    side,
                    kind: Kind::King,
                })
        })
    }

    /// §F9: the material of `side`.
    pub fn material(&self, side: Side) -> u32 {
        self.squares
            .iter()
            .flatten()
            .filter(|p| p.side == side)
            .map(|p| p.kind.value())
            .sum()
    }

    /// Why the match is over on this board as [`perft`] judges it: the side
    /// to move has lost its king (`king_captured`, §F9), so it has no
    /// moves. `None` otherwise (cards, rounds and §F7's flip are not
    /// the board's to judge).
    pub fn ending(&self) -> Option<&'static str> {
        self.king(self.side).is_none().then_some("king_captured")
    }

    /// Every single-piece move of the side to move with `group` (every
    /// group when `None`, as perft counts them). A side without a king has
    /// no moves.
    pub fn moves(&self, group: Option<Group>, out: &mut Vec<Move>) {
        out.clear();
        if self.king(self.side).is_none() {
            return;
        }
        for from in 0..64u8 {
            let Some(piece) = self.squares[from as usize] else {
                continue;
            };
            if piece.side != self.side || group.is_some_and(|g| !g.moves(piece.kind)) {
                continue;
            }
            match piece.kind {
                Kind::Pawn => self.pawn_moves(from, out),
                Kind::Knight => self.steps(from, &KNIGHT, out),
                Kind::King => self.steps(from, &KING, out),
                Kind::Bishop => self.slides(from, &BISHOP, out),
                Kind::Rook => self.slides(from, &ROOK, out),
                Kind::Queen => {
                    self.slides(from, &ROOK, out);
                    self.slides(from, &BISHOP, out);
                }
            }
        }
        if group.is_none() || group == Some(Group::Green) {
            self.castles(out);
        }
    }

    fn can_land(&self, to: u8) -> bool {
        self.squares[to as usize].is_none_or(|p| p.side != self.side)
    }

    fn steps(&self, from: u8, deltas: &[(i8, i8)], out: &mut Vec<Move>) {
        for &d in deltas {
            if let Some(to) = GRID.offset(from, d).filter(|&to| self.can_land(to)) {
                out.push(Move {
                    from,
                    to,
                    promotion: None,
                });
            }
        }
    }

    fn slides(&self, from: u8, deltas: &[(i8, i8)], out: &mut Vec<Move>) {
        for &d in deltas {
            let mut at = from;
            while let Some(to) = GRID.offset(at, d) {
                match self.squares[to as usize] {
                    None => out.push(Move {
                        from,
                        to,
                        promotion: None,
                    }),
                    Some(p) => {
                        if p.side != self.side {
                            out.push(Move {
                                from,
                                to,
                                promotion: None,
                            });
                        }
                        break;
                    }
                }
                at = to;
            }
        }
    }

    fn pawn_moves(&self, from: u8, out: &mut Vec<Move>) {
        let fwd = self.side.forward();
        let last_rank = self.side.other().home_rank();
        let push = |to: u8, out: &mut Vec<Move>| {
            if to / 8 == last_rank {
                for k in [Kind::Queen, Kind::Rook, Kind::Bishop, Kind::Knight] {
                    out.push(Move {
                        from,
                        to,
                        promotion: Some(k),
                    });
                }
            } else {
                out.push(Move {
                    from,
                    to,
                    promotion: None,
                });
            }
        };
        if let Some(one) = GRID
            .offset(from, (0, fwd))
            .filter(|&s| self.squares[s as usize].is_none())
        {
            push(one, out);
            let start_rank = (self.side.home_rank() as i8 + fwd) as u8;
            if from / 8 == start_rank {
                if let Some(two) = GRID
                    .offset(one, (0, fwd))
                    .filter(|&s| self.squares[s as usize].is_none())
                {
                    push(two, out);
                }
            }
        }
        // Diagonal captures only; no en passant (§F3 Decision).
        for df in [-1, 1] {
            if let Some(to) = GRID.offset(from, (df, fwd)) {
                if self.squares[to as usize].is_some_and(|p| p.side != self.side) {
                    push(to, out);
                }
            }
        }
    }

    /// §F3 Decision: king and rook unmoved, the squares between empty;
    /// through or out of attacked squares is allowed.
    fn castles(&self, out: &mut Vec<Move>) {
        for (i, &(side, rook, king_to, _)) in CASTLE_ROOKS.iter().enumerate() {
            if side != self.side || !self.castling[i] {
                continue;
            }
            let king = side.home_rank() * 8 + 4;
            let (lo, hi) = if rook < king {
                (rook, king)
            } else {
                (king, rook)
            };
            if (lo + 1..hi).all(|s| self.squares[s as usize].is_none()) {
                out.push(Move {
                    from: king,
                    to: king_to,
                    promotion: None,
                });
            }
        }
    }

    /// Whether `mv` is castling (the king's two-square move from home).
    pub fn is_castle(&self, mv: &Move) -> bool {
        self.squares[mv.from as usize].is_some_and(|p| p.kind == Kind::King)
            && mv.from.abs_diff(mv.to) == 2
    }

    /// Play `mv` (legal here) for the side to move; the turn does not pass
    /// (a FlipChess turn may hold several moves). Returns what it captured.
    pub fn play(&mut self, mv: &Move) -> Option<Piece> {
        let piece = self.squares[mv.from as usize]
            .take()
            .expect("a piece moves");
        if piece.kind == Kind::King && mv.from.abs_diff(mv.to) == 2 {
            for &(side, rook, king_to, rook_to) in &CASTLE_ROOKS {
                if side == piece.side && king_to == mv.to {
                    let r = self.squares[rook as usize].take();
                    self.squares[rook_to as usize] = r;
                }
            }
        }
        let captured = self.squares[mv.to as usize].take();
        self.squares[mv.to as usize] = Some(Piece {
            side: piece.side,
            kind: mv.promotion.unwrap_or(piece.kind),
        });
        for (i, &(side, rook, _, _)) in CASTLE_ROOKS.iter().enumerate() {
            let king = side.home_rank() * 8 + 4;
            if [rook, king].contains(&mv.from) || mv.to == rook {
                self.castling[i] = false;
            }
        }
        captured
    }
}

/// Board perft (issue #4): single piece moves of the side to move, every
/// group, no card; after each move the other side moves.
pub fn perft(board: &Board, depth: usize) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut moves = Vec::with_capacity(48);
    board.moves(None, &mut moves);
    if depth == 1 {
        return moves.len() as u64;
    }
    moves
        .iter()
        .map(|mv| {
            let mut next = *board;
            next.play(mv);
            next.side = next.side.other();
            perft(&next, depth - 1)
        })
        .sum()
}
