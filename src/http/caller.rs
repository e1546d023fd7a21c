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
use std::net::{IpAddr, Ipv6Addr};

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

/// The device a request comes from, as my sessions name it
/// (`devices::label`).
pub fn device(req: &HttpRequest) -> String {
    let agent = req.headers().get(header::USER_AGENT);
    crate::devices::label(agent.and_then(|v| v.to_str().ok()).unwrap_or(""))
}

/// The address a request comes from, as per-address limits key it: the
/// peer, or when the peer is a trusted proxy, the rightmost
/// `X-Forwarded-For` entry that is not one (entries left of it could be
/// written by anyone); then [`address_key`].
pub fn client_address(req: &HttpRequest) -> String {
    client_ip(req).map(address_key).unwrap_or_default()
}

/// The key of an address for per-address limits (issue #46): an IPv4
/// address is itself; an IPv6 address is its /64, the smallest block an
/// ISP hands one subscriber, who can pick any of its 2^64 addresses
/// (privacy extensions make new ones all day), so keying the full address
/// would give one person endless fresh allowances. An IPv4 address mapped
/// into IPv6 (`::ffff:a.b.c.d`, as a dual-stack socket reports it) is the
/// IPv4 address.
pub fn address_key(ip: IpAddr) -> String {
    match ip.to_canonical() {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => {
            let prefix = u128::from(v6) & !((1u128 << 64) - 1);
            format!("{}/64", Ipv6Addr::from(prefix))
        }
    }
}

fn client_ip(req: &HttpRequest) -> Option<IpAddr> {
    let peer = req.peer_addr().map(|a| a.ip());
    let trusted = req
        .app_data::<web::Data<AppState>>()
        .map(|s| s.config.trusted_proxies.clone())
        .unwrap_or_default();
    let peer = peer?;
    if !trusted.contains(&peer) {
        return Some(peer);
    }
    let forwarded = req
        .headers()
        .get_all("x-forwarded-for")
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .filter_map(|a| a.parse::<IpAddr>().ok())
        .collect::<Vec<_>>();
    let client = forwarded.into_iter().rev().find(|a| !trusted.contains(a));
    Some(client.unwrap_or(peer))
}

#[cfg(test)]
mod tests {
    use super::address_key;

    #[test]
    fn ipv6_clients_are_keyed_by_their_64_and_ipv4_by_the_address() {
        let key = |a: &str| address_key(a.parse().unwrap());
        assert_eq!(key("203.0.113.7"), "203.0.113.7");
        assert_ne!(key("203.0.113.7"), key("203.0.113.8"));
        // Any address of one /64 is one subscriber.
        assert_eq!(key("2001:db8:1:2::1"), "2001:db8:1:2::/64");
        assert_eq!(
            key("2001:db8:1:2:ffff:ffff:ffff:ffff"),
            key("2001:db8:1:2:a:b:c:d")
        );
        // The next /64 is someone else.
        assert_ne!(key("2001:db8:1:2::1"), key("2001:db8:1:3::1"));
        // A dual-stack socket's mapped IPv4 address is that IPv4 address.
        assert_eq!(key("::ffff:203.0.113.7"), "203.0.113.7");
    }
}
