//! The authenticated caller of a request, read from its bearer token.

use crate::auth::Caller;
use crate::error::Error;
use crate::http::error::ApiError;
use crate::state::AppState;
use actix_web::dev::Payload;
use actix_web::http::header;
use actix_web::{web, FromRequest, HttpRequest};
use std::future::{ready, Ready};

impl FromRequest for Caller {
    type Error = ApiError;
    type Future = Ready<Result<Caller, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(caller(req))
    }
}

fn caller(req: &HttpRequest) -> Result<Caller, ApiError> {
    let state = req
        .app_data::<web::Data<AppState>>()
        .ok_or_else(|| ApiError::from(Error::internal("application state missing")))?;
    let value = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .ok_or_else(|| {
            ApiError::unauthorized("sign in: an Authorization: Bearer token is required")
        })?;
    let token = value
        .strip_prefix("Bearer ")
        .ok_or_else(|| ApiError::unauthorized("use the Bearer authorization scheme"))?;
    let claims = state.keys.verify(token.trim(), state.clock.now())?;
    Ok(Caller {
        user_id: claims.sub,
        guest: claims.guest,
        session: claims.sid,
    })
}
