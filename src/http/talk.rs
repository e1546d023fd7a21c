//! Table talk (docs/decisions/table-talk.md): thin wrappers over `talk`.
//! Messages and notes are not game events: nothing here touches a match's
//! log or its seq.

use crate::auth::Caller;
use crate::db;
use crate::http::body::Body;
use crate::http::error::ApiError;
use crate::state::AppState;
use crate::talk::messages::{self, Message, Messages, Mute, Said};
use crate::talk::notes::{self, Note};
use crate::talk::{self, TalkSettings};
use crate::tournaments;
use actix_web::{get, post, put, web, HttpRequest, HttpResponse};
use uuid::Uuid;

/// `?before=`: a message id; the page holds older messages.
#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
pub struct Before {
    pub before: Option<Uuid>,
}

#[utoipa::path(get, path = "/v1/matches/{id}/messages", tag = "talk",
    params(("id" = Uuid, Path), Before),
    responses((status = 200, body = Messages, description = "the newest 50 messages I hear (before `before`), oldest first"),
        (status = 403, description = "not seated at this match"), (status = 404)),
    security(("bearer" = [])))]
#[get("/v1/matches/{id}/messages")]
pub async fn list_messages(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    query: web::Query<Before>,
) -> Result<HttpResponse, ApiError> {
    let (id, before) = (id.into_inner(), query.into_inner().before);
    let now = state.clock.now();
    let page = db::read(&state.pool, move |c| {
        messages::list(c, id, caller.user_id, before, now)
    })
    .await?;
    Ok(HttpResponse::Ok().json(page))
}

#[utoipa::path(post, path = "/v1/matches/{id}/messages", tag = "talk",
    params(("id" = Uuid, Path), ("Idempotency-Key" = Option<String>, Header, pattern = "^[!-~]{1,128}$", description = "a retry with the same key and request gets the first answer (kept 24 h)")),
    request_body = Said,
    responses((status = 201, body = Message, description = "written; the match's seq is unchanged"),
        (status = 403, description = "not seated, or my talk is off"), (status = 404),
        (status = 422, description = "no team channel here"), (status = 429)),
    security(("bearer" = [])))]
#[post("/v1/matches/{id}/messages")]
pub async fn post_message(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    req: HttpRequest,
    body: Body<Said>,
) -> Result<HttpResponse, ApiError> {
    let said = body.into_inner();
    let keyed = crate::http::matches::keyed(&req, &said)?;
    let (id, now) = (id.into_inner(), state.clock.now());
    let message = db::run(&state.pool, move |c| {
        messages::post(c, id, caller.user_id, said, keyed, now)
    })
    .await?;
    Ok(HttpResponse::Created().json(message))
}

#[utoipa::path(get, path = "/v1/tournaments/{id}/messages", tag = "talk",
    params(("id" = Uuid, Path), Before),
    responses((status = 200, body = Messages, description = "the newest 50 messages I hear in the tournament's room (before `before`), oldest first"),
        (status = 403, description = "not one of its joined players"), (status = 404)),
    security(("bearer" = [])))]
#[get("/v1/tournaments/{id}/messages")]
pub async fn list_tournament_messages(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    query: web::Query<Before>,
) -> Result<HttpResponse, ApiError> {
    let (id, before) = (id.into_inner(), query.into_inner().before);
    let now = state.clock.now();
    let page = db::read(&state.pool, move |c| {
        tournaments::room::list(c, id, caller.user_id, before, now)
    })
    .await?;
    Ok(HttpResponse::Ok().json(page))
}

#[utoipa::path(post, path = "/v1/tournaments/{id}/messages", tag = "talk",
    params(("id" = Uuid, Path), ("Idempotency-Key" = Option<String>, Header, pattern = "^[!-~]{1,128}$", description = "a retry with the same key and request gets the first answer (kept 24 h)")),
    request_body = Said,
    responses((status = 201, body = Message, description = "written in the tournament's room"),
        (status = 403, description = "not one of its joined players, or my talk is off"), (status = 404),
        (status = 422, description = "no team channel here"), (status = 429)),
    security(("bearer" = [])))]
#[post("/v1/tournaments/{id}/messages")]
pub async fn post_tournament_message(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    req: HttpRequest,
    body: Body<Said>,
) -> Result<HttpResponse, ApiError> {
    let said = body.into_inner();
    let keyed = crate::http::matches::keyed(&req, &said)?;
    let (id, now) = (id.into_inner(), state.clock.now());
    let message = db::run(&state.pool, move |c| {
        tournaments::room::post(c, id, caller.user_id, said, keyed, now)
    })
    .await?;
    Ok(HttpResponse::Created().json(message))
}

#[utoipa::path(post, path = "/v1/matches/{id}/messages/read", tag = "talk",
    params(("id" = Uuid, Path)),
    responses((status = 204, description = "every message here read"), (status = 403), (status = 404)),
    security(("bearer" = [])))]
#[post("/v1/matches/{id}/messages/read")]
pub async fn read_messages(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    db::run(&state.pool, move |c| messages::read(c, id, caller.user_id)).await?;
    Ok(HttpResponse::NoContent().finish())
}

#[utoipa::path(put, path = "/v1/matches/{id}/mute", tag = "talk",
    params(("id" = Uuid, Path)), request_body = Mute,
    responses((status = 200, body = Mute, description = "muted: no notice and no unread count from this table"),
        (status = 403), (status = 404)),
    security(("bearer" = [])))]
#[put("/v1/matches/{id}/mute")]
pub async fn mute_match(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    body: Body<Mute>,
) -> Result<HttpResponse, ApiError> {
    let (id, mute) = (id.into_inner(), body.into_inner());
    let saved = db::run(&state.pool, move |c| {
        messages::mute(c, id, caller.user_id, mute)
    })
    .await?;
    Ok(HttpResponse::Ok().json(saved))
}

#[utoipa::path(get, path = "/v1/matches/{id}/note", tag = "talk",
    params(("id" = Uuid, Path)),
    responses((status = 200, body = Note, description = "my private note (empty when none)"), (status = 404)),
    security(("bearer" = [])))]
#[get("/v1/matches/{id}/note")]
pub async fn get_note(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let note = db::read(&state.pool, move |c| notes::get(c, id, caller.user_id)).await?;
    Ok(HttpResponse::Ok().json(note))
}

#[utoipa::path(put, path = "/v1/matches/{id}/note", tag = "talk",
    params(("id" = Uuid, Path)), request_body = Note,
    responses((status = 200, body = Note, description = "kept (an empty text forgets it)"), (status = 404)),
    security(("bearer" = [])))]
#[put("/v1/matches/{id}/note")]
pub async fn put_note(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    body: Body<Note>,
) -> Result<HttpResponse, ApiError> {
    let (id, note, now) = (id.into_inner(), body.into_inner(), state.clock.now());
    let kept = db::run(&state.pool, move |c| {
        notes::put(c, id, caller.user_id, note, now)
    })
    .await?;
    Ok(HttpResponse::Ok().json(kept))
}

#[utoipa::path(get, path = "/v1/me/talk-settings", tag = "talk",
    responses((status = 200, body = TalkSettings)), security(("bearer" = [])))]
#[get("/v1/me/talk-settings")]
pub async fn get_talk_settings(
    state: web::Data<AppState>,
    caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let settings = db::read(&state.pool, move |c| talk::settings(c, caller.user_id)).await?;
    Ok(HttpResponse::Ok().json(settings))
}

#[utoipa::path(put, path = "/v1/me/talk-settings", tag = "talk",
    request_body = TalkSettings,
    responses((status = 200, body = TalkSettings, description = "whose messages I read: everyone in my matches, friends, or nobody (then I write none either)")),
    security(("bearer" = [])))]
#[put("/v1/me/talk-settings")]
pub async fn put_talk_settings(
    state: web::Data<AppState>,
    caller: Caller,
    body: Body<TalkSettings>,
) -> Result<HttpResponse, ApiError> {
    let settings = body.into_inner();
    let saved = db::run(&state.pool, move |c| {
        talk::set_settings(c, caller.user_id, settings)
    })
    .await?;
    Ok(HttpResponse::Ok().json(saved))
}
