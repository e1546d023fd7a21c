//! A finished match's record (issue #69, docs/records.md): PDN, PGN,
//! PGN4 or Posthorn's text record, written by the rules from the log as
//! it stands (what a takeback undid is not in it). §H3: the players of a
//! finished match get it whole, hidden cards and face-down pieces
//! included; §H4: anyone else who may read the match gets the
//! spectator's. **Decision:** only a finished match has a record: a live
//! one's moves are on its board, and a file to paste into an engine
//! mid-game helps nobody play fair.

use super::{MatchStatus, Table};
use crate::error::Error;
use diesel::PgConnection;
use posthorn_rules::records::Header;
use posthorn_rules::Viewer;
use std::collections::HashMap;
use uuid::Uuid;

/// A record and the name to save it under.
pub struct Record {
    pub text: String,
    pub filename: String,
}

/// The record of match `id` for `user`, from `site` (the service's
/// public address).
pub fn of(conn: &mut PgConnection, id: Uuid, user: Uuid, site: &str) -> Result<Record, Error> {
    let table = Table::load_mine(conn, id, user, false)?;
    if table.row.status != MatchStatus::Finished {
        return Err(Error::conflict(
            "a match's record is written once the match is over",
        ));
    }
    let events = super::fold::folded(conn, &HashMap::from([(id, table.row.seq)]))?
        .remove(&id)
        .unwrap_or_default();
    let names = (table.seats.iter())
        .map(|seat| {
            let player = seat.and_then(|u| table.players.get(&u));
            player.map_or_else(|| "?".to_owned(), |p| p.display_name.clone())
        })
        .collect();
    let header = Header {
        site: site.to_owned(),
        date: table.row.created_at.format("%Y.%m.%d").to_string(),
        names,
        whole: matches!(table.viewer(user), Viewer::Seat(_)),
    };
    let (text, extension) = table
        .game
        .record(&events, &header)
        .map_err(Error::internal)?;
    Ok(Record {
        text,
        filename: format!("posthorn-{}-{id}.{extension}", table.game.id()),
    })
}
