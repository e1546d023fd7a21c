//! The HTTP face: routes, request limits, error documents for malformed
//! requests, request ids and logs, and the OpenAPI document.

pub mod accounts;
pub mod body;
pub mod caller;
pub mod client;
pub mod coins;
pub mod computer;
pub mod conditional;
pub mod devices;
pub mod edge;
pub mod error;
pub mod friends;
pub mod game_examples;
pub mod game_schemas;
pub mod headers;
pub mod identities;
pub mod lessons;
pub mod live;
pub mod matches;
pub mod moderation;
pub mod my_data;
pub mod native_push;
pub mod notify;
pub mod openapi;
pub mod ops;
pub mod puzzles;
pub mod ratings;
pub mod reauth;
pub mod seeks;
pub mod speak;
pub mod talk;
pub mod tournaments;
pub mod vacation;

pub use openapi::ApiDoc;

use crate::config::Config;
use crate::state::AppState;
use actix_web::dev::{Service, ServiceResponse};
use actix_web::error::{PathError, QueryPayloadError};
use actix_web::http::header::{self, HeaderName, HeaderValue};
use actix_web::{web, HttpRequest, HttpResponse, ResponseError};
use error::{ApiError, Code};
use openapi::KnownPaths;
use std::time::Instant;
use utoipa::OpenApi;
use utoipa_swagger_ui::SwaggerUi;

fn path_error(_: PathError, _: &HttpRequest) -> actix_web::Error {
    ApiError::not_found("resource").into()
}

fn query_error(err: QueryPayloadError, _: &HttpRequest) -> actix_web::Error {
    ApiError::validation(format!("the query string is not valid: {err}")).into()
}

/// No route took the request: a documented path asked with another method
/// gets 405 and the methods it answers (RFC 9110 §15.5.6), else 404.
async fn no_route(req: HttpRequest, known: web::Data<KnownPaths>) -> HttpResponse {
    let Some(allow) = known.allowed(req.path()) else {
        return ApiError::not_found("endpoint").error_response();
    };
    let problem = ApiError::new(
        Code::MethodNotAllowed,
        format!("{} takes {allow}", req.path()),
    );
    let mut response = problem.error_response();
    if let Ok(value) = HeaderValue::from_str(allow) {
        response.headers_mut().insert(header::ALLOW, value);
    }
    response
}

async fn docs_redirect() -> HttpResponse {
    HttpResponse::MovedPermanently()
        .insert_header(("Location", "/docs/"))
        .finish()
}

/// The served OpenAPI document: the routes' (utoipa) with the games'
/// payload schemas and played examples in it, no NUL allowed in any
/// request's text (`enforced`), and links from the answers naming a match,
/// seek or push subscription to the operations on it.
pub fn document(doc: &utoipa::openapi::OpenApi) -> serde_json::Value {
    let value = serde_json::to_value(doc).expect("the OpenAPI document serializes");
    let mut value = game_examples::with_game_examples(game_schemas::with_game_schemas(value));
    crate::enforced::state_no_nul(&mut value);
    openapi::with_links(&mut value);
    value
}

/// [`document`] with this service's configured limits (the shortest turn).
pub fn served_document(doc: &utoipa::openapi::OpenApi, config: &Config) -> serde_json::Value {
    let mut value = document(doc);
    crate::enforced::state_turn_hours(&mut value, config.min_turn_seconds);
    value
}

/// Register every route and the request limits on an app.
pub fn configure(state: AppState) -> impl FnOnce(&mut web::ServiceConfig) {
    move |cfg| {
        let limit = state.config.max_body_bytes;
        let doc = ApiDoc::openapi();
        let served = served_document(&doc, &state.config);
        cfg.app_data(web::Data::new(state))
            .app_data(web::Data::new(KnownPaths::from_doc(&doc)))
            .app_data(web::PayloadConfig::default().limit(limit))
            .app_data(web::PathConfig::default().error_handler(path_error))
            .app_data(web::QueryConfig::default().error_handler(query_error))
            .configure(openapi::register)
            .service(client::home)
            .service(client::file)
            .service(client::shared)
            .service(client::invitation)
            .service(client::page)
            .service(
                SwaggerUi::new("/docs/{_:.*}")
                    .external_url_unchecked("/v1/openapi.json", served)
                    // Its default sends the document's address to
                    // validator.swagger.io (a badge image); the page's
                    // policy allows no third party.
                    .config(utoipa_swagger_ui::Config::default().validator_url("none")),
            )
            .route("/docs", web::get().to(docs_redirect))
            .default_service(web::to(no_route));
    }
}

/// Give every request an id (`X-Request-Id`, kept when the client sends a
/// sane one), log it in one structured line, and count it. A path or query
/// with an encoded NUL (`%00`) is refused here, before any handler: no
/// text in Posthorn may hold one (docs/decisions/hardening.md, "Text").
pub fn observe<S, B>(
    req: actix_web::dev::ServiceRequest,
    srv: &S,
) -> impl std::future::Future<Output = Result<ServiceResponse<B>, actix_web::Error>> + use<S, B>
where
    S: Service<
        actix_web::dev::ServiceRequest,
        Response = ServiceResponse<B>,
        Error = actix_web::Error,
    >,
{
    let started = Instant::now();
    let id = req
        .headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .filter(|v| {
            !v.is_empty()
                && v.len() <= 64
                && v.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        })
        .map(str::to_owned)
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    let method = req.method().clone();
    let path = req.path().to_owned();
    let metrics = req
        .app_data::<web::Data<AppState>>()
        .map(|s| s.metrics.clone());
    let nul = req.uri().to_string().contains("%00");
    let response = (!nul).then(|| srv.call(req));
    async move {
        let Some(response) = response else {
            let refused = ApiError::validation("the address may not contain a NUL (%00)");
            return Err(refused.into());
        };
        // The request's span: every step it causes on this task and its
        // database thread (`db::on_lane`) sits within it.
        let span = tracing::debug_span!("request", request_id = %id, %method, %path);
        let mut res =
            crate::cause::scope(id.clone(), tracing::Instrument::instrument(response, span))
                .await?;
        let status = res.status().as_u16();
        let seconds = started.elapsed().as_secs_f64();
        if let Ok(value) = HeaderValue::from_str(&id) {
            res.headers_mut()
                .insert(HeaderName::from_static("x-request-id"), value);
        }
        log::info!(
            target: "posthorn::request",
            "request_id={id} method={method} path={path} status={status} duration_ms={:.2}",
            seconds * 1e3
        );
        if let Some(m) = metrics {
            m.observe(status, seconds);
        }
        Ok(res)
    }
}
