//! Posthorn, the correspondence-play service (docs/design.md §3).

pub mod accounts;
pub mod auth;
pub mod cause;
pub mod clock;
pub mod closed;
pub mod coins;
pub mod computer;
pub mod config;
pub mod db;
pub mod deletion;
pub mod dice;
pub mod enforced;
pub mod error;
pub mod export;
pub mod friends;
pub mod http;
pub mod idempotency;
pub mod ink;
pub mod job_queue;
pub mod jobs;
pub mod leaving;
pub mod lessons;
pub mod limits;
pub mod live;
pub mod lobby;
pub mod localdb;
pub mod matches;
pub mod metrics;
pub mod moderation;
pub mod names;
pub mod notices;
pub mod notify;
pub mod personal;
pub mod pictures;
pub mod players;
pub mod puzzles;
pub mod ratings;
pub mod revoked;
pub mod schema;
pub mod secrets;
pub mod sharing;
pub mod state;
pub mod stopping;
pub mod summary;
pub mod talk;
pub mod tournaments;
pub mod vacation;

use std::sync::Arc;

/// Build the shared state on a migrated database.
pub fn app_state(
    config: config::Config,
    database_url: &str,
    clock: Arc<dyn clock::Clock>,
) -> Result<state::AppState, String> {
    let pool = db::pool(database_url, config.pool_size)?;
    let replica = match &config.read_database_url {
        Some(url) => Some(db::replica_pool(url, config.pool_size)?),
        None => None,
    };
    let reads = db::replica::Reads::new(pool.clone(), replica, config.replica_max_lag_seconds);
    let mut conn = pool
        .get()
        .map_err(|e| format!("cannot connect to the database: {e}"))?;
    db::migrate(&mut conn)?;
    names::backfill_skeletons(&mut conn).map_err(|e| format!("start-up: {e}"))?;
    drop(conn);
    let secret = secrets::jwt_secret(&config)?;
    let mailer = notify::deliver::Mailer::from_config(&config)?;
    let vapid = notify::push::Vapid::from_config(&config)?;
    let native = notify::native::Native::from_config(&config)?;
    // What follows every append, in its transaction, in this order
    // (docs/architecture.md): the rating update and the coins before the
    // notices, whose "match finished" shows both.
    matches::reactions::install(|| {
        vec![
            Box::new(ratings::update::Rate),
            Box::new(coins::award::Pay),
            Box::new(notices::Tell),
            Box::new(computer::Reply),
            Box::new(tournaments::advance::Ended),
            Box::new(puzzles::mining::Queue),
        ]
    });
    Ok(state::AppState {
        reads,
        mailer: Arc::new(mailer),
        vapid: Arc::new(vapid),
        native: Arc::new(native),
        pool,
        keys: Arc::new(auth::Keys::new(&secret)?),
        clock,
        config: Arc::new(config.clone()),
        metrics: Arc::new(metrics::Metrics::default()),
        dice: Arc::new(dice::OsDice),
        revoked: Arc::new(revoked::Revoked::default()),
        identities: Arc::new(accounts::identities::verify::Verifier::new(
            config.sign_in.clone(),
        )),
        live: live::Live::start(database_url, live::Capacity::here(config.pool_size).streams),
        stopping: Arc::default(),
    })
}
