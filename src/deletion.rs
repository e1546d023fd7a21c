//! Deleting an account (docs/decisions/accounts-and-sessions.md; what it
//! erases and keeps is docs/decisions/accounts-and-sessions.md "Deleting an
//! account", and the public page `/account-deletion`).
//!
//! One transaction, through the owners of the player's data
//! (`personal::Owner`), phase by phase: its tournaments are left and its
//! matches resigned first (the results count for opponents, as any
//! resignation does); then it leaves the leaderboards, its personal data
//! is erased, and last the account row is closed and every session ends
//! (`accounts::closing`).

use crate::error::Error;
use crate::personal::{Leaving, Owner, Phase};
use chrono::{DateTime, Utc};
use diesel::PgConnection;
use posthorn_rules::Random;
use uuid::Uuid;

/// Every owner of a player's data but those of play
/// ([`crate::leaving::PLAY`], which a suspension runs too), each declared
/// beside the code that writes its tables; forgetting runs them phase by
/// phase, in this order within a phase (the account row last). The export
/// holds what each says it does (`tests/service/personal_data.rs`).
pub const OWNERS: [Owner; 23] = [
    crate::sharing::PERSONAL,
    crate::coins::PERSONAL,
    crate::players::PERSONAL,
    crate::ratings::board::PERSONAL,
    crate::matches::conditional::PERSONAL,
    crate::puzzles::history::PERSONAL,
    crate::lessons::PERSONAL,
    crate::talk::PERSONAL,
    crate::moderation::PERSONAL,
    crate::friends::PERSONAL,
    crate::vacation::PERSONAL,
    crate::accounts::identities::PERSONAL,
    crate::accounts::email_undos::PERSONAL,
    crate::notify::PERSONAL,
    crate::notify::push::PERSONAL,
    crate::notify::native::devices::PERSONAL,
    crate::notify::at_table::PERSONAL,
    crate::notify::outbox::PERSONAL,
    crate::idempotency::PERSONAL,
    crate::accounts::password_resets::PERSONAL,
    crate::computer::budget::PERSONAL,
    crate::job_queue::PERSONAL,
    crate::accounts::closing::ACCOUNT,
];

/// Delete `user`'s account. Returns the sessions ended, whose access
/// tokens the caller stops (`revoked.rs`).
pub fn delete_account(
    conn: &mut PgConnection,
    user: Uuid,
    now: DateTime<Utc>,
    random: &mut dyn Random,
) -> Result<Vec<Uuid>, Error> {
    let guest = crate::accounts::closing::lock_open(conn, user)?;
    let mut leaving = Leaving {
        user,
        guest,
        now,
        random,
        sessions_ended: Vec::new(),
    };
    crate::leaving::leave_play(conn, &mut leaving)?;
    for phase in [Phase::Standings, Phase::Erase] {
        for owner in OWNERS.iter().filter(|o| o.phase == phase) {
            (owner.forget)(conn, &mut leaving)?;
        }
    }
    // The name shown changed with no event: no cached table may keep it.
    crate::matches::roster_changed(conn, user)?;
    Ok(leaving.sessions_ended)
}

/// Every owner of a player's data, those of play first.
pub fn owners() -> impl Iterator<Item = &'static Owner> {
    crate::leaving::PLAY.iter().chain(OWNERS.iter())
}
