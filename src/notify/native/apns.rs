//! Apple Push Notification service, token-based (Apple's "Establishing a
//! token-based connection to APNs" and "Sending notification requests to
//! APNs"): a provider token signed ES256 with the team's `.p8` key, then
//! one `POST /3/device/<token>` per notification on an HTTP/2 connection.

use super::client::Answer;
use super::{Outcome, Push};
use crate::config;
use chrono::{DateTime, Duration, Utc};
use hyper::{Body, Request};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::json;
use std::sync::Mutex;

/// Apple: a provider token is refreshed no more than once every 20
/// minutes and is refused once older than an hour. Renewed at 40 minutes:
/// well inside both.
pub const RENEW_AFTER_MINUTES: i64 = 40;
/// Apple's shortest time between two provider tokens.
pub const RENEW_NOT_BEFORE_MINUTES: i64 = 20;

pub struct Apns {
    key: EncodingKey,
    key_id: String,
    team_id: String,
    pub topic: String,
    base: String,
    /// The provider token in use and when it was signed.
    token: Mutex<Option<(String, DateTime<Utc>)>>,
}

impl Apns {
    pub fn load(config: &config::Apns) -> Result<Apns, String> {
        let pem = std::fs::read(&config.key_file)
            .map_err(|e| format!("POSTHORN_APNS_KEY_FILE {:?}: {e}", config.key_file))?;
        let key = p256_key(&pem)
            .ok_or("POSTHORN_APNS_KEY_FILE is not a P-256 private key (a .p8 file)")?;
        Ok(Apns {
            key,
            key_id: config.key_id.clone(),
            team_id: config.team_id.clone(),
            topic: config.topic.clone(),
            base: config.base_url(),
            token: Mutex::new(None),
        })
    }

    /// The provider token to send with: the one in use while it is younger
    /// than [`RENEW_AFTER_MINUTES`] and not the one APNs called expired
    /// (`stale`), else a new one. Apple refuses a new token sooner than
    /// [`RENEW_NOT_BEFORE_MINUTES`] after the last (429
    /// TooManyProviderTokenUpdates), so a token called expired younger
    /// than that is a clock wrong somewhere, retried later, not renewed;
    /// and when another sender has renewed it already, its new one is
    /// used. A token signed after this sender read the time (senders read
    /// it before the lock) counts as young.
    pub fn provider_token(
        &self,
        now: DateTime<Utc>,
        stale: Option<&str>,
    ) -> Result<String, Outcome> {
        let mut held = self.token.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((token, signed)) = held.as_ref() {
            let age = now - *signed;
            let called_stale = stale == Some(token.as_str());
            if !called_stale && age < Duration::minutes(RENEW_AFTER_MINUTES) {
                return Ok(token.clone());
            }
            if called_stale && age < Duration::minutes(RENEW_NOT_BEFORE_MINUTES) {
                return Err(Outcome::Retry {
                    why: format!(
                        "APNs called a provider token signed {} s ago expired (is a clock wrong?)",
                        age.num_seconds()
                    ),
                    after: None,
                });
            }
        }
        let mut header = Header::new(Algorithm::ES256);
        header.kid = Some(self.key_id.clone());
        let claims = json!({"iss": self.team_id, "iat": now.timestamp()});
        let token = jsonwebtoken::encode(&header, &claims, &self.key)
            .map_err(|e| Outcome::Failed(e.to_string()))?;
        super::count_renewal(super::Platform::Ios);
        *held = Some((token.clone(), now));
        Ok(token)
    }

    /// The request for one notification.
    pub fn request(&self, push: &Push, bearer: &str) -> Result<Request<Body>, String> {
        let payload = payload(push);
        Request::post(format!("{}/3/device/{}", self.base, push.token))
            .header("authorization", format!("bearer {bearer}"))
            .header("apns-topic", &self.topic)
            .header("apns-push-type", "alert")
            .header("apns-priority", if push.urgent() { "10" } else { "5" })
            .header("apns-expiration", push.expires.timestamp().to_string())
            // A newer notice about the match of the same urgency replaces
            // an older one on the phone, and a repeat of one (after a
            // crash) replaces itself.
            .header("apns-collapse-id", push.collapse())
            .header("apns-id", push.notification.to_string())
            .header("content-type", "application/json")
            .body(Body::from(payload.to_string()))
            .map_err(|e| e.to_string())
    }
}

/// What an iPhone is sent for one notification: the alert in its
/// reader's words, the badge, and where a tap leads.
pub fn payload(push: &Push) -> serde_json::Value {
    json!({
        "aps": {
            "alert": {"title": push.title, "body": push.body},
            "badge": push.badge,
            "sound": "default",
            "thread-id": push.about.to_string(),
        },
        "type": push.kind.name(),
        "match_id": push.about,
        "url": push.url,
        "notification_id": push.notification,
    })
}

/// A `.p8` file (PKCS#8 PEM), read by OpenSSL, as the PKCS#8 DER that
/// jsonwebtoken signs with.
fn p256_key(pem: &[u8]) -> Option<EncodingKey> {
    let key = openssl::pkey::PKey::private_key_from_pem(pem).ok()?;
    let curve = key.ec_key().ok()?.group().curve_name();
    (curve == Some(openssl::nid::Nid::X9_62_PRIME256V1))
        .then(|| key.private_key_to_pkcs8().ok())
        .flatten()
        .map(|der| EncodingKey::from_ec_der(&der))
}

/// What APNs's answer means (its table of status codes and `reason`s).
pub fn read(answer: &Answer) -> Outcome {
    let reason = serde_json::from_slice::<serde_json::Value>(&answer.body)
        .ok()
        .and_then(|v| v["reason"].as_str().map(str::to_owned))
        .unwrap_or_default();
    let said = format!("APNs {}: {reason}", answer.status);
    match (answer.status, reason.as_str()) {
        (200, _) => Outcome::Delivered,
        (410, _) | (400, "BadDeviceToken" | "DeviceTokenNotForTopic") => Outcome::Gone(said),
        (403, "ExpiredProviderToken") => Outcome::Renew(said),
        // The key itself is wrong: held until it is fixed
        // (docs/decisions/native-push.md, "Sending").
        (403, "InvalidProviderToken") => Outcome::Held(said),
        (429, _) | (500..=599, _) => Outcome::Retry {
            why: said,
            after: answer.retry_after,
        },
        _ => Outcome::Failed(said),
    }
}
