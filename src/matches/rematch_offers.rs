//! Rematches asked for (docs/decisions/challenges-and-lobby.md): an offer
//! is a finished match's, so this file is the one place that names the
//! `rematch_offers` table. Whether the rematch is laid is
//! `lobby::rematch`'s decision; the view shows who asked, and a live page
//! learns of a new offer by their count.

use crate::error::Error;
use crate::schema::rematch_offers;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use std::collections::HashMap;
use uuid::Uuid;

/// `user` asks for a rematch of the match (asking twice is asking once):
/// whether this ask is new, and everyone who has asked so far.
pub fn ask(
    conn: &mut PgConnection,
    match_id: Uuid,
    user: Uuid,
    now: DateTime<Utc>,
) -> Result<(bool, Vec<Uuid>), Error> {
    let new = diesel::insert_into(rematch_offers::table)
        .values((
            rematch_offers::match_id.eq(match_id),
            rematch_offers::user_id.eq(user),
            rematch_offers::created_at.eq(now),
        ))
        .on_conflict_do_nothing()
        .execute(conn)?;
    Ok((new > 0, asked(conn, match_id)?))
}

/// Who has asked for a rematch of the match.
pub fn asked(conn: &mut PgConnection, match_id: Uuid) -> Result<Vec<Uuid>, Error> {
    Ok(rematch_offers::table
        .filter(rematch_offers::match_id.eq(match_id))
        .select(rematch_offers::user_id)
        .load(conn)?)
}

/// How many offers each of the matches `ids` has (those with none left
/// out).
pub fn counts(conn: &mut PgConnection, ids: &[Uuid]) -> Result<HashMap<Uuid, i64>, Error> {
    Ok(rematch_offers::table
        .filter(rematch_offers::match_id.eq_any(ids))
        .group_by(rematch_offers::match_id)
        .select((rematch_offers::match_id, diesel::dsl::count_star()))
        .load::<(Uuid, i64)>(conn)?
        .into_iter()
        .collect())
}

/// A leaving player's offers go.
pub fn withdraw_all(conn: &mut PgConnection, user: Uuid) -> Result<(), Error> {
    diesel::delete(rematch_offers::table.filter(rematch_offers::user_id.eq(user))).execute(conn)?;
    Ok(())
}
