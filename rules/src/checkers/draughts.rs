//! The draughts board for the §C2 variants (docs/rules/): 8×8 and 10×10, with
//! the variant's rules as one value ([`Rules`]) that the move generator
//! reads in a few named places — which way men capture, how far kings fly
//! (and Thai's landing), majority capture, what a man does on the
//! last row mid-capture, and whether captured pieces leave at once. Its
//! PDN notation is in `notation.rs`.
//!
//! Squares are PDN numbers less one: row 0 is the top (Black's back row),
//! square 0 is b8 (b10 on 10×10), on even rows the dark squares are the
//! odd columns. White sits at the bottom and moves up.

use super::board::Color;
use std::fmt;

/// The most squares on a board (10×10).
pub const MAX_SQUARES: usize = 50;
/// The most squares a capture path visits.
const MAX_PATH: usize = 24;

/// How the draughts board's kings move (§C2). American's short kings are
/// its own board's (`board.rs`), so every king here flies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kings {
    /// Any distance; a capture lands on any empty square beyond.
    Flying,
    /// Any distance; a capture lands directly beyond the piece (Thai).
    FlyingLandBehind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Majority {
    /// Any capture may be chosen.
    Free,
    /// Only the captures taking the most pieces.
    MostPieces,
    /// The most pieces, then the most kings among them (Spanish).
    MostPiecesThenKings,
}

/// A man reaching the last row during a capture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MidCapturePromotion {
    /// Crowned, and the move ends there.
    EndsMove,
    /// Crowned, and captures on as a king (Russian).
    ContinuesAsKing,
    /// Captures on as a man; crowned only if the move ends there.
    ContinuesAsMan,
}

/// One variant's rules (docs/rules/checkers.md §C2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    /// 8 or 10 squares a side.
    pub size: u8,
    pub men_capture_backward: bool,
    pub kings: Kings,
    pub majority: Majority,
    pub promotion: MidCapturePromotion,
    /// Captured pieces leave the board as they are jumped (Thai), rather
    /// than when the move ends.
    pub remove_at_once: bool,
    /// Rows of men each side starts with.
    pub men_rows: u8,
    pub first: Color,
}

impl Rules {
    pub fn squares(&self) -> usize {
        self.size as usize * self.size as usize / 2
    }

    fn per_row(&self) -> usize {
        self.size as usize / 2
    }

    /// The neighbour of `sq` in `dir` (0, 1 up-left/up-right: White's
    /// forward; 2, 3 down-left/down-right: Black's).
    fn next(&self, sq: usize, dir: usize) -> Option<usize> {
        let n = self.size as i32;
        let row = (sq / self.per_row()) as i32;
        let col = 2 * (sq % self.per_row()) as i32 + if row % 2 == 0 { 1 } else { 0 };
        let (r, c) = match dir {
            0 => (row - 1, col - 1),
            1 => (row - 1, col + 1),
            2 => (row + 1, col - 1),
            _ => (row + 1, col + 1),
        };
        ((0..n).contains(&r) && (0..n).contains(&c)).then(|| (r * n + c) as usize / 2)
    }

    fn crown_row(&self, colour: Color, sq: usize) -> bool {
        let row = sq / self.per_row();
        match colour {
            Color::White => row == 0,
            Color::Black => row == self.size as usize - 1,
        }
    }

    fn forward(colour: Color) -> [usize; 2] {
        match colour {
            Color::White => [0, 1],
            Color::Black => [2, 3],
        }
    }

    /// The start: `men_rows` rows of men each, Black on top.
    pub fn start(&self) -> Position {
        let mut pos = Position::empty(*self);
        let count = self.men_rows as usize * self.per_row();
        for sq in 0..count {
            pos.cells[sq] = Some(Piece::man(Color::Black));
        }
        for sq in self.squares() - count..self.squares() {
            pos.cells[sq] = Some(Piece::man(Color::White));
        }
        pos
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    pub colour: Color,
    pub king: bool,
}

impl Piece {
    fn man(colour: Color) -> Piece {
        Piece {
            colour,
            king: false,
        }
    }
}

/// One move: its route (one representative of the routes with the same
/// start, end and captured set, §C1 Decision) and what it takes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Move {
    path: [u8; MAX_PATH],
    len: u8,
    /// The captured squares, as bits.
    pub captured: u64,
    /// How many of them held kings (Spanish's tie rule).
    pub kings_captured: u8,
    /// The mover ends as a new king.
    pub crowned: bool,
}

impl Move {
    pub fn path(&self) -> &[u8] {
        &self.path[..self.len as usize]
    }
    pub fn from(&self) -> usize {
        self.path[0] as usize
    }
    pub fn to(&self) -> usize {
        self.path[self.len as usize - 1] as usize
    }
    pub fn is_capture(&self) -> bool {
        self.captured != 0
    }
    pub(super) fn same_identity(&self, other: &Move) -> bool {
        self.from() == other.from() && self.to() == other.to() && self.captured == other.captured
    }
}

/// PDN: `21-17`, a capture with its route `26x17x10`.
impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        super::board::write_route(f, self.path(), self.is_capture())
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    pub rules_size: u8,
    pub cells: [Option<Piece>; MAX_SQUARES],
    pub turn: Color,
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} {:?}", self.turn, self.cells)
    }
}

/// A capture in progress: the board as it stands mid-move, and the route.
struct Search<'a> {
    rules: &'a Rules,
    colour: Color,
    cells: [Option<Piece>; MAX_SQUARES],
    path: [u8; MAX_PATH],
    len: usize,
    captured: u64,
    kings_captured: u8,
    /// Keep every route, not one per move (to accept any route a player
    /// submits, §C1 Decision).
    all_routes: bool,
    out: &'a mut Vec<Move>,
}

impl Search<'_> {
    fn enemy_at(&self, sq: usize) -> bool {
        self.captured & (1 << sq) == 0 && self.cells[sq].is_some_and(|p| p.colour != self.colour)
    }

    /// The jumps from `sq`: (victim, landing squares).
    fn jumps(&self, sq: usize, king: bool) -> Vec<(usize, Vec<usize>)> {
        let rules = self.rules;
        let mut found = Vec::new();
        let dirs: &[usize] = if king || rules.men_capture_backward {
            &[0, 1, 2, 3]
        } else {
            &Rules::forward(self.colour)
        };
        for &dir in dirs {
            let mut victim = rules.next(sq, dir);
            if king {
                while let Some(v) = victim.filter(|v| self.cells[*v].is_none()) {
                    victim = rules.next(v, dir);
                }
            }
            let Some(victim) = victim.filter(|v| self.enemy_at(*v)) else {
                continue;
            };
            let mut landings = Vec::new();
            let mut land = rules.next(victim, dir);
            while let Some(l) = land.filter(|l| self.cells[*l].is_none()) {
                landings.push(l);
                if !king || rules.kings == Kings::FlyingLandBehind {
                    break;
                }
                land = rules.next(l, dir);
            }
            if !landings.is_empty() {
                found.push((victim, landings));
            }
        }
        found
    }

    /// Extend the capture from `sq`; record it where it must end.
    fn extend(&mut self, sq: usize, king: bool, crowned: bool) {
        let jumps = self.jumps(sq, king);
        if jumps.is_empty() {
            if self.len > 1 {
                self.record(king, crowned, sq);
            }
            return;
        }
        for (victim, landings) in jumps {
            let taken = self.cells[victim];
            self.captured |= 1 << victim;
            self.kings_captured += u8::from(taken.is_some_and(|p| p.king));
            if self.rules.remove_at_once {
                self.cells[victim] = None;
            }
            // §C2 Decision: land where the capture can go on, if anywhere.
            let going_on: Vec<usize> = landings
                .iter()
                .copied()
                .filter(|l| !self.jumps(*l, self.king_after(king, *l)).is_empty())
                .collect();
            let chosen = if going_on.is_empty() {
                landings
            } else {
                going_on
            };
            for land in chosen {
                self.path[self.len] = land as u8;
                self.len += 1;
                let promoted = !king && self.rules.crown_row(self.colour, land);
                match (promoted, self.rules.promotion) {
                    (true, MidCapturePromotion::EndsMove) => self.record(true, true, land),
                    (true, MidCapturePromotion::ContinuesAsKing) => self.extend(land, true, true),
                    _ => self.extend(land, king, crowned),
                }
                self.len -= 1;
            }
            self.cells[victim] = taken;
            self.kings_captured -= u8::from(taken.is_some_and(|p| p.king));
            self.captured &= !(1 << victim);
        }
    }

    /// The mover's kingship while testing a landing for more captures.
    fn king_after(&self, king: bool, land: usize) -> bool {
        king || (self.rules.promotion == MidCapturePromotion::ContinuesAsKing
            && self.rules.crown_row(self.colour, land))
    }

    fn record(&mut self, king: bool, crowned: bool, end: usize) {
        let crowned = crowned || (!king && self.rules.crown_row(self.colour, end));
        let mv = Move {
            path: self.path,
            len: self.len as u8,
            captured: self.captured,
            kings_captured: self.kings_captured,
            crowned,
        };
        if self.all_routes || !self.out.iter().any(|m| m.same_identity(&mv)) {
            self.out.push(mv);
        }
    }
}

impl Position {
    pub fn empty(rules: Rules) -> Position {
        Position {
            rules_size: rules.size,
            cells: [None; MAX_SQUARES],
            turn: rules.first,
        }
    }

    pub fn count(&self, colour: Color) -> usize {
        self.cells
            .iter()
            .filter(|c| c.is_some_and(|p| p.colour == colour))
            .count()
    }

    /// Every distinct legal move (§C1 move identity; captures mandatory,
    /// the majority rule where the variant has it).
    pub fn legal_moves(&self, rules: &Rules, out: &mut Vec<Move>) {
        out.clear();
        self.captures(rules, out, false);
        if out.is_empty() {
            self.quiet_moves(rules, out);
            return;
        }
        let most = out
            .iter()
            .map(|m| m.captured.count_ones())
            .max()
            .unwrap_or(0);
        match rules.majority {
            Majority::Free => {}
            Majority::MostPieces => out.retain(|m| m.captured.count_ones() == most),
            Majority::MostPiecesThenKings => {
                out.retain(|m| m.captured.count_ones() == most);
                let kings = out.iter().map(|m| m.kings_captured).max().unwrap_or(0);
                out.retain(|m| m.kings_captured == kings);
            }
        }
    }

    pub(super) fn captures(&self, rules: &Rules, out: &mut Vec<Move>, all_routes: bool) {
        for from in 0..rules.squares() {
            let Some(piece) = self.cells[from].filter(|p| p.colour == self.turn) else {
                continue;
            };
            let mut search = Search {
                rules,
                colour: self.turn,
                cells: self.cells,
                path: [0; MAX_PATH],
                len: 1,
                captured: 0,
                kings_captured: 0,
                all_routes,
                out,
            };
            // The mover leaves its square: it may pass over it again.
            search.cells[from] = None;
            search.path[0] = from as u8;
            search.extend(from, piece.king, false);
        }
    }

    fn quiet_moves(&self, rules: &Rules, out: &mut Vec<Move>) {
        for from in 0..rules.squares() {
            let Some(piece) = self.cells[from].filter(|p| p.colour == self.turn) else {
                continue;
            };
            let dirs: &[usize] = if piece.king {
                &[0, 1, 2, 3]
            } else {
                &Rules::forward(self.turn)
            };
            for &dir in dirs {
                let mut to = rules.next(from, dir);
                while let Some(t) = to.filter(|t| self.cells[*t].is_none()) {
                    let mut path = [0; MAX_PATH];
                    path[0] = from as u8;
                    path[1] = t as u8;
                    out.push(Move {
                        path,
                        len: 2,
                        captured: 0,
                        kings_captured: 0,
                        crowned: !piece.king && rules.crown_row(self.turn, t),
                    });
                    if !piece.king {
                        break;
                    }
                    to = rules.next(t, dir);
                }
            }
        }
    }

    /// The position after `mv`.
    pub fn play(&self, mv: &Move) -> Position {
        let mut next = *self;
        let mut piece = next.cells[mv.from()].take();
        for sq in 0..MAX_SQUARES {
            if mv.captured & (1 << sq) != 0 {
                next.cells[sq] = None;
            }
        }
        if let Some(p) = piece.as_mut() {
            p.king |= mv.crowned;
        }
        next.cells[mv.to()] = piece;
        next.turn = self.turn.other();
        next
    }
}

/// Move sequences of `depth` (distinct moves, §C1 Decision).
pub fn perft(rules: &Rules, pos: &Position, depth: usize) -> u64 {
    let mut moves = Vec::new();
    pos.legal_moves(rules, &mut moves);
    if depth <= 1 {
        return if depth == 0 { 1 } else { moves.len() as u64 };
    }
    moves
        .iter()
        .map(|m| perft(rules, &pos.play(m), depth - 1))
        .sum()
}
