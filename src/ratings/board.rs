//! Leaderboards (docs/decisions/ratings.md): established, active players by rating.
//!
//! Rank = 1 + the board players with a strictly higher whole rating (ties
//! share a rank). It is read from `rating_counts` — one row per whole
//! rating held by someone on the board — so a rank costs a sum over the
//! ratings above it (at most the spread of ratings, a few thousand rows),
//! never a count over the players; pages walk the `ratings_board` index
//! by keyset (rating, user id).

use super::{title, update::provisional, ACTIVE_DAYS};
use crate::error::Error;
use crate::personal::{Exported, Leaving, Owner, Phase};
use crate::schema::{rating_changes, rating_counts, ratings, users};
use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use utoipa::ToSchema;
use uuid::Uuid;

/// Rows per page.
pub const PAGE: i64 = 50;
/// Players shown on each side of me (`around=me`).
pub const AROUND: i64 = 5;

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct BoardRow {
    /// None for a provisional player (only `around=me` and friends show one).
    pub rank: Option<i64>,
    pub username: String,
    pub display_name: String,
    pub rating: i32,
    pub deviation: f64,
    pub provisional: bool,
    pub games: i32,
    /// The Janggi rank for the rating (`1단`); Janggi only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct Board {
    pub perf: String,
    pub rows: Vec<BoardRow>,
    /// Pass as `cursor` for the next page; none at the end.
    pub next_cursor: Option<String>,
}

type Found = (Uuid, String, String, f64, f64, i32, Option<i32>);

fn row(perf: &str, found: Found, rank: Option<i64>) -> BoardRow {
    let (_, username, display_name, rating, deviation, games, _) = found;
    let whole = rating.round() as i32;
    BoardRow {
        rank,
        username,
        display_name,
        rating: whole,
        deviation,
        provisional: provisional(deviation),
        games,
        title: title(perf, whole).map(str::to_owned),
    }
}

fn select() -> (
    ratings::user_id,
    users::username,
    users::display_name,
    ratings::rating,
    ratings::deviation,
    ratings::games,
    ratings::board_rating,
) {
    (
        ratings::user_id,
        users::username,
        users::display_name,
        ratings::rating,
        ratings::deviation,
        ratings::games,
        ratings::board_rating,
    )
}

/// The rank of each whole rating from `lowest` up: 1 + board players above.
fn ranks_from(
    conn: &mut PgConnection,
    perf: &str,
    lowest: i32,
) -> Result<BTreeMap<i32, i64>, Error> {
    let counts: Vec<(i32, i32)> = rating_counts::table
        .filter(rating_counts::perf.eq(perf))
        .filter(rating_counts::rating.ge(lowest))
        .filter(rating_counts::players.gt(0))
        .order(rating_counts::rating.desc())
        .select((rating_counts::rating, rating_counts::players))
        .load(conn)?;
    let mut above = 0i64;
    let mut ranks = BTreeMap::new();
    for (rating, players) in counts {
        ranks.insert(rating, above + 1);
        above += players as i64;
    }
    Ok(ranks)
}

/// The rank a whole rating has on the board.
pub fn rank_of(conn: &mut PgConnection, perf: &str, rating: i32) -> Result<i64, Error> {
    let above: Option<i64> = rating_counts::table
        .filter(rating_counts::perf.eq(perf))
        .filter(rating_counts::rating.gt(rating))
        .select(diesel::dsl::sum(rating_counts::players))
        .first(conn)?;
    Ok(above.unwrap_or(0) + 1)
}

fn parse_cursor(cursor: &str) -> Result<(i32, Uuid), Error> {
    let bad = || Error::validation("cursor is not one this service gave");
    let (rating, user) = cursor.split_once('_').ok_or_else(bad)?;
    Ok((
        rating.parse().map_err(|_| bad())?,
        user.parse().map_err(|_| bad())?,
    ))
}

/// The board rows of a perf, as a query to narrow and order (a macro: the
/// boxed join's type is not worth spelling out).
macro_rules! board_rows {
    ($perf:expr) => {
        ratings::table
            .inner_join(users::table)
            .filter(ratings::perf.eq($perf.to_owned()))
            .filter(ratings::board_rating.is_not_null())
            .select(select())
            .into_boxed()
    };
}

/// Board rows of `perf` after the keyset `(rating, user)` in board order
/// (rating down, user id up), at most `limit`. Two index range scans —
/// the rest of that rating, then the ratings below — since PostgreSQL
/// cannot use `a < x OR (a = x AND b > y)` as an index condition.
fn after(
    conn: &mut PgConnection,
    perf: &str,
    from: Option<(i32, Uuid)>,
    limit: i64,
) -> Result<Vec<Found>, Error> {
    let Some((rating, user)) = from else {
        return Ok(board_rows!(perf)
            .order((ratings::board_rating.desc(), ratings::user_id))
            .limit(limit)
            .load(conn)?);
    };
    let mut found: Vec<Found> = board_rows!(perf)
        .filter(ratings::board_rating.eq(rating))
        .filter(ratings::user_id.gt(user))
        .order(ratings::user_id)
        .limit(limit)
        .load(conn)?;
    let left = limit - found.len() as i64;
    if left > 0 {
        found.extend(
            board_rows!(perf)
                .filter(ratings::board_rating.lt(rating))
                .order((ratings::board_rating.desc(), ratings::user_id))
                .limit(left)
                .load::<Found>(conn)?,
        );
    }
    Ok(found)
}

/// Board rows of `perf` before `(rating, user)` in board order, nearest
/// first, at most `limit` (the mirror of [`after`]).
fn before(
    conn: &mut PgConnection,
    perf: &str,
    (rating, user): (i32, Uuid),
    limit: i64,
) -> Result<Vec<Found>, Error> {
    let mut found: Vec<Found> = board_rows!(perf)
        .filter(ratings::board_rating.eq(rating))
        .filter(ratings::user_id.lt(user))
        .order(ratings::user_id.desc())
        .limit(limit)
        .load(conn)?;
    let left = limit - found.len() as i64;
    if left > 0 {
        found.extend(
            board_rows!(perf)
                .filter(ratings::board_rating.gt(rating))
                .order((ratings::board_rating.asc(), ratings::user_id.desc()))
                .limit(left)
                .load::<Found>(conn)?,
        );
    }
    Ok(found)
}

/// Board reads are a few dozen index entries: with LIMIT as a bound
/// parameter the planner may choose a parallel plan whose workers cost
/// more to start (≈ 7 ms) than the whole read. Off for this transaction.
fn serial(conn: &mut PgConnection) -> Result<(), Error> {
    diesel::sql_query("SET LOCAL max_parallel_workers_per_gather = 0").execute(conn)?;
    Ok(())
}

/// A page of the board, best first.
pub fn page(conn: &mut PgConnection, perf: &str, cursor: Option<&str>) -> Result<Board, Error> {
    serial(conn)?;
    let from = cursor.map(parse_cursor).transpose()?;
    let found = after(conn, perf, from, PAGE)?;
    let lowest = found.last().and_then(|f| f.6).unwrap_or(i32::MAX);
    let ranks = ranks_from(conn, perf, lowest)?;
    let next_cursor = (found.len() as i64 == PAGE)
        .then(|| {
            found
                .last()
                .map(|f| format!("{}_{}", f.6.unwrap_or(0), f.0))
        })
        .flatten();
    let rows = found
        .into_iter()
        .map(|f| {
            let rank = f.6.and_then(|r| ranks.get(&r).copied());
            row(perf, f, rank)
        })
        .collect();
    Ok(Board {
        perf: perf.to_owned(),
        rows,
        next_cursor,
    })
}

/// Me and the board players just above and below me. A provisional (or
/// inactive) me is shown without a rank, among the players nearest my
/// rating.
pub fn around(conn: &mut PgConnection, perf: &str, me: Uuid) -> Result<Board, Error> {
    serial(conn)?;
    let mine: Option<Found> = ratings::table
        .inner_join(users::table)
        .filter(ratings::perf.eq(perf))
        .filter(ratings::user_id.eq(me))
        .select(select())
        .first(conn)
        .optional()?;
    let Some(mine) = mine else {
        return Err(Error::not_found("rating in this perf"));
    };
    let pivot = mine.6.unwrap_or(mine.3.round() as i32);
    // A provisional me sorts as if on the board at my rating.
    let above: Vec<Found> = before(conn, perf, (pivot, me), AROUND)?;
    let below: Vec<Found> = after(conn, perf, Some((pivot, me)), AROUND)?;
    let lowest = below.last().and_then(|f| f.6).unwrap_or(pivot);
    let ranks = ranks_from(conn, perf, lowest)?;
    let rank = |f: &Found| f.6.and_then(|r| ranks.get(&r).copied());
    let mut rows: Vec<BoardRow> = above
        .into_iter()
        .rev()
        .map(|f| row(perf, f.clone(), rank(&f)))
        .collect();
    let my_rank = mine.6.map(|r| rank_of(conn, perf, r)).transpose()?;
    rows.push(row(perf, mine, my_rank));
    rows.extend(below.into_iter().map(|f| row(perf, f.clone(), rank(&f))));
    Ok(Board {
        perf: perf.to_owned(),
        rows,
        next_cursor: None,
    })
}

/// Me and my friends with a rating in the perf, ranked among us.
pub fn friends(conn: &mut PgConnection, perf: &str, me: Uuid) -> Result<Board, Error> {
    let mut circle = vec![me];
    circle.extend(crate::friends::friends_of(conn, me)?);
    let mut found: Vec<Found> = ratings::table
        .inner_join(users::table)
        .filter(ratings::perf.eq(perf))
        .filter(ratings::user_id.eq_any(&circle))
        .select(select())
        .load(conn)?;
    found.sort_by(|a, b| b.3.round().total_cmp(&a.3.round()).then(a.1.cmp(&b.1)));
    let wholes: Vec<i32> = found.iter().map(|f| f.3.round() as i32).collect();
    let rows = found
        .into_iter()
        .enumerate()
        .map(|(i, f)| {
            let rank = 1 + wholes.iter().filter(|w| **w > wholes[i]).count() as i64;
            row(perf, f, Some(rank))
        })
        .collect();
    Ok(Board {
        perf: perf.to_owned(),
        rows,
        next_cursor: None,
    })
}

/// Take players with no rated match in [`ACTIVE_DAYS`] off the boards (the
/// sweep); how many.
pub fn retire_inactive(conn: &mut PgConnection, now: DateTime<Utc>) -> Result<usize, Error> {
    let stale: Vec<(Uuid, String, Option<i32>)> = ratings::table
        .filter(ratings::board_rating.is_not_null())
        .filter(ratings::last_rated_at.lt(now - Duration::days(ACTIVE_DAYS)))
        .order((ratings::perf, ratings::board_rating))
        .limit(1_000)
        .select((ratings::user_id, ratings::perf, ratings::board_rating))
        .for_update()
        .skip_locked()
        .load(conn)?;
    let mut by_perf: BTreeMap<String, BTreeMap<i32, i32>> = BTreeMap::new();
    for (user, perf, board) in &stale {
        diesel::update(ratings::table.find((user, perf)))
            .set(ratings::board_rating.eq(None::<i32>))
            .execute(conn)?;
        if let Some(r) = board {
            *by_perf
                .entry(perf.clone())
                .or_default()
                .entry(*r)
                .or_default() -= 1;
        }
    }
    for (perf, counts) in by_perf {
        super::update::shift_counts(conn, &perf, &counts)?;
    }
    Ok(stale.len())
}

/// A leaving player's standings (docs/decisions/accounts-and-sessions.md):
/// off every leaderboard, their ratings and their history gone. The
/// opponents' rating changes from the same matches are theirs and stay.
pub const PERSONAL: Owner = Owner {
    module: "ratings",
    tables: &["ratings", "rating_changes"],
    phase: Phase::Standings,
    forget: leave_boards,
    exported: Exported::In(&["ratings", "rating_history"]),
    kept: "",
};

fn leave_boards(conn: &mut PgConnection, leaving: &mut Leaving<'_>) -> Result<(), Error> {
    let user = leaving.user;
    let rated: Vec<(String, Option<i32>)> =
        diesel::delete(ratings::table.filter(ratings::user_id.eq(user)))
            .returning((ratings::perf, ratings::board_rating))
            .get_results(conn)?;
    for (perf, board) in rated {
        if let Some(rating) = board {
            let gone = BTreeMap::from([(rating, -1)]);
            super::update::shift_counts(conn, &perf, &gone)?;
        }
    }
    diesel::delete(rating_changes::table.filter(rating_changes::user_id.eq(user))).execute(conn)?;
    Ok(())
}
