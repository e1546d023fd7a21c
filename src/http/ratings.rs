//! Leaderboards and profiles (docs/decisions/ratings.md): thin wrappers
//! over `crate::ratings`.

use crate::auth::Caller;
use crate::error::Error;
use crate::http::error::ApiError;
use crate::ratings::{board, perfs, profile};
use crate::state::AppState;
use actix_web::{get, web, HttpResponse};
use serde::Deserialize;
use utoipa::IntoParams;

#[derive(Clone, Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct BoardQuery {
    #[param(schema_with = crate::enforced::board_cursor)]
    cursor: Option<String>,
    /// `me`: my rank and the players just above and below me.
    #[param(pattern = "^me$")]
    around: Option<String>,
    /// `friends`: me and my friends, ranked among us.
    #[param(pattern = "^friends$")]
    scope: Option<String>,
}

#[utoipa::path(get, path = "/v1/leaderboards/{perf}", tag = "ratings",
    params(("perf" = String, Path, description = "a game with its variant or mode: `checkers/american`, `flipchess`, `janggi`, `banqi`, `four_player_chess/teams`, …"), BoardQuery),
    responses((status = 200, body = board::Board), (status = 400), (status = 404, description = "no such perf, or (around=me) no rating of mine in it")),
    security(("bearer" = [])))]
#[get("/v1/leaderboards/{perf:.+}")]
pub async fn leaderboard(
    state: web::Data<AppState>,
    caller: Caller,
    perf: web::Path<String>,
    query: web::Query<BoardQuery>,
) -> Result<HttpResponse, ApiError> {
    let perf = perf.into_inner();
    if !perfs().contains(&perf) {
        return Err(Error::not_found("perf").into());
    }
    let query = query.into_inner();
    if query.around.as_deref().is_some_and(|a| a != "me")
        || query.scope.as_deref().is_some_and(|s| s != "friends")
    {
        return Err(Error::validation("around takes `me`, scope takes `friends`").into());
    }
    // Leaderboards, profiles and head-to-head read a replica when one is
    // configured (docs/operations.md, "The database: failover, replicas,
    // backups").
    let found = (state.reads)
        .read(move |c| match (&query.around, &query.scope) {
            (Some(_), _) => board::around(c, &perf, caller.user_id),
            (None, Some(_)) => board::friends(c, &perf, caller.user_id),
            (None, None) => board::page(c, &perf, query.cursor.as_deref()),
        })
        .await?;
    Ok(HttpResponse::Ok().json(found))
}

#[utoipa::path(get, path = "/v1/users/{username}", tag = "ratings",
    params(("username" = String, Path)),
    responses((status = 200, body = profile::Profile), (status = 404)), security(("bearer" = [])))]
#[get("/v1/users/{username}")]
pub async fn user_profile(
    state: web::Data<AppState>,
    caller: Caller,
    name: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let name = name.into_inner();
    let found = (state.reads)
        .read(move |c| profile::profile(c, caller.user_id, &name))
        .await?;
    Ok(HttpResponse::Ok().json(found))
}

#[utoipa::path(get, path = "/v1/users/{username}/head-to-head", tag = "ratings",
    params(("username" = String, Path)),
    responses((status = 200, body = profile::HeadToHead), (status = 404)), security(("bearer" = [])))]
#[get("/v1/users/{username}/head-to-head")]
pub async fn head_to_head(
    state: web::Data<AppState>,
    caller: Caller,
    name: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let name = name.into_inner();
    let found = (state.reads)
        .read(move |c| profile::head_to_head(c, caller.user_id, &name))
        .await?;
    Ok(HttpResponse::Ok().json(found))
}
