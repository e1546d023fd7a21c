//! What a moderator does (docs/decisions/table-talk.md, "Reports and
//! moderators"), each with a reason kept in the audit log: hide a message
//! (its reports close), dismiss a report, mute a player's talk for a time,
//! suspend an account (no sign-in, its sessions ended, its matches in play
//! resigned as a deleted account's are) and reinstate it.

use super::{record, require, why, Action, Entry};
use crate::error::Error;
use crate::schema::reports;
use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use posthorn_rules::Random;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// The longest mute: a month.
pub const MUTE_MOST_HOURS: i64 = 24 * 30;

/// `{why}`: every act says why.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Why {
    #[schema(min_length = 1, max_length = 500)]
    pub why: String,
}

/// `POST /v1/moderation/players/{username}/mute`.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MuteFor {
    /// 1–720 hours.
    #[schema(minimum = 1, maximum = 720)]
    pub hours: i64,
    #[schema(min_length = 1, max_length = 500)]
    pub why: String,
}

fn entry(moderator: Uuid, action: Action, why: String) -> Entry {
    Entry {
        moderator: Some(moderator),
        action,
        user: None,
        message: None,
        report: None,
        why,
        until: None,
    }
}

/// Hide `message` from every reader; its open reports close.
pub fn hide(
    conn: &mut PgConnection,
    moderator: Uuid,
    message: Uuid,
    said: Why,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    require(conn, moderator)?;
    let why = why(&said.why)?;
    let author = crate::talk::reported::hide(conn, message, now)?;
    diesel::update(reports::table.filter(reports::message_id.eq(message)))
        .filter(reports::closed_at.is_null())
        .set(reports::closed_at.eq(now))
        .execute(conn)?;
    let entry = Entry {
        user: Some(author),
        message: Some(message),
        ..entry(moderator, Action::Hide, why)
    };
    record(conn, entry, now)
}

/// Close `report` with nothing done.
pub fn dismiss(
    conn: &mut PgConnection,
    moderator: Uuid,
    report: Uuid,
    said: Why,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    require(conn, moderator)?;
    let why = why(&said.why)?;
    let message: Uuid = diesel::update(reports::table.find(report))
        .filter(reports::closed_at.is_null())
        .set(reports::closed_at.eq(now))
        .returning(reports::message_id)
        .get_result(conn)
        .optional()?
        .ok_or(Error::not_found("open report"))?;
    let entry = Entry {
        message: Some(message),
        report: Some(report),
        ..entry(moderator, Action::Dismiss, why)
    };
    record(conn, entry, now)
}

/// The player named `username`, whom a moderator acts on (never
/// themselves).
fn target(conn: &mut PgConnection, moderator: Uuid, username: &str) -> Result<Uuid, Error> {
    let player = crate::players::named(conn, username)?;
    if player.id == moderator {
        return Err(Error::unacceptable(
            "a moderator does not act on themselves",
        ));
    }
    Ok(player.id)
}

/// No talk from `username` for `hours`: they write nothing anywhere.
pub fn mute(
    conn: &mut PgConnection,
    moderator: Uuid,
    username: &str,
    said: MuteFor,
    now: DateTime<Utc>,
) -> Result<DateTime<Utc>, Error> {
    require(conn, moderator)?;
    let why = why(&said.why)?;
    if !(1..=MUTE_MOST_HOURS).contains(&said.hours) {
        let hours = format!("hours is 1–{MUTE_MOST_HOURS}");
        return Err(Error::validation(hours).in_field("hours", crate::error::Rule::Form));
    }
    let user = target(conn, moderator, username)?;
    let until = now + Duration::hours(said.hours);
    crate::talk::mute(conn, user, until)?;
    let entry = Entry {
        user: Some(user),
        until: Some(until),
        ..entry(moderator, Action::Mute, why)
    };
    record(conn, entry, now)?;
    Ok(until)
}

/// Suspend `username`: no sign-in, every session ended (returned, for
/// the caller to stop their access tokens), and their play left as a
/// deleted account's is: matches in play resigned, tournaments left.
pub fn suspend(
    conn: &mut PgConnection,
    moderator: Uuid,
    username: &str,
    said: Why,
    now: DateTime<Utc>,
    random: &mut dyn Random,
) -> Result<Vec<Uuid>, Error> {
    require(conn, moderator)?;
    let why = why(&said.why)?;
    let user = target(conn, moderator, username)?;
    if !crate::accounts::standing::suspend(conn, user, now)? {
        return Err(Error::conflict("that account is suspended already"));
    }
    crate::leaving::suspended(conn, user, now, random)?;
    let entry = Entry {
        user: Some(user),
        ..entry(moderator, Action::Suspend, why)
    };
    record(conn, entry, now)?;
    crate::accounts::end_sessions(conn, user, None, now)
}

/// Lift `username`'s suspension and talk mute (their resigned matches
/// stay as they ended).
pub fn reinstate(
    conn: &mut PgConnection,
    moderator: Uuid,
    username: &str,
    said: Why,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    require(conn, moderator)?;
    let why = why(&said.why)?;
    let user = target(conn, moderator, username)?;
    let unsuspended = crate::accounts::standing::unsuspend(conn, user)?;
    let unmuted = crate::talk::unmute(conn, user, now)?;
    if !unsuspended && !unmuted {
        return Err(Error::conflict(
            "that player is neither suspended nor muted",
        ));
    }
    let entry = Entry {
        user: Some(user),
        ..entry(moderator, Action::Reinstate, why)
    };
    record(conn, entry, now)
}
