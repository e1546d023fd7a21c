//! One API error type, one RFC 9457 problem document with a stable `code`
//! (API.md §Errors). Internal causes are logged, never sent.

use actix_web::http::{header, StatusCode};
use actix_web::{HttpResponse, ResponseError};
use posthorn_rules::{RuleCode, RuleError};
use serde_json::{json, Map, Value};
use std::fmt;

#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub detail: String,
    /// Extension members of the problem document (e.g. the current `seq`).
    pub extra: Map<String, Value>,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, detail: impl Into<String>) -> Self {
        ApiError {
            status,
            code,
            detail: detail.into(),
            extra: Map::new(),
        }
    }

    pub fn with(mut self, key: &str, value: Value) -> Self {
        self.extra.insert(key.to_owned(), value);
        self
    }

    pub fn validation(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "validation_failed", detail)
    }
    pub fn unauthorized(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, "unauthorized", detail)
    }
    pub fn forbidden(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::FORBIDDEN, "forbidden", detail)
    }
    pub fn not_found(what: &str) -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("no such {what}"),
        )
    }
    pub fn conflict(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::CONFLICT, "conflict", detail)
    }
    pub fn stale_seq(current: i32) -> Self {
        Self::new(
            StatusCode::CONFLICT,
            "stale_seq",
            format!("the match has moved on: its seq is now {current}; reload and try again"),
        )
        .with("seq", json!(current))
    }
    pub fn rate_limited(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::TOO_MANY_REQUESTS, "rate_limited", detail)
    }
    pub fn unavailable(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::SERVICE_UNAVAILABLE, "unavailable", detail)
    }
    /// No database connection came free in time.
    pub fn busy() -> Self {
        Self::unavailable("the service is busy; try again in a moment")
    }
    /// Logs the cause; the client learns only that something failed.
    pub fn internal(cause: impl fmt::Display) -> Self {
        log::error!("internal error: {cause}");
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "something went wrong on our side",
        )
    }

    fn title(&self) -> &'static str {
        self.status.canonical_reason().unwrap_or("Error")
    }

    pub fn body(&self) -> Value {
        let mut doc = Map::new();
        doc.insert(
            "type".into(),
            json!(format!("https://posthorn.app/problems/{}", self.code)),
        );
        doc.insert("title".into(), json!(self.title()));
        doc.insert("status".into(), json!(self.status.as_u16()));
        doc.insert("detail".into(), json!(self.detail));
        doc.insert("code".into(), json!(self.code));
        doc.extend(self.extra.clone());
        Value::Object(doc)
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: {}", self.status.as_u16(), self.code, self.detail)
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.status
    }
    fn error_response(&self) -> HttpResponse {
        HttpResponse::build(self.status)
            .insert_header((header::CONTENT_TYPE, "application/problem+json"))
            .body(self.body().to_string())
    }
}

/// A rule refusal keeps its code; its message is written for players and
/// carries no hidden information (the rules crate guarantees it).
impl From<RuleError> for ApiError {
    fn from(e: RuleError) -> Self {
        let status = match e.code {
            RuleCode::ValidationFailed => StatusCode::BAD_REQUEST,
            RuleCode::NotYourTurn | RuleCode::MatchFinished => StatusCode::CONFLICT,
            RuleCode::IllegalAction => StatusCode::UNPROCESSABLE_ENTITY,
        };
        ApiError::new(status, e.code.as_str(), e.message)
    }
}

impl From<diesel::result::Error> for ApiError {
    fn from(e: diesel::result::Error) -> Self {
        match e {
            diesel::result::Error::NotFound => ApiError::not_found("resource"),
            other => ApiError::internal(other),
        }
    }
}

impl From<diesel::r2d2::PoolError> for ApiError {
    fn from(e: diesel::r2d2::PoolError) -> Self {
        log::warn!("database pool: {e}");
        ApiError::busy()
    }
}

impl From<actix_web::error::BlockingError> for ApiError {
    fn from(e: actix_web::error::BlockingError) -> Self {
        ApiError::internal(e)
    }
}
