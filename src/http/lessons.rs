//! First steps (docs/lessons.md): thin wrappers over `crate::lessons`.
//! A visitor with no account plays them too (the page keeps their
//! progress and replays it into the account made later); a signed-in
//! player's completed steps are kept.

use crate::db;
use crate::http::body::Body;
use crate::http::caller::Visitor;
use crate::http::error::ApiError;
use crate::lessons::{self, LessonsView, TryView};
use crate::state::AppState;
use actix_web::{get, post, web, HttpResponse};
use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;

#[utoipa::path(get, path = "/v1/lessons/{game}", tag = "lessons",
    params(("game" = String, Path, description = "the game (`flipchess`, `janggi`, …)")),
    responses((status = 200, body = LessonsView, description = "the game's steps in order, each marked done where I completed it (a visitor with no token: none)"),
        (status = 404, description = "no such game")),
    security((), ("bearer" = [])))]
#[get("/v1/lessons/{game}")]
pub async fn list(
    state: web::Data<AppState>,
    visitor: Visitor,
    game: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let game = game.into_inner();
    let view = match visitor.0 {
        Some(me) => db::run(&state.pool, move |c| lessons::list(c, me.user_id, &game)).await?,
        // A visitor's costs no connection: nothing of theirs is stored.
        None => web::block(move || lessons::list_for_visitor(&game)).await??,
    };
    Ok(HttpResponse::Ok().json(view))
}

#[utoipa::path(get, path = "/v1/lessons/{game}/{step}", tag = "lessons",
    params(("game" = String, Path), ("step" = String, Path, description = "the step's key")),
    responses((status = 200, body = TryView, description = "the step's board before I act, and my legal actions"),
        (status = 404, description = "no such game or step")),
    security((), ("bearer" = [])))]
#[get("/v1/lessons/{game}/{step}")]
pub async fn open(
    state: web::Data<AppState>,
    visitor: Visitor,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (now, (game, step)) = (state.clock.now(), path.into_inner());
    let view = match visitor.0 {
        Some(me) => {
            let me = me.user_id;
            db::run(&state.pool, move |c| {
                lessons::try_step(c, me, &game, &step, &[], now)
            })
            .await?
        }
        None => web::block(move || lessons::judge(&game, &step, &[])).await??,
    };
    Ok(HttpResponse::Ok().json(view))
}

/// `POST /v1/lessons/{game}/{step}/moves`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct StepActions {
    /// Every action I have played in this step so far, the newest last,
    /// as the game's own act call takes each.
    #[schema(value_type = Vec<Object>)]
    pub actions: Vec<Value>,
}

#[utoipa::path(post, path = "/v1/lessons/{game}/{step}/moves", tag = "lessons",
    params(("game" = String, Path), ("step" = String, Path, description = "the step's key")),
    request_body = StepActions,
    responses((status = 200, body = TryView, description = "`playing` (right so far), `done` (recorded as mine when signed in; a visitor's is not kept), or `not_this_way` (legal, but not what the step teaches: not played)"),
        (status = 422, description = "an action the rules refuse: nothing changes"),
        (status = 404, description = "no such game or step")),
    security((), ("bearer" = [])))]
#[post("/v1/lessons/{game}/{step}/moves")]
pub async fn attempt(
    state: web::Data<AppState>,
    visitor: Visitor,
    path: web::Path<(String, String)>,
    body: Body<StepActions>,
) -> Result<HttpResponse, ApiError> {
    let (now, (game, step)) = (state.clock.now(), path.into_inner());
    let actions = body.into_inner().actions;
    let view = match visitor.0 {
        Some(me) => {
            let me = me.user_id;
            let tried = move |c: &mut diesel::PgConnection| {
                lessons::try_step(c, me, &game, &step, &actions, now)
            };
            db::run(&state.pool, tried).await
        }
        None => web::block(move || lessons::judge(&game, &step, &actions))
            .await
            .map_err(|e| crate::error::Error::internal(e.to_string()))
            .and_then(|judged| judged),
    }
    // The document states every game's actions (the lesson's game is a
    // path parameter it cannot tie them to): what the game refuses in a
    // well-formed list is refused for its meaning (docs/fuzzing.md).
    .map_err(crate::error::Error::for_its_meaning)?;
    Ok(HttpResponse::Ok().json(view))
}
