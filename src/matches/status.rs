//! The closed sets of the match service: a match's status and the facts the
//! service itself records in a log beside the game's own.

use chrono::{DateTime, Utc};
use diesel::deserialize::{self, FromSql, FromSqlRow};
use diesel::expression::AsExpression;
use diesel::pg::{Pg, PgValue};
use diesel::serialize::{self, Output, ToSql};
use diesel::sql_types::Text;
use posthorn_rules::DutyKind;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// `waiting` (seats open or challenges unanswered), `active`, `finished`,
/// or `cancelled` (a challenge declined or expired, or the creator
/// withdrew it); stored as that text.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema, AsExpression, FromSqlRow,
)]
#[serde(rename_all = "snake_case")]
#[diesel(sql_type = Text)]
pub enum MatchStatus {
    Waiting,
    Active,
    Finished,
    Cancelled,
}

impl MatchStatus {
    pub const ALL: [MatchStatus; 4] = [
        MatchStatus::Waiting,
        MatchStatus::Active,
        MatchStatus::Finished,
        MatchStatus::Cancelled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            MatchStatus::Waiting => "waiting",
            MatchStatus::Active => "active",
            MatchStatus::Finished => "finished",
            MatchStatus::Cancelled => "cancelled",
        }
    }

    pub fn parse(text: &str) -> Option<MatchStatus> {
        Self::ALL.into_iter().find(|s| s.as_str() == text)
    }
}

impl ToSql<Text, Pg> for MatchStatus {
    fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, Pg>) -> serialize::Result {
        <str as ToSql<Text, Pg>>::to_sql(self.as_str(), out)
    }
}

impl FromSql<Text, Pg> for MatchStatus {
    fn from_sql(bytes: PgValue<'_>) -> deserialize::Result<Self> {
        let text = <String as FromSql<Text, Pg>>::from_sql(bytes)?;
        MatchStatus::parse(&text).ok_or_else(|| format!("unknown match status {text:?}").into())
    }
}

/// A fact the service records in a match's log (`rules = false`): not part
/// of the game, never folded by the rules crate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, posthorn_rules::schemars::JsonSchema)]
#[schemars(crate = "posthorn_rules::schemars")]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServiceEvent {
    /// An invitation or a challenge was accepted; the event's seat is the
    /// new player's.
    PlayerJoined,
    /// The match will not be played (issue #20): `declined`, `expired` (a
    /// challenge unanswered for 7 days) or `withdrawn` (by its creator).
    Cancelled { reason: String },
    /// §T2: half the time is gone; the seat is reminded, not yet lost.
    TimeoutNotice {
        kind: DutyKind,
        #[schemars(with = "String")]
        deadline_at: DateTime<Utc>,
    },
    /// Courtesy time (issue #5): the event's seat granted `to_seat` more.
    TimeGranted {
        to_seat: u8,
        hours: i64,
        #[schemars(with = "Option<String>")]
        deadline_at: Option<DateTime<Utc>>,
    },
    /// A takeback in a match against the computer (issue #32): from here
    /// on the game stands as it did after event `to_seq`; the events
    /// between stay in the log, so the history stays true
    /// (`matches::takeback`).
    /// With `accepted_by`, the seat that agreed to a takeback between
    /// people (issue #34); the event's seat is the one whose move it was.
    TakenBack {
        to_seq: i32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        accepted_by: Option<u8>,
    },
    /// The event's seat asks its opponent to take back its last move,
    /// returning the game to `to_seq` (issue #34).
    TakebackRequested { to_seq: i32 },
    /// The event's seat declined the takeback its opponent asked for.
    TakebackDeclined,
    /// The event's seat's player is on vacation since `since` (issue #34),
    /// until `until` if they said: the seat's duties pause.
    OnVacation {
        #[schemars(with = "String")]
        since: DateTime<Utc>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(with = "Option<String>")]
        until: Option<DateTime<Utc>>,
    },
    /// The event's seat's player is back: its duties go on. `since`: when
    /// the vacation began (absent in events before issue #46); a short
    /// one tells nobody (`notices`).
    BackFromVacation {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(with = "Option<String>")]
        since: Option<DateTime<Utc>>,
    },
}

impl ServiceEvent {
    pub fn to_body(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("service events serialize")
    }

    /// How this event, recorded for `seat`, moves the clock, if it does.
    pub fn clock(&self, seat: Option<posthorn_rules::Seat>) -> Option<super::duties::ClockEvent> {
        use super::duties::ClockEvent;
        match *self {
            ServiceEvent::TimeoutNotice { kind, .. } => {
                seat.map(|seat| ClockEvent::Noticed { seat, kind })
            }
            ServiceEvent::TimeGranted { to_seat, hours, .. } => Some(ClockEvent::Granted {
                seat: posthorn_rules::Seat(to_seat),
                hours,
            }),
            ServiceEvent::OnVacation { since, until } => {
                seat.map(|seat| ClockEvent::Paused { seat, since, until })
            }
            ServiceEvent::BackFromVacation { .. } => seat.map(|seat| ClockEvent::Resumed { seat }),
            _ => None,
        }
    }

    /// A stored body, if it is a service event this version knows.
    pub fn from_body(body: &serde_json::Value) -> Option<ServiceEvent> {
        ServiceEvent::deserialize(body).ok()
    }
}
