//! Notification settings and one-click unsubscribe (RFC 8058).

use crate::auth::Caller;
use crate::db;
use crate::http::body::Body;
use crate::http::error::ApiError;
use crate::notify::{self, push, Kind, Settings};
use crate::state::AppState;
use actix_web::{get, post, put, web, HttpResponse};
use serde::Deserialize;
use utoipa::IntoParams;

#[utoipa::path(get, path = "/v1/me/notification-settings", tag = "notifications",
    responses((status = 200, body = Settings)), security(("bearer" = [])))]
#[get("/v1/me/notification-settings")]
pub async fn get_settings(
    state: web::Data<AppState>,
    caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let settings = db::run(&state.pool, move |c| notify::settings_of(c, caller.user_id)).await?;
    Ok(HttpResponse::Ok().json(settings))
}

#[utoipa::path(put, path = "/v1/me/notification-settings", tag = "notifications", request_body = Settings,
    responses((status = 200, body = Settings), (status = 400)), security(("bearer" = [])))]
#[put("/v1/me/notification-settings")]
pub async fn put_settings(
    state: web::Data<AppState>,
    caller: Caller,
    body: Body<Settings>,
) -> Result<HttpResponse, ApiError> {
    let settings = body.into_inner();
    settings.check()?;
    let saved = settings.clone();
    db::run(&state.pool, move |c| {
        notify::save_settings(c, caller.user_id, &saved)
    })
    .await?;
    Ok(HttpResponse::Ok().json(settings))
}

#[derive(Debug, Deserialize, IntoParams)]
pub struct UnsubscribeQuery {
    /// The signed token from the email's link.
    token: String,
}

/// RFC 8058 one-click: the mail client POSTs; no sign-in needed, the
/// signed token says who and from what.
#[utoipa::path(post, path = "/v1/unsubscribe", tag = "notifications", params(UnsubscribeQuery),
    responses((status = 200), (status = 404)))]
#[post("/v1/unsubscribe")]
pub async fn unsubscribe(
    state: web::Data<AppState>,
    query: web::Query<UnsubscribeQuery>,
) -> Result<HttpResponse, ApiError> {
    let (user, kind) = state.keys.verify_unsubscribe(&query.token)?;
    let kind = Kind::parse(&kind).ok_or_else(|| ApiError::not_found("unsubscribe link"))?;
    db::run(&state.pool, move |c| {
        let mut settings = notify::settings_of(c, user)?;
        settings.stop_email(kind);
        notify::save_settings(c, user, &settings)
    })
    .await?;
    Ok(HttpResponse::Ok().json(serde_json::json!({"unsubscribed": kind.name()})))
}

/// A person who clicks the link gets a button, so that link scanners
/// (which only GET) unsubscribe nobody.
#[utoipa::path(get, path = "/v1/unsubscribe", tag = "notifications", params(UnsubscribeQuery),
    responses((status = 200, content_type = "text/html")))]
#[get("/v1/unsubscribe")]
pub async fn unsubscribe_page(
    state: web::Data<AppState>,
    query: web::Query<UnsubscribeQuery>,
) -> Result<HttpResponse, ApiError> {
    state.keys.verify_unsubscribe(&query.token)?;
    let token: String = query
        .token
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || "-_.".contains(*c))
        .collect();
    let page = format!(
        "<!DOCTYPE html><html><body><form method=\"post\" action=\"/v1/unsubscribe?token={token}\">\
         <button type=\"submit\">Stop these emails</button></form></body></html>"
    );
    // The token in the address is the reader's: kept by no cache.
    Ok(HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .insert_header((actix_web::http::header::CACHE_CONTROL, "no-store"))
        .body(page))
}

#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct VapidKey {
    /// The VAPID public key, base64url (the `applicationServerKey`).
    key: String,
}

#[utoipa::path(get, path = "/v1/push/vapid-public-key", tag = "notifications",
    responses((status = 200, body = VapidKey)), security(("bearer" = [])))]
#[get("/v1/push/vapid-public-key")]
pub async fn vapid_public_key(state: web::Data<AppState>, _caller: Caller) -> HttpResponse {
    HttpResponse::Ok().json(VapidKey {
        key: state.vapid.public_b64.clone(),
    })
}

#[utoipa::path(post, path = "/v1/push-subscriptions", tag = "notifications", request_body = push::NewSubscription,
    responses((status = 201, body = push::SubscriptionId), (status = 400)), security(("bearer" = [])))]
#[post("/v1/push-subscriptions")]
pub async fn subscribe(
    state: web::Data<AppState>,
    caller: Caller,
    body: Body<push::NewSubscription>,
) -> Result<HttpResponse, ApiError> {
    let (now, vapid) = (state.clock.now(), state.vapid.clone());
    let sub = body.into_inner();
    let id = db::run(&state.pool, move |c| {
        push::subscribe(c, &vapid, caller.user_id, sub, now)
    })
    .await?;
    Ok(HttpResponse::Created().json(id))
}

#[utoipa::path(delete, path = "/v1/push-subscriptions/{id}", tag = "notifications", params(("id" = uuid::Uuid, Path)),
    responses((status = 204), (status = 404)), security(("bearer" = [])))]
#[actix_web::delete("/v1/push-subscriptions/{id}")]
pub async fn unsubscribe_push(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<uuid::Uuid>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    db::run(&state.pool, move |c| {
        push::unsubscribe(c, caller.user_id, id)
    })
    .await?;
    Ok(HttpResponse::NoContent().finish())
}
