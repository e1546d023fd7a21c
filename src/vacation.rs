//! Vacation (docs/decisions/matches-and-deadlines.md): a registered player
//! may go away without losing their matches on the 48-hour rule. While they
//! are away every duty of theirs pauses, in every match (in four-player
//! chess only their own seat's); it resumes with the time it had left.
//!
//! The rules, written down in docs/decisions/matches-and-deadlines.md:
//! - **Allowance**: 30 days (720 hours), which a new account starts with;
//!   it accrues by 2 hours a day (about 30 days a year) up to that cap.
//! - **Spent by the started hour**, from when the first duty of theirs
//!   paused to the end of the vacation, **plus the hour of grace** every
//!   paused duty may resume with (`duties::RESUME_AT_LEAST`), and **at
//!   least a day** (docs/decisions/matches-and-deadlines.md, as chess.com
//!   charges): a vacation can never give a duty more clock than it costs.
//!   A vacation while nobody waits for them costs nothing until somebody
//!   does.
//! - **One start a day** (`limits::Limit::VacationStart`): ending is always
//!   allowed, starting again waits.
//! - It ends when they say so (`DELETE /v1/me/vacation`), when they act
//!   in any match, at the end date they gave, or when the allowance is
//!   spent; then their duties resume (with at least an hour,
//!   `duties::RESUME_AT_LEAST`).
//! - **Auto-vacation** (`auto`): a deadline that would forfeit
//!   the match starts a vacation instead, while any allowance is left.
//! - Guests have none.
//!
//! Pausing is a service event in each match (`on_vacation`, then
//! `back_from_vacation`), which the clock folds (`duties::derive`). A duty
//! newly owed while its player is away pauses when its notice would come:
//! the sweep asks [`away`] before it sends a notice or forfeits a match.

use crate::error::Error;
use crate::limits::Limit;
use crate::matches::duties::RESUME_AT_LEAST;
use crate::matches::{NewEvent, ServiceEvent, Table};
use crate::personal::{Exported, Leaving, Owner};
use crate::schema::vacations;
use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use posthorn_rules::Seat;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// The most allowance a player holds, and what a new account starts with.
pub const CAP_HOURS: i32 = 30 * 24;
/// One hour of allowance accrues every this long (2 hours a day).
pub const ACCRUES_EVERY: Duration = Duration::hours(12);
/// The least a vacation that paused a duty costs
/// (docs/decisions/matches-and-deadlines.md, "Vacation"): a pause of
/// seconds before a deadline would otherwise cost nothing and still hand
/// the duty its hour of grace.
pub const LEAST_CHARGE_HOURS: i32 = 24;
/// The hour of grace a paused duty may resume with, charged with the
/// pause so that the clock gained never exceeds the allowance spent.
const GRACE_HOURS: i32 = (RESUME_AT_LEAST.num_seconds() / 3600) as i32;

/// `GET /v1/me/vacation`: where a player's vacation stands.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Vacation {
    /// Hours of allowance left now (spent by the started hour).
    pub hours_left: i32,
    /// Since when the player is away, if they are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<DateTime<Utc>>,
    /// The end date they gave, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<DateTime<Utc>>,
    /// Whether a deadline that would forfeit a match starts a vacation.
    pub auto: bool,
}

/// `POST /v1/me/vacation`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct VacationRequest {
    /// When it ends by itself (in the future); without it, it lasts until
    /// the player is back or the allowance is spent.
    pub until: Option<DateTime<Utc>>,
}

/// How an action's lock statement asks whether its actor is away
/// (`matches::load::AwaySql`): acting ends a vacation.
#[derive(Clone, Copy, Debug)]
pub struct OnVacation;

impl crate::matches::load::AwaySql for OnVacation {
    const BEFORE: &'static str = "EXISTS (SELECT 1 FROM vacations v WHERE v.user_id = ";
    const AFTER: &'static str = " AND v.since IS NOT NULL)";
}

/// A deleted player's allowance and vacation go with the account (its
/// matches were resigned first, so no duty of theirs stays paused).
pub const PERSONAL: Owner = Owner::erasing(
    "vacation",
    &["vacations"],
    forget,
    Exported::In(&["settings/vacation"]),
);

fn forget(conn: &mut PgConnection, leaving: &mut Leaving<'_>) -> Result<(), Error> {
    diesel::delete(vacations::table.find(leaving.user)).execute(conn)?;
    Ok(())
}

/// A player's vacation row; a player without one holds the defaults
/// ([`Away::rested`]: a full allowance, not away, auto-vacation off).
#[derive(Clone, Debug, Queryable, Selectable)]
#[diesel(table_name = vacations)]
struct Away {
    user_id: Uuid,
    hours: i32,
    hours_at: DateTime<Utc>,
    since: Option<DateTime<Utc>>,
    until: Option<DateTime<Utc>>,
    paying_since: Option<DateTime<Utc>>,
    auto: bool,
}

impl Away {
    /// A player who never went away nor changed a setting: the allowance
    /// is full, so when it was last counted does not matter.
    fn rested(user_id: Uuid, now: DateTime<Utc>) -> Away {
        Away {
            user_id,
            hours: CAP_HOURS,
            hours_at: now,
            since: None,
            until: None,
            paying_since: None,
            auto: false,
        }
    }

    /// The allowance at `now`, before what the running vacation spends.
    fn accrued(&self, now: DateTime<Utc>) -> i32 {
        (self.hours as i64 + self.steps(now)).min(CAP_HOURS as i64) as i32
    }

    /// Whole accrual steps since `hours_at`.
    fn steps(&self, now: DateTime<Utc>) -> i64 {
        ((now - self.hours_at).num_seconds() / ACCRUES_EVERY.num_seconds()).max(0)
    }

    /// Where the accrual stands after [`Away::accrued`] at `now`: the part
    /// of a step already grown is kept (a start or an end does not reset
    /// it), unless the allowance is full.
    fn accrued_at(&self, now: DateTime<Utc>) -> DateTime<Utc> {
        if self.accrued(now) >= CAP_HOURS {
            return now;
        }
        self.hours_at + ACCRUES_EVERY * self.steps(now) as i32
    }

    /// What the running vacation has spent by `now`: every started hour
    /// since its first paused duty stopped, plus the hour of grace, at
    /// least [`LEAST_CHARGE_HOURS`]; never more than the allowance.
    fn spent(&self, now: DateTime<Utc>) -> i32 {
        self.paying_since.map_or(0, |from| {
            let seconds = (now - from).num_seconds().max(0);
            let hours = ((seconds + 3599) / 3600) as i32 + GRACE_HOURS;
            hours.max(LEAST_CHARGE_HOURS).min(self.accrued(now))
        })
    }

    fn view(&self, now: DateTime<Utc>) -> Vacation {
        Vacation {
            hours_left: (self.accrued(now) - self.spent(now)).max(0),
            since: self.since,
            until: self.until,
            auto: self.auto,
        }
    }

    /// When the allowance runs out, for a vacation that is spending it:
    /// the hour of grace is kept back, since the duties resume with it.
    fn runs_out(&self, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let from = self.paying_since?;
        let hours = (self.accrued(now) - GRACE_HOURS).max(0);
        Some(from + Duration::hours(hours as i64))
    }
}

/// The player's vacation, read without a lock (see `start`).
fn load(conn: &mut PgConnection, user: Uuid, now: DateTime<Utc>) -> Result<Away, Error> {
    let found = (vacations::table.find(user))
        .select(Away::as_select())
        .first(conn)
        .optional()?;
    Ok(found.unwrap_or_else(|| Away::rested(user, now)))
}

/// Give `user` a row holding the defaults if they have none, so that a
/// conditional update (start only if not away) has a row to test.
fn ensure(conn: &mut PgConnection, user: Uuid, now: DateTime<Utc>) -> Result<(), Error> {
    let rested = Away::rested(user, now);
    diesel::insert_into(vacations::table)
        .values((
            vacations::user_id.eq(user),
            vacations::hours.eq(rested.hours),
            vacations::hours_at.eq(rested.hours_at),
        ))
        .on_conflict_do_nothing()
        .execute(conn)?;
    Ok(())
}

/// Guests have no vacation; an account that no longer exists, none either.
fn not_a_guest(conn: &mut PgConnection, user: Uuid) -> Result<(), Error> {
    match crate::players::load(conn, vec![user])?.remove(&user) {
        None => Err(Error::unauthorized("this account no longer exists")),
        Some(player) if player.guest => Err(Error::forbidden("guests have no vacation")),
        Some(_) => Ok(()),
    }
}

pub fn status(conn: &mut PgConnection, user: Uuid, now: DateTime<Utc>) -> Result<Vacation, Error> {
    Ok(load(conn, user, now)?.view(now))
}

/// Switch auto-vacation on or off.
pub fn set_auto(
    conn: &mut PgConnection,
    user: Uuid,
    on: bool,
    now: DateTime<Utc>,
) -> Result<Vacation, Error> {
    not_a_guest(conn, user)?;
    // Only the switch is written: a vacation the sweep starts or its
    // player ends meanwhile stays as they wrote it.
    ensure(conn, user, now)?;
    diesel::update(vacations::table.find(user))
        .set(vacations::auto.eq(on))
        .execute(conn)?;
    status(conn, user, now)
}

/// `user` goes on vacation now: every duty of theirs pauses, and their
/// opponents hear of it once (an `on_vacation` event in each match).
pub fn start(
    conn: &mut PgConnection,
    user: Uuid,
    until: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> Result<Vacation, Error> {
    // The player's row is read, not locked: the matches are locked first
    // (an append's notices hold a key-share lock on their players' rows,
    // so locking the row first could meet an action in a deadlock), and
    // the row is written last, only if no vacation started meanwhile.
    not_a_guest(conn, user)?;
    let away = load(conn, user, now)?;
    if away.since.is_some() {
        return Err(Error::conflict("you are on vacation already"));
    }
    if away.accrued(now) < 1 {
        return Err(Error::conflict("no vacation allowance is left"));
    }
    if until.is_some_and(|u| u <= now) {
        return Err(Error::unacceptable("until must be in the future"));
    }
    crate::limits::take(conn, Limit::VacationStart, &user.to_string(), now)?;
    let paused = pause_everywhere(conn, user, now, until, now)?;
    ensure(conn, user, now)?;
    let started = diesel::update(vacations::table.find(user))
        .filter(vacations::since.is_null())
        .set((
            vacations::hours.eq(away.accrued(now)),
            vacations::hours_at.eq(away.accrued_at(now)),
            vacations::since.eq(Some(now)),
            vacations::until.eq(until),
            vacations::paying_since.eq(paused.then_some(now)),
        ))
        .execute(conn)?;
    if started == 0 {
        // The transaction rolls back, events included.
        return Err(Error::conflict("you are on vacation already"));
    }
    status(conn, user, now)
}

/// `user` is back (or their vacation ran out): the allowance is charged
/// and every paused duty of theirs resumes. Nothing to do if they are not
/// away.
pub fn end(conn: &mut PgConnection, user: Uuid, now: DateTime<Utc>) -> Result<Vacation, Error> {
    // As in `start`: the matches are locked first, the row written last.
    let away = load(conn, user, now)?;
    if away.since.is_none() {
        return Ok(away.view(now));
    }
    let since = away.since;
    for mut table in tables_of(conn, user)? {
        let events = (table.seats_of(user).into_iter())
            .map(|seat| vacation_event(seat, ServiceEvent::BackFromVacation { since }))
            .collect();
        table.append(conn, events, now)?;
    }
    // Read again now that the matches are held: a duty paused meanwhile
    // (the sweep) may have started the spending.
    let away = load(conn, user, now)?;
    let left = (away.accrued(now) - away.spent(now)).max(0);
    let ended = diesel::update(vacations::table.find(user))
        .filter(vacations::since.is_not_null())
        .set((
            vacations::hours.eq(left),
            vacations::hours_at.eq(away.accrued_at(now)),
            vacations::since.eq(None::<DateTime<Utc>>),
            vacations::until.eq(None::<DateTime<Utc>>),
            vacations::paying_since.eq(None::<DateTime<Utc>>),
        ))
        .execute(conn)?;
    if ended == 0 {
        return Err(Error::conflict("the vacation already ended"));
    }
    status(conn, user, now)
}

/// End the vacations whose end date has come or whose allowance is
/// spent, each in its own transaction (the sweep's housekeeping). Rows
/// another instance is ending are skipped.
pub fn end_due(pool: &crate::db::Pool, now: DateTime<Utc>) -> Result<usize, Error> {
    let away: Vec<Away> = crate::db::transaction(pool, |c| {
        Ok(vacations::table
            .filter(vacations::since.is_not_null())
            .select(Away::as_select())
            .load(c)?)
    })?;
    let mut ended = 0;
    for one in away {
        let due =
            one.until.is_some_and(|u| u <= now) || one.runs_out(now).is_some_and(|at| at <= now);
        if !due {
            continue;
        }
        let done = crate::db::transaction(pool, |c| {
            // Claimed once: another sweeper holding the row skips it. A
            // no-key lock: an append's notices to this player (a key-share
            // lock) do not wait for it.
            let mine = vacations::table
                .find(one.user_id)
                .filter(vacations::since.is_not_null())
                .select(vacations::user_id)
                .for_no_key_update()
                .skip_locked()
                .first::<Uuid>(c)
                .optional()?;
            match mine {
                Some(user) => end(c, user, now).map(|_| true),
                None => Ok(false),
            }
        });
        ended += match done {
            Ok(done) => usize::from(done),
            // Ended meanwhile by its player: rolled back, nothing to do.
            Err(Error::Conflict(_)) => 0,
            Err(e) => return Err(e),
        };
    }
    Ok(ended)
}

/// Called by the sweep before a notice or a deadline of `seat` in the
/// locked `table`: whether the seat's player is away, in which case its
/// duties are paused instead (an `on_vacation` event from when they went
/// away). A deadline that would forfeit the match (`forfeit`) starts a
/// vacation for a player with auto-vacation on and allowance left.
pub fn away(
    conn: &mut PgConnection,
    table: &mut Table,
    seat: Seat,
    forfeit: bool,
    now: DateTime<Utc>,
) -> Result<bool, Error> {
    let Some(user) = table.seats.get(seat.index()).copied().flatten() else {
        return Ok(false);
    };
    // Read without a lock: the sweep holds a batch of matches, and a lock
    // on the player's row here met the rating update's locks of the same
    // players in a deadlock (two sweepers and resignations at once). Only
    // starting an auto-vacation writes the row, and only if still unset.
    let away = load(conn, user, now)?;
    let since = match away.since {
        Some(since) => since,
        // Only a registered player can turn auto-vacation on (`set_auto`),
        // so its row exists and no guest starts one here.
        None if forfeit && away.auto && away.accrued(now) >= 1 => {
            let started = diesel::update(vacations::table.find(user))
                .filter(vacations::since.is_null())
                .set((
                    vacations::hours.eq(away.accrued(now)),
                    vacations::hours_at.eq(away.accrued_at(now)),
                    vacations::since.eq(Some(now)),
                ))
                .execute(conn)?;
            if started == 0 {
                // Another transaction started it meanwhile (and committed:
                // the update waited for it): pause from then.
                match load(conn, user, now)?.since {
                    Some(since) => since,
                    None => return Ok(false),
                }
            } else {
                now
            }
        }
        None => return Ok(false),
    };
    let until = away.until;
    let event = vacation_event(seat, ServiceEvent::OnVacation { since, until });
    table.append(conn, vec![event], now)?;
    // The allowance is spent from when the first paused duty stopped: a
    // duty newly owed while away pauses from its start, not from its
    // notice, and that stretch is clock it gains
    // (docs/decisions/matches-and-deadlines.md, "Vacation").
    let stopped = (table.duties()?.iter())
        .filter(|d| d.seat == seat)
        .filter_map(|d| d.paused_at)
        .min()
        .unwrap_or(now);
    diesel::update(vacations::table.find(user))
        .filter(
            vacations::paying_since
                .is_null()
                .or(vacations::paying_since.gt(stopped)),
        )
        .set(vacations::paying_since.eq(Some(stopped)))
        .execute(conn)?;
    Ok(true)
}

/// Pause `user`'s seats in every match they play; whether any duty of
/// theirs paused.
fn pause_everywhere(
    conn: &mut PgConnection,
    user: Uuid,
    since: DateTime<Utc>,
    until: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> Result<bool, Error> {
    let mut paused = false;
    for mut table in tables_of(conn, user)? {
        let seats = table.seats_of(user);
        paused |= (table.duties()?.iter()).any(|d| seats.contains(&d.seat));
        let events = (seats.into_iter())
            .map(|seat| vacation_event(seat, ServiceEvent::OnVacation { since, until }))
            .collect();
        table.append(conn, events, now)?;
    }
    Ok(paused)
}

/// The matches `user` plays in, locked in id order (every vacation start
/// and end locks in this order, so two never wait on each other).
fn tables_of(conn: &mut PgConnection, user: Uuid) -> Result<Vec<Table>, Error> {
    let ids = crate::matches::reads::active_of(conn, user)?;
    let mut tables = Vec::with_capacity(ids.len());
    for id in ids {
        if let Some(table) = Table::load(conn, id, true)? {
            tables.push(table);
        }
    }
    Ok(tables)
}

fn vacation_event(seat: Seat, event: ServiceEvent) -> NewEvent {
    NewEvent {
        seat: Some(seat),
        rules: false,
        body: event.to_body(),
    }
}
