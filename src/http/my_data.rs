//! My data (issue #47, items 6 and 7): deleting my account, and exporting
//! everything the service keeps about me.

use crate::accounts::IdentityProof;
use crate::auth::{self, Caller};
use crate::db;
use crate::error::Error;
use crate::http::body::Body;
use crate::http::error::ApiError;
use crate::state::AppState;
use actix_web::{get, post, web, HttpRequest, HttpResponse};
use serde::Deserialize;
use utoipa::ToSchema;

/// `POST /v1/me/deletion`: who I am, proven again.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DeletionRequest {
    /// The account's password.
    #[schema(max_length = 256)]
    pub password: Option<String>,
    /// Or a fresh sign-in with a Google or Apple identity linked to it.
    pub identity: Option<IdentityProof>,
}

#[utoipa::path(post, path = "/v1/me/deletion", tag = "accounts", request_body = DeletionRequest,
    responses((status = 204, description = "the account is deleted: every session has ended, its matches in play are resigned and its tournaments left, its personal data erased, its ratings off the leaderboards; finished matches show it as a deleted player. What is kept and for how long: `/account-deletion`"),
        (status = 401),
        (status = 403, description = "a registered account confirms with its password or a linked identity: that was missing or wrong"),
        (status = 429, description = "too many wrong passwords (the sign-in limits)")),
    security(("bearer" = [])))]
#[post("/v1/me/deletion")]
pub async fn delete_me(
    state: web::Data<AppState>,
    caller: Caller,
    http: HttpRequest,
    body: Body<DeletionRequest>,
) -> Result<HttpResponse, ApiError> {
    let req = body.into_inner();
    let now = state.clock.now();
    if !caller.guest {
        confirm(&state, &caller, &http, req).await?;
    }
    let mut random = state.roller();
    let ended = db::run(&state.pool, move |c| {
        crate::deletion::delete_account(c, caller.user_id, now, &mut random)
    })
    .await?;
    state.revoked.add(&ended, now);
    state.revoked.add(&[caller.session], now);
    Ok(HttpResponse::NoContent().finish())
}

/// A registered player proves again who they are: their password (a
/// wrong one counts as a failed sign-in), or a linked identity. A guest's
/// session is its only credential, so it needs nothing more.
async fn confirm(
    state: &AppState,
    caller: &Caller,
    http: &HttpRequest,
    req: DeletionRequest,
) -> Result<(), Error> {
    let refused =
        || Error::forbidden("confirm with your password, or sign in again with Google or Apple");
    let (user, now) = (caller.user_id, state.clock.now());
    if let Some(proof) = req.identity {
        let proven = state.identities.verify(&proof, &state.keys, now).await?;
        let theirs = db::run(&state.pool, move |c| {
            crate::identities::is_theirs(c, user, &proven)
        })
        .await?;
        return if theirs { Ok(()) } else { Err(refused()) };
    }
    let password = req.password.ok_or_else(refused)?;
    let address = crate::http::caller::client_address(http);
    let (row, attempt) = db::run(&state.pool, move |c| {
        let row = crate::accounts::password_of(c, user)?;
        let (_, attempt) = crate::accounts::start_sign_in(c, &row.username, &address, now)?;
        Ok((row, attempt))
    })
    .await
    .map_err(|e| match e {
        Error::Forbidden(_) => refused(),
        e => e,
    })?;
    let hash = row.password_hash;
    let right = auth::gated(move || auth::verify_password(&password, hash.as_deref())).await?;
    if !right {
        return Err(Error::forbidden("the password is wrong"));
    }
    db::run(&state.pool, move |c| crate::limits::forgive(c, &attempt)).await
}

#[utoipa::path(get, path = "/v1/me/export", tag = "accounts",
    responses((status = 200, body = crate::export::Export, description = "everything kept about me, as a JSON file to save: profile, settings, sessions, identities, push subscriptions, every match as I saw it (never anything hidden from me), ratings and their history, friends and blocks"),
        (status = 401),
        (status = 429, description = "at most 5 exports a day")),
    security(("bearer" = [])))]
#[get("/v1/me/export")]
pub async fn export(state: web::Data<AppState>, caller: Caller) -> Result<HttpResponse, ApiError> {
    let (now, mut random) = (state.clock.now(), state.roller());
    let export = db::run(&state.pool, move |c| {
        crate::export::export(c, caller.user_id, caller.session, now, &mut random)
    })
    .await?;
    let file = format!(
        "attachment; filename=\"posthorn-{}-{}.json\"",
        export.profile.user.username,
        now.format("%Y-%m-%d")
    );
    Ok(HttpResponse::Ok()
        .insert_header((actix_web::http::header::CONTENT_DISPOSITION, file))
        .insert_header((actix_web::http::header::CACHE_CONTROL, "no-store"))
        .json(export))
}
