//! Signing in with Google and Apple
//! (docs/decisions/accounts-and-sessions.md): thin wrappers over
//! `crate::accounts::identities`; the token is checked first (`identities::verify`),
//! then one transaction.

use crate::accounts::identities::{self, Identities, IdentitySignIn};
use crate::accounts::{IdentityProof, Session};
use crate::auth::Caller;
use crate::config::Provider;
use crate::db;
use crate::error::Error;
use crate::http::error::ApiError;
use crate::http::reauth;
use crate::state::AppState;
use actix_web::{delete, get, post, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Nonce {
    /// Hand it to the provider's sign-in (Apple's SDK takes its SHA-256);
    /// send it back beside the `id_token`. Valid 15 minutes.
    pub nonce: String,
}

/// A provider offered here, for the web client's sign-in page.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct OfferedProvider {
    pub provider: Provider,
    /// The web client's client id (the first configured).
    pub client_id: String,
    /// Where a browser asks the provider for an `id_token`.
    pub authorize_url: String,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct OfferedProviders {
    pub providers: Vec<OfferedProvider>,
}

#[utoipa::path(get, path = "/v1/sign-in-providers", tag = "accounts",
    responses((status = 200, body = OfferedProviders, description = "the providers one may sign in with here; none when none is configured")))]
#[get("/v1/sign-in-providers")]
pub async fn providers(state: web::Data<AppState>) -> HttpResponse {
    let providers = state
        .identities
        .offered()
        .map(|p| OfferedProvider {
            provider: p.provider,
            client_id: p.client_ids[0].clone(),
            authorize_url: p.authorize_url.clone(),
        })
        .collect();
    HttpResponse::Ok().json(OfferedProviders { providers })
}

#[utoipa::path(post, path = "/v1/sessions/nonce", tag = "accounts",
    responses((status = 201, body = Nonce)))]
#[post("/v1/sessions/nonce")]
pub async fn nonce(state: web::Data<AppState>) -> HttpResponse {
    let nonce = state.keys.sign_in_nonce(state.clock.now());
    HttpResponse::Created().json(Nonce { nonce })
}

#[utoipa::path(post, path = "/v1/sessions/identity", tag = "accounts", request_body = IdentitySignIn,
    responses((status = 201, body = Session, description = "signed in; with a `username`, an identity no account had has created one (a registered player with no password, the provider's verified address its own unless another account has it)"),
        (status = 401, description = "the token was refused: its signature, key, `iss`, `aud`, `exp`, `nonce` or algorithm"),
        (status = 404, description = "`identity_unknown`: no account has this identity; send the same token again with a `username`"),
        (status = 409, description = "the username is taken"),
        (status = 422, description = "a provider not offered here; a username that looks like a registered player's or a computer's name"),
        (status = 429, description = "too many accounts from this address"),
        (status = 503, description = "the provider's keys could not be read")))]
#[post("/v1/sessions/identity")]
pub async fn sign_in(
    state: web::Data<AppState>,
    http: HttpRequest,
    body: crate::http::body::Body<IdentitySignIn>,
) -> Result<HttpResponse, ApiError> {
    let req = body.into_inner();
    let issuer = state.issuer(crate::http::caller::device(&http));
    let proven = (state.identities)
        .verify(&req.proof, &state.keys, issuer.now)
        .await?;
    let origin = crate::http::caller::origin(&http);
    let session = db::run(&state.pool, move |c| {
        identities::sign_in(c, proven, req, &origin, &issuer)
    })
    .await?;
    Ok(HttpResponse::Created().json(session))
}

#[utoipa::path(get, path = "/v1/me/identities", tag = "accounts",
    responses((status = 200, body = Identities)), security(("bearer" = [])))]
#[get("/v1/me/identities")]
pub async fn mine(state: web::Data<AppState>, caller: Caller) -> Result<HttpResponse, ApiError> {
    let list = db::run(&state.pool, move |c| identities::list(c, caller.user_id)).await?;
    Ok(HttpResponse::Ok().json(list))
}

/// `POST /v1/me/identities`: the identity to link, and the account's
/// password unless the session signed in within the last 10 minutes.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct IdentityLink {
    #[serde(flatten)]
    pub proof: IdentityProof,
    /// The account's password: a new way in is handed out only to whoever
    /// proves again who they are (or signed in just now).
    #[schema(max_length = 256)]
    pub password: Option<String>,
}

#[utoipa::path(post, path = "/v1/me/identities", tag = "accounts", request_body = IdentityLink,
    responses((status = 201, body = Identities, description = "linked: the account signs in with it too, and its address is told"),
        (status = 401),
        (status = 403, description = "a guest registers with an identity instead (`POST /v1/me/registration`); the password is missing (the session signed in over 10 minutes ago) or wrong; the token was refused"),
        (status = 409, description = "`identity_taken`: the identity is another account's; `conflict`: this account has one at that provider already"),
        (status = 422, description = "a provider not offered here"),
        (status = 429, description = "too many wrong passwords (the sign-in limits)"),
        (status = 503, description = "the provider's keys could not be read")),
    security(("bearer" = [])))]
#[post("/v1/me/identities")]
pub async fn link(
    state: web::Data<AppState>,
    caller: Caller,
    http: HttpRequest,
    body: crate::http::body::Body<IdentityLink>,
) -> Result<HttpResponse, ApiError> {
    let IdentityLink { proof, password } = body.into_inner();
    if caller.guest {
        return Err(Error::forbidden(
            "a guest registers with an identity (POST /v1/me/registration), keeping every match",
        )
        .into());
    }
    let proven_again = match password {
        Some(password) => reauth::password_is_right(&state, &caller, &http, password).await?,
        None => reauth::signed_in_recently(&state, &caller).await?,
    };
    if !proven_again {
        return Err(Error::forbidden(
            "confirm with your password (or sign in again, then link within 10 minutes)",
        )
        .into());
    }
    let proven = reauth::verified(&state, &proof).await?;
    let now = state.clock.now();
    let list = db::run(&state.pool, move |c| {
        identities::link(c, caller.user_id, proven, now)
    })
    .await?;
    Ok(HttpResponse::Created().json(list))
}

#[utoipa::path(delete, path = "/v1/me/identities/{provider}", tag = "accounts",
    params(("provider" = Provider, Path)),
    responses((status = 204, description = "unlinked; the account's address is told"),
        (status = 404, description = "no identity of mine at that provider"),
        (status = 409, description = "it is the account's only way to sign in: set a password or link another first")),
    security(("bearer" = [])))]
#[delete("/v1/me/identities/{provider}")]
pub async fn unlink(
    state: web::Data<AppState>,
    caller: Caller,
    provider: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let provider = Provider::parse(&provider).ok_or(Error::not_found("identity provider"))?;
    let now = state.clock.now();
    db::run(&state.pool, move |c| {
        identities::unlink(c, caller.user_id, provider, now)
    })
    .await?;
    Ok(HttpResponse::NoContent().finish())
}
