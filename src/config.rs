//! The service's configuration: one typed struct, read from the
//! environment in `main` (README lists every variable).

use std::path::PathBuf;

#[derive(Clone, Debug)]
pub struct Config {
    /// `DATABASE_URL`; unset: start a private PostgreSQL in `data_dir`.
    pub database_url: Option<String>,
    /// `POSTHORN_READ_DATABASE_URL`: a replica for the read-heavy paths
    /// (docs/operations.md, "The database: failover, replicas, backups");
    /// unset: every read goes to the primary.
    pub read_database_url: Option<String>,
    /// `POSTHORN_REPLICA_MAX_LAG_SECONDS`, default 10: a replica lagging
    /// more is passed over for the primary.
    pub replica_max_lag_seconds: f64,
    /// `POSTHORN_BIND`, default `127.0.0.1:8080`.
    pub bind: String,
    /// `POSTHORN_PUBLIC_URL`: the address users reach (links in invites).
    pub public_url: String,
    /// `POSTHORN_DATA_DIR`, default `.posthorn`.
    pub data_dir: PathBuf,
    /// `POSTHORN_JWT_SECRET`; unset: generated once and kept in `data_dir`.
    pub jwt_secret: Option<String>,
    /// `POSTHORN_MIN_TURN_SECONDS`: the shortest turn a match may have.
    pub min_turn_seconds: i64,
    /// `POSTHORN_DB_POOL_SIZE`.
    pub pool_size: u32,
    /// `POSTHORN_ACCESS_TOKEN_SECONDS`: lifetime of an access token.
    pub access_token_seconds: i64,
    /// `POSTHORN_REFRESH_TOKEN_DAYS`: lifetime of a refresh token.
    pub refresh_token_days: i64,
    /// `POSTHORN_REFRESH_REUSE_SECONDS`: how long a just-rotated refresh
    /// token presented again is answered with its successor (a page's or
    /// tabs' refreshes racing) before it counts as a stolen copy that ends
    /// the session.
    pub refresh_reuse_seconds: i64,
    /// `POSTHORN_MAX_BODY_BYTES`: larger request bodies get 413.
    pub max_body_bytes: usize,
    /// `POSTHORN_BODY_TIMEOUT_SECONDS`: a request body must arrive within
    /// this long of its head, else 408.
    pub body_timeout_seconds: u64,
    /// `POSTHORN_SWEEP_INTERVAL_SECONDS`: how often deadlines are swept
    /// and the outbox delivered.
    pub sweep_interval_seconds: u64,
    /// `POSTHORN_PUZZLE_POOL`: while a game has fewer puzzles than this,
    /// the engines play a match a minute for it (docs/puzzles.md); 0
    /// mines finished matches only. Default 100 (tests run no timers).
    pub puzzle_pool: i64,
    /// `POSTHORN_BOT_THREADS`: threads that think for computer opponents
    /// (docs/bots.md, "In the service"); default half the cores, at least
    /// one.
    pub bot_threads: usize,
    /// `POSTHORN_ANALYSIS_NODES`: the nodes an analysis spends on each play
    /// (docs/analysis.md, "Effort"); default the rules' `Effort::SERVICE`.
    pub analysis_nodes: u64,
    /// `POSTHORN_JOB_LEASE_SECONDS`: how long a claimed one-off job is held
    /// before another instance may take it (a crashed worker's job).
    pub job_lease_seconds: i64,
    /// `POSTHORN_DRAIN_SECONDS`: on SIGTERM, how long the instance goes on
    /// serving while `/readyz` says 503 (the proxy's checks notice).
    pub drain_seconds: u64,
    /// `POSTHORN_SHUTDOWN_SECONDS`: then, how long the requests in flight
    /// have to finish before the instance exits.
    pub shutdown_seconds: u64,
    /// `POSTHORN_LIVE_STREAM_SECONDS`: how long one live stream lasts
    /// before its page opens another (default 300: an access token's life
    /// is 15 minutes). The API fuzzer sets a few seconds, since it reads
    /// each stream to its end.
    pub live_stream_seconds: u64,
    /// `POSTHORN_SMTP_URL`: `smtp://host:port`, `…?tls=starttls`,
    /// `smtps://…`, credentials in the URL; unset: `.eml` files in the data
    /// folder.
    pub smtp_url: Option<String>,
    /// `POSTHORN_MAIL_FROM`.
    pub mail_from: String,
    /// `POSTHORN_NOTIFY_MAX_ATTEMPTS`: delivery attempts before a
    /// notification is recorded as failed.
    pub notify_max_attempts: i32,
    /// `POSTHORN_VAPID_PRIVATE_KEY`: base64url raw P-256 private key;
    /// unset: generated once and kept in the data folder.
    pub vapid_private_key: Option<String>,
    /// `POSTHORN_VAPID_SUBJECT`: a `mailto:` or `https:` contact.
    pub vapid_subject: String,
    /// `POSTHORN_ALLOW_INSECURE_PUSH_ENDPOINTS=1`: accept `http` and
    /// private-address push endpoints (tests only).
    pub allow_insecure_push_endpoints: bool,
    /// `POSTHORN_TRUSTED_PROXIES`: comma-separated addresses of the load
    /// balancers in front of the service. A request from one of them is
    /// counted against the address its `X-Forwarded-For` names (the
    /// rightmost one not itself a trusted proxy); from anyone else, the
    /// header is ignored. Per-address limits (`limits.rs`) depend on it.
    pub trusted_proxies: Vec<std::net::IpAddr>,
    /// `POSTHORN_METRICS_TOKEN`: `/metrics` answers only
    /// `Authorization: Bearer <token>`; unset: `/metrics` is not served.
    pub metrics_token: Option<String>,
    /// Sign-in with Google and Apple
    /// (docs/decisions/accounts-and-sessions.md, "Google and Apple"): a
    /// provider with no client id configured is not offered.
    pub sign_in: Vec<SignInProvider>,
    /// Push to the iOS app through APNs (docs/operations.md, "Push to the
    /// native apps"); unset: iOS devices are refused.
    pub apns: Option<Apns>,
    /// Push to the Android app through FCM; unset: Android devices are
    /// refused.
    pub fcm: Option<Fcm>,
    /// `POSTHORN_NATIVE_PUSH_CA_FILE`: a PEM certificate the APNs and FCM
    /// client trusts besides the system's roots (tests' local peers only).
    pub native_push_ca_file: Option<PathBuf>,
}

/// APNs with token-based authentication (docs/operations.md).
#[derive(Clone, Debug)]
pub struct Apns {
    /// `POSTHORN_APNS_KEY_FILE`: the team's `.p8` signing key.
    pub key_file: PathBuf,
    /// `POSTHORN_APNS_KEY_ID`: the key's id (the token's `kid`).
    pub key_id: String,
    /// `POSTHORN_APNS_TEAM_ID`: the token's `iss`.
    pub team_id: String,
    /// `POSTHORN_APNS_TOPIC`: the app's bundle id.
    pub topic: String,
    /// `POSTHORN_APNS_HOST`: `production` (default), `sandbox`, or a URL.
    pub host: String,
}

/// FCM HTTP v1 with a service account (docs/operations.md).
#[derive(Clone, Debug)]
pub struct Fcm {
    /// `POSTHORN_FCM_SERVICE_ACCOUNT_FILE`: the service account's JSON key.
    pub service_account_file: PathBuf,
    /// `POSTHORN_FCM_PROJECT`: unset, the key file's `project_id`.
    pub project: Option<String>,
    /// `POSTHORN_FCM_ENDPOINT`: `https://fcm.googleapis.com` unless set.
    pub endpoint: String,
    /// `POSTHORN_FCM_TOKEN_URI`: unset, the key file's `token_uri`.
    pub token_uri: Option<String>,
}

impl Apns {
    /// Apple's hosts by name (`apns_host` may also be a URL).
    pub fn base_url(&self) -> String {
        match self.host.as_str() {
            "production" | "" => "https://api.push.apple.com".into(),
            "sandbox" => "https://api.sandbox.push.apple.com".into(),
            url => url.trim_end_matches('/').into(),
        }
    }

    fn from_env(var: &dyn Fn(&str) -> Option<String>) -> Result<Option<Apns>, String> {
        const REST: [&str; 4] = [
            "POSTHORN_APNS_KEY_ID",
            "POSTHORN_APNS_TEAM_ID",
            "POSTHORN_APNS_TOPIC",
            "POSTHORN_APNS_HOST",
        ];
        let Some(key_file) = var("POSTHORN_APNS_KEY_FILE") else {
            return without("POSTHORN_APNS_KEY_FILE", &REST, var).map(|()| None);
        };
        let need = |name: &str| {
            var(name).ok_or_else(|| format!("POSTHORN_APNS_KEY_FILE is set but {name} is not"))
        };
        let apns = Apns {
            key_file: key_file.into(),
            key_id: need("POSTHORN_APNS_KEY_ID")?,
            team_id: need("POSTHORN_APNS_TEAM_ID")?,
            topic: need("POSTHORN_APNS_TOPIC")?,
            host: var("POSTHORN_APNS_HOST").unwrap_or_else(|| "production".into()),
        };
        https("POSTHORN_APNS_HOST", &apns.base_url())?;
        Ok(Some(apns))
    }
}

impl Fcm {
    fn from_env(var: &dyn Fn(&str) -> Option<String>) -> Result<Option<Fcm>, String> {
        const REST: [&str; 3] = [
            "POSTHORN_FCM_PROJECT",
            "POSTHORN_FCM_ENDPOINT",
            "POSTHORN_FCM_TOKEN_URI",
        ];
        let Some(file) = var("POSTHORN_FCM_SERVICE_ACCOUNT_FILE") else {
            return without("POSTHORN_FCM_SERVICE_ACCOUNT_FILE", &REST, var).map(|()| None);
        };
        let fcm = Fcm {
            service_account_file: file.into(),
            project: var("POSTHORN_FCM_PROJECT"),
            endpoint: var("POSTHORN_FCM_ENDPOINT")
                .unwrap_or_else(|| "https://fcm.googleapis.com".into()),
            token_uri: var("POSTHORN_FCM_TOKEN_URI"),
        };
        https("POSTHORN_FCM_ENDPOINT", &fcm.endpoint)?;
        if let Some(uri) = &fcm.token_uri {
            https("POSTHORN_FCM_TOKEN_URI", uri)?;
        }
        Ok(Some(fcm))
    }
}

/// A push service's setting given without the key it goes with is a
/// mistake said at the start, not a platform silently left off.
fn without(key: &str, rest: &[&str], var: &dyn Fn(&str) -> Option<String>) -> Result<(), String> {
    match rest.iter().find(|name| var(name).is_some()) {
        Some(name) => Err(format!("{name} is set but {key} is not")),
        None => Ok(()),
    }
}

/// Credentials go to a push service over TLS only.
fn https(name: &str, url: &str) -> Result<(), String> {
    if url.starts_with("https://") {
        Ok(())
    } else {
        Err(format!("{name} must be an https:// URL, not {url}"))
    }
}

/// The providers a player may sign in with (OpenID Connect, issue #47):
/// the one list of them; requests name them in lowercase.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, utoipa::ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    Google,
    Apple,
}

impl Provider {
    pub const ALL: [Provider; 2] = [Provider::Google, Provider::Apple];

    pub fn name(self) -> &'static str {
        match self {
            Provider::Google => "google",
            Provider::Apple => "apple",
        }
    }

    pub fn parse(name: &str) -> Option<Provider> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Where the provider publishes its keys, who it says issued a token,
    /// and where a browser asks it for one, as the providers document
    /// them; each can be configured (tests run a local issuer).
    fn published(self) -> (&'static str, &'static [&'static str], &'static str) {
        match self {
            Provider::Google => (
                "https://www.googleapis.com/oauth2/v3/certs",
                &["https://accounts.google.com", "accounts.google.com"],
                "https://accounts.google.com/o/oauth2/v2/auth",
            ),
            Provider::Apple => (
                "https://appleid.apple.com/auth/keys",
                &["https://appleid.apple.com"],
                "https://appleid.apple.com/auth/authorize",
            ),
        }
    }
}

/// One provider's configuration (`POSTHORN_GOOGLE_*`, `POSTHORN_APPLE_*`).
#[derive(Clone, Debug)]
pub struct SignInProvider {
    pub provider: Provider,
    /// The `aud` a token must name: the apps' client ids (for Apple, the
    /// bundle id and the web's Services ID). The first is the web
    /// client's. Empty: this provider is not offered.
    pub client_ids: Vec<String>,
    /// The `iss` a token must name.
    pub issuers: Vec<String>,
    /// The provider's JSON Web Key Set.
    pub keys_url: String,
    /// Where the web client sends a browser for an `id_token`.
    pub authorize_url: String,
}

impl SignInProvider {
    /// `provider` as it publishes itself, with no client id: off.
    pub fn published(provider: Provider) -> SignInProvider {
        let (keys, issuers, authorize) = provider.published();
        SignInProvider {
            provider,
            client_ids: Vec::new(),
            issuers: issuers.iter().map(|i| i.to_string()).collect(),
            keys_url: keys.into(),
            authorize_url: authorize.into(),
        }
    }

    fn from_env(provider: Provider, var: &dyn Fn(&str) -> Option<String>) -> SignInProvider {
        let prefix = format!("POSTHORN_{}_", provider.name().to_uppercase());
        let list = |v: String| -> Vec<String> {
            v.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect()
        };
        let d = SignInProvider::published(provider);
        SignInProvider {
            provider,
            client_ids: var(&format!("{prefix}CLIENT_IDS"))
                .map(list)
                .unwrap_or_default(),
            issuers: var(&format!("{prefix}ISSUERS"))
                .map(list)
                .unwrap_or(d.issuers),
            keys_url: var(&format!("{prefix}KEYS_URL")).unwrap_or(d.keys_url),
            authorize_url: var(&format!("{prefix}AUTHORIZE_URL")).unwrap_or(d.authorize_url),
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            database_url: None,
            read_database_url: None,
            replica_max_lag_seconds: 10.0,
            bind: "127.0.0.1:8080".into(),
            public_url: "http://127.0.0.1:8080".into(),
            data_dir: PathBuf::from(".posthorn"),
            jwt_secret: None,
            min_turn_seconds: 3600,
            pool_size: 8,
            access_token_seconds: 15 * 60,
            refresh_token_days: 60,
            refresh_reuse_seconds: 60,
            max_body_bytes: 64 * 1024,
            body_timeout_seconds: 10,
            sweep_interval_seconds: 5,
            puzzle_pool: 100,
            bot_threads: std::thread::available_parallelism()
                .map_or(1, |n| n.get() / 2)
                .max(1),
            analysis_nodes: posthorn_rules::engine::analysis::Effort::SERVICE.nodes,
            job_lease_seconds: 60,
            drain_seconds: 2,
            shutdown_seconds: 20,
            live_stream_seconds: 300,
            smtp_url: None,
            mail_from: "Posthorn <posthorn@localhost>".into(),
            notify_max_attempts: 5,
            vapid_private_key: None,
            vapid_subject: "mailto:posthorn@localhost".into(),
            allow_insecure_push_endpoints: false,
            trusted_proxies: Vec::new(),
            metrics_token: None,
            sign_in: Provider::ALL.map(SignInProvider::published).to_vec(),
            apns: None,
            fcm: None,
            native_push_ca_file: None,
        }
    }
}

impl Config {
    pub fn from_env() -> Result<Config, String> {
        let d = Config::default();
        fn var(name: &str) -> Option<String> {
            std::env::var(name).ok().filter(|v| !v.is_empty())
        }
        /// `name` read once: its number, or `default` when it is unset.
        fn number<T: std::str::FromStr>(name: &str, default: T) -> Result<T, String> {
            match var(name) {
                Some(v) => v
                    .parse()
                    .map_err(|_| format!("{name}={v:?} is not a number")),
                None => Ok(default),
            }
        }
        let bind = var("POSTHORN_BIND").unwrap_or(d.bind);
        Ok(Config {
            database_url: var("DATABASE_URL"),
            read_database_url: var("POSTHORN_READ_DATABASE_URL"),
            replica_max_lag_seconds: number(
                "POSTHORN_REPLICA_MAX_LAG_SECONDS",
                d.replica_max_lag_seconds,
            )?,
            public_url: var("POSTHORN_PUBLIC_URL").unwrap_or_else(|| format!("http://{bind}")),
            bind,
            data_dir: var("POSTHORN_DATA_DIR")
                .map(PathBuf::from)
                .unwrap_or(d.data_dir),
            jwt_secret: var("POSTHORN_JWT_SECRET"),
            min_turn_seconds: number("POSTHORN_MIN_TURN_SECONDS", d.min_turn_seconds)?,
            pool_size: number("POSTHORN_DB_POOL_SIZE", d.pool_size)?,
            access_token_seconds: number("POSTHORN_ACCESS_TOKEN_SECONDS", d.access_token_seconds)?,
            refresh_token_days: number("POSTHORN_REFRESH_TOKEN_DAYS", d.refresh_token_days)?,
            refresh_reuse_seconds: number(
                "POSTHORN_REFRESH_REUSE_SECONDS",
                d.refresh_reuse_seconds as u64,
            )?
            .min(3600) as i64,
            max_body_bytes: number("POSTHORN_MAX_BODY_BYTES", d.max_body_bytes)?,
            body_timeout_seconds: number("POSTHORN_BODY_TIMEOUT_SECONDS", d.body_timeout_seconds)?,
            sweep_interval_seconds: number(
                "POSTHORN_SWEEP_INTERVAL_SECONDS",
                d.sweep_interval_seconds,
            )?
            .max(1),
            puzzle_pool: number("POSTHORN_PUZZLE_POOL", 100)?,
            bot_threads: number("POSTHORN_BOT_THREADS", d.bot_threads as u64)?.clamp(1, 64)
                as usize,
            analysis_nodes: number("POSTHORN_ANALYSIS_NODES", d.analysis_nodes)?
                .clamp(1, 100_000_000),
            job_lease_seconds: number("POSTHORN_JOB_LEASE_SECONDS", d.job_lease_seconds as u64)?
                .clamp(1, 86_400) as i64,
            drain_seconds: number("POSTHORN_DRAIN_SECONDS", d.drain_seconds)?.min(300),
            shutdown_seconds: number("POSTHORN_SHUTDOWN_SECONDS", d.shutdown_seconds)?.min(600),
            live_stream_seconds: number("POSTHORN_LIVE_STREAM_SECONDS", d.live_stream_seconds)?
                .clamp(1, 900),
            smtp_url: var("POSTHORN_SMTP_URL"),
            mail_from: var("POSTHORN_MAIL_FROM").unwrap_or(d.mail_from),
            notify_max_attempts: number("POSTHORN_NOTIFY_MAX_ATTEMPTS", d.notify_max_attempts)?,
            vapid_private_key: var("POSTHORN_VAPID_PRIVATE_KEY"),
            vapid_subject: var("POSTHORN_VAPID_SUBJECT").unwrap_or(d.vapid_subject),
            allow_insecure_push_endpoints: var("POSTHORN_ALLOW_INSECURE_PUSH_ENDPOINTS")
                .is_some_and(|v| v == "1"),
            trusted_proxies: var("POSTHORN_TRUSTED_PROXIES")
                .unwrap_or_default()
                .split(',')
                .map(str::trim)
                .filter(|a| !a.is_empty())
                .map(|a| {
                    a.parse()
                        .map_err(|_| format!("POSTHORN_TRUSTED_PROXIES: {a:?} is not an address"))
                })
                .collect::<Result<_, _>>()?,
            metrics_token: var("POSTHORN_METRICS_TOKEN"),
            sign_in: Provider::ALL
                .map(|p| SignInProvider::from_env(p, &var))
                .to_vec(),
            apns: Apns::from_env(&var)?,
            fcm: Fcm::from_env(&var)?,
            native_push_ca_file: var("POSTHORN_NATIVE_PUSH_CA_FILE").map(PathBuf::from),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{Apns, Fcm};

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn a_push_setting_without_its_key_or_over_plain_http_stops_the_start() {
        let half = env(&[("POSTHORN_APNS_TOPIC", "app.posthorn.ios")]);
        let said = Apns::from_env(&half).unwrap_err();
        assert!(said.contains("POSTHORN_APNS_KEY_FILE is not"), "{said}");
        let half = env(&[("POSTHORN_FCM_PROJECT", "posthorn")]);
        assert!(Fcm::from_env(&half).is_err());
        let plain = env(&[
            ("POSTHORN_APNS_KEY_FILE", "k.p8"),
            ("POSTHORN_APNS_KEY_ID", "K"),
            ("POSTHORN_APNS_TEAM_ID", "T"),
            ("POSTHORN_APNS_TOPIC", "app"),
            ("POSTHORN_APNS_HOST", "http://apns.example"),
        ]);
        assert!(Apns::from_env(&plain).unwrap_err().contains("https://"));
        let sandbox = env(&[
            ("POSTHORN_APNS_KEY_FILE", "k.p8"),
            ("POSTHORN_APNS_KEY_ID", "K"),
            ("POSTHORN_APNS_TEAM_ID", "T"),
            ("POSTHORN_APNS_TOPIC", "app"),
            ("POSTHORN_APNS_HOST", "sandbox"),
        ]);
        let apns = Apns::from_env(&sandbox).unwrap().unwrap();
        assert_eq!(apns.base_url(), "https://api.sandbox.push.apple.com");
        assert!(Apns::from_env(&env(&[])).unwrap().is_none());
        assert!(Fcm::from_env(&env(&[])).unwrap().is_none());
    }
}
