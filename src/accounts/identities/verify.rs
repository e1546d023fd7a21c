//! Checking a Google or Apple `id_token`
//! (docs/decisions/accounts-and-sessions.md), as both providers document
//! it: an RS256 JWT signed with one of the keys the provider publishes (a
//! JSON Web Key Set, the key chosen by the token's `kid`), naming the
//! provider as `iss` and one of our client ids as `aud`, unexpired by the
//! service's clock, and carrying the nonce the service issued for this
//! sign-in (`auth::Keys::sign_in_nonce`).
//!
//! The key sets are fetched and kept for an hour; a `kid` not among them
//! (the provider rotated its keys) fetches them again at once, at most
//! every ten seconds and one fetch at a time per provider (docs/abuse.md,
//! "Limits that hold"), so a stream of forged `kid`s cannot make the
//! service hammer the provider, even while it is slow to answer. A nonce
//! proves one sign-in: its token is refused when it comes again
//! (`identities::spend`).

use super::Proven;
use crate::accounts::IdentityProof;
use crate::auth::Keys;
use crate::config::{Provider, SignInProvider};
use crate::error::Error;
use chrono::{DateTime, Utc};
use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long fetched keys are trusted without asking again.
const KEEP_KEYS: Duration = Duration::from_secs(3600);
/// The least time between two fetches of one provider's keys.
const REFETCH_AFTER: Duration = Duration::from_secs(10);
/// Clock skew allowed on `exp`.
const LEEWAY_SECONDS: i64 = 60;
/// A key set larger than this is no provider's.
const MAX_KEYS_BYTES: usize = 64 * 1024;

type Client = hyper::Client<hyper_tls::HttpsConnector<hyper::client::HttpConnector>>;

struct Fetched {
    keys: JwkSet,
    at: Instant,
}

pub struct Verifier {
    providers: Vec<SignInProvider>,
    client: Client,
    keys: Mutex<HashMap<Provider, Fetched>>,
    /// Each provider's last fetch: when it began, and whether it is
    /// still in flight.
    asked: Mutex<HashMap<Provider, (Instant, bool)>>,
    fetches: std::sync::atomic::AtomicU64,
}

/// A fetch of one provider's keys in flight; dropped (done, failed or
/// cancelled), the next may begin after [`REFETCH_AFTER`].
struct Asking<'a> {
    verifier: &'a Verifier,
    provider: Provider,
}

impl Drop for Asking<'_> {
    fn drop(&mut self) {
        let mut asked = (self.verifier.asked)
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if let Some((_, in_flight)) = asked.get_mut(&self.provider) {
            *in_flight = false;
        }
    }
}

#[derive(Deserialize)]
struct Claims {
    sub: String,
    exp: i64,
    nonce: Option<String>,
    email: Option<String>,
    /// A boolean at Google, the string "true" at Apple.
    email_verified: Option<serde_json::Value>,
}

fn refused(why: &str) -> Error {
    Error::unauthorized(format!("the identity token was refused: {why}"))
}

impl Verifier {
    pub fn new(providers: Vec<SignInProvider>) -> Verifier {
        Verifier {
            providers,
            client: hyper::Client::builder().build(hyper_tls::HttpsConnector::new()),
            keys: Mutex::new(HashMap::new()),
            asked: Mutex::new(HashMap::new()),
            fetches: Default::default(),
        }
    }

    /// The providers offered here (with a client id).
    pub fn offered(&self) -> impl Iterator<Item = &SignInProvider> {
        self.providers.iter().filter(|p| !p.client_ids.is_empty())
    }

    fn config(&self, provider: Provider) -> Result<&SignInProvider, Error> {
        self.offered()
            .find(|p| p.provider == provider)
            .ok_or_else(|| {
                Error::unacceptable(format!(
                    "signing in with {} is not offered here",
                    provider.name()
                ))
            })
    }

    /// The identity `proof` proves, or why not (401).
    pub async fn verify(
        &self,
        proof: &IdentityProof,
        ours: &Keys,
        now: DateTime<Utc>,
    ) -> Result<Proven, Error> {
        let config = self.config(proof.provider)?;
        if !ours.nonce_is_ours(&proof.nonce, now) {
            return Err(refused(
                "its nonce is not one this service issued, or is over 15 minutes old",
            ));
        }
        let header =
            jsonwebtoken::decode_header(&proof.id_token).map_err(|_| refused("not a JWT"))?;
        // Only what the providers sign with: never `none`, never an HMAC
        // keyed with a public key.
        if header.alg != Algorithm::RS256 {
            return Err(refused("it is not signed with RS256"));
        }
        let kid = header.kid.ok_or_else(|| refused("it names no key"))?;
        let key = self.key(config, &kid).await?;
        let mut rules = Validation::new(Algorithm::RS256);
        rules.set_audience(&config.client_ids);
        rules.set_issuer(&config.issuers);
        rules.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        // Expiry is judged by the service's clock, below.
        rules.validate_exp = false;
        let claims = jsonwebtoken::decode::<Claims>(&proof.id_token, &key, &rules)
            .map_err(|_| refused("its signature, issuer or audience does not check out"))?
            .claims;
        if claims.exp + LEEWAY_SECONDS <= now.timestamp() {
            return Err(refused("it has expired"));
        }
        let hashed = hex(&Sha256::digest(proof.nonce.as_bytes()));
        if claims
            .nonce
            .as_deref()
            .is_none_or(|n| n != proof.nonce && n != hashed)
        {
            return Err(refused("it was not asked for with this nonce"));
        }
        let verified = matches!(claims.email_verified, Some(serde_json::Value::Bool(true)))
            || claims.email_verified == Some(serde_json::Value::from("true"));
        let nonce_expires = ours
            .nonce_expiry(&proof.nonce)
            .ok_or_else(|| refused("its nonce is not one this service issued"))?;
        Ok(Proven {
            provider: proof.provider,
            nonce: hashed,
            nonce_expires,
            subject: claims.sub,
            email: claims
                .email
                .filter(|_| verified)
                .and_then(|e| crate::names::email(&e).ok()),
        })
    }

    /// The provider's key `kid`, from the kept set, or a fresh one.
    ///
    /// One fetch per provider at a time (docs/abuse.md, "Limits that
    /// hold"): while one is in flight, a token whose key is not kept is
    /// refused at once (503, try again) instead of starting another, so
    /// forged `kid`s sent while the provider is slow cost one fetch, not
    /// one each; and an attempt, answered or not, counts for
    /// [`REFETCH_AFTER`].
    async fn key(&self, config: &SignInProvider, kid: &str) -> Result<DecodingKey, Error> {
        let unknown = || refused("its key is not one the provider publishes");
        let kept = |fresh_within: Duration| -> Option<Result<DecodingKey, ()>> {
            let keys = self.keys.lock().unwrap_or_else(|p| p.into_inner());
            let fetched = keys.get(&config.provider)?;
            let found = fetched.keys.find(kid);
            if found.is_none() && fetched.at.elapsed() >= fresh_within {
                return None;
            }
            Some(
                found
                    .ok_or(())
                    .and_then(|jwk| DecodingKey::from_jwk(jwk).map_err(|_| ())),
            )
        };
        let stale = self
            .keys
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&config.provider)
            .is_none_or(|f| f.at.elapsed() >= KEEP_KEYS);
        if !stale {
            if let Some(found) = kept(REFETCH_AFTER) {
                return found.map_err(|_| unknown());
            }
        }
        let Some(_asking) = self.ask(config.provider, stale) else {
            // Another request is fetching, or one did a moment ago: a key
            // kept still checks; an unknown one is refused now.
            return match kept(Duration::MAX) {
                Some(Ok(key)) => Ok(key),
                _ if self.in_flight(config.provider) => Err(Error::Unavailable(
                    "the sign-in provider's keys are being read; try again in a moment".into(),
                )),
                _ => Err(unknown()),
            };
        };
        let fresh = match self.fetch(&config.keys_url).await {
            Ok(fresh) => fresh,
            // The provider cannot be read: a key already kept still
            // checks (an unknown one waits until it can be read).
            Err(e) => return kept(Duration::MAX).and_then(Result::ok).ok_or(e),
        };
        self.keys.lock().unwrap_or_else(|p| p.into_inner()).insert(
            config.provider,
            Fetched {
                keys: fresh,
                at: Instant::now(),
            },
        );
        kept(Duration::MAX)
            .unwrap_or(Err(()))
            .map_err(|_| unknown())
    }

    /// The right to fetch `provider`'s keys now, held until dropped: none
    /// while another fetch is in flight, or (unless the kept keys are
    /// `stale`) within [`REFETCH_AFTER`] of the last attempt.
    fn ask(&self, provider: Provider, stale: bool) -> Option<Asking<'_>> {
        let mut asked = self.asked.lock().unwrap_or_else(|p| p.into_inner());
        let last = asked.get(&provider).copied();
        let busy = last.is_some_and(|(_, in_flight)| in_flight);
        let recent = last.is_some_and(|(at, _)| at.elapsed() < REFETCH_AFTER);
        if busy || (recent && !stale) {
            return None;
        }
        asked.insert(provider, (Instant::now(), true));
        Some(Asking {
            verifier: self,
            provider,
        })
    }

    fn in_flight(&self, provider: Provider) -> bool {
        let asked = self.asked.lock().unwrap_or_else(|p| p.into_inner());
        asked
            .get(&provider)
            .is_some_and(|(_, in_flight)| *in_flight)
    }

    /// How many times each provider's keys were asked for (for tests and
    /// the operator: a forged-`kid` flood shows here as a flat line).
    pub fn fetches(&self) -> u64 {
        self.fetches.load(std::sync::atomic::Ordering::Relaxed)
    }

    async fn fetch(&self, url: &str) -> Result<JwkSet, Error> {
        let unavailable = |why: String| {
            Error::Unavailable(format!(
                "the sign-in provider's keys could not be read ({why}); try again"
            ))
        };
        self.fetches
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let uri: hyper::Uri = url
            .parse()
            .map_err(|e| Error::internal(format!("{url}: {e}")))?;
        let answer = tokio::time::timeout(Duration::from_secs(5), async {
            let response = self.client.get(uri).await.map_err(|e| e.to_string())?;
            if !response.status().is_success() {
                return Err(format!("status {}", response.status()));
            }
            let body = hyper::body::to_bytes(response.into_body())
                .await
                .map_err(|e| e.to_string())?;
            if body.len() > MAX_KEYS_BYTES {
                return Err("too large".into());
            }
            serde_json::from_slice::<JwkSet>(&body).map_err(|e| e.to_string())
        })
        .await
        .map_err(|_| unavailable("timed out".into()))?;
        answer.map_err(unavailable)
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
