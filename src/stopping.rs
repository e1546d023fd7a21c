//! Stopping without a dropped request (docs/operations.md, "Stopping and
//! rolling restarts"). On SIGTERM or SIGINT the instance:
//! 1. says it is not ready (`/readyz` 503 `draining`), so the proxy's
//!    health check takes it out of rotation, and ends its live streams
//!    (the pages open them again, through the proxy, on another instance);
//! 2. hands back the jobs it holds and claims no more, so another
//!    instance takes them at its next tick, not after the lease;
//! 3. keeps serving for `POSTHORN_DRAIN_SECONDS` (the proxy's checks need
//!    that long to notice), then stops listening and finishes the requests
//!    in flight within `POSTHORN_SHUTDOWN_SECONDS`, and exits.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Whether this instance is stopping, and what it holds that another
/// instance should have at once.
#[derive(Default)]
pub struct Stopping {
    draining: AtomicBool,
    /// The one-off jobs claimed here (`job_queue::Held`).
    pub jobs: Arc<crate::job_queue::Held>,
}

impl Stopping {
    pub fn draining(&self) -> bool {
        self.draining.load(Ordering::Acquire)
    }

    /// Steps 1 and 2: not ready, live streams ended, jobs handed back.
    /// Blocking (a database write); returns the jobs handed back.
    pub fn begin(
        &self,
        live: &crate::live::Live,
        pool: &crate::db::Pool,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<usize, crate::error::Error> {
        // First what needs no database: a database that does not answer
        // must not keep the runner claiming or the page streaming.
        self.jobs.stop_claiming();
        self.draining.store(true, Ordering::Release);
        live.close();
        let mut conn = pool.get()?;
        self.jobs.release(&mut conn, now)
    }

    /// What `begin` could not hand back (the database away then), tried
    /// again at the end of the drain.
    pub fn release_again(
        &self,
        pool: &crate::db::Pool,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<usize, crate::error::Error> {
        let mut conn = pool.get()?;
        self.jobs.release(&mut conn, now)
    }
}
