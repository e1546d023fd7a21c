//! The four-player chess position notation (docs/rules/four-player-chess.md §Q12).

use super::board::{
    parse_square, square_name, Army, Kind, Mode, Owner, Piece, Position, LONG, SHORT, SQUARES,
};
use crate::RuleError;

impl Position {
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
                "not a four-player chess position (rules §Q12): {what}"
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
