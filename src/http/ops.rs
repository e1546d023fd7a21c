//! Public endpoints: health, readiness, metrics and the game catalogue.

use crate::error::ApiError;
use crate::state::AppState;
use actix_web::{get, web, HttpResponse};
use diesel::RunQueryDsl;
use posthorn_rules::GameId;
use serde::Serialize;
use std::collections::BTreeMap;
use utoipa::ToSchema;

#[utoipa::path(get, path = "/healthz", tag = "operations", responses((status = 200)))]
#[get("/healthz")]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(serde_json::json!({"status": "ok"}))
}

#[utoipa::path(get, path = "/readyz", tag = "operations", responses((status = 200), (status = 503)))]
#[get("/readyz")]
pub async fn readyz(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    crate::db::run(&state.pool, |c| {
        diesel::sql_query("SELECT 1").execute(c)?;
        Ok(())
    })
    .await
    .map_err(|_| ApiError::unavailable("the database is not reachable"))?;
    Ok(HttpResponse::Ok().json(serde_json::json!({"status": "ready"})))
}

#[utoipa::path(get, path = "/metrics", tag = "operations", responses((status = 200, content_type = "text/plain")))]
#[get("/metrics")]
pub async fn metrics(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4")
        .body(state.metrics.render(&state.pool))
}

#[derive(Serialize, ToSchema)]
pub struct SeatRange {
    pub min: usize,
    pub max: usize,
}

#[derive(Serialize, ToSchema)]
pub struct GameEntry {
    pub id: &'static str,
    pub name: &'static str,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<&'static str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub modes: Vec<&'static str>,
    pub seats: SeatRange,
    /// Option name → what it does.
    pub options: BTreeMap<&'static str, &'static str>,
}

#[utoipa::path(get, path = "/v1/games", tag = "games", responses((status = 200, body = Vec<GameEntry>)))]
#[get("/v1/games")]
pub async fn games() -> HttpResponse {
    let catalogue: Vec<GameEntry> = GameId::ALL
        .iter()
        .map(|g| {
            let about = g.about();
            GameEntry {
                id: about.id,
                name: about.name,
                variants: about.variants.to_vec(),
                modes: about.modes.to_vec(),
                seats: SeatRange {
                    min: about.seats.0,
                    max: about.seats.1,
                },
                options: about.options.iter().copied().collect(),
            }
        })
        .collect();
    HttpResponse::Ok().json(catalogue)
}
