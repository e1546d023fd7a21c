//! Check in four-player chess (docs/rules/four-player-chess.md §Q4, §Q6, §Q8): which squares an
//! army attacks, and whose king is in check by whom.

use super::board::{
    step, Army, Kind, Owner, Piece, Position, BISHOP_DIRS, KNIGHT_JUMPS, ROOK_DIRS,
};

impl Position {
    /// Whether a live piece of an army in `attackers` attacks `sq`.
    pub(crate) fn attacked_by(&self, sq: u8, attackers: &[Army]) -> bool {
        self.attacked_by_some(sq, attackers, |_| true)
    }

    /// [`Self::attacked_by`], counting only the pieces `counts` accepts.
    pub(super) fn attacked_by_some(
        &self,
        sq: u8,
        attackers: &[Army],
        counts: impl Fn(Piece) -> bool,
    ) -> bool {
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
}
