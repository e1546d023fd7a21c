//! The PostgreSQL pool, migrations, and the two ways handlers touch the
//! database, both a closure run off the async executor on the database
//! threads (`lanes`): `run`, in one transaction, for every use case that
//! writes; `read`, without one, for the reads that need none.

use crate::error::{is_transient, Error};
use diesel::connection::SimpleConnection;
use diesel::connection::{AnsiTransactionManager, TransactionManager};
use diesel::pg::PgConnection;
use diesel::r2d2::{ConnectionManager, CustomizeConnection, Pool as R2d2Pool, PooledConnection};
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;

mod lanes;
pub mod replica;

/// Connections found dead at BEGIN and replaced (docs/failover.md: a
/// restart or a failover of the database).
pub static RECONNECTS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// How long a request waits for a connection before it is answered 503.
const WAIT: Duration = Duration::from_secs(3);

/// The connections, and a first-come-first-served queue in front of them
/// for request handlers: a handler hands its transaction to one of the
/// database threads (`lanes`) only once a connection is free for it, so a
/// burst parks futures, not threads contending for the pool's lock
/// (fairer, and a shorter tail).
#[derive(Clone)]
pub struct Pool {
    connections: R2d2Pool<ConnectionManager<PgConnection>>,
    queue: Arc<Semaphore>,
    lanes: Arc<lanes::Lanes>,
}

impl Pool {
    /// A connection, waiting at most a few seconds (blocking).
    pub fn get(
        &self,
    ) -> Result<PooledConnection<ConnectionManager<PgConnection>>, diesel::r2d2::PoolError> {
        self.connections.get()
    }

    pub fn state(&self) -> diesel::r2d2::State {
        self.connections.state()
    }
}

pub const MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations");

/// A pool that waits a few seconds for a connection, then gives up (503).
pub fn pool(url: &str, size: u32) -> Result<Pool, String> {
    pool_of(url, size, true)
}

/// A pool for a replica (docs/operations.md, "The database: failover,
/// replicas, backups"): the service starts whether or not the replica
/// answers; reads go to the primary until it does.
pub fn replica_pool(url: &str, size: u32) -> Result<Pool, String> {
    pool_of(url, size, false)
}

fn pool_of(url: &str, size: u32, checked: bool) -> Result<Pool, String> {
    let builder = R2d2Pool::builder()
        .max_size(size)
        .min_idle(Some(1))
        .connection_timeout(WAIT)
        // A broken connection fails its query and is dropped; pinging on
        // every checkout would add a round trip to every request.
        .test_on_check_out(false)
        .connection_customizer(Box::new(GenericPlans));
    let manager = ConnectionManager::new(url);
    let connections = if checked {
        builder
            .build(manager)
            .map_err(|e| format!("cannot connect to the database: {e}"))?
    } else {
        builder.build_unchecked(manager)
    };
    let lanes = lanes::Lanes::start(size as usize)
        .map_err(|e| format!("cannot start the database threads: {e}"))?;
    Ok(Pool {
        connections,
        queue: Arc::new(Semaphore::new(size as usize)),
        lanes: Arc::new(lanes),
    })
}

/// Every statement the service prepares is a short OLTP query whose best
/// plan does not depend on its parameters; PostgreSQL's default would
/// still re-plan some of them on every call. The append (see
/// `matches::append`) binds its rows as arrays, which a generic plan
/// estimates at ten rows each: judged dearer than a fresh custom plan, it
/// was planned anew on every action, which took longer than running it.
#[derive(Debug)]
struct GenericPlans;

impl CustomizeConnection<PgConnection, diesel::r2d2::Error> for GenericPlans {
    fn on_acquire(&self, conn: &mut PgConnection) -> Result<(), diesel::r2d2::Error> {
        conn.batch_execute("SET plan_cache_mode = force_generic_plan")
            .map_err(diesel::r2d2::Error::QueryError)
    }
}

pub fn migrate(conn: &mut PgConnection) -> Result<(), String> {
    conn.run_pending_migrations(MIGRATIONS)
        .map(|_| ())
        .map_err(|e| format!("migrations failed: {e}"))
}

type Pooled = PooledConnection<ConnectionManager<PgConnection>>;

/// Make the pool drop this connection rather than hand it out again.
fn discard(conn: &mut Pooled) {
    AnsiTransactionManager::transaction_manager_status_mut(&mut **conn).set_in_error();
}

/// BEGIN on a pooled connection. One that died with its server (a
/// restart) fails here, before any work ran: it is dropped and a fresh one
/// tried, once — the transparent retry that is always safe.
fn begin(pool: &Pool) -> Result<Pooled, Error> {
    let mut pooled = pool.get()?;
    match AnsiTransactionManager::begin_transaction(&mut *pooled) {
        Ok(()) => return Ok(pooled),
        Err(e) if is_transient(&e) => {
            discard(&mut pooled);
            RECONNECTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        Err(e) => return Err(e.into()),
    }
    drop(pooled);
    let mut pooled = pool.get()?;
    if let Err(e) = AnsiTransactionManager::begin_transaction(&mut *pooled) {
        discard(&mut pooled);
        return Err(e.into());
    }
    Ok(pooled)
}

/// Run `work` in one transaction on a pooled connection, blocking: for the
/// sweep and the outbox worker, which already run off the executor. A
/// failure inside `work` is not retried here (it may not be safe to run
/// twice): it is answered 503 when passing, and a client's retry with its
/// `Idempotency-Key` is safe.
pub fn transaction<T, F>(pool: &Pool, work: F) -> Result<T, Error>
where
    F: FnOnce(&mut PgConnection) -> Result<T, Error>,
{
    let mut pooled = begin(pool)?;
    let result = work(&mut pooled);
    let ended = match &result {
        Ok(_) => AnsiTransactionManager::commit_transaction(&mut *pooled),
        Err(_) => AnsiTransactionManager::rollback_transaction(&mut *pooled),
    };
    // A passing failure (the server went away, or the connection is on a
    // standby): not handed out again, so the next one is made afresh and
    // libpq finds the writable server (docs/failover.md).
    if let Err(Error::Transient(_)) = &result {
        discard(&mut pooled);
    }
    if let Err(e) = ended {
        discard(&mut pooled);
        // A COMMIT that failed: the work's answer must not be given.
        if result.is_ok() {
            return Err(e.into());
        }
    }
    result
}

/// Run `work` in one transaction on a pooled connection, on one of the
/// database threads.
pub async fn run<T, F>(pool: &Pool, work: F) -> Result<T, Error>
where
    T: Send + 'static,
    F: FnOnce(&mut PgConnection) -> Result<T, Error> + Send + 'static,
{
    on_lane(pool, move |pool| transaction(pool, work)).await
}

/// Run the read `work` on a pooled connection, on one of the database
/// threads, without BEGIN and COMMIT: two round trips of a read's four.
/// Nothing is given up: under READ COMMITTED every statement takes its own
/// snapshot whether or not a transaction holds them, and the loaders make
/// their queries agree by the match row's seq (`Table::load`). A read that
/// must write (a closed short window, `play::load_current`) opens its own
/// transaction for it.
pub async fn read<T, F>(pool: &Pool, work: F) -> Result<T, Error>
where
    T: Send + 'static,
    F: FnOnce(&mut PgConnection) -> Result<T, Error> + Send + 'static,
{
    on_lane(pool, move |pool| {
        let mut pooled = pool.get()?;
        let result = work(&mut pooled);
        // A lost connection is not handed out again.
        if let Err(Error::Transient(_)) = &result {
            discard(&mut pooled);
        }
        result
    })
    .await
}

/// Hand `job` to the database threads once a connection is free for it.
async fn on_lane<T, J>(pool: &Pool, job: J) -> Result<T, Error>
where
    T: Send + 'static,
    J: FnOnce(&Pool) -> Result<T, Error> + Send + 'static,
{
    let _turn = tokio::time::timeout(WAIT, pool.queue.acquire())
        .await
        .map_err(|_| Error::busy())?
        .map_err(Error::internal)?;
    let (answer, answered) = tokio::sync::oneshot::channel();
    let on_lane = pool.clone();
    // The request's id, and its span, go with its work to the database
    // thread.
    let cause = crate::cause::current();
    let request = tracing::Span::current();
    pool.lanes.submit(move || {
        let started = std::time::Instant::now();
        let span = tracing::debug_span!(parent: &request, "db");
        let done = crate::cause::on_thread(cause, || {
            span.in_scope(|| {
                let done = job(&on_lane);
                tracing::debug!(
                    target: "posthorn::db",
                    millis = format_args!("{:.2}", started.elapsed().as_secs_f64() * 1e3),
                    "database work done"
                );
                done
            })
        });
        // The caller may have gone (a dropped request): the work is done
        // all the same (a write committed), as a client retry expects.
        let _ = answer.send(done);
    });
    answered
        .await
        .map_err(|_| Error::internal("a database thread failed (a panic) before answering"))?
}
