//! Accounts and sessions (API.md §Accounts): one use case per function,
//! each run inside one transaction.

use crate::auth::{self, Keys};
use crate::error::Error;
use crate::names;
use crate::schema::{login_failures, refresh_tokens, users};
use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// Failed logins allowed per account, and per address, in the window.
pub const LOGIN_FAILURES_PER_ACCOUNT: i64 = 10;
pub const LOGIN_FAILURES_PER_ADDRESS: i64 = 100;
pub const LOGIN_WINDOW_MINUTES: i64 = 15;

#[derive(Clone, Debug, Queryable, Selectable, Insertable)]
#[diesel(table_name = users)]
pub struct UserRow {
    pub id: Uuid,
    pub username: String,
    pub email: Option<String>,
    pub password_hash: Option<String>,
    pub display_name: String,
    pub guest: bool,
    pub locale: String,
    pub time_zone: String,
    pub created_at: DateTime<Utc>,
    /// What the username looks like (`names::skeleton`).
    pub skeleton: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct User {
    pub id: Uuid,
    pub username: String,
    pub display_name: String,
    pub guest: bool,
    pub locale: String,
    pub time_zone: String,
    pub created_at: DateTime<Utc>,
}

impl From<&UserRow> for User {
    fn from(u: &UserRow) -> User {
        User {
            id: u.id,
            username: u.username.clone(),
            display_name: u.display_name.clone(),
            guest: u.guest,
            locale: u.locale.clone(),
            time_zone: u.time_zone.clone(),
            created_at: u.created_at,
        }
    }
}

/// `GET /v1/me`: the user with the settings only they see.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Me {
    #[serde(flatten)]
    pub user: User,
    pub email: Option<String>,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Session {
    pub user: User,
    pub access_token: String,
    pub token_type: String,
    pub expires_in: i64,
    pub refresh_token: String,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Registration {
    #[schema(schema_with = crate::http::enforced::new_username)]
    pub username: String,
    #[schema(min_length = 8, max_length = 256)]
    pub password: String,
    #[schema(format = Email)]
    pub email: Option<String>,
    #[schema(pattern = "^[A-Za-z0-9-]{1,16}$", example = "ko-KR")]
    pub locale: Option<String>,
    #[schema(value_type = Option<crate::http::enforced::TimeZone>)]
    pub time_zone: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Login {
    /// Username or email.
    pub login: String,
    pub password: String,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Refresh {
    pub refresh_token: String,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct GuestRequest {
    #[schema(schema_with = crate::http::enforced::nickname)]
    pub nickname: String,
}

/// What a session is issued with.
pub struct Issuer {
    pub keys: std::sync::Arc<Keys>,
    pub now: DateTime<Utc>,
    pub access_seconds: i64,
    pub refresh_days: i64,
}

fn check_username(name: &str) -> Result<(), Error> {
    let ok_len = (3..=24).contains(&name.chars().count());
    let ok_chars = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !ok_len || !ok_chars {
        return Err(Error::validation(
            "a username has 3–24 characters: letters, digits, '_' and '-'",
        ));
    }
    if name.to_ascii_lowercase().starts_with("guest-") {
        return Err(Error::validation(
            "usernames starting with 'guest-' are for guests",
        ));
    }
    Ok(())
}

fn check_settings(locale: &str, time_zone: &str) -> Result<(), Error> {
    let tag = |c: char| c.is_ascii_alphanumeric() || c == '-';
    if locale.is_empty() || locale.len() > 16 || !locale.chars().all(tag) {
        return Err(Error::validation(
            "locale must be a language tag such as 'en' or 'ko-KR'",
        ));
    }
    if time_zone.parse::<chrono_tz::Tz>().is_err() {
        return Err(Error::validation(
            "time_zone must be an IANA name such as 'Asia/Seoul'",
        ));
    }
    Ok(())
}

/// A unique key already held is a 409 saying `what`; other errors pass.
fn taken(e: diesel::result::Error, what: &str) -> Error {
    if is_unique_violation(&e) {
        Error::conflict(what)
    } else {
        e.into()
    }
}

fn is_unique_violation(e: &diesel::result::Error) -> bool {
    matches!(
        e,
        diesel::result::Error::DatabaseError(diesel::result::DatabaseErrorKind::UniqueViolation, _)
    )
}

/// Start a new session (a new refresh-token family) for `user`.
fn open_session(
    conn: &mut PgConnection,
    user: &UserRow,
    issuer: &Issuer,
) -> Result<Session, Error> {
    issue_in_family(conn, user, Uuid::new_v4(), issuer)
}

fn issue_in_family(
    conn: &mut PgConnection,
    user: &UserRow,
    family: Uuid,
    issuer: &Issuer,
) -> Result<Session, Error> {
    let (token, hash) = auth::new_refresh_token();
    diesel::insert_into(refresh_tokens::table)
        .values((
            refresh_tokens::token_hash.eq(hash),
            refresh_tokens::user_id.eq(user.id),
            refresh_tokens::family.eq(family),
            refresh_tokens::created_at.eq(issuer.now),
            refresh_tokens::expires_at.eq(issuer.now + Duration::days(issuer.refresh_days)),
        ))
        .execute(conn)?;
    Ok(Session {
        user: User::from(user),
        access_token: issuer.keys.issue(
            user.id,
            user.guest,
            family,
            issuer.now,
            issuer.access_seconds,
        ),
        token_type: "Bearer".into(),
        expires_in: issuer.access_seconds,
        refresh_token: token,
    })
}

pub fn register(
    conn: &mut PgConnection,
    req: Registration,
    password_hash: String,
    issuer: &Issuer,
) -> Result<Session, Error> {
    check_username(&req.username)?;
    let locale = req.locale.unwrap_or_else(|| "en".into());
    let time_zone = req.time_zone.unwrap_or_else(|| "UTC".into());
    check_settings(&locale, &time_zone)?;
    let email = req.email.as_deref().map(names::email).transpose()?;
    let user = UserRow {
        skeleton: Some(names::skeleton(&req.username)),
        id: Uuid::new_v4(),
        display_name: req.username.clone(),
        username: req.username,
        email,
        password_hash: Some(password_hash),
        guest: false,
        locale,
        time_zone,
        created_at: issuer.now,
    };
    diesel::insert_into(users::table)
        .values(&user)
        .execute(conn)
        .map_err(|e| taken(e, "that username or email is already registered"))?;
    open_session(conn, &user, issuer)
}

/// Check a registration's password before the (slow) hash is computed.
pub fn check_password(password: &str) -> Result<(), Error> {
    if !(8..=256).contains(&password.chars().count()) {
        return Err(Error::validation("a password has 8–256 characters"));
    }
    Ok(())
}

pub fn find_login(conn: &mut PgConnection, login: &str) -> Result<Option<UserRow>, Error> {
    let login = login.trim().to_lowercase();
    let lower = diesel::dsl::sql::<diesel::sql_types::Text>("lower(username)");
    let lower_email = diesel::dsl::sql::<diesel::sql_types::Text>("lower(email)");
    Ok(users::table
        .filter(lower.eq(&login).or(lower_email.eq(&login)))
        .select(UserRow::as_select())
        .first(conn)
        .optional()?)
}

fn failures_since(conn: &mut PgConnection, key: &str, since: DateTime<Utc>) -> Result<i64, Error> {
    Ok(login_failures::table
        .filter(login_failures::key.eq(key))
        .filter(login_failures::at.gt(since))
        .count()
        .get_result(conn)?)
}

/// Refuse a login attempt when this account or address failed too often.
pub fn check_login_rate(
    conn: &mut PgConnection,
    login: &str,
    address: &str,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    let since = now - Duration::minutes(LOGIN_WINDOW_MINUTES);
    let account = failures_since(
        conn,
        &format!("account:{}", login.trim().to_lowercase()),
        since,
    )?;
    let from_address = failures_since(conn, &format!("address:{address}"), since)?;
    if account >= LOGIN_FAILURES_PER_ACCOUNT || from_address >= LOGIN_FAILURES_PER_ADDRESS {
        return Err(Error::rate_limited(format!(
            "too many failed sign-ins; try again in {LOGIN_WINDOW_MINUTES} minutes"
        )));
    }
    Ok(())
}

pub fn record_login_failure(
    conn: &mut PgConnection,
    login: &str,
    address: &str,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    let keys = [
        format!("account:{}", login.trim().to_lowercase()),
        format!("address:{address}"),
    ];
    for key in keys {
        diesel::insert_into(login_failures::table)
            .values((login_failures::key.eq(key), login_failures::at.eq(now)))
            .execute(conn)?;
    }
    Ok(())
}

pub fn login_succeeded(
    conn: &mut PgConnection,
    user: &UserRow,
    issuer: &Issuer,
) -> Result<Session, Error> {
    open_session(conn, user, issuer)
}

/// Rotate a refresh token. `Ok(Err(_))`: refused, but what was recorded
/// (a reused token revokes its family) must still be committed.
pub fn refresh(
    conn: &mut PgConnection,
    token: &str,
    issuer: &Issuer,
) -> Result<Result<Session, Error>, Error> {
    let refused = || Error::unauthorized("the refresh token is not valid; sign in again");
    let row = refresh_tokens::table
        .find(auth::hash_token(token))
        .select((
            refresh_tokens::token_hash,
            refresh_tokens::user_id,
            refresh_tokens::family,
            refresh_tokens::expires_at,
            refresh_tokens::spent_at,
            refresh_tokens::revoked_at,
        ))
        .for_update()
        .first::<(
            Vec<u8>,
            Uuid,
            Uuid,
            DateTime<Utc>,
            Option<DateTime<Utc>>,
            Option<DateTime<Utc>>,
        )>(conn)
        .optional()?;
    let Some((hash, user_id, family, expires_at, spent_at, revoked_at)) = row else {
        return Ok(Err(refused()));
    };
    if revoked_at.is_some() || expires_at <= issuer.now {
        return Ok(Err(refused()));
    }
    if spent_at.is_some() {
        // A spent token presented again: someone holds a copy. End the session.
        revoke_family(conn, family, issuer.now)?;
        return Ok(Err(refused()));
    }
    diesel::update(refresh_tokens::table.find(hash))
        .set(refresh_tokens::spent_at.eq(issuer.now))
        .execute(conn)?;
    let user = users::table
        .find(user_id)
        .select(UserRow::as_select())
        .first(conn)?;
    Ok(issue_in_family(conn, &user, family, issuer))
}

pub fn revoke_family(
    conn: &mut PgConnection,
    family: Uuid,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    diesel::update(refresh_tokens::table.filter(refresh_tokens::family.eq(family)))
        .filter(refresh_tokens::revoked_at.is_null())
        .set(refresh_tokens::revoked_at.eq(now))
        .execute(conn)?;
    Ok(())
}

pub fn create_guest(
    conn: &mut PgConnection,
    req: GuestRequest,
    issuer: &Issuer,
) -> Result<Session, Error> {
    let display_name = names::display_name(&req.nickname)?;
    names::check_not_confusable(conn, &display_name)?;
    let tag: String = auth::random_bytes::<5>()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let user = UserRow {
        id: Uuid::new_v4(),
        username: format!("guest-{tag}"),
        email: None,
        password_hash: None,
        skeleton: Some(names::skeleton(&display_name)),
        display_name,
        guest: true,
        locale: "en".into(),
        time_zone: "UTC".into(),
        created_at: issuer.now,
    };
    diesel::insert_into(users::table)
        .values(&user)
        .execute(conn)?;
    open_session(conn, &user, issuer)
}

/// `PATCH /v1/me`: the settings a user may change about their own account.
/// A field left out stays as it is; `email: null` removes the address.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MeChanges {
    #[schema(pattern = "^[A-Za-z0-9-]{1,16}$", example = "ko-KR")]
    pub locale: Option<String>,
    #[schema(value_type = Option<crate::http::enforced::TimeZone>)]
    pub time_zone: Option<String>,
    #[serde(default, deserialize_with = "present")]
    #[schema(format = Email, nullable)]
    pub email: Option<Option<String>>,
}

/// Tells `"email": null` (remove it) from a missing field (keep it).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

pub fn change_me(conn: &mut PgConnection, user_id: Uuid, changes: MeChanges) -> Result<Me, Error> {
    let current = me(conn, user_id)?;
    let locale = changes.locale.unwrap_or(current.user.locale);
    let time_zone = changes.time_zone.unwrap_or(current.user.time_zone);
    check_settings(&locale, &time_zone)?;
    let email = match changes.email {
        Some(Some(address)) => Some(names::email(&address)?),
        Some(None) => None,
        None => current.email,
    };
    diesel::update(users::table.find(user_id))
        .set((
            users::locale.eq(&locale),
            users::time_zone.eq(&time_zone),
            users::email.eq(&email),
        ))
        .execute(conn)
        .map_err(|e| taken(e, "that email is already registered"))?;
    me(conn, user_id)
}

pub fn me(conn: &mut PgConnection, user_id: Uuid) -> Result<Me, Error> {
    let user = users::table
        .find(user_id)
        .select(UserRow::as_select())
        .first(conn)
        .optional()?
        .ok_or_else(|| Error::unauthorized("this account no longer exists"))?;
    Ok(Me {
        user: User::from(&user),
        email: user.email,
    })
}
