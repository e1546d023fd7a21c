//! Firebase Cloud Messaging, HTTP v1: an OAuth 2.0 access token got with
//! the service account's key (a JWT assertion signed RS256, RFC 7523),
//! kept until shortly before it expires, then one
//! `POST /v1/projects/{project}/messages:send` per notification.

use super::client::{Answer, Client};
use super::{Outcome, Push};
use crate::config;
use chrono::{DateTime, Duration, Utc};
use hyper::{Body, Request};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::Mutex;

const SCOPE: &str = "https://www.googleapis.com/auth/firebase.messaging";
/// An access token is renewed this long before Google says it expires.
const RENEW_BEFORE_SECONDS: i64 = 300;

/// The fields of a service account's JSON key that are used.
#[derive(Deserialize)]
struct ServiceAccount {
    client_email: String,
    private_key: String,
    token_uri: String,
    #[serde(default)]
    project_id: Option<String>,
}

pub struct Fcm {
    key: EncodingKey,
    client_email: String,
    token_uri: String,
    send_url: String,
    access: Mutex<Access>,
}

/// What the senders share of the OAuth exchange.
#[derive(Default)]
struct Access {
    /// The access token in use and when it must be renewed.
    token: Option<(String, DateTime<Utc>)>,
    /// Until when an exchange that failed is not tried again, and why: a
    /// token endpoint that is down or refuses the key costs one exchange
    /// per [`REFUSED_SECONDS`], not one per notification of the batch.
    refused: Option<(DateTime<Utc>, String)>,
}

/// How long a failed exchange is remembered.
const REFUSED_SECONDS: i64 = 30;

impl Fcm {
    pub fn load(config: &config::Fcm) -> Result<Fcm, String> {
        let file = &config.service_account_file;
        let text = std::fs::read(file)
            .map_err(|e| format!("POSTHORN_FCM_SERVICE_ACCOUNT_FILE {file:?}: {e}"))?;
        let account: ServiceAccount = serde_json::from_slice(&text).map_err(|e| {
            format!("POSTHORN_FCM_SERVICE_ACCOUNT_FILE is not a service account key: {e}")
        })?;
        // Google writes it as PKCS#8 PEM; jsonwebtoken signs with PKCS#1 DER.
        let key = openssl::pkey::PKey::private_key_from_pem(account.private_key.as_bytes())
            .and_then(|k| k.rsa())
            .and_then(|k| k.private_key_to_der())
            .map(|der| EncodingKey::from_rsa_der(&der))
            .map_err(|e| {
                format!("POSTHORN_FCM_SERVICE_ACCOUNT_FILE: its private_key is not an RSA key: {e}")
            })?;
        let project = config
            .project
            .clone()
            .or(account.project_id)
            .ok_or("POSTHORN_FCM_PROJECT is unset and the key names no project_id")?;
        Ok(Fcm {
            key,
            client_email: account.client_email,
            token_uri: config.token_uri.clone().unwrap_or(account.token_uri),
            send_url: format!(
                "{}/v1/projects/{project}/messages:send",
                config.endpoint.trim_end_matches('/')
            ),
            access: Mutex::new(Access::default()),
        })
    }

    /// The access token to send with: the one held until shortly before
    /// it expires, unless FCM refused it (`stale`); else one exchanged
    /// for a new assertion. Held under the lock while exchanged, so the
    /// senders that need one wait for a single exchange, and a failed one
    /// answers them all until [`REFUSED_SECONDS`] have passed.
    pub fn access_token(
        &self,
        client: &Client,
        now: DateTime<Utc>,
        stale: Option<&str>,
    ) -> Result<String, Outcome> {
        let mut held = self.access.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((token, until)) = held.token.as_ref() {
            if now < *until && stale != Some(token.as_str()) {
                return Ok(token.clone());
            }
        }
        let retry = |why: String| Outcome::Retry { why, after: None };
        if let Some((until, why)) = held.refused.as_ref() {
            if now < *until {
                return Err(retry(why.clone()));
            }
        }
        match self.exchange(client, now) {
            Ok((token, lasts)) => {
                super::count_renewal(super::Platform::Android);
                held.token = Some((token.clone(), now + Duration::seconds(lasts)));
                held.refused = None;
                Ok(token)
            }
            Err(why) => {
                held.refused = Some((now + Duration::seconds(REFUSED_SECONDS), why.clone()));
                Err(retry(why))
            }
        }
    }

    /// A new assertion exchanged at the token endpoint: the access token
    /// and for how many seconds to use it.
    fn exchange(&self, client: &Client, now: DateTime<Utc>) -> Result<(String, i64), String> {
        let claims = json!({
            "iss": self.client_email,
            "scope": SCOPE,
            "aud": self.token_uri,
            "iat": now.timestamp(),
            "exp": now.timestamp() + 3600,
        });
        let assertion = jsonwebtoken::encode(&Header::new(Algorithm::RS256), &claims, &self.key)
            .map_err(|e| e.to_string())?;
        let form = format!(
            "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion={assertion}"
        );
        let request = Request::post(&self.token_uri)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(Body::from(form))
            .map_err(|e| e.to_string())?;
        let answer = client.call(request)?;
        if answer.status != 200 {
            let said = String::from_utf8_lossy(&answer.body)
                .chars()
                .take(200)
                .collect::<String>();
            return Err(format!(
                "the OAuth token endpoint answered {}: {said}",
                answer.status
            ));
        }
        #[derive(Deserialize)]
        struct Granted {
            access_token: String,
            expires_in: i64,
        }
        let granted: Granted = serde_json::from_slice(&answer.body)
            .map_err(|e| format!("the OAuth token endpoint's answer: {e}"))?;
        let lasts = (granted.expires_in - RENEW_BEFORE_SECONDS).max(60);
        Ok((granted.access_token, lasts))
    }

    /// The request for one notification.
    pub fn request(&self, push: &Push, bearer: &str) -> Result<Request<Body>, String> {
        let message = message(push);
        Request::post(&self.send_url)
            .header("authorization", format!("Bearer {bearer}"))
            .header("content-type", "application/json")
            .body(Body::from(message.to_string()))
            .map_err(|e| e.to_string())
    }
}

/// What an Android phone is sent for one notification (FCM's HTTP v1
/// `message`): the notice in its reader's words, its channel and what it
/// replaces.
pub fn message(push: &Push) -> serde_json::Value {
    let about = push.about.to_string();
    json!({"message": {
        "token": push.token,
        "notification": {"title": push.title, "body": push.body},
        "data": {
            "type": push.kind.name(),
            "match_id": about,
            "url": push.url,
            "notification_id": push.notification.to_string(),
        },
        "android": {
            "priority": if push.urgent() { "HIGH" } else { "NORMAL" },
            "ttl": format!("{}s", super::TTL_SECONDS),
            // A newer notice about the match of the same urgency
            // replaces an older one (docs/decisions/notifications.md,
            // "Never replaced by something quieter").
            "collapse_key": push.collapse(),
            "notification": {
                "channel_id": push.channel(),
                "tag": push.collapse(),
                "notification_count": push.badge,
            },
        },
    }})
}

/// What FCM's answer means (its `ErrorCode` reference): a token that is
/// unregistered, of another sender, or refused as a token is gone.
pub fn read(answer: &Answer) -> Outcome {
    if answer.status == 200 {
        return Outcome::Delivered;
    }
    let error: Value = serde_json::from_slice::<Value>(&answer.body)
        .map(|v| v["error"].clone())
        .unwrap_or(Value::Null);
    let details = error["details"].as_array().cloned().unwrap_or_default();
    let code = details
        .iter()
        .find_map(|d| d["errorCode"].as_str())
        .or(error["status"].as_str())
        .unwrap_or_default()
        .to_owned();
    let about_token = details.iter().any(|d| {
        d["fieldViolations"]
            .as_array()
            .is_some_and(|v| v.iter().any(|f| f["field"] == "message.token"))
    }) || error["message"]
        .as_str()
        .is_some_and(|m| m.contains("registration token"));
    let said = format!("FCM {} {code}", answer.status);
    match (answer.status, code.as_str()) {
        (_, "UNREGISTERED" | "SENDER_ID_MISMATCH") => Outcome::Gone(said),
        (400, "INVALID_ARGUMENT") if about_token => Outcome::Gone(said),
        (401, _) => Outcome::Renew(said),
        (429, _) | (500..=599, _) => Outcome::Retry {
            why: said,
            after: answer.retry_after,
        },
        _ => Outcome::Failed(said),
    }
}
