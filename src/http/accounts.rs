//! Account and session endpoints: thin wrappers over `crate::accounts`.

use crate::accounts::{self, GuestRequest, Login, Me, MeChanges, Refresh, Registration, Session};
use crate::auth::{self, Caller};
use crate::db;
use crate::http::body::Body;
use crate::http::error::ApiError;
use crate::state::AppState;
use actix_web::{delete, get, patch, post, web, HttpRequest, HttpResponse};

#[utoipa::path(post, path = "/v1/accounts", tag = "accounts", request_body = Registration,
    responses((status = 201, body = Session), (status = 400), (status = 409)))]
#[post("/v1/accounts")]
pub async fn register(
    state: web::Data<AppState>,
    body: Body<Registration>,
) -> Result<HttpResponse, ApiError> {
    let req = body.into_inner();
    accounts::check_password(&req.password)?;
    let password = req.password.clone();
    let hash = auth::gated(move || auth::hash_password(&password)).await??;
    let issuer = state.issuer();
    let session = db::run(&state.pool, move |c| {
        accounts::register(c, req, hash, &issuer)
    })
    .await?;
    Ok(HttpResponse::Created().json(session))
}

#[utoipa::path(post, path = "/v1/sessions", tag = "accounts", request_body = Login,
    responses((status = 201, body = Session), (status = 401), (status = 429)))]
#[post("/v1/sessions")]
pub async fn login(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: Body<Login>,
) -> Result<HttpResponse, ApiError> {
    let Login { login, password } = body.into_inner();
    let address = req
        .peer_addr()
        .map(|a| a.ip().to_string())
        .unwrap_or_default();
    let now = state.clock.now();
    let (l, a) = (login.clone(), address.clone());
    let user = db::run(&state.pool, move |c| {
        accounts::check_login_rate(c, &l, &a, now)?;
        accounts::find_login(c, &l)
    })
    .await?;
    let hash = user.as_ref().and_then(|u| u.password_hash.clone());
    let matches = auth::gated(move || auth::verify_password(&password, hash.as_deref())).await?;
    match user {
        Some(user) if matches => {
            let issuer = state.issuer();
            let session = db::run(&state.pool, move |c| {
                accounts::login_succeeded(c, &user, &issuer)
            })
            .await?;
            Ok(HttpResponse::Created().json(session))
        }
        _ => {
            db::run(&state.pool, move |c| {
                accounts::record_login_failure(c, &login, &address, now)
            })
            .await?;
            // The same answer for an unknown user and a wrong password.
            Err(ApiError::unauthorized("wrong username or password"))
        }
    }
}

#[utoipa::path(post, path = "/v1/sessions/refresh", tag = "accounts", request_body = Refresh,
    responses((status = 200, body = Session), (status = 401)))]
#[post("/v1/sessions/refresh")]
pub async fn refresh(
    state: web::Data<AppState>,
    body: Body<Refresh>,
) -> Result<HttpResponse, ApiError> {
    let token = body.into_inner().refresh_token;
    let issuer = state.issuer();
    let session = db::run(&state.pool, move |c| accounts::refresh(c, &token, &issuer)).await??;
    Ok(HttpResponse::Ok().json(session))
}

#[utoipa::path(delete, path = "/v1/sessions/current", tag = "accounts",
    responses((status = 204), (status = 401)), security(("bearer" = [])))]
#[delete("/v1/sessions/current")]
pub async fn logout(state: web::Data<AppState>, caller: Caller) -> Result<HttpResponse, ApiError> {
    let now = state.clock.now();
    db::run(&state.pool, move |c| {
        accounts::revoke_family(c, caller.session, now)
    })
    .await?;
    Ok(HttpResponse::NoContent().finish())
}

#[utoipa::path(post, path = "/v1/guests", tag = "accounts", request_body = GuestRequest,
    responses((status = 201, body = Session), (status = 400)))]
#[post("/v1/guests")]
pub async fn guest(
    state: web::Data<AppState>,
    body: Body<GuestRequest>,
) -> Result<HttpResponse, ApiError> {
    let req = body.into_inner();
    let issuer = state.issuer();
    let session = db::run(&state.pool, move |c| {
        accounts::create_guest(c, req, &issuer)
    })
    .await?;
    Ok(HttpResponse::Created().json(session))
}

#[utoipa::path(get, path = "/v1/me", tag = "accounts",
    responses((status = 200, body = Me), (status = 401)), security(("bearer" = [])))]
#[get("/v1/me")]
pub async fn me(state: web::Data<AppState>, caller: Caller) -> Result<HttpResponse, ApiError> {
    let me = db::run(&state.pool, move |c| accounts::me(c, caller.user_id)).await?;
    Ok(HttpResponse::Ok().json(me))
}

#[utoipa::path(patch, path = "/v1/me", tag = "accounts", request_body = MeChanges,
    responses((status = 200, body = Me), (status = 400), (status = 401), (status = 409)),
    security(("bearer" = [])))]
#[patch("/v1/me")]
pub async fn change_me(
    state: web::Data<AppState>,
    caller: Caller,
    body: Body<MeChanges>,
) -> Result<HttpResponse, ApiError> {
    let changes = body.into_inner();
    let changed = db::run(&state.pool, move |c| {
        accounts::change_me(c, caller.user_id, changes)
    })
    .await?;
    Ok(HttpResponse::Ok().json(changed))
}

#[utoipa::path(get, path = "/v1/me/summary", tag = "accounts",
    responses((status = 200, body = crate::summary::Summary)), security(("bearer" = [])))]
#[get("/v1/me/summary")]
pub async fn summary(state: web::Data<AppState>, caller: Caller) -> Result<HttpResponse, ApiError> {
    let counts = db::run(&state.pool, move |c| {
        crate::summary::summary(c, caller.user_id)
    })
    .await?;
    Ok(HttpResponse::Ok().json(counts))
}
