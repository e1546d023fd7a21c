//! Courtesy time (docs/decisions/matches-and-deadlines.md): the opponent of
//! a seat on move may grant it 24 hours more, up to three times per match
//! for each granting seat — as lichess does for friendly correspondence
//! games. A grant is a service event; it moves the turn's notice and
//! deadline.

use super::{MatchStatus, NewEvent, ServiceEvent, Table};
use crate::error::Error;
use crate::schema::match_events;
use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use posthorn_rules::{DutyKind, RuleError, Seat};
use serde_json::Value;

pub const GRANT_HOURS: i64 = 24;
pub const GRANTS_PER_SEAT: i64 = 3;

/// `{"type": "grant_time"}`, and nothing else in it.
pub fn is_grant(action: &Value) -> Result<bool, Error> {
    match action.as_object() {
        Some(obj) if obj.get("type").and_then(Value::as_str) == Some("grant_time") => {
            if obj.len() > 1 {
                return Err(Error::validation("grant_time takes no other fields"));
            }
            Ok(true)
        }
        _ => Ok(false),
    }
}

fn grants_by(conn: &mut PgConnection, table: &Table, seat: Seat) -> Result<i64, Error> {
    let kind = diesel::dsl::sql::<diesel::sql_types::Text>("body->>'type'");
    Ok(match_events::table
        .filter(match_events::match_id.eq(table.row.id))
        .filter(match_events::rules.eq(false))
        .filter(match_events::seat.eq(seat.0 as i16))
        .filter(kind.eq("time_granted"))
        .count()
        .get_result(conn)?)
}

/// The seat `granter` may give time to now, if any. `granter` is still in
/// the match: the callers check that a seat with nothing left to do
/// (eliminated, docs/rules/four-player-chess.md §Q7) grants nothing.
pub fn beneficiary(
    conn: &mut PgConnection,
    table: &Table,
    granter: Seat,
) -> Result<Option<Seat>, Error> {
    if table.row.status != MatchStatus::Active {
        return Ok(None);
    }
    let Some(to) = table
        .duties()?
        .iter()
        .find(|d| {
            d.kind == DutyKind::Turn
                && d.seat != granter
                && table.seats[d.seat.index()] != table.seats[granter.index()]
        })
        .map(|d| d.seat)
    else {
        return Ok(None);
    };
    // Counted only now: the count reads the match's service events, and
    // most who ask (the seat on move, listing its legal actions) have no
    // one to grant time to.
    if grants_by(conn, table, granter)? >= GRANTS_PER_SEAT {
        return Ok(None);
    }
    Ok(Some(to))
}

pub fn grant(
    conn: &mut PgConnection,
    table: &mut Table,
    granter: Seat,
    now: DateTime<Utc>,
) -> Result<Vec<super::EventRow>, Error> {
    if table.state.legal_actions(granter).is_empty() {
        return Err(RuleError::illegal("you are out of this match").into());
    }
    let Some(to) = beneficiary(conn, table, granter)? else {
        let why = if grants_by(conn, table, granter)? >= GRANTS_PER_SEAT {
            format!("you have already granted time {GRANTS_PER_SEAT} times in this match")
        } else {
            "you can grant time only while your opponent is on move".to_owned()
        };
        return Err(RuleError::illegal(why).into());
    };
    // The event moves the clock (`duties::derive`); it names the deadline
    // it leads to.
    let turn = table.duties()?;
    let turn = turn
        .iter()
        .find(|d| d.seat == to && d.kind == DutyKind::Turn);
    let Some(deadline_at) = turn.and_then(|d| d.deadline_at) else {
        return Err(RuleError::illegal("this match has no deadlines to extend").into());
    };
    let deadline = Some(deadline_at + Duration::hours(GRANT_HOURS));
    let event = NewEvent {
        seat: Some(granter),
        rules: false,
        body: ServiceEvent::TimeGranted {
            to_seat: to.0,
            hours: GRANT_HOURS,
            deadline_at: deadline,
        }
        .to_body(),
    };
    table.append(conn, vec![event], now)
}
