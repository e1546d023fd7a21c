//! A process-wide cache of folded match states, keyed by match and seq
//! (DESIGN.md §3: "a cached snapshot may shortcut the fold").
//!
//! Only committed states go in: states folded from events read from the
//! database, and states a handler reports after its transaction committed.
//! A state is used only when its seq equals the match row's seq, read under
//! the row lock, so another instance's appends or a rolled-back transaction
//! can never make it serve a stale or phantom state.

use posthorn_rules::MatchState;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use uuid::Uuid;

/// Entries kept; past this the cache starts over (cheap, and a miss only
/// costs one fold).
const CAPACITY: usize = 50_000;

type Cache = Mutex<HashMap<Uuid, (i32, MatchState)>>;

fn cache() -> &'static Cache {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// The state of `id` at exactly `seq`, if cached.
pub fn get(id: Uuid, seq: i32) -> Option<MatchState> {
    let cache = cache().lock().unwrap_or_else(|p| p.into_inner());
    cache
        .get(&id)
        .filter(|(s, _)| *s == seq)
        .map(|(_, state)| state.clone())
}

/// Remember a committed state of `id` at `seq`.
pub fn remember(id: Uuid, seq: i32, state: MatchState) {
    let mut cache = cache().lock().unwrap_or_else(|p| p.into_inner());
    if cache.len() >= CAPACITY && !cache.contains_key(&id) {
        cache.clear();
    }
    match cache.get(&id) {
        Some((known, _)) if *known > seq => {}
        _ => {
            cache.insert(id, (seq, state));
        }
    }
}

/// A committed state to remember once the transaction that made it is done.
pub struct Snapshot {
    pub id: Uuid,
    pub seq: i32,
    pub state: MatchState,
}

impl Snapshot {
    pub fn remember(self) {
        remember(self.id, self.seq, self.state);
    }
}
