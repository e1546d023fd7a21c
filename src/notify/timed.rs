//! Notices that come by the clock rather than by an action: the seam
//! ([`Timed`]) whose sources the notices policy lists
//! (`notices::TIMED`), and what they ask of the notices' tables: who asked
//! for them, in which time zone, and the digest's one delivery a day. What
//! a digest or a morning says is composed above (`notices::digest`,
//! `puzzles::morning`); notify owns its settings and its outbox.

use super::{Channel, Kind};
use crate::error::Error;
use crate::schema::notifications;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use serde_json::Value;
use uuid::Uuid;

/// A notice that comes by the clock: the daily digest, a table's message
/// notices, the morning puzzle. The outbox job asks each source to queue
/// what is due, each in its own transaction, before it delivers.
pub struct Timed {
    /// Its name, for the logs.
    pub name: &'static str,
    /// Queue what is due at `now`; how many notices.
    pub queue_due: fn(&mut PgConnection, DateTime<Utc>) -> Result<usize, Error>,
}

/// A reader of a timed notice, and their time zone.
#[derive(QueryableByName)]
pub struct Reader {
    #[diesel(sql_type = diesel::sql_types::Uuid)]
    pub id: Uuid,
    #[diesel(sql_type = diesel::sql_types::Text)]
    pub time_zone: String,
}

/// Who takes the daily digest (they have an address and chose it).
pub fn digest_readers(conn: &mut PgConnection) -> Result<Vec<Reader>, Error> {
    Ok(diesel::sql_query(
        "SELECT u.id, u.time_zone FROM users u JOIN notification_settings s ON s.user_id = u.id \
         WHERE u.email IS NOT NULL AND COALESCE((s.settings ->> 'digest')::boolean, false)",
    )
    .load(conn)?)
}

/// Who asked for the morning puzzle's notice, in user order.
pub fn morning_readers(conn: &mut PgConnection) -> Result<Vec<Reader>, Error> {
    let mut readers: Vec<Reader> = diesel::sql_query(
        "SELECT u.id, u.time_zone FROM users u JOIN notification_settings s ON s.user_id = u.id \
         WHERE u.deleted_at IS NULL AND COALESCE((s.settings ->> 'daily_puzzle')::boolean, false)",
    )
    .load(conn)?;
    readers.sort_by_key(|r| r.id);
    Ok(readers)
}

/// Queue `user`'s digest of local day `day` (days since 1970), once:
/// the nil match and the day are its key. Whether it was new.
pub fn queue_digest(
    conn: &mut PgConnection,
    user: Uuid,
    day: i32,
    payload: &Value,
    now: DateTime<Utc>,
) -> Result<usize, Error> {
    Ok(diesel::insert_into(notifications::table)
        .values((
            notifications::user_id.eq(user),
            notifications::match_id.eq(Uuid::nil()),
            notifications::seq.eq(day),
            notifications::kind.eq(Kind::Digest.name()),
            notifications::channel.eq(Channel::Email.to_string()),
            notifications::payload.eq(payload),
            notifications::next_attempt_at.eq(now),
            notifications::created_at.eq(now),
        ))
        .on_conflict_do_nothing()
        .execute(conn)?)
}
