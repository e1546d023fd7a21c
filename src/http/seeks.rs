//! A random opponent (docs/decisions/challenges-and-lobby.md): thin
//! wrappers over `lobby::seeks`.

use crate::auth::Caller;
use crate::db;
use crate::http::body::Body;
use crate::http::error::ApiError;
use crate::http::matches::as_asker;
use crate::lobby::seeks::{self, NewSeek, SeekAnswer, SeekView};
use crate::matches::MatchView;
use crate::state::AppState;
use actix_web::{delete, get, post, web, HttpResponse};
use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;

#[utoipa::path(post, path = "/v1/seeks", tag = "seeks", request_body = NewSeek,
    responses((status = 201, body = SeekAnswer, description = "paired at once (`match` set) or waiting"),
        (status = 400), (status = 409, description = "a seek with these settings is already waiting"),
        (status = 422, description = "a variant or mode of another game, players the game does not take, a rated seek falling back to the computer")),
    security(("bearer" = [])))]
#[post("/v1/seeks")]
pub async fn post_seek(
    state: web::Data<AppState>,
    caller: Caller,
    request: actix_web::HttpRequest,
    body: Body<NewSeek>,
) -> Result<HttpResponse, ApiError> {
    let req = body.into_inner();
    // A seek nobody meets may be played by the computer (its fallback):
    // its engine time counts against this address too (docs/abuse.md,
    // "Engine time").
    let address = crate::http::caller::client_address(&request);
    let answer = as_asker(&state, caller.user_id, move |c, ask, random| {
        crate::computer::budget::seen_from(c, ask.creator, &address)?;
        seeks::post(c, ask, req, random)
    })
    .await?;
    Ok(HttpResponse::Created().json(answer))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct SeekQuery {
    /// Only this game's seeks (`checkers`).
    game: Option<String>,
}

#[utoipa::path(get, path = "/v1/seeks", tag = "seeks", params(SeekQuery),
    responses((status = 200, body = Vec<SeekView>)), security(("bearer" = [])))]
#[get("/v1/seeks")]
pub async fn list_seeks(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<SeekQuery>,
) -> Result<HttpResponse, ApiError> {
    let (game, now) = (query.into_inner().game, state.clock.now());
    let open = db::run(&state.pool, move |c| {
        seeks::open_list(c, caller.user_id, game, now)
    })
    .await?;
    Ok(HttpResponse::Ok().json(open))
}

#[utoipa::path(post, path = "/v1/seeks/{id}/accept", tag = "seeks", params(("id" = Uuid, Path)),
    responses((status = 201, body = MatchView), (status = 403, description = "blocked"),
        (status = 404, description = "no such seek waiting"),
        (status = 409, description = "your own seek, taken already, or outside its range")),
    security(("bearer" = [])))]
#[post("/v1/seeks/{id}/accept")]
pub async fn accept_seek(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let started = as_asker(&state, caller.user_id, move |c, ask, random| {
        seeks::accept(c, ask, id, random)
    })
    .await?;
    Ok(HttpResponse::Created().json(started))
}

#[utoipa::path(delete, path = "/v1/seeks/{id}", tag = "seeks", params(("id" = Uuid, Path)),
    responses((status = 204), (status = 404)), security(("bearer" = [])))]
#[delete("/v1/seeks/{id}")]
pub async fn withdraw_seek(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    db::run(&state.pool, move |c| seeks::withdraw(c, caller.user_id, id)).await?;
    Ok(HttpResponse::NoContent().finish())
}
