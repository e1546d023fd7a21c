//! Putting an address back (docs/decisions/accounts-and-sessions.md,
//! "Changing the address"): when an account's verified address is replaced
//! or removed, the old address is mailed a link that puts it back and ends
//! every session, for [`VALID_DAYS`]. Whoever took a session and changed
//! the address (after giving the password, or a fresh sign-in) is undone by
//! the owner, who still reads the old mailbox. While such a link is open no
//! password reset is mailed (`password_resets`), so the new address cannot
//! be used to take the password in the meantime.
//!
//! The link's token is the record's id with its MAC (`Keys::undo_token`):
//! nothing secret is stored.

use crate::error::Error;
use crate::personal::{Exported, Leaving, Owner};
use crate::schema::email_undos;
use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use uuid::Uuid;

/// How long the old address can put itself back: a week, long enough for
/// someone who reads mail now and then.
pub const VALID_DAYS: i64 = 7;

/// Record that `user`'s verified address `old` is gone; the id names the
/// link mailed to `old`.
pub fn record(
    conn: &mut PgConnection,
    user: Uuid,
    old: &str,
    now: DateTime<Utc>,
) -> Result<Uuid, Error> {
    let id = Uuid::new_v4();
    diesel::insert_into(email_undos::table)
        .values((
            email_undos::id.eq(id),
            email_undos::user_id.eq(user),
            email_undos::old_email.eq(old),
            email_undos::created_at.eq(now),
            email_undos::expires_at.eq(now + Duration::days(VALID_DAYS)),
        ))
        .execute(conn)?;
    Ok(id)
}

/// Whether `user` has a link open that puts an address back.
pub fn open_for(conn: &mut PgConnection, user: Uuid, now: DateTime<Utc>) -> Result<bool, Error> {
    Ok(diesel::select(diesel::dsl::exists(
        email_undos::table
            .filter(email_undos::user_id.eq(user))
            .filter(email_undos::used_at.is_null())
            .filter(email_undos::expires_at.gt(now)),
    ))
    .get_result(conn)?)
}

/// Spend the link `id`: the account and the address it puts back, or
/// 404 when it was used, has expired or never was. Every other open link
/// of the account is spent with it (one undo puts the account back).
pub fn spend(
    conn: &mut PgConnection,
    id: Uuid,
    now: DateTime<Utc>,
) -> Result<(Uuid, String), Error> {
    let found: Option<(Uuid, String)> = email_undos::table
        .find(id)
        .filter(email_undos::used_at.is_null())
        .filter(email_undos::expires_at.gt(now))
        .select((email_undos::user_id, email_undos::old_email))
        .for_update()
        .first(conn)
        .optional()?;
    let (user, old) = found.ok_or_else(|| {
        Error::not_found("address link (it was used, or is more than 7 days old)")
    })?;
    diesel::update(email_undos::table)
        .filter(email_undos::user_id.eq(user))
        .filter(email_undos::used_at.is_null())
        .set(email_undos::used_at.eq(now))
        .execute(conn)?;
    Ok((user, old))
}

/// An address that left my account and may still be put back.
#[derive(Debug, Queryable, serde::Serialize, utoipa::ToSchema)]
pub struct AddressLeft {
    pub email: String,
    pub left_at: DateTime<Utc>,
    /// Until when its link works.
    pub until: DateTime<Utc>,
}

/// The addresses `user` may still put back, for the export.
pub fn export(conn: &mut PgConnection, user: Uuid) -> Result<Vec<AddressLeft>, Error> {
    Ok(email_undos::table
        .filter(email_undos::user_id.eq(user))
        .filter(email_undos::used_at.is_null())
        .order(email_undos::created_at.desc())
        .select((
            email_undos::old_email,
            email_undos::created_at,
            email_undos::expires_at,
        ))
        .load(conn)?)
}

/// Forget links a day past their end (the sweep).
pub fn forget_old(conn: &mut PgConnection, now: DateTime<Utc>) -> Result<usize, Error> {
    Ok(diesel::delete(
        email_undos::table.filter(email_undos::expires_at.lt(now - Duration::days(1))),
    )
    .execute(conn)?)
}

/// The links that put an old address back go with the account.
pub const PERSONAL: Owner = Owner::erasing(
    "email_undos",
    &["email_undos"],
    forget,
    Exported::In(&["addresses_left"]),
);

fn forget(conn: &mut PgConnection, leaving: &mut Leaving<'_>) -> Result<(), Error> {
    diesel::delete(email_undos::table.filter(email_undos::user_id.eq(leaving.user)))
        .execute(conn)?;
    Ok(())
}
