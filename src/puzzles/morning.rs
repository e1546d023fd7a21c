//! The daily puzzle's morning notice (issue #52): for players who asked
//! for it (`notify::Settings::daily_puzzle`), one notice at their local
//! morning that today's puzzles are out, in their language, by the
//! channels their `daily_puzzle` switches allow. `puzzle_mornings` is the
//! one record of who was told which day, so an instance joining late or a
//! second instance tells nobody twice.

use crate::error::Error;
use crate::notify::outbox::{Enqueue, Notice};
use crate::notify::{Kind, MORNING};
use crate::schema::puzzle_mornings;
use chrono::{DateTime, NaiveDate, NaiveTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Text, Uuid as SqlUuid};
use diesel::PgConnection;
use uuid::Uuid;

#[derive(QueryableByName)]
struct Reader {
    #[diesel(sql_type = SqlUuid)]
    id: Uuid,
    #[diesel(sql_type = Text)]
    time_zone: String,
}

/// Queue the morning notice of everyone who asked for it and whose
/// morning has come and who was not told today. How many were queued.
pub fn enqueue_due(conn: &mut PgConnection, now: DateTime<Utc>) -> Result<usize, Error> {
    let readers: Vec<Reader> = diesel::sql_query(
        "SELECT u.id, u.time_zone FROM users u JOIN notification_settings s ON s.user_id = u.id \
         WHERE u.deleted_at IS NULL AND COALESCE((s.settings ->> 'daily_puzzle')::boolean, false)",
    )
    .load(conn)?;
    let morning = NaiveTime::from_hms_opt(MORNING, 0, 0).expect("a valid hour");
    let mut told = Vec::new();
    for reader in readers {
        let zone = reader
            .time_zone
            .parse::<chrono_tz::Tz>()
            .unwrap_or(chrono_tz::UTC);
        let local = now.with_timezone(&zone);
        if local.time() < morning {
            continue;
        }
        let day = local.date_naive();
        let first = diesel::insert_into(puzzle_mornings::table)
            .values((
                puzzle_mornings::user_id.eq(reader.id),
                puzzle_mornings::day.eq(day),
            ))
            .on_conflict_do_nothing()
            .execute(conn)?;
        if first == 1 {
            told.push(Notice {
                user: reader.id,
                seq: day.signed_duration_since(NaiveDate::default()).num_days() as i32,
                kind: Kind::DailyPuzzle,
                payload: serde_json::json!({}),
            });
        }
    }
    let queued = told.len();
    if queued > 0 {
        Enqueue::new(Uuid::nil(), told, now).execute(conn)?;
    }
    Ok(queued)
}
