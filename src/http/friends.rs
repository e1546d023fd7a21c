//! Friends and blocks (docs/decisions/friends-and-blocks.md): thin wrappers
//! over `crate::friends`.

use crate::auth::Caller;
use crate::db;
use crate::friends::{self, ChallengeSettings, Friends, Named, RequestState};
use crate::http::body::Body;
use crate::http::error::ApiError;
use crate::players::Player;
use crate::state::AppState;
use actix_web::{delete, get, post, put, web, HttpResponse};

#[utoipa::path(get, path = "/v1/friends", tag = "friends",
    responses((status = 200, body = Friends)), security(("bearer" = [])))]
#[get("/v1/friends")]
pub async fn list_friends(
    state: web::Data<AppState>,
    caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let friends = db::run(&state.pool, move |c| {
        crate::matches::reads::friends(c, caller.user_id)
    })
    .await?;
    Ok(HttpResponse::Ok().json(friends))
}

#[utoipa::path(post, path = "/v1/friends/requests", tag = "friends", request_body = Named,
    responses((status = 201, body = RequestState), (status = 403, description = "blocked"),
        (status = 404), (status = 409, description = "already friends, or asked already"),
        (status = 422, description = "the name is the caller's own"), (status = 429)),
    security(("bearer" = [])))]
#[post("/v1/friends/requests")]
pub async fn send_request(
    state: web::Data<AppState>,
    caller: Caller,
    body: Body<Named>,
) -> Result<HttpResponse, ApiError> {
    let (name, now) = (body.into_inner().username, state.clock.now());
    let sent = db::run(&state.pool, move |c| {
        friends::request(c, caller.user_id, &name, now)
    })
    .await?;
    Ok(HttpResponse::Created().json(sent))
}

#[utoipa::path(post, path = "/v1/friends/requests/{username}/accept", tag = "friends",
    params(("username" = String, Path)),
    responses((status = 204), (status = 404)), security(("bearer" = [])))]
#[post("/v1/friends/requests/{username}/accept")]
pub async fn accept_request(
    state: web::Data<AppState>,
    caller: Caller,
    name: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (name, now) = (name.into_inner(), state.clock.now());
    db::run(&state.pool, move |c| {
        friends::answer(c, caller.user_id, &name, true, now)
    })
    .await?;
    Ok(HttpResponse::NoContent().finish())
}

#[utoipa::path(post, path = "/v1/friends/requests/{username}/decline", tag = "friends",
    params(("username" = String, Path)),
    responses((status = 204), (status = 404)), security(("bearer" = [])))]
#[post("/v1/friends/requests/{username}/decline")]
pub async fn decline_request(
    state: web::Data<AppState>,
    caller: Caller,
    name: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (name, now) = (name.into_inner(), state.clock.now());
    db::run(&state.pool, move |c| {
        friends::answer(c, caller.user_id, &name, false, now)
    })
    .await?;
    Ok(HttpResponse::NoContent().finish())
}

#[utoipa::path(delete, path = "/v1/friends/{username}", tag = "friends",
    params(("username" = String, Path)),
    responses((status = 204), (status = 404)), security(("bearer" = [])))]
#[delete("/v1/friends/{username}")]
pub async fn remove_friend(
    state: web::Data<AppState>,
    caller: Caller,
    name: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let name = name.into_inner();
    db::run(&state.pool, move |c| {
        friends::remove(c, caller.user_id, &name)
    })
    .await?;
    Ok(HttpResponse::NoContent().finish())
}

#[utoipa::path(get, path = "/v1/blocks", tag = "friends",
    responses((status = 200, body = Vec<Player>)), security(("bearer" = [])))]
#[get("/v1/blocks")]
pub async fn list_blocks(
    state: web::Data<AppState>,
    caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let blocked = db::run(&state.pool, move |c| friends::blocked(c, caller.user_id)).await?;
    Ok(HttpResponse::Ok().json(blocked))
}

#[utoipa::path(post, path = "/v1/blocks", tag = "friends", request_body = Named,
    responses((status = 201, body = Player), (status = 404), (status = 422, description = "the name is the caller's own")), security(("bearer" = [])))]
#[post("/v1/blocks")]
pub async fn block(
    state: web::Data<AppState>,
    caller: Caller,
    body: Body<Named>,
) -> Result<HttpResponse, ApiError> {
    let (name, now) = (body.into_inner().username, state.clock.now());
    let blocked = db::run(&state.pool, move |c| {
        friends::block(c, caller.user_id, &name, now)
    })
    .await?;
    Ok(HttpResponse::Created().json(blocked))
}

#[utoipa::path(delete, path = "/v1/blocks/{username}", tag = "friends",
    params(("username" = String, Path)),
    responses((status = 204), (status = 404)), security(("bearer" = [])))]
#[delete("/v1/blocks/{username}")]
pub async fn unblock(
    state: web::Data<AppState>,
    caller: Caller,
    name: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let name = name.into_inner();
    db::run(&state.pool, move |c| {
        friends::unblock(c, caller.user_id, &name)
    })
    .await?;
    Ok(HttpResponse::NoContent().finish())
}

#[utoipa::path(get, path = "/v1/me/challenge-settings", tag = "friends",
    responses((status = 200, body = ChallengeSettings)), security(("bearer" = [])))]
#[get("/v1/me/challenge-settings")]
pub async fn get_challenge_settings(
    state: web::Data<AppState>,
    caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let settings = db::run(&state.pool, move |c| {
        friends::challenge_settings(c, caller.user_id)
    })
    .await?;
    Ok(HttpResponse::Ok().json(settings))
}

#[utoipa::path(put, path = "/v1/me/challenge-settings", tag = "friends",
    request_body = ChallengeSettings,
    responses((status = 200, body = ChallengeSettings), (status = 400)), security(("bearer" = [])))]
#[put("/v1/me/challenge-settings")]
pub async fn put_challenge_settings(
    state: web::Data<AppState>,
    caller: Caller,
    body: Body<ChallengeSettings>,
) -> Result<HttpResponse, ApiError> {
    let settings = body.into_inner();
    let saved = db::run(&state.pool, move |c| {
        friends::set_challenge_settings(c, caller.user_id, settings)
    })
    .await?;
    Ok(HttpResponse::Ok().json(saved))
}
