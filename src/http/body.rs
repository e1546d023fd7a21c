//! The one way a JSON request body is read (issue #13): within the size
//! limit (413), within `POSTHORN_BODY_TIMEOUT_SECONDS` of the head (a body
//! trickled byte by byte is cut off with 408; actix itself times out only
//! the head), and with no NUL character in any string — PostgreSQL refuses
//! 0x00 in text, and nobody types one.

use super::error::{ApiError, Code};
use crate::state::AppState;
use actix_web::dev::Payload;
use actix_web::http::header;
use actix_web::{web, FromRequest, HttpRequest};
use futures_util::StreamExt;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

pub struct Body<T>(pub T);

impl<T> Body<T> {
    pub fn into_inner(self) -> T {
        self.0
    }
}

/// Whether a NUL stands anywhere in a JSON value, keys included.
pub fn find_nul(value: &Value) -> bool {
    match value {
        Value::String(s) => s.contains('\0'),
        Value::Array(items) => items.iter().any(find_nul),
        Value::Object(fields) => fields.iter().any(|(k, v)| k.contains('\0') || find_nul(v)),
        _ => false,
    }
}

fn is_json(req: &HttpRequest) -> bool {
    req.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| {
            let v = v.trim().to_ascii_lowercase();
            v == "application/json" || (v.starts_with("application/") && v.ends_with("+json"))
        })
}

async fn read_all(mut payload: Payload, limit: usize) -> Result<Vec<u8>, ApiError> {
    let mut body = Vec::new();
    while let Some(chunk) = payload.next().await {
        let chunk =
            chunk.map_err(|_| ApiError::validation("the request body could not be read"))?;
        if body.len() + chunk.len() > limit {
            return Err(ApiError::new(
                Code::PayloadTooLarge,
                format!("the request body is larger than {limit} bytes"),
            ));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

impl<T: DeserializeOwned + 'static> FromRequest for Body<T> {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        // The configured limits; the defaults where no state is registered.
        let config = req
            .app_data::<web::Data<AppState>>()
            .map(|s| s.config.clone())
            .unwrap_or_default();
        let (limit, seconds) = (config.max_body_bytes, config.body_timeout_seconds);
        let json = is_json(req);
        let payload = payload.take();
        Box::pin(async move {
            if !json {
                return Err(ApiError::validation(
                    "send JSON with Content-Type: application/json",
                ));
            }
            let read = read_all(payload, limit);
            let bytes = tokio::time::timeout(Duration::from_secs(seconds), read)
                .await
                .map_err(|_| {
                    ApiError::new(
                        Code::RequestTimeout,
                        format!("the request body did not arrive within {seconds} s"),
                    )
                })??;
            let value: Value = serde_json::from_slice(&bytes).map_err(|e| {
                ApiError::validation(format!("the request body is not valid JSON: {e}"))
            })?;
            if find_nul(&value) {
                return Err(ApiError::validation(
                    "text may not contain the NUL character (\\u0000)",
                ));
            }
            T::deserialize(value)
                .map(Body)
                .map_err(|e| ApiError::validation(format!("the request body is not valid: {e}")))
        })
    }
}
