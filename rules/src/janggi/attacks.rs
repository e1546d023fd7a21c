//! Check in Janggi (docs/rules/janggi.md §J4): whether a king is attacked.

use super::board::{
    palace_of, palace_step, Kind, Piece, Position, Side, DIAGONAL, GRID, ORTHOGONAL,
};

impl Position {
    /// §J4: whether `side`'s king is attacked.
    pub fn in_check(&self, side: Side) -> bool {
        self.king(side)
            .is_some_and(|k| self.attacked(k, side.other()))
    }

    /// Whether a piece of `by` could capture on `target` (not a cannon:
    /// only kings are asked about). Kings and guards never leave their
    /// palace, so they never reach the other one: only the five others
    /// are looked for, each by walking back from the target.
    fn attacked(&self, target: u8, by: Side) -> bool {
        let enemy = |sq: u8, kind: Kind| self.piece(sq) == Some(Piece { side: by, kind });
        // Chariots and cannons, orthogonally and along palace diagonals.
        let rays = ORTHOGONAL
            .iter()
            .map(|d| (*d, false))
            .chain(DIAGONAL.iter().map(|d| (*d, true)));
        for (dir, diagonal) in rays {
            let step = |sq: u8| {
                if diagonal {
                    palace_step(sq, dir)
                } else {
                    GRID.offset(sq, dir)
                }
            };
            let mut sq = target;
            let mut screen = false;
            while let Some(next) = step(sq) {
                sq = next;
                let Some(piece) = self.piece(sq) else {
                    continue;
                };
                if !screen {
                    if enemy(sq, Kind::Chariot) {
                        return true;
                    }
                    if piece.kind == Kind::Cannon {
                        break;
                    }
                    screen = true;
                } else {
                    if enemy(sq, Kind::Cannon) {
                        return true;
                    }
                    break;
                }
            }
        }
        for d in ORTHOGONAL {
            let p = (d.1, d.0); // perpendicular
            for side in [1, -1] {
                let (pf, pr) = (p.0 * side, p.1 * side);
                // A horse at target - 2d - p, its leg at target - d - p.
                let horse = GRID.offset(target, (-2 * d.0 - pf, -2 * d.1 - pr));
                let leg = GRID.offset(target, (-d.0 - pf, -d.1 - pr));
                if let (Some(h), Some(l)) = (horse, leg) {
                    if enemy(h, Kind::Horse) && self.piece(l).is_none() {
                        return true;
                    }
                }
                // An elephant at target - 3d - 2p, legs at -2d-2p and -d-p.
                let elephant = GRID.offset(target, (-3 * d.0 - 2 * pf, -3 * d.1 - 2 * pr));
                let leg1 = GRID.offset(target, (-2 * d.0 - 2 * pf, -2 * d.1 - 2 * pr));
                if let (Some(e), Some(l1), Some(l2)) = (elephant, leg1, leg) {
                    if enemy(e, Kind::Elephant)
                        && self.piece(l1).is_none()
                        && self.piece(l2).is_none()
                    {
                        return true;
                    }
                }
            }
        }
        // Soldiers: from behind (their forward) or beside, or down a
        // palace diagonal forward.
        let back = -by.forward();
        let soldier_from = [(0, back), (1, 0), (-1, 0)];
        if soldier_from
            .iter()
            .filter_map(|d| GRID.offset(target, *d))
            .any(|sq| enemy(sq, Kind::Soldier))
        {
            return true;
        }
        [(1, back), (-1, back)]
            .iter()
            .filter_map(|d| palace_step(target, *d))
            .any(|sq| enemy(sq, Kind::Soldier) && palace_of(sq) == Some(by.other()))
    }
}
