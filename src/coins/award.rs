//! Paying coins where they are earned (docs/rules/rewards.md), each in the
//! transaction that earns them: a match's seats by a reaction to its
//! appends, a daily puzzle in its attempt's, a tournament's podium in its
//! finish's.

use super::pay::{self, Finish, Level, Source, Why};
use super::{credit, Entry};
use crate::error::Error;
use crate::matches::reactions::{Appended, Reaction};
use crate::matches::Table;
use crate::notify::outbox::Notice;
use crate::schema::{coins, users};
use chrono::{DateTime, Duration, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use posthorn_rules::MatchState;
use serde_json::{json, Value};
use uuid::Uuid;

/// The coins reaction: a seat that departs without loss coins has its
/// zero written as it departs (§R3: the round is the one it left in), and
/// every other seat is paid when the match ends. Installed after the
/// rating update and before the notices, whose "match finished" says
/// what the reader earned.
pub struct Pay;

impl Reaction for Pay {
    fn react(
        &self,
        conn: &mut PgConnection,
        table: &mut Table,
        appended: &Appended,
    ) -> Result<Vec<Notice>, Error> {
        let departed = departures(table, appended)?;
        let ended = appended.ended(&table.row);
        if departed.is_empty() && !ended {
            return Ok(Vec::new());
        }
        let seated = seated(conn, table)?;
        let earners: Vec<Uuid> = (seated.iter().filter(|p| p.earns()))
            .map(|p| p.user)
            .collect();
        super::lock_purses(conn, &earners)?;
        let source = source_of(table, &seated);
        for (seat, why) in departed {
            if let Some(player) = seated.iter().find(|p| p.seat == seat && p.earns()) {
                let why = if player.guest { Why::Guest } else { why };
                credit(conn, &player.entry(table, 0, source, why, appended.now))?;
            }
        }
        if ended {
            pay_the_end(conn, table, appended, &seated, source)?;
        }
        Ok(Vec::new())
    }
}

/// The seats this append takes out of play without loss coins (§R3).
fn departures(table: &Table, appended: &Appended) -> Result<Vec<(usize, Why)>, Error> {
    let round = table.state.round();
    let mut out = Vec::new();
    for event in appended.stored.iter().filter(|e| e.rules) {
        let Some((seat, how)) = MatchState::departure(table.game, &event.body)? else {
            continue;
        };
        if let Some(why) = pay::departure(how, round, overdue(appended, seat)) {
            out.push((seat.index(), why));
        }
    }
    Ok(out)
}

/// Whether `seat`'s concession comes past its flip decision's deadline:
/// the clock's doing (the sweep's append), not a choice (§R3).
fn overdue(appended: &Appended, seat: posthorn_rules::Seat) -> bool {
    (appended.duties_before.iter()).any(|d| {
        d.seat == seat
            && d.kind == posthorn_rules::DutyKind::FlipDecision
            && d.running()
            && d.deadline_at.is_some_and(|at| at <= appended.now)
    })
}

/// A seated person, as the coins see them.
struct Seated {
    seat: usize,
    user: Uuid,
    guest: bool,
    /// The level of a computer opponent.
    computer: Option<String>,
    deleted: bool,
}

impl Seated {
    /// Whether this seat has a ledger at all: a person whose account
    /// stands (a guest's zero is written too, §R4).
    fn earns(&self) -> bool {
        self.computer.is_none() && !self.deleted
    }

    fn entry(
        &self,
        table: &Table,
        amount: i32,
        source: Source,
        why: Why,
        at: DateTime<Utc>,
    ) -> Entry {
        Entry {
            user: self.user,
            cause: format!("match:{}:{}", table.row.id, self.seat),
            amount,
            source,
            why,
            match_id: Some(table.row.id),
            at,
        }
    }
}

/// The accounts among `ids`: (id, guest, computer level, deleted).
type Account = (Uuid, bool, Option<String>, Option<DateTime<Utc>>);

fn accounts(conn: &mut PgConnection, ids: &[Uuid]) -> Result<Vec<Account>, Error> {
    Ok(users::table
        .filter(users::id.eq_any(ids))
        .select((users::id, users::guest, users::computer, users::deleted_at))
        .load(conn)?)
}

/// Every seated player, in user order (the purses' lock order).
fn seated(conn: &mut PgConnection, table: &Table) -> Result<Vec<Seated>, Error> {
    let ids: Vec<Uuid> = table.seats.iter().flatten().copied().collect();
    let found = accounts(conn, &ids)?;
    let mut out: Vec<Seated> = (table.seats.iter().enumerate())
        .filter_map(|(seat, user)| {
            let (user, guest, computer, deleted) = found.iter().find(|f| Some(f.0) == *user)?;
            Some(Seated {
                seat,
                user: *user,
                guest: *guest,
                computer: computer.clone(),
                deleted: deleted.is_some(),
            })
        })
        .collect();
    out.sort_by_key(|s| s.user);
    Ok(out)
}

/// §R1: what kind of play a match was.
fn source_of(table: &Table, seated: &[Seated]) -> Source {
    if table.row.tournament_id.is_some() {
        return Source::Tournament;
    }
    if let Some(level) = seated.iter().find_map(|s| s.computer.as_deref()) {
        return Source::Computer(Level::parse(level));
    }
    if table.row.rated {
        Source::Rated
    } else {
        Source::Casual
    }
}

/// Pay every seat not yet paid, and write what each got into the result.
fn pay_the_end(
    conn: &mut PgConnection,
    table: &mut Table,
    appended: &Appended,
    seated: &[Seated],
    source: Source,
) -> Result<(), Error> {
    // §R4: nobody is paid unless two seats played; a seat that never
    // moved is paid nothing.
    let unmoved = crate::matches::fold::unmoved_seats(conn, table, &appended.unwritten())?;
    let aborted = table.seats.len() - unmoved.len() < 2;
    let took_back = crate::matches::fold::took_back(conn, table.row.id)?;
    let places = table.state.placements(table.seats.len());
    let now = appended.now;
    for player in seated.iter().filter(|p| p.earns()) {
        let (amount, why) = if player.guest {
            (0, Why::Guest)
        } else if aborted || unmoved.contains(&player.seat) {
            (0, Why::Aborted)
        } else if took_back.contains(&(player.seat as i16)) {
            (0, Why::TookBack)
        } else {
            let (amount, why) = pay::for_finish(source, Finish::of(&places, player.seat));
            let others: Vec<Uuid> = (seated.iter().filter(|p| p.user != player.user))
                .map(|p| p.user)
                .collect();
            let (group, cap) = source.cap();
            let paired = paired_before(conn, player.user, &others, now)?;
            pay::limited(
                amount,
                why,
                paired,
                paid_today(conn, player.user, group, now)?,
                cap,
            )
        };
        credit(conn, &player.entry(table, amount, source, why, now))?;
    }
    annotate(conn, table, seated)
}

fn day_before(now: DateTime<Utc>) -> DateTime<Utc> {
    now - Duration::hours(24)
}

/// §R5: the matches within a day that paid `user` and had any of
/// `others` at the table.
fn paired_before(
    conn: &mut PgConnection,
    user: Uuid,
    others: &[Uuid],
    now: DateTime<Utc>,
) -> Result<i64, Error> {
    let paid: Vec<Option<Uuid>> = coins::table
        .filter(coins::user_id.eq(user))
        .filter(coins::at.gt(day_before(now)))
        .filter(coins::amount.gt(0))
        .filter(coins::match_id.is_not_null())
        .select(coins::match_id)
        .load(conn)?;
    let paid: Vec<Uuid> = paid.into_iter().flatten().collect();
    crate::matches::reads::shared_with(conn, &paid, others)
}

/// §R5: what `user` was paid within a day by the sources of `group`.
fn paid_today(
    conn: &mut PgConnection,
    user: Uuid,
    group: &[&str],
    now: DateTime<Utc>,
) -> Result<i32, Error> {
    let sum: Option<i64> = coins::table
        .filter(coins::user_id.eq(user))
        .filter(coins::at.gt(day_before(now)))
        .filter(coins::amount.gt(0))
        .filter(coins::source.eq_any(group))
        .select(diesel::dsl::sum(coins::amount))
        .get_result(conn)?;
    Ok(sum.unwrap_or(0) as i32)
}

/// Write into the result what each seat got (`coins`: seat, coins, why),
/// as the rating changes are: the banner and the notice read it there.
fn annotate(conn: &mut PgConnection, table: &mut Table, seated: &[Seated]) -> Result<(), Error> {
    let paid: Vec<(Uuid, i32, String)> = coins::table
        .filter(coins::match_id.eq(table.row.id))
        .select((coins::user_id, coins::amount, coins::why))
        .load(conn)?;
    let mut lines: Vec<Value> = (paid.iter())
        .filter_map(|(user, amount, why)| {
            let seat = seated.iter().find(|s| s.user == *user)?.seat;
            Some(json!({"seat": seat, "coins": amount, "why": why}))
        })
        .collect();
    lines.sort_by_key(|l| l["seat"].as_u64());
    if let Some(Value::Object(result)) = table.row.result.as_mut() {
        result.insert("coins".into(), Value::Array(lines));
    }
    Ok(())
}

/// §R2: `user` solved `game`'s daily puzzle of `day`, on a streak of
/// `streak` days: the coins paid now (nothing for a day paid before).
pub fn daily_puzzle(
    conn: &mut PgConnection,
    user: Uuid,
    game: &str,
    day: NaiveDate,
    streak: u32,
    now: DateTime<Utc>,
) -> Result<i32, Error> {
    let (solved, bonus) = pay::daily_puzzle(streak);
    let mut paid = 0;
    let mut entries = vec![(
        format!("puzzle:{game}:{day}"),
        solved,
        Source::Puzzle,
        Why::Solved,
    )];
    if let Some(bonus) = bonus {
        entries.push((
            format!("streak:{game}:{day}"),
            bonus,
            Source::Streak,
            Why::Streak,
        ));
    }
    for (cause, amount, source, why) in entries {
        let entry = Entry {
            user,
            cause,
            amount,
            source,
            why,
            match_id: None,
            at: now,
        };
        if credit(conn, &entry)? {
            paid += amount;
        }
    }
    Ok(paid)
}

/// §R2: a finished tournament of `players` pays its podium, `places`
/// being each player's place; guests earn nothing (§R4).
pub fn podium(
    conn: &mut PgConnection,
    tournament: Uuid,
    places: &[(Uuid, usize)],
    players: usize,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    // Guests, computers and deleted accounts earn nothing (§R4).
    let placed: Vec<Uuid> = places.iter().map(|p| p.0).collect();
    let earners: Vec<Uuid> = (accounts(conn, &placed)?.into_iter())
        .filter(|(_, guest, computer, deleted)| !guest && computer.is_none() && deleted.is_none())
        .map(|a| a.0)
        .collect();
    let mut paid: Vec<(Uuid, i32)> = (places.iter())
        .filter(|(user, _)| earners.contains(user))
        .filter_map(|(user, place)| Some((*user, pay::place(*place, players)?)))
        .collect();
    paid.sort();
    let users: Vec<Uuid> = paid.iter().map(|p| p.0).collect();
    super::lock_purses(conn, &users)?;
    for (user, amount) in paid {
        let entry = Entry {
            user,
            cause: format!("tournament:{tournament}"),
            amount,
            source: Source::Place,
            why: Why::Place,
            match_id: None,
            at: now,
        };
        credit(conn, &entry)?;
    }
    Ok(())
}
