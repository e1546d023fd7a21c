//! An account's email address: verifying it, and putting an old one back
//! (docs/decisions/accounts-and-sessions.md).

use super::rows::*;
use super::sessions::*;
use crate::error::Error;
use crate::limits::{self, Limit};
use crate::notify::account_mail::{self, AccountMail};
use crate::schema::users;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use uuid::Uuid;

/// Mail `address` the link that makes it `user`'s (docs/abuse.md, "Email
/// addresses"). If it is another account's verified address already, its
/// owner is told instead; either way the caller's answer is the same, so
/// nobody learns through sign-up or settings whether an address is
/// registered.
pub(super) fn ask_to_verify(
    conn: &mut PgConnection,
    user: Uuid,
    address: &str,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    let hit = limits::take(conn, Limit::VerificationMail, &user.to_string(), now)?;
    // Per recipient too, whichever accounts ask (docs/abuse.md, "Limits
    // that hold").
    limits::take(
        conn,
        Limit::VerificationMailTo,
        &address.to_lowercase(),
        now,
    )?;
    let (to, mail) = match verified_owner(conn, address)? {
        Some(owner) if owner != user => (owner, AccountMail::EmailInUse),
        _ => (user, AccountMail::VerifyEmail),
    };
    account_mail::enqueue(conn, to, mail, address, hit.serial(), now)
}

/// The account whose verified address `address` is.
pub fn verified_owner(conn: &mut PgConnection, address: &str) -> Result<Option<Uuid>, Error> {
    let lower_email = diesel::dsl::sql::<diesel::sql_types::Text>("lower(email)");
    Ok(users::table
        .filter(lower_email.eq(address.to_lowercase()))
        .select(users::id)
        .first(conn)
        .optional()?)
}

/// Open a verification link: the address becomes the account's own, if
/// the account still waits for that address and nobody else verified it
/// meanwhile.
///
/// The address it replaces, if any, is told
/// (docs/decisions/accounts-and-sessions.md, "My sessions and a changed
/// address"): whoever changed it may not be the account's owner.
pub fn verify_email(
    conn: &mut PgConnection,
    user: Uuid,
    address: &str,
    now: DateTime<Utc>,
) -> Result<String, Error> {
    let found: Option<(Option<String>, Option<String>)> = users::table
        .find(user)
        .select((users::email, users::email_pending))
        .for_update()
        .first(conn)
        .optional()?;
    let (old, pending) = found.unwrap_or_default();
    let waits = pending.is_some_and(|p| p.eq_ignore_ascii_case(address));
    if !waits {
        return Err(Error::not_found(
            "verification link (a newer address replaced it, or it was used)",
        ));
    }
    if verified_owner(conn, address)?.is_some_and(|owner| owner != user) {
        return Err(Error::conflict("this address belongs to another account"));
    }
    diesel::update(users::table.find(user))
        .set((
            users::email.eq(address),
            users::email_pending.eq(None::<String>),
        ))
        .execute(conn)
        .map_err(|e| taken(e, "email", "this address belongs to another account"))?;
    if let Some(old) = old.filter(|o| !o.eq_ignore_ascii_case(address)) {
        left_address(conn, user, &old, AccountMail::EmailChanged, now)?;
    }
    Ok(address.to_owned())
}

/// The verified address `old` left `user`'s account (replaced or
/// removed): it is told by `mail`, with a link that puts it back for a
/// week and ends every session (`email_undos`; docs/abuse.md, "Email
/// addresses").
pub(super) fn left_address(
    conn: &mut PgConnection,
    user: Uuid,
    old: &str,
    mail: AccountMail,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    let undo = crate::accounts::email_undos::record(conn, user, old, now)?;
    account_mail::enqueue_undo(conn, user, mail, old, undo, now)
}

/// Open the link that puts an old address back (`POST /v1/email-undos`):
/// the address is the account's verified one again, a newer one waiting
/// for its link is dropped, and every session ends (whoever changed the
/// address is out). Returns the address and the sessions ended. Refused
/// (409) when another account has verified that address meanwhile.
pub fn put_address_back(
    conn: &mut PgConnection,
    undo: Uuid,
    now: DateTime<Utc>,
) -> Result<(String, Vec<Uuid>), Error> {
    let (user, old) = crate::accounts::email_undos::spend(conn, undo, now)?;
    users::table
        .find(user)
        .select(users::id)
        .for_update()
        .first::<Uuid>(conn)?;
    if verified_owner(conn, &old)?.is_some_and(|owner| owner != user) {
        return Err(Error::conflict(
            "this address belongs to another account now",
        ));
    }
    diesel::update(users::table.find(user))
        .set((
            users::email.eq(&old),
            users::email_pending.eq(None::<String>),
        ))
        .execute(conn)
        .map_err(|e| taken(e, "email", "this address belongs to another account now"))?;
    Ok((old, end_sessions(conn, user, None, now)?))
}
