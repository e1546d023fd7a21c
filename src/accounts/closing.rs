//! Closing an account (docs/decisions/accounts-and-sessions.md, "Deleting
//! an account"): the row's own part of a deletion, run last by
//! `deletion::delete_account` among the owners of a player's data. The row
//! stays, renamed `deleted-…`, because finished matches and opponents'
//! rating changes point at it: they read as a deleted player.

use crate::error::Error;
use crate::personal::{Exported, Leaving, Owner, Phase};
use crate::schema::{refresh_tokens, users};
use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use uuid::Uuid;

/// How long a deleted account's username stays held, so that nobody can
/// take it to pass for the player its opponents knew
/// (docs/decisions/accounts-and-sessions.md, "Deleting an account").
pub const NAME_HELD_DAYS: i64 = 365;

/// What a deleted player is shown as, in every language's absence (the
/// apps and the web client write their own words from `deleted: true`).
pub const SHOWN_AS: &str = "Deleted player";

/// The account row itself, and the sessions.
pub const ACCOUNT: Owner = Owner {
    module: "accounts",
    tables: &["users", "refresh_tokens"],
    phase: Phase::Erase,
    forget: erase,
    exported: Exported::In(&["profile", "sessions"]),
    kept: "the row, under a name that says nothing, because finished matches \
           and opponents' rating changes point at it; the username held a year \
           (a registered player's); the ended sessions' rows without their device",
};

/// Lock `user`'s row for its deletion: whether it is a guest's; an
/// account already deleted is refused.
pub fn lock_open(conn: &mut PgConnection, user: Uuid) -> Result<bool, Error> {
    users::table
        .find(user)
        .filter(users::deleted_at.is_null())
        .select(users::guest)
        .for_update()
        .first(conn)
        .optional()?
        .ok_or_else(|| Error::unauthorized("this account no longer exists"))
}

/// Every personal field of the row: it keeps only what finished matches
/// need to point at, under a name that says nothing. A registered
/// player's username stays held (its look-alike skeletons kept) for
/// [`NAME_HELD_DAYS`]; a guest's nickname was never held. Every session
/// ends, and what device each was goes.
fn erase(conn: &mut PgConnection, leaving: &mut Leaving<'_>) -> Result<(), Error> {
    let (user, now) = (leaving.user, leaving.now);
    let tombstone = format!("deleted-{}", &user.simple().to_string()[..16]);
    let held = (!leaving.guest).then(|| now + Duration::days(NAME_HELD_DAYS));
    diesel::update(users::table.find(user))
        .set((
            users::username.eq(&tombstone),
            users::display_name.eq(SHOWN_AS),
            users::email.eq(None::<String>),
            users::email_pending.eq(None::<String>),
            users::password_hash.eq(None::<String>),
            users::locale.eq("en"),
            users::time_zone.eq("UTC"),
            users::display_skeleton.eq(None::<String>),
            users::display_skeleton_cased.eq(None::<String>),
            users::deleted_at.eq(now),
            users::name_held_until.eq(held),
            users::moderator.eq(false),
        ))
        .execute(conn)?;
    if leaving.guest {
        release_name(conn, user, &tombstone)?;
    }
    leaving.sessions_ended = super::end_sessions(conn, user, None, now)?;
    diesel::update(refresh_tokens::table.filter(refresh_tokens::user_id.eq(user)))
        .set(refresh_tokens::device.eq(""))
        .execute(conn)?;
    Ok(())
}

/// The name's look-alike skeletons become the tombstone's: the name is
/// free for anyone.
fn release_name(conn: &mut PgConnection, user: Uuid, tombstone: &str) -> Result<(), Error> {
    diesel::update(users::table.find(user))
        .set((
            users::skeleton.eq(crate::names::skeleton(tombstone)),
            users::skeleton_cased.eq(crate::names::skeleton_cased(tombstone)),
            users::name_held_until.eq(None::<DateTime<Utc>>),
        ))
        .execute(conn)?;
    Ok(())
}

/// Free the usernames held past [`NAME_HELD_DAYS`] (the daily sweep);
/// how many.
pub fn release_held_names(conn: &mut PgConnection, now: DateTime<Utc>) -> Result<usize, Error> {
    let due: Vec<(Uuid, String)> = users::table
        .filter(users::name_held_until.le(now))
        .select((users::id, users::username))
        .limit(1_000)
        .load(conn)?;
    for (user, tombstone) in &due {
        release_name(conn, *user, tombstone)?;
    }
    Ok(due.len())
}
