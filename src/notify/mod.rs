//! Notifications (docs/design.md §3): an outbox written in the same transaction
//! as the events that cause it, delivered by a worker (`deliver`).
//!
//! What is sent, each switchable per user and channel (all on by default):
//! your turn, the timeout notice, match finished, invitation received and
//! accepted, draw offered, FlipChess flip decision owed. Payloads carry no
//! hidden information: only the game, the match and public results.

pub mod account_mail;
pub mod at_table;
pub mod deliver;
pub mod destination;
/// A player's notice settings go with the account.
pub const PERSONAL: Owner = Owner::erasing(
    "notify",
    &["notification_settings"],
    forget,
    Exported::In(&["settings/notifications"]),
);

fn forget(conn: &mut PgConnection, leaving: &mut Leaving<'_>) -> Result<(), Error> {
    diesel::delete(
        notification_settings::table.filter(notification_settings::user_id.eq(leaving.user)),
    )
    .execute(conn)?;
    Ok(())
}

#[cfg(test)]
mod golden;
pub mod native;
pub mod outbox;
pub mod push;
mod reading;
mod recipients;
pub mod timed;
pub mod when;
pub mod words;
pub mod worker;

use crate::error::Error;
use crate::personal::{Exported, Leaving, Owner};
use crate::schema::notification_settings;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

/// What the outbox worker needs of the service, and no more: the
/// application state stays above this module.
#[derive(Clone)]
pub struct Courier {
    pub pool: crate::db::Pool,
    pub clock: std::sync::Arc<dyn crate::clock::Clock>,
    pub mailer: std::sync::Arc<deliver::Mailer>,
    pub vapid: std::sync::Arc<push::Vapid>,
    /// APNs and FCM, for the native apps' devices
    /// (docs/decisions/native-push.md).
    pub native: std::sync::Arc<native::Native>,
    /// What waits for a player (the summary's badge): given from above,
    /// where matches are read.
    pub badge: fn(&mut PgConnection, Uuid) -> Result<i64, Error>,
    /// Of (user, match, seq), those where the user has played in the
    /// match since `seq` (a notice held at the table is then dropped):
    /// given from above, where matches are read.
    pub acted: Acted,
    /// The board of a match after an event as a player may see it, a PNG
    /// (the "your turn" mail's picture): given from above, where matches
    /// are read.
    pub board: Board,
    /// A turn notice's table talk, in the fan-out's statement: given from
    /// above, by talk, which owns it.
    pub turn_talk: &'static outbox::TurnTalk,
    /// Signs one-click unsubscribe links.
    pub keys: std::sync::Arc<crate::auth::Keys>,
    /// Where links in messages point.
    pub public_url: String,
    pub max_attempts: i32,
}

/// [`Courier::board`]'s question: match, player, seq.
pub type Board = fn(&mut PgConnection, Uuid, Uuid, i32) -> Result<std::sync::Arc<Vec<u8>>, Error>;

/// [`Courier::acted`]'s question.
pub type Acted = fn(
    &mut PgConnection,
    &[(Uuid, Uuid, i32)],
) -> Result<std::collections::HashSet<(Uuid, Uuid, i32)>, Error>;

/// The local hour from which the morning's mail goes out: the digest and
/// the daily puzzle's notice.
pub const MORNING: u32 = 8;

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
    /// A player of a match of three or more is out (four-player chess,
    /// docs/rules/four-player-chess.md §Q7/§Q9); the match goes on for the others.
    PlayerEliminated,
    /// A match that had not started was cancelled: declined, expired or
    /// withdrawn (docs/decisions/challenges-and-lobby.md, "Challenges").
    MatchCancelled,
    /// The opponent asks to take back their last move
    /// (docs/decisions/matches-and-deadlines.md, "Takebacks by consent").
    TakebackRequested,
    /// The opponent accepted or declined my takeback request.
    TakebackAnswered,
    /// An opponent went on vacation: their duties pause
    /// (docs/decisions/matches-and-deadlines.md, "Vacation").
    OpponentOnVacation,
    /// An opponent is back from vacation.
    OpponentBack,
    /// A stored conditional reply of mine was played
    /// (docs/decisions/matches-and-deadlines.md, "Conditional moves").
    ConditionalPlayed,
    /// Invited to a tournament (docs/tournaments.md).
    TournamentInvited,
    /// A tournament of mine started: my matches are on.
    TournamentStarted,
    /// My next knockout match is on.
    TournamentRound,
    /// A tournament of mine finished, with its final standings.
    TournamentFinished,
    /// New messages at a table of mine (docs/decisions/table-talk.md,
    /// "Hearing of a message"), gathered.
    Message,
    /// The daily email listing the matches awaiting the user.
    Digest,
    /// Today's puzzles are out (docs/puzzles.md, "The morning notice"): at
    /// the user's local morning, for those who asked
    /// (`Settings::daily_puzzle`).
    DailyPuzzle,
}

impl Kind {
    pub const ALL: [Kind; 21] = [
        Kind::YourTurn,
        Kind::TimeoutNotice,
        Kind::MatchFinished,
        Kind::Invitation,
        Kind::InvitationAccepted,
        Kind::DrawOffered,
        Kind::FlipDecision,
        Kind::PlayerEliminated,
        Kind::MatchCancelled,
        Kind::TakebackRequested,
        Kind::TakebackAnswered,
        Kind::OpponentOnVacation,
        Kind::OpponentBack,
        Kind::ConditionalPlayed,
        Kind::TournamentInvited,
        Kind::TournamentStarted,
        Kind::TournamentRound,
        Kind::TournamentFinished,
        Kind::Message,
        Kind::Digest,
        Kind::DailyPuzzle,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::YourTurn => "your_turn",
            Kind::TimeoutNotice => "timeout_notice",
            Kind::MatchFinished => "match_finished",
            Kind::Invitation => "invitation",
            Kind::InvitationAccepted => "invitation_accepted",
            Kind::DrawOffered => "draw_offered",
            Kind::FlipDecision => "flip_decision",
            Kind::PlayerEliminated => "player_eliminated",
            Kind::MatchCancelled => "match_cancelled",
            Kind::TakebackRequested => "takeback_requested",
            Kind::TakebackAnswered => "takeback_answered",
            Kind::OpponentOnVacation => "opponent_on_vacation",
            Kind::OpponentBack => "opponent_back",
            Kind::ConditionalPlayed => "conditional_played",
            Kind::TournamentInvited => "tournament_invited",
            Kind::TournamentStarted => "tournament_started",
            Kind::TournamentRound => "tournament_round",
            Kind::TournamentFinished => "tournament_finished",
            Kind::Message => "message",
            Kind::Digest => "digest",
            Kind::DailyPuzzle => "daily_puzzle",
        }
    }

    pub fn parse(name: &str) -> Option<Kind> {
        serde_json::from_value(Value::String(name.to_owned())).ok()
    }

    /// Whether the notification is about a tournament: its `match_id` is
    /// then the tournament's id, and its link the tournament's page.
    pub fn about_tournament(self) -> bool {
        matches!(
            self,
            Kind::TournamentInvited
                | Kind::TournamentStarted
                | Kind::TournamentRound
                | Kind::TournamentFinished
        )
    }

    /// Kinds that ask for the player's move now: sent at once (Web Push
    /// urgency high, APNs priority 10, FCM high, the Android "turns"
    /// channel), where the others may wait for the phone to wake.
    pub fn urgent(self) -> bool {
        matches!(
            self,
            Kind::YourTurn | Kind::TimeoutNotice | Kind::FlipDecision
        )
    }

    /// Whether it is about the play of one match: what waits while its
    /// reader has that match open (docs/decisions/notifications.md, "At the
    /// table"). A tournament's news, the digest and the day's puzzles are
    /// about no one table.
    pub fn about_a_match(self) -> bool {
        !self.about_tournament() && !matches!(self, Kind::Digest | Kind::DailyPuzzle)
    }

    /// Where a notification of this kind about `id` points.
    pub fn link(self, base: &str, id: Uuid) -> String {
        let base = base.trim_end_matches('/');
        match self {
            Kind::Digest => format!("{base}/matches"),
            Kind::DailyPuzzle => format!("{base}/puzzles"),
            k if k.about_tournament() => format!("{base}/tournaments/{id}"),
            _ => format!("{base}/matches/{id}"),
        }
    }
}

/// What a notice replaces on a phone or in a browser (APNs's
/// `apns-collapse-id` and thread, FCM's `collapse_key` and `tag`, the Web
/// Push notification's `tag`): one per match and urgency, so that a newer
/// notice about a match replaces an older one, but a quieter notice never
/// takes the place of one asking for a move
/// (docs/decisions/notifications.md, "Never replaced by something quieter":
/// the push services promise no order, and "accepted" once replaced "your
/// turn").
pub fn collapse_id(about: Uuid, kind: Kind) -> String {
    format!("{about}.{}", if kind.urgent() { "turn" } else { "news" })
}

/// The same as a Web Push `Topic` (RFC 8030 §5.4: at most 32 characters of
/// the URL-safe base64 alphabet): a newer message waiting at the push
/// service replaces an older one of the same match and urgency.
pub fn push_topic(about: Uuid, kind: Kind) -> String {
    use base64::Engine;
    let mut bytes = about.as_bytes().to_vec();
    bytes.push(u8::from(kind.urgent()));
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// Where one notification goes: the user's email, one browser's Web Push
/// subscription, or one native app's device. Stored as `email`,
/// `push:<subscription id>` or `app:<device id>` (the outbox statement
/// writes them in SQL; this reads them back).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Channel {
    Email,
    Push(Uuid),
    App(Uuid),
}

impl Channel {
    pub fn parse(text: &str) -> Option<Channel> {
        if let Some(id) = text.strip_prefix("push:") {
            return id.parse().ok().map(Channel::Push);
        }
        if let Some(id) = text.strip_prefix("app:") {
            return id.parse().ok().map(Channel::App);
        }
        (text == "email").then_some(Channel::Email)
    }
}

impl std::fmt::Display for Channel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Channel::Email => f.write_str("email"),
            Channel::Push(id) => write!(f, "push:{id}"),
            Channel::App(id) => write!(f, "app:{id}"),
        }
    }
}

/// Where a notification stands (the `notifications.status` check).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeliveryStatus {
    Pending,
    Sent,
    /// Every attempt failed, or no retry could mend it: recorded, not lost.
    Failed,
    /// Not sent, on purpose, with the reason in `last_error`: its reader
    /// played at the table meanwhile, a newer notice replaced it, or a
    /// more urgent one went with it (docs/decisions/notifications.md, "The
    /// lock screen").
    Dropped,
}

impl DeliveryStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryStatus::Pending => "pending",
            DeliveryStatus::Sent => "sent",
            DeliveryStatus::Failed => "failed",
            DeliveryStatus::Dropped => "dropped",
        }
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
    #[serde(default = "on")]
    pub player_eliminated: bool,
    #[serde(default = "on")]
    pub match_cancelled: bool,
    #[serde(default = "on")]
    pub takeback_requested: bool,
    #[serde(default = "on")]
    pub takeback_answered: bool,
    #[serde(default = "on")]
    pub opponent_on_vacation: bool,
    #[serde(default = "on")]
    pub opponent_back: bool,
    #[serde(default = "on")]
    pub conditional_played: bool,
    #[serde(default = "on")]
    pub tournament_invited: bool,
    #[serde(default = "on")]
    pub tournament_started: bool,
    #[serde(default = "on")]
    pub tournament_round: bool,
    #[serde(default = "on")]
    pub tournament_finished: bool,
    #[serde(default = "on")]
    pub message: bool,
    #[serde(default = "on")]
    pub daily_puzzle: bool,
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
            Kind::PlayerEliminated => &mut self.player_eliminated,
            Kind::MatchCancelled => &mut self.match_cancelled,
            Kind::TakebackRequested => &mut self.takeback_requested,
            Kind::TakebackAnswered => &mut self.takeback_answered,
            Kind::OpponentOnVacation => &mut self.opponent_on_vacation,
            Kind::OpponentBack => &mut self.opponent_back,
            Kind::ConditionalPlayed => &mut self.conditional_played,
            Kind::TournamentInvited => &mut self.tournament_invited,
            Kind::TournamentStarted => &mut self.tournament_started,
            Kind::TournamentRound => &mut self.tournament_round,
            Kind::TournamentFinished => &mut self.tournament_finished,
            Kind::Message => &mut self.message,
            Kind::DailyPuzzle => &mut self.daily_puzzle,
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
    /// A notice at the user's local morning that today's puzzles are out
    /// (issue #52), by whichever of the `daily_puzzle` switches are on.
    /// Off unless asked for.
    #[serde(default)]
    pub daily_puzzle: bool,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// One switch per kind that is sent on its own (docs/api.md,
    /// "Notifications"; the digest has its own setting), no more and no
    /// fewer.
    #[test]
    fn the_settings_switches_are_exactly_the_notification_kinds() {
        let switches = serde_json::to_value(Switches::default()).unwrap();
        let mut keys: Vec<&str> = switches
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        let mut kinds: Vec<&str> = Kind::ALL
            .iter()
            .filter(|k| **k != Kind::Digest)
            .map(|k| k.name())
            .collect();
        kinds.sort_unstable();
        assert_eq!(keys, kinds);
        for kind in Kind::ALL {
            assert_eq!(Kind::parse(kind.name()), Some(kind));
        }
    }

    /// Notices of different urgency never share a collapse id or topic
    /// (docs/decisions/notifications.md, "Never replaced by something
    /// quieter"); two of the same urgency about one match do.
    #[test]
    fn a_quieter_notice_never_shares_a_collapse_id_with_a_turn() {
        let about = Uuid::new_v4();
        for a in Kind::ALL {
            for b in Kind::ALL {
                let same = a.urgent() == b.urgent();
                assert_eq!(collapse_id(about, a) == collapse_id(about, b), same);
                assert_eq!(push_topic(about, a) == push_topic(about, b), same);
            }
            let topic = push_topic(about, a);
            assert!(topic.len() <= 32, "{topic}");
            assert!(topic
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'));
        }
        assert_ne!(
            collapse_id(about, Kind::YourTurn),
            collapse_id(Uuid::new_v4(), Kind::YourTurn)
        );
    }

    #[test]
    fn channels_read_back_as_written() {
        let id = Uuid::new_v4();
        for channel in [Channel::Email, Channel::Push(id), Channel::App(id)] {
            assert_eq!(Channel::parse(&channel.to_string()), Some(channel));
        }
        assert_eq!(Channel::parse("pigeon"), None);
        assert_eq!(Channel::parse("push:not-a-uuid"), None);
        assert_eq!(Channel::parse("app:"), None);
    }
}
