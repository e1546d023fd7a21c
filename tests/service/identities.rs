//! Issue #47, item 5: signing in with Google and Apple against a local
//! issuer that publishes its own keys over HTTP, as the providers do, and
//! signs `id_token`s with them (RS256).

use crate::support::{start_time, Reply, TestApp};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use posthorn::config::{Config, Provider, SignInProvider};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::io::{Read, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

const GOOGLE_ISSUER: &str = "https://accounts.google.com";
const APPLE_ISSUER: &str = "https://appleid.apple.com";
const GOOGLE_WEB: &str = "web.apps.googleusercontent.com";
const APPLE_APP: &str = "app.posthorn.ios";

/// A signing key of the issuer's, with its `kid`.
pub(crate) struct SigningKey {
    kid: String,
    der: Vec<u8>,
    jwk: Value,
}

impl SigningKey {
    pub(crate) fn new(kid: &str) -> SigningKey {
        let rsa = openssl::rsa::Rsa::generate(2048).unwrap();
        let b64 = |n: &openssl::bn::BigNumRef| URL_SAFE_NO_PAD.encode(n.to_vec());
        SigningKey {
            kid: kid.into(),
            der: rsa.private_key_to_der().unwrap(),
            jwk: json!({"kty": "RSA", "alg": "RS256", "use": "sig", "kid": kid,
                        "n": b64(rsa.n()), "e": b64(rsa.e())}),
        }
    }

    pub(crate) fn sign(&self, claims: &Value) -> String {
        let mut header = Header::new(Algorithm::RS256);
        header.kid = Some(self.kid.clone());
        let key = EncodingKey::from_rsa_der(&self.der);
        jsonwebtoken::encode(&header, claims, &key).unwrap()
    }
}

/// The local issuer: serves `/{provider}/keys` (a JSON Web Key Set it can
/// rotate) and counts the fetches.
pub(crate) struct Issuer {
    pub port: u16,
    keys: Arc<Mutex<Vec<Value>>>,
    fetches: Arc<AtomicUsize>,
    /// How long each answer waits, in milliseconds (a slow provider).
    delay: Arc<std::sync::atomic::AtomicU64>,
}

impl Issuer {
    pub(crate) fn start(keys: &[&SigningKey]) -> Issuer {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let published = Arc::new(Mutex::new(keys.iter().map(|k| k.jwk.clone()).collect()));
        let fetches = Arc::new(AtomicUsize::new(0));
        let delay = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let (served, counted, slow) = (published.clone(), fetches.clone(), delay.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (served, counted, slow) = (served.clone(), counted.clone(), slow.clone());
                // Each asker at once, as a real provider answers them.
                std::thread::spawn(move || {
                    let mut stream = stream;
                    let mut request = Vec::new();
                    let mut chunk = [0u8; 1024];
                    while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                        match stream.read(&mut chunk) {
                            Ok(0) | Err(_) => break,
                            Ok(n) => request.extend_from_slice(&chunk[..n]),
                        }
                    }
                    counted.fetch_add(1, Ordering::SeqCst);
                    let wait = slow.load(Ordering::SeqCst);
                    std::thread::sleep(std::time::Duration::from_millis(wait));
                    let body = json!({"keys": *served.lock().unwrap()}).to_string();
                    let _ = write!(
                        stream,
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                        body.len()
                    );
                });
            }
        });
        Issuer {
            port,
            keys: published,
            fetches,
            delay,
        }
    }

    /// Answer every fetch `millis` late from now on.
    fn slow(&self, millis: u64) {
        self.delay.store(millis, Ordering::SeqCst);
    }

    pub(crate) fn publish(&self, keys: &[&SigningKey]) {
        *self.keys.lock().unwrap() = keys.iter().map(|k| k.jwk.clone()).collect();
    }

    fn fetches(&self) -> usize {
        self.fetches.load(Ordering::SeqCst)
    }

    pub(crate) fn config(&self) -> Config {
        let provider = |provider, ids: &[&str], issuer: &str| SignInProvider {
            provider,
            client_ids: ids.iter().map(|s| s.to_string()).collect(),
            issuers: vec![issuer.into()],
            keys_url: format!("http://127.0.0.1:{}/{}/keys", self.port, provider.name()),
            authorize_url: format!("http://127.0.0.1:{}/authorize", self.port),
        };
        Config {
            sign_in: vec![
                provider(
                    Provider::Google,
                    &[GOOGLE_WEB, "android.apps.googleusercontent.com"],
                    GOOGLE_ISSUER,
                ),
                provider(Provider::Apple, &[APPLE_APP], APPLE_ISSUER),
            ],
            ..Default::default()
        }
    }
}

async fn nonce(app: &TestApp) -> String {
    let reply = app
        .request("POST", "/v1/sessions/nonce", None, None, &[])
        .await;
    assert_eq!(reply.status, 201, "{}", reply.body);
    reply.body["nonce"].as_str().unwrap().to_owned()
}

/// Claims as Google writes them, an hour from the service's now.
fn google_claims(subject: &str, nonce: &str) -> Value {
    let now = start_time().timestamp();
    json!({"iss": GOOGLE_ISSUER, "aud": GOOGLE_WEB, "sub": subject, "iat": now,
           "exp": now + 3600, "nonce": nonce, "email": format!("{subject}@gmail.test"),
           "email_verified": true})
}

async fn sign_in(app: &TestApp, provider: &str, token: &str, nonce: &str, extra: Value) -> Reply {
    let mut body = json!({"provider": provider, "id_token": token, "nonce": nonce});
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    app.request("POST", "/v1/sessions/identity", None, Some(body), &[])
        .await
}

#[actix_web::test]
async fn a_google_identity_creates_an_account_once_then_signs_in_to_it() {
    let key = SigningKey::new("g1");
    let issuer = Issuer::start(&[&key]);
    let app = TestApp::start_with(issuer.config()).await;
    let n = nonce(&app).await;
    let token = key.sign(&google_claims("1001", &n));
    let unknown = sign_in(&app, "google", &token, &n, json!({})).await;
    assert_eq!(
        (unknown.status.as_u16(), unknown.code()),
        (404, "identity_unknown"),
        "{}",
        unknown.body
    );
    let created = sign_in(
        &app,
        "google",
        &token,
        &n,
        json!({"username": "mina", "locale": "ko"}),
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.body);
    assert_eq!(created.body["user"]["username"], "mina");
    assert_eq!(created.body["user"]["guest"], false);
    let access = created.body["access_token"].as_str().unwrap();
    let me = app.get("/v1/me", access).await.body;
    assert_eq!(
        me["email"], "1001@gmail.test",
        "the provider verified it: {me}"
    );
    // Issue #65: the same token again is a replay, refused.
    let replayed = sign_in(&app, "google", &token, &n, json!({})).await;
    assert_eq!(replayed.status, 401, "{}", replayed.body);
    assert!(replayed.body["detail"]
        .as_str()
        .unwrap()
        .contains("used already"));
    let n = nonce(&app).await;
    let token = key.sign(&google_claims("1001", &n));
    let again = sign_in(&app, "google", &token, &n, json!({})).await;
    assert_eq!(again.status, 201, "{}", again.body);
    assert_eq!(again.body["user"]["id"], created.body["user"]["id"]);
    // A second username for the same identity signs in to the first.
    let n = nonce(&app).await;
    let token = key.sign(&google_claims("1001", &n));
    let twice = sign_in(&app, "google", &token, &n, json!({"username": "mina2"})).await;
    assert_eq!(twice.body["user"]["username"], "mina");
    let mine = app.get("/v1/me/identities", access).await.body;
    assert_eq!(mine["identities"][0]["provider"], "google", "{mine}");
    assert_eq!(mine["has_password"], false);
    // Its only way in cannot be unlinked.
    let unlink = app
        .request(
            "DELETE",
            "/v1/me/identities/google",
            Some(access),
            None,
            &[],
        )
        .await;
    assert_eq!(unlink.status, 409, "{}", unlink.body);
    app.stop().await;
}

#[actix_web::test]
async fn apple_tokens_carry_the_nonces_hash_and_say_verified_in_a_string() {
    let key = SigningKey::new("a1");
    let issuer = Issuer::start(&[&key]);
    let app = TestApp::start_with(issuer.config()).await;
    let n = nonce(&app).await;
    let now = start_time().timestamp();
    let hashed: String = Sha256::digest(n.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let claims = json!({"iss": APPLE_ISSUER, "aud": APPLE_APP, "sub": "000123.abc", "iat": now,
        "exp": now + 600, "nonce": hashed, "email": "x7@privaterelay.appleid.test", "email_verified": "true"});
    let created = sign_in(
        &app,
        "apple",
        &key.sign(&claims),
        &n,
        json!({"username": "jun"}),
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.body);
    let me = app
        .get("/v1/me", created.body["access_token"].as_str().unwrap())
        .await
        .body;
    assert_eq!(me["email"], "x7@privaterelay.appleid.test");
    app.stop().await;
}

#[actix_web::test]
async fn every_forged_or_misdirected_token_is_refused_and_creates_nothing() {
    let key = SigningKey::new("g1");
    let forger = SigningKey::new("g1");
    let issuer = Issuer::start(&[&key]);
    let app = TestApp::start_with(issuer.config()).await;
    let n = nonce(&app).await;
    let good = google_claims("2002", &n);
    let with = |field: &str, value: Value| {
        let mut c = good.clone();
        c[field] = value;
        c
    };
    let hs256 = {
        // The published modulus as an HMAC key: the old confusion attack.
        let mut header = Header::new(Algorithm::HS256);
        header.kid = Some("g1".into());
        let secret = key.jwk["n"].as_str().unwrap().as_bytes().to_vec();
        jsonwebtoken::encode(&header, &good, &EncodingKey::from_secret(&secret).unwrap()).unwrap()
    };
    let unsigned = {
        let head = URL_SAFE_NO_PAD.encode(br#"{"alg":"none","kid":"g1"}"#);
        format!("{head}.{}.", URL_SAFE_NO_PAD.encode(good.to_string()))
    };
    let other_nonce = nonce(&app).await;
    let expired = start_time().timestamp() - 3600;
    let cases: Vec<(&str, String, String)> = vec![
        ("signed by another key", forger.sign(&good), n.clone()),
        (
            "another audience",
            key.sign(&with("aud", json!("someone-else"))),
            n.clone(),
        ),
        (
            "another issuer",
            key.sign(&with("iss", json!("https://evil.test"))),
            n.clone(),
        ),
        ("expired", key.sign(&with("exp", json!(expired))), n.clone()),
        ("asked with another nonce", key.sign(&good), other_nonce),
        (
            "a nonce we never issued",
            key.sign(&with("nonce", json!("made-up"))),
            "made-up".into(),
        ),
        ("HS256", hs256, n.clone()),
        ("alg none", unsigned, n.clone()),
        (
            "an unknown kid",
            SigningKey::new("g9").sign(&good),
            n.clone(),
        ),
    ];
    let users_before = app.count("SELECT count(*) AS n FROM users".into()).await;
    // A field the API does not know is a malformed request (400), in the
    // proof's part of the body and beside it.
    for extra in [
        json!({"username": "eve", "admin": true}),
        json!({"id_token2": "x"}),
    ] {
        let reply = sign_in(&app, "google", &key.sign(&good), &n, extra.clone()).await;
        assert_eq!(reply.status, 400, "{extra}: {}", reply.body);
    }
    for (why, token, nonce) in cases {
        let reply = sign_in(&app, "google", &token, &nonce, json!({"username": "eve"})).await;
        assert_eq!(reply.status, 401, "{why}: {}", reply.body);
        assert!(
            !reply.body.to_string().contains(&token),
            "{why}: the token is not echoed"
        );
    }
    assert_eq!(
        app.count("SELECT count(*) AS n FROM users".into()).await,
        users_before
    );
    // A provider with no client id configured is not offered.
    let off = TestApp::start().await;
    let n = nonce(&off).await;
    let reply = sign_in(
        &off,
        "google",
        &key.sign(&google_claims("1", &n)),
        &n,
        json!({}),
    )
    .await;
    assert_eq!(reply.status, 422, "{}", reply.body);
    off.stop().await;
    app.stop().await;
}

#[actix_web::test]
async fn keys_rotated_at_the_issuer_are_picked_up_without_a_restart() {
    let old = SigningKey::new("2026-a");
    let issuer = Issuer::start(&[&old]);
    let app = TestApp::start_with(issuer.config()).await;
    let n = nonce(&app).await;
    let first = sign_in(
        &app,
        "google",
        &old.sign(&google_claims("3003", &n)),
        &n,
        json!({"username": "rotor"}),
    )
    .await;
    assert_eq!(first.status, 201, "{}", first.body);
    let fetched = issuer.fetches();
    // Kept: a second sign-in fetches nothing.
    let n = nonce(&app).await;
    let again = sign_in(
        &app,
        "google",
        &old.sign(&google_claims("3003", &n)),
        &n,
        json!({}),
    )
    .await;
    assert_eq!(again.status, 201);
    assert_eq!(issuer.fetches(), fetched, "the keys are kept");
    let new = SigningKey::new("2026-b");
    issuer.publish(&[&new]);
    // Give the refetch floor (10 s) time to pass.
    tokio::time::sleep(std::time::Duration::from_secs(11)).await;
    let n = nonce(&app).await;
    let rotated = sign_in(
        &app,
        "google",
        &new.sign(&google_claims("3003", &n)),
        &n,
        json!({}),
    )
    .await;
    assert_eq!(rotated.status, 201, "{}", rotated.body);
    assert_eq!(rotated.body["user"]["username"], "rotor");
    assert_eq!(issuer.fetches(), fetched + 1, "one fetch for the new kid");
    app.stop().await;
}

#[actix_web::test]
async fn a_guest_registers_with_google_and_a_player_links_and_unlinks_one() {
    let key = SigningKey::new("g1");
    let issuer = Issuer::start(&[&key]);
    let app = TestApp::start_with(issuer.config()).await;
    let guest = app.guest("민지").await;
    let alice = app.register("alice").await;
    let game = app
        .request(
            "POST",
            "/v1/matches",
            Some(&guest),
            Some(json!({"game": "checkers"})),
            &[],
        )
        .await;
    assert_eq!(game.status, 201, "{}", game.body);
    let n = nonce(&app).await;
    let proof =
        json!({"provider": "google", "id_token": key.sign(&google_claims("4004", &n)), "nonce": n});
    let registered = app
        .request(
            "POST",
            "/v1/me/registration",
            Some(&guest),
            Some(json!({"username": "minji", "identity": proof})),
            &[],
        )
        .await;
    assert_eq!(registered.status, 201, "{}", registered.body);
    let minji = registered.body["access_token"].as_str().unwrap();
    let matches = app.get("/v1/matches", minji).await.body;
    assert_eq!(
        matches["items"].as_array().unwrap().len(),
        1,
        "the match kept: {matches}"
    );
    // Neither or both of password and identity: 422.
    let both = app
        .request(
            "POST",
            "/v1/me/registration",
            Some(&app.guest("x").await),
            Some(json!({"username": "both1", "password": "a long password", "identity": proof})),
            &[],
        )
        .await;
    assert_eq!(both.status, 422, "{}", both.body);

    // Another account cannot take that identity (proven afresh: a nonce
    // proves once).
    let n = nonce(&app).await;
    let proof =
        json!({"provider": "google", "id_token": key.sign(&google_claims("4004", &n)), "nonce": n});
    let taken = app
        .request(
            "POST",
            "/v1/me/identities",
            Some(&alice),
            Some(proof.clone()),
            &[],
        )
        .await;
    assert_eq!(
        (taken.status.as_u16(), taken.code()),
        (409, "identity_taken"),
        "{}",
        taken.body
    );
    // Alice links her own, signs in with it, and unlinks it (she keeps her
    // password).
    let n = nonce(&app).await;
    let hers =
        json!({"provider": "google", "id_token": key.sign(&google_claims("5005", &n)), "nonce": n});
    let linked = app
        .request(
            "POST",
            "/v1/me/identities",
            Some(&alice),
            Some(hers.clone()),
            &[],
        )
        .await;
    assert_eq!(linked.status, 201, "{}", linked.body);
    assert_eq!(linked.body["has_password"], true);
    let n = nonce(&app).await;
    let by_google = sign_in(
        &app,
        "google",
        &key.sign(&google_claims("5005", &n)),
        &n,
        json!({}),
    )
    .await;
    assert_eq!(
        by_google.body["user"]["username"], "alice",
        "{}",
        by_google.body
    );
    let unlinked = app
        .request(
            "DELETE",
            "/v1/me/identities/google",
            Some(&alice),
            None,
            &[],
        )
        .await;
    assert_eq!(unlinked.status, 204, "{}", unlinked.body);
    let n = nonce(&app).await;
    let gone = sign_in(
        &app,
        "google",
        &key.sign(&google_claims("5005", &n)),
        &n,
        json!({}),
    )
    .await;
    assert_eq!(gone.code(), "identity_unknown");
    app.stop().await;
}

/// The mails Vera has had, once the outbox is delivered.
async fn mailed(app: &TestApp, smtp: &crate::smtp::SmtpServer) -> Vec<String> {
    crate::sessions::deliver(app).await;
    crate::sessions::mails_to(smtp, "vera@example.test")
}

/// Issue #47 (review): a new way in is handed only to whoever proves again
/// who they are — the password, unless the session signed in within 10
/// minutes — and the account's address hears of every link and unlink. A
/// refused token is 403 for a signed-in caller (401 would make a client
/// refresh its session and try again).
#[actix_web::test]
async fn linking_asks_again_who_you_are_and_the_address_hears_of_it() {
    let smtp = crate::smtp::SmtpServer::start(0);
    let key = SigningKey::new("g1");
    let issuer = Issuer::start(&[&key]);
    let app = TestApp::start_with(Config {
        smtp_url: Some(smtp.url()),
        ..issuer.config()
    })
    .await;
    let vera = app.register("vera").await;
    app.clock.advance(chrono::Duration::minutes(11));
    let n = nonce(&app).await;
    let proof =
        json!({"provider": "google", "id_token": key.sign(&google_claims("7007", &n)), "nonce": n});
    let link = |body: Value| app.request("POST", "/v1/me/identities", Some(&vera), Some(body), &[]);
    let with = |password: &str| {
        let mut body = proof.clone();
        body["password"] = json!(password);
        body
    };
    let bare = link(proof.clone()).await;
    assert_eq!(bare.status, 403, "signed in 11 minutes ago: {}", bare.body);
    let wrong = link(with("not the password")).await;
    assert_eq!(wrong.status, 403, "{}", wrong.body);
    let mut forged = with("a long password");
    forged["id_token"] = json!(key.sign(&google_claims("7007", "another nonce")));
    let refused = link(forged).await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    let mine = app.get("/v1/me/identities", &vera).await.body;
    assert_eq!(mine["identities"], json!([]), "nothing linked yet");
    assert!(mailed(&app, &smtp).await.is_empty());

    let linked = link(with("a long password")).await;
    assert_eq!(linked.status, 201, "{}", linked.body);
    let told = mailed(&app, &smtp).await;
    assert_eq!(told.len(), 1, "{told:?}");
    assert!(
        told[0].contains("sign-in was linked to your account"),
        "{}",
        told[0]
    );
    let unlinked = app
        .request("DELETE", "/v1/me/identities/google", Some(&vera), None, &[])
        .await;
    assert_eq!(unlinked.status, 204, "{}", unlinked.body);
    let told = mailed(&app, &smtp).await;
    assert_eq!(told.len(), 2, "{told:?}");
    assert!(
        told[1].contains("sign-in was unlinked from your account"),
        "{}",
        told[1]
    );

    // A session that signed in just now links without the password.
    let fresh = app
        .request(
            "POST",
            "/v1/sessions",
            None,
            Some(json!({"login": "vera", "password": "a long password"})),
            &[],
        )
        .await;
    assert_eq!(fresh.status, 201, "{}", fresh.body);
    let fresh = fresh.body["access_token"].as_str().unwrap().to_owned();
    let n = nonce(&app).await;
    let again =
        json!({"provider": "google", "id_token": key.sign(&google_claims("7007", &n)), "nonce": n});
    let relinked = app
        .request("POST", "/v1/me/identities", Some(&fresh), Some(again), &[])
        .await;
    assert_eq!(relinked.status, 201, "{}", relinked.body);
    app.stop().await;
}

/// Issue #65 item 10: a stream of forged `kid`s while the provider is
/// slow costs the provider one fetch, and the requests waiting behind it
/// are refused at once rather than each fetching again.
#[actix_web::test]
async fn forged_kids_while_the_provider_is_slow_cost_one_fetch() {
    let key = SigningKey::new("real");
    let issuer = Issuer::start(&[&key]);
    let app = TestApp::start_with(issuer.config()).await;
    issuer.slow(1500);
    let forged = SigningKey::new("forged");
    let mut nonces = Vec::new();
    for _ in 0..20 {
        nonces.push(nonce(&app).await);
    }
    let tries = nonces.iter().enumerate().map(|(i, n)| {
        let token = forged.sign(&google_claims(&format!("90{i}"), n));
        let app = &app;
        async move {
            let started = std::time::Instant::now();
            let reply = sign_in(app, "google", &token, n, json!({})).await;
            (reply.status.as_u16(), started.elapsed())
        }
    });
    let answers = futures_util::future::join_all(tries).await;
    assert!(
        answers
            .iter()
            .all(|(status, _)| [401, 503].contains(status)),
        "{answers:?}"
    );
    assert_eq!(issuer.fetches(), 1, "one fetch in flight at a time");
    let quick = answers
        .iter()
        .filter(|(_, took)| *took < std::time::Duration::from_millis(1000))
        .count();
    assert!(quick >= 19, "refused at once meanwhile: {answers:?}");
    // The real key, fetched by that one fetch, still signs in.
    issuer.slow(0);
    let n = nonce(&app).await;
    let token = key.sign(&google_claims("9100", &n));
    let real = sign_in(&app, "google", &token, &n, json!({"username": "realone"})).await;
    assert_eq!(real.status, 201, "{}", real.body);
    assert_eq!(issuer.fetches(), 1, "kept");
    app.stop().await;
}
