//! The deadline sweep (RULES.md §T): claims due matches with
//! `FOR UPDATE SKIP LOCKED` and applies what time has decided through the
//! same `Table::append` as a player's action, so any number of instances
//! can sweep one database and each notice and each deadline fires once.
//! One transaction per batch: a crash between claim and commit changes
//! nothing.

use crate::error::Error;
use crate::matches::duties::TimedDuty;
use crate::matches::play::resolve_expired;
use crate::matches::{MatchRow, MatchStatus, NewEvent, ServiceEvent, Table};
use crate::schema::matches;
use crate::state::AppState;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use posthorn_rules::Random;

/// Matches claimed per transaction: loaded together (`Table::load_claimed`).
pub const BATCH: i64 = 200;

/// What one sweep did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Swept {
    pub matches: usize,
    pub notices: usize,
    pub deadlines: usize,
}

/// Claim up to `BATCH` due matches that no other sweeper holds.
fn claim_due(conn: &mut PgConnection, now: DateTime<Utc>) -> Result<Vec<MatchRow>, Error> {
    // Two conditions, each served by its own partial index.
    Ok(matches::table
        .filter(matches::status.eq(MatchStatus::Active))
        .filter(matches::notice_at.le(now).or(matches::deadline_at.le(now)))
        .select(MatchRow::as_select())
        .limit(BATCH)
        .for_update()
        .skip_locked()
        .load(conn)?)
}

/// Apply the passed deadlines, then the due notices, of one locked match.
pub fn settle(
    conn: &mut PgConnection,
    table: &mut Table,
    now: DateTime<Utc>,
    random: &mut dyn Random,
) -> Result<Swept, Error> {
    let mut done = Swept {
        matches: 1,
        ..Swept::default()
    };
    resolve_expired(conn, table, now, random)?;
    // §T3/§T4: each passed deadline once; the rules say what it means.
    let passed: Vec<TimedDuty> = table
        .duties()
        .into_iter()
        .filter(|d| d.deadline_at <= now)
        .collect();
    for duty in passed {
        if table.row.status != MatchStatus::Active {
            break;
        }
        let current = table.state.to_act();
        let owed = current
            .iter()
            .find(|d| d.seat == duty.seat && d.kind == duty.kind);
        let Some(owed) = owed else { continue };
        let events = NewEvent::from_rules(Some(duty.seat), table.state.deadline_passed(owed));
        if !events.is_empty() {
            table.append(conn, events, now)?;
            done.deadlines += 1;
        }
    }
    // §T2: the notice, once per duty; the seat has not lost.
    if table.row.status == MatchStatus::Active {
        let mut duties = table.duties();
        let mut notices = Vec::new();
        for duty in duties
            .iter_mut()
            .filter(|d| !d.noticed && d.notice_at <= now)
        {
            duty.noticed = true;
            notices.push(NewEvent {
                seat: Some(duty.seat),
                rules: false,
                body: ServiceEvent::TimeoutNotice {
                    kind: duty.kind,
                    deadline_at: duty.deadline_at,
                }
                .to_body(),
            });
        }
        if !notices.is_empty() {
            done.notices += notices.len();
            table.row.to_act = serde_json::to_value(&duties).map_err(Error::internal)?;
            table.append(conn, notices, now)?;
        }
    }
    Ok(done)
}

/// One batch: claim, settle each, commit. Returns what was done.
pub fn sweep_batch(
    conn: &mut PgConnection,
    now: DateTime<Utc>,
    random: &mut dyn Random,
) -> Result<Swept, Error> {
    let mut total = Swept::default();
    let claimed = claim_due(conn, now)?;
    for mut table in Table::load_claimed(conn, claimed)? {
        let id = table.row.id;
        let done =
            settle(conn, &mut table, now, random).map_err(|e| e.context(format!("match {id}")))?;
        total.matches += done.matches;
        total.notices += done.notices;
        total.deadlines += done.deadlines;
    }
    Ok(total)
}

/// Sweep until nothing is due (blocking; run it off the async executor).
pub fn sweep(state: &AppState) -> Result<Swept, Error> {
    let (now, mut random) = (state.clock.now(), state.roller());
    crate::db::transaction(&state.pool, |c| crate::idempotency::forget_expired(c, now))?;
    // Challenges unanswered for 7 days cancel their matches (issue #20);
    // each match is locked, so instances sweeping together cancel it once.
    crate::db::transaction(&state.pool, |c| crate::matches::challenge::expire(c, now))?;
    // Players with no rated match in 180 days leave the boards (issue #19).
    while crate::db::transaction(&state.pool, |c| {
        crate::ratings::board::retire_inactive(c, now)
    })? > 0
    {}
    let mut total = Swept::default();
    loop {
        let done = crate::db::transaction(&state.pool, |c| sweep_batch(c, now, &mut random))?;
        total.matches += done.matches;
        total.notices += done.notices;
        total.deadlines += done.deadlines;
        if done.matches < BATCH as usize {
            return Ok(total);
        }
    }
}

/// Start the tokio-cron-scheduler job that, every `interval`, sweeps the
/// deadlines and then delivers the outbox.
pub async fn start(
    state: AppState,
    interval: std::time::Duration,
) -> Result<tokio_cron_scheduler::JobScheduler, String> {
    use tokio_cron_scheduler::{Job, JobScheduler};
    let scheduler = JobScheduler::new().await.map_err(|e| e.to_string())?;
    let job = Job::new_repeated_async(interval, move |_id, _scheduler| {
        let state = state.clone();
        Box::pin(async move {
            let work = move || {
                (
                    sweep(&state),
                    crate::notify::worker::deliver_due(&state.courier()),
                )
            };
            match tokio::task::spawn_blocking(work).await {
                Ok((swept, delivered)) => {
                    match swept {
                        Ok(done) if done.matches > 0 => log::info!("sweep: {done:?}"),
                        Ok(_) => {}
                        Err(e) => log::warn!("sweep failed: {e}"),
                    }
                    match delivered {
                        Ok(done) if done != Default::default() => log::info!("outbox: {done:?}"),
                        Ok(_) => {}
                        Err(e) => log::warn!("outbox delivery failed: {e}"),
                    }
                }
                Err(e) => log::error!("sweep panicked: {e}"),
            }
        })
    })
    .map_err(|e| e.to_string())?;
    scheduler.add(job).await.map_err(|e| e.to_string())?;
    scheduler.start().await.map_err(|e| e.to_string())?;
    Ok(scheduler)
}
