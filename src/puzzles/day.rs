//! Who solves and which day it is for them (docs/puzzles.md, "Streaks"):
//! the puzzle day is the date in the solver's own time zone.

use crate::error::Error;
use crate::schema::users;
use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use posthorn_rules::GameId;
use uuid::Uuid;

/// Who is solving: accounts are rated, guests are not.
#[derive(Clone, Copy, Debug)]
pub struct Solver {
    pub user: Uuid,
    pub guest: bool,
}

pub(super) fn game(id: &str) -> Result<GameId, Error> {
    GameId::parse(id).ok_or_else(|| {
        let ids: Vec<&str> = GameId::ALL.iter().map(|g| g.id()).collect();
        Error::validation(format!("unknown game {id:?}; games: {}", ids.join(", ")))
    })
}

/// A puzzle day: the date in the player's zone, and when it began there.
#[derive(Clone, Copy, Debug)]
pub struct Day {
    pub date: NaiveDate,
    pub began: DateTime<Utc>,
}

/// Today in `user`'s time zone.
pub fn today(conn: &mut PgConnection, user: Uuid, now: DateTime<Utc>) -> Result<NaiveDate, Error> {
    Ok(day_of(conn, user, now)?.date)
}

/// Today in `user`'s time zone, and when it began.
pub(super) fn day_of(
    conn: &mut PgConnection,
    user: Uuid,
    now: DateTime<Utc>,
) -> Result<Day, Error> {
    let zone: String = users::table
        .find(user)
        .select(users::time_zone)
        .first(conn)?;
    let zone: chrono_tz::Tz = zone.parse().unwrap_or(chrono_tz::UTC);
    let date = now.with_timezone(&zone).date_naive();
    // The first instant of the date there (midnight, or the hour a
    // daylight-saving change skips to).
    let began = (0..24)
        .filter_map(|h| date.and_hms_opt(h, 0, 0))
        .find_map(|t| t.and_local_timezone(zone).earliest())
        .map_or(now, |t| t.with_timezone(&Utc));
    Ok(Day { date, began })
}
