//! My sessions (docs/decisions/accounts-and-sessions.md): thin wrappers
//! over `crate::accounts::my_sessions`.

use crate::accounts::my_sessions::{self as sessions, DeviceSessions};
use crate::auth::Caller;
use crate::db;
use crate::http::error::ApiError;
use crate::state::AppState;
use actix_web::{delete, get, web, HttpResponse};
use uuid::Uuid;

#[utoipa::path(get, path = "/v1/me/sessions", tag = "accounts",
    responses((status = 200, body = DeviceSessions, description = "the devices signed in to my account, the most recently active first; `current` marks this one")),
    security(("bearer" = [])))]
#[get("/v1/me/sessions")]
pub async fn my_sessions(
    state: web::Data<AppState>,
    caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let now = state.clock.now();
    let list = db::run(&state.pool, move |c| {
        sessions::list(c, caller.user_id, caller.session, now)
    })
    .await?;
    Ok(HttpResponse::Ok().json(list))
}

#[utoipa::path(delete, path = "/v1/me/sessions/{id}", tag = "accounts",
    params(("id" = Uuid, Path, description = "a session's id from `GET /v1/me/sessions`")),
    responses((status = 204, description = "that device is signed out: its refresh token stops now, its access tokens within seconds"),
        (status = 404, description = "no live session of mine has that id")),
    security(("bearer" = [])))]
#[delete("/v1/me/sessions/{id}")]
pub async fn end_session(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let (session, now) = (id.into_inner(), state.clock.now());
    db::run(&state.pool, move |c| {
        sessions::end(c, caller.user_id, session, now)
    })
    .await?;
    state.revoked.add(&[session], now);
    Ok(HttpResponse::NoContent().finish())
}
