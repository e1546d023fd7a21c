//! Local stand-ins for Apple's APNs and Google's FCM (issue #51): HTTP/2
//! over TLS with ALPN `h2`, on a certificate made here that the service is
//! told to trust (`POSTHORN_NATIVE_PUSH_CA_FILE`). The APNs peer verifies
//! each provider token's ES256 signature, `kid`, `iss` and `iat` and every
//! header Apple requires; the FCM peer runs the OAuth exchange (verifying
//! the RS256 assertion) and checks each message's shape. What a request
//! must fail with is scripted per device token.

use hyper::body::HttpBody;
use hyper::{Body, Request, Response};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use openssl::pkey::{PKey, Private};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex};

/// A certificate for 127.0.0.1 and its key: the peers' identity, and the
/// one root the service trusts besides the system's.
pub struct Tls {
    pub cert_pem: Vec<u8>,
    key_pem: Vec<u8>,
}

pub fn tls() -> Tls {
    use openssl::asn1::Asn1Time;
    use openssl::hash::MessageDigest;
    use openssl::x509::extension::{BasicConstraints, SubjectAlternativeName};
    use openssl::x509::{X509NameBuilder, X509};
    let key = PKey::from_ec_key(
        openssl::ec::EcKey::generate(
            &openssl::ec::EcGroup::from_curve_name(openssl::nid::Nid::X9_62_PRIME256V1).unwrap(),
        )
        .unwrap(),
    )
    .unwrap();
    let mut name = X509NameBuilder::new().unwrap();
    name.append_entry_by_text("CN", "posthorn test push peer")
        .unwrap();
    let name = name.build();
    let mut cert = X509::builder().unwrap();
    cert.set_version(2).unwrap();
    let serial = openssl::bn::BigNum::from_u32(rand_u32()).unwrap();
    cert.set_serial_number(&serial.to_asn1_integer().unwrap())
        .unwrap();
    cert.set_subject_name(&name).unwrap();
    cert.set_issuer_name(&name).unwrap();
    cert.set_pubkey(&key).unwrap();
    cert.set_not_before(&Asn1Time::days_from_now(0).unwrap())
        .unwrap();
    cert.set_not_after(&Asn1Time::days_from_now(2).unwrap())
        .unwrap();
    cert.append_extension(BasicConstraints::new().critical().ca().build().unwrap())
        .unwrap();
    let san = SubjectAlternativeName::new()
        .ip("127.0.0.1")
        .build(&cert.x509v3_context(None, None))
        .unwrap();
    cert.append_extension(san).unwrap();
    cert.sign(&key, MessageDigest::sha256()).unwrap();
    Tls {
        cert_pem: cert.build().to_pem().unwrap(),
        key_pem: key.private_key_to_pem_pkcs8().unwrap(),
    }
}

fn rand_u32() -> u32 {
    let mut b = [0u8; 4];
    openssl::rand::rand_bytes(&mut b).unwrap();
    u32::from_le_bytes(b) >> 1
}

/// A file in a fresh temporary folder (removed with the test's process).
pub fn temp_file(name: &str, contents: &[u8]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("posthorn-native-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

/// An answer, or none: the request is held until its connection ends.
type Answer = Option<(u16, Vec<(&'static str, String)>, String)>;
type Handler = Arc<dyn Fn(&hyper::http::request::Parts, &[u8]) -> Answer + Send + Sync>;

/// Serve `handler` over HTTP/2 and TLS on a port of 127.0.0.1, from a
/// thread of its own; each connection must have negotiated `h2` by ALPN.
fn serve(tls: &Tls, handler: Handler) -> String {
    let identity = native_tls::Identity::from_pkcs8(&tls.cert_pem, &tls.key_pem).unwrap();
    let acceptor = native_tls::TlsAcceptor::builder(identity)
        .accept_alpn(&["h2"])
        .build()
        .unwrap();
    let acceptor = tokio_native_tls::TlsAcceptor::from(acceptor);
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("https://{}", listener.local_addr().unwrap());
    listener.set_nonblocking(true).unwrap();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            let mut connections = 0;
            loop {
                let Ok((tcp, _)) = listener.accept().await else {
                    continue;
                };
                let (acceptor, handler) = (acceptor.clone(), handler.clone());
                connections += 1;
                let connection = Connection(connections);
                tokio::spawn(async move {
                    let Ok(stream) = acceptor.accept(tcp).await else {
                        return;
                    };
                    let h2 = stream.get_ref().negotiated_alpn().ok().flatten();
                    assert_eq!(h2.as_deref(), Some(&b"h2"[..]), "ALPN h2 negotiated");
                    let service = hyper::service::service_fn(move |mut req: Request<Body>| {
                        req.extensions_mut().insert(connection);
                        let handler = handler.clone();
                        async move { Ok::<_, hyper::Error>(answer(handler, req).await) }
                    });
                    let _ = hyper::server::conn::Http::new()
                        .http2_only(true)
                        .http2_max_concurrent_streams(1000)
                        .serve_connection(stream, service)
                        .await;
                });
            }
        });
    });
    base
}

/// The connection a request came on, counted from 1 (in its extensions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Connection(pub u64);

async fn answer(handler: Handler, req: Request<Body>) -> Response<Body> {
    assert_eq!(req.version(), hyper::Version::HTTP_2);
    let (parts, mut body) = req.into_parts();
    let mut read = Vec::new();
    while let Some(chunk) = body.data().await {
        read.extend_from_slice(&chunk.unwrap());
    }
    match handler(&parts, &read) {
        Some((status, headers, text)) => {
            let mut response = Response::builder().status(status);
            for (name, value) in headers {
                response = response.header(name, value);
            }
            response.body(Body::from(text)).unwrap()
        }
        None => std::future::pending().await,
    }
}

fn header(parts: &hyper::http::request::Parts, name: &str) -> String {
    parts
        .headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned()
}

/// Answers scripted per device token: each request to the token takes the
/// next one; when none is left, the request is delivered.
#[derive(Default)]
pub struct Script {
    pub answers: HashMap<String, VecDeque<(u16, &'static str)>>,
    /// After this many deliveries, requests are recorded and never
    /// answered (a worker killed with requests in flight).
    pub hold_after: Option<usize>,
}

impl Script {
    /// The answer scripted for the next request to `device`, and whether
    /// a request not scripted is held, `delivered` having been delivered.
    fn next(&mut self, device: &str, delivered: usize) -> (Option<(u16, &'static str)>, bool) {
        let scripted = self.answers.get_mut(device).and_then(VecDeque::pop_front);
        let held = scripted.is_none() && self.hold_after.is_some_and(|n| delivered >= n);
        (scripted, held)
    }
}

/// One request the APNs peer accepted as well formed.
#[derive(Clone, Debug)]
pub struct ApnsReceived {
    pub device: String,
    pub headers: HashMap<String, String>,
    pub payload: Value,
    pub provider_token: String,
    pub iat: i64,
    /// Answered 200 (not a scripted failure, not held).
    pub delivered: bool,
}

#[derive(Default)]
pub struct ApnsLog {
    pub received: Vec<ApnsReceived>,
    /// Requests refused as malformed, with why: must stay empty.
    pub malformed: Vec<String>,
    /// Provider tokens to answer 403 ExpiredProviderToken.
    pub expired: HashSet<String>,
    /// Provider tokens whose signature and claims were verified, with
    /// their `iat` and connection: a token is the same bytes on every
    /// request for up to an hour, so its signature is checked once (as a
    /// server would cache it), its headers and payload on every request.
    verified: HashMap<String, (i64, Connection)>,
}

pub struct ApnsPeer {
    pub base: String,
    pub log: Arc<Mutex<ApnsLog>>,
    pub script: Arc<Mutex<Script>>,
    /// The `.p8` key file the service signs with.
    pub key_file: std::path::PathBuf,
}

pub const KEY_ID: &str = "ABC123DEFG";
pub const TEAM_ID: &str = "DEF123GHIJ";
pub const TOPIC: &str = "app.posthorn.ios";

pub fn apns_peer(tls: &Tls) -> ApnsPeer {
    let ec = openssl::ec::EcKey::generate(
        &openssl::ec::EcGroup::from_curve_name(openssl::nid::Nid::X9_62_PRIME256V1).unwrap(),
    )
    .unwrap();
    let mut ctx = openssl::bn::BigNumContext::new().unwrap();
    let point = ec
        .public_key()
        .to_bytes(
            ec.group(),
            openssl::ec::PointConversionForm::UNCOMPRESSED,
            &mut ctx,
        )
        .unwrap();
    let key: PKey<Private> = PKey::from_ec_key(ec).unwrap();
    let key_file = temp_file("AuthKey.p8", &key.private_key_to_pem_pkcs8().unwrap());
    // jsonwebtoken checks ES256 with the raw public point.
    let public = DecodingKey::from_ec_der(&point);
    let log: Arc<Mutex<ApnsLog>> = Arc::default();
    let script: Arc<Mutex<Script>> = Arc::default();
    let (l, s) = (log.clone(), script.clone());
    let handler: Handler = Arc::new(move |parts, body| apns_answer(&public, &l, &s, parts, body));
    ApnsPeer {
        base: serve(tls, handler),
        log,
        script,
        key_file,
    }
}

fn apns_answer(
    public: &DecodingKey,
    log: &Mutex<ApnsLog>,
    script: &Mutex<Script>,
    parts: &hyper::http::request::Parts,
    body: &[u8],
) -> Answer {
    let reason =
        |status: u16, reason: &str| Some((status, vec![], json!({ "reason": reason }).to_string()));
    let mut log = log.lock().unwrap();
    let checked = check_apns(public, &mut log.verified, parts, body);
    let (device, provider_token, iat, payload) = match checked {
        Ok(c) => c,
        Err(why) => {
            log.malformed.push(why.clone());
            return reason(400, &why);
        }
    };
    if log.expired.contains(&provider_token) {
        return reason(403, "ExpiredProviderToken");
    }
    let mut script = script.lock().unwrap();
    let delivered = log.received.iter().filter(|r| r.delivered).count();
    let (scripted, held) = script.next(&device, delivered);
    log.received.push(ApnsReceived {
        device,
        headers: parts
            .headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or_default().to_owned()))
            .collect(),
        payload,
        provider_token,
        iat,
        delivered: scripted.is_none() && !held,
    });
    match scripted {
        Some((status, why)) if status == 429 || status == 503 => Some((
            status,
            vec![("retry-after", retry_after(status))],
            json!({ "reason": why }).to_string(),
        )),
        Some((status, why)) => reason(status, why),
        None if held => None,
        None => Some((200, vec![], String::new())),
    }
}

/// The provider token's ES256 signature, `kid` and `iss`; its `iat`.
fn verify_provider_token(public: &DecodingKey, token: &str) -> Result<i64, String> {
    let mut validation = Validation::new(Algorithm::ES256);
    validation.required_spec_claims = HashSet::new();
    validation.validate_exp = false;
    validation.validate_aud = false;
    let decoded = jsonwebtoken::decode::<Value>(token, public, &validation)
        .map_err(|e| format!("InvalidProviderToken: {e}"))?;
    if decoded.header.kid.as_deref() != Some(KEY_ID) || decoded.claims["iss"] != TEAM_ID {
        return Err("InvalidProviderToken: kid or iss".into());
    }
    decoded.claims["iat"]
        .as_i64()
        .ok_or("InvalidProviderToken: iat".into())
}

/// What APNs requires of a request: its path, headers, token and payload.
/// Returns (device token, provider token, iat, payload).
fn check_apns(
    public: &DecodingKey,
    verified: &mut HashMap<String, (i64, Connection)>,
    parts: &hyper::http::request::Parts,
    body: &[u8],
) -> Result<(String, String, i64, Value), String> {
    let device = parts
        .uri
        .path()
        .strip_prefix("/3/device/")
        .filter(|t| t.len() == 64 && t.bytes().all(|b| b.is_ascii_hexdigit()))
        .ok_or("BadPath")?
        .to_owned();
    if parts.method != hyper::Method::POST {
        return Err("MethodNotAllowed".into());
    }
    let bearer = header(parts, "authorization");
    let token = bearer
        .strip_prefix("bearer ")
        .ok_or("MissingProviderToken")?;
    let connection = *parts.extensions.get::<Connection>().expect("a connection");
    let iat = match verified.get(token) {
        Some((iat, _)) => *iat,
        None => {
            let iat = verify_provider_token(public, token)?;
            // Apple: on a connection, a new provider token no sooner than
            // 20 minutes after the last (more often is refused, 429).
            let again = verified
                .values()
                .any(|(seen, on)| *on == connection && (iat - seen).abs() < 20 * 60);
            if again {
                return Err("TooManyProviderTokenUpdates".into());
            }
            verified.insert(token.to_owned(), (iat, connection));
            iat
        }
    };
    let checks = [
        (header(parts, "apns-topic") == TOPIC, "BadTopic"),
        (
            header(parts, "apns-push-type") == "alert",
            "InvalidPushType",
        ),
        (
            ["5", "10"].contains(&header(parts, "apns-priority").as_str()),
            "BadPriority",
        ),
        (
            header(parts, "apns-expiration").parse::<i64>().is_ok(),
            "BadExpirationDate",
        ),
        (
            // APNs: any string of at most 64 bytes.
            (1..=64).contains(&header(parts, "apns-collapse-id").len()),
            "BadCollapseId",
        ),
        (
            uuid::Uuid::parse_str(&header(parts, "apns-id")).is_ok(),
            "BadMessageId",
        ),
        (body.len() <= 4096, "PayloadTooLarge"),
    ];
    if let Some((_, why)) = checks.iter().find(|(ok, _)| !ok) {
        return Err((*why).into());
    }
    let payload: Value = serde_json::from_slice(body).map_err(|_| "PayloadEmpty")?;
    let aps = &payload["aps"];
    let shaped = aps["alert"]["title"].is_string()
        && aps["alert"]["body"].is_string()
        && aps["badge"].is_i64()
        && aps["thread-id"].is_string()
        && payload["url"].is_string();
    if !shaped {
        return Err(format!("BadPayload: {payload}"));
    }
    Ok((device, token.to_owned(), iat, payload))
}

/// One message the FCM peer accepted.
#[derive(Clone, Debug)]
pub struct FcmReceived {
    pub message: Value,
    pub delivered: bool,
}

#[derive(Default)]
pub struct FcmLog {
    pub received: Vec<FcmReceived>,
    pub malformed: Vec<String>,
    /// Access tokens granted, in order; those revoked answer 401.
    pub granted: Vec<String>,
    pub revoked: HashSet<String>,
}

pub struct FcmPeer {
    pub base: String,
    pub log: Arc<Mutex<FcmLog>>,
    pub script: Arc<Mutex<Script>>,
    /// The service account's JSON key file.
    pub account_file: std::path::PathBuf,
}

pub const PROJECT: &str = "posthorn-test";
const CLIENT_EMAIL: &str = "push@posthorn-test.iam.gserviceaccount.com";

pub fn fcm_peer(tls: &Tls) -> FcmPeer {
    let rsa = openssl::rsa::Rsa::generate(2048).unwrap();
    let public = DecodingKey::from_rsa_der(&rsa.public_key_to_der_pkcs1().unwrap());
    let key = PKey::from_rsa(rsa).unwrap();
    let log: Arc<Mutex<FcmLog>> = Arc::default();
    let script: Arc<Mutex<Script>> = Arc::default();
    let (l, s) = (log.clone(), script.clone());
    let token_uri: Arc<Mutex<String>> = Arc::default();
    let t = token_uri.clone();
    let handler: Handler = Arc::new(move |parts, body| {
        let token_uri = t.lock().unwrap().clone();
        fcm_answer(&public, &token_uri, &l, &s, parts, body)
    });
    let base = serve(tls, handler);
    *token_uri.lock().unwrap() = format!("{base}/token");
    let account = json!({
        "type": "service_account",
        "project_id": PROJECT,
        "private_key_id": "0123456789abcdef",
        "private_key": String::from_utf8(key.private_key_to_pem_pkcs8().unwrap()).unwrap(),
        "client_email": CLIENT_EMAIL,
        "token_uri": format!("{base}/token"),
    });
    FcmPeer {
        account_file: temp_file("service-account.json", account.to_string().as_bytes()),
        base,
        log,
        script,
    }
}

/// A busy service (429) asks for two minutes, longer than the outbox's
/// first backoff; one that is down (503) for none.
fn retry_after(status: u16) -> String {
    if status == 429 { "120" } else { "0" }.to_owned()
}

fn fcm_error(status: u16, code: &str, details: Value) -> Answer {
    let body =
        json!({"error": {"code": status, "status": code, "message": "", "details": details}});
    let retry = if status == 429 || status == 503 {
        vec![("retry-after", retry_after(status))]
    } else {
        vec![]
    };
    Some((status, retry, body.to_string()))
}

fn fcm_answer(
    public: &DecodingKey,
    token_uri: &str,
    log: &Mutex<FcmLog>,
    script: &Mutex<Script>,
    parts: &hyper::http::request::Parts,
    body: &[u8],
) -> Answer {
    let mut log = log.lock().unwrap();
    if parts.uri.path() == "/token" {
        return match check_assertion(public, token_uri, parts, body) {
            Ok(()) => {
                let token = format!("ya29.test-{}", log.granted.len());
                log.granted.push(token.clone());
                let grant =
                    json!({"access_token": token, "expires_in": 3599, "token_type": "Bearer"});
                Some((200, vec![], grant.to_string()))
            }
            Err(why) => {
                log.malformed.push(why.clone());
                Some((
                    400,
                    vec![],
                    json!({"error": "invalid_grant", "error_description": why}).to_string(),
                ))
            }
        };
    }
    let bearer = header(parts, "authorization");
    let token = bearer
        .strip_prefix("Bearer ")
        .unwrap_or_default()
        .to_owned();
    if !log.granted.contains(&token) || log.revoked.contains(&token) {
        return fcm_error(401, "UNAUTHENTICATED", json!([]));
    }
    let message = match check_message(parts, body) {
        Ok(m) => m,
        Err(why) => {
            log.malformed.push(why.clone());
            return fcm_error(400, "INVALID_ARGUMENT", json!([]));
        }
    };
    let device = message["token"].as_str().unwrap_or_default().to_owned();
    let mut script = script.lock().unwrap();
    let delivered = log.received.iter().filter(|r| r.delivered).count();
    let (scripted, held) = script.next(&device, delivered);
    log.received.push(FcmReceived {
        message,
        delivered: scripted.is_none() && !held,
    });
    let fcm_code = |code: &str| json!([{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": code}]);
    match scripted {
        Some((404, _)) => fcm_error(404, "NOT_FOUND", fcm_code("UNREGISTERED")),
        Some((400, _)) => fcm_error(
            400,
            "INVALID_ARGUMENT",
            json!([{"@type": "type.googleapis.com/google.rpc.BadRequest",
                    "fieldViolations": [{"field": "message.token", "description": "Invalid registration token"}]}]),
        ),
        Some((status, code)) => fcm_error(status, code, fcm_code(code)),
        None if held => None,
        None => Some((
            200,
            vec![],
            json!({"name": format!("projects/{PROJECT}/messages/1")}).to_string(),
        )),
    }
}

/// RFC 7523: the form, and an assertion signed RS256 by the service
/// account for the messaging scope, addressed to this endpoint.
fn check_assertion(
    public: &DecodingKey,
    token_uri: &str,
    parts: &hyper::http::request::Parts,
    body: &[u8],
) -> Result<(), String> {
    if header(parts, "content-type") != "application/x-www-form-urlencoded" {
        return Err("not a form".into());
    }
    let form: HashMap<String, String> = url::form_urlencoded::parse(body).into_owned().collect();
    if form.get("grant_type").map(String::as_str)
        != Some("urn:ietf:params:oauth:grant-type:jwt-bearer")
    {
        return Err("grant_type".into());
    }
    let assertion = form.get("assertion").ok_or("no assertion")?;
    let mut validation = Validation::new(Algorithm::RS256);
    validation.set_audience(&[token_uri]);
    validation.set_issuer(&[CLIENT_EMAIL]);
    // The service's clock is the test's (2030): judged by its own iat.
    validation.validate_exp = false;
    let claims = jsonwebtoken::decode::<Value>(assertion, public, &validation)
        .map_err(|e| format!("assertion: {e}"))?
        .claims;
    let (iat, exp) = (claims["iat"].as_i64(), claims["exp"].as_i64());
    let lasts = exp.zip(iat).map(|(e, i)| e - i);
    if claims["scope"] != "https://www.googleapis.com/auth/firebase.messaging"
        || !lasts.is_some_and(|l| (1..=3600).contains(&l))
    {
        return Err(format!("assertion claims: {claims}"));
    }
    Ok(())
}

/// The HTTP v1 send's path and the message's shape.
fn check_message(parts: &hyper::http::request::Parts, body: &[u8]) -> Result<Value, String> {
    if parts.uri.path() != format!("/v1/projects/{PROJECT}/messages:send") {
        return Err(format!("path {}", parts.uri.path()));
    }
    let sent: Value = serde_json::from_slice(body).map_err(|e| e.to_string())?;
    let m = &sent["message"];
    let android = &m["android"];
    let shaped = m["token"].is_string()
        && m["notification"]["title"].is_string()
        && m["notification"]["body"].is_string()
        && m["data"]
            .as_object()
            .is_some_and(|d| d.values().all(Value::is_string))
        && m["data"]["url"].is_string()
        && ["HIGH", "NORMAL"].contains(&android["priority"].as_str().unwrap_or_default())
        && android["ttl"].as_str().is_some_and(|t| t.ends_with('s'))
        && android["collapse_key"].is_string()
        && android["notification"]["tag"].is_string()
        && android["notification"]["channel_id"].is_string();
    if !shaped {
        return Err(format!("message shape: {sent}"));
    }
    Ok(m.clone())
}

/// The service's configuration pushing to these peers (either may be
/// left out), trusting their certificate.
pub fn config(
    tls: &Tls,
    apns: Option<&ApnsPeer>,
    fcm: Option<&FcmPeer>,
) -> posthorn::config::Config {
    posthorn::config::Config {
        apns: apns.map(|p| posthorn::config::Apns {
            key_file: p.key_file.clone(),
            key_id: KEY_ID.into(),
            team_id: TEAM_ID.into(),
            topic: TOPIC.into(),
            host: p.base.clone(),
        }),
        fcm: fcm.map(|p| posthorn::config::Fcm {
            service_account_file: p.account_file.clone(),
            project: None,
            endpoint: p.base.clone(),
            token_uri: None,
        }),
        native_push_ca_file: Some(temp_file("ca.pem", &tls.cert_pem)),
        // Tokens that outlast the hours the clock is moved on.
        access_token_seconds: 24 * 3600,
        ..Default::default()
    }
}
