//! The native apps' devices (docs/decisions/native-push.md):
//! `POST/GET /v1/devices`, `DELETE /v1/devices/{id}` and
//! `GET /v1/push/platforms`.

use super::body::Body;
use super::error::ApiError;
use crate::auth::Caller;
use crate::db;
use crate::notify::native::devices::{self, Device, Devices, NewDevice, Platforms};
use crate::state::AppState;
use actix_web::{delete, get, post, web, HttpResponse};

#[utoipa::path(get, path = "/v1/push/platforms", tag = "notifications",
    responses((status = 200, body = Platforms, description = "the native apps this service pushes to; a platform that is false refuses its devices with 422 `platform_unavailable`")))]
#[get("/v1/push/platforms")]
pub async fn push_platforms(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok().json(devices::platforms(&state.native))
}

#[utoipa::path(post, path = "/v1/devices", tag = "notifications", request_body = NewDevice,
    responses((status = 201, body = Device, description = "registered (or moved here from another account, or renewed)"),
        (status = 422, description = "`platform_unavailable`: no push to that platform; `validation_failed`: another app")),
    security(("bearer" = [])))]
#[post("/v1/devices")]
pub async fn register_device(
    state: web::Data<AppState>,
    caller: Caller,
    body: Body<NewDevice>,
) -> Result<HttpResponse, ApiError> {
    let (now, native, new) = (state.clock.now(), state.native.clone(), body.into_inner());
    let device = db::run(&state.pool, move |c| {
        devices::register(c, &native, caller.user_id, caller.session, new, now)
    })
    .await?;
    Ok(HttpResponse::Created().json(device))
}

#[utoipa::path(get, path = "/v1/devices", tag = "notifications",
    responses((status = 200, body = Devices)), security(("bearer" = [])))]
#[get("/v1/devices")]
pub async fn list_devices(
    state: web::Data<AppState>,
    caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let found = db::run(&state.pool, move |c| {
        devices::list(c, caller.user_id, caller.session)
    })
    .await?;
    Ok(HttpResponse::Ok().json(found))
}

#[utoipa::path(delete, path = "/v1/devices/{id}", tag = "notifications", params(("id" = uuid::Uuid, Path)),
    responses((status = 204), (status = 404)), security(("bearer" = [])))]
#[delete("/v1/devices/{id}")]
pub async fn remove_device(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<uuid::Uuid>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    db::run(&state.pool, move |c| devices::remove(c, caller.user_id, id)).await?;
    Ok(HttpResponse::NoContent().finish())
}
