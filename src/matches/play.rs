//! Playing: posting an action, listing legal actions, reading the event
//! feed and the list of my matches.

use super::load::{AwaySql, NotAsked};
use super::snapshots::Snapshot;
use super::{conditional, courtesy, EventRow, EventView, MatchView, NewEvent, Table};
use crate::error::Error;
use crate::idempotency::{self, Keyed};
use crate::matches::MatchStatus;
use crate::schema::{match_events, match_seats, matches};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use posthorn_rules::{Env, Random, Seat};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

pub const PAGE_SIZE: i64 = 20;

#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ActionRequest {
    /// The seq of the match the client saw; a stale one gets 409.
    #[schema(minimum = 0)]
    pub seq: i32,
    /// The seat to act from, for a player holding several (four-player
    /// chess with two players); otherwise the player's one seat. A seat
    /// index (0 to 3) that is not one of yours is refused.
    #[serde(default)]
    #[schema(minimum = 0, maximum = 3)]
    pub seat: Option<u8>,
    /// `{"type": …}` — one of the legal actions. `resign` and `grant_time`
    /// are the service's own and valid in every game.
    #[schema(value_type = Object)]
    pub action: Value,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct ActionAnswer {
    /// The match's game (as in `match.game`): a generated client picks
    /// the game's event models by it.
    #[serde(default)]
    pub game: String,
    #[serde(rename = "match")]
    pub match_view: MatchView,
    #[schema(value_type = Vec<Object>)]
    pub events: Vec<EventView>,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct LegalActions {
    /// The match's game: a generated client picks the game's action
    /// models by it.
    pub game: String,
    pub seq: i32,
    /// Every action of every seat I hold.
    #[schema(value_type = Vec<Object>)]
    pub actions: Vec<Value>,
    /// The same, seat by seat: a player holding several seats posts an
    /// action with its `seat`.
    pub seats: Vec<SeatActions>,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct SeatActions {
    #[schema(minimum = 0, maximum = 3)]
    pub seat: u8,
    #[schema(value_type = Vec<Object>)]
    pub actions: Vec<Value>,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct EventFeed {
    /// The match's game: a generated client picks the game's event models
    /// by it.
    pub game: String,
    pub seq: i32,
    #[schema(value_type = Vec<Object>)]
    pub events: Vec<EventView>,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct MatchPage {
    pub items: Vec<MatchView>,
    /// Pass as `cursor` for the next page; none at the end.
    #[schema(pattern = "^[A-Za-z0-9_-]+$")]
    pub next_cursor: Option<String>,
}

fn to_millis(t: DateTime<Utc>) -> i64 {
    t.timestamp_millis()
}

/// Resolve the short windows (§F8) that have closed by `now`, exactly once:
/// the first request or sweep that finds them closed appends the result.
pub fn resolve_expired(
    conn: &mut PgConnection,
    table: &mut Table,
    now: DateTime<Utc>,
    random: &mut dyn Random,
) -> Result<Vec<EventRow>, Error> {
    let mut env = Env {
        now: to_millis(now),
        random,
    };
    let events = NewEvent::from_rules(None, table.state.expire(&mut env));
    if events.is_empty() {
        return Ok(Vec::new());
    }
    table.append(conn, events, now)
}

/// Whether a short window (§F8) of `table` has closed by `now` and is
/// still to be resolved.
pub fn window_closed(table: &Table, now: DateTime<Utc>) -> bool {
    let now_ms = to_millis(now);
    (table.state.to_act().iter()).any(|d| d.closes_at.is_some_and(|c| c <= now_ms))
}

/// The seat `user` acts from: the one the request names, else the first
/// of theirs that owes something, else their first.
fn acting_seat(table: &Table, user: Uuid, named: Option<u8>) -> Result<Seat, Error> {
    let mine = table.seats_of(user);
    if let Some(named) = named {
        return mine
            .into_iter()
            .find(|m| m.0 == named)
            .ok_or_else(|| Error::validation("seat must be one of your seats"));
    }
    let owing = table.state.to_act();
    mine.iter()
        .copied()
        .find(|s| owing.iter().any(|d| d.seat == *s))
        .or(mine.first().copied())
        // A challenged player sees the match but holds no seat yet.
        .ok_or_else(|| Error::conflict("accept the challenge first: you have no seat yet"))
}

/// An action taken: the answer, the table to remember once committed,
/// and whether the actor is on vacation (which acting ends, after the
/// commit).
pub struct Acted {
    pub answer: ActionAnswer,
    pub snapshot: Snapshot,
    pub away: bool,
}

/// Who acts, and how their vacation is asked after (`load::AwaySql`).
#[derive(Clone, Copy, Debug)]
pub struct Actor<A: AwaySql = NotAsked> {
    pub user: Uuid,
    pub away: A,
}

impl Actor {
    /// An actor whose vacation acting does not end: a computer, or a
    /// player resigning as they leave.
    pub fn not_asking(user: Uuid) -> Actor {
        Actor {
            user,
            away: NotAsked,
        }
    }
}

/// Post an action (docs/design.md §3: one transaction, the match row locked).
pub fn act<A: AwaySql>(
    conn: &mut PgConnection,
    match_id: Uuid,
    actor: Actor<A>,
    request: ActionRequest,
    keyed: Option<Keyed>,
    now: DateTime<Utc>,
    random: &mut dyn Random,
) -> Result<Acted, Error> {
    let user = actor.user;
    let (mut table, away) = Table::load_to_act::<A>(conn, match_id, user)?;
    if let Some(answer) = idempotency::replay(keyed.as_ref(), conn, user, now)? {
        let answer = serde_json::from_value(answer).map_err(Error::internal)?;
        let snapshot = table.snapshot();
        return Ok(Acted {
            answer,
            snapshot,
            away,
        });
    }
    if !super::stale::saw_the_position(conn, &table, request.seq)? {
        return Err(Error::stale_seq(table.row.seq));
    }
    match table.row.status {
        MatchStatus::Waiting => {
            return Err(Error::conflict("the match starts when every seat is taken"))
        }
        MatchStatus::Cancelled => return Err(Error::conflict("the match was cancelled")),
        MatchStatus::Active | MatchStatus::Finished => {}
    }
    let action = request.action;
    let seat = acting_seat(&table, user, request.seat)?;
    let mut appended = resolve_expired(conn, &mut table, now, random)?;
    if courtesy::is_grant(&action)? {
        appended.extend(courtesy::grant(conn, &mut table, seat, now)?);
    } else {
        let mut env = Env {
            now: to_millis(now),
            random,
        };
        let events = table.state.act(seat, &action, &mut env)?;
        let new_events = NewEvent::from_rules(Some(seat), events);
        appended.extend(table.append(conn, new_events, now)?);
        // The opponent's stored reply, if a line of theirs matches: in
        // this transaction, in this answer
        // (docs/decisions/matches-and-deadlines.md, "Conditional moves").
        appended.extend(conditional::answer(conn, &mut table, seat, now, random)?);
    }
    let answer = ActionAnswer {
        game: table.game.id().to_owned(),
        match_view: table.view_for(conn, user)?,
        events: appended
            .iter()
            .map(|e| table.event_view(e, user))
            .collect::<Result<_, _>>()?,
    };
    if let Some(keyed) = keyed {
        let stored = serde_json::to_value(&answer).map_err(Error::internal)?;
        keyed.remember(conn, user, match_id, stored, now)?;
    }
    let snapshot = table.snapshot();
    Ok(Acted {
        answer,
        snapshot,
        away,
    })
}

fn events_since(
    conn: &mut PgConnection,
    table: &Table,
    after: i32,
    user: Uuid,
) -> Result<Vec<EventView>, Error> {
    let rows: Vec<EventRow> = match_events::table
        .filter(match_events::match_id.eq(table.row.id))
        .filter(match_events::seq.gt(after))
        .order(match_events::seq)
        .select(EventRow::as_select())
        .load(conn)?;
    rows.iter().map(|e| table.event_view(e, user)).collect()
}

/// Load one of my matches, resolving closed short windows first.
fn load_current(
    conn: &mut PgConnection,
    match_id: Uuid,
    user: Uuid,
    now: DateTime<Utc>,
    random: &mut dyn Random,
) -> Result<Table, Error> {
    let mut table = Table::load_mine(conn, match_id, user, false)?;
    if window_closed(&table, now) {
        // The one write a read may make (`db::read` holds no
        // transaction): in a transaction of its own, under the row lock.
        table = conn.transaction(|conn| {
            let mut table = Table::load_mine(conn, match_id, user, true)?;
            resolve_expired(conn, &mut table, now, random)?;
            Ok::<_, Error>(table)
        })?;
    }
    Ok(table)
}

pub fn view(
    conn: &mut PgConnection,
    match_id: Uuid,
    user: Uuid,
    now: DateTime<Utc>,
    random: &mut dyn Random,
) -> Result<MatchView, Error> {
    let mut table = load_current(conn, match_id, user, now, random)?;
    table.view_for(conn, user)
}

pub fn legal_actions(
    conn: &mut PgConnection,
    match_id: Uuid,
    user: Uuid,
    now: DateTime<Utc>,
    random: &mut dyn Random,
) -> Result<LegalActions, Error> {
    let table = load_current(conn, match_id, user, now, random)?;
    let mut seats = Vec::new();
    if table.row.status == MatchStatus::Active {
        for seat in table.seats_of(user) {
            let mut actions = table.state.legal_actions(seat);
            // A seat with no actions is out of the match: no time to grant.
            if !actions.is_empty() && courtesy::beneficiary(conn, &table, seat)?.is_some() {
                actions.push(serde_json::json!({"type": "grant_time"}));
            }
            seats.push(SeatActions {
                seat: seat.0,
                actions,
            });
        }
    }
    Ok(LegalActions {
        game: table.game.id().to_owned(),
        seq: table.row.seq,
        actions: seats.iter().flat_map(|s| s.actions.clone()).collect(),
        seats,
    })
}

pub fn events(
    conn: &mut PgConnection,
    match_id: Uuid,
    user: Uuid,
    after: i32,
    now: DateTime<Utc>,
    random: &mut dyn Random,
) -> Result<EventFeed, Error> {
    let table = load_current(conn, match_id, user, now, random)?;
    Ok(EventFeed {
        game: table.game.id().to_owned(),
        seq: table.row.seq,
        events: events_since(conn, &table, after, user)?,
    })
}

/// My matches: those awaiting me first, then by nearest deadline, then the
/// most recently changed. The cursor is an opaque offset into that order.
/// What `GET /v1/matches` narrows my matches to.
#[derive(Debug, Default)]
pub struct Filters {
    pub status: Option<String>,
    /// A game id (`janggi`).
    pub game: Option<String>,
    /// A username: only matches they sit in too.
    pub opponent: Option<String>,
}

pub fn list(
    conn: &mut PgConnection,
    user: Uuid,
    filters: Filters,
    cursor: Option<String>,
) -> Result<MatchPage, Error> {
    let Filters {
        status,
        game,
        opponent,
    } = filters;
    let offset = match cursor {
        Some(c) => {
            decode_cursor(&c).ok_or_else(|| Error::validation("that cursor is not valid"))?
        }
        None => 0,
    };
    let my_matches = match_seats::table
        .filter(match_seats::user_id.eq(user))
        .select(match_seats::match_id);
    let challenged = super::challenged::matches_of(user);
    let mut query = matches::table
        .filter(
            matches::id
                .eq_any(my_matches)
                .or(matches::id.eq_any(challenged)),
        )
        .select(matches::id)
        .into_boxed();
    if let Some(status) = &status {
        let status = MatchStatus::parse(status).ok_or_else(|| {
            Error::validation("status is one of waiting, active, finished, cancelled")
        })?;
        query = query.filter(matches::status.eq(status));
    }
    if let Some(game) = &game {
        let game = posthorn_rules::GameId::parse(game).ok_or_else(|| {
            let ids: Vec<&str> = posthorn_rules::GameId::ALL.iter().map(|g| g.id()).collect();
            Error::validation(format!("game is one of {}", ids.join(", ")))
        })?;
        query = query.filter(matches::game.eq(game.id()));
    }
    if let Some(name) = &opponent {
        let other = crate::players::named(conn, name)?;
        let theirs = match_seats::table
            .filter(match_seats::user_id.eq(other.id))
            .select(match_seats::match_id);
        query = query.filter(matches::id.eq_any(theirs));
    }
    let ids: Vec<Uuid> = query
        .order((
            matches::awaiting.contains(vec![user]).desc(),
            matches::deadline_at.asc().nulls_last(),
            matches::updated_at.desc(),
            matches::id.asc(),
        ))
        .offset(offset)
        .limit(PAGE_SIZE + 1)
        .load(conn)?;
    let more = ids.len() as i64 > PAGE_SIZE;
    let mut tables = Vec::new();
    for id in ids.into_iter().take(PAGE_SIZE as usize) {
        tables.extend(Table::load(conn, id, false)?);
    }
    let everyone = tables
        .iter()
        .flat_map(|t| t.seats.iter().flatten().copied())
        .collect();
    let players = crate::players::load(conn, everyone)?;
    Ok(MatchPage {
        items: (tables.iter())
            .map(|t| t.view_with(&players, user))
            .collect::<Result<_, _>>()?,
        next_cursor: more.then(|| encode_cursor(offset + PAGE_SIZE)),
    })
}

fn encode_cursor(offset: i64) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("o:{offset}"))
}

fn decode_cursor(cursor: &str) -> Option<i64> {
    use base64::Engine;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(cursor)
        .ok()?;
    String::from_utf8(bytes)
        .ok()?
        .strip_prefix("o:")?
        .parse()
        .ok()
        .filter(|o| *o >= 0)
}
