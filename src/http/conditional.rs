//! Conditional moves (docs/decisions/matches-and-deadlines.md): thin wrappers over
//! `matches::conditional`. Only the owner ever reads their lines.

use crate::auth::Caller;
use crate::db;
use crate::http::body::Body;
use crate::http::error::ApiError;
use crate::matches::conditional::{self, Lines};
use crate::state::AppState;
use actix_web::{delete, get, put, web, HttpResponse};
use uuid::Uuid;

#[utoipa::path(get, path = "/v1/matches/{id}/conditional-moves", tag = "matches",
    params(("id" = Uuid, Path)),
    responses((status = 200, body = Lines, description = "my stored lines (nobody else's; empty when none)"),
        (status = 404), (status = 422, description = "not a two-player match")),
    security(("bearer" = [])))]
#[get("/v1/matches/{id}/conditional-moves")]
pub async fn get_lines(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let lines = db::read(&state.pool, move |c| {
        conditional::get(c, id, caller.user_id)
    })
    .await?;
    Ok(HttpResponse::Ok().json(lines))
}

#[utoipa::path(put, path = "/v1/matches/{id}/conditional-moves", tag = "matches",
    params(("id" = Uuid, Path)), request_body = Lines,
    responses((status = 200, body = Lines, description = "my lines, replacing those stored; each step: when the opponent's events, as I see them, match `when`, I play `play`"),
        (status = 400, description = "a line of the wrong shape or too many"),
        (status = 404), (status = 409, description = "my turn (play instead), or the match is not being played"),
        (status = 422, description = "not a two-player match")),
    security(("bearer" = [])))]
#[put("/v1/matches/{id}/conditional-moves")]
pub async fn put_lines(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    body: Body<Lines>,
) -> Result<HttpResponse, ApiError> {
    let (id, now, lines) = (id.into_inner(), state.clock.now(), body.into_inner());
    let lines = db::run(&state.pool, move |c| {
        conditional::put(c, id, caller.user_id, lines, now)
    })
    .await?;
    Ok(HttpResponse::Ok().json(lines))
}

#[utoipa::path(delete, path = "/v1/matches/{id}/conditional-moves", tag = "matches",
    params(("id" = Uuid, Path)),
    responses((status = 204, description = "my lines are forgotten"), (status = 404)),
    security(("bearer" = [])))]
#[delete("/v1/matches/{id}/conditional-moves")]
pub async fn delete_lines(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    db::run(&state.pool, move |c| {
        conditional::delete(c, id, caller.user_id)
    })
    .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// `?line=`: the planned actions so far, as a JSON array.
#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
pub struct PlanQuery {
    /// A JSON array of actions, each played by the seat to act.
    #[param(max_length = 8192)]
    pub line: Option<String>,
}

#[utoipa::path(get, path = "/v1/matches/{id}/conditional-moves/options", tag = "matches",
    params(("id" = Uuid, Path), PlanQuery),
    responses((status = 200, body = conditional::Options, description = "after the planned actions: who acts, their legal actions, the position as I see it, and the last action's events as I see them"),
        (status = 400, description = "a line that is not a JSON array of actions, or too long"),
        (status = 404), (status = 422, description = "`line` is not a JSON array; an action not legal along the line; not a two-player match; or something is hidden from me")),
    security(("bearer" = [])))]
#[get("/v1/matches/{id}/conditional-moves/options")]
pub async fn plan(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    query: web::Query<PlanQuery>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let text = query.into_inner().line.unwrap_or_else(|| "[]".into());
    let line: Vec<serde_json::Value> = serde_json::from_str(&text)
        // JSON is no regular language: the document describes `line` and
        // cannot state it, so a string that is not one is a 422
        // (docs/decisions/api-and-schemas.md, "400 for form, 422 for
        // meaning").
        .map_err(|_| crate::error::Error::unacceptable("line must be a JSON array of actions"))?;
    let mut random = state.roller();
    let options = db::read(&state.pool, move |c| {
        conditional::options(c, id, caller.user_id, &line, &mut random)
    })
    .await?;
    Ok(HttpResponse::Ok().json(options))
}
