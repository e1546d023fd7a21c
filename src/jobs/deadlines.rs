//! The deadline sweep (docs/rules/timing.md §T): claims due matches with
//! `FOR UPDATE SKIP LOCKED` and applies what time has decided through the
//! same `Table::append` as a player's action, so any number of instances
//! can sweep one database and each notice and each deadline fires once.
//! One transaction per batch: a crash between claim and commit changes
//! nothing.

use crate::clock::Clock;
use crate::db::Pool;
use crate::dice::Dice;
use crate::error::Error;
use crate::matches::duties::TimedDuty;
use crate::matches::held::{Held, HeldWrites};
use crate::matches::play::resolve_expired;
use crate::matches::{MatchStatus, NewEvent, ServiceEvent, Table};
use crate::state::AppState;
use chrono::{DateTime, Utc};
use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::PgConnection;
use posthorn_rules::{Random, Seat};
use std::sync::Arc;

/// Matches claimed per transaction: loaded together (`Table::load_claimed`).
pub const BATCH: i64 = 500;
/// Sweep loops per instance, each with its own connection and batches.
const SWEEPERS: usize = 2;

/// What one sweep did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Swept {
    pub matches: usize,
    pub notices: usize,
    pub deadlines: usize,
    /// Seats whose due duties paused: their player is away
    /// (docs/decisions/matches-and-deadlines.md, "Vacation").
    pub paused: usize,
}

impl std::ops::AddAssign for Swept {
    fn add_assign(&mut self, other: Swept) {
        self.matches += other.matches;
        self.notices += other.notices;
        self.deadlines += other.deadlines;
        self.paused += other.paused;
    }
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
    // A player on vacation (or saved by auto-vacation at a deadline) has
    // their due duties paused instead
    // (docs/decisions/matches-and-deadlines.md, "Vacation").
    let due: Vec<(Seat, bool)> = (table.duties()?.iter())
        .filter(|d| d.running())
        .filter_map(|d| {
            let passed = d.deadline_at.is_some_and(|at| at <= now);
            let noticed = !d.noticed && d.notice_at.is_some_and(|at| at <= now);
            (passed || noticed).then_some((d.seat, passed))
        })
        .collect();
    let mut asked: Vec<Seat> = Vec::new();
    for (seat, _) in &due {
        if asked.contains(seat) || table.row.status != MatchStatus::Active {
            continue;
        }
        asked.push(*seat);
        let forfeit = due.iter().any(|(s, passed)| s == seat && *passed);
        if crate::vacation::away(conn, table, *seat, forfeit, now)? {
            done.paused += 1;
        }
    }
    // §T3/§T4: each passed deadline once; the rules say what it means.
    let passed: Vec<TimedDuty> = table
        .duties()?
        .into_iter()
        .filter(|d| d.running() && d.deadline_at.is_some_and(|at| at <= now))
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
        let duties = table.duties()?;
        let mut notices = Vec::new();
        // Each notice event marks its duty noticed (`duties::derive`).
        for duty in duties
            .iter()
            .filter(|d| d.running() && !d.noticed && d.notice_at.is_some_and(|at| at <= now))
        {
            // A duty with a notice time has a deadline (`duties::schedule`).
            let Some(deadline_at) = duty.deadline_at else {
                continue;
            };
            notices.push(NewEvent {
                seat: Some(duty.seat),
                rules: false,
                body: ServiceEvent::TimeoutNotice {
                    kind: duty.kind,
                    deadline_at,
                }
                .to_body(),
            });
        }
        if !notices.is_empty() {
            done.notices += notices.len();
            table.append(conn, notices, now)?;
        }
    }
    Ok(done)
}

/// One batch: claim, settle each, write what they appended in one
/// statement, commit. Returns what was done.
pub fn sweep_batch(
    conn: &mut PgConnection,
    now: DateTime<Utc>,
    random: &mut dyn Random,
) -> Result<Swept, Error> {
    let mut total = Swept::default();
    let claimed = crate::matches::reads::claim_due(conn, now, BATCH)?;
    let tables = Table::load_claimed(conn, claimed)?;
    // Every settled match's writes go in one statement at the end.
    let mut writes = HeldWrites::new(now);
    for mut table in tables {
        let id = table.row.id;
        table.held = Some(Held::default());
        total +=
            settle(conn, &mut table, now, random).map_err(|e| e.context(format!("match {id}")))?;
        writes.add(&table.row, table.held.take().unwrap_or_default());
    }
    if !writes.is_empty() {
        writes.execute(conn)?;
    }
    Ok(total)
}

/// One of the sweep's transactions, planned for its own time bound. The
/// pool's connections use generic plans (`db::GenericPlans`), which take
/// `column <= $1` for a third of the table whatever the bound: under them
/// the claim's former `OR` became a 400 ms sequential scan of 1,000,000
/// matches (docs/benchmarks.md, "Deadline sweep at scale"). The claims are
/// now ordered index reads, which a generic plan also picks; the sweep's
/// other time-bounded reads (expired idempotency keys and challenges,
/// inactive ratings) run every few seconds, so they are planned for the
/// bound they have.
fn planned<T>(
    pool: &Pool,
    work: impl FnOnce(&mut PgConnection) -> Result<T, Error>,
) -> Result<T, Error> {
    crate::db::transaction(pool, |c| {
        c.batch_execute("SET LOCAL plan_cache_mode = force_custom_plan")?;
        work(c)
    })
}

/// What the sweep needs of the service, and no more (docs/architecture.md,
/// "The service's floors"): the database, the time, and chance for what a
/// deadline decides (a FlipChess deal after a flip, §F7).
#[derive(Clone)]
pub struct Sweeper {
    pub pool: Pool,
    pub clock: Arc<dyn Clock>,
    pub dice: Arc<dyn Dice>,
}

impl Sweeper {
    pub fn of(state: &AppState) -> Sweeper {
        Sweeper {
            pool: state.pool.clone(),
            clock: state.clock.clone(),
            dice: state.dice.clone(),
        }
    }

    /// Sweep until nothing is due (blocking; run it off the async executor).
    pub fn sweep(&self) -> Result<Swept, Error> {
        sweep(self)
    }
}

fn sweep(state: &Sweeper) -> Result<Swept, Error> {
    let now = state.clock.now();
    let pool = &state.pool;
    planned(pool, crate::db::replica::notice_primary)?;
    planned(pool, |c| crate::idempotency::forget_expired(c, now))?;
    planned(pool, |c| crate::limits::forget_old(c, now))?;
    planned(pool, |c| {
        crate::accounts::password_resets::forget_old(c, now)
    })?;
    planned(pool, |c| crate::accounts::email_undos::forget_old(c, now))?;
    planned(pool, |c| crate::accounts::identities::forget_spent(c, now))?;
    planned(pool, |c| {
        crate::accounts::closing::release_held_names(c, now)
    })?;
    // Challenges unanswered for 7 days cancel their matches
    // (docs/decisions/challenges-and-lobby.md, "Challenges"); each match is
    // locked, so instances sweeping together cancel it once.
    planned(pool, |c| crate::lobby::challenge::expire(c, now))?;
    // Vacations whose end date came or whose allowance is spent end
    // (docs/decisions/matches-and-deadlines.md, "Vacation"): their players'
    // duties resume.
    crate::vacation::end_due(pool, now)?;
    // Tournaments whose last advance failed for good are tried again.
    planned(pool, |c| crate::tournaments::advance::requeue_idle(c, now))?;
    // Players with no rated match in 180 days leave the boards
    // (docs/decisions/ratings.md).
    while planned(pool, |c| crate::ratings::board::retire_inactive(c, now))? > 0 {}
    // Sweepers side by side, as instances would: while PostgreSQL writes
    // one's batch, the other folds its own (docs/benchmarks.md, "Deadline
    // sweep at scale").
    let outcomes = super::threads::side_by_side(SWEEPERS, "a sweeper", || sweep_due(state, now));
    let mut total = Swept::default();
    for done in outcomes {
        total += done?;
    }
    Ok(total)
}

/// Claim and settle batches until none is full.
fn sweep_due(state: &Sweeper, now: DateTime<Utc>) -> Result<Swept, Error> {
    let mut random = crate::dice::Roller(state.dice.clone());
    let mut total = Swept::default();
    loop {
        let done = planned(&state.pool, |c| sweep_batch(c, now, &mut random))?;
        total += done;
        if done.matches < BATCH as usize {
            return Ok(total);
        }
    }
}
