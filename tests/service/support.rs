//! A real service on a real PostgreSQL for each test: a fresh database
//! cloned from a migrated template, the HTTP server on a loopback port, a
//! manual clock, and a small JSON client.

use awc::http::StatusCode;
use chrono::{DateTime, Utc};
use diesel::{Connection, PgConnection, RunQueryDsl};
use posthorn::clock::ManualClock;
use posthorn::config::Config;
use posthorn::dice::{Dice, OsDice, SeededDice};
use posthorn::state::AppState;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

/// The server: `POSTHORN_TEST_DATABASE_URL` (`.ci/run` sets it), or a
/// private cluster under the target folder, started on first use.
fn server_url() -> &'static str {
    static URL: OnceLock<String> = OnceLock::new();
    URL.get_or_init(|| match std::env::var("POSTHORN_TEST_DATABASE_URL") {
        Ok(url) => url,
        Err(_) => {
            let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("test-postgres");
            posthorn::localdb::LocalPostgres::start(&dir, "postgres")
                .expect("start a private PostgreSQL for the tests")
                .url("postgres")
        }
    })
}

fn with_database(url: &str, database: &str) -> String {
    let (base, _) = url.rsplit_once('/').expect("a database URL ends in /name");
    format!("{base}/{database}")
}

/// A migrated template database, made once per test process.
fn template() -> &'static str {
    static NAME: OnceLock<String> = OnceLock::new();
    NAME.get_or_init(|| {
        let name = format!("posthorn_tpl_{}", std::process::id());
        let mut admin = PgConnection::establish(server_url()).expect("connect to PostgreSQL");
        diesel::sql_query(format!("DROP DATABASE IF EXISTS {name}"))
            .execute(&mut admin)
            .unwrap();
        diesel::sql_query(format!("CREATE DATABASE {name}"))
            .execute(&mut admin)
            .unwrap();
        let mut conn = PgConnection::establish(&with_database(server_url(), &name)).unwrap();
        posthorn::db::migrate(&mut conn).unwrap();
        name
    })
}

fn fresh_database() -> String {
    static CLONING: Mutex<()> = Mutex::new(());
    let template = template();
    let _one_at_a_time = CLONING.lock().unwrap_or_else(|p| p.into_inner());
    let name = format!("posthorn_test_{}", uuid::Uuid::new_v4().simple());
    let mut admin = PgConnection::establish(server_url()).unwrap();
    diesel::sql_query(format!("CREATE DATABASE {name} TEMPLATE {template}"))
        .execute(&mut admin)
        .unwrap();
    name
}

pub struct TestApp {
    pub base: String,
    pub clock: ManualClock,
    pub state: AppState,
    pub database: String,
    /// Whether this instance made its database, and so drops it: when
    /// stopped, or when dropped (a test that failed half-way leaves
    /// nothing behind). A sibling shares its database and drops nothing.
    owns_database: bool,
    client: awc::Client,
    server: actix_web::dev::ServerHandle,
    /// Each registered player's token, by username, so that `post` can
    /// answer the challenges a new match sends (see [`TestApp::post`]).
    tokens: std::sync::Mutex<std::collections::HashMap<String, String>>,
}

pub struct Reply {
    pub status: StatusCode,
    pub body: Value,
    pub headers: awc::http::header::HeaderMap,
    /// The body as sent (a picture's bytes).
    pub raw: Vec<u8>,
}

impl Reply {
    pub fn code(&self) -> &str {
        self.body["code"].as_str().unwrap_or_default()
    }

    /// The header `name`, which the answer must carry.
    pub fn header(&self, name: &str) -> String {
        let value = self.headers.get(name);
        let value = value.unwrap_or_else(|| panic!("no {name} header"));
        value.to_str().unwrap().to_owned()
    }
}

pub fn start_time() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2030-01-07T09:00:00Z")
        .unwrap()
        .into()
}

impl TestApp {
    pub async fn start() -> TestApp {
        Self::start_with(Config::default()).await
    }

    /// A service whose game chance (seat draws, deals) is seeded.
    pub async fn start_seeded(seed: u64) -> TestApp {
        Self::start_with_dice(Config::default(), Arc::new(SeededDice::new(seed))).await
    }

    pub async fn start_with(config: Config) -> TestApp {
        Self::start_with_dice(config, Arc::new(OsDice)).await
    }

    pub async fn start_with_dice(config: Config, dice: Arc<dyn Dice>) -> TestApp {
        let database = fresh_database();
        let url = with_database(server_url(), &database);
        let mut app = Self::start_at(config, dice, database, url).await;
        app.owns_database = true;
        app
    }

    /// A service on a database of another server (one a test may restart).
    pub async fn start_on_server(server: &str) -> TestApp {
        let url = with_database(server, "posthorn");
        Self::start_at(Config::default(), Arc::new(OsDice), "posthorn".into(), url).await
    }

    async fn start_at(
        mut config: Config,
        dice: Arc<dyn Dice>,
        database: String,
        url: String,
    ) -> TestApp {
        config.jwt_secret = Some("a test secret that is long enough for HS256".into());
        // Requests say where they come from (`X-Forwarded-For`), so tests
        // can be many people on many addresses, or one on one.
        config.trusted_proxies = vec![std::net::Ipv4Addr::LOCALHOST.into()];
        let clock = ManualClock::new(start_time());
        let state = {
            let clock = Arc::new(clock.clone());
            let mut state = actix_web::web::block(move || posthorn::app_state(config, &url, clock))
                .await
                .unwrap()
                .expect("app state");
            state.dice = dice;
            state
        };
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let app_state = state.clone();
        let server = posthorn::http::edge::serve(app_state, listener, 2, false).unwrap();
        let handle = server.handle();
        actix_rt::spawn(server);
        let client = awc::Client::builder()
            .timeout(Duration::from_secs(30))
            .finish();
        TestApp {
            base,
            clock,
            state,
            database,
            owns_database: false,
            client,
            server: handle,
            tokens: Default::default(),
        }
    }

    pub async fn request(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
        headers: &[(&str, &str)],
    ) -> Reply {
        let method = awc::http::Method::from_bytes(method.as_bytes()).unwrap();
        let mut req = self.client.request(method, format!("{}{path}", self.base));
        if let Some(token) = token {
            req = req.insert_header(("Authorization", format!("Bearer {token}")));
        }
        for (name, value) in headers {
            req = req.insert_header((*name, *value));
        }
        let mut res = match body {
            Some(body) => req.send_json(&body).await,
            None => req.send().await,
        }
        .expect("the request reaches the server");
        // A live stream (`text/event-stream`) lasts minutes: its head is
        // the answer here; `live.rs` reads streams event by event.
        let streams = res
            .headers()
            .get("content-type")
            .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"));
        let bytes = if streams {
            Default::default()
        } else {
            res.body().limit(16 * 1024 * 1024).await.unwrap()
        };
        let body = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes)
                .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into()))
        };
        // Remember who signed up, for `post` to answer their challenges.
        if res.status() == StatusCode::CREATED && matches!(path, "/v1/accounts" | "/v1/guests") {
            if let (Some(name), Some(token)) = (
                body["user"]["username"].as_str(),
                body["access_token"].as_str(),
            ) {
                self.tokens
                    .lock()
                    .unwrap()
                    .insert(name.to_lowercase(), token.to_owned());
            }
        }
        if res.status().is_client_error() || res.status().is_server_error() {
            let content_type = res
                .headers()
                .get("content-type")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default();
            assert_eq!(content_type, "application/problem+json", "{path}: {body}");
            assert_ne!(
                res.status().as_u16(),
                500,
                "{path}: a 500 is always a defect: {body}"
            );
        }
        Reply {
            raw: bytes.to_vec(),
            status: res.status(),
            body,
            headers: res.headers().clone(),
        }
    }

    pub async fn get(&self, path: &str, token: &str) -> Reply {
        self.request("GET", path, Some(token), None, &[]).await
    }

    /// POST `body`. A new match that names opponents waits for them to
    /// accept their challenges (issue #20); most tests are about playing,
    /// so here each named player accepts at once and the creator's view of
    /// the started match is answered. Tests of the challenge itself use
    /// [`TestApp::challenge`].
    pub async fn post(&self, path: &str, token: &str, body: Value) -> Reply {
        let mut reply = self.challenge(path, token, body.clone()).await;
        let Some(names) = body["opponents"]
            .as_array()
            .filter(|_| path == "/v1/matches")
        else {
            return reply;
        };
        if reply.status != 201 {
            return reply;
        }
        let id = reply.body["id"].as_str().unwrap().to_owned();
        for name in names {
            let name = name.as_str().unwrap().to_lowercase();
            let theirs = self.tokens.lock().unwrap().get(&name).cloned();
            let theirs = theirs.unwrap_or_else(|| panic!("no token for {name}"));
            let accepted = self
                .request(
                    "POST",
                    &format!("/v1/matches/{id}/accept"),
                    Some(&theirs),
                    None,
                    &[],
                )
                .await;
            if accepted.status != 200 {
                return accepted;
            }
        }
        let started = self.get(&format!("/v1/matches/{id}"), token).await;
        if started.status != 200 {
            return started;
        }
        reply.body = started.body;
        reply
    }

    /// POST as it is: a new match with opponents stays `waiting`.
    pub async fn challenge(&self, path: &str, token: &str, body: Value) -> Reply {
        self.request("POST", path, Some(token), Some(body), &[])
            .await
    }

    /// Register `name` and return its access token. Its address,
    /// `name@example.test`, is verified as if its link had been opened
    /// (tests of the link itself are in `fair_play.rs`).
    /// Each from an address of its own: sign-ups per address are limited
    /// (`limits.rs`, issue #46).
    pub async fn register(&self, name: &str) -> String {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let address = std::net::Ipv4Addr::from(0x0A00_0000 + n).to_string();
        let reply = self
            .request(
                "POST",
                "/v1/accounts",
                None,
                Some(json!({"username": name, "password": "a long password"})),
                &[("X-Forwarded-For", &address)],
            )
            .await;
        assert_eq!(reply.status, 201, "{}", reply.body);
        let token = reply.body["access_token"].as_str().unwrap().to_owned();
        self.tokens
            .lock()
            .unwrap()
            .insert(name.to_lowercase(), token.clone());
        self.give_verified_email(name).await;
        token
    }

    /// Give `name` the verified address `name@example.test` (a fixture: no
    /// verification mail is queued).
    pub async fn give_verified_email(&self, name: &str) {
        let name = name.to_owned();
        self.blocking(move |s| {
            let mut conn = s.pool.get().unwrap();
            diesel::sql_query(
                "UPDATE users SET email = lower(username) || '@example.test' WHERE lower(username) = lower($1)",
            )
            .bind::<diesel::sql_types::Text, _>(name)
            .execute(&mut *conn)
            .unwrap();
        })
        .await;
    }

    /// A guest, each from an address of its own (guests per address are
    /// limited: `limits.rs`).
    pub async fn guest(&self, nickname: &str) -> String {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let address = std::net::Ipv4Addr::from(0xC633_6400 + (n % 0xFFFF)).to_string();
        let reply = self
            .request(
                "POST",
                "/v1/guests",
                None,
                Some(json!({"nickname": nickname})),
                &[("X-Forwarded-For", &address)],
            )
            .await;
        assert_eq!(reply.status, 201, "{}", reply.body);
        reply.body["access_token"].as_str().unwrap().to_owned()
    }

    /// The caller's legal actions in `match_id` (every seat of theirs).
    pub async fn legal_actions(&self, token: &str, match_id: &str) -> Vec<Value> {
        let reply = self
            .get(&format!("/v1/matches/{match_id}/legal-actions"), token)
            .await;
        reply.body["actions"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// Post `action` for the match at the seq it is at now.
    pub async fn act(&self, token: &str, match_id: &str, action: Value) -> Reply {
        let seq = self
            .get(&format!("/v1/matches/{match_id}"), token)
            .await
            .body["seq"]
            .clone();
        self.post(
            &format!("/v1/matches/{match_id}/actions"),
            token,
            json!({"seq": seq, "action": action}),
        )
        .await
    }

    /// Play random legal actions that pass `playing` ([`a_move`] or the
    /// caller's own), each by the player of the seat on move, until the
    /// match ends or `plies` are played: the one whole-match helper
    /// (tests/README.md). `tokens` are the players'; the match as last
    /// seen.
    pub async fn play_moves(
        &self,
        tokens: &[&str],
        match_id: &str,
        random: &mut dyn posthorn_rules::Random,
        plies: usize,
        playing: fn(&Value) -> bool,
    ) -> Value {
        let path = format!("/v1/matches/{match_id}");
        let mut ids = Vec::new();
        for token in tokens {
            ids.push(self.get("/v1/me", token).await.body["id"].clone());
        }
        let mut last = self.get(&path, tokens[0]).await.body;
        for _ in 0..plies {
            if last["status"] == "finished" {
                break;
            }
            let seat = last["to_act"][0]["seat"]
                .as_u64()
                .unwrap_or_else(|| panic!("a seat on move: {last}"))
                as usize;
            let user = &last["seats"][seat]["user"]["id"];
            let token = tokens[ids
                .iter()
                .position(|id| id == user)
                .expect("a player's seat")];
            let listed = self.get(&format!("{path}/legal-actions"), token).await.body;
            let moves: Vec<&Value> = (listed["actions"].as_array().into_iter().flatten())
                .filter(|a| playing(a))
                .collect();
            assert!(!moves.is_empty(), "the seat on move can play: {listed}");
            let action = moves[random.below(moves.len() as u64) as usize].clone();
            let reply = self
                .post(
                    &format!("{path}/actions"),
                    token,
                    json!({"seq": listed["seq"], "action": action}),
                )
                .await;
            assert_eq!(reply.status, 200, "{action}: {}", reply.body);
            last = reply.body["match"].clone();
        }
        last
    }

    /// The number `sql` reads (a query whose one row has a bigint `n`).
    /// The outbox's fan-out once, as the delivery job runs it: (notices,
    /// deliveries).
    pub async fn fan_out(&self) -> (i64, i64) {
        self.blocking(|s| {
            let conn = &mut s.pool.get().unwrap();
            posthorn::notify::outbox::fan_out(conn, &posthorn::talk::told::TURN_TALK)
        })
        .await
        .unwrap()
    }

    pub async fn count(&self, sql: String) -> i64 {
        #[derive(diesel::QueryableByName)]
        struct N {
            #[diesel(sql_type = diesel::sql_types::BigInt)]
            n: i64,
        }
        self.blocking(move |s| {
            use diesel::RunQueryDsl;
            let conn = &mut s.pool.get().unwrap();
            diesel::sql_query(sql).get_result::<N>(conn).unwrap().n
        })
        .await
    }

    /// Run blocking work (the sweep, the outbox worker, a direct query) on
    /// this service's state, off the test's executor.
    pub async fn blocking<T, F>(&self, work: F) -> T
    where
        T: Send + 'static,
        F: FnOnce(&AppState) -> T + Send + 'static,
    {
        let state = self.state.clone();
        actix_web::web::block(move || work(&state)).await.unwrap()
    }

    /// Another service instance on this one's database (several
    /// instances, one database). Stop it with [`TestApp::stop_instance`].
    pub async fn sibling(&self) -> TestApp {
        let url = with_database(server_url(), &self.database);
        Self::start_at(
            Config::default(),
            Arc::new(OsDice),
            self.database.clone(),
            url,
        )
        .await
    }

    /// Stop this instance and leave the database to the others.
    pub async fn stop_instance(mut self) {
        // Never the database: the others still use it.
        self.owns_database = false;
        self.server.stop(false).await;
    }

    pub fn database_url(&self) -> String {
        with_database(server_url(), &self.database)
    }

    pub async fn stop(mut self) {
        self.server.stop(false).await;
        self.drop_database();
    }

    fn drop_database(&mut self) {
        if !std::mem::take(&mut self.owns_database) {
            return;
        }
        if let Ok(mut admin) = PgConnection::establish(server_url()) {
            let _ = diesel::sql_query(format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                self.database
            ))
            .execute(&mut admin);
        }
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        self.drop_database();
    }
}

/// An action that is a move (what [`TestApp::play_moves`] plays by default).
pub fn a_move(action: &Value) -> bool {
    action["type"] == "move"
}

/// What plays a game on: a move, a Banqi flip, a FlipChess card or flip;
/// not resigning, a draw or more time.
pub fn plays_on(action: &Value) -> bool {
    !["resign", "offer_draw", "grant_time", "claim_draw"]
        .contains(&action["type"].as_str().unwrap_or(""))
}

/// A spawned service binary, killed when dropped: a test that fails
/// midway leaves no process behind on its database.
pub struct Binary(pub std::process::Child);

impl std::ops::Deref for Binary {
    type Target = std::process::Child;
    fn deref(&self) -> &std::process::Child {
        &self.0
    }
}

impl std::ops::DerefMut for Binary {
    fn deref_mut(&mut self) -> &mut std::process::Child {
        &mut self.0
    }
}

impl Drop for Binary {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The service binary on `app`'s database, listening on a port of its
/// own, its ticks every second, with `env` besides; stdout discarded.
/// Returns the process and its address.
pub fn spawn_binary(app: &TestApp, env: &[(&str, String)]) -> (Binary, String) {
    spawn_binary_with_files(app, env, None)
}

/// [`spawn_binary`] under an open-file limit of `files` (`ulimit -n`),
/// when given.
pub fn spawn_binary_with_files(
    app: &TestApp,
    env: &[(&str, String)],
    files: Option<u64>,
) -> (Binary, String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let data = std::env::temp_dir().join(format!("posthorn-binary-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&data).unwrap();
    let binary = env!("CARGO_BIN_EXE_posthorn");
    let mut command = match files {
        Some(files) => {
            let mut shell = std::process::Command::new("sh");
            shell.args(["-c", &format!("ulimit -n {files} && exec \"$0\""), binary]);
            shell
        }
        None => std::process::Command::new(binary),
    };
    command
        .env("DATABASE_URL", app.database_url())
        .env("POSTHORN_BIND", format!("127.0.0.1:{port}"))
        // Links the same from one run to the next.
        .env("POSTHORN_PUBLIC_URL", "https://posthorn.test")
        .env("POSTHORN_DATA_DIR", data)
        .env(
            "POSTHORN_JWT_SECRET",
            "a test secret that is long enough for HS256",
        )
        .env("POSTHORN_SWEEP_INTERVAL_SECONDS", "1")
        .env("RUST_LOG", "error")
        .stdout(std::process::Stdio::null());
    for (name, value) in env {
        command.env(name, value);
    }
    (
        Binary(command.spawn().unwrap()),
        format!("127.0.0.1:{port}"),
    )
}
