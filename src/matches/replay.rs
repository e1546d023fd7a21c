//! A match as it stood after any event
//! (docs/decisions/matches-and-deadlines.md: the step-by-step replay of a
//! finished match). The rules fold the log up to that seq and the view is
//! drawn for the caller, so a replay shows exactly what that player could
//! see then — never another seat's hidden cards.

use super::Table;
use crate::error::Error;
use diesel::PgConnection;
use posthorn_rules::MatchState;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashMap;
use utoipa::ToSchema;
use uuid::Uuid;

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Position {
    pub seq: i32,
    /// The game's view after event `seq`, as the caller could see it.
    #[schema(value_type = Object)]
    pub view: Value,
}

pub fn position_at(
    conn: &mut PgConnection,
    match_id: Uuid,
    user: Uuid,
    seq: i32,
) -> Result<Position, Error> {
    let table = Table::load_mine(conn, match_id, user, false)?;
    position_of(conn, &table, table.viewer(user), seq)
}

/// The board of match `id` after event `seq` (its last when `None`) as
/// `user` may see it, as a PNG (issue #69 item 5, docs/pictures.md).
pub fn picture_at(
    conn: &mut PgConnection,
    match_id: Uuid,
    user: Uuid,
    seq: Option<i32>,
) -> Result<std::sync::Arc<Vec<u8>>, Error> {
    let table = Table::load_mine(conn, match_id, user, false)?;
    let viewer = table.viewer(user);
    // The last position is the table's own: no replay from the start.
    let view = match seq {
        Some(seq) if seq != table.row.seq => position_of(conn, &table, viewer, seq)?.view,
        _ => table.state.view(viewer),
    };
    let drawing = table.game.drawing(&view).map_err(Error::internal)?;
    Ok(crate::pictures::png(&drawing, crate::pictures::BOARD))
}

/// `table`'s position after event `seq` as `viewer` could see it then (a
/// share link's reader: the spectator, §H4).
pub fn position_of(
    conn: &mut PgConnection,
    table: &Table,
    viewer: posthorn_rules::Viewer,
    seq: i32,
) -> Result<Position, Error> {
    let match_id = table.row.id;
    // Below 0 breaks the document's `minimum`; 0 (a match's seq before
    // its first event, which its view links here) and past the last event
    // are well-formed seqs this match has no position at: 422 (docs/api.md,
    // "Errors").
    if seq < 0 {
        return Err(Error::validation("seq is at least 0"));
    }
    if seq < 1 || seq > table.row.seq {
        return Err(Error::unacceptable(format!(
            "seq must be between 1 and {}, the match's last",
            table.row.seq
        )));
    }
    let events = super::fold::folded(conn, &HashMap::from([(match_id, seq)]))?
        .remove(&match_id)
        .unwrap_or_default();
    let state = MatchState::replay(table.game, &events).map_err(Error::internal)?;
    Ok(Position {
        seq,
        view: state.view(viewer),
    })
}
