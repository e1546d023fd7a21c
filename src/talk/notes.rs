//! Private notes (docs/decisions/table-talk.md, "What is built"): one per
//! player and match, read by its author only, kept after the match ends (as
//! lichess keeps them for correspondence games).

use crate::error::Error;
use crate::matches::Table;
use crate::schema::notes;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// The most characters of a note.
pub const MOST: usize = 2000;

/// `GET`/`PUT /v1/matches/{id}/note`: an empty text forgets the note.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Note {
    /// Up to 2,000 characters, line breaks kept; empty when there is none.
    #[schema(max_length = 2000)]
    pub text: String,
    /// When it was last written; absent when there is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<DateTime<Utc>>,
}

/// My note on a match I may read (404 for others' matches).
pub fn get(conn: &mut PgConnection, id: Uuid, user: Uuid) -> Result<Note, Error> {
    Table::load_mine(conn, id, user, false)?;
    let kept: Option<(String, DateTime<Utc>)> = notes::table
        .find((user, id))
        .select((notes::body, notes::updated_at))
        .first(conn)
        .optional()?;
    Ok(match kept {
        Some((text, at)) => Note {
            text,
            updated_at: Some(at),
        },
        None => Note {
            text: String::new(),
            updated_at: None,
        },
    })
}

/// Write my note (or forget it, with an empty text).
pub fn put(
    conn: &mut PgConnection,
    id: Uuid,
    user: Uuid,
    note: Note,
    now: DateTime<Utc>,
) -> Result<Note, Error> {
    Table::load_mine(conn, id, user, false)?;
    if note.text.trim().is_empty() {
        diesel::delete(notes::table.find((user, id))).execute(conn)?;
        return Ok(Note {
            text: String::new(),
            updated_at: None,
        });
    }
    let text = super::text(&note.text, MOST, true, "text")?;
    let row = (
        notes::match_id.eq(id),
        notes::user_id.eq(user),
        notes::body.eq(&text),
        notes::updated_at.eq(now),
    );
    diesel::insert_into(notes::table)
        .values(row)
        .on_conflict((notes::user_id, notes::match_id))
        .do_update()
        .set((notes::body.eq(&text), notes::updated_at.eq(now)))
        .execute(conn)?;
    Ok(Note {
        text,
        updated_at: Some(now),
    })
}
