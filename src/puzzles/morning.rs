//! The daily puzzle's morning notice (docs/puzzles.md, "The morning
//! notice"): for players who asked for it
//! (`notify::Settings::daily_puzzle`), one notice at their local morning
//! that today's puzzles are out, in their language, by the channels their
//! `daily_puzzle` switches allow. `puzzle_mornings` is the one record of
//! who was told which day, so an instance joining late or a second instance
//! tells nobody twice.

use crate::error::Error;
use crate::notify::outbox::{Enqueue, Notice};
use crate::notify::{Kind, MORNING};
use crate::schema::puzzle_mornings;
use chrono::{DateTime, NaiveDate, NaiveTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use uuid::Uuid;

/// Queue the morning notice of everyone who asked for it, whose morning
/// has come and who was not told today: one insert of the day's marks
/// (in user order, so two instances at once wait rather than deadlock),
/// and a notice for each mark that is new. Marks older than two days
/// are dropped: no local day is that far behind. How many were queued.
pub fn enqueue_due(conn: &mut PgConnection, now: DateTime<Utc>) -> Result<usize, Error> {
    let readers = crate::notify::timed::morning_readers(conn)?;
    let morning = NaiveTime::from_hms_opt(MORNING, 0, 0).expect("a valid hour");
    let due: Vec<(Uuid, NaiveDate)> = readers
        .iter()
        .filter_map(|r| {
            let zone = r
                .time_zone
                .parse::<chrono_tz::Tz>()
                .unwrap_or(chrono_tz::UTC);
            let local = now.with_timezone(&zone);
            (local.time() >= morning).then(|| (r.id, local.date_naive()))
        })
        .collect();
    diesel::delete(puzzle_mornings::table)
        .filter(puzzle_mornings::day.lt(now.date_naive() - chrono::Duration::days(2)))
        .execute(conn)?;
    if due.is_empty() {
        return Ok(0);
    }
    let rows: Vec<_> = due
        .iter()
        .map(|(user, day)| {
            (
                puzzle_mornings::user_id.eq(user),
                puzzle_mornings::day.eq(day),
            )
        })
        .collect();
    // Two bound values a mark, under PostgreSQL's 65,535 a statement.
    let mut marked: Vec<(Uuid, NaiveDate)> = Vec::new();
    for chunk in rows.chunks(10_000) {
        marked.extend(
            diesel::insert_into(puzzle_mornings::table)
                .values(chunk)
                .on_conflict_do_nothing()
                .returning((puzzle_mornings::user_id, puzzle_mornings::day))
                .get_results::<(Uuid, NaiveDate)>(conn)?,
        );
    }
    let told: Vec<Notice> = marked
        .iter()
        .map(|(user, day)| Notice {
            user: *user,
            seq: day.signed_duration_since(NaiveDate::default()).num_days() as i32,
            kind: Kind::DailyPuzzle,
            payload: serde_json::json!({}),
        })
        .collect();
    let queued = told.len();
    if queued > 0 {
        Enqueue::new(Uuid::nil(), told, now).execute(conn)?;
    }
    Ok(queued)
}
