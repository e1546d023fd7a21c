//! The runner of one-off work (`job_queue`): on its own tick, claim due
//! jobs one by one and hand each to the worker of its kind, off the
//! database threads; a job of a kind this instance has no worker for is
//! retried (another instance may have one) and fails after the attempts.

use crate::db::Pool;
use crate::error::Error;
use crate::job_queue::{self, Lane, Work};
use chrono::{DateTime, Duration, Utc};

pub use crate::job_queue::Job;

/// How long a claim holds a job before another instance may take it
/// (the default of `POSTHORN_JOB_LEASE_SECONDS`).
pub const LEASE_SECONDS: i64 = 60;

/// What the runner needs of the service (docs/architecture.md, "The
/// service's floors"): the database, the time, the workers, its threads and
/// its lease.
pub struct Runner {
    pub pool: Pool,
    pub clock: std::sync::Arc<dyn crate::clock::Clock>,
    /// The worker of each kind of job, built once from the state, as the
    /// reactions are: a new kind of work joins this list and nothing else.
    pub workers: Vec<Box<dyn Work>>,
    pub threads: usize,
    pub lease: Duration,
    /// The jobs held, handed back when the instance stops
    /// (docs/operations.md, "Stopping and rolling restarts").
    pub held: std::sync::Arc<job_queue::Held>,
}

impl Runner {
    pub fn of(state: &crate::state::AppState) -> Runner {
        let workers: Vec<Box<dyn Work>> = vec![
            Box::new(crate::computer::moves::Mover::new(state.dice.clone())),
            Box::new(crate::lobby::seek_fallback::Fallback {
                dice: state.dice.clone(),
                min_turn_seconds: state.config.min_turn_seconds,
                public_url: state.config.public_url.clone(),
            }),
            Box::new(crate::tournaments::advance::Advancer {
                dice: state.dice.clone(),
            }),
            Box::new(crate::tournaments::advance::Starter {
                dice: state.dice.clone(),
            }),
            // Mails password reset links (docs/abuse.md, "Forgotten
            // passwords").
            Box::new(crate::accounts::password_resets::Mailer {
                keys: state.keys.clone(),
            }),
            // Analyses players asked for (docs/analysis.md).
            Box::new(crate::computer::analysis::Analyst {
                effort: posthorn_rules::engine::analysis::Effort {
                    nodes: state.config.analysis_nodes,
                    ..posthorn_rules::engine::analysis::Effort::SERVICE
                },
            }),
            Box::new(crate::puzzles::mining::Miner),
            Box::new(crate::puzzles::mining::SelfPlay),
        ];
        Runner {
            pool: state.pool.clone(),
            clock: state.clock.clone(),
            workers,
            threads: state.config.bot_threads,
            lease: Duration::seconds(state.config.job_lease_seconds),
            held: state.stopping.jobs.clone(),
        }
    }

    /// Run every due job of `lane` on its threads (blocking): the heavy
    /// lane on the computer's thread pool (`POSTHORN_BOT_THREADS`), taking
    /// spare work when no search is due, the light and quick lanes on one
    /// thread each (docs/abuse.md, "Engine time"). The quick lane's run
    /// also settles the failures and old records.
    pub fn run(&self, lane: Lane) -> Result<Ran, Error> {
        let workers: Vec<&dyn Work> = self.workers.iter().map(|w| w.as_ref()).collect();
        let now = || self.clock.now();
        if lane == Lane::Quick {
            crate::db::transaction(&self.pool, |c| settle_failures(c, now()))?;
        }
        let threads = if lane == Lane::Heavy { self.threads } else { 1 };
        let lease = Lease(self.lease, &self.held);
        run_lane_on(&self.pool, &workers, &now, lane, threads, lease)
    }
}

/// What a run of the runner did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Ran {
    pub done: usize,
    pub retried: usize,
}

/// Once per run: fail the jobs whose workers kept dying, revive the
/// computer moves a match still waits on (`computer::revive`), and remove
/// done jobs a month old and engine time past its budget's window.
fn settle_failures(conn: &mut diesel::PgConnection, now: DateTime<Utc>) -> Result<(), Error> {
    job_queue::fail_exhausted(conn, now)?;
    crate::computer::revive(conn, now)?;
    job_queue::purge_done(conn, now)?;
    crate::computer::budget::forget_old(conn, now)?;
    Ok(())
}

/// [`run_leased`] of `lane` on `threads` threads at once (each claims
/// its own jobs).
fn run_lane_on(
    pool: &Pool,
    workers: &[&dyn Work],
    now: &(dyn Fn() -> DateTime<Utc> + Sync),
    lane: Lane,
    threads: usize,
    lease: Lease,
) -> Result<Ran, Error> {
    let runs = super::threads::side_by_side(threads, "a job runner", || {
        run_leased(pool, workers, now, lane.claims(), lease)
    });
    total(runs)
}

/// What several runs did together (the first failure, if any).
fn total(runs: Vec<Result<Ran, Error>>) -> Result<Ran, Error> {
    let mut total = Ran::default();
    for ran in runs {
        let ran = ran?;
        total.done += ran.done;
        total.retried += ran.retried;
    }
    Ok(total)
}

/// Every lane run at once, each on its threads, as the service's ticks
/// run them (`jobs::start`), until none is due: for tests and drills.
pub fn run_due_on(
    pool: &Pool,
    workers: &[&dyn Work],
    now: &(dyn Fn() -> DateTime<Utc> + Sync),
    threads: usize,
    lease: Duration,
) -> Result<Ran, Error> {
    crate::db::transaction(pool, |c| settle_failures(c, now()))?;
    let held = job_queue::Held::default();
    let lease = Lease(lease, &held);
    let runs = std::thread::scope(|scope| {
        let lanes: Vec<_> = (Lane::ALL.into_iter())
            .map(|lane| {
                let threads = if lane == Lane::Heavy { threads } else { 1 };
                scope.spawn(move || run_lane_on(pool, workers, now, lane, threads, lease))
            })
            .collect();
        (lanes.into_iter())
            .map(|l| (l.join()).unwrap_or_else(|_| Err(Error::internal("a lane panicked"))))
            .collect::<Vec<_>>()
    });
    total(runs)
}

/// Run the jobs due at `now` until none is left (blocking; run it off the
/// executor), each claimed for [`LEASE_SECONDS`].
pub fn run_due(pool: &Pool, workers: &[&dyn Work], now: DateTime<Utc>) -> Result<Ran, Error> {
    crate::db::transaction(pool, |c| settle_failures(c, now))?;
    let held = job_queue::Held::default();
    let lease = Lease(Duration::seconds(LEASE_SECONDS), &held);
    run_leased(pool, workers, &|| now, &Lane::ALL, lease)
}

/// How long a claim holds a job, and where this instance keeps its claims.
#[derive(Clone, Copy)]
pub struct Lease<'a>(pub Duration, pub &'a job_queue::Held);

/// [`run_due`] with claims held for `lease`, reading the time at each
/// step: a long search does not leave the next claim with a lease already
/// run out, nor its events with a stale time.
pub fn run_leased(
    pool: &Pool,
    workers: &[&dyn Work],
    now: &(dyn Fn() -> DateTime<Utc> + Sync),
    lanes: &[Lane],
    Lease(lease, held): Lease,
) -> Result<Ran, Error> {
    let mut ran = Ran::default();
    let claim = |c: &mut diesel::PgConnection| {
        // Stopping: nothing more is claimed (what is held is handed back).
        if held.stopping() {
            return Ok(None);
        }
        job_queue::claim(c, lanes, now(), lease, &crate::computer::budget::SPENT)
    };
    while let Some(job) = crate::db::transaction(pool, claim)? {
        // Noted once its claim is committed; claimed as the stop came, it
        // is handed back, not run.
        if !held.hold(&job) {
            let (id, attempts) = (job.id, job.attempts);
            crate::db::transaction(pool, |c| job_queue::hand_back(c, id, attempts, now()))?;
            break;
        }
        let worker = workers.iter().find(|w| w.kind() == job.kind);
        // The job's span names the request that queued it, on whichever
        // instance and tick it runs.
        let span = tracing::debug_span!(
            "job",
            request_id = %crate::cause::shown(&job.request_id),
            job = job.id,
            kind = %job.kind,
            attempt = job.attempts
        );
        let _in_job = span.enter();
        // A panicking worker is a failed attempt, not a lost job.
        let outcome = match worker {
            Some(worker) => std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                // What the job writes keeps the request that queued it.
                crate::cause::on_thread(job.request_id.clone(), || worker.run(pool, &job, now()))
            }))
            .unwrap_or_else(|_| Err("the worker panicked".to_owned())),
            None => Err(format!("no worker for jobs of kind {}", job.kind)),
        };
        held.let_go(&job);
        tracing::debug!(target: "posthorn::job", ok = outcome.is_ok(), "ran");
        match outcome {
            Ok(()) => {
                crate::db::transaction(pool, |c| job_queue::finish(c, &job, now()))?;
                ran.done += 1;
            }
            Err(why) => {
                log::warn!("job {} ({}) failed: {why}", job.id, job.kind);
                crate::db::transaction(pool, |c| job_queue::retry(c, &job, &why, now()))?;
                ran.retried += 1;
            }
        }
    }
    Ok(ran)
}
