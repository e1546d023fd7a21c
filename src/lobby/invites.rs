//! What an invitation link shows before it is taken (issue #18): who
//! invites, to which game, until when. Public: the code is the secret.

use super::{MatchRow, MatchStatus, Player};
use crate::error::Error;
use crate::schema::{invites, matches, users};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct InvitePreview {
    pub code: String,
    pub game: String,
    pub variant: Option<String>,
    pub mode: Option<String>,
    pub turn_hours: f64,
    pub rated: bool,
    /// The match's configuration (variant or mode, setups, and a custom
    /// `position` if one was given): what the invited player agrees to.
    #[schema(value_type = Object)]
    pub options: serde_json::Value,
    pub inviter: Player,
    pub expires_at: DateTime<Utc>,
    /// Whether the seat can still be taken (unused, unexpired, match open).
    pub open: bool,
}

pub fn preview(
    conn: &mut PgConnection,
    code: &str,
    now: DateTime<Utc>,
) -> Result<InvitePreview, Error> {
    let code = code.trim().to_uppercase();
    let found: Option<(DateTime<Utc>, Option<uuid::Uuid>, MatchRow)> = invites::table
        .inner_join(matches::table)
        .filter(invites::code.eq(&code))
        .select((invites::expires_at, invites::used_by, MatchRow::as_select()))
        .first(conn)
        .optional()?;
    let Some((expires_at, used_by, row)) = found else {
        return Err(Error::not_found("invitation"));
    };
    let inviter: Player = users::table
        .find(row.created_by)
        .select(Player::as_select())
        .first(conn)?;
    Ok(InvitePreview {
        code,
        game: row.game,
        variant: row.variant,
        mode: row.mode,
        turn_hours: row.turn_seconds as f64 / 3600.0,
        rated: row.rated,
        options: row.options,
        inviter,
        expires_at,
        open: used_by.is_none()
            && expires_at > now
            && matches!(row.status, MatchStatus::Waiting | MatchStatus::Active),
    })
}
