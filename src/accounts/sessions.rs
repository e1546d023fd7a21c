//! Signing in and staying signed in: a session is a refresh-token
//! family; its access tokens are short JWTs (docs/decisions/accounts-and-sessions.md).

use super::rows::*;
use crate::auth::{self};
use crate::error::Error;
use crate::limits::{self, Limit};
use crate::schema::{refresh_tokens, users};
use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

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

/// Start a new session (a new refresh-token family) for `user`.
pub(super) fn open_session(
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
/// account has none (docs/decisions/table-talk.md, "Reports and
/// moderators"). Read under a share lock, a suspension beside it either
/// committed first (and is seen) or waits for this transaction (and then
/// ends the session it opens or renews).
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

/// The sessions (refresh families) ended since `since`, each with when:
/// what an instance's `revoked::Revoked` learns of other instances.
pub fn ended_since(
    conn: &mut PgConnection,
    since: DateTime<Utc>,
) -> Result<crate::revoked::EndedSessions, Error> {
    use crate::schema::refresh_tokens as rt;
    Ok(rt::table
        .filter(rt::revoked_at.gt(since))
        .select((rt::family, rt::revoked_at))
        .distinct()
        .load(conn)?)
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
    // The app signed out there hears nothing more
    // (docs/decisions/native-push.md).
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
