//! Passwords: checked, changed, reset.

use super::rows::*;
use super::sessions::*;
use crate::error::{Error, Rule};
use crate::schema::users;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use serde::Deserialize;
use utoipa::ToSchema;
use uuid::Uuid;

/// Check a new password, the request's `field`, before the (slow) hash
/// is computed.
pub fn check_password(field: &'static str, password: &str) -> Result<(), Error> {
    if !(8..=256).contains(&password.chars().count()) {
        return Err(
            Error::validation("a password has 8–256 characters").in_field(field, Rule::Form)
        );
    }
    Ok(())
}

/// `POST /v1/me/password`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PasswordChange {
    pub current_password: String,
    #[schema(min_length = 8, max_length = 256)]
    pub new_password: String,
}

/// The password hash of a registered account (guests have none).
pub fn password_of(conn: &mut PgConnection, user: Uuid) -> Result<UserRow, Error> {
    let row = users::table
        .find(user)
        .select(UserRow::as_select())
        .first(conn)
        .optional()?
        .ok_or_else(|| Error::unauthorized("this account no longer exists"))?;
    if row.password_hash.is_none() {
        return Err(Error::forbidden(if row.guest {
            "guests have no password: sign up first"
        } else {
            "this account signs in with Google or Apple and has no password; a password reset link sets one"
        }));
    }
    Ok(row)
}

/// Store a new password and end every other session of the account.
pub fn change_password(
    conn: &mut PgConnection,
    user: Uuid,
    new_hash: String,
    keep: Uuid,
    now: DateTime<Utc>,
) -> Result<Vec<Uuid>, Error> {
    diesel::update(users::table.find(user))
        .set(users::password_hash.eq(new_hash))
        .execute(conn)?;
    end_sessions(conn, user, Some(keep), now)
}

/// A forgotten password set from a reset link (docs/abuse.md, "Forgotten
/// passwords"): store it, end every session of the account (whoever knew
/// the old password is out), and open one for the person who just proved
/// they read its mail. Returns the new session and those ended.
pub fn reset_password(
    conn: &mut PgConnection,
    user: Uuid,
    new_hash: String,
    issuer: &Issuer,
) -> Result<(Session, Vec<Uuid>), Error> {
    let row = diesel::update(users::table.find(user))
        .set(users::password_hash.eq(new_hash))
        .returning(UserRow::as_returning())
        .get_result(conn)?;
    let ended = end_sessions(conn, user, None, issuer.now)?;
    Ok((open_session(conn, &row, issuer)?, ended))
}
