//! An account's standing with the moderators (docs/decisions/table-talk.md,
//! "Reports and moderators"): whether it is a moderator's, and whether a
//! moderator suspended it. Both are the account's own state, kept on its
//! row beside `deleted_at` (every way in reads them: `sessions`); the
//! moderation module decides when they change and asks for it here. A
//! talk mute is talk's (`talk::mute`).

use crate::error::Error;
use crate::schema::users;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use uuid::Uuid;

/// Whether `user` moderates table talk.
pub fn is_moderator(conn: &mut PgConnection, user: Uuid) -> Result<bool, Error> {
    Ok(users::table
        .find(user)
        .select(users::moderator)
        .first(conn)?)
}

/// Make `user` a moderator, or no longer one.
pub fn set_moderator(conn: &mut PgConnection, user: Uuid, on: bool) -> Result<(), Error> {
    diesel::update(users::table.find(user))
        .set(users::moderator.eq(on))
        .execute(conn)?;
    Ok(())
}

/// Suspend `user` from `now`; false if they were already.
pub fn suspend(conn: &mut PgConnection, user: Uuid, now: DateTime<Utc>) -> Result<bool, Error> {
    let updated = diesel::update(users::table.find(user))
        .filter(users::suspended_at.is_null())
        .set(users::suspended_at.eq(now))
        .execute(conn)?;
    Ok(updated == 1)
}

/// Lift `user`'s suspension; false if there was none.
pub fn unsuspend(conn: &mut PgConnection, user: Uuid) -> Result<bool, Error> {
    let updated = diesel::update(users::table.find(user))
        .filter(users::suspended_at.is_not_null())
        .set(users::suspended_at.eq(None::<DateTime<Utc>>))
        .execute(conn)?;
    Ok(updated == 1)
}
