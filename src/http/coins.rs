//! Coins and looks (docs/rules/rewards.md): thin wrappers over
//! `crate::coins`.

use crate::auth::Caller;
use crate::coins::looks::{self, Bought, Looks};
use crate::coins::{self, Ledger};
use crate::db;
use crate::http::body::Body;
use crate::http::error::ApiError;
use crate::idempotency;
use crate::players::Worn;
use crate::state::AppState;
use actix_web::{get, post, put, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// `?before=`: a ledger line's id; the page holds older lines.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
pub struct Older {
    pub before: Option<i64>,
}

/// A page of the ledger.
const PAGE: i64 = 50;

#[utoipa::path(get, path = "/v1/me/coins", tag = "coins",
    params(Older),
    responses((status = 200, body = Ledger, description = "my balance and my ledger, newest first (50 lines a page): what paid what")),
    security(("bearer" = [])))]
#[get("/v1/me/coins")]
pub async fn my_coins(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<Older>,
) -> Result<HttpResponse, ApiError> {
    let before = query.into_inner().before;
    let ledger = db::read(&state.pool, move |c| {
        coins::ledger(c, caller.user_id, before, PAGE)
    })
    .await?;
    Ok(HttpResponse::Ok().json(ledger))
}

#[utoipa::path(get, path = "/v1/me/looks", tag = "coins",
    responses((status = 200, body = Looks, description = "every look, whether it is mine, and what I wear")),
    security(("bearer" = [])))]
#[get("/v1/me/looks")]
pub async fn my_looks(
    state: web::Data<AppState>,
    caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let found = db::read(&state.pool, move |c| looks::mine(c, caller.user_id)).await?;
    Ok(HttpResponse::Ok().json(found))
}

/// `POST /v1/me/looks/purchases`.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Purchase {
    /// The look's id (`theme.janggi.walnut`, `emblem.star`).
    pub item: String,
}

#[utoipa::path(post, path = "/v1/me/looks/purchases", tag = "coins",
    params(("Idempotency-Key" = Option<String>, Header, pattern = "^[!-~]{1,128}$", description = "a retry with the same key gets the first answer and pays once; the same key for another look gets 422 idempotency_key_reused")),
    request_body = Purchase,
    responses((status = 201, body = Bought, description = "bought: mine to wear"),
        (status = 409, description = "`not_enough_coins`, or the look is mine already"),
        (status = 422, description = "the key was used for another look")),
    security(("bearer" = [])))]
#[post("/v1/me/looks/purchases")]
pub async fn buy(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    body: Body<Purchase>,
) -> Result<HttpResponse, ApiError> {
    let key = match req.headers().get("Idempotency-Key") {
        Some(value) => Some(idempotency::check_key(value.as_bytes())?),
        None => None,
    };
    let (item, now) = (body.into_inner().item, state.clock.now());
    let bought: Bought = db::run(&state.pool, move |c| {
        looks::buy(c, caller.user_id, &item, key.as_deref(), now)
    })
    .await?;
    Ok(HttpResponse::Created().json(bought))
}

#[utoipa::path(put, path = "/v1/me/looks", tag = "coins",
    request_body = Worn,
    responses((status = 200, body = Worn, description = "worn from now: the emblem beside my name everywhere, each theme on my own boards"),
        (status = 409, description = "a look that is not mine"),
        (status = 422, description = "no such look")),
    security(("bearer" = [])))]
#[put("/v1/me/looks")]
pub async fn wear(
    state: web::Data<AppState>,
    caller: Caller,
    body: Body<Worn>,
) -> Result<HttpResponse, ApiError> {
    let worn = body.into_inner();
    let worn = db::run(&state.pool, move |c| looks::wear(c, caller.user_id, worn)).await?;
    Ok(HttpResponse::Ok().json(worn))
}
