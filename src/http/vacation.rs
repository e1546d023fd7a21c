//! Vacation (docs/decisions/matches-and-deadlines.md): thin wrappers over
//! `crate::vacation`.

use crate::auth::Caller;
use crate::db;
use crate::http::body::Body;
use crate::http::error::ApiError;
use crate::state::AppState;
use crate::vacation::{self, Vacation, VacationRequest};
use actix_web::{delete, get, post, put, web, HttpResponse};
use serde::Deserialize;
use utoipa::ToSchema;

#[utoipa::path(get, path = "/v1/me/vacation", tag = "accounts",
    responses((status = 200, body = Vacation, description = "the allowance left, whether I am away and until when, and auto-vacation")),
    security(("bearer" = [])))]
#[get("/v1/me/vacation")]
pub async fn get_vacation(
    state: web::Data<AppState>,
    caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let now = state.clock.now();
    let found = db::read(&state.pool, move |c| {
        vacation::status(c, caller.user_id, now)
    })
    .await?;
    Ok(HttpResponse::Ok().json(found))
}

#[utoipa::path(post, path = "/v1/me/vacation", tag = "accounts",
    request_body = VacationRequest,
    responses((status = 200, body = Vacation, description = "on vacation from now: every duty of mine pauses, in every match"),
        (status = 403, description = "guests have no vacation"),
        (status = 422, description = "an end date that is not in the future"),
        (status = 409, description = "on vacation already, or no allowance left"),
        (status = 429, description = "a vacation started within the last day already")),
    security(("bearer" = [])))]
#[post("/v1/me/vacation")]
pub async fn start_vacation(
    state: web::Data<AppState>,
    caller: Caller,
    body: Body<VacationRequest>,
) -> Result<HttpResponse, ApiError> {
    let (now, until) = (state.clock.now(), body.into_inner().until);
    let started = db::run(&state.pool, move |c| {
        vacation::start(c, caller.user_id, until, now)
    })
    .await?;
    Ok(HttpResponse::Ok().json(started))
}

#[utoipa::path(delete, path = "/v1/me/vacation", tag = "accounts",
    responses((status = 200, body = Vacation, description = "back: the allowance is charged by the started hour and my duties resume with the time they had left")),
    security(("bearer" = [])))]
#[delete("/v1/me/vacation")]
pub async fn end_vacation(
    state: web::Data<AppState>,
    caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let now = state.clock.now();
    let ended = db::run(&state.pool, move |c| vacation::end(c, caller.user_id, now)).await?;
    Ok(HttpResponse::Ok().json(ended))
}

/// `PUT /v1/me/vacation/auto`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AutoVacation {
    /// Whether a deadline that would forfeit a match starts a vacation
    /// instead, while allowance is left.
    pub on: bool,
}

#[utoipa::path(put, path = "/v1/me/vacation/auto", tag = "accounts",
    request_body = AutoVacation,
    responses((status = 200, body = Vacation), (status = 403, description = "guests have no vacation")),
    security(("bearer" = [])))]
#[put("/v1/me/vacation/auto")]
pub async fn auto_vacation(
    state: web::Data<AppState>,
    caller: Caller,
    body: Body<AutoVacation>,
) -> Result<HttpResponse, ApiError> {
    let (now, on) = (state.clock.now(), body.into_inner().on);
    let set = db::run(&state.pool, move |c| {
        vacation::set_auto(c, caller.user_id, on, now)
    })
    .await?;
    Ok(HttpResponse::Ok().json(set))
}
