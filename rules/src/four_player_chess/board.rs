//! The four-player chess board (RULES.md §Q1–Q4, Q10–Q14): geometry, the
//! armies, move generation, check, the start-of-turn judgments, the
//! position notation of §Q12 and `perft` (§Q13).
//!
//! Squares are `rank * 14 + file`, files `a`–`n` and ranks `1`–`14` from
//! Red's side; the 3×3 corners do not exist.

use crate::RuleError;
use serde::{Deserialize, Serialize};
use std::fmt;

pub const SIZE: i8 = 14;
pub const SQUARES: usize = 196;

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
    fn forward(self) -> (i8, i8) {
        [(0, 1), (1, 0), (0, -1), (-1, 0)][self.index()]
    }

    /// The row of `sq` counted from this army's own back row (1-based).
    fn row(self, sq: u8) -> i8 {
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
    fn homes(self) -> (u8, u8, u8) {
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
    fn letter(self) -> char {
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

    fn of(army: Army) -> Owner {
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
    ((sq % 14) as i8, (sq / 14) as i8)
}

const fn at(f: i8, r: i8) -> u8 {
    (r as u8) * (SIZE as u8) + f as u8
}

/// §Q1: on the board and not in a removed corner.
pub fn exists(f: i8, r: i8) -> bool {
    let inside = (0..SIZE).contains(&f) && (0..SIZE).contains(&r);
    let edge = |x: i8| !(3..=10).contains(&x);
    inside && !(edge(f) && edge(r))
}

fn step(sq: u8, (df, dr): (i8, i8)) -> Option<u8> {
    let (f, r) = coords(sq);
    exists(f + df, r + dr).then(|| at(f + df, r + dr))
}

pub fn square_name(sq: u8) -> String {
    let (f, r) = coords(sq);
    format!("{}{}", (b'a' + f as u8) as char, r + 1)
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

const ROOK_DIRS: [(i8, i8); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const BISHOP_DIRS: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
/// The queen's lines and the king's steps.
const ALL_DIRS: [(i8, i8); 8] = [
    (1, 0),
    (-1, 0),
    (0, 1),
    (0, -1),
    (1, 1),
    (1, -1),
    (-1, 1),
    (-1, -1),
];
const KNIGHT_JUMPS: [(i8, i8); 8] = [
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

    /// Whether a live piece of an army in `attackers` attacks `sq`.
    fn attacked_by(&self, sq: u8, attackers: &[Army]) -> bool {
        self.attacked_by_some(sq, attackers, |_| true)
    }

    /// [`Self::attacked_by`], counting only the pieces `counts` accepts.
    fn attacked_by_some(&self, sq: u8, attackers: &[Army], counts: impl Fn(Piece) -> bool) -> bool {
        let of = |p: Piece| {
            p.owner
                .army()
                .filter(|a| attackers.contains(a) && counts(p))
        };
        for (dirs, slider) in [(ROOK_DIRS, Kind::Rook), (BISHOP_DIRS, Kind::Bishop)] {
            for dir in dirs {
                let mut cur = sq;
                let mut distance = 0;
                while let Some(next) = step(cur, dir) {
                    cur = next;
                    distance += 1;
                    let Some(p) = self.piece(cur) else { continue };
                    let hits = p.kind == Kind::Queen
                        || p.kind == slider
                        || (p.kind == Kind::King && distance == 1);
                    if hits && of(p).is_some() {
                        return true;
                    }
                    break;
                }
            }
        }
        for jump in KNIGHT_JUMPS {
            if let Some(p) = step(sq, jump).and_then(|s| self.piece(s)) {
                if p.kind == Kind::Knight && of(p).is_some() {
                    return true;
                }
            }
        }
        for &army in attackers {
            let (df, dr) = army.forward();
            // A pawn attacks forward-diagonally: look back from `sq`.
            for side in [-1, 1] {
                let back = if df == 0 { (side, -dr) } else { (-df, side) };
                if let Some(p) = step(sq, back).and_then(|s| self.piece(s)) {
                    if p.kind == Kind::Pawn && of(p) == Some(army) {
                        return true;
                    }
                }
            }
        }
        false
    }

    /// The live armies that may check `army` (§Q4, Q6).
    pub fn enemies(&self, army: Army) -> Vec<Army> {
        Army::ALL
            .into_iter()
            .filter(|a| self.live(*a) && self.hostile(army, Owner::of(*a)))
            .collect()
    }

    /// §Q4: `army`'s king is attacked by a live enemy.
    pub fn in_check(&self, army: Army) -> bool {
        self.king(army)
            .is_some_and(|k| self.attacked_by(k, &self.enemies(army)))
    }

    /// Whether `by`'s pieces attack `army`'s king (§Q8 checks, mates).
    pub fn checks(&self, by: Army, army: Army) -> bool {
        self.live(by) && self.king(army).is_some_and(|k| self.attacked_by(k, &[by]))
    }

    /// §Q8: whether every piece of `by` that checks `army` is a queen.
    pub fn checks_only_with_queens(&self, by: Army, army: Army) -> bool {
        self.king(army)
            .is_some_and(|k| !self.attacked_by_some(k, &[by], |p| p.kind != Kind::Queen))
    }

    /// §Q6/Q7: the rows on which `army`'s pawn becomes a queen.
    fn promotes(&self, army: Army, sq: u8) -> bool {
        match self.mode {
            Mode::Ffa | Mode::Points => army.row(sq) == 8,
            Mode::Teams => {
                let (f, r) = coords(sq);
                let across = match army {
                    Army::Red | Army::Blue => f,
                    Army::Green | Army::Gray => r,
                };
                army.row(sq) == 11 || across == 0 || across == SIZE - 1
            }
        }
    }

    fn push_pawn(&self, army: Army, from: u8, to: u8, moves: &mut Vec<Move>) {
        let promotion = self.promotes(army, to);
        moves.push(Move {
            from,
            to,
            promotion,
        });
    }

    /// Moves by the rules of movement, before the own-king test.
    fn pseudo_moves(&self, army: Army, moves: &mut Vec<Move>) {
        let own = Owner::of(army);
        let open = |sq: u8| match self.piece(sq) {
            None => true,
            Some(p) => self.hostile(army, p.owner),
        };
        for (from, piece) in self.pieces().filter(|(_, p)| p.owner == own) {
            match piece.kind {
                Kind::Pawn => {
                    let fwd = army.forward();
                    if let Some(one) = step(from, fwd).filter(|s| self.piece(*s).is_none()) {
                        self.push_pawn(army, from, one, moves);
                        let two = step(one, fwd).filter(|s| self.piece(*s).is_none());
                        if let (2, Some(two)) = (army.row(from), two) {
                            self.push_pawn(army, from, two, moves);
                        }
                    }
                    for side in [-1, 1] {
                        let diagonal = if fwd.0 == 0 {
                            (side, fwd.1)
                        } else {
                            (fwd.0, side)
                        };
                        if let Some(to) = step(from, diagonal) {
                            if self.piece(to).is_some() && open(to) {
                                self.push_pawn(army, from, to, moves);
                            }
                        }
                    }
                }
                Kind::Knight | Kind::King => {
                    let jumps: &[(i8, i8)] = if piece.kind == Kind::Knight {
                        &KNIGHT_JUMPS
                    } else {
                        &ALL_DIRS
                    };
                    for &jump in jumps {
                        if let Some(to) = step(from, jump).filter(|s| open(*s)) {
                            moves.push(Move {
                                from,
                                to,
                                promotion: false,
                            });
                        }
                    }
                }
                slider => {
                    let dirs: &[(i8, i8)] = match slider {
                        Kind::Rook => &ROOK_DIRS,
                        Kind::Bishop => &BISHOP_DIRS,
                        _ => &ALL_DIRS,
                    };
                    for &dir in dirs {
                        let mut cur = from;
                        while let Some(to) = step(cur, dir) {
                            cur = to;
                            if open(to) {
                                moves.push(Move {
                                    from,
                                    to,
                                    promotion: false,
                                });
                            }
                            if self.piece(to).is_some() {
                                break;
                            }
                        }
                    }
                }
            }
        }
        self.castlings(army, moves);
    }

    /// §Q3/Q11: the king two squares toward a rook on its home square,
    /// the squares between empty, not out of, through or into check (the
    /// last by the own-king test).
    fn castlings(&self, army: Army, moves: &mut Vec<Move>) {
        let (king, short, long) = army.homes();
        let rights = self.castling[army.index()];
        let own = Owner::of(army);
        if rights == 0
            || self
                .piece(king)
                .is_none_or(|p| p.owner != own || p.kind != Kind::King)
        {
            return;
        }
        let enemies = self.enemies(army);
        for (bit, rook) in [(SHORT, short), (LONG, long)] {
            let is_rook = self
                .piece(rook)
                .is_some_and(|p| p.owner == own && p.kind == Kind::Rook && !p.promoted);
            if rights & bit == 0 || !is_rook {
                continue;
            }
            let (kf, kr) = coords(king);
            let (rf, rr) = coords(rook);
            let dir = ((rf - kf).signum(), (rr - kr).signum());
            let mut between = Vec::new();
            let mut cur = king;
            while let Some(next) = step(cur, dir).filter(|s| *s != rook) {
                between.push(next);
                cur = next;
            }
            let passes = between[0];
            if between.iter().any(|s| self.piece(*s).is_some())
                || self.attacked_by(king, &enemies)
                || self.attacked_by(passes, &enemies)
            {
                continue;
            }
            moves.push(Move {
                from: king,
                to: between[1],
                promotion: false,
            });
        }
    }

    /// The piece moved (and the rook of a castling), rights updated, the
    /// army to move unchanged. Returns what was captured.
    pub fn play(&self, mv: Move) -> (Position, Option<Piece>) {
        let mut next = self.clone();
        let Some(mut piece) = next.cells[mv.from as usize].take() else {
            return (next, None);
        };
        let captured = next.cells[mv.to as usize].take();
        if let Some(army) = piece.owner.army() {
            let (king, short, long) = army.homes();
            if piece.kind == Kind::King && mv.from == king {
                next.castling[army.index()] = 0;
                let (ff, fr) = coords(mv.from);
                let (tf, tr) = coords(mv.to);
                if (tf - ff).abs() == 2 || (tr - fr).abs() == 2 {
                    let dir = ((tf - ff).signum(), (tr - fr).signum());
                    // The rooks stand on either side of the king's home.
                    let (sf, sr) = coords(short);
                    let toward_short = ((sf - ff).signum(), (sr - fr).signum());
                    let rook = if dir == toward_short { short } else { long };
                    let rook_piece = next.cells[rook as usize].take();
                    next.cells[step(mv.from, dir).unwrap_or(rook) as usize] = rook_piece;
                }
            }
            for (bit, rook) in [(SHORT, short), (LONG, long)] {
                if mv.from == rook {
                    next.castling[army.index()] &= !bit;
                }
            }
            if mv.promotion && piece.kind == Kind::Pawn {
                piece = Piece {
                    kind: Kind::Queen,
                    promoted: true,
                    ..piece
                };
            }
        }
        // A rook taken on its home square takes its castling with it.
        for army in Army::ALL {
            let (_, short, long) = army.homes();
            for (bit, rook) in [(SHORT, short), (LONG, long)] {
                if mv.to == rook {
                    next.castling[army.index()] &= !bit;
                }
            }
        }
        next.cells[mv.to as usize] = Some(piece);
        (next, captured)
    }

    /// §Q4, Q14: whether `mv` (a move by the rules of movement) leaves the
    /// mover's own king attacked. Judged in the position after the ply with
    /// its eliminations applied: in `ffa`/`points` a king capture makes the
    /// captured army's pieces dead at once (§Q14), and dead pieces attack
    /// nothing, so a player in check may capture the king of the army giving
    /// it. In `teams` a king capture eliminates nobody (that team loses,
    /// §Q10), so the captured army's pieces still count as attackers.
    fn leaves_own_king_attacked(&self, mv: Move) -> bool {
        self.after_eliminations(mv).in_check(self.to_move)
    }

    /// [`Self::play`] with what the ply does at once (§Q10, Q14): in
    /// `ffa`/`points` the army whose king it captures is eliminated, its
    /// pieces dead. The army to move is unchanged.
    pub fn after_eliminations(&self, mv: Move) -> Position {
        let (mut after, captured) = self.play(mv);
        if self.mode != Mode::Teams {
            if let Some(victim) = captured
                .filter(|p| p.kind == Kind::King)
                .and_then(|p| p.owner.army())
            {
                after.eliminate(victim);
            }
        }
        after
    }

    /// Every legal move of the army to move: its king not left attacked.
    pub fn legal_moves(&self, moves: &mut Vec<Move>) {
        let army = self.to_move;
        let mut pseudo = Vec::new();
        self.pseudo_moves(army, &mut pseudo);
        moves.extend(
            pseudo
                .into_iter()
                .filter(|m| !self.leaves_own_king_attacked(*m)),
        );
    }

    pub fn has_legal_move(&self) -> bool {
        let army = self.to_move;
        let mut pseudo = Vec::new();
        self.pseudo_moves(army, &mut pseudo);
        pseudo
            .into_iter()
            .any(|m| !self.leaves_own_king_attacked(m))
    }

    pub fn is_legal(&self, mv: Move) -> bool {
        let mut pseudo = Vec::new();
        self.pseudo_moves(self.to_move, &mut pseudo);
        pseudo.contains(&mv) && !self.leaves_own_king_attacked(mv)
    }

    /// §Q4: what the army to move finds at the start of its turn.
    pub fn start_of_turn(&self) -> Start {
        if self.has_legal_move() {
            Start::Moves
        } else if self.in_check(self.to_move) {
            Start::Checkmated
        } else {
            Start::Stalemated
        }
    }

    /// The turn passes clockwise to the next army in play.
    pub fn pass_turn(&mut self) {
        let mut army = self.to_move.next();
        while self.out[army.index()] && army != self.to_move {
            army = army.next();
        }
        self.to_move = army;
    }

    /// §Q7: the army leaves play; its pieces stay as dead pieces.
    pub fn eliminate(&mut self, army: Army) {
        self.out[army.index()] = true;
        self.castling[army.index()] = 0;
        for cell in self.cells.iter_mut().flatten() {
            if cell.owner == Owner::of(army) {
                cell.owner = Owner::Dead;
            }
        }
        if self.to_move == army {
            self.pass_turn();
        }
    }

    /// The position after `mv` with the judgments before the next ply
    /// applied (§Q13), or `None` when the match is then over.
    pub fn successor(&self, mv: Move) -> Option<Position> {
        let (mut next, captured) = self.play(mv);
        if let Some(victim) = captured
            .filter(|p| p.kind == Kind::King)
            .and_then(|p| p.owner.army())
        {
            // §Q10: a king capture ends a teams match; in ffa/points it
            // eliminates that army at once.
            if self.mode == Mode::Teams {
                return None;
            }
            next.eliminate(victim);
            if next.live_armies().len() <= 1 {
                return None;
            }
        }
        next.pass_turn();
        next.settle()
    }

    /// Apply the start-of-turn judgments (§Q4, Q6, Q7) until an army with
    /// a move is to move; `None` when the match ends on the way.
    pub fn settle(self) -> Option<Position> {
        self.settle_or_end().ok()
    }

    /// [`Position::settle`], naming why the match ends when it does, as
    /// its result would: `checkmate` or `stalemate`.
    pub fn settle_or_end(mut self) -> Result<Position, &'static str> {
        let mut skips = 0;
        loop {
            let live = self.live_armies().len();
            match self.start_of_turn() {
                Start::Moves => return Ok(self),
                Start::Checkmated if self.mode == Mode::Teams => return Err("checkmate"),
                Start::Stalemated if self.mode == Mode::Teams => {
                    skips += 1;
                    if skips >= live {
                        return Err("stalemate");
                    }
                    self.pass_turn();
                }
                Start::Stalemated if live <= 2 => return Err("stalemate"),
                Start::Checkmated | Start::Stalemated => {
                    self.eliminate(self.to_move);
                    // Only a mate gets here with two left: a stalemate
                    // between two drew above.
                    if live <= 2 {
                        return Err("checkmate");
                    }
                }
            }
        }
    }

    /// §Q12 notation.
    pub fn to_notation(&self) -> String {
        let castle: Vec<String> = Army::ALL
            .iter()
            .map(|a| {
                let bits = self.castling[a.index()];
                let mut s = String::new();
                if bits & SHORT != 0 {
                    s.push('K');
                }
                if bits & LONG != 0 {
                    s.push('Q');
                }
                if s.is_empty() {
                    s.push('-');
                }
                format!("{a}:{s}")
            })
            .collect();
        let out: Vec<&str> = Army::ALL
            .iter()
            .filter(|a| !self.live(**a))
            .map(|a| a.name())
            .collect();
        let list = |owner: Owner| {
            self.pieces()
                .filter(|(_, p)| p.owner == owner)
                .map(|(sq, p)| {
                    let letter = if p.promoted { 'q' } else { p.kind.letter() };
                    format!("{letter}{}", square_name(sq))
                })
                .collect::<Vec<_>>()
                .join(",")
        };
        format!(
            "to={}; mode={}; castle={}; out={}; red={}; green={}; blue={}; gray={}; dead={}",
            self.to_move,
            self.mode.name(),
            castle.join(","),
            out.join(","),
            list(Owner::Red),
            list(Owner::Green),
            list(Owner::Blue),
            list(Owner::Gray),
            list(Owner::Dead),
        )
    }

    pub fn from_notation(text: &str) -> Result<Position, RuleError> {
        let bad = |what: &str| {
            RuleError::malformed(format!(
                "not a four-player chess position (RULES.md §Q12): {what}"
            ))
        };
        let mut fields = std::collections::HashMap::new();
        for field in text.split(';').map(str::trim).filter(|f| !f.is_empty()) {
            let (key, value) = field
                .split_once('=')
                .ok_or_else(|| bad(&format!("{field:?} is not key=value")))?;
            if fields.insert(key, value).is_some() {
                return Err(bad(&format!("{key} is given twice")));
            }
        }
        let field = |key: &str| {
            fields
                .get(key)
                .copied()
                .ok_or_else(|| bad(&format!("{key}= is missing")))
        };
        let to_move = Army::parse(field("to")?).ok_or_else(|| bad("to= names no army"))?;
        let mode = match field("mode")? {
            "teams" => Mode::Teams,
            "ffa" => Mode::Ffa,
            "points" => Mode::Points,
            other => return Err(bad(&format!("mode {other:?}"))),
        };
        let mut pos = Position {
            cells: [None; SQUARES],
            to_move,
            mode,
            castling: [0; 4],
            out: [false; 4],
        };
        for entry in field("castle")?.split(',').filter(|e| !e.is_empty()) {
            let (army, rights) = entry
                .split_once(':')
                .ok_or_else(|| bad(&format!("castle entry {entry:?}")))?;
            let army = Army::parse(army).ok_or_else(|| bad(&format!("army {army:?}")))?;
            for c in rights.chars() {
                pos.castling[army.index()] |= match c {
                    'K' => SHORT,
                    'Q' => LONG,
                    '-' => 0,
                    _ => return Err(bad(&format!("castling letter {c:?}"))),
                };
            }
        }
        for name in field("out")?.split(',').filter(|e| !e.is_empty()) {
            let army = Army::parse(name).ok_or_else(|| bad(&format!("army {name:?}")))?;
            pos.out[army.index()] = true;
        }
        let owners = [
            ("red", Owner::Red),
            ("green", Owner::Green),
            ("blue", Owner::Blue),
            ("gray", Owner::Gray),
            ("dead", Owner::Dead),
        ];
        for (key, owner) in owners {
            for entry in field(key)?.split(',').filter(|e| !e.is_empty()) {
                let mut chars = entry.chars();
                let letter = chars.next().unwrap_or(' ');
                let (kind, promoted) = match letter {
                    'K' => (Kind::King, false),
                    'Q' => (Kind::Queen, false),
                    'q' => (Kind::Queen, true),
                    'R' => (Kind::Rook, false),
                    'B' => (Kind::Bishop, false),
                    'N' => (Kind::Knight, false),
                    'P' => (Kind::Pawn, false),
                    _ => return Err(bad(&format!("piece {entry:?}"))),
                };
                let sq = parse_square(chars.as_str())
                    .ok_or_else(|| bad(&format!("square in {entry:?}")))?;
                if pos.cells[sq as usize].is_some() {
                    return Err(bad(&format!("two pieces on {}", square_name(sq))));
                }
                pos.cells[sq as usize] = Some(Piece {
                    owner,
                    kind,
                    promoted,
                });
            }
        }
        for army in Army::ALL {
            let kings = pos
                .pieces()
                .filter(|(_, p)| p.owner == Owner::of(army) && p.kind == Kind::King)
                .count();
            let has_pieces = pos.pieces().any(|(_, p)| p.owner == Owner::of(army));
            if pos.live(army) && kings != 1 {
                return Err(bad(&format!("{army} is in play with {kings} kings")));
            }
            if !pos.live(army) && has_pieces {
                return Err(bad(&format!("{army} is out: list its pieces under dead=")));
            }
        }
        if !pos.live(to_move) {
            return Err(bad("the army to move is out"));
        }
        if pos.live_armies().len() < 2 {
            return Err(bad("fewer than two armies in play"));
        }
        Ok(pos)
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
