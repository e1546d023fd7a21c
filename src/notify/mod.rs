//! Notifications (DESIGN.md §3): an outbox written in the same transaction
//! as the events that cause it, delivered by a worker (`deliver`).
//!
//! What is sent, each switchable per user and channel (all on by default):
//! your turn, the timeout notice, match finished, invitation received and
//! accepted, draw offered, FlipChess flip decision owed. Payloads carry no
//! hidden information: only the game, the match and public results.

pub mod deliver;
pub mod digest;
pub mod outbox;
pub mod push;
pub mod worker;

use crate::error::Error;
use crate::schema::notification_settings;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    YourTurn,
    TimeoutNotice,
    MatchFinished,
    Invitation,
    InvitationAccepted,
    DrawOffered,
    FlipDecision,
    /// The daily email listing the matches awaiting the user.
    Digest,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::YourTurn => "your_turn",
            Kind::TimeoutNotice => "timeout_notice",
            Kind::MatchFinished => "match_finished",
            Kind::Invitation => "invitation",
            Kind::InvitationAccepted => "invitation_accepted",
            Kind::DrawOffered => "draw_offered",
            Kind::FlipDecision => "flip_decision",
            Kind::Digest => "digest",
        }
    }

    pub fn parse(name: &str) -> Option<Kind> {
        serde_json::from_value(Value::String(name.to_owned())).ok()
    }
}

fn on() -> bool {
    true
}

/// One switch per kind of notification.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Switches {
    #[serde(default = "on")]
    pub your_turn: bool,
    #[serde(default = "on")]
    pub timeout_notice: bool,
    #[serde(default = "on")]
    pub match_finished: bool,
    #[serde(default = "on")]
    pub invitation: bool,
    #[serde(default = "on")]
    pub invitation_accepted: bool,
    #[serde(default = "on")]
    pub draw_offered: bool,
    #[serde(default = "on")]
    pub flip_decision: bool,
}

impl Default for Switches {
    fn default() -> Self {
        serde_json::from_value(serde_json::json!({})).expect("all switches default on")
    }
}

impl Switches {
    pub fn set(&mut self, kind: Kind, value: bool) {
        let slot = match kind {
            Kind::YourTurn => &mut self.your_turn,
            Kind::TimeoutNotice => &mut self.timeout_notice,
            Kind::MatchFinished => &mut self.match_finished,
            Kind::Invitation => &mut self.invitation,
            Kind::InvitationAccepted => &mut self.invitation_accepted,
            Kind::DrawOffered => &mut self.draw_offered,
            Kind::FlipDecision => &mut self.flip_decision,
            Kind::Digest => return,
        };
        *slot = value;
    }
}

/// Hours, in the user's own time zone, when nothing is pushed or mailed;
/// what falls inside waits for their end. `22:00`–`07:30` spans midnight.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct QuietHours {
    /// `HH:MM`
    #[schema(pattern = "^([01][0-9]|2[0-3]):[0-5][0-9]$", example = "22:00")]
    pub start: String,
    /// `HH:MM`
    #[schema(pattern = "^([01][0-9]|2[0-3]):[0-5][0-9]$", example = "07:30")]
    pub end: String,
}

impl QuietHours {
    fn times(&self) -> Option<(chrono::NaiveTime, chrono::NaiveTime)> {
        let t = |s: &str| chrono::NaiveTime::parse_from_str(s, "%H:%M").ok();
        Some((t(&self.start)?, t(&self.end)?))
    }

    /// When the quiet hours that hold at `now` end, if they hold.
    pub fn end_after(&self, now: DateTime<Utc>, zone: chrono_tz::Tz) -> Option<DateTime<Utc>> {
        use chrono::{Duration, TimeZone};
        let (start, end) = self.times()?;
        let local = now.with_timezone(&zone);
        let t = local.time();
        let inside = if start <= end {
            start <= t && t < end
        } else {
            t >= start || t < end
        };
        if !inside || start == end {
            return None;
        }
        let day = if t < end {
            local.date_naive()
        } else {
            local.date_naive() + Duration::days(1)
        };
        zone.from_local_datetime(&day.and_time(end))
            .earliest()
            .map(|d| d.with_timezone(&Utc))
            .or(Some(now + Duration::hours(1)))
    }
}

/// `GET/PUT /v1/me/notification-settings`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    #[serde(default)]
    pub email: Switches,
    #[serde(default)]
    pub push: Switches,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quiet_hours: Option<QuietHours>,
    /// One email a day, at the user's local morning, listing the matches
    /// awaiting them — instead of an email per event (push is unchanged).
    #[serde(default)]
    pub digest: bool,
}

impl Settings {
    /// Stop `kind` emails (the unsubscribe link).
    pub fn stop_email(&mut self, kind: Kind) {
        match kind {
            Kind::Digest => self.digest = false,
            other => self.email.set(other, false),
        }
    }
}

impl Settings {
    pub fn check(&self) -> Result<(), Error> {
        match &self.quiet_hours {
            Some(q) if q.times().is_none() => {
                Err(Error::validation("quiet hours are HH:MM to HH:MM"))
            }
            _ => Ok(()),
        }
    }
}

pub fn settings_of(conn: &mut PgConnection, user: Uuid) -> Result<Settings, Error> {
    let stored: Option<Value> = notification_settings::table
        .find(user)
        .select(notification_settings::settings)
        .first(conn)
        .optional()?;
    Ok(stored
        .and_then(|v| serde_json::from_value(v).ok())
        .unwrap_or_default())
}

pub fn save_settings(
    conn: &mut PgConnection,
    user: Uuid,
    settings: &Settings,
) -> Result<(), Error> {
    let value = serde_json::to_value(settings).map_err(Error::internal)?;
    diesel::insert_into(notification_settings::table)
        .values((
            notification_settings::user_id.eq(user),
            notification_settings::settings.eq(&value),
        ))
        .on_conflict(notification_settings::user_id)
        .do_update()
        .set(notification_settings::settings.eq(&value))
        .execute(conn)?;
    Ok(())
}
