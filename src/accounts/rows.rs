//! An account as the account family reads it: its row, its public
//! face, the answer of `GET /v1/me`, and the checks of a name and settings.

use crate::auth::Keys;
use crate::error::{Error, Rule};
use crate::schema::users;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

#[derive(Clone, Debug, Queryable, Selectable, Insertable)]
#[diesel(table_name = users)]
pub struct UserRow {
    pub id: Uuid,
    pub username: String,
    /// The verified address: the only one mailed, or signed in with.
    pub email: Option<String>,
    /// An address given but not yet verified: it receives only the link.
    pub email_pending: Option<String>,
    pub password_hash: Option<String>,
    pub display_name: String,
    pub guest: bool,
    pub locale: String,
    pub time_zone: String,
    pub created_at: DateTime<Utc>,
    /// What the username looks like (`names::skeleton`).
    pub skeleton: Option<String>,
    /// What it looks like as written (`names::skeleton_cased`).
    pub skeleton_cased: Option<String>,
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

/// Whether a player's opponents may ask them to take a move back (issue
/// #34): never, in unrated matches only (the default), or always. Against
/// the computer the person always may, without asking.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Takebacks {
    Never,
    #[default]
    Unrated,
    Always,
}

impl Takebacks {
    pub fn name(self) -> &'static str {
        match self {
            Takebacks::Never => "never",
            Takebacks::Unrated => "unrated",
            Takebacks::Always => "always",
        }
    }

    /// The setting stored as `name`; one that does not parse is an error,
    /// never the default (docs/architecture.md).
    pub fn parse(name: &str) -> Result<Takebacks, Error> {
        serde_json::from_value(serde_json::Value::String(name.to_owned()))
            .map_err(|_| Error::internal(format!("takeback setting {name:?} is unreadable")))
    }

    /// Whether a request may be put to a player with this setting in a
    /// match that is `rated` or not.
    pub fn allow(self, rated: bool) -> bool {
        match self {
            Takebacks::Never => false,
            Takebacks::Unrated => !rated,
            Takebacks::Always => true,
        }
    }

    /// A user's setting.
    pub fn of(conn: &mut PgConnection, user: Uuid) -> Result<Takebacks, Error> {
        let name: String = users::table
            .find(user)
            .select(users::takebacks)
            .first(conn)?;
        Takebacks::parse(&name)
    }
}

/// `GET /v1/me`: the user with the settings only they see.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Me {
    #[serde(flatten)]
    pub user: User,
    /// The verified address, where notifications go.
    pub email: Option<String>,
    /// An address waiting for its owner to open the link sent to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email_pending: Option<String>,
    /// Whether opponents may ask me to take a move back.
    pub takebacks: Takebacks,
    /// A moderator of table talk (granted by the binary's command, issue
    /// #50 item 6).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub moderator: bool,
}

/// What a session is issued with.
pub struct Issuer {
    pub keys: std::sync::Arc<Keys>,
    pub now: DateTime<Utc>,
    pub access_seconds: i64,
    pub refresh_days: i64,
    /// How long a just-rotated refresh token is still answered (with its
    /// successor) instead of being taken for a stolen copy.
    pub reuse_seconds: i64,
    /// The device the request comes from (`devices::label`), shown in my
    /// sessions (docs/decisions/accounts-and-sessions.md, "My sessions and
    /// a changed address").
    pub device: String,
}

pub(super) fn check_username(name: &str) -> Result<(), Error> {
    let ok_len = (3..=24).contains(&name.chars().count());
    let ok_chars = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !ok_len || !ok_chars {
        return Err(Error::validation(
            "a username has 3–24 characters: letters, digits, '_' and '-'",
        )
        .in_field("username", Rule::Form));
    }
    let lower = name.to_ascii_lowercase();
    if lower.starts_with("guest-") || lower.starts_with("deleted-") {
        return Err(Error::validation(
            "usernames starting with 'guest-' or 'deleted-' are kept for guests and deleted accounts",
        )
        .in_field("username", Rule::Reserved));
    }
    Ok(())
}

pub(super) fn check_settings(locale: &str, time_zone: &str) -> Result<(), Error> {
    let tag = |c: char| c.is_ascii_alphanumeric() || c == '-';
    if locale.is_empty() || locale.len() > 16 || !locale.chars().all(tag) {
        return Err(
            Error::validation("locale must be a language tag such as 'en' or 'ko-KR'")
                .in_field("locale", Rule::Form),
        );
    }
    if time_zone.parse::<chrono_tz::Tz>().is_err() {
        return Err(
            Error::validation("time_zone must be an IANA name such as 'Asia/Seoul'")
                .in_field("time_zone", Rule::Form),
        );
    }
    Ok(())
}

/// A unique key of `field` already held is a 409 saying `what`; other
/// errors pass.
pub(super) fn taken(e: diesel::result::Error, field: &'static str, what: &str) -> Error {
    if is_unique_violation(&e) {
        Error::conflict(what).in_field(field, Rule::Taken)
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

/// Whether `user` is a guest (a guest's address never resets anything).
pub fn is_guest(conn: &mut PgConnection, user: Uuid) -> Result<bool, Error> {
    Ok(users::table
        .find(user)
        .select(users::guest)
        .first::<bool>(conn)
        .optional()?
        .unwrap_or(false))
}

/// How `user` may prove again who they are: `(has a password, has a
/// linked identity)`.
pub fn ways_in(conn: &mut PgConnection, user: Uuid) -> Result<(bool, bool), Error> {
    let password = users::table
        .find(user)
        .select(users::password_hash.is_not_null())
        .first::<bool>(conn)
        .optional()?
        .ok_or_else(|| Error::unauthorized("this account no longer exists"))?;
    let identity = diesel::select(diesel::dsl::exists(
        crate::schema::identities::table.filter(crate::schema::identities::user_id.eq(user)),
    ))
    .get_result(conn)?;
    Ok((password, identity))
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
        email_pending: user.email_pending,
        takebacks: Takebacks::of(conn, user_id)?,
        moderator: users::table
            .find(user_id)
            .select(users::moderator)
            .first(conn)?,
    })
}
