//! Puzzles (docs/puzzles.md): thin wrappers over `crate::puzzles::solve`.
//! Guests may solve; only accounts are rated.

use crate::auth::Caller;
use crate::db;
use crate::http::body::Body;
use crate::http::error::ApiError;
use crate::puzzles::solve::{self, MoveAnswer, PuzzleView, Solver};
use crate::puzzles::streak::{self, MyPuzzles};
use crate::state::AppState;
use actix_web::{get, post, web, HttpResponse};
use serde::Deserialize;
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameQuery {
    game: String,
}

/// `?game=&variant=`: a game and, optionally, one of its variants.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PuzzleQuery {
    game: String,
    variant: Option<String>,
}

/// `?game=`, required (docs/fuzzing.md: the document once let it out while
/// the service refused a request without it). Written by hand: utoipa drops
/// `required` from a parameter whose schema is given by a function.
impl IntoParams for GameQuery {
    fn into_params(
        parameter_in: impl Fn() -> Option<utoipa::openapi::path::ParameterIn>,
    ) -> Vec<utoipa::openapi::path::Parameter> {
        use utoipa::openapi::path::ParameterBuilder;
        vec![ParameterBuilder::new()
            .name("game")
            .parameter_in(parameter_in().unwrap_or_default())
            .required(utoipa::openapi::Required::True)
            .description(Some("The game (`janggi`, `checkers`, …)."))
            .schema(Some(crate::enforced::game_id_required()))
            .build()]
    }
}

impl IntoParams for PuzzleQuery {
    fn into_params(
        parameter_in: impl Fn() -> Option<utoipa::openapi::path::ParameterIn>,
    ) -> Vec<utoipa::openapi::path::Parameter> {
        use utoipa::openapi::path::ParameterBuilder;
        use utoipa::openapi::{schema::Type, ObjectBuilder, Required};
        let mut params = GameQuery::into_params(&parameter_in);
        params.push(
            ParameterBuilder::new()
                .name("variant")
                .parameter_in(parameter_in().unwrap_or_default())
                .required(Required::False)
                .description(Some(
                    "A variant of the game (`international`, …). For the daily puzzle, when left out: the variant I play most, else the game's first (American checkers); for the next, any.",
                ))
                .schema(Some(ObjectBuilder::new().schema_type(Type::String)))
                .build(),
        );
        params
    }
}

fn solver(caller: &Caller) -> Solver {
    Solver {
        user: caller.user_id,
        guest: caller.guest,
    }
}

#[utoipa::path(get, path = "/v1/puzzles/daily", tag = "puzzles", params(PuzzleQuery),
    responses((status = 200, body = PuzzleView, description = "today's puzzle of that game (my day, in my time zone), the same for everyone whose day it is"),
        (status = 404, description = "that game has no puzzles yet")),
    security(("bearer" = [])))]
#[get("/v1/puzzles/daily")]
pub async fn daily(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<PuzzleQuery>,
) -> Result<HttpResponse, ApiError> {
    let (me, now, PuzzleQuery { game, variant }) =
        (solver(&caller), state.clock.now(), query.into_inner());
    let view = db::run(&state.pool, move |c| {
        solve::daily(c, me, (&game, variant.as_deref()), now)
    })
    .await?;
    Ok(HttpResponse::Ok().json(view))
}

#[utoipa::path(get, path = "/v1/puzzles/next", tag = "puzzles", params(PuzzleQuery),
    responses((status = 200, body = PuzzleView, description = "the one I left unfinished, else a new one nearest my puzzle rating"),
        (status = 404, description = "no puzzle left in that game")),
    security(("bearer" = [])))]
#[get("/v1/puzzles/next")]
pub async fn next(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<PuzzleQuery>,
) -> Result<HttpResponse, ApiError> {
    let (me, now, PuzzleQuery { game, variant }) =
        (solver(&caller), state.clock.now(), query.into_inner());
    let view = db::run(&state.pool, move |c| {
        solve::next(c, me, (&game, variant.as_deref()), now)
    })
    .await?;
    Ok(HttpResponse::Ok().json(view))
}

#[utoipa::path(get, path = "/v1/puzzles/{id}", tag = "puzzles", params(("id" = Uuid, Path)),
    responses((status = 200, body = PuzzleView), (status = 404)),
    security(("bearer" = [])))]
#[get("/v1/puzzles/{id}")]
pub async fn show(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let (me, now, id) = (solver(&caller), state.clock.now(), id.into_inner());
    let view = db::run(&state.pool, move |c| solve::show(c, me, id, now)).await?;
    Ok(HttpResponse::Ok().json(view))
}

/// `POST /v1/puzzles/{id}/moves`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PuzzleMove {
    /// One action, as the game's own act call takes it.
    #[schema(value_type = Object)]
    pub action: Value,
}

#[utoipa::path(post, path = "/v1/puzzles/{id}/moves", tag = "puzzles", params(("id" = Uuid, Path)),
    request_body = PuzzleMove,
    responses((status = 200, body = MoveAnswer, description = "`right` with the opponent's replies, `solved`, or `not_the_move` (the board unchanged)"),
        (status = 422, description = "a move the rules refuse: nothing changes"),
        (status = 409, description = "this puzzle is over for me (solved or given up)")),
    security(("bearer" = [])))]
#[post("/v1/puzzles/{id}/moves")]
pub async fn play(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    body: Body<PuzzleMove>,
) -> Result<HttpResponse, ApiError> {
    let (me, now, id, action) = (
        solver(&caller),
        state.clock.now(),
        id.into_inner(),
        body.into_inner().action,
    );
    let answer = db::run(&state.pool, move |c| solve::play(c, me, id, action, now))
        .await
        // The document states every game's actions (the puzzle's game is
        // not in the request): what its game refuses is 422.
        .map_err(crate::error::Error::for_its_meaning)?;
    Ok(HttpResponse::Ok().json(answer))
}

#[utoipa::path(post, path = "/v1/puzzles/{id}/give-up", tag = "puzzles", params(("id" = Uuid, Path)),
    responses((status = 200, body = PuzzleView, description = "the puzzle with its solution; a give-up counts as a loss if nothing counted yet")),
    security(("bearer" = [])))]
#[post("/v1/puzzles/{id}/give-up")]
pub async fn give_up(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let (me, now, id) = (solver(&caller), state.clock.now(), id.into_inner());
    let view = db::run(&state.pool, move |c| solve::give_up(c, me, id, now)).await?;
    Ok(HttpResponse::Ok().json(view))
}

#[utoipa::path(get, path = "/v1/me/puzzles", tag = "puzzles", params(GameQuery),
    responses((status = 200, body = MyPuzzles, description = "my puzzle rating in that game and my daily streak")),
    security(("bearer" = [])))]
#[get("/v1/me/puzzles")]
pub async fn mine(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<GameQuery>,
) -> Result<HttpResponse, ApiError> {
    let (me, now, game) = (solver(&caller), state.clock.now(), query.into_inner().game);
    let found = db::run(&state.pool, move |c| streak::mine(c, me, &game, now)).await?;
    Ok(HttpResponse::Ok().json(found))
}
