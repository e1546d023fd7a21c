//! My data (docs/decisions/accounts-and-sessions.md): deleting my account,
//! and exporting everything the service keeps about me.

use crate::accounts::IdentityProof;
use crate::auth::Caller;
use crate::db;
use crate::error::Error;
use crate::http::body::Body;
use crate::http::error::ApiError;
use crate::http::reauth;
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
        (status = 403, description = "a registered account confirms with its password or a linked identity: that was missing or wrong (a refused identity token too)"),
        (status = 422, description = "both a password and an identity, or an identity's provider not offered here"),
        (status = 429, description = "too many wrong passwords (the sign-in limits)"),
        (status = 503, description = "the identity provider's keys could not be read")),
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

/// A registered player proves again who they are: their password, or a
/// fresh sign-in with a linked identity (never both: 422). A guest's
/// session is its only credential, so it needs nothing more.
async fn confirm(
    state: &AppState,
    caller: &Caller,
    http: &HttpRequest,
    req: DeletionRequest,
) -> Result<(), Error> {
    let proof = reauth::Proof {
        password: req.password,
        identity: req.identity,
    };
    if reauth::proven(state, caller, http, proof, false).await? {
        Ok(())
    } else {
        Err(refused())
    }
}

fn refused() -> Error {
    Error::forbidden("confirm with your password, or sign in again with Google or Apple")
}

#[utoipa::path(get, path = "/v1/me/export", tag = "accounts",
    responses((status = 200, body = crate::export::Export, description = "everything kept about me, as a JSON file to save: profile, settings, sessions, identities, push subscriptions, every match as I saw it (never anything hidden from me) with the conditional moves I keep in it, ratings and their history, friends and blocks, tournaments, puzzles and first steps"),
        (status = 401),
        (status = 429, description = "at most 5 exports a day")),
    security(("bearer" = [])))]
#[get("/v1/me/export")]
pub async fn export(state: web::Data<AppState>, caller: Caller) -> Result<HttpResponse, ApiError> {
    let (now, mut random) = (state.clock.now(), state.roller());
    let site = state.config.public_url.clone();
    db::run(&state.pool, move |c| {
        crate::export::count(c, caller.user_id, now)
    })
    .await?;
    let export = db::read(&state.pool, move |c| {
        crate::export::export(c, caller.user_id, caller.session, now, &site, &mut random)
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
