//! Deleting an account (docs/decisions/accounts-and-sessions.md; what it
//! erases and keeps is docs/decisions/accounts-and-sessions.md "Deleting an
//! account", and the public page `/account-deletion`).
//!
//! One transaction, through the owners of the player's data
//! (`personal::Owner`), phase by phase: its tournaments are left and its
//! matches resigned first (the results count for opponents, as any
//! resignation does); then it leaves the leaderboards, its personal data
//! is erased, and every session ends. The
//! row itself stays, renamed `deleted-…`, because finished matches and
//! opponents' rating changes point at it: they read as a deleted player.

use crate::accounts;
use crate::error::Error;
use crate::personal::{Exported, Leaving, Owner, Phase};
use crate::schema::{refresh_tokens, users};
use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use posthorn_rules::Random;
use uuid::Uuid;

/// How long a deleted account's username stays held, so that nobody can
/// take it to pass for the player its opponents knew
/// (docs/decisions/accounts-and-sessions.md, "Deleting an account").
pub const NAME_HELD_DAYS: i64 = 365;

/// What a deleted player is shown as, in every language's absence (the
/// apps and the web client write their own words from `deleted: true`).
pub const SHOWN_AS: &str = "Deleted player";

/// Every owner of a player's data but those of play
/// ([`crate::leaving::PLAY`], which a suspension runs too), each declared
/// beside the code that writes its tables; forgetting runs them phase by
/// phase, in this order within a phase (the account row last). The export
/// holds what each says it does (`tests/service/personal_data.rs`).
pub const OWNERS: [Owner; 19] = [
    crate::ratings::board::PERSONAL,
    crate::matches::conditional::PERSONAL,
    crate::puzzles::history::PERSONAL,
    crate::lessons::PERSONAL,
    crate::talk::PERSONAL,
    crate::moderation::PERSONAL,
    crate::friends::PERSONAL,
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
    ACCOUNT,
];

/// The account row itself, and the sessions.
const ACCOUNT: Owner = Owner {
    module: "deletion",
    tables: &["users", "refresh_tokens"],
    phase: Phase::Erase,
    forget: erase,
    exported: Exported::In(&[
        "profile",
        "settings/challenges",
        "settings/vacation",
        "sessions",
    ]),
    kept: "the row, under a name that says nothing, because finished matches \
           and opponents' rating changes point at it; the username held a year \
           (a registered player's); the ended sessions' rows without their device",
};

/// Delete `user`'s account. Returns the sessions ended, whose access
/// tokens the caller stops (`revoked.rs`).
pub fn delete_account(
    conn: &mut PgConnection,
    user: Uuid,
    now: DateTime<Utc>,
    random: &mut dyn Random,
) -> Result<Vec<Uuid>, Error> {
    let guest: bool = users::table
        .find(user)
        .filter(users::deleted_at.is_null())
        .select(users::guest)
        .for_update()
        .first(conn)
        .optional()?
        .ok_or_else(|| Error::unauthorized("this account no longer exists"))?;
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
            users::auto_accept_friends.eq(false),
            users::auto_vacation.eq(false),
            users::vacation_since.eq(None::<DateTime<Utc>>),
            users::vacation_until.eq(None::<DateTime<Utc>>),
            users::vacation_paying_since.eq(None::<DateTime<Utc>>),
            users::address.eq(None::<String>),
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
    leaving.sessions_ended = accounts::end_sessions(conn, user, None, now)?;
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
