//! Computer opponents (docs/bots.md) and takebacks (docs/bots.md,
//! docs/decisions/matches-and-deadlines.md): thin wrappers over
//! `crate::computer` and `matches::takeback`.

use crate::auth::Caller;
use crate::computer::{self, GameBots};
use crate::db;
use crate::http::body::Body;
use crate::http::error::ApiError;
use crate::matches::takeback::{self, TakebackRequest};
use crate::matches::MatchView;
use crate::state::AppState;
use actix_web::{get, post, web, HttpResponse};
use uuid::Uuid;

#[utoipa::path(get, path = "/v1/bots", tag = "matches",
    responses((status = 200, body = Vec<GameBots>, description = "every game's computer opponents: level, rating, names, and the player who sits at the table")))]
#[get("/v1/bots")]
pub async fn list_bots() -> HttpResponse {
    HttpResponse::Ok().json(computer::catalogue())
}

#[utoipa::path(post, path = "/v1/matches/{id}/takeback", tag = "matches",
    params(("id" = Uuid, Path)), request_body = TakebackRequest,
    responses((status = 200, body = MatchView, description = "against the computer, the match after the takeback: the caller's last move and what followed it are undone, and it is their turn again; between two people, the match with the request waiting for the opponent (`takeback_asked_by`)"),
        (status = 404), (status = 409, description = "a stale seq, a match not being played or the caller out of it, or a request already waiting"),
        (status = 422, description = "no move of the caller's to take back; the opponent has moved since; hidden pieces or cards; more than two seats; or the opponent's setting refuses requests in this match")),
    security(("bearer" = [])))]
#[post("/v1/matches/{id}/takeback")]
pub async fn take_back(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    body: Body<TakebackRequest>,
) -> Result<HttpResponse, ApiError> {
    let (id, now, req) = (id.into_inner(), state.clock.now(), body.into_inner());
    let (view, snapshot) = db::run(&state.pool, move |c| {
        takeback::request(c, id, caller.user_id, req, now)
    })
    .await?;
    snapshot.remember();
    Ok(HttpResponse::Ok().json(view))
}

#[utoipa::path(post, path = "/v1/matches/{id}/takeback/accept", tag = "matches",
    params(("id" = Uuid, Path)), request_body = TakebackRequest,
    responses((status = 200, body = MatchView, description = "the opponent's last move is taken back: it is their turn again"),
        (status = 404), (status = 409, description = "a stale seq, or no takeback asked for"),
        (status = 422, description = "the caller asked for it: their opponent answers")),
    security(("bearer" = [])))]
#[post("/v1/matches/{id}/takeback/accept")]
pub async fn accept_takeback(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    body: Body<TakebackRequest>,
) -> Result<HttpResponse, ApiError> {
    respond(state, caller, id.into_inner(), body.into_inner(), true).await
}

#[utoipa::path(post, path = "/v1/matches/{id}/takeback/decline", tag = "matches",
    params(("id" = Uuid, Path)), request_body = TakebackRequest,
    responses((status = 200, body = MatchView, description = "the request is declined: the move stands"),
        (status = 404), (status = 409, description = "a stale seq, or no takeback asked for"),
        (status = 422, description = "the caller asked for it: their opponent answers")),
    security(("bearer" = [])))]
#[post("/v1/matches/{id}/takeback/decline")]
pub async fn decline_takeback(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    body: Body<TakebackRequest>,
) -> Result<HttpResponse, ApiError> {
    respond(state, caller, id.into_inner(), body.into_inner(), false).await
}

async fn respond(
    state: web::Data<AppState>,
    caller: Caller,
    id: Uuid,
    req: TakebackRequest,
    accept: bool,
) -> Result<HttpResponse, ApiError> {
    let now = state.clock.now();
    let (view, snapshot) = db::run(&state.pool, move |c| {
        takeback::respond(c, id, caller.user_id, req, accept, now)
    })
    .await?;
    snapshot.remember();
    Ok(HttpResponse::Ok().json(view))
}

#[utoipa::path(post, path = "/v1/matches/{id}/analysis", tag = "matches",
    params(("id" = Uuid, Path)),
    responses((status = 202, body = crate::computer::analysis::AnalysisView, description = "queued: the engines judge every play, charged to the caller's engine time (docs/analysis.md)"),
        (status = 200, body = crate::computer::analysis::AnalysisView, description = "asked before (one analysis a match, kept): as it stands"),
        (status = 403, description = "the caller is not one of the match's players"),
        (status = 404), (status = 409, description = "the match is not over yet")),
    security(("bearer" = [])))]
#[post("/v1/matches/{id}/analysis")]
pub async fn ask_analysis(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let (id, now) = (id.into_inner(), state.clock.now());
    let (added, view) = db::run(&state.pool, move |c| {
        crate::computer::analysis::ask(c, id, caller.user_id, now)
    })
    .await?;
    Ok(match added {
        true => HttpResponse::Accepted().json(view),
        false => HttpResponse::Ok().json(view),
    })
}

#[utoipa::path(get, path = "/v1/matches/{id}/analysis", tag = "matches",
    params(("id" = Uuid, Path)),
    responses((status = 200, body = crate::computer::analysis::AnalysisView, description = "`none` (nobody asked yet), `queued`, or `done` with the analysis as the caller may see it (§H5: the players see all of it; anyone else the plays judged from what a spectator sees)"),
        (status = 404, description = "no such match for the caller")),
    security(("bearer" = [])))]
#[get("/v1/matches/{id}/analysis")]
pub async fn analysis(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let view = (state.reads)
        .read(move |c| crate::computer::analysis::read(c, id, caller.user_id))
        .await?;
    Ok(HttpResponse::Ok()
        .insert_header((actix_web::http::header::CACHE_CONTROL, "private, no-store"))
        .json(view))
}
