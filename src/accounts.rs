//! Accounts and sessions (docs/api.md §Accounts): one use case per function,
//! each run inside one transaction.

use crate::auth::{self, Keys};
use crate::error::{Error, Rule};
use crate::limits::{self, Limit, Origin};
use crate::names;
use crate::notify::account_mail::{self, AccountMail};
use crate::schema::{refresh_tokens, users};
use chrono::{DateTime, Duration, Utc};
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
    /// never the default (issue #48).
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
    /// (issue #66). Judged as a nickname is: its characters, look-alikes
    /// of registered players, computers' names.
    #[schema(schema_with = crate::enforced::nickname_optional)]
    pub display_name: Option<String>,
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

/// A Google or Apple `id_token` (issue #47): from the provider's SDK in
/// the apps, or its sign-in page in the web client, asked for with a
/// nonce of `POST /v1/sessions/nonce`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct IdentityProof {
    pub provider: crate::config::Provider,
    #[schema(min_length = 1, max_length = 8192)]
    pub id_token: String,
    /// The nonce the token was asked for with, as the service issued it
    /// (the token may carry it, or its SHA-256 in hex, as Apple's SDK
    /// does).
    #[schema(min_length = 1, max_length = 128)]
    pub nonce: String,
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
    /// sessions (issue #47).
    pub device: String,
}

fn check_username(name: &str) -> Result<(), Error> {
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

fn check_settings(locale: &str, time_zone: &str) -> Result<(), Error> {
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
fn taken(e: diesel::result::Error, field: &'static str, what: &str) -> Error {
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

/// Start a new session (a new refresh-token family) for `user`.
fn open_session(
    conn: &mut PgConnection,
    user: &UserRow,
    issuer: &Issuer,
) -> Result<Session, Error> {
    not_suspended(conn, user.id)?;
    let (token, _) = auth::new_refresh_token();
    let family = Uuid::new_v4();
    store_refresh_token(conn, user.id, family, &token, issuer)?;
    Ok(session_with(user, family, token, issuer))
}

/// Every way in (a new session, a refresh) asks this first: a suspended
/// account has none (issue #50 item 6). Read under a share lock, a
/// suspension beside it either committed first (and is seen) or waits
/// for this transaction (and then ends the session it opens or renews).
fn not_suspended(conn: &mut PgConnection, user: Uuid) -> Result<(), Error> {
    let suspended: Option<DateTime<Utc>> = users::table
        .find(user)
        .select(users::suspended_at)
        .for_share()
        .first(conn)?;
    match suspended {
        Some(_) => Err(Error::Suspended(
            "a moderator suspended this account".into(),
        )),
        None => Ok(()),
    }
}

/// Start a new session for the account `user` (signed in another way
/// than a password: `identities`). A deleted account has none.
pub fn open_session_of(
    conn: &mut PgConnection,
    user: Uuid,
    issuer: &Issuer,
) -> Result<Session, Error> {
    // Read under a share lock: a deletion running beside this sign-in
    // either finishes first (and is seen) or waits for it (and ends it).
    let row = users::table
        .find(user)
        .filter(users::deleted_at.is_null())
        .select(UserRow::as_select())
        .for_share()
        .first(conn)
        .optional()?
        .ok_or_else(|| Error::unauthorized("this account was deleted"))?;
    open_session(conn, &row, issuer)
}

fn store_refresh_token(
    conn: &mut PgConnection,
    user: Uuid,
    family: Uuid,
    token: &str,
    issuer: &Issuer,
) -> Result<(), Error> {
    diesel::insert_into(refresh_tokens::table)
        .values((
            refresh_tokens::token_hash.eq(auth::hash_token(token)),
            refresh_tokens::user_id.eq(user),
            refresh_tokens::family.eq(family),
            refresh_tokens::created_at.eq(issuer.now),
            refresh_tokens::expires_at.eq(issuer.now + Duration::days(issuer.refresh_days)),
            refresh_tokens::device.eq(&issuer.device),
        ))
        .execute(conn)?;
    Ok(())
}

/// A new access token for `family`, beside its refresh token `token`.
fn session_with(user: &UserRow, family: Uuid, token: String, issuer: &Issuer) -> Session {
    Session {
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
    }
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
/// an identity at Google or Apple (`identities`, issue #47).
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
fn set_display_skeletons(
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

/// Mail `address` the link that makes it `user`'s (issue #30). If it is
/// another account's verified address already, its owner is told instead;
/// either way the caller's answer is the same, so nobody learns through
/// sign-up or settings whether an address is registered.
fn ask_to_verify(
    conn: &mut PgConnection,
    user: Uuid,
    address: &str,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    let hit = limits::take(conn, Limit::VerificationMail, &user.to_string(), now)?;
    // Per recipient too, whichever accounts ask (issue #65 item 4).
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
/// The address it replaces, if any, is told (issue #47): whoever changed
/// it may not be the account's owner.
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
/// week and ends every session (issue #65 item 1, `email_undos`).
fn left_address(
    conn: &mut PgConnection,
    user: Uuid,
    old: &str,
    mail: AccountMail,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    let undo = crate::email_undos::record(conn, user, old, now)?;
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
    let (user, old) = crate::email_undos::spend(conn, undo, now)?;
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

/// Before a password is checked: find the account and count the attempt
/// as a failure against its limits (`limits.rs`: per account and address,
/// per account, per address), refusing once any is spent. The account is
/// keyed by its id, so its username and email share one count; a login
/// that names nobody is keyed by the name given.
pub fn start_sign_in(
    conn: &mut PgConnection,
    login: &str,
    address: &str,
    now: DateTime<Utc>,
) -> Result<(Option<UserRow>, Vec<limits::Hit>), Error> {
    let user = find_login(conn, login)?;
    let account = match &user {
        Some(u) => u.id.to_string(),
        None => format!("name:{}", login.trim().to_lowercase()),
    };
    let pair = format!("{account}@{address}");
    let hits = limits::take_all(
        conn,
        &[
            (Limit::SignInAccountAddress, &pair),
            (Limit::SignInAccount, &account),
            (Limit::SignInAddress, address),
        ],
        now,
    )?;
    Ok((user, hits))
}

/// The password was right: the attempt counts for nothing.
pub fn login_succeeded(
    conn: &mut PgConnection,
    user: &UserRow,
    attempt: &[limits::Hit],
    issuer: &Issuer,
) -> Result<Session, Error> {
    limits::forgive(conn, attempt)?;
    // The password was checked outside this transaction: the account may
    // have been deleted, or its password changed, meanwhile. Read under a
    // share lock, a deletion beside this either finished (and is seen) or
    // waits for it (and ends the session it opens).
    let still: Option<Option<String>> = users::table
        .find(user.id)
        .filter(users::deleted_at.is_null())
        .select(users::password_hash)
        .for_share()
        .first(conn)
        .optional()?;
    if still.as_ref() != Some(&user.password_hash) {
        return Err(Error::unauthorized("wrong username or password"));
    }
    open_session(conn, user, issuer)
}

/// What [`refresh`] decided.
#[derive(Debug)]
pub enum Refreshed {
    Session(Session),
    /// Refused. `ended` is the session this refusal ended (a spent token
    /// presented after the reuse interval), whose access tokens must stop
    /// too; it must be committed although the request is refused.
    Refused {
        ended: Option<Uuid>,
    },
}

/// How many rotations a repeated token is followed through within the
/// reuse interval (a client that refreshed again meanwhile) before it is
/// refused; more in one interval is no browser's race.
const MAX_LINKS: usize = 4;

/// Rotate a refresh token: its successor is derived from it
/// (`Keys::successor_token`). The same token presented again within
/// `issuer.reuse_seconds` of its rotation (two reads of one page, or two
/// tabs, refreshing at once) is answered with that same successor and a
/// fresh access token, so every racer ends up holding the one live token
/// of the session; after the interval it is taken for a stolen copy and
/// the session ends.
pub fn refresh(conn: &mut PgConnection, token: &str, issuer: &Issuer) -> Result<Refreshed, Error> {
    let reuse_since = issuer.now - Duration::seconds(issuer.reuse_seconds);
    let mut presented = token.to_owned();
    for link in 0..=MAX_LINKS {
        let row = refresh_tokens::table
            .find(auth::hash_token(&presented))
            .select((
                refresh_tokens::user_id,
                refresh_tokens::family,
                refresh_tokens::expires_at,
                refresh_tokens::spent_at,
                refresh_tokens::revoked_at,
            ))
            // Racers on one token wait here for the first to commit its
            // rotation, then find the token spent and its successor stored.
            .for_update()
            .first::<(
                Uuid,
                Uuid,
                DateTime<Utc>,
                Option<DateTime<Utc>>,
                Option<DateTime<Utc>>,
            )>(conn)
            .optional()?;
        let Some((user_id, family, expires_at, spent_at, revoked_at)) = row else {
            return Ok(Refreshed::Refused { ended: None });
        };
        if revoked_at.is_some() || expires_at <= issuer.now {
            return Ok(Refreshed::Refused { ended: None });
        }
        match spent_at {
            Some(spent) if spent > reuse_since => {
                // Rotated moments ago: answer as its successor would be.
                presented = issuer.keys.successor_token(&presented);
                continue;
            }
            Some(_) => {
                // A spent token presented again: someone holds a copy.
                revoke_family(conn, family, issuer.now)?;
                return Ok(Refreshed::Refused {
                    ended: Some(family),
                });
            }
            None => {}
        }
        not_suspended(conn, user_id)?;
        let user = users::table
            .find(user_id)
            .select(UserRow::as_select())
            .first(conn)?;
        if link > 0 {
            // The live successor of a repeated token: the same refresh
            // token the first racer got, a new access token.
            return Ok(Refreshed::Session(session_with(
                &user, family, presented, issuer,
            )));
        }
        diesel::update(refresh_tokens::table.find(auth::hash_token(&presented)))
            .set(refresh_tokens::spent_at.eq(issuer.now))
            .execute(conn)?;
        let successor = issuer.keys.successor_token(&presented);
        store_refresh_token(conn, user.id, family, &successor, issuer)?;
        return Ok(Refreshed::Session(session_with(
            &user, family, successor, issuer,
        )));
    }
    Ok(Refreshed::Refused { ended: None })
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
    // The app signed out there hears nothing more (issue #51).
    crate::notify::native::devices::forget_sessions(conn, &[family])?;
    Ok(())
}

/// End every session of `user` but `keep` ("sign out everywhere" keeps
/// none; a password change keeps the one that made it): their refresh
/// tokens stop working now, their access tokens within seconds
/// (`revoked.rs`). Returns the sessions ended.
pub fn end_sessions(
    conn: &mut PgConnection,
    user: Uuid,
    keep: Option<Uuid>,
    now: DateTime<Utc>,
) -> Result<Vec<Uuid>, Error> {
    let mut ended: Vec<Uuid> = diesel::update(
        refresh_tokens::table
            .filter(refresh_tokens::user_id.eq(user))
            .filter(refresh_tokens::revoked_at.is_null())
            // No family is nil: with nothing kept, every one is ended.
            .filter(refresh_tokens::family.ne(keep.unwrap_or(Uuid::nil()))),
    )
    .set(refresh_tokens::revoked_at.eq(now))
    .returning(refresh_tokens::family)
    .get_results(conn)?;
    ended.sort_unstable();
    ended.dedup();
    crate::notify::native::devices::forget_sessions(conn, &ended)?;
    Ok(ended)
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

/// A forgotten password set from a reset link (issue #47): store it, end
/// every session of the account (whoever knew the old password is out),
/// and open one for the person who just proved they read its mail.
/// Returns the new session and those ended.
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

/// A guest becomes a registered player (issue #47): the guest's own row
/// takes the username, password and email, so every match, rating and
/// friend stays where it is (the same id). Judged as a sign-up is: the
/// username's form, look-alikes and computers' names, the email's form
/// and its verification link, sign-ups per address. The nickname kept
/// (or the one given) is judged again, since a registered player may have
/// taken a name like it meanwhile. Every guest session ends (a guest has
/// no other way in than the one session it was given) and the answer is
/// the first session of the registered account, whose token says
/// `guest: false`. A registered account is refused (409), and so is the
/// second of two registrations of one guest (the row is locked).
///
/// Signing in with Google or Apple (issue #47, item 5) plugs in here as
/// another way to upgrade: the identity linked instead of a password.
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

/// `PATCH /v1/me`: the settings a user may change about their own account.
/// A field left out stays as it is; `email: null` removes the address.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MeChanges {
    #[schema(pattern = "^[A-Za-z0-9-]{1,16}$", example = "ko-KR")]
    pub locale: Option<String>,
    #[schema(value_type = Option<crate::enforced::TimeZone>)]
    pub time_zone: Option<String>,
    /// A new address, or `null` to remove it: a registered account only
    /// (a guest gives one when registering), proven with `password` or
    /// `identity` (issue #65).
    #[serde(default, deserialize_with = "present")]
    #[schema(format = Email, nullable)]
    pub email: Option<Option<String>>,
    pub takebacks: Option<Takebacks>,
    /// The name others see (닉네임), for a registered player; judged as at
    /// sign-up (issue #66).
    #[schema(schema_with = crate::enforced::nickname_optional)]
    pub display_name: Option<String>,
    /// With `email`: the account's password. An account with neither a
    /// password nor a linked identity may instead have signed in within
    /// the last 10 minutes.
    #[schema(max_length = 256)]
    pub password: Option<String>,
    /// With `email`: a fresh sign-in with a Google or Apple identity
    /// linked to the account, instead of the password.
    pub identity: Option<IdentityProof>,
}

/// Tells `"email": null` (remove it) from a missing field (keep it).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

pub fn change_me(
    conn: &mut PgConnection,
    user_id: Uuid,
    changes: MeChanges,
    now: DateTime<Utc>,
) -> Result<Me, Error> {
    let current = me(conn, user_id)?;
    if current.user.guest && changes.email.is_some() {
        return Err(guest_address());
    }
    let locale = changes.locale.unwrap_or(current.user.locale);
    let time_zone = changes.time_zone.unwrap_or(current.user.time_zone);
    check_settings(&locale, &time_zone)?;
    let takebacks = changes.takebacks.unwrap_or(current.takebacks);
    if let Some(given) = &changes.display_name {
        if current.user.guest {
            return Err(Error::forbidden(
                "a guest's name is its nickname: it is kept, or changed, when registering",
            )
            .in_field("display_name", Rule::Reserved));
        }
        let name =
            names::display_name(given).map_err(|e| e.in_field("display_name", Rule::Form))?;
        names::check_not_confusable(conn, &name, "display_name", Some(user_id))?;
        set_display_skeletons(conn, user_id, &current.user.username, &name)?;
    }
    diesel::update(users::table.find(user_id))
        .set((
            users::locale.eq(&locale),
            users::time_zone.eq(&time_zone),
            users::takebacks.eq(takebacks.name()),
        ))
        .execute(conn)?;
    match changes.email {
        // A new address waits for its link (issue #30); the verified one
        // keeps working until then. The answer is the same whether or not
        // the address is someone else's.
        Some(Some(address)) => {
            let address = names::email(&address)?;
            let already =
                (current.email.as_deref()).is_some_and(|e| e.eq_ignore_ascii_case(&address));
            if !already {
                diesel::update(users::table.find(user_id))
                    .set(users::email_pending.eq(&address))
                    .execute(conn)?;
                ask_to_verify(conn, user_id, &address, now)?;
            }
        }
        Some(None) => {
            diesel::update(users::table.find(user_id))
                .set((
                    users::email.eq(None::<String>),
                    users::email_pending.eq(None::<String>),
                ))
                .execute(conn)?;
            // The address that loses the account is told, as a replaced
            // one is (`verify_email`): whoever removed it may not be the
            // account's owner, who can put it back.
            if let Some(old) = current.email {
                left_address(conn, user_id, &old, AccountMail::EmailRemoved, now)?;
            }
        }
        None => {}
    }
    me(conn, user_id)
}

/// What a guest giving an address through settings is told (issue #65
/// item 5: a guest's verified address would reset a password it never had).
pub fn guest_address() -> Error {
    Error::forbidden("a guest gives an email address when registering (POST /v1/me/registration)")
        .in_field("email", Rule::Reserved)
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
