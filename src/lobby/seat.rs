//! Taking a seat: the one way a player comes to sit at a table that waits
//! (an invitation accepted, a challenge accepted). Once the last seat is
//! taken the opening is dealt and the match starts
//! (docs/decisions/challenges-and-lobby.md: nothing is dealt while a seat
//! is open).

use crate::error::Error;
use crate::matches::{NewEvent, ServiceEvent, Table};
use chrono::{DateTime, Utc};
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
    // challenged before the block, or one by invitation (docs/abuse.md,
    // "Blocks").
    let mut others: Vec<Uuid> = table.seats.iter().flatten().copied().collect();
    others.extend(crate::matches::challenged::challenged_users(
        conn,
        table.row.id,
    )?);
    crate::friends::ensure_apart(conn, user, &others)?;
    table.sit(conn, seat, user)?;
    let mut events = vec![NewEvent {
        seat: Some(posthorn_rules::Seat(seat as u8)),
        rules: false,
        body: ServiceEvent::PlayerJoined.to_body(),
    }];
    if table.seats.iter().all(Option::is_some) && !table.dealt(conn)? {
        let config = &table.row.options;
        let opening = MatchState::setup(table.game, config, table.seats.len(), random)?;
        events.extend(NewEvent::from_rules(None, opening));
    }
    table.append(conn, events, now)?;
    Ok(())
}
