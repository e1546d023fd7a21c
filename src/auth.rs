//! Access tokens (JWT, HS256 only, issuer and audience checked, expiry
//! checked against the injected clock), password hashes (Argon2id) and
//! opaque refresh tokens (stored as SHA-256 hashes).

use crate::error::Error;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use chrono::{DateTime, Utc};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use uuid::Uuid;

const ISSUER: &str = "posthorn";
const AUDIENCE: &str = "posthorn-app";

#[derive(Debug, Serialize, Deserialize)]
pub struct Claims {
    pub sub: Uuid,
    pub iss: String,
    pub aud: String,
    pub iat: i64,
    pub exp: i64,
    pub guest: bool,
    /// The session (refresh-token family) this token was issued for.
    pub sid: Uuid,
}

pub struct Keys {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
    unsubscribe: Validation,
    verify_email: Validation,
    /// The HMAC key a rotated refresh token's successor is derived with
    /// (`successor_token`), itself derived from the JWT secret.
    successor: Vec<u8>,
}

const UNSUBSCRIBE_AUDIENCE: &str = "posthorn-unsubscribe";
const VERIFY_EMAIL_AUDIENCE: &str = "posthorn-verify-email";

/// How long a sign-in nonce works: time to pick an account at the
/// provider, and a username after it.
pub const NONCE_SECONDS: i64 = 15 * 60;

/// How long an email verification link works.
pub const VERIFY_EMAIL_HOURS: i64 = 48;

/// A signed email verification link (docs/abuse.md, "Email addresses"):
/// this account may take this address, proven by opening a link sent to it.
#[derive(Debug, Serialize, Deserialize)]
struct VerifyClaims {
    sub: Uuid,
    email: String,
    iss: String,
    aud: String,
    exp: i64,
}

/// A signed one-click unsubscribe link (RFC 8058): who, from what.
#[derive(Debug, Serialize, Deserialize)]
struct UnsubscribeClaims {
    sub: Uuid,
    kind: String,
    iss: String,
    aud: String,
    exp: i64,
}

impl Keys {
    pub fn new(secret: &[u8]) -> Result<Keys, String> {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.set_issuer(&[ISSUER]);
        validation.set_audience(&[AUDIENCE]);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        // Expiry is checked against the service's clock in `verify`.
        validation.validate_exp = false;
        let mut unsubscribe = Validation::new(Algorithm::HS256);
        unsubscribe.set_issuer(&[ISSUER]);
        unsubscribe.set_audience(&[UNSUBSCRIBE_AUDIENCE]);
        // Unsubscribe links do not expire: an old email must still work.
        unsubscribe.validate_exp = false;
        let mut verify_email = Validation::new(Algorithm::HS256);
        verify_email.set_issuer(&[ISSUER]);
        verify_email.set_audience(&[VERIFY_EMAIL_AUDIENCE]);
        // Checked against the service's clock in `verify_email`.
        verify_email.validate_exp = false;
        let bad = |e: jsonwebtoken::errors::Error| format!("the JWT secret cannot be used: {e}");
        Ok(Keys {
            encoding: EncodingKey::from_secret(secret).map_err(bad)?,
            decoding: DecodingKey::from_secret(secret).map_err(bad)?,
            validation,
            unsubscribe,
            verify_email,
            successor: Sha256::new_with_prefix(b"posthorn refresh successor\0")
                .chain_update(secret)
                .finalize()
                .to_vec(),
        })
    }

    /// The refresh token that rotating `parent` issues. Derived, not
    /// random, so that the same just-rotated token presented again within
    /// the reuse interval is answered with the same successor although only
    /// hashes are stored (docs/decisions/accounts-and-sessions.md); only
    /// the holder of `parent` and the service can compute it.
    pub fn successor_token(&self, parent: &str) -> String {
        use hmac::Mac;
        let mut mac = hmac::Hmac::<Sha256>::new_from_slice(&self.successor)
            .expect("HMAC takes a key of any length");
        mac.update(parent.as_bytes());
        URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes())
    }

    /// The token of password reset `reset`'s link (docs/abuse.md,
    /// "Forgotten passwords"). Derived, not random, so that the link can be
    /// written when the mail is sent (by the outbox, from the reset's id)
    /// while only its hash is stored: the database alone cannot make a
    /// working link.
    pub fn reset_token(&self, reset: Uuid) -> String {
        use hmac::Mac;
        let mut mac = hmac::Hmac::<Sha256>::new_from_slice(&self.successor)
            .expect("HMAC takes a key of any length");
        mac.update(b"posthorn password reset\0");
        mac.update(reset.as_bytes());
        URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes())
    }

    /// The token of the link that puts an old address back (`email_undos`,
    /// docs/abuse.md, "Email addresses"): the record's id and its MAC, so
    /// the link names its record and nothing secret is stored.
    pub fn undo_token(&self, undo: Uuid) -> String {
        let mut body = undo.as_bytes().to_vec();
        body.extend(&self.mac(b"posthorn email undo\0", undo.as_bytes())[..16]);
        URL_SAFE_NO_PAD.encode(body)
    }

    /// The record an [`Keys::undo_token`] names, if it is one.
    pub fn undo_id(&self, token: &str) -> Option<Uuid> {
        let bytes = URL_SAFE_NO_PAD.decode(token.trim()).ok()?;
        if bytes.len() != 32 {
            return None;
        }
        let (id, tag) = bytes.split_at(16);
        let expected = self.mac(b"posthorn email undo\0", id);
        let right: bool = subtle::ConstantTimeEq::ct_eq(tag, &expected[..16]).into();
        right.then(|| Uuid::from_slice(id).ok()).flatten()
    }

    /// An outbox row's id as a UUID for APNs's `apns-id`: the same on
    /// every attempt, but unguessable (docs/decisions/native-push.md, "What
    /// a notice says": it once spelled "posthorn" and the service's
    /// notification count in hex).
    pub fn push_id(&self, row: i64) -> Uuid {
        let tag = self.mac(b"posthorn push id\0", &row.to_be_bytes());
        let bytes: [u8; 16] = tag[..16].try_into().expect("16 bytes");
        uuid::Builder::from_random_bytes(bytes).into_uuid()
    }

    /// When a sign-in nonce ([`Keys::sign_in_nonce`]) stops working.
    pub fn nonce_expiry(&self, nonce: &str) -> Option<DateTime<Utc>> {
        let bytes = URL_SAFE_NO_PAD.decode(nonce).ok()?;
        let seconds = i64::from_be_bytes(bytes.get(..8)?.try_into().ok()?);
        DateTime::from_timestamp(seconds, 0)
    }

    fn mac(&self, label: &[u8], message: &[u8]) -> [u8; 32] {
        use hmac::Mac;
        let mut mac = hmac::Hmac::<Sha256>::new_from_slice(&self.successor)
            .expect("HMAC takes a key of any length");
        mac.update(label);
        mac.update(message);
        mac.finalize().into_bytes().into()
    }

    /// A nonce for a sign-in with Google or Apple
    /// (docs/decisions/accounts-and-sessions.md, "Google and Apple"): the
    /// app hands it to the provider, whose `id_token` carries it back, so a
    /// token is accepted only if it was asked for moments ago through this
    /// service. Signed, not stored: its expiry and 16 random bytes, then
    /// their MAC.
    pub fn sign_in_nonce(&self, now: DateTime<Utc>) -> String {
        let mut body = (now.timestamp() + NONCE_SECONDS).to_be_bytes().to_vec();
        body.extend(random_bytes::<16>());
        let tag = self.mac(b"posthorn sign-in nonce\0", &body);
        body.extend(&tag[..16]);
        URL_SAFE_NO_PAD.encode(body)
    }

    /// Whether `nonce` is one of [`Keys::sign_in_nonce`]'s, unexpired.
    pub fn nonce_is_ours(&self, nonce: &str, now: DateTime<Utc>) -> bool {
        let Ok(bytes) = URL_SAFE_NO_PAD.decode(nonce) else {
            return false;
        };
        if bytes.len() != 40 {
            return false;
        }
        let (body, tag) = bytes.split_at(24);
        let expected = self.mac(b"posthorn sign-in nonce\0", body);
        let expiry = i64::from_be_bytes(body[..8].try_into().expect("8 bytes"));
        subtle::ConstantTimeEq::ct_eq(tag, &expected[..16]).into() && expiry > now.timestamp()
    }

    pub fn issue(
        &self,
        user: Uuid,
        guest: bool,
        sid: Uuid,
        now: DateTime<Utc>,
        lifetime_secs: i64,
    ) -> String {
        let claims = Claims {
            sid,
            sub: user,
            iss: ISSUER.into(),
            aud: AUDIENCE.into(),
            iat: now.timestamp(),
            exp: now.timestamp() + lifetime_secs,
            guest,
        };
        jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &self.encoding)
            .expect("HS256 signing cannot fail")
    }

    /// A token for a one-click unsubscribe link from `kind` emails.
    pub fn sign_unsubscribe(&self, user: Uuid, kind: &str) -> String {
        let claims = UnsubscribeClaims {
            sub: user,
            kind: kind.to_owned(),
            iss: ISSUER.into(),
            aud: UNSUBSCRIBE_AUDIENCE.into(),
            exp: i64::from(i32::MAX),
        };
        jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &self.encoding)
            .expect("HS256 signing cannot fail")
    }

    /// The user and kind of a valid unsubscribe token.
    pub fn verify_unsubscribe(&self, token: &str) -> Result<(Uuid, String), Error> {
        let data =
            jsonwebtoken::decode::<UnsubscribeClaims>(token, &self.decoding, &self.unsubscribe)
                .map_err(|_| Error::not_found("unsubscribe link"))?;
        Ok((data.claims.sub, data.claims.kind))
    }

    /// A token for a link that proves `user` receives mail at `email`.
    pub fn sign_verify_email(&self, user: Uuid, email: &str, now: DateTime<Utc>) -> String {
        let claims = VerifyClaims {
            sub: user,
            email: email.to_owned(),
            iss: ISSUER.into(),
            aud: VERIFY_EMAIL_AUDIENCE.into(),
            exp: now.timestamp() + VERIFY_EMAIL_HOURS * 3600,
        };
        jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &self.encoding)
            .expect("HS256 signing cannot fail")
    }

    /// The account and address of a valid, unexpired verification token.
    pub fn verify_email(&self, token: &str, now: DateTime<Utc>) -> Result<(Uuid, String), Error> {
        let refused =
            || Error::not_found("verification link (it may have expired: ask for a new one)");
        let data = jsonwebtoken::decode::<VerifyClaims>(token, &self.decoding, &self.verify_email)
            .map_err(|_| refused())?;
        if data.claims.exp <= now.timestamp() {
            return Err(refused());
        }
        Ok((data.claims.sub, data.claims.email))
    }

    pub fn verify(&self, token: &str, now: DateTime<Utc>) -> Result<Claims, Error> {
        let data = jsonwebtoken::decode::<Claims>(token, &self.decoding, &self.validation)
            .map_err(|_| Error::unauthorized("the access token is not valid"))?;
        if data.claims.exp <= now.timestamp() {
            return Err(Error::unauthorized(
                "the access token has expired; refresh it",
            ));
        }
        Ok(data.claims)
    }
}

/// Fill `buf` from the operating system's random source.
pub fn random_bytes<const N: usize>() -> [u8; N] {
    let mut buf = [0u8; N];
    getrandom::fill(&mut buf).expect("the operating system's random source");
    buf
}

/// Password hashing, bounded (docs/decisions/hardening.md, "Limits"): an
/// Argon2 hash holds ~19 MiB while it runs, and 32 parallel sign-ups once
/// took the process from 27 MiB to 820 MiB, kept for good. At most one hash
/// per core runs at once, at most [`HASH_QUEUE`] wait (each at most
/// [`HASH_WAIT`]); anyone past that is told 503 to come back.
pub struct HashGate {
    slots: tokio::sync::Semaphore,
    waiting: std::sync::atomic::AtomicUsize,
}

pub const HASH_QUEUE: usize = 64;
pub const HASH_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

fn gate() -> &'static HashGate {
    static GATE: std::sync::OnceLock<HashGate> = std::sync::OnceLock::new();
    GATE.get_or_init(|| {
        // glibc raises its mmap threshold after freeing a large block, so
        // later 19 MiB blocks come from the heap and are never given back.
        // A fixed threshold keeps them mmapped: freed, they return to the
        // operating system.
        #[cfg(target_env = "gnu")]
        #[allow(unsafe_code)]
        // SAFETY: mallopt only sets an allocator parameter.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
        }
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        HashGate {
            slots: tokio::sync::Semaphore::new(cores),
            waiting: std::sync::atomic::AtomicUsize::new(0),
        }
    })
}

/// Run `work` (a hash or its verification) through the gate, off the
/// async executor.
pub async fn gated<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, Error> {
    use std::sync::atomic::Ordering::SeqCst;
    let gate = gate();
    let busy = || Error::Unavailable("too many sign-ins at once; try again in a moment".into());
    if gate.waiting.fetch_add(1, SeqCst) >= HASH_QUEUE {
        gate.waiting.fetch_sub(1, SeqCst);
        return Err(busy());
    }
    let permit = tokio::time::timeout(HASH_WAIT, gate.slots.acquire()).await;
    gate.waiting.fetch_sub(1, SeqCst);
    let _permit = permit.map_err(|_| busy())?.map_err(Error::internal)?;
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| Error::internal(format!("password hashing: {e}")))
}

/// [`hash_password`] through the gate, off the async workers: what every
/// new password (sign-up, registration, change, reset) is stored as.
pub async fn gated_hash(password: String) -> Result<String, Error> {
    gated(move || hash_password(&password)).await?
}

pub fn hash_password(password: &str) -> Result<String, Error> {
    let salt = SaltString::encode_b64(&random_bytes::<16>()).map_err(Error::internal)?;
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(Error::internal)
}

/// Verify `password` against `hash`; with no hash (unknown user, guest) a
/// dummy verification keeps the timing the same as a wrong password.
pub fn verify_password(password: &str, hash: Option<&str>) -> bool {
    const DUMMY: &str = "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$Y0N0P7n6Pj1bo3pSx0bqm1QjTpkHuqDk5X2Bjdh1Fqk";
    let parsed = PasswordHash::new(hash.unwrap_or(DUMMY));
    let ok = parsed.is_ok_and(|h| {
        Argon2::default()
            .verify_password(password.as_bytes(), &h)
            .is_ok()
    });
    ok && hash.is_some()
}

/// A new opaque refresh token and the hash under which it is stored.
pub fn new_refresh_token() -> (String, Vec<u8>) {
    let token = URL_SAFE_NO_PAD.encode(random_bytes::<32>());
    let hash = hash_token(&token);
    (token, hash)
}

pub fn hash_token(token: &str) -> Vec<u8> {
    Sha256::digest(token.as_bytes()).to_vec()
}

/// The authenticated caller of a request (`Authorization: Bearer …`).
#[derive(Clone, Copy, Debug)]
pub struct Caller {
    pub user_id: Uuid,
    pub guest: bool,
    pub session: Uuid,
}

#[cfg(test)]
mod tests {
    use super::Keys;

    #[test]
    fn a_push_id_is_the_same_for_a_row_and_names_no_counter_issue_66() {
        let keys = Keys::new(b"a test secret that is long enough for HS256").unwrap();
        let other = Keys::new(b"another secret that is long enough too").unwrap();
        assert_eq!(
            keys.push_id(41),
            keys.push_id(41),
            "the same on every retry"
        );
        assert_ne!(keys.push_id(41), keys.push_id(42));
        assert_ne!(keys.push_id(41), other.push_id(41), "keyed by the service");
        let id = keys.push_id(41).to_string();
        assert!(!id.starts_with("706f7374"), "{id}");
        assert_eq!(
            keys.push_id(41).get_version_num(),
            4,
            "a random-looking UUID: {id}"
        );
    }
}
