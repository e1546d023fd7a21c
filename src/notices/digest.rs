//! The daily digest: for users who chose it, one email at their local
//! morning listing the matches awaiting them (and the tables with new
//! messages: docs/decisions/table-talk.md, "Hearing of a message"), nearest
//! deadline first. It is queued in the outbox like any notification; the
//! dedupe key (the nil match and the local date as seq) makes it once a
//! day, whatever the instance count. A source of the timed notices
//! ([`Digest`], listed in `notices::TIMED`).

use crate::error::Error;
use crate::notify::{timed, MORNING};
use chrono::{DateTime, NaiveTime, Utc};
use diesel::PgConnection;
use uuid::Uuid;

/// Queue today's digest for every digest reader whose morning has come.
pub fn enqueue_due(conn: &mut PgConnection, now: DateTime<Utc>) -> Result<usize, Error> {
    let readers: Vec<(Uuid, String)> = (timed::digest_readers(conn)?.into_iter())
        .map(|r| (r.id, r.time_zone))
        .collect();
    let mut queued = 0;
    for (user, zone) in readers {
        let zone = zone.parse::<chrono_tz::Tz>().unwrap_or(chrono_tz::UTC);
        let local = now.with_timezone(&zone);
        if local.time() < NaiveTime::from_hms_opt(MORNING, 0, 0).expect("a valid hour") {
            continue;
        }
        let day = local
            .date_naive()
            .signed_duration_since(chrono::NaiveDate::default())
            .num_days() as i32;
        let awaiting = crate::matches::reads::awaiting(conn, user)?;
        // The tables that spoke since yesterday's morning (yesterday's
        // digest): each is mailed about once.
        let yesterday = (local.date_naive() - chrono::Duration::days(1))
            .and_hms_opt(MORNING, 0, 0)
            .expect("a valid hour");
        let since = chrono::TimeZone::from_local_datetime(&zone, &yesterday)
            .earliest()
            .map_or(now - chrono::Duration::days(1), |t| t.with_timezone(&Utc));
        let talk = crate::talk::told::unread_tables(conn, user, since)?;
        if awaiting.is_empty() && talk.is_empty() {
            continue;
        }
        let list: Vec<serde_json::Value> = awaiting
            .iter()
            .map(|a| serde_json::json!({"match_id": a.id, "game": a.game, "deadline_at": a.deadline_at}))
            .collect();
        let ids: Vec<Uuid> = talk.iter().map(|t| t.match_id).collect();
        let games = crate::matches::reads::games_of(conn, &ids)?;
        let messages: Vec<serde_json::Value> = talk
            .iter()
            .map(|t| serde_json::json!({"match_id": t.match_id, "game": games.get(&t.match_id), "unread": t.unread}))
            .collect();
        let payload = serde_json::json!({"matches": list, "messages": messages});
        queued += timed::queue_digest(conn, user, day, &payload, now)?;
    }
    Ok(queued)
}
