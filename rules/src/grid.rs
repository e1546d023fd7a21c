//! Rectangular boards, shared by the games that have one: squares
//! numbered `rank * files + file` from 0, file 0 written `a` and rank 0
//! written `1` (algebraic names: `a1`, `e10`).
//!
//! A game keeps its own geometry on top (palaces, missing corners, dark
//! squares only) and its own reading of square names where it accepts
//! more than [`Grid::parse`] does.

/// A board of `files` × `ranks` squares (at most 255 squares).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grid {
    pub files: u8,
    pub ranks: u8,
}

impl Grid {
    pub const fn new(files: u8, ranks: u8) -> Grid {
        Grid { files, ranks }
    }

    /// How many squares the board has.
    pub const fn squares(self) -> usize {
        self.files as usize * self.ranks as usize
    }

    /// `(file, rank)` of `sq`, both from 0.
    #[inline]
    pub const fn coords(self, sq: u8) -> (i8, i8) {
        ((sq % self.files) as i8, (sq / self.files) as i8)
    }

    /// Whether `(file, rank)` is on the board.
    #[inline]
    pub const fn contains(self, file: i8, rank: i8) -> bool {
        file >= 0 && file < self.files as i8 && rank >= 0 && rank < self.ranks as i8
    }

    /// The square at `(file, rank)`, if on the board.
    #[inline]
    pub const fn at(self, file: i8, rank: i8) -> Option<u8> {
        if self.contains(file, rank) {
            Some(rank as u8 * self.files + file as u8)
        } else {
            None
        }
    }

    /// The square `(df, dr)` away from `sq`, if on the board.
    #[inline]
    pub const fn offset(self, sq: u8, (df, dr): (i8, i8)) -> Option<u8> {
        let (f, r) = self.coords(sq);
        self.at(f + df, r + dr)
    }

    /// The algebraic name of `sq`: `a1`, `h8`, `i10`.
    pub fn name(self, sq: u8) -> String {
        format!(
            "{}{}",
            (b'a' + sq % self.files) as char,
            sq / self.files + 1
        )
    }

    /// Read an algebraic name: a file letter, then the rank in digits
    /// without sign or leading zero.
    pub fn parse(self, text: &str) -> Option<u8> {
        let b = text.as_bytes();
        let (&file, digits) = b.split_first()?;
        if digits.is_empty() || digits[0] == b'0' || !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let rank: u8 = text[1..].parse().ok()?;
        let file = file.checked_sub(b'a')?;
        if file >= self.files || !(1..=self.ranks).contains(&rank) {
            return None;
        }
        Some((rank - 1) * self.files + file)
    }
}

#[cfg(test)]
mod tests {
    use super::Grid;

    #[test]
    fn names_round_trip_and_strangers_are_refused() {
        for grid in [
            Grid::new(8, 8),
            Grid::new(8, 4),
            Grid::new(9, 10),
            Grid::new(14, 14),
        ] {
            for sq in 0..grid.squares() as u8 {
                assert_eq!(grid.parse(&grid.name(sq)), Some(sq));
                let (f, r) = grid.coords(sq);
                assert_eq!(grid.at(f, r), Some(sq));
            }
        }
        let chess = Grid::new(8, 8);
        assert_eq!(chess.name(0), "a1");
        assert_eq!(chess.name(63), "h8");
        for bad in ["", "a", "a0", "a9", "i1", "a01", "a+1", "A1", "a1 ", "é1"] {
            assert_eq!(chess.parse(bad), None, "{bad:?}");
        }
        assert_eq!(Grid::new(9, 10).name(89), "i10");
        assert_eq!(chess.offset(0, (-1, 0)), None);
        assert_eq!(chess.offset(0, (1, 1)), Some(9));
        assert_eq!(chess.offset(63, (0, 1)), None);
    }
}
