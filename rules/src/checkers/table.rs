//! One face for both boards: American on its tuned 32-bit board (its speed,
//! docs/rules/checkers.md §C1), every §C2 variant on the draughts board with its rules
//! value. The game module sees only this.

use super::board::{self, Color};
use super::draughts::{self, Kings, Majority, MidCapturePromotion, Rules};
use super::Variant;
use crate::RuleError;

impl Variant {
    /// The variant's rules for the draughts board; American has its own.
    pub fn rules(self) -> Option<Rules> {
        use Kings::*;
        use Majority::*;
        use MidCapturePromotion::*;
        let eight = |men_capture_backward, kings, majority, promotion| Rules {
            size: 8,
            men_capture_backward,
            kings,
            majority,
            promotion,
            remove_at_once: false,
            men_rows: 3,
            first: Color::White,
        };
        Some(match self {
            Variant::American => return None,
            Variant::Brazilian => eight(true, Flying, MostPieces, ContinuesAsMan),
            Variant::Russian => eight(true, Flying, Free, ContinuesAsKing),
            Variant::Pool => eight(true, Flying, Free, ContinuesAsMan),
            Variant::Spanish => eight(false, Flying, MostPiecesThenKings, ContinuesAsMan),
            Variant::International => Rules {
                size: 10,
                men_rows: 4,
                ..eight(true, Flying, MostPieces, ContinuesAsMan)
            },
            // Men capture only forward, so a man on the last row has no
            // capture left: the move ends there whatever the rule says.
            Variant::Thai => Rules {
                remove_at_once: true,
                men_rows: 2,
                ..eight(false, FlyingLandBehind, Free, EndsMove)
            },
        })
    }

    /// Squares a side (8 or 10).
    pub fn size(self) -> u8 {
        self.rules().map_or(8, |r| r.size)
    }

    /// Whether players write algebraic coordinates (`c3-d4`, `c3:e5`).
    fn algebraic(self) -> bool {
        matches!(self, Variant::Russian | Variant::Brazilian)
    }
}

/// A position on the variant's board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Board {
    American(board::Position),
    Draughts(draughts::Position),
}

impl Default for Board {
    fn default() -> Self {
        Board::start(Variant::American)
    }
}

/// A move on either board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    American(board::Move),
    Draughts(draughts::Move),
}

impl std::fmt::Display for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Step::American(m) => m.fmt(f),
            Step::Draughts(m) => m.fmt(f),
        }
    }
}

impl Step {
    /// The route, PDN squares.
    pub fn path(&self) -> Vec<u8> {
        match self {
            Step::American(m) => m.path().iter().map(|s| s + 1).collect(),
            Step::Draughts(m) => m.path().iter().map(|s| s + 1).collect(),
        }
    }

    /// The captured PDN squares.
    pub fn captured(&self) -> Vec<u8> {
        let bits = match self {
            Step::American(m) => m.captured as u64,
            Step::Draughts(m) => m.captured,
        };
        (0..64u8)
            .filter(|i| bits & (1 << i) != 0)
            .map(|i| i + 1)
            .collect()
    }

    pub fn is_capture(&self) -> bool {
        match self {
            Step::American(m) => m.is_capture(),
            Step::Draughts(m) => m.is_capture(),
        }
    }
}

/// `c3` → its PDN square on a `size` board, if dark.
fn algebraic_square(text: &str, size: u8) -> Option<u8> {
    let file = text.chars().next()?;
    let rank: u8 = text.get(1..)?.parse().ok()?;
    let col = (file as u8).checked_sub(b'a')?;
    if col >= size || !(1..=size).contains(&rank) {
        return None;
    }
    let row = size - rank;
    // Dark squares: odd columns on even rows (from the top), even on odd.
    if row.is_multiple_of(2) != (col % 2 == 1) {
        return None;
    }
    Some(row * size / 2 + col / 2 + 1)
}

/// `c3-d4` / `c3:e5:g7` → `22-18` / `22x15x8`; PDN text as it is.
fn to_pdn(text: &str, size: u8) -> Option<String> {
    let capture = text.contains(':') || text.contains('x');
    let squares: Option<Vec<String>> = text
        .split([':', '-', 'x'])
        .map(|s| algebraic_square(s.trim(), size).map(|n| n.to_string()))
        .collect();
    Some(squares?.join(if capture { "x" } else { "-" }))
}

impl Board {
    pub fn start(variant: Variant) -> Board {
        match variant.rules() {
            None => Board::American(board::Position::start()),
            Some(rules) => Board::Draughts(rules.start()),
        }
    }

    pub fn from_fen(variant: Variant, fen: &str) -> Result<Board, RuleError> {
        Ok(match variant.rules() {
            None => Board::American(board::Position::from_fen(fen)?),
            Some(rules) => Board::Draughts(draughts::Position::from_fen(&rules, fen)?),
        })
    }

    /// The American board, for its tests and tools.
    pub fn american(&self) -> Option<&board::Position> {
        match self {
            Board::American(p) => Some(p),
            Board::Draughts(_) => None,
        }
    }

    pub fn turn(&self) -> Color {
        match self {
            Board::American(p) => p.turn,
            Board::Draughts(p) => p.turn,
        }
    }

    pub fn to_fen(&self, variant: Variant) -> String {
        match (self, variant.rules()) {
            (Board::Draughts(p), Some(rules)) => p.to_fen(&rules),
            (Board::American(p), _) => p.to_fen(),
            (Board::Draughts(_), None) => String::new(),
        }
    }

    pub fn legal_moves(&self, variant: Variant) -> Vec<Step> {
        match (self, variant.rules()) {
            (Board::American(p), _) => {
                let mut moves = Vec::new();
                p.legal_moves(&mut moves);
                moves.into_iter().map(Step::American).collect()
            }
            (Board::Draughts(p), Some(rules)) => {
                let mut moves = Vec::new();
                p.legal_moves(&rules, &mut moves);
                moves.into_iter().map(Step::Draughts).collect()
            }
            (Board::Draughts(_), None) => Vec::new(),
        }
    }

    /// Why the match is over in this position, as its result would name
    /// it (§C1 "Win"): the side to move has `no_pieces` or
    /// `no_legal_move`; `None` while it goes on. The draws need the
    /// history and are not judged here.
    pub fn ending(&self, variant: Variant) -> Option<&'static str> {
        if self.count(self.turn()) == 0 {
            Some("no_pieces")
        } else if !self.has_legal_move(variant) {
            Some("no_legal_move")
        } else {
            None
        }
    }

    pub fn has_legal_move(&self, variant: Variant) -> bool {
        match self {
            Board::American(p) => p.has_legal_move(),
            Board::Draughts(_) => !self.legal_moves(variant).is_empty(),
        }
    }

    /// The move `text` names (PDN; algebraic too where players write it).
    pub fn find_move(&self, variant: Variant, text: &str) -> Result<Step, RuleError> {
        let pdn = match variant.algebraic()
            && text.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        {
            true => to_pdn(text, variant.size()).ok_or_else(|| {
                RuleError::malformed(format!(
                    "{text:?} is not a move: write c3-d4, c3:e5, 22-18 or 22x15"
                ))
            })?,
            false => text.to_owned(),
        };
        match (self, variant.rules()) {
            (Board::American(p), _) => p.find_move(&pdn).map(Step::American),
            (Board::Draughts(p), Some(rules)) => p.find_move(&rules, &pdn).map(Step::Draughts),
            (Board::Draughts(_), None) => Err(RuleError::illegal("no such board")),
        }
    }

    pub fn play(&self, step: &Step) -> Board {
        match (self, step) {
            (Board::American(p), Step::American(m)) => Board::American(p.play(m)),
            (Board::Draughts(p), Step::Draughts(m)) => Board::Draughts(p.play(m)),
            _ => *self,
        }
    }

    /// Whether `step` moves a man (an irreversible move, §C1).
    pub fn moves_man(&self, step: &Step) -> bool {
        match (self, step) {
            (Board::American(p), Step::American(m)) => p.moves_man(m),
            (Board::Draughts(p), Step::Draughts(m)) => p.cells[m.from()].is_some_and(|c| !c.king),
            _ => false,
        }
    }

    pub fn crowns(&self, step: &Step) -> bool {
        match (self, step) {
            (Board::American(p), Step::American(m)) => p.crowns(m),
            (Board::Draughts(_), Step::Draughts(m)) => m.crowned,
            _ => false,
        }
    }

    /// Every piece: its PDN square, colour and kingship.
    pub fn pieces(&self) -> Vec<(u8, Color, bool)> {
        match self {
            Board::American(p) => (0..32u8)
                .filter_map(|sq| {
                    let bit = 1u32 << sq;
                    let colour = if p.black & bit != 0 {
                        Color::Black
                    } else if p.white & bit != 0 {
                        Color::White
                    } else {
                        return None;
                    };
                    Some((sq + 1, colour, p.kings & bit != 0))
                })
                .collect(),
            Board::Draughts(p) => (0..draughts::MAX_SQUARES)
                .filter_map(|sq| p.cells[sq].map(|c| (sq as u8 + 1, c.colour, c.king)))
                .collect(),
        }
    }

    pub fn count(&self, colour: Color) -> usize {
        self.pieces().iter().filter(|p| p.1 == colour).count()
    }

    pub fn perft(&self, variant: Variant, depth: usize) -> u64 {
        match (self, variant.rules()) {
            (Board::American(p), _) => board::perft(p, depth, &mut vec![Vec::new(); depth.max(1)]),
            (Board::Draughts(p), Some(rules)) => draughts::perft(&rules, p, depth),
            (Board::Draughts(_), None) => 0,
        }
    }
}
