//! Web Push (RFC 8030) with VAPID (RFC 8292) and aes128gcm payloads
//! (RFC 8291). The messages are built by the web-push crate and sent by a
//! hyper client of our own, whose resolver judges every address it
//! connects to ([`destination`](super::destination)).
//!
//! Only `https` endpoints on public addresses are accepted and contacted —
//! no server-side request forgery — unless
//! `POSTHORN_ALLOW_INSECURE_PUSH_ENDPOINTS=1` (tests, local development).

use crate::config::Config;
use crate::error::Error;
use crate::personal::{Exported, Leaving, Owner};
use crate::schema::push_subscriptions;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use openssl::bn::{BigNum, BigNumContext};
use openssl::ec::{EcGroup, EcKey, EcPoint, PointConversionForm};
use openssl::nid::Nid;
use serde::{Deserialize, Serialize};
use std::net::IpAddr;
use utoipa::ToSchema;
use uuid::Uuid;
use web_push::{
    request_builder, ContentEncoding, SubscriptionInfo, Urgency, VapidSignatureBuilder,
    WebPushError, WebPushMessage, WebPushMessageBuilder,
};

use super::destination::{is_public, PublicResolver, Refused};

/// How long a push service keeps an undelivered message (seconds).
pub const TTL_SECONDS: u32 = 24 * 3600;

/// The VAPID key pair: the raw P-256 private scalar and the uncompressed
/// public point, both base64url.
pub struct Vapid {
    private_b64: String,
    pub public_b64: String,
    subject: String,
    allow_insecure: bool,
}

fn p256() -> EcGroup {
    EcGroup::from_curve_name(Nid::X9_62_PRIME256V1).expect("P-256 is built in")
}

/// The public point of a raw private scalar.
fn public_of(private: &[u8]) -> Result<Vec<u8>, String> {
    let group = p256();
    let mut ctx = BigNumContext::new().map_err(|e| e.to_string())?;
    let scalar = BigNum::from_slice(private).map_err(|e| e.to_string())?;
    let mut point = EcPoint::new(&group).map_err(|e| e.to_string())?;
    point
        .mul_generator2(&group, &scalar, &mut ctx)
        .map_err(|e| e.to_string())?;
    point
        .to_bytes(&group, PointConversionForm::UNCOMPRESSED, &mut ctx)
        .map_err(|e| e.to_string())
}

fn generate_private() -> Result<Vec<u8>, String> {
    let key = EcKey::generate(&p256()).map_err(|e| e.to_string())?;
    let raw = key.private_key().to_vec();
    // Left-pad to 32 bytes: a scalar may have leading zero bytes.
    let mut out = vec![0u8; 32 - raw.len()];
    out.extend(raw);
    Ok(out)
}

impl Vapid {
    /// From `POSTHORN_VAPID_PRIVATE_KEY`, or a pair generated once and kept
    /// in the data folder (the dev default).
    pub fn from_config(config: &Config) -> Result<Vapid, String> {
        let private_b64 = match &config.vapid_private_key {
            Some(k) => k.clone(),
            None => {
                let path = config.data_dir.join("vapid-private-key");
                match std::fs::read_to_string(&path) {
                    Ok(k) if !k.trim().is_empty() => k.trim().to_owned(),
                    _ => {
                        let k = URL_SAFE_NO_PAD.encode(generate_private()?);
                        crate::secrets::write_private(&path, k.as_bytes())?;
                        k
                    }
                }
            }
        };
        let private = URL_SAFE_NO_PAD
            .decode(private_b64.trim_end_matches('='))
            .map_err(|_| "POSTHORN_VAPID_PRIVATE_KEY must be base64url".to_owned())?;
        if private.len() != 32 {
            return Err("POSTHORN_VAPID_PRIVATE_KEY must be a 32-byte P-256 private key".into());
        }
        Ok(Vapid {
            public_b64: URL_SAFE_NO_PAD.encode(public_of(&private)?),
            private_b64: URL_SAFE_NO_PAD.encode(private),
            subject: config.vapid_subject.clone(),
            allow_insecure: config.allow_insecure_push_endpoints,
        })
    }

    /// Refuse, when a subscription is registered, endpoints that are not
    /// `https`, whose literal address is not public, or that name this
    /// machine (`localhost`, RFC 6761) — unless insecure endpoints are
    /// allowed. Other names are judged by the addresses they resolve to
    /// when a push is sent ([`PublicResolver`]): resolving here would prove
    /// nothing about then.
    pub fn check_endpoint(&self, endpoint: &str) -> Result<(), Error> {
        let host = self.check_target(endpoint)?;
        let name = host.trim_end_matches('.').to_ascii_lowercase();
        if !self.allow_insecure && (name == "localhost" || name.ends_with(".localhost")) {
            return Err(refused("a local address"));
        }
        Ok(())
    }

    /// What is judged before every send: `https`, and a literal address
    /// must be public. Answers the endpoint's host.
    fn check_target(&self, endpoint: &str) -> Result<String, Error> {
        let url = url::Url::parse(endpoint).map_err(|_| refused("not a URL"))?;
        let host = url.host_str().ok_or_else(|| refused("no host"))?.to_owned();
        if self.allow_insecure {
            return Ok(host);
        }
        if url.scheme() != "https" {
            return Err(refused("only https endpoints are accepted"));
        }
        let literal = host.trim_matches(['[', ']']).parse::<IpAddr>().ok();
        if literal.is_some_and(|ip| !is_public(ip)) {
            return Err(refused("a private, local or special-purpose address"));
        }
        Ok(host)
    }
}

fn refused(why: &str) -> Error {
    Error::validation(format!("push endpoint refused: {why}"))
}

/// Whether `endpoint` has the shape the OpenAPI document gives a push
/// endpoint (`enforced::PUSH_ENDPOINT`): `https://`, a host, an
/// optional port, then a path and query of RFC 3986 characters. The host
/// is a DNS name (its last label starts with a letter: the URL parser
/// reads an all-digit name as an IPv4 address), a dotted IPv4 address or
/// a bracketed IPv6 address; whether an address is public is judged
/// after this, by [`Vapid::check_endpoint`]. The URL parser alone takes
/// more (`https://host*`, spaces in a path), which no push service gives
/// and no client can be told.
pub fn endpoint_shape(endpoint: &str) -> bool {
    let Some(rest) = endpoint.strip_prefix("https://") else {
        return false;
    };
    let (authority, tail) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let (host, port) = match authority.strip_prefix('[') {
        Some(bracketed) => match bracketed.split_once(']') {
            Some((v6, after)) => (Host::V6(v6), (!after.is_empty()).then_some(after)),
            None => (Host::V6(""), None),
        },
        None => match authority.split_once(':') {
            Some((name, port)) => (Host::Named(name), Some(port)),
            None => (Host::Named(authority), None),
        },
    };
    let port = match (&host, port) {
        (Host::V6(_), Some(after)) => Some(after.strip_prefix(':').unwrap_or("")),
        (_, port) => port,
    };
    let named = host.well_formed();
    let port_ok = port.is_none_or(|p| {
        !p.starts_with('0')
            && (1..=5).contains(&p.len())
            && p.bytes().all(|b| b.is_ascii_digit())
            && p.parse::<u32>().is_ok_and(|n| n <= 65535)
    });
    let bytes = tail.as_bytes();
    let mut i = 0;
    let mut tail_ok = true;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'%' {
            let hex = |j: usize| bytes.get(j).is_some_and(u8::is_ascii_hexdigit);
            tail_ok &= hex(i + 1) && hex(i + 2);
            i += 3;
        } else {
            tail_ok &= b.is_ascii_alphanumeric() || b"-._~:/?@!$&'()*+,;=".contains(&b);
            i += 1;
        }
    }
    named && port_ok && tail_ok
}

/// The host part of a push endpoint, as [`endpoint_shape`] reads it.
enum Host<'a> {
    /// Inside `[…]`.
    V6(&'a str),
    /// A DNS name or a dotted IPv4 address.
    Named(&'a str),
}

impl Host<'_> {
    fn well_formed(&self) -> bool {
        let name = match self {
            Host::V6(v6) => return v6.parse::<std::net::Ipv6Addr>().is_ok(),
            Host::Named(name) => name,
        };
        if name.parse::<std::net::Ipv4Addr>().is_ok() {
            return true;
        }
        let label = |l: &str| {
            !l.is_empty()
                && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
                && !l.starts_with('-')
                && !l.ends_with('-')
        };
        let labels: Vec<&str> = name.split('.').collect();
        labels.iter().all(|l| label(l))
            && labels
                .last()
                .is_some_and(|l| l.starts_with(|c: char| c.is_ascii_alphabetic()))
    }
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SubscriptionKeys {
    /// base64url (padding optional) of a 65-byte P-256 point.
    #[schema(pattern = "^[A-Za-z0-9_-]{86}[AEIMQUYcgkosw048]=*$")]
    pub p256dh: String,
    /// base64url (padding optional) of 16 bytes.
    #[schema(pattern = "^[A-Za-z0-9_-]{21}[AQgw]=*$")]
    pub auth: String,
}

/// `POST /v1/push-subscriptions`, as a browser's `PushSubscription` gives it
/// (`toJSON()`).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewSubscription {
    #[schema(schema_with = crate::enforced::push_endpoint)]
    pub endpoint: String,
    pub keys: SubscriptionKeys,
    /// Browsers also send `expirationTime` (milliseconds since the epoch,
    /// or null); it is not used.
    #[serde(default, rename = "expirationTime")]
    pub expiration_time: Option<f64>,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct SubscriptionId {
    pub id: Uuid,
}

pub fn subscribe(
    conn: &mut PgConnection,
    vapid: &Vapid,
    user: Uuid,
    sub: NewSubscription,
    now: DateTime<Utc>,
) -> Result<SubscriptionId, Error> {
    if !vapid.allow_insecure && !endpoint_shape(&sub.endpoint) {
        return Err(Error::validation(
            "push endpoint refused: not an https URL naming its host as a push service does",
        ));
    }
    vapid.check_endpoint(&sub.endpoint)?;
    let p256dh = URL_SAFE_NO_PAD.decode(sub.keys.p256dh.trim_end_matches('='));
    let auth = URL_SAFE_NO_PAD.decode(sub.keys.auth.trim_end_matches('='));
    if !matches!((&p256dh, &auth), (Ok(p), Ok(a)) if p.len() == 65 && a.len() == 16) {
        return Err(Error::validation(
            "keys must be base64url: p256dh a 65-byte P-256 point, auth 16 bytes",
        ));
    }
    let id: Uuid = diesel::insert_into(push_subscriptions::table)
        .values((
            push_subscriptions::id.eq(Uuid::new_v4()),
            push_subscriptions::user_id.eq(user),
            push_subscriptions::endpoint.eq(&sub.endpoint),
            push_subscriptions::p256dh.eq(&sub.keys.p256dh),
            push_subscriptions::auth.eq(&sub.keys.auth),
            push_subscriptions::created_at.eq(now),
        ))
        .on_conflict((push_subscriptions::user_id, push_subscriptions::endpoint))
        .do_update()
        .set((
            push_subscriptions::p256dh.eq(&sub.keys.p256dh),
            push_subscriptions::auth.eq(&sub.keys.auth),
        ))
        .returning(push_subscriptions::id)
        .get_result(conn)?;
    Ok(SubscriptionId { id })
}

pub fn unsubscribe(conn: &mut PgConnection, user: Uuid, id: Uuid) -> Result<(), Error> {
    let gone = diesel::delete(
        push_subscriptions::table
            .find(id)
            .filter(push_subscriptions::user_id.eq(user)),
    )
    .execute(conn)?;
    if gone == 0 {
        return Err(Error::not_found("push subscription"));
    }
    Ok(())
}

type Connector = hyper_tls::HttpsConnector<hyper::client::HttpConnector<PublicResolver>>;

/// One runtime and the HTTP clients for every push, so connections and
/// the TLS setup are made once, not per message.
struct Pusher {
    runtime: tokio::runtime::Runtime,
    /// Connects only to public addresses.
    judged: hyper::Client<Connector>,
    /// Connects anywhere: for `POSTHORN_ALLOW_INSECURE_PUSH_ENDPOINTS`.
    open: hyper::Client<Connector>,
}

/// Made under a lock: the worker's senders start together, and each
/// building its own client (loading the TLS roots) took the first batch
/// 3.5 s (docs/benchmarks.md, "Outbox delivery").
fn pusher() -> Result<&'static Pusher, String> {
    static PUSHER: std::sync::OnceLock<Pusher> = std::sync::OnceLock::new();
    static MAKING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    if let Some(ready) = PUSHER.get() {
        return Ok(ready);
    }
    let _making = MAKING.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(ready) = PUSHER.get() {
        return Ok(ready);
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("web-push")
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let client = |judge| {
        let mut http = hyper::client::HttpConnector::new_with_resolver(PublicResolver { judge });
        http.enforce_http(false);
        hyper::Client::builder().build(hyper_tls::HttpsConnector::new_with_connector(http))
    };
    let (judged, open) = runtime.block_on(async { (client(true), client(false)) });
    Ok(PUSHER.get_or_init(|| Pusher {
        runtime,
        judged,
        open,
    }))
}

/// What sending to one subscription came to.
pub enum Sent {
    Delivered,
    /// 404/410: the subscription is gone and must be deleted.
    Gone,
    /// The endpoint is not one the service sends to (a private or special
    /// address, literal or resolved): no retry will change that.
    Refused(String),
}

/// The push service's answer, read as the web-push crate's own hyper
/// client reads it (at most 64 KiB of body).
async fn post(client: &hyper::Client<Connector>, message: WebPushMessage) -> Result<Sent, String> {
    use hyper::body::HttpBody;
    let request = request_builder::build_request::<hyper::Body>(message);
    let response = match client.request(request).await {
        Ok(response) => response,
        Err(e) => {
            return match Refused::within(&e) {
                Some(refused) => Ok(Sent::Refused(refused.to_string())),
                None => Err(e.to_string()),
            }
        }
    };
    let status = response.status();
    let mut body = response.into_body();
    let mut read = Vec::new();
    while let Some(chunk) = body.data().await {
        read.extend_from_slice(&chunk.map_err(|e| e.to_string())?);
        if read.len() > 64 * 1024 {
            return Err(WebPushError::ResponseTooLarge.to_string());
        }
    }
    match request_builder::parse_response(status, read) {
        Ok(()) => Ok(Sent::Delivered),
        Err(WebPushError::EndpointNotValid(_) | WebPushError::EndpointNotFound(_)) => {
            Ok(Sent::Gone)
        }
        Err(e) => Err(e.to_string()),
    }
}

/// Send `payload` to one subscription, bounded by a timeout.
pub fn send(
    vapid: &Vapid,
    endpoint: &str,
    p256dh: &str,
    auth: &str,
    payload: &[u8],
    urgent: bool,
    topic: &str,
) -> Result<Sent, String> {
    // A name, `localhost` too, is judged by what it resolves to now.
    if let Err(e) = vapid.check_target(endpoint) {
        return Ok(Sent::Refused(e.to_string()));
    }
    let info = SubscriptionInfo::new(endpoint, p256dh, auth);
    let mut signer =
        VapidSignatureBuilder::from_base64(&vapid.private_b64, &info).map_err(|e| e.to_string())?;
    signer.add_claim("sub", vapid.subject.as_str());
    // RFC 8292: the audience is the endpoint's origin, port included (the
    // crate's default drops a non-default port).
    let origin = url::Url::parse(endpoint)
        .map_err(|e| e.to_string())?
        .origin()
        .ascii_serialization();
    signer.add_claim("aud", origin);
    let signature = signer.build().map_err(|e| e.to_string())?;
    let mut message = WebPushMessageBuilder::new(&info);
    message.set_payload(ContentEncoding::Aes128Gcm, payload);
    message.set_vapid_signature(signature);
    message.set_ttl(TTL_SECONDS);
    message.set_topic(topic.to_owned());
    message.set_urgency(if urgent {
        Urgency::High
    } else {
        Urgency::Normal
    });
    let message = message.build().map_err(|e| e.to_string())?;
    // hyper connects to a literal address without asking the resolver:
    // judge it as hyper reads it, which need not be as `url` did.
    let host = message.endpoint.host().unwrap_or_default();
    let literal = host.trim_matches(['[', ']']).parse::<IpAddr>().ok();
    if !vapid.allow_insecure && literal.is_some_and(|ip| !is_public(ip)) {
        return Ok(Sent::Refused(format!("{host} is not a public address")));
    }
    let pusher = pusher()?;
    let client = if vapid.allow_insecure {
        &pusher.open
    } else {
        &pusher.judged
    };
    let outcome = pusher.runtime.block_on(async {
        tokio::time::timeout(std::time::Duration::from_secs(10), post(client, message)).await
    });
    outcome.unwrap_or_else(|_| Err("the push service did not answer in time".into()))
}

/// A player's browsers go with the account.
pub const PERSONAL: Owner = Owner::erasing(
    "notify::push",
    &["push_subscriptions"],
    forget_player,
    Exported::In(&["push_subscriptions"]),
);

// A browser subscribed to my notices, for the export (no doc comment:
// it would change the served document's schema).
#[derive(Debug, Serialize, ToSchema, Queryable)]
pub struct ExportedSubscription {
    pub id: Uuid,
    pub endpoint: String,
    pub created_at: DateTime<Utc>,
}

pub fn export(conn: &mut PgConnection, user: Uuid) -> Result<Vec<ExportedSubscription>, Error> {
    Ok(push_subscriptions::table
        .filter(push_subscriptions::user_id.eq(user))
        .order(push_subscriptions::created_at)
        .select((
            push_subscriptions::id,
            push_subscriptions::endpoint,
            push_subscriptions::created_at,
        ))
        .load(conn)?)
}

fn forget_player(conn: &mut PgConnection, leaving: &mut Leaving<'_>) -> Result<(), Error> {
    diesel::delete(push_subscriptions::table.filter(push_subscriptions::user_id.eq(leaving.user)))
        .execute(conn)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vapid(allow_insecure: bool) -> Vapid {
        let private = generate_private().unwrap();
        Vapid {
            public_b64: URL_SAFE_NO_PAD.encode(public_of(&private).unwrap()),
            private_b64: URL_SAFE_NO_PAD.encode(private),
            subject: "mailto:test@example.test".into(),
            allow_insecure,
        }
    }

    #[test]
    fn only_https_endpoints_on_public_addresses_are_accepted() {
        let v = vapid(false);
        for accepted in [
            "https://push.example.com/abc",
            "https://203.0.114.9/abc",
            "https://[2a00:1450:4001::1]/abc",
            "https://[64:ff9b::808:808]/abc",
        ] {
            assert!(v.check_endpoint(accepted).is_ok(), "{accepted}");
        }
        for refused in [
            "http://push.example.com/abc",
            "https://localhost/abc",
            "https://LocalHost./abc",
            "https://push.localhost/abc",
            "https://127.0.0.1/abc",
            "https://0x7f.1/abc", // 127.0.0.1 as url reads it
            "https://0.0.0.0/abc",
            "https://0.1.2.3/abc",
            "https://10.1.2.3/abc",
            "https://100.64.0.1/abc",
            "https://192.168.0.9/abc",
            "https://172.16.5.5/abc",
            "https://169.254.169.254/latest/meta-data",
            "https://198.18.0.1/abc",
            "https://224.0.0.1/abc",
            "https://239.255.255.250/abc",
            "https://255.255.255.255/abc",
            "https://[::1]/abc",
            "https://[::]/abc",
            "https://[fd00::1]/abc",
            "https://[fe80::1]/abc",
            "https://[ff02::1]/abc",
            "https://[::ffff:127.0.0.1]/abc",
            "https://[64:ff9b::7f00:1]/abc",
            "https://[64:ff9b:1::a00:1]/abc",
            "https://[2002:7f00:1::1]/abc",
            "https://[2001::1]/abc",
            "https://[2001:db8::1]/abc",
            "https://[100::1]/abc",
            "not a url",
        ] {
            assert!(v.check_endpoint(refused).is_err(), "{refused}");
        }
        assert!(
            vapid(true).check_endpoint("http://127.0.0.1:9/x").is_ok(),
            "tests may allow it"
        );
    }

    #[test]
    fn a_push_to_a_private_address_is_refused_at_send_time_too() {
        let v = vapid(false);
        let keys = (
            "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
            "BTBZMqHH6r4Tts7J_aSIgg",
        );
        for endpoint in [
            "https://[::ffff:127.0.0.1]:9/push",
            "https://[64:ff9b::7f00:1]:9/push",
            "https://localhost:9/push",
        ] {
            match send(&v, endpoint, keys.0, keys.1, b"{}", false, "t") {
                Ok(Sent::Refused(why)) => assert!(!why.is_empty()),
                Ok(_) => panic!("{endpoint}: sent"),
                Err(e) => panic!("{endpoint}: not refused but failed: {e}"),
            }
        }
    }

    #[test]
    fn the_public_key_is_an_uncompressed_p256_point() {
        let v = vapid(false);
        let point = URL_SAFE_NO_PAD.decode(&v.public_b64).unwrap();
        assert_eq!((point.len(), point[0]), (65, 4));
    }
}
