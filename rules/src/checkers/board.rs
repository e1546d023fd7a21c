//! The 8×8 checkers board as three 32-bit boards, move generation and
//! `perft` (docs/rules/checkers.md §C1); its PDN notation is in `notation.rs`.
//!
//! Bit `i` is PDN square `i + 1`. Row `r = i / 4` counts from Black's back
//! row (squares 1–4) to White's (29–32); on even rows the dark squares are
//! columns 1, 3, 5, 7, on odd rows 0, 2, 4, 6. Black moves toward higher
//! squares, White toward lower ones.

use std::fmt;

pub type Square = u8;

/// The two sides. Black moves first (§C1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    Black,
    White,
}

impl Color {
    pub fn other(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    pub fn letter(self) -> char {
        match self {
            Color::Black => 'B',
            Color::White => 'W',
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Color::Black => "black",
            Color::White => "white",
        }
    }

    /// The row on which this side's men are crowned.
    fn crown_row(self) -> u32 {
        match self {
            Color::Black => 0xF000_0000,
            Color::White => 0x0000_000F,
        }
    }
}

/// Diagonal directions: 0, 1 toward higher squares (Black's forward),
/// 2, 3 toward lower squares (White's forward).
const DIRECTIONS: usize = 4;

const fn step(sq: i32, dir: usize) -> i32 {
    let row = sq / 4;
    let col = if row % 2 == 0 {
        2 * (sq % 4) + 1
    } else {
        2 * (sq % 4)
    };
    let (dr, dc) = match dir {
        0 => (1, -1),
        1 => (1, 1),
        2 => (-1, -1),
        _ => (-1, 1),
    };
    let (r, c) = (row + dr, col + dc);
    if r < 0 || r > 7 || c < 0 || c > 7 {
        return -1;
    }
    r * 4 + c / 2
}

const fn build_tables() -> ([[i8; 32]; DIRECTIONS], [[i8; 32]; DIRECTIONS]) {
    let mut next = [[-1i8; 32]; DIRECTIONS];
    let mut jump = [[-1i8; 32]; DIRECTIONS];
    let mut dir = 0;
    while dir < DIRECTIONS {
        let mut sq = 0;
        while sq < 32 {
            let n = step(sq, dir);
            next[dir][sq as usize] = n as i8;
            if n >= 0 {
                jump[dir][sq as usize] = step(n, dir) as i8;
            }
            sq += 1;
        }
        dir += 1;
    }
    (next, jump)
}

const TABLES: ([[i8; 32]; DIRECTIONS], [[i8; 32]; DIRECTIONS]) = build_tables();
const NEXT: [[i8; 32]; DIRECTIONS] = TABLES.0;
const JUMP: [[i8; 32]; DIRECTIONS] = TABLES.1;

const EVEN_ROWS: u32 = 0x0F0F_0F0F;
const ODD_ROWS: u32 = 0xF0F0_F0F0;
const FIRST_COLUMN: u32 = 0x1111_1111;
const LAST_COLUMN: u32 = 0x8888_8888;

/// Every piece of `bb` moved one step in `dir`, by shifts (the same
/// geometry as `NEXT`); used to count and to detect captures quickly.
#[inline]
fn shift(bb: u32, dir: usize) -> u32 {
    match dir {
        0 => ((bb & EVEN_ROWS) << 4) | ((bb & ODD_ROWS & !FIRST_COLUMN) << 3),
        1 => ((bb & EVEN_ROWS & !LAST_COLUMN) << 5) | ((bb & ODD_ROWS) << 4),
        2 => ((bb & EVEN_ROWS) >> 4) | ((bb & ODD_ROWS & !FIRST_COLUMN) >> 5),
        _ => ((bb & EVEN_ROWS & !LAST_COLUMN) >> 3) | ((bb & ODD_ROWS) >> 4),
    }
}

/// The most squares a capture path can visit: 12 jumps and the start.
pub(super) const MAX_PATH: usize = 13;

/// One move. Quiet moves have a two-square path and no captures. Two
/// captures with the same start, end and captured set are the same move
/// (§C1 Decision: move identity); `path` is one representative route.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Move {
    path: [Square; MAX_PATH],
    len: u8,
    pub captured: u32,
}

impl Move {
    fn new(path: &[Square], captured: u32) -> Move {
        let mut p = [0; MAX_PATH];
        p[..path.len()].copy_from_slice(path);
        Move {
            path: p,
            len: path.len() as u8,
            captured,
        }
    }

    pub fn path(&self) -> &[Square] {
        &self.path[..self.len as usize]
    }
    pub fn from(&self) -> Square {
        self.path[0]
    }
    pub fn to(&self) -> Square {
        self.path[self.len as usize - 1]
    }
    pub fn is_capture(&self) -> bool {
        self.captured != 0
    }
    fn same_identity(&self, other: &Move) -> bool {
        self.from() == other.from() && self.to() == other.to() && self.captured == other.captured
    }
}

/// PDN: `11-15` for a quiet move, the whole path `11x18x25` for a capture.
impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_route(f, self.path(), self.is_capture())
    }
}

/// A route of 0-based squares in PDN: `11-15`, or `11x18x25` for a capture
/// (both boards write moves this way).
pub fn write_route(f: &mut fmt::Formatter<'_>, path: &[u8], capture: bool) -> fmt::Result {
    let sep = if capture { "x" } else { "-" };
    for (i, sq) in path.iter().enumerate() {
        if i > 0 {
            f.write_str(sep)?;
        }
        write!(f, "{}", sq + 1)?;
    }
    Ok(())
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A position: the pieces and the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    pub black: u32,
    pub white: u32,
    pub kings: u32,
    pub turn: Color,
}

impl Default for Position {
    fn default() -> Self {
        Position::start()
    }
}

impl Position {
    /// §C1: 12 men each on the three nearest rows, Black (1–12) to move.
    pub fn start() -> Position {
        Position {
            black: 0x0000_0FFF,
            white: 0xFFF0_0000,
            kings: 0,
            turn: Color::Black,
        }
    }

    pub fn pieces(&self, color: Color) -> u32 {
        match color {
            Color::Black => self.black,
            Color::White => self.white,
        }
    }

    pub(super) fn occupied(&self) -> u32 {
        self.black | self.white
    }

    /// Every distinct legal move for the side to move. Captures are
    /// mandatory, with free choice among them (§C1).
    pub fn legal_moves(&self, out: &mut Vec<Move>) {
        out.clear();
        if self.can_capture() {
            self.captures(out, true);
        } else {
            self.quiet_moves(out);
        }
    }

    /// Every capture route, including several routes of one move; used to
    /// accept any route a player submits (§C1 Decision).
    pub fn capture_routes(&self, out: &mut Vec<Move>) {
        out.clear();
        self.captures(out, false);
    }

    pub fn has_legal_move(&self) -> bool {
        self.count_quiet_moves() > 0 || self.can_capture()
    }

    /// The pieces of the side to move that step in `dir`: kings always,
    /// men only forward.
    #[inline]
    fn steppers(&self, dir: usize) -> u32 {
        let own = self.pieces(self.turn);
        let forward = match self.turn {
            Color::Black => dir < 2,
            Color::White => dir >= 2,
        };
        if forward {
            own
        } else {
            own & self.kings
        }
    }

    /// Whether the side to move has a capture (one jump is enough to know).
    pub fn can_capture(&self) -> bool {
        let empty = !self.occupied();
        let enemy = self.pieces(self.turn.other());
        (0..DIRECTIONS).any(|d| shift(shift(self.steppers(d), d) & enemy, d) & empty != 0)
    }

    fn count_quiet_moves(&self) -> u32 {
        let empty = !self.occupied();
        (0..DIRECTIONS)
            .map(|d| (shift(self.steppers(d), d) & empty).count_ones())
            .sum()
    }

    /// The number of distinct legal moves, without listing quiet ones.
    pub fn count_moves(&self, buffer: &mut Vec<Move>) -> u64 {
        if self.can_capture() {
            self.legal_moves(buffer);
            buffer.len() as u64
        } else {
            self.count_quiet_moves() as u64
        }
    }

    fn directions(&self, sq: Square) -> &'static [usize] {
        let king = self.kings & (1 << sq) != 0;
        match (king, self.turn) {
            (true, _) => &[0, 1, 2, 3],
            (false, Color::Black) => &[0, 1],
            (false, Color::White) => &[2, 3],
        }
    }

    fn quiet_moves(&self, out: &mut Vec<Move>) {
        let empty = !self.occupied();
        let mut own = self.pieces(self.turn);
        while own != 0 {
            let from = own.trailing_zeros() as Square;
            own &= own - 1;
            for &dir in self.directions(from) {
                let to = NEXT[dir][from as usize];
                if to >= 0 && empty & (1 << to) != 0 {
                    out.push(Move::new(&[from, to as Square], 0));
                }
            }
        }
    }

    fn captures(&self, out: &mut Vec<Move>, distinct: bool) {
        let mut own = self.pieces(self.turn);
        let enemy = self.pieces(self.turn.other());
        while own != 0 {
            let from = own.trailing_zeros() as Square;
            own &= own - 1;
            // The mover leaves its square: a king may pass over it again.
            let occupied = self.occupied() & !(1 << from);
            let mut path = [from; MAX_PATH];
            let start = out.len();
            self.jump_from(from, 1, &mut path, 0, occupied, enemy, out);
            if distinct {
                dedupe_from(out, start);
            }
        }
    }

    #[expect(clippy::too_many_arguments)]
    fn jump_from(
        &self,
        sq: Square,
        len: usize,
        path: &mut [Square; MAX_PATH],
        captured: u32,
        occupied: u32,
        enemy: u32,
        out: &mut Vec<Move>,
    ) {
        let mut extended = false;
        let is_man = self.kings & (1 << path[0]) == 0;
        for &dir in self.directions(path[0]) {
            let over = NEXT[dir][sq as usize];
            let land = JUMP[dir][sq as usize];
            if land < 0 {
                continue;
            }
            let (over_bit, land_bit) = (1u32 << over, 1u32 << land);
            // Captured pieces stay on the board until the move ends: they
            // cannot be jumped twice and still block landing (§C1).
            if enemy & over_bit == 0 || captured & over_bit != 0 || occupied & land_bit != 0 {
                continue;
            }
            extended = true;
            path[len] = land as Square;
            if is_man && self.turn.crown_row() & land_bit != 0 {
                // Crowning ends the move (§C1).
                out.push(Move::new(&path[..=len], captured | over_bit));
            } else {
                self.jump_from(
                    land as Square,
                    len + 1,
                    path,
                    captured | over_bit,
                    occupied,
                    enemy,
                    out,
                );
            }
        }
        if !extended && len > 1 {
            out.push(Move::new(&path[..len], captured));
        }
    }

    /// The position after `mv` (which must be legal here).
    pub fn play(&self, mv: &Move) -> Position {
        let (from, to) = (1u32 << mv.from(), 1u32 << mv.to());
        let mut next = *self;
        let was_king = self.kings & from != 0;
        match self.turn {
            Color::Black => {
                next.black = (next.black & !from) | to;
                next.white &= !mv.captured;
            }
            Color::White => {
                next.white = (next.white & !from) | to;
                next.black &= !mv.captured;
            }
        }
        next.kings &= !(from | mv.captured);
        if was_king || self.turn.crown_row() & to != 0 {
            next.kings |= to;
        }
        next.turn = self.turn.other();
        next
    }

    /// Whether `mv` moves a man (irreversible, for the no-progress count).
    pub fn moves_man(&self, mv: &Move) -> bool {
        self.kings & (1 << mv.from()) == 0
    }

    /// Whether `mv` crowns a man.
    pub fn crowns(&self, mv: &Move) -> bool {
        self.moves_man(mv) && self.turn.crown_row() & (1 << mv.to()) != 0
    }
}

/// Keep one capture per move identity among `out[start..]`.
fn dedupe_from(out: &mut Vec<Move>, start: usize) {
    let mut i = start;
    while i < out.len() {
        if out[start..i].iter().any(|m| m.same_identity(&out[i])) {
            out.swap_remove(i);
        } else {
            i += 1;
        }
    }
}

/// Count leaf nodes `depth` plies below `pos` (no draw rules: a pure check
/// of move generation). `buffers` holds one move list per ply.
pub fn perft(pos: &Position, depth: usize, buffers: &mut [Vec<Move>]) -> u64 {
    let (moves, rest) = buffers.split_first_mut().expect("one buffer per ply");
    match depth {
        0 => return 1,
        1 => return pos.count_moves(moves),
        _ => pos.legal_moves(moves),
    }
    moves
        .iter()
        .map(|mv| perft(&pos.play(mv), depth - 1, rest))
        .sum()
}
