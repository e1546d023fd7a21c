//! Notification settings and one-click unsubscribe (RFC 8058).

use crate::auth::Caller;
use crate::db;
use crate::error::ApiError;
use crate::notify::{self, Kind, Settings};
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
    body: web::Json<Settings>,
) -> Result<HttpResponse, ApiError> {
    let settings = body.into_inner();
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
        settings.email.set(kind, false);
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
    Ok(HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .body(page))
}
