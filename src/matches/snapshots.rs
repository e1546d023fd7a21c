//! A process-wide cache of committed matches — folded state, seats and
//! players — keyed by match and seq (docs/design.md §3: "a cached snapshot may
//! shortcut the fold").
//!
//! Only committed states go in: those built from rows read outside a
//! transaction, and those a handler reports after its transaction
//! committed (a table read inside a transaction may hold that
//! transaction's own writes, which a rollback would make a phantom).
//! A snapshot is used only when its seq equals the match row's seq, read
//! under the row lock, so another instance's appends or a rolled-back
//! transaction can never make it serve a stale or phantom state. Seats
//! change only together with an event, so the seq covers them too; a
//! seated player's name changes without one, so the row's `roster` moves
//! then ([`super::roster_changed`]) and is part of the key.

use crate::players::Player;
use posthorn_rules::MatchState;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use uuid::Uuid;

/// Entries kept; past this the cache starts over (cheap, and a miss only
/// costs one fold).
const CAPACITY: usize = 50_000;

type Cache = Mutex<HashMap<Uuid, Snapshot>>;

fn cache() -> &'static Cache {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// A committed match at one seq.
#[derive(Clone)]
pub struct Snapshot {
    pub id: Uuid,
    pub seq: i32,
    pub roster: i32,
    pub state: MatchState,
    pub seats: Vec<Option<Uuid>>,
    pub players: HashMap<Uuid, Player>,
    pub takeback: Option<Option<(posthorn_rules::Seat, i32)>>,
}

/// The match `id` at exactly `seq` and `roster`, if cached.
pub fn get(id: Uuid, seq: i32, roster: i32) -> Option<Snapshot> {
    let cache = cache().lock().unwrap_or_else(|p| p.into_inner());
    (cache.get(&id))
        .filter(|s| (s.seq, s.roster) == (seq, roster))
        .cloned()
}

impl Snapshot {
    /// Remember this committed snapshot (a newer one already known wins).
    pub fn remember(self) {
        let mut cache = cache().lock().unwrap_or_else(|p| p.into_inner());
        if cache.len() >= CAPACITY && !cache.contains_key(&self.id) {
            cache.clear();
        }
        if cache
            .get(&self.id)
            .is_none_or(|known| (known.seq, known.roster) <= (self.seq, self.roster))
        {
            cache.insert(self.id, self);
        }
    }
}
