//! Where a push may go: public unicast addresses only
//! (docs/decisions/notifications.md). A push endpoint is chosen by whoever
//! registers it, so every address the service would connect to is judged
//! here — literal ones when the endpoint is registered and sent to, names
//! when they are resolved for the connection itself ([`PublicResolver`]),
//! so that a name re-pointed between a check and the connect (DNS
//! rebinding) cannot reach this machine or its network.

use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, ToSocketAddrs};
use std::pin::Pin;
use std::task::{Context, Poll};

/// May the service send to `ip`? No for every special-purpose block in the
/// IANA registries (RFC 6890 and successors): this network, private,
/// shared (CGN), loopback, link-local, documentation, benchmarking,
/// protocol assignments, multicast, reserved and broadcast; in IPv6 also
/// unique-local, the discard prefix, and transition prefixes whose IPv4
/// address is judged (NAT64's well-known prefix) or refused outright (6to4,
/// Teredo, local-use NAT64: the IPv4 address is not where a relay sends).
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => is_public_v6(v6),
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    let special = a == 0 // 0.0.0.0/8 "this network"
        || a == 10 // 10/8 private
        || (a == 100 && b & 0xc0 == 64) // 100.64/10 shared (carrier-grade NAT)
        || a == 127 // 127/8 loopback
        || (a == 169 && b == 254) // 169.254/16 link-local (cloud metadata)
        || (a == 172 && b & 0xf0 == 16) // 172.16/12 private
        || (a == 192 && b == 0 && c == 0) // 192.0.0/24 protocol assignments
        || (a == 192 && b == 0 && c == 2) // 192.0.2/24 TEST-NET-1
        || (a == 192 && b == 88 && c == 99) // 192.88.99/24 6to4 relay anycast
        || (a == 192 && b == 168) // 192.168/16 private
        || (a == 198 && b & 0xfe == 18) // 198.18/15 benchmarking
        || (a == 198 && b == 51 && c == 100) // 198.51.100/24 TEST-NET-2
        || (a == 203 && b == 0 && c == 113) // 203.0.113/24 TEST-NET-3
        || a & 0xf0 == 224 // 224/4 multicast
        || a >= 240; // 240/4 reserved, 255.255.255.255 broadcast among them
    !special
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    let s = ip.segments();
    // ::ffff:0:0/96 (IPv4-mapped) and 64:ff9b::/96 (NAT64, RFC 6052): the
    // connection goes to the embedded IPv4 address; judge that.
    let embedded = Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    if s[..5] == [0; 5] && s[5] == 0xffff || s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return is_public_v4(embedded);
    }
    // Only global unicast (2000::/3) is ever public: this one test refuses
    // ::/128, ::1, the deprecated IPv4-compatible ::/96, 64:ff9b:1::/48
    // (local-use NAT64), 100::/64 (discard), fc00::/7 (unique local),
    // fe80::/10 (link-local), fec0::/10 (old site-local) and ff00::/8
    // (multicast).
    if s[0] & 0xe000 != 0x2000 {
        return false;
    }
    let special = match s[0] {
        // 2001::/23 protocol assignments (Teredo, ORCHID, …) and
        // 2001:db8::/32 documentation.
        0x2001 => s[1] < 0x0200 || s[1] == 0x0db8,
        // 6to4.
        0x2002 => true,
        // 3fff::/20 documentation (RFC 9637).
        0x3fff => s[1] < 0x1000,
        _ => false,
    };
    !special
}

/// Why a destination was refused: recorded on the notification.
#[derive(Debug)]
pub enum Refused {
    /// The name does not resolve (or the lookup failed).
    Lookup(String, std::io::Error),
    /// The name resolves to an address that is not public.
    NotPublic(String, IpAddr),
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::Lookup(host, e) => write!(f, "{host} does not resolve: {e}"),
            Refused::NotPublic(host, ip) => {
                write!(f, "{host} resolves to {ip}, which is not a public address")
            }
        }
    }
}

impl std::error::Error for Refused {}

impl Refused {
    /// The refusal in `error`'s chain of causes, if that is what it is.
    pub fn within<'a>(error: &'a (dyn std::error::Error + 'static)) -> Option<&'a Refused> {
        std::iter::successors(Some(error), |e| e.source())
            .find_map(|e| e.downcast_ref::<Refused>())
            .filter(|r| matches!(r, Refused::NotPublic(..)))
    }
}

/// Resolve `host` and judge every address it gives: one that is not
/// public refuses the whole name (a host that can be made to answer with
/// a private address is not to be trusted with the others either).
pub fn resolve_public(host: &str) -> Result<Vec<SocketAddr>, Refused> {
    let addresses: Vec<SocketAddr> = (host, 0)
        .to_socket_addrs()
        .map_err(|e| Refused::Lookup(host.to_owned(), e))?
        .collect();
    if let Some(bad) = addresses.iter().find(|a| !is_public(a.ip())) {
        return Err(Refused::NotPublic(host.to_owned(), bad.ip()));
    }
    Ok(addresses)
}

/// The push client's resolver (hyper's `HttpConnector` takes any
/// `Service<Name>`): the connector connects to exactly the addresses it
/// returns, so what is judged is what is reached. hyper resolves only
/// names; a literal address in the endpoint is judged before sending.
/// `judge: false` is the tests' escape hatch
/// (`POSTHORN_ALLOW_INSECURE_PUSH_ENDPOINTS`).
#[derive(Clone, Copy)]
pub struct PublicResolver {
    pub judge: bool,
}

type Resolving =
    Pin<Box<dyn Future<Output = Result<std::vec::IntoIter<SocketAddr>, Refused>> + Send>>;

impl tower_service::Service<hyper::client::connect::dns::Name> for PublicResolver {
    type Response = std::vec::IntoIter<SocketAddr>;
    type Error = Refused;
    type Future = Resolving;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Refused>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, name: hyper::client::connect::dns::Name) -> Resolving {
        let (host, judge) = (name.as_str().to_owned(), self.judge);
        let name = host.clone();
        Box::pin(async move {
            // getaddrinfo blocks: off the runtime's worker, as hyper's own
            // resolver does.
            let lookup = tokio::task::spawn_blocking(move || {
                if judge {
                    resolve_public(&host)
                } else {
                    (host.as_str(), 0)
                        .to_socket_addrs()
                        .map(Iterator::collect)
                        .map_err(|e| Refused::Lookup(host.clone(), e))
                }
            });
            let addresses = lookup
                .await
                .map_err(|e| Refused::Lookup(name, std::io::Error::other(e.to_string())))??;
            Ok(addresses.into_iter())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn public(text: &str) -> bool {
        is_public(text.parse().unwrap())
    }

    #[test]
    fn every_special_purpose_ipv4_block_is_refused() {
        for (first, last) in [
            ("0.0.0.0", "0.255.255.255"),
            ("10.0.0.0", "10.255.255.255"),
            ("100.64.0.0", "100.127.255.255"),
            ("127.0.0.0", "127.255.255.255"),
            ("169.254.0.0", "169.254.255.255"),
            ("172.16.0.0", "172.31.255.255"),
            ("192.0.0.0", "192.0.0.255"),
            ("192.0.2.0", "192.0.2.255"),
            ("192.88.99.0", "192.88.99.255"),
            ("192.168.0.0", "192.168.255.255"),
            ("198.18.0.0", "198.19.255.255"),
            ("198.51.100.0", "198.51.100.255"),
            ("203.0.113.0", "203.0.113.255"),
            ("224.0.0.0", "239.255.255.255"),
            ("240.0.0.0", "255.255.255.254"),
            ("255.255.255.255", "255.255.255.255"),
        ] {
            assert!(!public(first), "{first}");
            assert!(!public(last), "{last}");
        }
        // Their neighbours are public.
        for neighbour in [
            "1.0.0.0",
            "9.255.255.255",
            "11.0.0.0",
            "100.63.255.255",
            "100.128.0.0",
            "126.255.255.255",
            "128.0.0.0",
            "169.253.255.255",
            "169.255.0.0",
            "172.15.255.255",
            "172.32.0.0",
            "192.0.1.0",
            "192.0.3.0",
            "192.88.98.255",
            "192.88.100.0",
            "192.167.255.255",
            "192.169.0.0",
            "198.17.255.255",
            "198.20.0.0",
            "198.51.99.255",
            "198.51.101.0",
            "203.0.112.255",
            "203.0.114.0",
            "223.255.255.255",
            "8.8.8.8",
        ] {
            assert!(public(neighbour), "{neighbour}");
        }
    }

    #[test]
    fn every_special_purpose_ipv6_block_is_refused() {
        for refused in [
            "::",
            "::1",
            "::7f00:1",           // IPv4-compatible (deprecated)
            "::ffff:127.0.0.1",   // mapped loopback
            "::ffff:10.0.0.1",    // mapped private
            "::ffff:0.0.0.1",     // mapped "this network"
            "::ffff:224.0.0.1",   // mapped multicast
            "64:ff9b::7f00:1",    // NAT64 of 127.0.0.1
            "64:ff9b::a9fe:a9fe", // NAT64 of 169.254.169.254
            "64:ff9b::0:1",       // NAT64 of 0.0.0.1
            "64:ff9b:1::808:808", // local-use NAT64 (RFC 8215), refused outright
            "64:ff9b:1:ffff::1",
            "100::",
            "100::ffff:ffff:ffff:ffff",
            "2001::1",             // Teredo
            "2001:0:4136:e378::1", // Teredo
            "2001:1ff:ffff::1",    // the end of 2001::/23
            "2001:10::1",          // ORCHID
            "2001:db8::1",         // documentation
            "2001:db8:ffff:ffff::1",
            "2002::1",         // 6to4
            "2002:7f00:1::1",  // 6to4 of 127.0.0.1
            "2002:808:808::1", // 6to4 of a public address: refused too
            "3fff::1",         // documentation (RFC 9637)
            "3fff:fff:ffff::1",
            "fc00::1",
            "fdff:ffff::1",
            "fe80::1",
            "febf:ffff::1",
            "fec0::1", // site-local (deprecated)
            "ff00::1",
            "ff02::1",
            "ff0e::1",
            "4000::1", // outside 2000::/3: unallocated
        ] {
            assert!(!public(refused), "{refused}");
        }
        for accepted in [
            "2001:200::1", // just past 2001::/23
            "2001:4860:4860::8888",
            "2001:db7:ffff::1",
            "2001:db9::1",
            "2003::1",
            "2a00:1450:4001::1",
            "2600::1",
            "3ffe:ffff::1",
            "3fff:1000::1",     // just past 3fff::/20
            "::ffff:8.8.8.8",   // mapped public
            "64:ff9b::8.8.8.8", // NAT64 of a public address
        ] {
            assert!(public(accepted), "{accepted}");
        }
    }

    #[test]
    fn a_name_for_this_machine_is_refused_once_resolved() {
        match resolve_public("localhost") {
            Err(Refused::NotPublic(host, ip)) => {
                assert_eq!(host, "localhost");
                assert!(ip.is_loopback(), "{ip}");
            }
            other => panic!("localhost must be refused: {other:?}"),
        }
    }
}
