//! Taking a seat: the one way a player comes to sit at a table that waits
//! (an invitation accepted, a challenge accepted). Once the last seat is
//! taken the opening is dealt and the match starts (issue #30: nothing is
//! dealt while a seat is open).

use crate::error::Error;
use crate::matches::{NewEvent, ServiceEvent, Table};
use crate::schema::match_seats;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use posthorn_rules::{MatchState, Random};
use uuid::Uuid;

/// Seat `user` at `seat` (an invitation's or a challenge's), with the
/// `player_joined` fact. Once every seat is taken the opening is dealt
/// and the match starts, in the same append.
pub fn take_seat(
    conn: &mut PgConnection,
    table: &mut Table,
    seat: i16,
    user: Uuid,
    now: DateTime<Utc>,
    random: &mut dyn Random,
) -> Result<(), Error> {
    // A block keeps a pair apart however their seats were filled:
    // challenged before the block, or one by invitation (issue #30).
    let mut others: Vec<Uuid> = table.seats.iter().flatten().copied().collect();
    others.extend(crate::matches::challenged::challenged_users(
        conn,
        table.row.id,
    )?);
    crate::friends::ensure_apart(conn, user, &others)?;
    diesel::update(match_seats::table.find((table.row.id, seat)))
        .set(match_seats::user_id.eq(user))
        .execute(conn)?;
    table.seats[seat as usize] = Some(user);
    let mut events = vec![NewEvent {
        seat: Some(posthorn_rules::Seat(seat as u8)),
        rules: false,
        body: ServiceEvent::PlayerJoined.to_body(),
    }];
    if table.seats.iter().all(Option::is_some) && !dealt(conn, table.row.id)? {
        let config = &table.row.options;
        let opening = MatchState::setup(table.game, config, table.seats.len(), random)?;
        events.extend(NewEvent::from_rules(None, opening));
    }
    table.append(conn, events, now)?;
    Ok(())
}

/// Whether the match's opening is in its log (matches created before
/// issue #30 were dealt at creation).
fn dealt(conn: &mut PgConnection, match_id: Uuid) -> Result<bool, Error> {
    use crate::schema::match_events;
    Ok(diesel::select(diesel::dsl::exists(
        match_events::table
            .filter(match_events::match_id.eq(match_id))
            .filter(match_events::rules.eq(true)),
    ))
    .get_result(conn)?)
}
