//! Chance is injected like time (docs/decisions/matches-and-deadlines.md):
//! production rolls from the operating system; tests seed it, so a
//! FlipChess deal, a seat draw or a Banqi layout is reproducible over HTTP.
//! Only game chance comes from here: secrets (tokens, invite codes, keys)
//! always come from the operating system.

use posthorn_rules::{Random, SplitMix64};
use std::sync::{Arc, Mutex};

pub trait Dice: Send + Sync {
    fn roll(&self) -> u64;
}

/// The operating system's randomness.
pub struct OsDice;

impl Dice for OsDice {
    fn roll(&self) -> u64 {
        u64::from_le_bytes(crate::auth::random_bytes::<8>())
    }
}

/// A seeded sequence, shared by every request of a test service.
pub struct SeededDice(Mutex<SplitMix64>);

impl SeededDice {
    pub fn new(seed: u64) -> Self {
        SeededDice(Mutex::new(SplitMix64::new(seed)))
    }
}

impl Dice for SeededDice {
    fn roll(&self) -> u64 {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).next_u64()
    }
}

/// The rules crate's [`Random`], drawn from the service's dice.
pub struct Roller(pub Arc<dyn Dice>);

impl Random for Roller {
    fn next_u64(&mut self) -> u64 {
        self.0.roll()
    }
}
