//! The read models other modules need of the match tables, in one place:
//! only `src/matches/` names `matches`, `match_seats` and `match_events`
//! (docs/architecture.md, "The match tables have one owner";
//! `tests/service/layers.rs` holds the line). Each function answers one
//! question in the vocabulary of its caller; the few that lock what they
//! read say so, and lock in id order like every other multi-match lock.
//!
//! A subquery ([`Ids`]) is handed out where the caller filters its own
//! table by the matches (`challenges::match_id.eq_any(waiting())`), so
//! the read stays one statement.

use super::{MatchRow, MatchStatus};
use crate::error::Error;
use crate::schema::{match_seats, matches};
use chrono::{DateTime, Utc};
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::PgConnection;
use serde_json::Value;
use std::collections::HashMap;
use uuid::Uuid;

pub use super::Ids;

/// The matches waiting for their seats to fill.
pub fn waiting() -> Ids {
    matches::table
        .filter(matches::status.eq(MatchStatus::Waiting))
        .select(matches::id)
        .into_boxed()
}

/// The waiting matches `creator` made.
pub fn waiting_made_by(creator: Uuid) -> Ids {
    waiting().filter(matches::created_by.eq(creator))
}

/// The ids of every match `user` sits in (any status).
fn seated(user: Uuid) -> match_seats::BoxedQuery<'static, Pg, diesel::sql_types::Uuid> {
    match_seats::table
        .filter(match_seats::user_id.eq(user))
        .select(match_seats::match_id)
        .into_boxed()
}

/// One match's row, unlocked.
pub fn row(conn: &mut PgConnection, id: Uuid) -> Result<Option<MatchRow>, Error> {
    Ok(matches::table
        .find(id)
        .select(MatchRow::as_select())
        .first(conn)
        .optional()?)
}

/// A match waiting on a player, as a reminder lists it.
#[derive(Queryable)]
pub struct Awaiting {
    pub id: Uuid,
    pub game: String,
    pub deadline_at: Option<DateTime<Utc>>,
}

/// The active matches waiting on `user`, the nearest deadline first.
pub fn awaiting(conn: &mut PgConnection, user: Uuid) -> Result<Vec<Awaiting>, Error> {
    Ok(matches::table
        .filter(matches::status.eq(MatchStatus::Active))
        .filter(matches::awaiting.contains(vec![user]))
        .order(matches::deadline_at.asc().nulls_last())
        .select((matches::id, matches::game, matches::deadline_at))
        .load(conn)?)
}

/// The game of each of the matches `ids` (a notice names its game).
pub fn games_of(
    conn: &mut PgConnection,
    ids: &[Uuid],
) -> Result<std::collections::HashMap<Uuid, String>, Error> {
    Ok(matches::table
        .filter(matches::id.eq_any(ids))
        .select((matches::id, matches::game))
        .load::<(Uuid, String)>(conn)?
        .into_iter()
        .collect())
}

/// The variant of `game` that `user` has sat in most matches of (not
/// counting cancelled ones), if any: the daily puzzle's default.
pub fn most_played_variant(
    conn: &mut PgConnection,
    user: Uuid,
    game: &str,
) -> Result<Option<String>, Error> {
    let most: Option<(Option<String>, i64)> = matches::table
        .filter(matches::id.eq_any(seated(user)))
        .filter(matches::game.eq(game))
        .filter(matches::status.ne(MatchStatus::Cancelled))
        .filter(matches::variant.is_not_null())
        .group_by(matches::variant)
        .select((matches::variant, diesel::dsl::count_star()))
        .order((diesel::dsl::count_star().desc(), matches::variant))
        .first(conn)
        .optional()?;
    Ok(most.and_then(|(variant, _)| variant))
}

/// How many active matches wait on `user`.
pub fn awaiting_count(conn: &mut PgConnection, user: Uuid) -> Result<i64, Error> {
    Ok(matches::table
        .filter(matches::status.eq(MatchStatus::Active))
        .filter(matches::awaiting.contains(vec![user]))
        .count()
        .get_result(conn)?)
}

/// How many active matches wait on `user` where someone else at the
/// table is a person (docs/decisions/web-client.md, "The board on a
/// phone"): a person waits there, where a match against computers only
/// waits on the player's own leisure.
pub fn awaiting_people_count(conn: &mut PgConnection, user: Uuid) -> Result<i64, Error> {
    use crate::schema::users;
    let people = match_seats::table
        .inner_join(users::table.on(match_seats::user_id.eq(users::id.nullable())))
        .filter(match_seats::match_id.eq(matches::id))
        .filter(users::id.ne(user))
        .filter(users::computer.is_null());
    Ok(matches::table
        .filter(matches::status.eq(MatchStatus::Active))
        .filter(matches::awaiting.contains(vec![user]))
        .filter(diesel::dsl::exists(people))
        .count()
        .get_result(conn)?)
}

/// Every active match `me` shares with anyone, one line per other
/// player, the nearest deadline first.
pub fn shared_active(
    conn: &mut PgConnection,
    me: Uuid,
) -> Result<Vec<crate::friends::SharedMatch>, Error> {
    // The deadline is selected because DISTINCT orders only by what it selects.
    type Line = (Uuid, Vec<Uuid>, Option<Uuid>, Option<DateTime<Utc>>);
    let rows: Vec<Line> = matches::table
        .inner_join(match_seats::table)
        .filter(matches::id.eq_any(seated(me)))
        .filter(match_seats::user_id.ne(me))
        .filter(matches::status.eq(MatchStatus::Active))
        .order(matches::deadline_at)
        .select((
            matches::id,
            matches::awaiting,
            match_seats::user_id,
            matches::deadline_at,
        ))
        .distinct()
        .load(conn)?;
    Ok(rows
        .into_iter()
        .filter_map(|(id, awaiting, other, _)| {
            Some(crate::friends::SharedMatch {
                id,
                other: other?,
                awaiting,
            })
        })
        .collect())
}

/// How many active matches `player` has against any of `computers`.
pub fn active_against(
    conn: &mut PgConnection,
    player: Uuid,
    computers: Vec<Uuid>,
) -> Result<i64, Error> {
    let against = match_seats::table
        .filter(match_seats::user_id.eq_any(computers))
        .select(match_seats::match_id);
    Ok(matches::table
        .filter(matches::status.eq(MatchStatus::Active))
        .filter(matches::id.eq_any(seated(player)))
        .filter(matches::id.eq_any(against))
        .count()
        .get_result(conn)?)
}

/// The active matches `user` plays in, in id order (the order every
/// multi-match lock takes).
pub fn active_of(conn: &mut PgConnection, user: Uuid) -> Result<Vec<Uuid>, Error> {
    Ok(matches::table
        .filter(matches::status.eq(MatchStatus::Active))
        .filter(matches::id.eq_any(seated(user)))
        .order(matches::id)
        .select(matches::id)
        .load(conn)?)
}

/// A match not yet over, as it stands.
#[derive(Queryable)]
pub struct Open {
    pub id: Uuid,
    pub status: MatchStatus,
    pub seq: i32,
}

/// The active or waiting matches `user` sits in, locked in id order.
pub fn lock_open_of(conn: &mut PgConnection, user: Uuid) -> Result<Vec<Open>, Error> {
    Ok(matches::table
        .filter(matches::id.eq_any(seated(user)))
        .filter(matches::status.eq_any([MatchStatus::Active, MatchStatus::Waiting]))
        .order(matches::id)
        .select((matches::id, matches::status, matches::seq))
        .for_update()
        .load(conn)?)
}

/// Which of `ids` are active, locked in id order, with their seq.
pub fn lock_active(conn: &mut PgConnection, ids: &[Uuid]) -> Result<Vec<(Uuid, i32)>, Error> {
    Ok(matches::table
        .filter(matches::id.eq_any(ids))
        .filter(matches::status.eq(MatchStatus::Active))
        .order(matches::id.asc())
        .select((matches::id, matches::seq))
        .for_update()
        .load(conn)?)
}

/// Every match `user` sits in or is challenged to, oldest first.
pub fn of_player(conn: &mut PgConnection, user: Uuid) -> Result<Vec<Uuid>, Error> {
    Ok(matches::table
        .filter(
            matches::id
                .eq_any(seated(user))
                .or(matches::id.eq_any(super::challenged::matches_of(user))),
        )
        .order(matches::created_at)
        .select(matches::id)
        .load(conn)?)
}

/// Which of the `(match, seq)` pairs still wait there: the match active
/// and at that seq.
pub fn still_at(conn: &mut PgConnection, pairs: &[(Uuid, i32)]) -> Result<Vec<(Uuid, i32)>, Error> {
    let ids: Vec<Uuid> = pairs.iter().map(|(id, _)| *id).collect();
    let now: Vec<(Uuid, i32)> = matches::table
        .filter(matches::id.eq_any(ids))
        .filter(matches::status.eq(MatchStatus::Active))
        .select((matches::id, matches::seq))
        .load(conn)?;
    Ok(pairs.iter().filter(|p| now.contains(p)).copied().collect())
}

/// The tournaments with a match in play.
pub fn tournaments_in_play() -> matches::BoxedQuery<'static, Pg, diesel::sql_types::Uuid> {
    matches::table
        .filter(matches::status.eq(MatchStatus::Active))
        .filter(matches::tournament_id.is_not_null())
        .select(matches::tournament_id.assume_not_null())
        .into_boxed()
}

/// Where a match stands, as a tournament's table reads it.
#[derive(Clone, Debug)]
pub struct Standing {
    pub status: MatchStatus,
    pub seq: i32,
    pub result: Option<serde_json::Value>,
    /// Each seated player's seat.
    pub seats: HashMap<Uuid, i16>,
}

/// Where each of `ids` stands: two reads.
pub fn standings(conn: &mut PgConnection, ids: &[Uuid]) -> Result<HashMap<Uuid, Standing>, Error> {
    let mut out: HashMap<Uuid, Standing> = matches::table
        .filter(matches::id.eq_any(ids))
        .select((matches::id, matches::status, matches::seq, matches::result))
        .load::<(Uuid, MatchStatus, i32, Option<serde_json::Value>)>(conn)?
        .into_iter()
        .map(|(id, status, seq, result)| {
            let seats = HashMap::new();
            (
                id,
                Standing {
                    status,
                    seq,
                    result,
                    seats,
                },
            )
        })
        .collect();
    let seats: Vec<(Uuid, Option<Uuid>, i16)> = match_seats::table
        .filter(match_seats::match_id.eq_any(ids))
        .filter(match_seats::user_id.is_not_null())
        .select((
            match_seats::match_id,
            match_seats::user_id,
            match_seats::seat,
        ))
        .load(conn)?;
    for (id, user, seat) in seats {
        if let (Some(standing), Some(user)) = (out.get_mut(&id), user) {
            standing.seats.insert(user, seat);
        }
    }
    Ok(out)
}

/// The finished matches `me` and `them` both sat in, newest first (at
/// most `limit`), each with the seats `me` held.
pub fn finished_between(
    conn: &mut PgConnection,
    me: Uuid,
    them: Uuid,
    limit: i64,
) -> Result<Vec<(MatchRow, Vec<i16>)>, Error> {
    let rows: Vec<MatchRow> = matches::table
        .filter(matches::id.eq_any(seated(me)))
        .filter(matches::id.eq_any(seated(them)))
        .filter(matches::status.eq(MatchStatus::Finished))
        .order(matches::updated_at.desc())
        .limit(limit)
        .select(MatchRow::as_select())
        .load(conn)?;
    let ids: Vec<Uuid> = rows.iter().map(|r| r.id).collect();
    let mine: Vec<(Uuid, i16)> = match_seats::table
        .filter(match_seats::match_id.eq_any(ids))
        .filter(match_seats::user_id.eq(me))
        .select((match_seats::match_id, match_seats::seat))
        .load(conn)?;
    Ok(rows
        .into_iter()
        .map(|row| {
            let seats = (mine.iter().filter(|(m, _)| *m == row.id))
                .map(|(_, s)| *s)
                .collect();
            (row, seats)
        })
        .collect())
}

/// Claim up to `limit` due matches that no other sweeper holds: passed
/// deadlines first, earliest first, then due notices; locked. Each
/// condition is read in the order of its own partial index; an `OR` of
/// the two let PostgreSQL pick a sequential scan of every match, which
/// with due matches clustered on disk took 20–400 ms per batch
/// (docs/benchmarks.md, "Deadline sweep at scale").
pub fn claim_due(
    conn: &mut PgConnection,
    now: DateTime<Utc>,
    limit: i64,
) -> Result<Vec<MatchRow>, Error> {
    let mut claimed: Vec<MatchRow> = matches::table
        .filter(matches::status.eq(MatchStatus::Active))
        .filter(matches::deadline_at.le(now))
        .order(matches::deadline_at)
        .select(MatchRow::as_select())
        .limit(limit)
        .for_update()
        .skip_locked()
        .load(conn)?;
    let room = limit - claimed.len() as i64;
    if room > 0 {
        // Our own locks do not skip: leave out what is claimed already.
        let taken: Vec<Uuid> = claimed.iter().map(|m| m.id).collect();
        let noticed: Vec<MatchRow> = matches::table
            .filter(matches::status.eq(MatchStatus::Active))
            .filter(matches::notice_at.le(now))
            .filter(diesel::dsl::not(matches::id.eq_any(&taken)))
            .order(matches::notice_at)
            .select(MatchRow::as_select())
            .limit(room)
            .for_update()
            .skip_locked()
            .load(conn)?;
        claimed.extend(noticed);
    }
    Ok(claimed)
}

/// My friends and requests, each friend with the active matches we share
/// that wait on either of us.
pub fn friends(conn: &mut PgConnection, me: Uuid) -> Result<crate::friends::Friends, Error> {
    let shared = shared_active(conn, me)?;
    crate::friends::list(conn, me, &shared)
}

/// Where a match stands for its open pages (`crate::live`).
pub struct Stand {
    pub id: Uuid,
    pub seq: i32,
    pub rematch_offers: i64,
}

/// Where each of the matches `ids` stands.
pub fn stands(conn: &mut PgConnection, ids: &[Uuid]) -> Result<Vec<Stand>, Error> {
    let seqs: Vec<(Uuid, i32)> = matches::table
        .filter(matches::id.eq_any(ids))
        .select((matches::id, matches::seq))
        .load(conn)?;
    let offers = super::rematch_offers::counts(conn, ids)?;
    Ok(seqs
        .into_iter()
        .map(|(id, seq)| Stand {
            id,
            seq,
            rematch_offers: offers.get(&id).copied().unwrap_or(0),
        })
        .collect())
}

/// The seq of match `id` if `user` may read it (`super::may_read`),
/// without folding it: a live
/// page's first word (`crate::live`).
pub fn seq_seen_by(conn: &mut PgConnection, id: Uuid, user: Uuid) -> Result<i32, Error> {
    let seated = match_seats::table
        .filter(match_seats::match_id.eq(id))
        .filter(match_seats::user_id.eq(user));
    let seq: Option<i32> = matches::table
        .filter(matches::id.eq(id))
        .select(matches::seq)
        .first(conn)
        .optional()?;
    match seq {
        Some(seq) => {
            let seated = diesel::select(diesel::dsl::exists(seated)).get_result(conn)?;
            if super::may_read(conn, id, user, seated)? {
                Ok(seq)
            } else {
                Err(Error::not_found("match"))
            }
        }
        None => Err(Error::not_found("match")),
    }
}

/// A finished match as the miner reads it: its game, options, number of
/// seats and folded log (takebacks honoured).
pub type Finished = (String, Value, usize, Vec<Value>);

/// Match `id` if it is finished (a match being played is never read).
pub fn finished(conn: &mut PgConnection, id: Uuid) -> Result<Option<Finished>, Error> {
    let row: Option<(String, Value, i32)> = matches::table
        .find(id)
        .filter(matches::status.eq(MatchStatus::Finished))
        .select((matches::game, matches::options, matches::seq))
        .first(conn)
        .optional()?;
    let Some((game, options, seq)) = row else {
        return Ok(None);
    };
    let mut logs = super::fold::folded(conn, &HashMap::from([(id, seq)]))?;
    let seats: i64 = match_seats::table
        .filter(match_seats::match_id.eq(id))
        .count()
        .get_result(conn)?;
    Ok(Some((
        game,
        options,
        seats as usize,
        logs.remove(&id).unwrap_or_default(),
    )))
}

/// The people seated at match `id` (its computers aside), in seat order.
pub fn people_at(conn: &mut PgConnection, id: Uuid) -> Result<Vec<Uuid>, Error> {
    use crate::schema::users;
    Ok(match_seats::table
        .inner_join(users::table)
        .filter(match_seats::match_id.eq(id))
        .filter(users::computer.is_null())
        .order(match_seats::seat)
        .select(users::id)
        .load(conn)?)
}

/// Of `asked` (user, match, seq), those whose user has played in that
/// match after `seq`: a rules event of one of their seats
/// (docs/decisions/notifications.md, "At the table": a notice held while
/// they were at the table is moot once they act). A service event of their
/// seat (a timeout notice, a vacation) is not theirs to have made.
pub fn acted_after(
    conn: &mut PgConnection,
    asked: &[(Uuid, Uuid, i32)],
) -> Result<std::collections::HashSet<(Uuid, Uuid, i32)>, Error> {
    use diesel::sql_types::{Array, Integer, Uuid as SqlUuid};
    #[derive(QueryableByName)]
    struct Acted {
        #[diesel(sql_type = SqlUuid)]
        user_id: Uuid,
        #[diesel(sql_type = SqlUuid)]
        match_id: Uuid,
        #[diesel(sql_type = Integer)]
        seq: i32,
    }
    if asked.is_empty() {
        return Ok(Default::default());
    }
    let users: Vec<Uuid> = asked.iter().map(|a| a.0).collect();
    let ids: Vec<Uuid> = asked.iter().map(|a| a.1).collect();
    let seqs: Vec<i32> = asked.iter().map(|a| a.2).collect();
    let acted: Vec<Acted> = diesel::sql_query(
        "SELECT a.u AS user_id, a.m AS match_id, a.s AS seq \
           FROM unnest($1::uuid[], $2::uuid[], $3::int4[]) AS a(u, m, s) \
          WHERE EXISTS (SELECT 1 FROM match_events e \
                          JOIN match_seats t ON t.match_id = e.match_id AND t.seat = e.seat \
                         WHERE e.match_id = a.m AND e.seq > a.s AND e.rules \
                           AND t.user_id = a.u)",
    )
    .bind::<Array<SqlUuid>, _>(users)
    .bind::<Array<SqlUuid>, _>(ids)
    .bind::<Array<Integer>, _>(seqs)
    .load(conn)?;
    Ok(acted
        .into_iter()
        .map(|a| (a.user_id, a.match_id, a.seq))
        .collect())
}

/// How many of the matches `ids` had any of `users` at the table (the
/// coins' pairing limit, docs/rules/rewards.md §R5).
pub fn shared_with(conn: &mut PgConnection, ids: &[Uuid], users: &[Uuid]) -> Result<i64, Error> {
    if ids.is_empty() || users.is_empty() {
        return Ok(0);
    }
    Ok(match_seats::table
        .filter(match_seats::match_id.eq_any(ids))
        .filter(match_seats::user_id.eq_any(users))
        .select(diesel::dsl::count(match_seats::match_id).aggregate_distinct())
        .get_result(conn)?)
}
