//! One-off work (issue #31): a computer opponent's move, a tournament's
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
use crate::schema::jobs;
use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use serde_json::Value;

/// Attempts before a job is recorded as failed.
pub const MAX_ATTEMPTS: i32 = 5;

/// A claimed job.
#[derive(Clone, Debug, PartialEq, Queryable, Selectable)]
#[diesel(table_name = jobs)]
pub struct Job {
    pub id: i64,
    pub kind: String,
    pub payload: Value,
    /// This claim's attempt, counting from 1: the fence of `finish`.
    pub attempts: i32,
}

/// The work of one kind of job, as `jobs::one_off` runs it.
pub trait Work: Send + Sync {
    fn kind(&self) -> &'static str;
    /// Do the job; an `Err` is retried. Must be safe to repeat.
    fn run(&self, pool: &crate::db::Pool, job: &Job, now: DateTime<Utc>) -> Result<(), String>;
}

/// Queue `kind` work due at `run_at`, once per `key`; whether it was new.
pub fn enqueue(
    conn: &mut PgConnection,
    kind: &str,
    key: &str,
    payload: Value,
    run_at: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<bool, Error> {
    let added = diesel::insert_into(jobs::table)
        .values((
            jobs::kind.eq(kind),
            jobs::key.eq(key),
            jobs::payload.eq(payload),
            jobs::run_at.eq(run_at),
            jobs::created_at.eq(now),
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

/// Claim the job due longest, leasing it until `now + lease`: neither
/// done nor failed, due, and not leased by a live worker. Commit the
/// claim before working, so other instances see the lease.
pub fn claim(
    conn: &mut PgConnection,
    now: DateTime<Utc>,
    lease: Duration,
) -> Result<Option<Job>, Error> {
    let due = jobs::table
        .filter(jobs::done_at.is_null().and(jobs::failed_at.is_null()))
        .filter(jobs::run_at.le(now))
        .filter(jobs::attempts.lt(MAX_ATTEMPTS))
        .filter(jobs::leased_until.is_null().or(jobs::leased_until.le(now)))
        .order(jobs::run_at)
        .select(jobs::id)
        .for_update()
        .skip_locked()
        .first::<i64>(conn)
        .optional()?;
    let Some(id) = due else {
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
