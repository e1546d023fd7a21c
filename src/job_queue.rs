//! One-off work (docs/architecture.md): a computer opponent's move, a tournament's
//! next round — written in the transaction that makes it due, so it is
//! never lost and never due without its cause; claimed by any instance
//! with `FOR UPDATE SKIP LOCKED` under a lease, so a crashed worker's job
//! is taken again when the lease runs out; retried with backoff, then
//! recorded as failed. A job's `key` makes it once (a second enqueue of
//! the same key is ignored). The runner is `jobs::one_off`.
//!
//! A job may run more than once (a worker that dies after its work but
//! before `finish`): work must be safe to repeat. An append does that by
//! its `seq` check; `finish` and `retry` are fenced by the attempt count,
//! so a worker whose lease was taken over cannot close the new attempt.

use crate::error::Error;
use crate::personal::{Exported, Leaving, Owner};
use crate::schema::jobs;
use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Integer, SmallInt, Timestamptz};
use diesel::PgConnection;
use serde_json::Value;

/// Attempts before a job is recorded as failed.
pub const MAX_ATTEMPTS: i32 = 5;

/// Where a job waits (docs/abuse.md, "Engine time"), each lane run by
/// threads of its own, so that work of one cost never queues behind work of
/// another: a lobby or tournament job never waits behind a search, an easy
/// reply never behind a hard one. Stored as its number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lane {
    /// Lobby and tournament work, and computers that only resign: no search.
    Quick = 0,
    /// Easy and normal searches (milliseconds).
    Light = 1,
    /// Hard searches (about a second each).
    Heavy = 2,
    /// Work nobody waits for (puzzle mining): the hard searches' threads
    /// take it only when none of theirs is due (`Lane::claims`).
    Spare = 3,
    /// Analyses a player asked for (docs/analysis.md): the hard searches'
    /// threads take them when no computer reply is due, before spare
    /// work, so a person's game never waits behind an analysis.
    Review = 4,
}

impl Lane {
    pub const ALL: [Lane; 5] = [
        Lane::Quick,
        Lane::Light,
        Lane::Heavy,
        Lane::Review,
        Lane::Spare,
    ];

    /// The lanes a runner of this lane claims from, in the order it
    /// prefers them, its own first: the hard searches' threads take an
    /// analysis when no search is due, and spare work after that.
    pub fn claims(self) -> &'static [Lane] {
        match self {
            Lane::Quick => &[Lane::Quick],
            Lane::Light => &[Lane::Light],
            Lane::Heavy => &[Lane::Heavy, Lane::Review, Lane::Spare],
            Lane::Review => &[Lane::Review, Lane::Spare],
            Lane::Spare => &[Lane::Spare],
        }
    }
}

/// A claimed job.
#[derive(Clone, Debug, PartialEq, Queryable, Selectable)]
#[diesel(table_name = jobs)]
pub struct Job {
    pub id: i64,
    pub kind: String,
    pub payload: Value,
    /// This claim's attempt, counting from 1: the fence of `finish`.
    pub attempts: i32,
    /// The person the work is done for, whose engine time it spends.
    pub owner: Option<uuid::Uuid>,
    /// The request that queued it ([`crate::cause`]).
    pub request_id: Option<String>,
}

/// The jobs this instance holds (claimed, not yet closed), so that a
/// stopping instance hands them back at once (docs/operations.md, "Stopping
/// and rolling restarts"): another instance takes them within its next
/// tick, not after the lease. Once stopping, the runner claims nothing
/// more; a job claimed as the stop came is handed back by its claimer
/// rather than run.
#[derive(Default)]
pub struct Held {
    /// Job id → its attempt; and whether the instance is stopping, set
    /// under the same lock so that no claim slips between the two.
    jobs: std::sync::Mutex<(std::collections::HashMap<i64, i32>, bool)>,
}

impl Held {
    pub fn stopping(&self) -> bool {
        self.lock().1
    }

    /// Claim nothing more (before any I/O: a database that does not answer
    /// must not keep the runner claiming).
    pub fn stop_claiming(&self) {
        self.lock().1 = true;
    }

    /// Note `job` as held, after its claim committed; false when the
    /// instance is stopping (the claimer hands it back with [`hand_back`]).
    pub(crate) fn hold(&self, job: &Job) -> bool {
        let mut held = self.lock();
        if held.1 {
            return false;
        }
        held.0.insert(job.id, job.attempts);
        true
    }

    pub(crate) fn let_go(&self, job: &Job) {
        self.lock().0.remove(&job.id);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (std::collections::HashMap<i64, i32>, bool)> {
        self.jobs.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Stop claiming and end the leases of the jobs held, each kept noted
    /// until its lease is ended (a failed write leaves the rest for the
    /// next call). Returns how many were handed back.
    pub fn release(&self, conn: &mut PgConnection, now: DateTime<Utc>) -> Result<usize, Error> {
        self.stop_claiming();
        let held: Vec<(i64, i32)> = self.lock().0.iter().map(|(id, a)| (*id, *a)).collect();
        let mut released = 0;
        for (id, attempts) in held {
            released += hand_back(conn, id, attempts, now)?;
            self.lock().0.remove(&id);
        }
        Ok(released)
    }
}

/// End the lease of attempt `attempts` of job `id` now: due again at once,
/// the attempt counted (a worker still running it cannot close the next
/// attempt: `finish` is fenced by the attempt). The lease ends at `now`,
/// not nothing, so that a job on its last attempt is failed by
/// [`fail_exhausted`] rather than left unclaimable.
pub(crate) fn hand_back(
    conn: &mut PgConnection,
    id: i64,
    attempts: i32,
    now: DateTime<Utc>,
) -> Result<usize, Error> {
    Ok(diesel::update(
        jobs::table
            .filter(jobs::id.eq(id).and(jobs::attempts.eq(attempts)))
            .filter(jobs::done_at.is_null().and(jobs::failed_at.is_null())),
    )
    .set(jobs::leased_until.eq(now))
    .execute(conn)?)
}

/// The work of one kind of job, as `jobs::one_off` runs it.
pub trait Work: Send + Sync {
    fn kind(&self) -> &'static str;
    /// Do the job; an `Err` is retried. Must be safe to repeat.
    fn run(&self, pool: &crate::db::Pool, job: &Job, now: DateTime<Utc>) -> Result<(), String>;
}

/// Queue `kind` work due at `run_at` in the quick lane, once per `key`;
/// whether it was new.
pub fn enqueue(
    conn: &mut PgConnection,
    kind: &str,
    key: &str,
    payload: Value,
    run_at: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<bool, Error> {
    let work = Queued {
        kind,
        key,
        payload,
        lane: Lane::Quick,
        owner: None,
    };
    enqueue_work(conn, work, run_at, now)
}

/// A job to queue: what, once per `key`, in which lane, for whom.
pub struct Queued<'a> {
    pub kind: &'a str,
    pub key: &'a str,
    pub payload: Value,
    pub lane: Lane,
    pub owner: Option<uuid::Uuid>,
}

/// Queue `work` due at `run_at`; whether it was new.
pub fn enqueue_work(
    conn: &mut PgConnection,
    work: Queued,
    run_at: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<bool, Error> {
    let added = diesel::insert_into(jobs::table)
        .values((
            jobs::kind.eq(work.kind),
            jobs::key.eq(work.key),
            jobs::payload.eq(work.payload),
            jobs::run_at.eq(run_at),
            jobs::created_at.eq(now),
            jobs::lane.eq(work.lane as i16),
            jobs::owner.eq(work.owner),
            jobs::request_id.eq(crate::cause::current()),
        ))
        .on_conflict(jobs::key)
        .do_nothing()
        .execute(conn)?;
    Ok(added == 1)
}

/// How long a done job is kept (its key still refuses a second enqueue
/// meanwhile; every key names a fact that happens once: a match's seq, a
/// seek, a tournament's start or step).
pub const KEEP_DONE_DAYS: i64 = 30;

/// Remove up to a thousand jobs done more than [`KEEP_DONE_DAYS`] ago (one
/// row per computer move would otherwise pile up for ever). The jobs
/// removed.
pub fn purge_done(conn: &mut PgConnection, now: DateTime<Utc>) -> Result<usize, Error> {
    Ok(diesel::sql_query(
        "DELETE FROM jobs WHERE id IN (SELECT id FROM jobs WHERE done_at < $1 LIMIT 1000)",
    )
    .bind::<diesel::sql_types::Timestamptz, _>(now - Duration::days(KEEP_DONE_DAYS))
    .execute(conn)?)
}

/// Fail the jobs whose last attempt's lease ran out (their worker died,
/// or kept dying), so that none is claimed for ever; once per run of the
/// runner, not per claim.
pub fn fail_exhausted(conn: &mut PgConnection, now: DateTime<Utc>) -> Result<usize, Error> {
    Ok(diesel::update(
        jobs::table
            .filter(jobs::done_at.is_null().and(jobs::failed_at.is_null()))
            .filter(jobs::attempts.ge(MAX_ATTEMPTS))
            .filter(jobs::leased_until.le(now)),
    )
    .set((
        jobs::failed_at.eq(now),
        jobs::last_error.eq("the lease of its last attempt ran out"),
    ))
    .execute(conn)?)
}

/// Claim a due job of `lanes`, leasing it until `now + lease`: neither
/// done nor failed, due, and not leased by a live worker. Fairly
/// (docs/abuse.md, "Engine time"): the job of the person whose engine, or
/// whose address's, spent least in the last hour first (ten guests from one
/// address are as heavy as their address), then the one due longest, so one
/// player's backlog never delays another's reply; a person over their
/// engine budget waits (`limits::engine`). What each owner spent is read
/// by `spent`, handed down by the owner of engine time. Commit the claim
/// before working, so other instances see the lease.
pub fn claim(
    conn: &mut PgConnection,
    lanes: &[Lane],
    now: DateTime<Utc>,
    lease: Duration,
    spent: &Spent,
) -> Result<Option<Job>, Error> {
    #[derive(QueryableByName)]
    struct Due {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        id: i64,
    }
    let lanes: Vec<i16> = lanes.iter().map(|l| *l as i16).collect();
    let due = diesel::sql_query(format!("{CLAIM_FROM} {} {CLAIM_WHERE}", spent.0))
        .bind::<Array<SmallInt>, _>(lanes)
        .bind::<Timestamptz, _>(now)
        .bind::<Integer, _>(MAX_ATTEMPTS)
        .bind::<Timestamptz, _>(now - crate::limits::engine::WINDOW)
        .bind::<BigInt, _>(crate::limits::engine::PER_PLAYER.num_milliseconds())
        .bind::<BigInt, _>(crate::limits::engine::PER_ADDRESS.num_milliseconds())
        .bind::<BigInt, _>(crate::limits::engine::PER_BLOCK.num_milliseconds())
        .get_result::<Due>(conn)
        .optional()?;
    let Some(Due { id }) = due else {
        return Ok(None);
    };
    Ok(Some(
        diesel::update(jobs::table.find(id))
            .set((
                jobs::leased_until.eq(now + lease),
                jobs::attempts.eq(jobs::attempts + 1),
            ))
            .returning(Job::as_returning())
            .get_result(conn)?,
    ))
}

/// What each job's owner spent of their engine budget, in the claim's
/// statement: `LEFT JOIN LATERAL`s giving `mine.spent` (the owner's),
/// `here.spent` (their address's) and `wide.spent` (its IPv6 /48's) since
/// `$4`, for the job `j`. Worded by the owner of engine time
/// (`computer::budget::SPENT`), so the claim stays one statement.
pub struct Spent(pub &'static str);

/// The claim's choice: `$1` lanes, the preferred first, `$2` now, `$3` attempts, `$4` the
/// budget window's start, `$5`, `$6` and `$7` the budgets per player, per
/// address and per IPv6 /48 (docs/abuse.md, "Limits that hold") in
/// milliseconds, with [`Spent`] between the two halves. A job for nobody
/// (lobby, tournaments) spends nothing and waits for nobody's budget.
const CLAIM_FROM: &str = "SELECT j.id FROM jobs j";
const CLAIM_WHERE: &str = "\
    WHERE j.lane = ANY($1) AND j.done_at IS NULL AND j.failed_at IS NULL \
      AND j.run_at <= $2 AND j.attempts < $3 \
      AND (j.leased_until IS NULL OR j.leased_until <= $2) \
      AND (j.owner IS NULL OR (mine.spent < $5 AND here.spent < $6 AND wide.spent < $7)) \
    ORDER BY array_position($1, j.lane), greatest(mine.spent, here.spent), j.run_at \
    LIMIT 1 FOR UPDATE OF j SKIP LOCKED";

/// The claimed `job` is done; false when its lease was lost to another
/// attempt (that attempt closes it).
pub fn finish(conn: &mut PgConnection, job: &Job, now: DateTime<Utc>) -> Result<bool, Error> {
    let closed = diesel::update(jobs::table.filter(fenced(job)))
        .set((
            jobs::done_at.eq(now),
            jobs::leased_until.eq(None::<DateTime<Utc>>),
        ))
        .execute(conn)?;
    Ok(closed == 1)
}

/// The claimed `job` failed with `why`: due again after a backoff
/// (30 s, doubling), or failed for good after [`MAX_ATTEMPTS`].
pub fn retry(
    conn: &mut PgConnection,
    job: &Job,
    why: &str,
    now: DateTime<Utc>,
) -> Result<bool, Error> {
    let closed = if job.attempts >= MAX_ATTEMPTS {
        diesel::update(jobs::table.filter(fenced(job)))
            .set((jobs::failed_at.eq(now), jobs::last_error.eq(why)))
            .execute(conn)?
    } else {
        let wait = Duration::seconds(30 << (job.attempts - 1).clamp(0, 10));
        diesel::update(jobs::table.filter(fenced(job)))
            .set((
                jobs::run_at.eq(now + wait),
                jobs::leased_until.eq(None::<DateTime<Utc>>),
                jobs::last_error.eq(why),
            ))
            .execute(conn)?
    };
    Ok(closed == 1)
}

/// `job`'s row while this claim still holds it.
fn fenced(
    job: &Job,
) -> Box<dyn BoxableExpression<jobs::table, diesel::pg::Pg, SqlType = diesel::sql_types::Bool>> {
    Box::new(
        jobs::id
            .eq(job.id)
            .and(jobs::attempts.eq(job.attempts))
            .and(jobs::done_at.is_null())
            .and(jobs::failed_at.is_null()),
    )
}

/// The work queued for a player names them no more once they are
/// deleted: it runs for the matches it was queued for, charged to nobody.
pub const PERSONAL: Owner = Owner {
    module: "job_queue",
    tables: &["jobs"],
    phase: crate::personal::Phase::Erase,
    forget,
    exported: Exported::Not("work queued for the service, gone a day after it is done"),
    kept: "the job itself, unowned, until it is done and swept",
};

fn forget(conn: &mut PgConnection, leaving: &mut Leaving<'_>) -> Result<(), Error> {
    diesel::update(jobs::table.filter(jobs::owner.eq(leaving.user)))
        .set(jobs::owner.eq(None::<uuid::Uuid>))
        .execute(conn)?;
    Ok(())
}

/// A job's payload erased once its work is done (a reset mail's address).
pub fn forget_payload(conn: &mut PgConnection, id: i64) -> Result<(), Error> {
    diesel::update(jobs::table.find(id))
        .set(jobs::payload.eq(serde_json::json!({})))
        .execute(conn)?;
    Ok(())
}

/// Whether the job of `key` failed every attempt (and was not revived).
pub fn has_failed(conn: &mut PgConnection, key: &str) -> Result<bool, Error> {
    Ok(diesel::select(diesel::dsl::exists(
        jobs::table
            .filter(jobs::key.eq(key))
            .filter(jobs::failed_at.is_not_null()),
    ))
    .get_result(conn)?)
}

/// Remove the job of `key` if it failed every attempt: the work is to be
/// begun again under the same key.
pub fn forget_failed(conn: &mut PgConnection, key: &str) -> Result<usize, Error> {
    Ok(diesel::delete(
        jobs::table
            .filter(jobs::key.eq(key))
            .filter(jobs::failed_at.is_not_null()),
    )
    .execute(conn)?)
}

/// The jobs of `kind` recorded as failed between `within` and `after`.
pub struct Failed<'a> {
    pub kind: &'a str,
    pub after: DateTime<Utc>,
    pub within: DateTime<Utc>,
}

impl Failed<'_> {
    /// Their ids and payloads.
    pub fn list(&self, conn: &mut PgConnection) -> Result<Vec<(i64, Value)>, Error> {
        Ok(jobs::table
            .filter(jobs::kind.eq(self.kind))
            .filter(jobs::failed_at.le(self.after))
            .filter(jobs::failed_at.gt(self.within))
            .select((jobs::id, jobs::payload))
            .load(conn)?)
    }

    /// Make `ids` due again at `now`, their attempts afresh; the same
    /// conditions again on the update: a job another instance revived
    /// meanwhile (and a worker may hold) is no longer failed. How many.
    pub fn revive(
        &self,
        conn: &mut PgConnection,
        ids: &[i64],
        now: DateTime<Utc>,
    ) -> Result<usize, Error> {
        let still_failed = jobs::table
            .filter(jobs::id.eq_any(ids))
            .filter(jobs::failed_at.le(self.after))
            .filter(jobs::failed_at.gt(self.within));
        Ok(diesel::update(still_failed)
            .set((
                jobs::failed_at.eq(None::<DateTime<Utc>>),
                jobs::attempts.eq(0),
                jobs::leased_until.eq(None::<DateTime<Utc>>),
                jobs::run_at.eq(now),
            ))
            .execute(conn)?)
    }
}
