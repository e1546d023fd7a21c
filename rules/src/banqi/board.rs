//! The Banqi board (docs/rules/banqi.md §B1, §B3–§B6, §B9, §B10): 4 ranks × 8 files
//! of squares, face-down and face-up pieces, the actions, and the
//! position notation. A position is the full state the server knows,
//! face-down identities included; views never use it.

use crate::grid::Grid;
use crate::RuleError;
use serde::{Deserialize, Serialize};
use std::fmt;

pub const FILES: u8 = 8;
pub const RANKS: u8 = 4;
pub const SQUARES: usize = 32;
/// The board's squares and names.
const GRID: Grid = Grid::new(FILES, RANKS);

/// §B7: a quiet ply is one with no turn-up and no capture.
pub const QUIET_PLY_LIMIT: u32 = 180;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Colour {
    Red,
    Black,
}

impl Colour {
    pub fn other(self) -> Colour {
        match self {
            Colour::Red => Colour::Black,
            Colour::Black => Colour::Red,
        }
    }
}

/// §B4's ranks, high to low.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    General,
    Advisor,
    Elephant,
    Chariot,
    Horse,
    Cannon,
    Soldier,
}

impl Kind {
    pub const ALL: [Kind; 7] = [
        Kind::General,
        Kind::Advisor,
        Kind::Elephant,
        Kind::Chariot,
        Kind::Horse,
        Kind::Cannon,
        Kind::Soldier,
    ];

    /// §B1: how many of each per colour.
    pub fn count(self) -> usize {
        match self {
            Kind::General => 1,
            Kind::Soldier => 5,
            _ => 2,
        }
    }

    /// Higher captures lower (§B4).
    fn rank(self) -> u8 {
        7 - Kind::ALL.iter().position(|k| *k == self).unwrap_or(6) as u8
    }

    /// §B9: the red letter (black is lower case).
    pub fn letter(self) -> char {
        match self {
            Kind::General => 'K',
            Kind::Advisor => 'A',
            Kind::Elephant => 'E',
            Kind::Chariot => 'R',
            Kind::Horse => 'N',
            Kind::Cannon => 'C',
            Kind::Soldier => 'P',
        }
    }

    /// §B4 (the cannon aside, §B5): may `self` take an adjacent `target`?
    /// Equal or lower rank, but the general never takes a soldier and a
    /// soldier takes the general.
    pub fn takes(self, target: Kind) -> bool {
        match (self, target) {
            (Kind::Cannon, _) => false,
            (Kind::General, Kind::Soldier) => false,
            (Kind::Soldier, Kind::General) => true,
            _ => self.rank() >= target.rank(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Piece {
    pub colour: Colour,
    pub kind: Kind,
}

impl Piece {
    /// `K` for a red general, `k` for a black one.
    pub fn letter(self) -> char {
        match self.colour {
            Colour::Red => self.kind.letter(),
            Colour::Black => self.kind.letter().to_ascii_lowercase(),
        }
    }

    fn from_letter(c: char) -> Option<Piece> {
        let kind = Kind::ALL
            .into_iter()
            .find(|k| k.letter() == c.to_ascii_uppercase())?;
        let colour = if c.is_ascii_uppercase() {
            Colour::Red
        } else {
            Colour::Black
        };
        Some(Piece { colour, kind })
    }

    /// The 32 pieces of §B1.
    pub fn set() -> Vec<Piece> {
        let mut all = Vec::with_capacity(SQUARES);
        for colour in [Colour::Red, Colour::Black] {
            for kind in Kind::ALL {
                all.extend(std::iter::repeat_n(Piece { colour, kind }, kind.count()));
            }
        }
        all
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cell {
    Empty,
    Down(Piece),
    Up(Piece),
}

/// One action (§B3, §B9): `a1` turns up, `a1-a2` moves, `a1xa2` captures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    TurnUp(u8),
    Move(u8, u8),
    Capture(u8, u8),
}

pub fn square_name(sq: u8) -> String {
    GRID.name(sq)
}

pub fn parse_square(text: &str) -> Option<u8> {
    GRID.parse(text)
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match *self {
            Step::TurnUp(sq) => write!(f, "{}", square_name(sq)),
            Step::Move(a, b) => write!(f, "{}-{}", square_name(a), square_name(b)),
            Step::Capture(a, b) => write!(f, "{}x{}", square_name(a), square_name(b)),
        }
    }
}

impl Step {
    pub fn parse(text: &str) -> Option<Step> {
        if let Some((a, b)) = text.split_once('-') {
            return Some(Step::Move(parse_square(a)?, parse_square(b)?));
        }
        if let Some((a, b)) = text.split_once('x') {
            return Some(Step::Capture(parse_square(a)?, parse_square(b)?));
        }
        parse_square(text).map(Step::TurnUp)
    }
}

const DIRECTIONS: [(i8, i8); 4] = [(0, 1), (0, -1), (1, 0), (-1, 0)];

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    pub cells: [Cell; SQUARES],
    /// The colour to act; none before the first turn-up (§B2).
    pub to_act: Option<Colour>,
    /// Plies since the last turn-up or capture (§B7).
    pub quiet: u32,
}

impl Default for Position {
    fn default() -> Self {
        Position {
            cells: [Cell::Empty; SQUARES],
            to_act: None,
            quiet: 0,
        }
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.to_notation())
    }
}

impl Position {
    /// §B1: `pieces` face down in square order (a1, b1, …, h4).
    pub fn face_down(pieces: &[Piece]) -> Position {
        let mut pos = Position::default();
        for (cell, piece) in pos.cells.iter_mut().zip(pieces) {
            *cell = Cell::Down(*piece);
        }
        pos
    }

    /// Pieces of `colour` still on the board, face-down ones included (§B6).
    pub fn pieces_of(&self, colour: Colour) -> usize {
        self.cells
            .iter()
            .filter(|c| matches!(c, Cell::Down(p) | Cell::Up(p) if p.colour == colour))
            .count()
    }

    /// Every legal action of the side to act (§B3–§B5). Turn-ups are
    /// anyone's; moves and captures need a colour.
    pub fn legal_steps(&self, out: &mut Vec<Step>) {
        out.clear();
        for sq in 0..SQUARES as u8 {
            match self.cells[sq as usize] {
                Cell::Down(_) => out.push(Step::TurnUp(sq)),
                Cell::Up(p) if Some(p.colour) == self.to_act => self.piece_steps(sq, p, out),
                _ => {}
            }
        }
    }

    fn piece_steps(&self, from: u8, piece: Piece, out: &mut Vec<Step>) {
        for dir in DIRECTIONS {
            let Some(next) = GRID.offset(from, dir) else {
                continue;
            };
            match self.cells[next as usize] {
                Cell::Empty => out.push(Step::Move(from, next)),
                Cell::Up(t) if t.colour != piece.colour && piece.kind.takes(t.kind) => {
                    out.push(Step::Capture(from, next))
                }
                _ => {}
            }
            if piece.kind == Kind::Cannon {
                if let Some(target) = self.cannon_target(from, dir, piece.colour) {
                    out.push(Step::Capture(from, target));
                }
            }
        }
    }

    /// §B5: along `dir`, over exactly one piece of any kind, the first
    /// piece beyond — if it is a face-up enemy.
    fn cannon_target(&self, from: u8, dir: (i8, i8), colour: Colour) -> Option<u8> {
        let mut sq = from;
        let mut screened = false;
        while let Some(next) = GRID.offset(sq, dir) {
            sq = next;
            match self.cells[sq as usize] {
                Cell::Empty => {}
                _ if !screened => screened = true,
                Cell::Up(t) if t.colour != colour => return Some(sq),
                _ => return None,
            }
        }
        None
    }

    /// Whether `step` is legal, with the reason when not. The reasons name
    /// squares and face-up pieces only, never what lies face down (§B8).
    pub fn check(&self, step: Step) -> Result<(), RuleError> {
        let mut legal = Vec::new();
        self.legal_steps(&mut legal);
        if legal.contains(&step) {
            return Ok(());
        }
        let cell = |sq: u8| self.cells[sq as usize];
        let why = match step {
            Step::TurnUp(sq) => format!("{} is not a face-down piece", square_name(sq)),
            Step::Move(from, _) | Step::Capture(from, _) => match cell(from) {
                Cell::Up(p) if Some(p.colour) == self.to_act => match step {
                    Step::Capture(_, to) if matches!(cell(to), Cell::Down(_)) => {
                        "a face-down piece cannot be captured".to_owned()
                    }
                    Step::Move(_, to) if cell(to) != Cell::Empty => {
                        format!("{} is not empty", square_name(to))
                    }
                    _ => format!("{step} is not a legal action"),
                },
                Cell::Down(_) => format!("{} is face down: turn it up first", square_name(from)),
                _ => format!("you have no face-up piece on {}", square_name(from)),
            },
        };
        Err(RuleError::illegal(why))
    }

    /// The position after `step` (legal), and the piece it reveals or takes.
    pub fn play(&self, step: Step) -> Position {
        let mut next = *self;
        match step {
            Step::TurnUp(sq) => {
                if let Cell::Down(p) = self.cells[sq as usize] {
                    next.cells[sq as usize] = Cell::Up(p);
                    // §B2: the first turn-up gives the actor that colour.
                    next.to_act = Some(self.to_act.map_or(p.colour.other(), Colour::other));
                }
                next.quiet = 0;
            }
            Step::Move(from, to) | Step::Capture(from, to) => {
                next.cells[to as usize] = self.cells[from as usize];
                next.cells[from as usize] = Cell::Empty;
                next.to_act = self.to_act.map(Colour::other);
                next.quiet = match step {
                    Step::Capture(..) => 0,
                    _ => self.quiet + 1,
                };
            }
        }
        next
    }

    pub fn has_legal_step(&self) -> bool {
        let mut steps = Vec::new();
        self.legal_steps(&mut steps);
        !steps.is_empty()
    }

    /// §B6/§B7 as perft sees them (§B10): the side to act has lost (no
    /// pieces, no legal action) or the quiet plies ran out.
    pub fn is_over(&self) -> bool {
        self.ending().is_some()
    }

    /// Why the match is over in this position, as its result would name
    /// it: `no_pieces` or `no_legal_move` (§B6), `no_progress` (§B7's
    /// 180 quiet plies); `None` while it goes on. Repetition needs the
    /// history and is not judged here (§B10).
    pub fn ending(&self) -> Option<&'static str> {
        if let Some(colour) = self.to_act {
            if self.pieces_of(colour) == 0 {
                return Some("no_pieces");
            }
            if !self.has_legal_step() {
                return Some("no_legal_move");
            }
        }
        (self.quiet >= QUIET_PLY_LIMIT).then_some("no_progress")
    }

    /// §B9: `<rank 4>/<rank 3>/<rank 2>/<rank 1> <to-act> <quiet>`.
    pub fn to_notation(&self) -> String {
        let mut ranks = Vec::new();
        for rank in (0..RANKS).rev() {
            let mut text = String::new();
            let mut empty = 0;
            for file in 0..FILES {
                let cell = self.cells[(rank * FILES + file) as usize];
                if cell == Cell::Empty {
                    empty += 1;
                    continue;
                }
                if empty > 0 {
                    text.push_str(&empty.to_string());
                    empty = 0;
                }
                match cell {
                    Cell::Down(p) => {
                        text.push('?');
                        text.push(p.letter());
                    }
                    Cell::Up(p) => text.push(p.letter()),
                    Cell::Empty => {}
                }
            }
            if empty > 0 {
                text.push_str(&empty.to_string());
            }
            ranks.push(text);
        }
        let to_act = match self.to_act {
            None => '-',
            Some(Colour::Red) => 'r',
            Some(Colour::Black) => 'b',
        };
        format!("{} {to_act} {}", ranks.join("/"), self.quiet)
    }

    pub fn from_notation(text: &str) -> Result<Position, RuleError> {
        let bad = |why: &str| RuleError::malformed(format!("banqi position {text:?}: {why}"));
        let fields: Vec<&str> = text.split_whitespace().collect();
        let [board, to_act, quiet] = fields[..] else {
            return Err(bad("write <ranks 4 to 1> <r|b|-> <quiet plies>"));
        };
        let mut pos = Position {
            to_act: match to_act {
                "-" => None,
                "r" => Some(Colour::Red),
                "b" => Some(Colour::Black),
                _ => return Err(bad("the side to act is r, b or -")),
            },
            quiet: quiet
                .parse()
                .map_err(|_| bad("the quiet plies are a number"))?,
            ..Position::default()
        };
        let rows: Vec<&str> = board.split('/').collect();
        if rows.len() != RANKS as usize {
            return Err(bad("4 ranks are needed"));
        }
        for (i, row) in rows.iter().enumerate() {
            let rank = RANKS - 1 - i as u8;
            let mut file = 0u8;
            let mut chars = row.chars();
            while let Some(c) = chars.next() {
                if let Some(n) = c.to_digit(10).filter(|n| (1..=8).contains(n)) {
                    file += n as u8;
                    continue;
                }
                let (down, letter) = if c == '?' {
                    (
                        true,
                        chars.next().ok_or_else(|| bad("? needs a piece letter"))?,
                    )
                } else {
                    (false, c)
                };
                let piece = Piece::from_letter(letter)
                    .ok_or_else(|| bad(&format!("unknown piece {letter:?}")))?;
                if file >= FILES {
                    return Err(bad("a rank is longer than 8"));
                }
                pos.cells[(rank * FILES + file) as usize] = if down {
                    Cell::Down(piece)
                } else {
                    Cell::Up(piece)
                };
                file += 1;
            }
            if file != FILES {
                return Err(bad("each rank has 8 files"));
            }
        }
        // No more of a piece than §B1's set holds.
        for colour in [Colour::Red, Colour::Black] {
            for kind in Kind::ALL {
                let n = pos
                    .cells
                    .iter()
                    .filter(|c| matches!(c, Cell::Down(p) | Cell::Up(p) if *p == Piece { colour, kind }))
                    .count();
                if n > kind.count() {
                    return Err(bad("more pieces of a kind than the set holds"));
                }
            }
        }
        let face_up = pos.cells.iter().any(|c| matches!(c, Cell::Up(_)));
        if face_up && pos.to_act.is_none() {
            return Err(bad("once a piece is face up, r or b is to act"));
        }
        Ok(pos)
    }
}

/// §B10: action sequences of `depth` from `pos`; a finished position has
/// no children.
pub fn perft(pos: &Position, depth: usize) -> u64 {
    if depth == 0 {
        return 1;
    }
    if pos.is_over() {
        return 0;
    }
    let mut steps = Vec::with_capacity(48);
    pos.legal_steps(&mut steps);
    if depth == 1 {
        return steps.len() as u64;
    }
    steps.iter().map(|s| perft(&pos.play(*s), depth - 1)).sum()
}
