//! Computer opponents (issue #32): thin wrappers over `crate::computer`
//! and `matches::takeback`.

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
    responses((status = 200, body = MatchView, description = "the match after the takeback: the caller's last move and what followed it are undone, and it is their turn again"),
        (status = 404), (status = 409), (status = 422, description = "not a match against the computer, or no move of the caller's to take back")),
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
