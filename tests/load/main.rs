//! Load: many concurrent checkers matches driven through the HTTP API, next
//! to `pgbench -N` at the same client count on the same PostgreSQL.
//!
//! `cargo bench --bench load`. Environment: `LOAD_CLIENTS` (default 32),
//! `LOAD_ROUNDS` (5) of `LOAD_SECONDS` (10) each for the service and then
//! for `pgbench -N`, `LOAD_POOL` (the service's default pool size), and
//! `POSTHORN_TEST_DATABASE_URL` to use a given server (else the private
//! cluster under `target/`, default durability: fsync and synchronous
//! commit on). Each client plays its own match: it works out a legal move
//! from the position in the last answer, posts it, and starts a new match
//! when one ends. `LOAD_GAME=flipchess` or `four_player_chess` plays those
//! games instead, each action picked from a legal-actions read. Reported per round: actions/s (posts answered 200), p50
//! and p99 of the posts, pgbench's tps and the ratio; then the whole.
//!
//! The manual clock moves a millisecond per action, so each move sets new
//! deadlines, as it does in play. `LOAD_TARGET=ceiling` posts `pgbench
//! -N`'s own transaction instead (see `ceiling.rs`): the most any action
//! could reach through this stack on this machine; `LOAD_TARGET=both`
//! measures actions and the ceiling in every round. Each target's line also
//! splits this process's CPU per post by thread role (`threads.rs`).

#[path = "../service/support.rs"]
#[allow(dead_code)]
mod support;

mod ceiling;
mod threads;
mod wire;

use posthorn::config::Config;
use posthorn_rules::checkers::Position;
use posthorn_rules::{Random, SplitMix64};
use serde::Deserialize;
use serde_json::{json, Value};
use std::process::Command;
use std::rc::Rc;
use std::time::{Duration, Instant};
use support::TestApp;
use wire::Wire;

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[derive(Default)]
struct Tally {
    latencies: Vec<Duration>,
    errors: u64,
    matches: u64,
}

/// The game the clients play: `LOAD_GAME` (`checkers`, the default;
/// `flipchess`; `four_player_chess`, free-for-all).
#[derive(Clone, Copy, PartialEq)]
enum Game {
    Checkers,
    FlipChess,
    FourPlayer,
}

impl Game {
    fn from_env() -> Game {
        match std::env::var("LOAD_GAME").as_deref() {
            Ok("flipchess") => Game::FlipChess,
            Ok("four_player_chess") => Game::FourPlayer,
            _ => Game::Checkers,
        }
    }

    fn players(self) -> usize {
        if self == Game::FourPlayer {
            4
        } else {
            2
        }
    }

    fn name(self) -> &'static str {
        match self {
            Game::Checkers => "checkers actions",
            Game::FlipChess => "FlipChess actions, each after its legal-actions read",
            Game::FourPlayer => {
                "four-player chess (free-for-all) actions, each after its legal-actions read"
            }
        }
    }

    fn new_match(self, client: usize) -> Value {
        let opponents: Vec<String> = (1..self.players()).map(|p| username(client, p)).collect();
        match self {
            Game::Checkers => json!({"game": "checkers", "opponents": opponents}),
            Game::FlipChess => json!({"game": "flipchess", "opponents": opponents}),
            Game::FourPlayer => {
                json!({"game": "four_player_chess", "mode": "ffa", "opponents": opponents})
            }
        }
    }
}

fn username(client: usize, player: usize) -> String {
    format!("load{client}{}", (b'a' + player as u8) as char)
}

async fn new_match(app: &TestApp, game: Game, tokens: &[String], client: usize) -> Value {
    let reply = app
        .post("/v1/matches", &tokens[0], game.new_match(client))
        .await;
    assert_eq!(reply.status, 201, "{}", reply.body);
    reply.body
}

/// The players and their first match; made before the clock starts, so the
/// password hashing of sign-up is not counted.
async fn seat_players(app: Rc<TestApp>, game: Game, client: usize) -> (Vec<String>, Value) {
    let mut tokens = Vec::new();
    for player in 0..game.players() {
        tokens.push(app.register(&username(client, player)).await);
    }
    let m = new_match(&app, game, &tokens, client).await;
    (tokens, m)
}

/// Which of `tokens` holds each seat of `table`.
fn seat_holders(table: &Value, client: usize) -> Vec<usize> {
    table["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let name = s["user"]["username"].as_str().unwrap();
            (0..4)
                .find(|p| username(client, *p) == name)
                .expect("a seat of this client's players")
        })
        .collect()
}

/// The few fields of an action's answer the client needs.
#[derive(Deserialize)]
struct Answer {
    #[serde(rename = "match")]
    table: Lite,
}

#[derive(Deserialize)]
struct Lite {
    seq: i64,
    status: String,
    to_act: Vec<LiteDuty>,
    view: LiteView,
}

#[derive(Deserialize)]
struct LiteDuty {
    seat: u8,
}

#[derive(Deserialize)]
struct LiteView {
    /// Checkers: the FEN its client plays from.
    #[serde(default)]
    position: Value,
}

/// One client's players and the match they are in, kept across rounds.
struct Client {
    index: usize,
    tokens: Vec<String>,
    /// The index in `tokens` of each seat's holder.
    holders: Vec<usize>,
    table: Value,
    lite: Lite,
    random: SplitMix64,
}

impl Client {
    fn new(index: usize, tokens: Vec<String>, table: Value) -> Client {
        Client {
            index,
            holders: seat_holders(&table, index),
            tokens,
            lite: serde_json::from_value(table.clone()).unwrap(),
            table,
            random: SplitMix64::new(index as u64),
        }
    }

    /// Leave the match for a new one of `game`.
    async fn next_match(&mut self, app: &TestApp, game: Game, tally: &mut Tally) {
        self.table = new_match(app, game, &self.tokens, self.index).await;
        self.lite = serde_json::from_value(self.table.clone()).unwrap();
        self.holders = seat_holders(&self.table, self.index);
        tally.matches += 1;
    }
}

async fn client_loop(app: Rc<TestApp>, mut c: Client, until: Instant) -> (Client, Tally) {
    let mut wire = Wire::open(app.base.trim_start_matches("http://")).await;
    let mut tally = Tally::default();
    while Instant::now() < until {
        if c.lite.status == "finished" {
            c.next_match(&app, Game::Checkers, &mut tally).await;
        }
        // As a phone would: the legal moves come from the rules crate, run
        // on the position in the last answer; only the action is posted.
        let mover = c.holders[c.lite.to_act[0].seat as usize];
        let position = Position::from_fen(c.lite.view.position.as_str().unwrap()).unwrap();
        let mut moves = Vec::new();
        position.legal_moves(&mut moves);
        let pick = moves[c.random.below(moves.len() as u64) as usize].to_string();
        let path = format!("/v1/matches/{}/actions", c.table["id"].as_str().unwrap());
        let body = json!({"seq": c.lite.seq, "action": {"type": "move", "move": pick}});
        let body = serde_json::to_vec(&body).unwrap();
        app.clock.advance(chrono::Duration::milliseconds(1));
        let started = Instant::now();
        let (status, bytes) = wire.post(&path, &c.tokens[mover], &body).await;
        tally.latencies.push(started.elapsed());
        settle(&app, &mut c, &mut tally, status, &bytes).await;
    }
    (c, tally)
}

/// Take a post's answer: the match it returns, or, after an error (which
/// is counted), the match as it now stands.
async fn settle(app: &TestApp, c: &mut Client, tally: &mut Tally, status: u16, bytes: &[u8]) {
    if status == 200 {
        c.lite = serde_json::from_slice::<Answer>(bytes).unwrap().table;
        return;
    }
    tally.errors += 1;
    let path = format!("/v1/matches/{}", c.table["id"].as_str().unwrap());
    let fresh = app.get(&path, &c.tokens[0]).await.body;
    c.lite = serde_json::from_value(fresh).unwrap();
}

/// The legal actions of one seat, as `GET …/legal-actions` lists them.
#[derive(Deserialize)]
struct Listed {
    seq: i64,
    seats: Vec<ListedSeat>,
}

#[derive(Deserialize)]
struct ListedSeat {
    seat: u8,
    actions: Vec<Value>,
}

/// FlipChess and four-player chess: the client has no position to work
/// moves out from (FlipChess hides the hand and the deck), so, as the web
/// client does, it reads each seat's legal actions and posts one of them at
/// random (never a resignation or a grant of time). Only the posts are
/// timed; the reads are counted in the CPU per action. A match with no one
/// to act (it cannot happen while the clock stands nearly still) is left
/// for a new one.
async fn listed_loop(
    app: Rc<TestApp>,
    game: Game,
    mut c: Client,
    until: Instant,
) -> (Client, Tally) {
    let mut wire = Wire::open(app.base.trim_start_matches("http://")).await;
    let mut tally = Tally::default();
    while Instant::now() < until {
        let id = c.table["id"].as_str().unwrap().to_owned();
        let mut options = Vec::new();
        let mut owing: Vec<u8> = c.lite.to_act.iter().map(|d| d.seat).collect();
        owing.dedup();
        for seat in owing {
            let holder = c.holders[seat as usize];
            let (status, bytes) = wire
                .get(
                    &format!("/v1/matches/{id}/legal-actions"),
                    &c.tokens[holder],
                )
                .await;
            assert_eq!(status, 200, "{}", String::from_utf8_lossy(&bytes));
            let listed: Listed = serde_json::from_slice(&bytes).unwrap();
            for listed_seat in listed.seats.into_iter().filter(|s| s.seat == seat) {
                for action in listed_seat.actions {
                    if !matches!(action["type"].as_str(), Some("resign" | "grant_time")) {
                        options.push((holder, seat, listed.seq, action));
                    }
                }
            }
        }
        if c.lite.status == "finished" || options.is_empty() {
            c.next_match(&app, game, &mut tally).await;
            continue;
        }
        let (holder, seat, seq, action) =
            options.swap_remove(c.random.below(options.len() as u64) as usize);
        let body =
            serde_json::to_vec(&json!({"seq": seq, "seat": seat, "action": action})).unwrap();
        app.clock.advance(chrono::Duration::milliseconds(1));
        let started = Instant::now();
        let (status, bytes) = wire
            .post(
                &format!("/v1/matches/{id}/actions"),
                &c.tokens[holder],
                &body,
            )
            .await;
        tally.latencies.push(started.elapsed());
        settle(&app, &mut c, &mut tally, status, &bytes).await;
    }
    (c, tally)
}

/// Post `pgbench -N`'s transaction to the ceiling server until `until`.
async fn ceiling_loop(addr: String, mut c: Client, until: Instant) -> (Client, Tally) {
    let mut wire = Wire::open(&addr).await;
    let mut tally = Tally::default();
    while Instant::now() < until {
        // pgbench -s 10: 1,000,000 accounts, 10 branches, 100 tellers.
        let body = json!({
            "aid": 1 + c.random.below(1_000_000),
            "bid": 1 + c.random.below(10),
            "tid": 1 + c.random.below(100),
            "delta": c.random.below(10_001) as i64 - 5000,
        });
        let started = Instant::now();
        let (status, _) = wire
            .post("/transfer", "-", &serde_json::to_vec(&body).unwrap())
            .await;
        tally.latencies.push(started.elapsed());
        tally.errors += u64::from(status != 200);
    }
    (c, tally)
}

/// `pgbench`, from the newest PostgreSQL installed.
fn pgbench_bin() -> Option<std::path::PathBuf> {
    let mut found: Vec<_> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.path().join("bin/pgbench"))
        .filter(|p| p.exists())
        .collect();
    found.sort();
    found.pop()
}

/// `pgbench -N` at `clients` for `seconds`: its transactions per second
/// and how many it made.
fn pgbench(bin: &std::path::Path, url: &str, clients: u64, seconds: u64) -> Option<(f64, f64)> {
    let (c, t) = (clients.to_string(), seconds.to_string());
    let out = Command::new(bin)
        .args(["-N", "-c", &c, "-j", "2", "-T", &t, url])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let number_after = |prefix: &str| -> Option<f64> {
        let line = text.lines().find(|l| l.starts_with(prefix))?;
        line[prefix.len()..].split([' ', '/']).next()?.parse().ok()
    };
    Some((
        number_after("tps = ")?,
        number_after("number of transactions actually processed: ")?,
    ))
}

/// A process's command name and CPU seconds from its `/proc/…/stat`: its
/// own (user + system) and its reaped children's (clock ticks of 1/100 s,
/// Linux's USER_HZ).
fn cpu_of(stat: &str) -> Option<(&str, f64, f64)> {
    let (head, rest) = stat.rsplit_once(") ")?;
    let (_, comm) = head.split_once(" (")?;
    // After "pid (comm) ": utime, stime, cutime, cstime are the 12th to
    // 15th fields.
    let fields: Vec<u64> = rest
        .split_whitespace()
        .skip(11)
        .take(4)
        .map(|f| f.parse().ok())
        .collect::<Option<_>>()?;
    let seconds = |a: u64, b: u64| (a + b) as f64 / 100.0;
    let (own, children) = (seconds(fields[0], fields[1]), seconds(fields[2], fields[3]));
    Some((comm, own, children))
}

/// CPU seconds used so far by every `postgres` process on this machine,
/// the live ones and those their postmaster already reaped. For a
/// benchmark on a machine running one cluster; elsewhere `None` or a sum
/// over clusters.
fn postgres_cpu_seconds() -> Option<f64> {
    let mut seconds = 0.0;
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        if let Some(("postgres", own, children)) = cpu_of(&stat) {
            seconds += own + children;
        }
    }
    Some(seconds)
}

/// CPU seconds used so far by this process (the service and the load
/// client: `.0`) and by its reaped children (pgbench: `.1`).
fn own_cpu_seconds() -> Option<(f64, f64)> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    cpu_of(&stat).map(|(_, own, children)| (own, children))
}

/// Milliseconds of CPU per unit of work between two readings.
fn cpu_ms_per(before: Option<f64>, after: Option<f64>, units: f64) -> String {
    match (before, after) {
        (Some(b), Some(a)) if units > 0.0 => format!("{:.2} ms", (a - b) * 1e3 / units),
        _ => "n/a".into(),
    }
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 * p) as usize).min(sorted.len() - 1);
    sorted[i].as_secs_f64() * 1e3
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    values[values.len() / 2]
}

/// What the clients post in a round.
#[derive(Clone, Copy, PartialEq)]
enum Target {
    Actions(Game),
    Ceiling,
}

impl Target {
    fn name(self) -> &'static str {
        match self {
            Target::Actions(game) => game.name(),
            Target::Ceiling => "the ceiling (pgbench -N's transaction over HTTP)",
        }
    }

    /// The short name the report lines use.
    fn label(self) -> &'static str {
        match self {
            Target::Actions(_) => "actions",
            Target::Ceiling => "ceiling",
        }
    }
}

/// One target's share of a round.
struct Measured {
    rate: f64,
    latencies: Vec<Duration>,
    line: String,
}

/// Every client posts `target` for `seconds`; the rate, latencies and a
/// report line with the CPU spent per post (PostgreSQL, this process, and
/// this process by thread role).
async fn measure(
    app: &Rc<TestApp>,
    ceiling: &Option<String>,
    target: Target,
    players: &mut Vec<Client>,
    seconds: u64,
    tally: &mut Tally,
) -> Measured {
    let (cpu_before, own_before, threads_before) =
        (postgres_cpu_seconds(), own_cpu_seconds(), threads::sample());
    let started = Instant::now();
    let until = started + Duration::from_secs(seconds);
    let tasks = std::mem::take(players)
        .into_iter()
        .map(|c| match (target, ceiling) {
            (Target::Ceiling, addr) => {
                let addr = addr.clone().expect("the ceiling server runs");
                actix_rt::spawn(ceiling_loop(addr, c, until))
            }
            (Target::Actions(Game::Checkers), _) => {
                actix_rt::spawn(client_loop(app.clone(), c, until))
            }
            (Target::Actions(game), _) => actix_rt::spawn(listed_loop(app.clone(), game, c, until)),
        });
    let done: Vec<(Client, Tally)> = futures_util::future::join_all(tasks)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    let elapsed = started.elapsed().as_secs_f64();
    let mut latencies: Vec<Duration> = done
        .iter()
        .flat_map(|(_, t)| t.latencies.iter().copied())
        .collect();
    latencies.sort();
    tally.errors += done.iter().map(|(_, t)| t.errors).sum::<u64>();
    tally.matches += done.iter().map(|(_, t)| t.matches).sum::<u64>();
    let units = latencies.len() as f64;
    let rate = units / elapsed;
    let line = format!(
        "{} {rate:.0}/s, p50 {:.1} ms, p99 {:.1} ms; CPU per post: PostgreSQL {}, service and client {} ({})",
        target.label(),
        percentile(&latencies, 0.50),
        percentile(&latencies, 0.99),
        cpu_ms_per(cpu_before, postgres_cpu_seconds(), units),
        cpu_ms_per(own_before.map(|c| c.0), own_cpu_seconds().map(|c| c.0), units),
        threads::per_unit(&threads_before, &threads::sample(), units),
    );
    *players = done.into_iter().map(|(c, _)| c).collect();
    Measured {
        rate,
        latencies,
        line,
    }
}

/// Rounds of the service's load and of `pgbench -N`, alternating, so a
/// noisy neighbour on a shared machine weighs on all alike; the ratios of
/// each round and their medians are reported. `LOAD_TARGET`: `actions`
/// (default), `ceiling`, or `both` (actions, then the ceiling, then pgbench
/// in every round: the ratio the performance bar is set on).
fn main() {
    let clients = env_number("LOAD_CLIENTS", 32);
    let seconds = env_number("LOAD_SECONDS", 10);
    let rounds = env_number("LOAD_ROUNDS", 5).max(1);
    let pool = env_number("LOAD_POOL", Config::default().pool_size as u64) as u32;
    let game = Game::from_env();
    let targets = match std::env::var("LOAD_TARGET").as_deref() {
        Ok("ceiling") => vec![Target::Ceiling],
        Ok("both") => vec![Target::Actions(game), Target::Ceiling],
        _ => vec![Target::Actions(game)],
    };
    actix_rt::System::new().block_on(async move {
        let config = Config {
            pool_size: pool,
            ..Default::default()
        };
        let app = Rc::new(TestApp::start_with(config).await);
        // pgbench's tables live beside the service's, in its database.
        let bench_db = app.database_url();
        let bin = pgbench_bin();
        if let Some(bin) = &bin {
            let init = Command::new(bin).args(["-i", "-q", "-s", "10", &bench_db]).output();
            assert!(init.is_ok_and(|o| o.status.success()), "pgbench -i failed");
        }
        let setups = (0..clients as usize).map(|c| actix_rt::spawn(seat_players(app.clone(), game, c)));
        let mut players: Vec<Client> = futures_util::future::join_all(setups)
            .await
            .into_iter()
            .enumerate()
            .map(|(index, seated)| {
                let (tokens, table) = seated.unwrap();
                Client::new(index, tokens, table)
            })
            .collect();
        let ceiling = targets.contains(&Target::Ceiling).then(|| ceiling::serve(app.state.pool.clone()));
        let names: Vec<&str> = targets.iter().map(|t| t.name()).collect();
        println!("{clients} clients, pool {pool}, {rounds} rounds of {seconds} s each: {}", names.join(", then "));
        let mut tally = Tally::default();
        let (mut all, mut to_pgbench, mut to_ceiling) = (Vec::new(), Vec::new(), Vec::new());
        for round in 1..=rounds {
            let mut lines = Vec::new();
            let mut rates = Vec::new();
            for &target in &targets {
                let measured = measure(&app, &ceiling, target, &mut players, seconds, &mut tally).await;
                lines.push(measured.line);
                rates.push(measured.rate);
                // The summary's latencies are the first target's (the
                // actions, when both are measured).
                if target == targets[0] {
                    all.extend(measured.latencies);
                }
            }
            let (pg_before, own_before) = (postgres_cpu_seconds(), own_cpu_seconds());
            // Off the client's thread, so its idle connections stay served.
            let (b, db) = (bin.clone(), bench_db.clone());
            let tps = actix_web::web::block(move || b.and_then(|b| pgbench(&b, &db, clients, seconds)))
                .await
                .unwrap();
            let transactions = tps.map_or(0.0, |t| t.1);
            let pgbench_line = match tps {
                Some((tps, _)) => {
                    to_pgbench.push(rates[0] / tps);
                    format!(
                        "pgbench -N {tps:.0} tps, CPU per transaction: PostgreSQL {}, pgbench {}",
                        cpu_ms_per(pg_before, postgres_cpu_seconds(), transactions),
                        cpu_ms_per(own_before.map(|c| c.1), own_cpu_seconds().map(|c| c.1), transactions),
                    )
                }
                None => "pgbench not found (install postgresql-contrib)".into(),
            };
            let mut ratios = format!("{} to pgbench -N {:.2}", targets[0].label(), to_pgbench.last().copied().unwrap_or(f64::NAN));
            if rates.len() == 2 {
                to_ceiling.push(rates[0] / rates[1]);
                ratios.push_str(&format!(", actions to ceiling {:.2}", rates[0] / rates[1]));
            }
            println!("round {round}: {ratios}");
            for line in lines {
                println!("  {line}");
            }
            println!("  {pgbench_line}");
        }
        all.sort();
        let median_of = |ratios: Vec<f64>| if ratios.is_empty() { "n/a".to_string() } else { format!("{:.2}", median(ratios)) };
        let mut summary = format!(
            "all rounds: {} posts, p50 {:.1} ms, p99 {:.1} ms, {} errors, {} new matches; median ratio to pgbench -N {}",
            all.len(),
            percentile(&all, 0.50),
            percentile(&all, 0.99),
            tally.errors,
            tally.matches,
            median_of(to_pgbench),
        );
        if !to_ceiling.is_empty() {
            summary.push_str(&format!(", of actions to the ceiling {}", median_of(to_ceiling)));
        }
        println!("{summary}");
        drop(players);
        Rc::try_unwrap(app).ok().expect("clients are done").stop().await;
    });
}
