//! Reports and moderation (docs/decisions/table-talk.md, "Reports and
//! moderators"): thin wrappers over `moderation`. Reporting is every
//! player's; the rest answers moderators only (403 for anyone else).

use crate::auth::Caller;
use crate::db;
use crate::http::body::Body;
use crate::http::error::ApiError;
use crate::moderation::acts::{self, MuteFor, Why};
use crate::moderation::reports::{self, OpenReport, Report, Reported};
use crate::moderation::{self, LogEntry};
use crate::state::AppState;
use actix_web::{get, post, web, HttpResponse};
use uuid::Uuid;

#[utoipa::path(post, path = "/v1/messages/{id}/report", tag = "talk",
    params(("id" = Uuid, Path)), request_body = Report,
    responses((status = 201, body = Reported, description = "reported (again: the first report); the author is never told who reported"),
        (status = 404, description = "no message I read"), (status = 422, description = "my own message"),
        (status = 429, description = "over 20 reports a day")),
    security(("bearer" = [])))]
#[post("/v1/messages/{id}/report")]
pub async fn report_message(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    body: Body<Report>,
) -> Result<HttpResponse, ApiError> {
    let (id, report, now) = (id.into_inner(), body.into_inner(), state.clock.now());
    let reported = db::run(&state.pool, move |c| {
        reports::report(c, id, caller.user_id, report, now)
    })
    .await?;
    Ok(HttpResponse::Created().json(reported))
}

#[utoipa::path(get, path = "/v1/moderation/reports", tag = "moderation",
    responses((status = 200, body = Vec<OpenReport>, description = "the open reports, oldest first (100)"),
        (status = 403, description = "not a moderator")),
    security(("bearer" = [])))]
#[get("/v1/moderation/reports")]
pub async fn open_reports(
    state: web::Data<AppState>,
    caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let open = db::read(&state.pool, move |c| reports::open(c, caller.user_id)).await?;
    Ok(HttpResponse::Ok().json(open))
}

#[utoipa::path(post, path = "/v1/moderation/reports/{id}/dismiss", tag = "moderation",
    params(("id" = Uuid, Path)), request_body = Why,
    responses((status = 204, description = "closed, nothing done; logged"), (status = 403), (status = 404)),
    security(("bearer" = [])))]
#[post("/v1/moderation/reports/{id}/dismiss")]
pub async fn dismiss_report(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    body: Body<Why>,
) -> Result<HttpResponse, ApiError> {
    let (id, why, now) = (id.into_inner(), body.into_inner(), state.clock.now());
    db::run(&state.pool, move |c| {
        acts::dismiss(c, caller.user_id, id, why, now)
    })
    .await?;
    Ok(HttpResponse::NoContent().finish())
}

#[utoipa::path(post, path = "/v1/moderation/messages/{id}/hide", tag = "moderation",
    params(("id" = Uuid, Path)), request_body = Why,
    responses((status = 204, description = "hidden from every reader, its reports closed; logged"), (status = 403), (status = 404)),
    security(("bearer" = [])))]
#[post("/v1/moderation/messages/{id}/hide")]
pub async fn hide_message(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    body: Body<Why>,
) -> Result<HttpResponse, ApiError> {
    let (id, why, now) = (id.into_inner(), body.into_inner(), state.clock.now());
    db::run(&state.pool, move |c| {
        acts::hide(c, caller.user_id, id, why, now)
    })
    .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// `{until}`: when a mute ends.
#[derive(Debug, serde::Serialize, serde::Deserialize, utoipa::ToSchema)]
pub struct Muted {
    pub until: chrono::DateTime<chrono::Utc>,
}

#[utoipa::path(post, path = "/v1/moderation/players/{username}/mute", tag = "moderation",
    params(("username" = String, Path)), request_body = MuteFor,
    responses((status = 200, body = Muted, description = "they write nothing until then; logged"), (status = 403), (status = 404)),
    security(("bearer" = [])))]
#[post("/v1/moderation/players/{username}/mute")]
pub async fn mute_player(
    state: web::Data<AppState>,
    caller: Caller,
    username: web::Path<String>,
    body: Body<MuteFor>,
) -> Result<HttpResponse, ApiError> {
    let (name, mute, now) = (username.into_inner(), body.into_inner(), state.clock.now());
    let until = db::run(&state.pool, move |c| {
        acts::mute(c, caller.user_id, &name, mute, now)
    })
    .await?;
    Ok(HttpResponse::Ok().json(Muted { until }))
}

#[utoipa::path(post, path = "/v1/moderation/players/{username}/suspend", tag = "moderation",
    params(("username" = String, Path)), request_body = Why,
    responses((status = 204, description = "no sign-in, sessions ended, matches in play resigned; logged"),
        (status = 403), (status = 404), (status = 409, description = "suspended already")),
    security(("bearer" = [])))]
#[post("/v1/moderation/players/{username}/suspend")]
pub async fn suspend_player(
    state: web::Data<AppState>,
    caller: Caller,
    username: web::Path<String>,
    body: Body<Why>,
) -> Result<HttpResponse, ApiError> {
    let (name, why, now) = (username.into_inner(), body.into_inner(), state.clock.now());
    let mut random = state.roller();
    let ended = db::run(&state.pool, move |c| {
        acts::suspend(c, caller.user_id, &name, why, now, &mut random)
    })
    .await?;
    state.revoked.add(&ended, now);
    Ok(HttpResponse::NoContent().finish())
}

#[utoipa::path(post, path = "/v1/moderation/players/{username}/reinstate", tag = "moderation",
    params(("username" = String, Path)), request_body = Why,
    responses((status = 204, description = "suspension and mute lifted; logged"), (status = 403), (status = 404)),
    security(("bearer" = [])))]
#[post("/v1/moderation/players/{username}/reinstate")]
pub async fn reinstate_player(
    state: web::Data<AppState>,
    caller: Caller,
    username: web::Path<String>,
    body: Body<Why>,
) -> Result<HttpResponse, ApiError> {
    let (name, why, now) = (username.into_inner(), body.into_inner(), state.clock.now());
    db::run(&state.pool, move |c| {
        acts::reinstate(c, caller.user_id, &name, why, now)
    })
    .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// `?before=`: an entry's serial; the page holds older entries.
#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
pub struct Older {
    pub before: Option<i64>,
}

#[utoipa::path(get, path = "/v1/moderation/log", tag = "moderation",
    params(Older),
    responses((status = 200, body = Vec<LogEntry>, description = "the audit log, newest first (100)"), (status = 403)),
    security(("bearer" = [])))]
#[get("/v1/moderation/log")]
pub async fn audit_log(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<Older>,
) -> Result<HttpResponse, ApiError> {
    let before = query.into_inner().before;
    let log = db::read(&state.pool, move |c| {
        moderation::log(c, caller.user_id, before)
    })
    .await?;
    Ok(HttpResponse::Ok().json(log))
}
