//! A match's table laid and its seats taken: the writes of the match and
//! seat rows that are not events (the lobby decides who sits where; the
//! match tables are written here only).

use super::{MatchRow, Table};
use crate::error::Error;
use crate::schema::{match_events, match_seats, matches};
use diesel::prelude::*;
use diesel::PgConnection;
use posthorn_rules::MatchState;
use uuid::Uuid;

impl Table {
    /// Write a new match `row` with `seats` (an empty seat is `None`);
    /// nothing is dealt yet: the opening is the first append.
    pub fn create(
        conn: &mut PgConnection,
        row: MatchRow,
        seats: Vec<Option<Uuid>>,
    ) -> Result<Table, Error> {
        let game = super::game_of(&row)?;
        diesel::insert_into(matches::table)
            .values(&row)
            .execute(conn)?;
        let rows: Vec<_> = (seats.iter().enumerate())
            .map(|(seat, user)| {
                (
                    match_seats::match_id.eq(row.id),
                    match_seats::seat.eq(seat as i16),
                    match_seats::user_id.eq(*user),
                )
            })
            .collect();
        diesel::insert_into(match_seats::table)
            .values(rows)
            .execute(conn)?;
        Ok(Table {
            row,
            game,
            seats,
            players: Default::default(),
            state: MatchState::empty(game),
            held: None,
            takeback: Some(None),
        })
    }

    /// Sit `user` in the empty `seat` (the caller appends the fact).
    pub fn sit(&mut self, conn: &mut PgConnection, seat: i16, user: Uuid) -> Result<(), Error> {
        diesel::update(match_seats::table.find((self.row.id, seat)))
            .set(match_seats::user_id.eq(user))
            .execute(conn)?;
        self.seats[seat as usize] = Some(user);
        Ok(())
    }

    /// Whether the match's opening is in its log (matches created before
    /// the deal waited for the last seat were dealt at creation:
    /// docs/abuse.md, "Openings a player may not choose").
    pub fn dealt(&self, conn: &mut PgConnection) -> Result<bool, Error> {
        Ok(diesel::select(diesel::dsl::exists(
            match_events::table
                .filter(match_events::match_id.eq(self.row.id))
                .filter(match_events::rules.eq(true)),
        ))
        .get_result(conn)?)
    }
}

/// Remember that the finished match `id`'s rematch is `rematch`.
pub fn rematched(conn: &mut PgConnection, id: Uuid, rematch: Uuid) -> Result<(), Error> {
    diesel::update(matches::table.find(id))
        .set(matches::rematch_id.eq(rematch))
        .execute(conn)?;
    Ok(())
}
