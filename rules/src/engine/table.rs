//! The transposition table (issue #69 item 4, docs/bots.md "The stronger
//! search"): what the search already learnt of a position reached again
//! by another order of moves — its value within a depth, as exact or as a
//! bound, and the move that was best there, tried first next time.
//!
//! The table belongs to one [`super::Budget`], so to one search from one
//! root: the values it keeps are from the root side's point of view (the
//! paranoid search's), which is the same for every entry. Entries are
//! found by a position's [`super::Search::key`], a hash made by
//! [`key_of`] — a fixed mixing, not the standard library's hasher, whose
//! output may change between Rust versions: a changed key would change
//! which entries survive, so a pinned search would not stay pinned.

use std::hash::{Hash, Hasher};

/// What a stored value says of the position's true value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bound {
    Exact,
    /// The true value is at least this (the search failed high).
    Lower,
    /// The true value is at most this (the search failed low).
    Upper,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    key: u64,
    value: i32,
    /// The plies searched below the position.
    depth: u8,
    bound: Bound,
    /// The best move's index in the position's move list.
    best: u16,
}

/// A fixed number of entries, each position in one slot by its key; a
/// new entry replaces an old one of no greater depth (a deep result cost
/// more to find and prunes more).
pub(crate) struct Table {
    entries: Vec<Option<Entry>>,
    mask: u64,
}

/// What a probe found.
pub(crate) struct Found {
    /// The value, when the stored one settles the position for this
    /// window and depth.
    pub value: Option<i32>,
    /// The move to try first.
    pub best: Option<usize>,
}

impl Table {
    /// A table of about `nodes / 4` slots (a power of two, between 2¹⁰ and
    /// 2¹⁶: at most 1.5 MB for one search).
    pub fn for_nodes(nodes: u64) -> Table {
        let slots = (nodes / 4).clamp(1 << 10, 1 << 16).next_power_of_two();
        Table {
            entries: vec![None; slots as usize],
            mask: slots - 1,
        }
    }

    fn slot(&self, key: u64) -> usize {
        (key & self.mask) as usize
    }

    pub fn probe(&self, key: u64, depth: u32, alpha: i32, beta: i32) -> Found {
        let Some(entry) = self.entries[self.slot(key)].filter(|e| e.key == key) else {
            return Found {
                value: None,
                best: None,
            };
        };
        let settles = u32::from(entry.depth) >= depth
            && match entry.bound {
                Bound::Exact => true,
                Bound::Lower => entry.value >= beta,
                Bound::Upper => entry.value <= alpha,
            };
        Found {
            value: settles.then_some(entry.value),
            best: Some(usize::from(entry.best)),
        }
    }

    /// Keep `value`, found at `depth` in the window `(alpha, beta)` the
    /// search was given, and the index of the move that gave it.
    pub fn store(
        &mut self,
        key: u64,
        depth: u32,
        (alpha, beta): (i32, i32),
        value: i32,
        best: usize,
    ) {
        let bound = if value <= alpha {
            Bound::Upper
        } else if value >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        let slot = self.slot(key);
        let depth = depth.min(u32::from(u8::MAX)) as u8;
        if self.entries[slot].is_some_and(|old| old.key != key && old.depth > depth) {
            return;
        }
        self.entries[slot] = Some(Entry {
            key,
            value,
            depth,
            bound,
            best: best.min(usize::from(u16::MAX)) as u16,
        });
    }
}

/// A position's key: `value` hashed by a fixed 64-bit mixing (FxHash's
/// multiply-rotate, eight bytes at a time), the same on every machine of
/// one byte order and every Rust version.
pub fn key_of<T: Hash + ?Sized>(value: &T) -> u64 {
    let mut hasher = KeyHasher(0);
    value.hash(&mut hasher);
    hasher.finish()
}

struct KeyHasher(u64);

impl KeyHasher {
    fn mix(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.mix(u64::from_le_bytes(chunk.try_into().expect("eight bytes")));
        }
        let mut last = [0u8; 8];
        let rest = chunks.remainder();
        if !rest.is_empty() {
            last[..rest.len()].copy_from_slice(rest);
            self.mix(u64::from_le_bytes(last) ^ (rest.len() as u64) << 56);
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.mix(u64::from(n));
    }

    fn write_u16(&mut self, n: u16) {
        self.mix(u64::from(n));
    }

    fn write_u32(&mut self, n: u32) {
        self.mix(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.mix(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.mix(n as u64);
    }

    fn write_isize(&mut self, n: isize) {
        self.mix(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_fixed_and_tell_positions_apart() {
        // Pinned: a changed mixing changes which entries survive, so a
        // pinned search's answers; this says when it happened.
        assert_eq!(key_of(&[1u8, 2, 3]), key_of(&[1u8, 2, 3]));
        assert_ne!(key_of(&[1u8, 2, 3]), key_of(&[1u8, 3, 2]));
        assert_ne!(
            key_of(&(Some(1u8), None::<u8>)),
            key_of(&(None::<u8>, Some(1u8)))
        );
        assert_eq!(
            key_of(&42u64),
            0x51_7c_c1_b7_27_22_0a_95u64.wrapping_mul(42)
        );
    }

    #[test]
    fn a_stored_bound_settles_only_the_windows_it_speaks_for() {
        let mut table = Table::for_nodes(10_000);
        // Failed high at depth 3 in (0, 10): at least 20.
        table.store(7, 3, (0, 10), 20, 2);
        assert_eq!(table.probe(7, 3, 0, 15).value, Some(20), "beta below it");
        assert_eq!(table.probe(7, 3, 0, 30).value, None, "beta above it");
        assert_eq!(table.probe(7, 4, 0, 15).value, None, "deeper asked");
        assert_eq!(
            table.probe(7, 9, 0, 30).best,
            Some(2),
            "its move still leads"
        );
        // Exact within the window.
        table.store(7, 3, (0, 10), 5, 1);
        assert_eq!(table.probe(7, 2, -100, 100).value, Some(5));
        // Another key in the same slot does not read it.
        assert_eq!(table.probe(7 + (1 << 20), 1, -100, 100).best, None);
    }
}
