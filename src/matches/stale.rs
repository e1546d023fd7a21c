//! When a seq is stale (docs/decisions/matches-and-deadlines.md): a file of
//! its own, since both a move (`play`) and a takeback (`takeback`) ask it,
//! and `play` reaches `takeback` through the conditional moves.

use super::{ServiceEvent, Table};
use crate::error::Error;
use crate::schema::match_events;
use diesel::prelude::*;
use diesel::PgConnection;
use posthorn_rules::Seat;
use serde_json::Value;

/// How many events behind a re-based action may be: a vacation's start
/// and end and a notice or two between loading and posting, with room.
const REBASED_WITHIN: i32 = 16;

/// Whether a player who loaded the match at `seq` saw the position it
/// stands in now (docs/api.md, "A seq is stale only when the position
/// changed"): every event since only moved the clock (a vacation started or
/// ended, a timeout notice, courtesy time), so an action decided on it is
/// judged on the position as it is, not refused as stale. An opponent
/// toggling vacation cannot make a move late.
pub fn saw_the_position(conn: &mut PgConnection, table: &Table, seq: i32) -> Result<bool, Error> {
    if seq >= table.row.seq {
        return Ok(seq == table.row.seq);
    }
    // Further behind than any run of clock events: stale without reading
    // the log (which a seq of 0 on a long match would read whole, under
    // the match's lock).
    if table.row.seq - seq > REBASED_WITHIN {
        return Ok(false);
    }
    let since: Vec<(Option<i16>, bool, Value)> = match_events::table
        .filter(match_events::match_id.eq(table.row.id))
        .filter(match_events::seq.gt(seq))
        .select((match_events::seat, match_events::rules, match_events::body))
        .load(conn)?;
    Ok(since.iter().all(|(seat, rules, body)| {
        let seat = seat.map(|s| Seat(s as u8));
        !rules && ServiceEvent::from_body(body).is_some_and(|e| e.clock(seat).is_some())
    }))
}
