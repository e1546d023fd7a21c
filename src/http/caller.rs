//! Who sends a request: the authenticated caller, read from its bearer
//! token, and the address it comes from.

use crate::auth::Caller;
use crate::error::Error;
use crate::http::error::ApiError;
use crate::limits::Origin;
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

/// A request that may come from a visitor with no account: no
/// `Authorization` header is a visitor; a header that is there must hold a
/// good token, as for [`Caller`] (a stale one is a 401, not a visitor).
pub struct Visitor(pub Option<Caller>);

impl FromRequest for Visitor {
    type Error = ApiError;
    type Future = Ready<Result<Visitor, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(match req.headers().contains_key(header::AUTHORIZATION) {
            false => Ok(Visitor(None)),
            true => caller(req).map(|c| Visitor(Some(c))),
        })
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
    crate::accounts::my_sessions::label(agent.and_then(|v| v.to_str().ok()).unwrap_or(""))
}

/// The address a request comes from, as per-address limits key it
/// ([`origin`]'s address).
pub fn client_address(req: &HttpRequest) -> String {
    origin(req).address
}

/// Where a request comes from: the peer, or when the peer is a trusted
/// proxy, the rightmost `X-Forwarded-For` entry that is not one (entries
/// left of it could be written by anyone), keyed by [`address_key`], with
/// the /48 of an IPv6 address beside it (docs/abuse.md, "Limits that
/// hold").
pub fn origin(req: &HttpRequest) -> Origin {
    match client(req) {
        Some(Client::Ip(ip)) => {
            let address = address_key(ip);
            Origin {
                block: Origin::block_of(&address),
                address,
            }
        }
        Some(Client::Unread(entry)) => Origin::of(entry),
        None => Origin::default(),
    }
}

/// The key of an address for per-address limits (docs/abuse.md, "IPv6
/// clients are keyed by their /64"): an IPv4 address is itself; an IPv6
/// address is its /64, the smallest block an ISP hands one subscriber, who
/// can pick any of its 2^64 addresses (privacy extensions make new ones all
/// day), so keying the full address would give one person endless fresh
/// allowances. An IPv4 address mapped into IPv6 (`::ffff:a.b.c.d`, as a
/// dual-stack socket reports it) is the IPv4 address.
pub fn address_key(ip: IpAddr) -> String {
    match ip.to_canonical() {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => {
            let prefix = u128::from(v6) & !((1u128 << 64) - 1);
            format!("{}/64", Ipv6Addr::from(prefix))
        }
    }
}

/// Who a request is from, as the peer or a trusted proxy says.
#[derive(Debug, PartialEq, Eq)]
enum Client {
    Ip(IpAddr),
    /// An entry a trusted proxy wrote that does not parse: the key itself
    /// (marked with `?`, so it is never mistaken for an address), never
    /// a fall-through to the entries the client wrote left of it.
    Unread(String),
}

fn client(req: &HttpRequest) -> Option<Client> {
    let peer = req.peer_addr().map(|a| a.ip())?;
    let trusted = req
        .app_data::<web::Data<AppState>>()
        .map(|s| s.config.trusted_proxies.clone())
        .unwrap_or_default();
    if !trusted.contains(&peer) {
        return Some(Client::Ip(peer));
    }
    let forwarded = req
        .headers()
        .get_all("x-forwarded-for")
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        .collect::<Vec<_>>();
    let entries = forwarded.iter().flat_map(|v| v.split(','));
    Some(rightmost_client(entries, &trusted).unwrap_or(Client::Ip(peer)))
}

/// The rightmost entry that is not a trusted proxy, read from the right:
/// an entry that does not parse stops the walk and is the key itself.
fn rightmost_client<'a>(
    entries: impl DoubleEndedIterator<Item = &'a str>,
    trusted: &[IpAddr],
) -> Option<Client> {
    for entry in entries.rev().map(str::trim) {
        match parse_forwarded(entry) {
            Some(ip) if trusted.contains(&ip) => continue,
            Some(ip) => return Some(Client::Ip(ip)),
            None => {
                let shown: String = entry.chars().take(64).collect();
                return Some(Client::Unread(format!("?{shown}")));
            }
        }
    }
    None
}

/// One `X-Forwarded-For` entry: an address, `ip:port` or `[v6]:port`
/// (as some proxies write it), or `[v6]`.
fn parse_forwarded(entry: &str) -> Option<IpAddr> {
    if let Ok(ip) = entry.parse::<IpAddr>() {
        return Some(ip);
    }
    if let Ok(socket) = entry.parse::<std::net::SocketAddr>() {
        return Some(socket.ip());
    }
    let bracketed = entry.strip_prefix('[')?.strip_suffix(']')?;
    bracketed.parse::<Ipv6Addr>().ok().map(IpAddr::V6)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forwarded_entries_with_ports_parse_and_an_unreadable_one_is_the_key_issue_65_item_8() {
        let proxy: IpAddr = "10.0.0.1".parse().unwrap();
        let read = |header: &str| rightmost_client(header.split(','), &[proxy]);
        let ip = |a: &str| Some(Client::Ip(a.parse().unwrap()));
        assert_eq!(read("198.51.100.9:4711"), ip("198.51.100.9"));
        assert_eq!(read("1.2.3.4, [2001:db8::7]:443"), ip("2001:db8::7"));
        assert_eq!(read("[2001:db8::7]"), ip("2001:db8::7"));
        assert_eq!(
            read("1.2.3.4, 198.51.100.9:1, 10.0.0.1"),
            ip("198.51.100.9")
        );
        // The client spoofs the leftmost entry; the proxy appends what it
        // saw in a form nobody parses: that form is the key, not the spoof.
        assert_eq!(
            read("203.0.113.66, unknown"),
            Some(Client::Unread("?unknown".into()))
        );
        assert_eq!(
            read("203.0.113.66, _hidden, 10.0.0.1"),
            Some(Client::Unread("?_hidden".into()))
        );
        assert_eq!(read("10.0.0.1"), None);
    }

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
