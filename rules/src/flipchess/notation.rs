//! FlipChess notation (docs/rules/flipchess.md §F3): a move as written among a group's
//! moves, and the chess FEN of a board.

use super::board::{Board, Group, Kind, Move, Piece, Side, CASTLE_ROOKS};
use crate::RuleError;

impl Board {
    /// Find the legal move written `text` among `group`'s moves.
    pub fn find_move(&self, text: &str, group: Option<Group>) -> Result<Move, RuleError> {
        let wanted = Move::parse(text)?;
        let mut moves = Vec::new();
        self.moves(group, &mut moves);
        if let Some(mv) = moves.iter().find(|m| **m == wanted) {
            return Ok(*mv);
        }
        let promotes = moves
            .iter()
            .any(|m| m.from == wanted.from && m.to == wanted.to && m.promotion.is_some());
        if promotes && wanted.promotion.is_none() {
            return Err(RuleError::illegal(format!(
                "{text}: name the promotion, e.g. {text}q"
            )));
        }
        Err(RuleError::illegal(format!(
            "{text} is not a legal move for this card"
        )))
    }

    /// Read a chess FEN (the en-passant field is ignored: §F3 has none).
    pub fn from_fen(text: &str) -> Result<Board, RuleError> {
        let bad = |why: &str| RuleError::malformed(format!("position {text:?}: {why}"));
        let fields: Vec<&str> = text.split_whitespace().collect();
        if fields.len() < 2 {
            return Err(bad("expected piece placement and side to move"));
        }
        let mut squares = [None; 64];
        let ranks: Vec<&str> = fields[0].split('/').collect();
        if ranks.len() != 8 {
            return Err(bad("piece placement needs 8 ranks"));
        }
        for (i, rank) in ranks.iter().enumerate() {
            let r = 7 - i as u8;
            let mut f = 0u8;
            for c in rank.chars() {
                if let Some(n) = c.to_digit(10).filter(|n| (1..=8).contains(n)) {
                    f += n as u8;
                } else {
                    let kind = Kind::from_letter(c).ok_or_else(|| bad("unknown piece letter"))?;
                    if f >= 8 {
                        return Err(bad("a rank holds more than 8 squares"));
                    }
                    let side = if c.is_ascii_uppercase() {
                        Side::White
                    } else {
                        Side::Black
                    };
                    squares[(r * 8 + f) as usize] = Some(Piece { side, kind });
                    f += 1;
                }
                if f > 8 {
                    return Err(bad("a rank holds more than 8 squares"));
                }
            }
            if f != 8 {
                return Err(bad("a rank holds fewer than 8 squares"));
            }
        }
        let side = match fields[1] {
            "w" => Side::White,
            "b" => Side::Black,
            _ => return Err(bad("side to move must be w or b")),
        };
        let rights = fields.get(2).copied().unwrap_or("-");
        let mut castling = [false; 4];
        for (i, c) in ['K', 'Q', 'k', 'q'].iter().enumerate() {
            let (s, rook, _, _) = CASTLE_ROOKS[i];
            let in_place = squares[rook as usize]
                == Some(Piece {
                    side: s,
                    kind: Kind::Rook,
                })
                && squares[(s.home_rank() * 8 + 4) as usize]
                    == Some(Piece {
                        side: s,
                        kind: Kind::King,
                    });
            castling[i] = rights.contains(*c) && in_place;
        }
        Ok(Board {
            squares,
            side,
            castling,
        })
    }

    pub fn to_fen(&self) -> String {
        let mut out = String::new();
        for r in (0..8u8).rev() {
            let mut empty = 0;
            for f in 0..8u8 {
                match self.squares[(r * 8 + f) as usize] {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            out.push_str(&empty.to_string());
                            empty = 0;
                        }
                        let c = p.kind.letter();
                        out.push(if p.side == Side::White {
                            c.to_ascii_uppercase()
                        } else {
                            c
                        });
                    }
                }
            }
            if empty > 0 {
                out.push_str(&empty.to_string());
            }
            if r > 0 {
                out.push('/');
            }
        }
        let rights: String = ['K', 'Q', 'k', 'q']
            .iter()
            .zip(self.castling)
            .filter(|(_, on)| *on)
            .map(|(c, _)| *c)
            .collect();
        let side = if self.side == Side::White { 'w' } else { 'b' };
        format!(
            "{out} {side} {} - 0 1",
            if rights.is_empty() {
                "-".into()
            } else {
                rights
            }
        )
    }
}
