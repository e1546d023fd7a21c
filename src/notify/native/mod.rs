//! Push to the native apps: Apple's APNs for the iOS app, Firebase Cloud
//! Messaging for the Android app, beside Web Push. A registered device is
//! one more channel of the outbox (`app:<id>`), so every kind, switch,
//! quiet hour, the digest and the message batching apply to it as to a
//! browser (docs/decisions/native-push.md).

pub mod apns;
mod client;
pub mod devices;
pub mod fcm;

use super::Kind;
use crate::config::Config;
use chrono::{DateTime, Utc};
use client::{Answer, Client};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::OnceLock;
use utoipa::ToSchema;
use uuid::Uuid;

/// How long APNs and FCM keep a notification for a phone that is off, as
/// Web Push's services do.
pub const TTL_SECONDS: i64 = super::push::TTL_SECONDS as i64;

/// The platforms of the native apps, each with its push service.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Platform {
    /// The iOS app, through APNs.
    Ios,
    /// The Android app, through FCM.
    Android,
}

impl Platform {
    pub const ALL: [Platform; 2] = [Platform::Ios, Platform::Android];

    pub fn name(self) -> &'static str {
        match self {
            Platform::Ios => "ios",
            Platform::Android => "android",
        }
    }

    pub fn parse(name: &str) -> Option<Platform> {
        Platform::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Its push service, as the metrics and errors name it.
    pub fn service(self) -> &'static str {
        match self {
            Platform::Ios => "apns",
            Platform::Android => "fcm",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// One notification for one device, composed in its reader's language.
pub struct Push {
    pub platform: Platform,
    pub token: String,
    pub kind: Kind,
    /// The match (or tournament) it is about: the thread its notices
    /// gather in.
    pub about: Uuid,
    /// The outbox row's own id, the same on every attempt: APNs's
    /// `apns-id`, and in the data, so an app can drop a repeat.
    pub notification: Uuid,
    pub title: String,
    pub body: String,
    pub url: String,
    /// What waits for the player (`GET /v1/me/summary`'s `badge`).
    pub badge: i64,
    pub expires: DateTime<Utc>,
}

impl Push {
    /// Whether it asks for a move now ([`Kind::urgent`]).
    pub fn urgent(&self) -> bool {
        self.kind.urgent()
    }

    /// What it replaces: one per match and urgency
    /// (docs/decisions/notifications.md, "Never replaced by something
    /// quieter").
    pub fn collapse(&self) -> String {
        crate::notify::collapse_id(self.about, self.kind)
    }

    /// The Android notification channel an app creates for it
    /// (docs/api.md): a move owed, or news.
    pub fn channel(&self) -> &'static str {
        if self.urgent() {
            "turns"
        } else {
            "news"
        }
    }
}

/// What a push service's answer means for the outbox.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    Delivered,
    /// The token is not (or no longer) a device of the app: remove it.
    Gone(String),
    /// The credential was refused: renew it and send again, once.
    Renew(String),
    /// The credential was refused even after it was renewed (APNs 403
    /// InvalidProviderToken, FCM 401): the key is wrong, so the notice is
    /// held, not dropped, until someone fixes it
    /// (docs/decisions/native-push.md, "Sending").
    Held(String),
    /// Try again later, not before `after` seconds when the service says.
    Retry {
        why: String,
        after: Option<u64>,
    },
    /// No retry will mend it.
    Failed(String),
}

/// The push services this instance is set up for.
pub struct Native {
    apns: Option<apns::Apns>,
    fcm: Option<fcm::Fcm>,
    extra_root: Option<native_tls::Certificate>,
    /// Made at the first push: an instance with no device pays nothing.
    /// A build that failed is tried again at the next push.
    client: OnceLock<Client>,
    building: std::sync::Mutex<()>,
}

impl Native {
    /// Keys are read now, so a wrong file stops the start, not a push.
    pub fn from_config(config: &Config) -> Result<Native, String> {
        let extra_root = match &config.native_push_ca_file {
            Some(path) => {
                let pem = std::fs::read(path)
                    .map_err(|e| format!("POSTHORN_NATIVE_PUSH_CA_FILE {path:?}: {e}"))?;
                Some(native_tls::Certificate::from_pem(&pem).map_err(|e| {
                    format!("POSTHORN_NATIVE_PUSH_CA_FILE {path:?} is not a PEM certificate: {e}")
                })?)
            }
            None => None,
        };
        Ok(Native {
            apns: config.apns.as_ref().map(apns::Apns::load).transpose()?,
            fcm: config.fcm.as_ref().map(fcm::Fcm::load).transpose()?,
            extra_root,
            client: OnceLock::new(),
            building: std::sync::Mutex::new(()),
        })
    }

    pub fn enabled(&self, platform: Platform) -> bool {
        match platform {
            Platform::Ios => self.apns.is_some(),
            Platform::Android => self.fcm.is_some(),
        }
    }

    /// The iOS app's bundle id, when APNs is set up.
    pub fn apns_topic(&self) -> Option<&str> {
        self.apns.as_ref().map(|a| a.topic.as_str())
    }

    fn client(&self) -> Result<&Client, String> {
        if let Some(client) = self.client.get() {
            return Ok(client);
        }
        // One sender builds it while the others wait: each build loads
        // the system's roots and starts a runtime (64 of them at the first
        // batch halved the bench's APNs rate).
        let _building = self.building.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(client) = self.client.get() {
            return Ok(client);
        }
        let built = Client::new(self.extra_root.as_ref())?;
        Ok(self.client.get_or_init(|| built))
    }

    /// Send one notification (blocking), renewing a refused credential
    /// and sending again once; every answer is counted.
    pub fn send(&self, push: &Push, now: DateTime<Utc>) -> Outcome {
        let outcome = match self.attempt(push, now) {
            Outcome::Renew(why) => Outcome::Held(why),
            other => other,
        };
        count(push.platform, &outcome);
        refusing(push.platform, &outcome);
        outcome
    }

    fn attempt(&self, push: &Push, now: DateTime<Utc>) -> Outcome {
        let client = match self.client() {
            Ok(client) => client,
            Err(why) => return Outcome::Retry { why, after: None },
        };
        let mut stale: Option<String> = None;
        loop {
            let sent = match push.platform {
                Platform::Ios => self.to_apns(client, push, now, stale.as_deref()),
                Platform::Android => self.to_fcm(client, push, now, stale.as_deref()),
            };
            let (bearer, outcome) = match sent {
                Ok(sent) => sent,
                Err(outcome) => return outcome,
            };
            match outcome {
                Outcome::Renew(_) if stale.is_none() => {
                    count(push.platform, &outcome);
                    stale = Some(bearer);
                }
                other => return other,
            }
        }
    }

    fn to_apns(
        &self,
        client: &Client,
        push: &Push,
        now: DateTime<Utc>,
        stale: Option<&str>,
    ) -> Result<(String, Outcome), Outcome> {
        let apns = self
            .apns
            .as_ref()
            .ok_or(Outcome::Failed("APNs is not set up".into()))?;
        let bearer = apns.provider_token(now, stale)?;
        let request = apns.request(push, &bearer).map_err(Outcome::Failed)?;
        let answer = call(client, request)?;
        Ok((bearer, apns::read(&answer)))
    }

    fn to_fcm(
        &self,
        client: &Client,
        push: &Push,
        now: DateTime<Utc>,
        stale: Option<&str>,
    ) -> Result<(String, Outcome), Outcome> {
        let fcm = self
            .fcm
            .as_ref()
            .ok_or(Outcome::Failed("FCM is not set up".into()))?;
        let bearer = fcm.access_token(client, now, stale)?;
        let request = fcm.request(push, &bearer).map_err(Outcome::Failed)?;
        let answer = call(client, request)?;
        Ok((bearer, fcm::read(&answer)))
    }
}

fn call(client: &Client, request: hyper::Request<hyper::Body>) -> Result<Answer, Outcome> {
    client
        .call(request)
        .map_err(|why| Outcome::Retry { why, after: None })
}

/// Answers by platform: delivered, removed, retried, failed, and a
/// credential refused (then renewed and the notification sent again).
static OUTCOMES: [[AtomicU64; 6]; 2] = [const { [const { AtomicU64::new(0) }; 6] }; 2];
/// Credentials (provider tokens, access tokens) made, by platform.
static RENEWALS: [AtomicU64; 2] = [const { AtomicU64::new(0) }; 2];
const OUTCOME_NAMES: [&str; 6] = [
    "delivered",
    "removed",
    "retried",
    "failed",
    "credential_refused",
    "held",
];

/// Whether each platform's credential is being refused now: one ERROR
/// line when a run of refusals begins, one INFO line when it ends.
static REFUSING: [std::sync::atomic::AtomicBool; 2] =
    [const { std::sync::atomic::AtomicBool::new(false) }; 2];

fn refusing(platform: Platform, outcome: &Outcome) {
    let refusing = &REFUSING[platform.index()];
    match outcome {
        Outcome::Held(why) if !refusing.swap(true, Relaxed) => log::error!(
            "{}: the push credential is refused ({why}); notices are held until it is fixed",
            platform.service()
        ),
        Outcome::Delivered if refusing.swap(false, Relaxed) => log::info!(
            "{}: the push credential is accepted again; held notices go out",
            platform.service()
        ),
        _ => {}
    }
}

fn count(platform: Platform, outcome: &Outcome) {
    let slot = match outcome {
        Outcome::Delivered => 0,
        Outcome::Gone(_) => 1,
        Outcome::Retry { .. } => 2,
        Outcome::Failed(_) => 3,
        Outcome::Renew(_) => 4,
        Outcome::Held(_) => 5,
    };
    OUTCOMES[platform.index()][slot].fetch_add(1, Relaxed);
}

fn count_renewal(platform: Platform) {
    RENEWALS[platform.index()].fetch_add(1, Relaxed);
}

/// The native push counters in Prometheus's text format.
pub fn metrics() -> String {
    use std::fmt::Write;
    let mut out = String::from("# TYPE posthorn_native_push_total counter\n");
    for platform in Platform::ALL {
        for (slot, outcome) in OUTCOME_NAMES.iter().enumerate() {
            let n = OUTCOMES[platform.index()][slot].load(Relaxed);
            let service = platform.service();
            let _ = writeln!(
                out,
                "posthorn_native_push_total{{service=\"{service}\",outcome=\"{outcome}\"}} {n}"
            );
        }
    }
    out.push_str("# TYPE posthorn_native_push_credentials_total counter\n");
    for platform in Platform::ALL {
        let n = RENEWALS[platform.index()].load(Relaxed);
        let service = platform.service();
        let _ = writeln!(
            out,
            "posthorn_native_push_credentials_total{{service=\"{service}\"}} {n}"
        );
    }
    out
}
