//! Proving again who I am (docs/decisions/accounts-and-sessions.md) before
//! an act that hands the account to someone else or ends it: deleting it,
//! linking a new way in, changing the password. A wrong password counts as
//! a failed sign-in (`limits`), forgiven when right; a refusal of a
//! signed-in caller is 403, never 401 (which a client answers by refreshing
//! its session).

use crate::accounts::{self, IdentityProof};
use crate::auth::{self, Caller};
use crate::db;
use crate::error::Error;
use crate::error::Rule;
use crate::state::AppState;
use actix_web::HttpRequest;
use chrono::Duration;

/// How recent a sign-in stands in for a password when linking an
/// identity: an account with no password has nothing else to give.
pub const RECENT_SIGN_IN_MINUTES: i64 = 10;

/// Whether `password` is the caller's. A wrong one takes a sign-in
/// attempt; an account without a password is refused (403).
pub async fn password_is_right(
    state: &AppState,
    caller: &Caller,
    http: &HttpRequest,
    password: String,
) -> Result<bool, Error> {
    let (user, now) = (caller.user_id, state.clock.now());
    let address = crate::http::caller::client_address(http);
    let (hash, attempt) = db::run(&state.pool, move |c| {
        let row = accounts::password_of(c, user)?;
        let (_, attempt) = accounts::start_sign_in(c, &row.username, &address, now)?;
        Ok((row.password_hash, attempt))
    })
    .await?;
    let right = auth::gated(move || auth::verify_password(&password, hash.as_deref())).await?;
    if right {
        db::run(&state.pool, move |c| crate::limits::forgive(c, &attempt)).await?;
    }
    Ok(right)
}

/// `proof` is a fresh sign-in with an identity linked to the caller's
/// account; a token refused is 403 here.
pub async fn identity_is_theirs(
    state: &AppState,
    caller: &Caller,
    proof: &IdentityProof,
) -> Result<bool, Error> {
    let user = caller.user_id;
    let proven = verified(state, proof).await?;
    db::run(&state.pool, move |c| {
        crate::accounts::identities::is_theirs(c, user, &proven)
    })
    .await
}

/// The identity `proof` proves, for a signed-in caller: a refused token is
/// 403 (the caller's own session is fine).
pub async fn verified(
    state: &AppState,
    proof: &IdentityProof,
) -> Result<crate::accounts::identities::Proven, Error> {
    let now = state.clock.now();
    (state.identities)
        .verify(proof, &state.keys, now)
        .await
        .map_err(|e| match e {
            Error::Unauthorized(why) => Error::Forbidden(why),
            e => e,
        })
}

/// Whether the caller's session signed in within the last
/// [`RECENT_SIGN_IN_MINUTES`].
pub async fn signed_in_recently(state: &AppState, caller: &Caller) -> Result<bool, Error> {
    let (session, now) = (caller.session, state.clock.now());
    let since = now - Duration::minutes(RECENT_SIGN_IN_MINUTES);
    let at = db::run(&state.pool, move |c| {
        crate::accounts::my_sessions::signed_in_at(c, session)
    })
    .await?;
    Ok(at.is_some_and(|at| at >= since))
}

/// What a registered player gives to prove again who they are: their
/// password, or a fresh sign-in with a linked identity (never both).
#[derive(Debug, Default)]
pub struct Proof {
    pub password: Option<String>,
    pub identity: Option<IdentityProof>,
}

/// Whether `proof` proves the caller is who the account is. Both given
/// is 422; neither is `false` unless `recent_will_do` and the account has
/// neither a password nor a linked identity, when a sign-in within
/// [`RECENT_SIGN_IN_MINUTES`] stands in (it has nothing else to give).
pub async fn proven(
    state: &AppState,
    caller: &Caller,
    http: &HttpRequest,
    proof: Proof,
    recent_will_do: bool,
) -> Result<bool, Error> {
    match proof {
        Proof {
            password: Some(_),
            identity: Some(_),
        } => Err(Error::unacceptable(
            "confirm with your password or an identity, not both",
        )),
        Proof {
            identity: Some(proof),
            ..
        } => identity_is_theirs(state, caller, &proof).await,
        Proof {
            password: Some(password),
            ..
        } => match password_is_right(state, caller, http, password).await {
            Err(Error::Forbidden(_)) => Ok(false),
            other => other,
        },
        Proof { .. } if recent_will_do => {
            let user = caller.user_id;
            let ways = db::run(&state.pool, move |c| accounts::ways_in(c, user)).await?;
            Ok(ways == (false, false) && signed_in_recently(state, caller).await?)
        }
        Proof { .. } => Ok(false),
    }
}

/// A new or removed email address (`PATCH /v1/me`; docs/abuse.md, "Email
/// addresses"): the address controls the password, so whoever sets it
/// proves who they are.
pub async fn may_change_address(
    state: &AppState,
    caller: &Caller,
    http: &HttpRequest,
    proof: Proof,
) -> Result<(), Error> {
    if caller.guest {
        return Err(accounts::guest_address());
    }
    if proven(state, caller, http, proof, true).await? {
        return Ok(());
    }
    Err(Error::forbidden(
        "confirm a new email address with your password, or sign in again with Google or Apple",
    )
    .in_field("password", Rule::Wrong))
}
