//! Who sends a request: the authenticated caller, read from its bearer
//! token, and the address it comes from.

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
    if state.revoked.contains(claims.sid) {
        return Err(ApiError::unauthorized(
            "this session has ended; sign in again",
        ));
    }
    Ok(Caller {
        user_id: claims.sub,
        guest: claims.guest,
        session: claims.sid,
    })
}

/// The address a request comes from, for per-address limits: the peer, or
/// when the peer is a trusted proxy, the rightmost `X-Forwarded-For` entry
/// that is not one (entries left of it could be written by anyone).
pub fn client_address(req: &HttpRequest) -> String {
    let peer = req.peer_addr().map(|a| a.ip());
    let trusted = req
        .app_data::<web::Data<AppState>>()
        .map(|s| s.config.trusted_proxies.clone())
        .unwrap_or_default();
    let Some(peer) = peer else {
        return String::new();
    };
    if !trusted.contains(&peer) {
        return peer.to_string();
    }
    let forwarded = req
        .headers()
        .get_all("x-forwarded-for")
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .filter_map(|a| a.parse::<std::net::IpAddr>().ok())
        .collect::<Vec<_>>();
    forwarded
        .into_iter()
        .rev()
        .find(|a| !trusted.contains(a))
        .unwrap_or(peer)
        .to_string()
}
