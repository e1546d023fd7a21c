//! Public endpoints: health, readiness, metrics and the game catalogue.

use crate::http::error::{ApiError, Code};
use crate::state::AppState;
use actix_web::http::header;
use actix_web::{get, web, HttpRequest, HttpResponse};
use posthorn_rules::GameId;
use serde::Serialize;
use std::collections::BTreeMap;
use utoipa::ToSchema;

#[utoipa::path(get, path = "/healthz", tag = "operations", responses((status = 200)))]
#[get("/healthz")]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(serde_json::json!({"status": "ok"}))
}

#[utoipa::path(get, path = "/readyz", tag = "operations", responses((status = 200, description = "`{status, database: {role, lag_seconds}, replica?: {role, lag_seconds, reachable}}`: the role of the server answering (`primary` or `replica`) and the replication lag the service sees"), (status = 503)))]
#[get("/readyz")]
pub async fn readyz(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    // Stopping (docs/operations.md, "Stopping and rolling restarts"): out
    // of the proxy's rotation while the requests in flight finish.
    if state.stopping.draining() {
        return Err(ApiError::new(
            Code::Unavailable,
            "draining: this instance is stopping",
        ));
    }
    use crate::db::replica::standing;
    let primary = crate::db::run(&state.pool, standing)
        .await
        .map_err(|_| ApiError::new(Code::Unavailable, "the database is not reachable"))?;
    let role = |in_recovery: bool| if in_recovery { "replica" } else { "primary" };
    let mut ready = serde_json::json!({
        "status": "ready",
        "database": {"role": role(primary.in_recovery), "lag_seconds": primary.lag_seconds},
    });
    if let Some(replica) = state.reads.replica() {
        // A replica that is down leaves the service ready: reads go to
        // the primary (docs/operations.md, "The database: failover,
        // replicas, backups").
        let seen = crate::db::read(replica, standing).await.ok();
        ready["replica"] = match seen {
            Some(s) => {
                serde_json::json!({"reachable": true, "role": role(s.in_recovery), "lag_seconds": s.lag_seconds})
            }
            None => serde_json::json!({"reachable": false}),
        };
    }
    Ok(HttpResponse::Ok().json(ready))
}

/// The page a problem document's `type` names (RFC 9457 §3.1.1): what the
/// code means and what a client should do.
#[utoipa::path(get, path = "/problems/{code}", tag = "operations",
    params(("code" = String, Path, description = "a problem `code`")),
    responses((status = 200, content_type = "text/html"), (status = 404)))]
#[get("/problems/{code}")]
pub async fn problem_page(code: web::Path<String>) -> Result<HttpResponse, ApiError> {
    let code = Code::parse(&code).ok_or_else(|| ApiError::not_found("problem code"))?;
    let status = code.status();
    let page = format!(
        "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><title>{name}</title>\
         <h1><code>{name}</code> — {number} {reason}</h1><p>{meaning}</p></html>",
        name = code.as_str(),
        number = status.as_u16(),
        reason = status.canonical_reason().unwrap_or("Error"),
        meaning = code.meaning(),
    );
    Ok(HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .body(page))
}

/// Prometheus text, for the operator's scraper only: it needs
/// `Authorization: Bearer <POSTHORN_METRICS_TOKEN>`. Without that token —
/// and for everyone when none is configured — the answer is 404, as for a
/// path that does not exist, so a prober learns nothing.
#[utoipa::path(get, path = "/metrics", tag = "operations",
    responses((status = 200, content_type = "text/plain"), (status = 404)))]
#[get("/metrics")]
pub async fn metrics(
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let authorization = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    if !crate::metrics::may_read(state.config.metrics_token.as_deref(), authorization) {
        return Err(ApiError::not_found("endpoint"));
    }
    Ok(HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4")
        .body(
            state.metrics.render(&state.pool, state.live.pages())
                + &state.live.metrics()
                + &crate::notify::native::metrics()
                + &crate::notify::at_table::metrics(),
        ))
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
    /// Where the served OpenAPI document gives the schema of this game's
    /// `options` (`/v1/openapi.json#/components/schemas/JanggiOptions`).
    pub options_schema: String,
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
                options_schema: format!(
                    "/v1/openapi.json#/components/schemas/{}",
                    crate::http::game_schemas::prefix(*g)
                ) + "Options",
            }
        })
        .collect();
    HttpResponse::Ok().json(catalogue)
}
