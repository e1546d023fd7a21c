//! Guests: an account that lives on its device until it registers
//! (docs/decisions/accounts-and-sessions.md).

use super::addresses::*;
use super::rows::*;
use super::sessions::*;
use crate::auth::{self};
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
pub struct GuestRequest {
    #[schema(schema_with = crate::enforced::nickname)]
    pub nickname: String,
    /// The guest's language. Left out, the request's `Accept-Language`
    /// decides (Korean preferred: `ko`; anything else: `en`), so a guest
    /// from a link reads the game, and its refusals, in the browser's
    /// language (issue #47).
    #[schema(pattern = "^[A-Za-z0-9-]{1,16}$", example = "ko")]
    pub locale: Option<String>,
    /// The guest's time zone, as the browser or phone says it (issue #66:
    /// quiet hours, the digest, the morning puzzle and the puzzle day are
    /// read in it). Left out: UTC, until a client sends one.
    #[schema(value_type = Option<crate::enforced::TimeZone>)]
    pub time_zone: Option<String>,
}

/// `POST /v1/me/registration`: a guest becomes a registered player, the
/// same account (issue #47).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Upgrade {
    #[schema(schema_with = crate::enforced::new_username)]
    pub username: String,
    /// How the account signs in from now on: a password, or `identity`
    /// (exactly one of them).
    #[schema(min_length = 8, max_length = 256)]
    pub password: Option<String>,
    /// Google or Apple, instead of a password (issue #47).
    pub identity: Option<IdentityProof>,
    /// Waits for its verification link, as at sign-up.
    #[schema(format = Email)]
    pub email: Option<String>,
    /// The name others see; left out, the guest's nickname is kept.
    #[schema(schema_with = crate::enforced::nickname_optional)]
    pub display_name: Option<String>,
}

/// A guest account. `browser_locale` is the language the request's
/// `Accept-Language` prefers, taken when the body names none.
pub fn create_guest(
    conn: &mut PgConnection,
    req: GuestRequest,
    browser_locale: &str,
    origin: &Origin,
    issuer: &Issuer,
) -> Result<Session, Error> {
    let locale = req.locale.unwrap_or_else(|| browser_locale.to_owned());
    let time_zone = req.time_zone.unwrap_or_else(|| "UTC".into());
    check_settings(&locale, &time_zone)?;
    let display_name =
        names::display_name(&req.nickname).map_err(|e| e.in_field("nickname", Rule::Form))?;
    names::check_not_confusable(conn, &display_name, "nickname", None)?;
    limits::take_from(conn, Limit::GuestFromAddress, origin, issuer.now)?;
    let tag: String = auth::random_bytes::<5>()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let user = UserRow {
        id: Uuid::new_v4(),
        username: format!("guest-{tag}"),
        email: None,
        email_pending: None,
        password_hash: None,
        skeleton: Some(names::skeleton(&display_name)),
        skeleton_cased: Some(names::skeleton_cased(&display_name)),
        display_name,
        guest: true,
        locale,
        time_zone,
        created_at: issuer.now,
    };
    diesel::insert_into(users::table)
        .values(&user)
        .execute(conn)?;
    open_session(conn, &user, issuer)
}

/// A guest becomes a registered player
/// (docs/decisions/accounts-and-sessions.md, "Guests are never lost"): the
/// guest's own row takes the username, password and email, so every match,
/// rating and friend stays where it is (the same id). Judged as a sign-up
/// is: the username's form, look-alikes and computers' names, the email's
/// form and its verification link, sign-ups per address. The nickname kept
/// (or the one given) is judged again, since a registered player may have
/// taken a name like it meanwhile. Every guest session ends (a guest has
/// no other way in than the one session it was given) and the answer is
/// the first session of the registered account, whose token says
/// `guest: false`. A registered account is refused (409), and so is the
/// second of two registrations of one guest (the row is locked).
///
/// Signing in with Google or Apple
/// (docs/decisions/accounts-and-sessions.md, "Google and Apple") plugs in
/// here as another way to upgrade: the identity linked instead of a
/// password.
pub fn upgrade(
    conn: &mut PgConnection,
    user_id: Uuid,
    req: Upgrade,
    password_hash: Option<String>,
    origin: &Origin,
    issuer: &Issuer,
) -> Result<(Session, Vec<Uuid>), Error> {
    let current = users::table
        .find(user_id)
        .select(UserRow::as_select())
        .for_update()
        .first(conn)
        .optional()?
        .ok_or_else(|| Error::unauthorized("this account no longer exists"))?;
    if !current.guest {
        return Err(Error::conflict(
            "this account is registered already; only a guest account can be registered",
        ));
    }
    check_username(&req.username)?;
    let email = req.email.as_deref().map(names::email).transpose()?;
    let display_name = match &req.display_name {
        Some(given) => {
            names::display_name(given).map_err(|e| e.in_field("display_name", Rule::Form))?
        }
        None => current.display_name.clone(),
    };
    names::check_registrable(conn, &req.username)?;
    // The guest's own row is a guest's until the update below, so it is
    // never its own look-alike.
    names::check_not_confusable(conn, &display_name, "display_name", None)?;
    limits::take_from(conn, Limit::SignUpFromAddress, origin, issuer.now)?;
    let shown_apart = !display_name.eq_ignore_ascii_case(&req.username);
    let display_skeletons = shown_apart.then(|| {
        (
            names::skeleton(&display_name),
            names::skeleton_cased(&display_name),
        )
    });
    let user = UserRow {
        skeleton: Some(names::skeleton(&req.username)),
        skeleton_cased: Some(names::skeleton_cased(&req.username)),
        username: req.username,
        email: None,
        email_pending: email.clone(),
        password_hash,
        display_name,
        guest: false,
        ..current
    };
    diesel::update(users::table.find(user_id))
        .set((
            users::username.eq(&user.username),
            users::email_pending.eq(&user.email_pending),
            users::password_hash.eq(&user.password_hash),
            users::display_name.eq(&user.display_name),
            users::guest.eq(false),
            users::skeleton.eq(&user.skeleton),
            users::skeleton_cased.eq(&user.skeleton_cased),
            users::display_skeleton.eq(display_skeletons.as_ref().map(|(f, _)| f)),
            users::display_skeleton_cased.eq(display_skeletons.as_ref().map(|(_, c)| c)),
        ))
        .execute(conn)
        .map_err(|e| taken(e, "username", "that username is already registered"))?;
    if let Some(address) = &email {
        ask_to_verify(conn, user.id, address, issuer.now)?;
    }
    let ended = end_sessions(conn, user.id, None, issuer.now)?;
    Ok((open_session(conn, &user, issuer)?, ended))
}

/// What a guest giving an address through settings is told (docs/abuse.md,
/// "Email addresses": a guest's verified address would reset a password it
/// never had).
pub fn guest_address() -> Error {
    Error::forbidden("a guest gives an email address when registering (POST /v1/me/registration)")
        .in_field("email", Rule::Reserved)
}
