//! A tournament's room (docs/decisions/table-talk.md):
//! its players talk there by the rules of a match's table (the text,
//! `Idempotency-Key`, the limits, who may write to me, blocks), with no
//! seq to mark, no team channel and no unread count or notice: a group
//! room read on the tournament's page.

use super::{entrants, EntrantState};
use crate::error::Error;
use crate::idempotency::Keyed;
use crate::talk::messages::{self, Message, Messages, Place, Room, Said};
use chrono::{DateTime, Utc};
use diesel::PgConnection;
use uuid::Uuid;

/// The room as `user` finds it: its joined players read and write there;
/// one invited, who declined or withdrew is turned away (403), a stranger
/// finds no tournament (404, as its page). Everyone who was ever in it
/// is heard, so a withdrawn player's words stay.
pub fn room(conn: &mut PgConnection, id: Uuid, user: Uuid) -> Result<Room, Error> {
    let entrants = entrants(conn, id)?;
    match entrants.iter().find(|e| e.user_id == user) {
        None => return Err(Error::not_found("tournament")),
        Some(e) if e.state != EntrantState::Joined => {
            return Err(Error::forbidden(
                "only the tournament's players talk in its room",
            ))
        }
        Some(_) => {}
    }
    let ids = entrants.into_iter().map(|e| e.user_id).collect();
    Ok(Room {
        place: Place::Tournament(id),
        players: crate::players::load(conn, ids)?,
        at_seq: None,
        team: None,
    })
}

/// `POST /v1/tournaments/{id}/messages`.
pub fn post(
    conn: &mut PgConnection,
    id: Uuid,
    author: Uuid,
    said: Said,
    keyed: Option<Keyed>,
    now: DateTime<Utc>,
) -> Result<Message, Error> {
    let room = room(conn, id, author)?;
    Ok(messages::post_in(conn, &room, id, author, said, keyed, now)?.0)
}

/// `GET /v1/tournaments/{id}/messages`.
pub fn list(
    conn: &mut PgConnection,
    id: Uuid,
    reader: Uuid,
    before: Option<Uuid>,
    now: DateTime<Utc>,
) -> Result<Messages, Error> {
    let room = room(conn, id, reader)?;
    messages::list_in(conn, &room, reader, before, now)
}
