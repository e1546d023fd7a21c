//! Fairy-Stockfish's janggi FEN (docs/rules/janggi.md §J1).

use super::board::{palace_of, Kind, Piece, Position, Side, FILES, GRID, RANKS};
use crate::RuleError;

impl Position {
    /// Fairy-Stockfish's janggi FEN: ranks 10 to 1, Cho upper case; `w`
    /// is Cho to move. Castling and en passant fields are `-`, the
    /// counters `0 1` (this game keeps its own).
    pub fn to_fen(&self) -> String {
        let mut ranks = Vec::new();
        for rank in (0..RANKS).rev() {
            let mut text = String::new();
            let mut empty = 0;
            for file in 0..FILES {
                match self.cells[(rank * 9 + file) as usize] {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            text.push_str(&empty.to_string());
                            empty = 0;
                        }
                        let c = p.kind.letter();
                        text.push(if p.side == Side::Cho {
                            c
                        } else {
                            c.to_ascii_lowercase()
                        });
                    }
                }
            }
            if empty > 0 {
                text.push_str(&empty.to_string());
            }
            ranks.push(text);
        }
        let turn = if self.turn == Side::Cho { 'w' } else { 'b' };
        format!("{} {turn} - - 0 1", ranks.join("/"))
    }

    /// Read a FEN; the board must hold one king per side in its palace.
    pub fn from_fen(fen: &str) -> Result<Position, RuleError> {
        let bad = |why: &str| RuleError::malformed(format!("janggi FEN {fen:?}: {why}"));
        let mut fields = fen.split_whitespace();
        let board = fields.next().ok_or_else(|| bad("empty"))?;
        let mut pos = Position {
            turn: match fields.next().unwrap_or("w") {
                "w" => Side::Cho,
                "b" => Side::Han,
                _ => return Err(bad("the side to move is w (Cho) or b (Han)")),
            },
            ..Position::default()
        };
        let rows: Vec<&str> = board.split('/').collect();
        if rows.len() != RANKS as usize {
            return Err(bad("10 ranks are needed"));
        }
        for (i, row) in rows.iter().enumerate() {
            let rank = RANKS - 1 - i as i8;
            let mut file = 0i8;
            let mut digits = String::new();
            for c in row.chars().chain(std::iter::once('/')) {
                if c.is_ascii_digit() {
                    digits.push(c);
                    continue;
                }
                if !digits.is_empty() {
                    file += digits
                        .parse::<i8>()
                        .map_err(|_| bad("a bad run of empties"))?;
                    digits.clear();
                }
                if c == '/' {
                    break;
                }
                let kind = Kind::ALL
                    .into_iter()
                    .find(|k| k.letter() == c.to_ascii_uppercase())
                    .ok_or_else(|| bad(&format!("unknown piece {c:?}")))?;
                let side = if c.is_ascii_uppercase() {
                    Side::Cho
                } else {
                    Side::Han
                };
                let sq = GRID
                    .at(file, rank)
                    .ok_or_else(|| bad("a rank is longer than 9"))?;
                pos.cells[sq as usize] = Some(Piece { side, kind });
                file += 1;
            }
            if file != FILES {
                return Err(bad("each rank has 9 files"));
            }
        }
        for side in [Side::Cho, Side::Han] {
            let kings: Vec<u8> = pos
                .pieces()
                .filter(|(_, p)| p.side == side && p.kind == Kind::King)
                .map(|(sq, _)| sq)
                .collect();
            if kings.len() != 1 || palace_of(kings[0]) != Some(side) {
                return Err(bad("each side has one king, in its own palace"));
            }
            let guards_out = pos.pieces().any(|(sq, p)| {
                p.side == side && p.kind == Kind::Guard && palace_of(sq) != Some(side)
            });
            if guards_out {
                return Err(bad("guards stay in their own palace"));
            }
        }
        Ok(pos)
    }
}
