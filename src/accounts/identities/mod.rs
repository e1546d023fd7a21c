//! Signing in with Google and Apple
//! (docs/decisions/accounts-and-sessions.md): an account's identities at a
//! provider, proven by an OpenID Connect `id_token` (`verify`). One use
//! case per function, each inside one transaction; the token is checked
//! before (it may fetch the provider's keys).

pub mod verify;

use crate::accounts::{self, Issuer, NewAccount, Session, Upgrade};
use crate::config::Provider;
use crate::error::Error;
use crate::notify::account_mail::{self, AccountMail};
use crate::personal::{Exported, Leaving, Owner};
use crate::schema::{identities, spent_nonces, users};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// An identity a provider vouched for: its subject, and the address it
/// said it verified.
#[derive(Clone, Debug)]
pub struct Proven {
    pub provider: Provider,
    pub subject: String,
    pub email: Option<String>,
    /// The sign-in's nonce (SHA-256, hex) and when it stops working: an
    /// `id_token` proves something once ([`spend`]; docs/abuse.md, "Limits
    /// that hold").
    pub nonce: String,
    pub nonce_expires: DateTime<Utc>,
}

/// Spend `proven`'s nonce: a token replayed within its nonce's 15 minutes
/// is refused (401), however it is used. Spent nonces are kept until
/// they would have expired anyway ([`forget_spent`]).
fn spend(conn: &mut PgConnection, proven: &Proven) -> Result<(), Error> {
    let fresh = diesel::insert_into(spent_nonces::table)
        .values((
            spent_nonces::nonce_hash.eq(&proven.nonce),
            spent_nonces::expires_at.eq(proven.nonce_expires),
        ))
        .on_conflict_do_nothing()
        .execute(conn)?;
    if fresh == 0 {
        return Err(Error::unauthorized(
            "the identity token was refused: it was used already; sign in again",
        ));
    }
    Ok(())
}

/// [`spend`] for a signed-in caller: a refusal is 403, never 401 (which
/// a client answers by refreshing its own session).
fn spend_signed_in(conn: &mut PgConnection, proven: &Proven) -> Result<(), Error> {
    spend(conn, proven).map_err(|e| match e {
        Error::Unauthorized(why) => Error::Forbidden(why),
        e => e,
    })
}

/// Forget nonces past their expiry (the sweep).
pub fn forget_spent(conn: &mut PgConnection, now: DateTime<Utc>) -> Result<usize, Error> {
    Ok(
        diesel::delete(spent_nonces::table.filter(spent_nonces::expires_at.lt(now)))
            .execute(conn)?,
    )
}

/// `POST /v1/sessions/identity`: sign in with a provider's token; with a
/// `username`, create the account when none has this identity.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct IdentitySignIn {
    #[serde(flatten)]
    pub proof: accounts::IdentityProof,
    /// Only for a new account: the username to register it with.
    #[schema(schema_with = crate::enforced::new_username_optional)]
    pub username: Option<String>,
    #[schema(pattern = "^[A-Za-z0-9-]{1,16}$", example = "ko-KR")]
    pub locale: Option<String>,
    #[schema(value_type = Option<crate::enforced::TimeZone>)]
    pub time_zone: Option<String>,
}

/// One identity of mine.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Identity {
    pub provider: Provider,
    /// The address the provider gave when it was linked, if any.
    pub email: Option<String>,
    pub linked_at: DateTime<Utc>,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Identities {
    pub identities: Vec<Identity>,
    /// Whether the account has a password too: unlinking the last
    /// identity of an account without one is refused.
    pub has_password: bool,
}

/// The live account `proven` signs in to.
fn owner(conn: &mut PgConnection, proven: &Proven) -> Result<Option<Uuid>, Error> {
    Ok(identities::table
        .find((proven.provider.name(), &proven.subject))
        .select(identities::user_id)
        .first(conn)
        .optional()?)
}

/// Sign in with `proven`; an identity no account has is
/// `identity_unknown` unless a username is given, which creates the
/// account (a registered player with no password; the provider's verified
/// address becomes its address, if no account has it).
pub fn sign_in(
    conn: &mut PgConnection,
    proven: Proven,
    req: IdentitySignIn,
    origin: &crate::limits::Origin,
    issuer: &Issuer,
) -> Result<Session, Error> {
    spend(conn, &proven)?;
    if let Some(user) = owner(conn, &proven)? {
        return accounts::open_session_of(conn, user, issuer);
    }
    let Some(username) = req.username else {
        return Err(Error::IdentityUnknown(format!(
            "no account signs in with this {} identity yet: send a username to create one",
            proven.provider.name()
        )));
    };
    let new = NewAccount {
        username,
        password_hash: None,
        email_pending: None,
        email: proven.email.clone(),
        locale: req.locale,
        time_zone: req.time_zone,
        display_name: None,
    };
    let (user, session) = accounts::create(conn, new, origin, issuer)?;
    attach(conn, user, &proven, issuer.now)?;
    Ok(session)
}

/// A guest registers with an identity instead of a password
/// (`accounts::upgrade`: the same account, every match kept).
pub fn register_guest(
    conn: &mut PgConnection,
    user: Uuid,
    req: Upgrade,
    proven: Proven,
    origin: &crate::limits::Origin,
    issuer: &Issuer,
) -> Result<(Session, Vec<Uuid>), Error> {
    spend_signed_in(conn, &proven)?;
    let upgraded = accounts::upgrade(conn, user, req, None, origin, issuer)?;
    attach(conn, user, &proven, issuer.now)?;
    Ok(upgraded)
}

/// Link `proven` to my registered account (the caller has proven again
/// who they are: `http::reauth`). The account's address hears of it.
pub fn link(
    conn: &mut PgConnection,
    user: Uuid,
    proven: Proven,
    now: DateTime<Utc>,
) -> Result<Identities, Error> {
    lock(conn, user)?;
    spend_signed_in(conn, &proven)?;
    if owner(conn, &proven)? != Some(user) {
        attach(conn, user, &proven, now)?;
        tell(conn, user, AccountMail::IdentityLinked, now)?;
    }
    list(conn, user)
}

/// The account's row, locked: two links or unlinks of one account run one
/// after the other, so "never the last way in" holds.
fn lock(conn: &mut PgConnection, user: Uuid) -> Result<(), Error> {
    users::table
        .find(user)
        .select(users::id)
        .for_update()
        .first::<Uuid>(conn)
        .optional()?
        .ok_or_else(|| Error::unauthorized("this account no longer exists"))?;
    Ok(())
}

/// Mail `mail` to the account's verified address, if it has one.
fn tell(
    conn: &mut PgConnection,
    user: Uuid,
    mail: AccountMail,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    let address: Option<String> = users::table.find(user).select(users::email).first(conn)?;
    if let Some(address) = address {
        account_mail::enqueue(conn, user, mail, &address, now.timestamp_millis(), now)?;
    }
    Ok(())
}

/// Write the link, refusing an identity that is another account's, or a
/// second identity at one provider.
fn attach(
    conn: &mut PgConnection,
    user: Uuid,
    proven: &Proven,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    match owner(conn, proven)? {
        Some(owner) if owner == user => return Ok(()),
        Some(_) => {
            return Err(Error::IdentityTaken(
                "this identity signs in to another account already".into(),
            ))
        }
        None => {}
    }
    diesel::insert_into(identities::table)
        .values((
            identities::provider.eq(proven.provider.name()),
            identities::subject.eq(&proven.subject),
            identities::user_id.eq(user),
            identities::email.eq(&proven.email),
            identities::linked_at.eq(now),
        ))
        .execute(conn)
        .map_err(|e| match e {
            diesel::result::Error::DatabaseError(
                diesel::result::DatabaseErrorKind::UniqueViolation,
                _,
            ) => Error::conflict(format!(
                "this account has a {} identity already: unlink it first",
                proven.provider.name()
            )),
            e => e.into(),
        })?;
    Ok(())
}

/// Unlink my identity at `provider`, unless it is my last way in.
pub fn unlink(
    conn: &mut PgConnection,
    user: Uuid,
    provider: Provider,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    lock(conn, user)?;
    let mine = list(conn, user)?;
    if !mine.identities.iter().any(|i| i.provider == provider) {
        return Err(Error::not_found("identity"));
    }
    if !mine.has_password && mine.identities.len() == 1 {
        return Err(Error::conflict(
            "this is the account's only way to sign in: set a password or link another identity first",
        ));
    }
    diesel::delete(
        identities::table
            .filter(identities::user_id.eq(user))
            .filter(identities::provider.eq(provider.name())),
    )
    .execute(conn)?;
    tell(conn, user, AccountMail::IdentityUnlinked, now)
}

/// My identities.
pub fn list(conn: &mut PgConnection, user: Uuid) -> Result<Identities, Error> {
    let rows: Vec<(String, Option<String>, DateTime<Utc>)> = identities::table
        .filter(identities::user_id.eq(user))
        .order(identities::linked_at)
        .select((
            identities::provider,
            identities::email,
            identities::linked_at,
        ))
        .load(conn)?;
    let has_password = users::table
        .find(user)
        .select(users::password_hash.is_not_null())
        .first(conn)?;
    Ok(Identities {
        identities: rows
            .into_iter()
            .filter_map(|(p, email, linked_at)| {
                Some(Identity {
                    provider: Provider::parse(&p)?,
                    email,
                    linked_at,
                })
            })
            .collect(),
        has_password,
    })
}

/// Whether `proven` is an identity of `user` (to confirm a deletion).
pub fn is_theirs(conn: &mut PgConnection, user: Uuid, proven: &Proven) -> Result<bool, Error> {
    spend_signed_in(conn, proven)?;
    Ok(owner(conn, proven)? == Some(user))
}

/// The Google and Apple identities linked go with the account.
pub const PERSONAL: Owner = Owner::erasing(
    "identities",
    &["identities"],
    forget,
    Exported::In(&["identities"]),
);

fn forget(conn: &mut PgConnection, leaving: &mut Leaving<'_>) -> Result<(), Error> {
    diesel::delete(identities::table.filter(identities::user_id.eq(leaving.user))).execute(conn)?;
    Ok(())
}
