//! Registering an account (docs/api.md §Accounts).

use super::addresses::*;
use super::rows::*;
use super::sessions::*;
use crate::error::{Error, Rule};
use crate::limits::{self, Limit, Origin};
use crate::names;
use crate::schema::users;
use diesel::prelude::*;
use diesel::PgConnection;
use serde::Deserialize;
use utoipa::ToSchema;
use uuid::Uuid;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Registration {
    #[schema(schema_with = crate::enforced::new_username)]
    pub username: String,
    #[schema(min_length = 8, max_length = 256)]
    pub password: String,
    #[schema(format = Email)]
    pub email: Option<String>,
    #[schema(pattern = "^[A-Za-z0-9-]{1,16}$", example = "ko-KR")]
    pub locale: Option<String>,
    #[schema(value_type = Option<crate::enforced::TimeZone>)]
    pub time_zone: Option<String>,
    /// The name others see (닉네임), any script; left out, the username
    /// (docs/decisions/accounts-and-sessions.md, "Everyone's clock,
    /// everyone's name"). Judged as a nickname is: its characters,
    /// look-alikes of registered players, computers' names.
    #[schema(schema_with = crate::enforced::nickname_optional)]
    pub display_name: Option<String>,
}

pub fn register(
    conn: &mut PgConnection,
    req: Registration,
    password_hash: String,
    origin: &Origin,
    issuer: &Issuer,
) -> Result<Session, Error> {
    let new = NewAccount {
        username: req.username,
        password_hash: Some(password_hash),
        email_pending: req.email.as_deref().map(names::email).transpose()?,
        email: None,
        locale: req.locale,
        time_zone: req.time_zone,
        display_name: req.display_name,
    };
    Ok(create(conn, new, origin, issuer)?.1)
}

/// A new registered account, however it proves who it is: a password, or
/// an identity at Google or Apple (`identities`;
/// docs/decisions/accounts-and-sessions.md, "Google and Apple").
pub struct NewAccount {
    pub username: String,
    pub password_hash: Option<String>,
    /// An address given: it waits for its verification link.
    pub email_pending: Option<String>,
    /// An address its provider verified: the account's at once, unless
    /// another account has it.
    pub email: Option<String>,
    pub locale: Option<String>,
    pub time_zone: Option<String>,
    /// The name others see, when not the username.
    pub display_name: Option<String>,
}

/// Create a registered account and its first session, judged as every
/// sign-up is: the username's form, look-alikes and computers' names, the
/// settings, sign-ups per address.
pub fn create(
    conn: &mut PgConnection,
    new: NewAccount,
    origin: &Origin,
    issuer: &Issuer,
) -> Result<(Uuid, Session), Error> {
    check_username(&new.username)?;
    let locale = new.locale.unwrap_or_else(|| "en".into());
    let time_zone = new.time_zone.unwrap_or_else(|| "UTC".into());
    check_settings(&locale, &time_zone)?;
    let display_name = match &new.display_name {
        Some(given) => {
            names::display_name(given).map_err(|e| e.in_field("display_name", Rule::Form))?
        }
        None => new.username.clone(),
    };
    names::check_registrable(conn, &new.username)?;
    if new.display_name.is_some() {
        names::check_not_confusable(conn, &display_name, "display_name", None)?;
    }
    // After the checks, so a refused name costs nothing; a name taken at
    // the insert below rolls the hit back with the transaction.
    limits::take_from(conn, Limit::SignUpFromAddress, origin, issuer.now)?;
    let email = match new.email {
        Some(verified) if verified_owner(conn, &verified)?.is_none() => Some(verified),
        _ => None,
    };
    let user = UserRow {
        email,
        email_pending: new.email_pending.clone(),
        skeleton: Some(names::skeleton(&new.username)),
        skeleton_cased: Some(names::skeleton_cased(&new.username)),
        id: Uuid::new_v4(),
        display_name,
        username: new.username,
        password_hash: new.password_hash,
        guest: false,
        locale,
        time_zone,
        created_at: issuer.now,
    };
    diesel::insert_into(users::table)
        .values(&user)
        .execute(conn)
        .map_err(|e| taken(e, "username", "that username is already registered"))?;
    if new.display_name.is_some() {
        set_display_skeletons(conn, user.id, &user.username, &user.display_name)?;
    }
    if let Some(address) = &new.email_pending {
        ask_to_verify(conn, user.id, address, issuer.now)?;
    }
    Ok((user.id, open_session(conn, &user, issuer)?))
}

/// Keep the look of a display name shown apart from the username, so
/// that no one registers a look-alike of it (`names::look_alike`).
pub(super) fn set_display_skeletons(
    conn: &mut PgConnection,
    user: Uuid,
    username: &str,
    display_name: &str,
) -> Result<(), Error> {
    let apart = !display_name.eq_ignore_ascii_case(username);
    let looks = apart.then(|| {
        (
            names::skeleton(display_name),
            names::skeleton_cased(display_name),
        )
    });
    diesel::update(users::table.find(user))
        .set((
            users::display_name.eq(display_name),
            users::display_skeleton.eq(looks.as_ref().map(|(f, _)| f)),
            users::display_skeleton_cased.eq(looks.as_ref().map(|(_, c)| c)),
        ))
        .execute(conn)?;
    Ok(())
}
