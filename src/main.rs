//! `posthorn`: with no arguments, serve (README lists the environment).
//! `posthorn moderator grant|revoke <username>` makes a player a moderator
//! of table talk, or no longer one (docs/decisions/table-talk.md, "Reports
//! and moderators"): the only way to, and kept in the audit log.
//! `posthorn puzzles import <file>` keeps the puzzles of a file the miner
//! wrote, as the sets shipped with the rules are kept at start-up (`cargo run --release -p posthorn-rules --example mine`, one JSON
//! line each; docs/puzzles.md).

use posthorn::{clock::SystemClock, config::Config, localdb::LocalPostgres};
use std::process::ExitCode;
use std::sync::Arc;

fn main() -> ExitCode {
    posthorn::cause::log_to_stderr();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let done = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        [] => serve(),
        ["moderator", verb @ ("grant" | "revoke"), username] => {
            moderator(verb == "grant", username)
        }
        ["puzzles", "import", file] => import_puzzles(file),
        _ => Err(
            "usage: posthorn [moderator grant|revoke <username> | puzzles import <file>]".into(),
        ),
    };
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            log::error!("{e}");
            eprintln!("posthorn: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A one-connection pool on `url`, its migrations run: a command's.
fn migrated(url: &str) -> Result<posthorn::db::Pool, String> {
    let pool = posthorn::db::pool(url, 1)?;
    let mut conn = pool
        .get()
        .map_err(|e| format!("cannot connect to the database: {e}"))?;
    posthorn::db::migrate(&mut conn)?;
    Ok(pool)
}

/// Grant or revoke the moderator role, on the database the service uses.
fn moderator(on: bool, username: &str) -> Result<(), String> {
    let config = Config::from_env()?;
    with_database(&config, true, |url| {
        let pool = migrated(url)?;
        let now = chrono::Utc::now();
        posthorn::db::transaction(&pool, |c| posthorn::moderation::grant(c, username, on, now))
            .map_err(|e| e.to_string())?;
        let done = if on {
            "is now a moderator"
        } else {
            "is no longer a moderator"
        };
        println!("{username} {done}");
        Ok(())
    })
}

/// Keep every puzzle of `file` (the miner's JSON lines), each once.
fn import_puzzles(file: &str) -> Result<(), String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
    let config = Config::from_env()?;
    with_database(&config, true, |url| {
        let pool = migrated(url)?;
        let mut conn = pool
            .get()
            .map_err(|e| format!("cannot connect to the database: {e}"))?;
        let now = chrono::Utc::now();
        let added = posthorn::puzzles::shipped::keep_lines(&mut conn, &text, now)
            .map_err(|e| format!("{file}: {e}"))?;
        println!("{added} new puzzles of {}", text.lines().count());
        Ok(())
    })
}

fn serve() -> Result<(), String> {
    let config = Config::from_env()?;
    with_database(&config.clone(), false, |url| run_server(config, url))
}

/// Run `work` on the configured database, or (with no DATABASE_URL) on a
/// private PostgreSQL in the data folder, started around it and stopped
/// after it — by a command (`owned_only`) only if it started it, since a
/// cluster found running is a running service's.
fn with_database(
    config: &Config,
    owned_only: bool,
    work: impl FnOnce(&str) -> Result<(), String>,
) -> Result<(), String> {
    // No DATABASE_URL: run a private PostgreSQL in the data folder.
    let (url, local) = match &config.database_url {
        Some(url) => (url.clone(), None),
        None => {
            let pg = LocalPostgres::start(&config.data_dir.join("postgres"), "posthorn")?;
            (pg.url("posthorn"), Some(pg))
        }
    };
    let result = work(&url);
    if let Some(pg) = local.filter(|pg| !owned_only || pg.launched()) {
        log::info!("stopping the private PostgreSQL");
        pg.stop();
    }
    result
}

#[actix_web::main]
async fn run_server(config: Config, database_url: &str) -> Result<(), String> {
    let bind = config.bind.clone();
    let interval = std::time::Duration::from_secs(config.sweep_interval_seconds);
    let state = posthorn::app_state(config, database_url, Arc::new(SystemClock))?;
    keep_shipped_puzzles(&state)?;
    let _sweeper = posthorn::jobs::start(state.clone(), interval).await?;
    log::info!("serving on http://{bind}; deadlines swept every {interval:?}");
    let listener =
        std::net::TcpListener::bind(&bind).map_err(|e| format!("cannot listen on {bind}: {e}"))?;
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    // Signals are this binary's (stop_on_signal), not actix's, listened
    // for before the first connection is taken.
    use actix_rt::signal::unix::{signal, SignalKind};
    let term = signal(SignalKind::terminate()).map_err(|e| format!("SIGTERM: {e}"))?;
    let interrupt = signal(SignalKind::interrupt()).map_err(|e| format!("SIGINT: {e}"))?;
    let server = posthorn::http::edge::serve(state.clone(), listener, workers, false)
        .map_err(|e| format!("cannot serve on {bind}: {e}"))?;
    actix_rt::spawn(stop_on_signal(state, server.handle(), [term, interrupt]));
    server.await.map_err(|e| e.to_string())
}

/// The puzzle sets shipped with the rules, kept before the first request
/// (docs/puzzles.md, "Shipped sets"): a fresh install has its daily
/// puzzles at once. Run by the server, not by `app_state`, so the tests'
/// databases start with no puzzles but their own.
fn keep_shipped_puzzles(state: &posthorn::state::AppState) -> Result<(), String> {
    let started = std::time::Instant::now();
    let mut conn =
        (state.pool.get()).map_err(|e| format!("cannot connect to the database: {e}"))?;
    let added = posthorn::puzzles::shipped::keep(&mut conn, state.clock.now())
        .map_err(|e| format!("start-up: {e}"))?;
    log::info!(
        "shipped puzzles: {added} new, in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Stopping (`posthorn::stopping`; docs/operations.md, "Stopping and
/// rolling restarts"): on SIGTERM or SIGINT, say not ready, stop claiming
/// jobs, end the live streams and hand back the jobs held, while serving on
/// for the drain; then stop listening, let the requests in flight finish
/// within the shutdown bound, and return (`run_server` then exits). Work
/// still running past drain + shutdown + [`LAST_GRACE`] (a blocking task
/// the runtime would wait for without end: a search, a batch on a hung
/// connection) is cut by exiting.
async fn stop_on_signal(
    state: posthorn::state::AppState,
    server: actix_server::ServerHandle,
    [mut term, mut interrupt]: [actix_rt::signal::unix::Signal; 2],
) {
    tokio::select! {
        _ = term.recv() => {}
        _ = interrupt.recv() => {}
    }
    let drain = std::time::Duration::from_secs(state.config.drain_seconds);
    let bound = drain + std::time::Duration::from_secs(state.config.shutdown_seconds) + LAST_GRACE;
    std::thread::spawn(move || {
        std::thread::sleep(bound);
        log::error!("stopping: still running {bound:?} after the signal; exiting");
        std::process::exit(1);
    });
    log::info!("stopping: not ready, serving on for {drain:?}");
    let (stopping, live, pool) = (
        state.stopping.clone(),
        state.live.clone(),
        state.pool.clone(),
    );
    let now = chrono::Utc::now();
    let handing = actix_web::web::block(move || stopping.begin(&live, &pool, now));
    let (handed, ()) = tokio::join!(handing, actix_rt::time::sleep(drain));
    match handed {
        Ok(Ok(jobs)) => log::info!("stopping: {jobs} jobs handed back"),
        Ok(Err(e)) => {
            log::warn!("stopping: the jobs held could not be handed back yet: {e}");
            let (stopping, pool) = (state.stopping.clone(), state.pool.clone());
            let again =
                actix_web::web::block(move || stopping.release_again(&pool, chrono::Utc::now()));
            match again.await {
                Ok(Ok(jobs)) => log::info!("stopping: {jobs} jobs handed back"),
                Ok(Err(e)) => log::warn!("stopping: the jobs held are left to their lease: {e}"),
                Err(e) => log::warn!("stopping: {e}"),
            }
        }
        Err(e) => log::warn!("stopping: {e}"),
    }
    log::info!("stopping: no new connections; finishing the requests in flight");
    server.stop(true).await;
}

/// Beyond the drain and the shutdown bound, before the process exits
/// whatever is still running.
const LAST_GRACE: std::time::Duration = std::time::Duration::from_secs(5);
