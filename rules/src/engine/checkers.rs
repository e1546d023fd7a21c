//! The checkers engine (docs/bots.md), every variant of docs/rules/checkers.md §C.
//!
//! The position is rebuilt from the seat's own view, read into the rules'
//! [`View`] (the PDN FEN, the variant and the draw counters it shows);
//! checkers hides nothing, so the engine sees it whole ([`Search`]). The
//! evaluation is material (men 100,
//! kings by how far they fly), a little advancement, centre and back-row
//! guard, and in the ending a push to trade down and to close in when
//! ahead. The computer never offers a draw, declines every offer made to
//! it, and never resigns.

use super::{choose_scored, root_scores, within, Budget, Engine, Level, Search, WIN};
use crate::checkers::draughts::Kings;
use crate::checkers::{Action, Board, Checkers, Color, Step, Variant, View, NO_PROGRESS_PLIES};
use crate::{Random, RuleError, Seat};

/// The most compulsory captures played out beyond the search's depth.
const CAPTURE_PLIES: u32 = 6;

/// Easy's weaker moves give away at most about a man.
const EASY_FLOOR: i32 = 110;

/// Normal picks among moves within this much of its best (a fifth of a man).
const NORMAL_MARGIN: i32 = 20;

/// A checkers position as the engine searches it.
#[derive(Clone, Debug)]
pub struct Position {
    pub variant: Variant,
    pub board: Board,
    /// §C1: plies left before the no-progress draw.
    pub quiet_left: u32,
    /// §C1: plies left before the 400-ply draw.
    pub plies_left: u32,
}

fn side_of(colour: Color) -> usize {
    match colour {
        Color::Black => 0,
        Color::White => 1,
    }
}

/// §C2: a king's worth in men-hundredths: short kings (American) are
/// worth half a man more, flying kings much more.
fn king_value(variant: Variant) -> i32 {
    match variant.rules().map(|r| r.kings) {
        None => 160,
        Some(Kings::FlyingLandBehind) => 250,
        Some(Kings::Flying) => 300,
    }
}

impl Position {
    pub fn new(variant: Variant, board: Board, quiet_left: u32, plies_left: u32) -> Position {
        Position {
            variant,
            board,
            quiet_left,
            plies_left,
        }
    }

    /// §C1: the side to move has no piece or no legal move (the board's
    /// own `ending`, without its allocations).
    fn lost(&self) -> bool {
        match &self.board {
            Board::American(p) => p.pieces(p.turn) == 0 || !p.has_legal_move(),
            Board::Draughts(p) => {
                p.count(p.turn) == 0 || self.board.legal_moves(self.variant).is_empty()
            }
        }
    }

    /// The value for Black once the compulsory captures (§C1) are played
    /// out, up to `plies` of them: the side to move picks its best capture.
    fn resolved(&self, plies: u32) -> i32 {
        if self.lost() {
            return if self.mover() == 0 { -WIN } else { WIN };
        }
        if self.quiet_left == 0 || self.plies_left == 0 {
            return 0;
        }
        let must_capture = match &self.board {
            Board::American(p) => p.can_capture(),
            Board::Draughts(_) => true,
        };
        if plies == 0 || !must_capture {
            return self.evaluate();
        }
        let moves = self.board.legal_moves(self.variant);
        if !moves.first().is_some_and(Step::is_capture) {
            return self.evaluate();
        }
        let values = moves.iter().map(|m| self.play(m).resolved(plies - 1));
        if self.mover() == 0 {
            values.max().unwrap_or(0)
        } else {
            values.min().unwrap_or(0)
        }
    }

    /// Every piece: its 0-based square, colour and kingship, without
    /// allocating.
    fn each_piece(&self, mut f: impl FnMut(usize, Color, bool)) {
        match &self.board {
            Board::American(p) => {
                for sq in 0..32 {
                    let bit = 1u32 << sq;
                    let king = p.kings & bit != 0;
                    if p.black & bit != 0 {
                        f(sq, Color::Black, king);
                    } else if p.white & bit != 0 {
                        f(sq, Color::White, king);
                    }
                }
            }
            Board::Draughts(p) => {
                let size = p.rules_size as usize;
                for (sq, cell) in p.cells.iter().enumerate().take(size * size / 2) {
                    if let Some(c) = cell {
                        f(sq, c.colour, c.king);
                    }
                }
            }
        }
    }

    /// The static evaluation for Black (side 0), in men-hundredths.
    fn evaluate(&self) -> i32 {
        let king = king_value(self.variant);
        let mut material = [0i32; 2];
        let mut count = [0i32; 2];
        let mut positional = [0i32; 2];
        // Each piece's side, row and column, kings first noted by index.
        let mut all = [(0usize, 0i32, 0i32, false); 50];
        let mut len = 0;
        let size = self.variant.size() as usize;
        let per_row = size / 2;
        self.each_piece(|sq, colour, is_king| {
            let s = side_of(colour);
            let row = sq / per_row;
            let col = 2 * (sq % per_row) + usize::from(row.is_multiple_of(2));
            count[s] += 1;
            // Rows advanced: Black starts at the top (row 0) and moves down.
            let advanced = match colour {
                Color::Black => row,
                Color::White => size - 1 - row,
            } as i32;
            let centre = (size as i32 - 1 - (2 * col as i32 - (size as i32 - 1)).abs()) / 2;
            if len < all.len() {
                all[len] = (s, row as i32, col as i32, is_king);
                len += 1;
            }
            if is_king {
                material[s] += king;
                positional[s] += centre * 2;
            } else {
                material[s] += 100;
                positional[s] += advanced * 3 + centre;
                // A man on its own back row guards it against crowning.
                if advanced == 0 {
                    positional[s] += 6;
                }
            }
        });
        let diff = material[0] - material[1];
        let total = count[0] + count[1];
        let mut score = diff + positional[0] - positional[1];
        // Ahead, trade down: the same lead is worth more with fewer pieces.
        score += diff * 4 / (total + 2);
        // In the ending, the side ahead brings its kings to the enemy.
        if total <= 10 && diff != 0 {
            let ahead = if diff > 0 { 0 } else { 1 };
            let mut closeness = 0;
            let all = &all[..len];
            for &(s, r, c, _) in all.iter().filter(|k| k.3 && k.0 == ahead) {
                let nearest = all
                    .iter()
                    .filter(|p| p.0 != s)
                    .map(|p| (p.1 - r).abs().max((p.2 - c).abs()))
                    .min()
                    .unwrap_or(0);
                closeness += size as i32 - nearest;
            }
            score += if ahead == 0 { closeness } else { -closeness } * 2;
        }
        score
    }
}

impl Search for Position {
    type Move = Step;

    fn mover(&self) -> usize {
        side_of(self.board.turn())
    }

    /// Captures first, the longest first; then crowning moves.
    fn moves(&self, out: &mut Vec<Step>) {
        if self.quiet_left == 0 || self.plies_left == 0 {
            return;
        }
        let mut moves = self.board.legal_moves(self.variant);
        moves.sort_by_key(|m| {
            std::cmp::Reverse(m.captured().len() * 2 + usize::from(self.board.crowns(m)))
        });
        out.extend(moves);
    }

    fn play(&self, mv: &Step) -> Position {
        let irreversible = mv.is_capture() || self.board.moves_man(mv);
        Position {
            variant: self.variant,
            board: self.board.play(mv),
            quiet_left: if irreversible {
                NO_PROGRESS_PLIES
            } else {
                self.quiet_left.saturating_sub(1)
            },
            plies_left: self.plies_left.saturating_sub(1),
        }
    }

    /// §C1: the side to move loses with no piece or no legal move; the
    /// draws by the no-progress and ply counts (the view carries no
    /// history, so repetitions are not foreseen). A pending capture is
    /// compulsory, so it is played out before the position is judged.
    fn value(&self, side: usize) -> i32 {
        let black = self.resolved(CAPTURE_PLIES);
        if side == 0 {
            black
        } else {
            -black
        }
    }

    fn over(&self) -> bool {
        self.quiet_left == 0 || self.plies_left == 0 || self.lost()
    }

    /// No [`Search::noisy`]: [`Search::value`] already plays a pending
    /// capture out, as the rules compel, before judging a position.
    fn key(&self) -> Option<u64> {
        Some(super::key_of(&(
            self.board,
            self.quiet_left,
            self.plies_left,
        )))
    }
}

/// Normal's margin, none when a forced win is seen: the quickest win is
/// played rather than one further off.
fn margin(scored: &[(Step, i32)]) -> i32 {
    match scored.iter().map(|m| m.1).max() {
        Some(best) if best > WIN / 2 => 0,
        _ => NORMAL_MARGIN,
    }
}

/// The engine's position from a seat's view of a checkers match.
pub fn from_view(view: &View) -> Result<Position, RuleError> {
    Ok(Position::new(
        view.variant,
        Board::from_fen(view.variant, &view.position)?,
        view.plies_until_no_progress_draw,
        view.plies_until_ply_limit,
    ))
}

/// Puzzles (docs/puzzles.md): checkers hides nothing, so every position
/// is whole. Seven plies where hard looks five; a man's lead at every
/// step, and a man and a half over the start ends a line.
impl super::puzzles::Puzzles for Checkers {
    type Whole = Position;
    const SHIPPED: &'static str = include_str!("../../puzzles/checkers.jsonl");
    const RULE: super::puzzles::Rule = super::puzzles::Rule {
        mined: true,
        from_people: true,
        scan: 4,
        depth: 7,
        margin: 100,
        decisive: 150,
        nodes: 4_000_000,
        players: super::puzzles::NORMAL_AGAINST_EASY,
    };

    fn whole(view: &View) -> Option<Position> {
        from_view(view).ok()
    }

    fn start_of(view: &View, _config: &crate::checkers::Config) -> Option<crate::checkers::Config> {
        Some(crate::checkers::Config {
            variant: view.variant,
            position: Some(view.position.clone()),
        })
    }

    fn action(mv: &Step) -> Action {
        Action::Move {
            notation: mv.to_string(),
        }
    }

    fn material(pos: &Position, side: usize) -> i32 {
        let king = king_value(pos.variant);
        let mut lead = 0;
        pos.each_piece(|_, colour, is_king| {
            let worth = if is_king { king } else { 100 };
            lead += if side_of(colour) == side {
                worth
            } else {
                -worth
            };
        });
        lead
    }
}

/// Checkers hides nothing: a play is judged in the position itself.
impl super::analysis::Analyse for Checkers {}

impl Engine for Checkers {
    fn decide(
        view: &View,
        seat: Seat,
        level: Level,
        random: &mut dyn Random,
    ) -> Result<Action, RuleError> {
        if seat.index() > 1 {
            return Err(RuleError::illegal("there is no such seat in checkers"));
        }
        // §C1: an offer made to this seat is declined; the computer never
        // offers a draw itself.
        if view.draw_offer.is_some_and(|offerer| offerer != seat) {
            return Ok(Action::DeclineDraw {});
        }
        let pos = from_view(view)?;
        if pos.mover() != seat.index() {
            return Err(RuleError::not_your_turn());
        }
        if pos.over() {
            return Err(RuleError::finished());
        }
        let mut scored = root_scores(
            &pos,
            level.depth(),
            &mut Budget::for_level(level, level.nodes()),
        );
        if level == Level::Easy {
            scored = within(&scored, EASY_FLOOR);
        }
        let mv = choose_scored(&scored, level, margin(&scored), random)
            .ok_or_else(RuleError::finished)?;
        Ok(Action::Move {
            notation: mv.to_string(),
        })
    }
}
