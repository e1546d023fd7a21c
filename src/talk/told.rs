//! Hearing of a message (docs/decisions/table-talk.md): a player who hears
//! a message at a table is told of it by push and email, as their
//! notification settings and quiet hours say, gathered: the first unread
//! message is told after [`GATHER`] (what follows in the meantime is in the
//! same notice), and a table tells a player at most once per [`WINDOW`]. A
//! turn notice due for that table carries the unread count instead (folded
//! in the outbox's fan-out, `notify::outbox::fan_out`), and so does the
//! daily digest; a muted table tells nothing. A notice says the game and
//! how many, never the text: a moderator's hiding cannot recall a sent
//! mail, and a lock screen is seen by others.

use crate::error::Error;
use crate::notify::outbox::{Enqueue, Notice};
use crate::notify::Kind;
use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Integer, Timestamptz, Uuid as SqlUuid};
use diesel::PgConnection;
use serde_json::json;
use uuid::Uuid;

/// A turn notice carries its table's unread messages and marks them told:
/// talk's part of the outbox's fan-out (`notify::outbox::fan_out`), one
/// statement for speed, worded here where the seats' counts are kept.
pub const TURN_TALK: crate::notify::outbox::TurnTalk = crate::notify::outbox::TurnTalk {
    unread: "LEFT JOIN talk_seats ts ON n.kind = 'your_turn' AND ts.user_id = n.user_id \
               AND ts.match_id = n.match_id AND ts.unread > 0 AND NOT ts.muted",
    told: "UPDATE talk_seats ts SET tell_at = NULL, told_at = f.created_at \
             FROM (SELECT DISTINCT user_id, match_id, created_at FROM fanned \
                    WHERE kind = 'your_turn') f \
            WHERE ts.user_id = f.user_id AND ts.match_id = f.match_id \
              AND ts.unread > 0 AND NOT ts.muted",
};

/// How long the first unread message waits to be told: a burst of
/// messages, or the move that follows them, makes one notice.
pub const GATHER: Duration = Duration::seconds(60);
/// A table tells a player at most once in this time.
pub const WINDOW: Duration = Duration::minutes(15);

/// One more unread message at `table` for `user`, told at the end of the
/// gathering time, or of the window since they were last told; a muted
/// table counts and tells nothing.
pub(super) fn count(
    conn: &mut PgConnection,
    table: Uuid,
    user: Uuid,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    diesel::sql_query(
        "INSERT INTO talk_seats AS s (match_id, user_id, unread, tell_at) VALUES ($1, $2, 1, $3) \
         ON CONFLICT (user_id, match_id) DO UPDATE SET \
           unread = s.unread + CASE WHEN s.muted THEN 0 ELSE 1 END, \
           tell_at = CASE WHEN s.muted THEN NULL \
             ELSE COALESCE(s.tell_at, GREATEST($3, s.told_at + $4 * interval '1 second')) END",
    )
    .bind::<SqlUuid, _>(table)
    .bind::<SqlUuid, _>(user)
    .bind::<Timestamptz, _>(now + GATHER)
    .bind::<Integer, _>(WINDOW.num_seconds() as i32)
    .execute(conn)?;
    Ok(())
}

#[derive(QueryableByName)]
struct Due {
    #[diesel(sql_type = SqlUuid)]
    user_id: Uuid,
    #[diesel(sql_type = SqlUuid)]
    match_id: Uuid,
    #[diesel(sql_type = Integer)]
    unread: i32,
    #[diesel(sql_type = Integer)]
    told: i32,
}

/// Queue the message notices whose time has come (the outbox job, before
/// its fan-out). A table whose turn notice is queued, not yet fanned
/// out, is left for that notice to carry the count. Returns how many.
pub fn enqueue_due(conn: &mut PgConnection, now: DateTime<Utc>) -> Result<usize, Error> {
    let due: Vec<Due> = diesel::sql_query(format!(
        "UPDATE talk_seats s SET tell_at = NULL, told_at = $1, told = s.told + 1 \
         WHERE s.tell_at <= $1 AND NOT s.muted AND s.unread > 0 AND NOT {} \
         RETURNING s.user_id, s.match_id, s.unread, s.told",
        crate::notify::outbox::TURN_QUEUED
    ))
    .bind::<Timestamptz, _>(now)
    .load(conn)?;
    let ids: Vec<Uuid> = due.iter().map(|d| d.match_id).collect();
    let games = crate::matches::reads::games_of(conn, &ids)?;
    for d in &due {
        let notice = Notice {
            user: d.user_id,
            // Numbered per table and player: the outbox's dedupe key.
            seq: d.told,
            kind: Kind::Message,
            payload: json!({"game": games.get(&d.match_id), "unread": d.unread}),
        };
        Enqueue::new(d.match_id, vec![notice], now).execute(conn)?;
    }
    Ok(due.len())
}

/// A table with messages unread, and how many.
#[derive(QueryableByName)]
pub struct Unread {
    #[diesel(sql_type = SqlUuid)]
    pub match_id: Uuid,
    #[diesel(sql_type = Integer)]
    pub unread: i32,
}

/// The tables where `user` has messages unread (and not muted) and the
/// newest came after `since`, most first: the daily digest lists them,
/// each once (a table left unread is not mailed about every morning).
pub fn unread_tables(
    conn: &mut PgConnection,
    user: Uuid,
    since: DateTime<Utc>,
) -> Result<Vec<Unread>, Error> {
    Ok(diesel::sql_query(
        "SELECT s.match_id, s.unread FROM talk_seats s \
         WHERE s.user_id = $1 AND s.unread > 0 AND NOT s.muted \
           AND (SELECT m.created_at FROM messages m WHERE m.match_id = s.match_id \
                ORDER BY m.serial DESC LIMIT 1) > $2 \
         ORDER BY s.unread DESC",
    )
    .bind::<SqlUuid, _>(user)
    .bind::<Timestamptz, _>(since)
    .load(conn)?)
}
