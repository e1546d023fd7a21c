//! A player leaving play, deleted or suspended
//! (docs/decisions/accounts-and-sessions.md): their tournaments left,
//! their seeks and offers gone, challenges to them declined, the matches
//! waiting for them cancelled and every seat of theirs still playing
//! resigned, each through its owner's own use case, so that results,
//! ratings, notices and tournament advances follow as for anyone's.

use crate::error::Error;
use crate::personal::{Leaving, Owner};
use chrono::{DateTime, Utc};
use diesel::PgConnection;
use posthorn_rules::Random;
use uuid::Uuid;

/// The owners of play, in the order they are left: a tournament's
/// matches resign through the tournament (its pairings advance), the
/// lobby's waiting tables before the matches in play.
pub const PLAY: [Owner; 3] = [
    crate::tournaments::PERSONAL,
    crate::lobby::PERSONAL,
    crate::matches::resignations::PERSONAL,
];

/// Leave play as its owners say, in [`PLAY`]'s order.
pub fn leave_play(conn: &mut PgConnection, leaving: &mut Leaving<'_>) -> Result<(), Error> {
    for owner in &PLAY {
        (owner.forget)(conn, leaving)?;
    }
    Ok(())
}

/// A suspended account leaves play; the rest of its data stays.
pub fn suspended(
    conn: &mut PgConnection,
    user: Uuid,
    now: DateTime<Utc>,
    random: &mut dyn Random,
) -> Result<(), Error> {
    let mut leaving = Leaving {
        user,
        guest: false,
        now,
        random,
        sessions_ended: Vec::new(),
    };
    leave_play(conn, &mut leaving)
}
