//! Reads from a replica (docs/scaling.md): the read-heavy paths that may lag a
//! little (leaderboards, profiles, head-to-head, replays) go to
//! `POSTHORN_READ_DATABASE_URL` when it is set; everything else, and every
//! read that must see the caller's own latest write (their match after an
//! action, legal actions, my matches), stays on the primary. A replica that
//! is down, or lags more than `POSTHORN_REPLICA_MAX_LAG_SECONDS` (default
//! 10), is passed over for the primary until it is back (judged at most
//! once a second).

use super::{read, Pool};
use crate::error::Error;
use diesel::prelude::*;
use diesel::sql_types::{Bool, Double, Nullable};
use diesel::PgConnection;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

/// Reads a replica answered, and reads it passed to the primary.
pub static REPLICA_READS: AtomicU64 = AtomicU64::new(0);
pub static REPLICA_FALLBACKS: AtomicU64 = AtomicU64::new(0);
/// Times the primary answering was found to be another server than
/// before (a failover, or a restart): its postmaster started at another
/// time.
pub static FAILOVERS_NOTICED: AtomicU64 = AtomicU64::new(0);
static PRIMARY_STARTED: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// Note which server answers as the primary (the sweep asks every tick).
pub fn notice_primary(conn: &mut PgConnection) -> Result<(), Error> {
    #[derive(QueryableByName)]
    struct Started {
        #[diesel(sql_type = diesel::sql_types::Text)]
        started: String,
    }
    let now: Started =
        diesel::sql_query("SELECT pg_postmaster_start_time()::text AS started").get_result(conn)?;
    let mut seen = PRIMARY_STARTED.lock().unwrap_or_else(|p| p.into_inner());
    if seen.as_ref().is_some_and(|before| *before != now.started) {
        FAILOVERS_NOTICED.fetch_add(1, Relaxed);
        log::warn!(
            "the primary is another server now (started {})",
            now.started
        );
    }
    *seen = Some(now.started);
    Ok(())
}

/// The primary, and the replica if one is configured.
#[derive(Clone)]
pub struct Reads {
    pub primary: Pool,
    replica: Option<Arc<Replica>>,
}

struct Replica {
    pool: Pool,
    max_lag_seconds: f64,
    /// Whether it was fit to read at `judged_at` (unix ms).
    fit: AtomicBool,
    judged_at: AtomicI64,
}

/// Where a server stands: primary or replica, and how far a replica's
/// replay lags what it has received (0 when it has caught up).
#[derive(Debug, QueryableByName)]
pub struct Standing {
    #[diesel(sql_type = Bool)]
    pub in_recovery: bool,
    #[diesel(sql_type = Nullable<Double>)]
    pub lag_seconds: Option<f64>,
}

/// The question every server answers alike: a primary says it is not in
/// recovery, a standby how old its last replayed transaction is unless it
/// is streaming and has replayed all it received (an idle primary sends
/// nothing, and a caught-up standby is not late; one whose WAL receiver is
/// gone may be, however long ago it caught up).
pub fn standing(conn: &mut PgConnection) -> Result<Standing, Error> {
    Ok(diesel::sql_query(
        "SELECT pg_is_in_recovery() AS in_recovery, \
         CASE WHEN NOT pg_is_in_recovery() THEN 0.0 \
              WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() \
                AND EXISTS (SELECT 1 FROM pg_stat_wal_receiver WHERE status = 'streaming') THEN 0.0 \
              ELSE extract(epoch FROM now() - pg_last_xact_replay_timestamp())::float8 END \
         AS lag_seconds",
    )
    .get_result(conn)?)
}

impl Reads {
    pub fn new(primary: Pool, replica: Option<Pool>, max_lag_seconds: f64) -> Reads {
        let replica = replica.map(|pool| {
            Arc::new(Replica {
                pool,
                max_lag_seconds,
                fit: AtomicBool::new(true),
                judged_at: AtomicI64::new(0),
            })
        });
        Reads { primary, replica }
    }

    pub fn replica(&self) -> Option<&Pool> {
        self.replica.as_ref().map(|r| &r.pool)
    }

    /// Run the read `work` on the replica when it is fit, else (or when it
    /// fails to answer, or answers "not found" or "out of range", which a
    /// lagging replica may for what is new) on the primary.
    pub async fn read<T, F>(&self, work: F) -> Result<T, Error>
    where
        T: Send + 'static,
        F: Fn(&mut PgConnection) -> Result<T, Error> + Send + Sync + Clone + 'static,
    {
        if let Some(replica) = &self.replica {
            if replica.fit().await {
                match read(&replica.pool, work.clone()).await {
                    Ok(found) => {
                        REPLICA_READS.fetch_add(1, Relaxed);
                        return Ok(found);
                    }
                    Err(Error::Transient(_) | Error::Unavailable(_)) => {
                        replica.fit.store(false, Relaxed);
                    }
                    // Not there yet (a match or a seq newer than the
                    // replica has): the primary answers for sure.
                    Err(Error::NotFound(_) | Error::Validation(_)) => {}
                    Err(other) => return Err(other),
                }
            }
            REPLICA_FALLBACKS.fetch_add(1, Relaxed);
        }
        read(&self.primary, work).await
    }
}

impl Replica {
    /// Whether it may be read now: up, and not lagging past the bound;
    /// asked again at most once a second.
    async fn fit(&self) -> bool {
        let now = chrono::Utc::now().timestamp_millis();
        if now - self.judged_at.load(Relaxed) < 1000 {
            return self.fit.load(Relaxed);
        }
        self.judged_at.store(now, Relaxed);
        let bound = self.max_lag_seconds;
        let fit = read(&self.pool, standing)
            .await
            .is_ok_and(|s| s.lag_seconds.unwrap_or(f64::MAX) <= bound);
        self.fit.store(fit, Relaxed);
        fit
    }
}
