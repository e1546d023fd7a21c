//! `GET /v1/me/export` (docs/decisions/accounts-and-sessions.md):
//! everything the service keeps about me, as one JSON document. Every match
//! is read through the same use cases as its own endpoints
//! (`matches::play::view` and `events`), so it holds exactly what I could
//! see there: an opponent's FlipChess hand or a face-down Banqi piece never
//! appears, because the rules redact it for my seat as they do for every
//! answer.

use crate::accounts::identities::{self, Identity};
use crate::accounts::my_sessions::{self, DeviceSession};
use crate::accounts::{self, Me};
use crate::error::Error;
use crate::friends::{self, ChallengeSettings, Friends};
use crate::limits::{self, Limit};
use crate::matches::conditional::{self, Lines};
use crate::matches::{play, EventView, MatchView};
use crate::players::Player;
use crate::tournaments::read::TournamentSummary;
use crate::vacation::{self, Vacation};
use chrono::{DateTime, Utc};
use diesel::PgConnection;
use posthorn_rules::Random;
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

#[derive(Debug, Serialize, ToSchema)]
pub struct Export {
    pub exported_at: DateTime<Utc>,
    /// My account, as `GET /v1/me` answers it.
    pub profile: Me,
    pub settings: ExportedSettings,
    /// The devices signed in (`GET /v1/me/sessions`).
    pub sessions: Vec<DeviceSession>,
    /// Google and Apple identities linked.
    pub identities: Vec<Identity>,
    pub push_subscriptions: Vec<crate::notify::push::ExportedSubscription>,
    /// The native apps' devices registered for push (issue #51).
    pub app_devices: Vec<crate::notify::native::devices::Device>,
    /// Every match I sit in or was challenged to, as I see it, with its
    /// whole event log as I may read it.
    pub matches: Vec<ExportedMatch>,
    pub ratings: Vec<crate::ratings::profile::ExportedRating>,
    /// How each rated match moved my rating.
    pub rating_history: Vec<crate::ratings::profile::RatingChange>,
    pub friends: Friends,
    pub blocks: Vec<Player>,
    /// The tournaments I am or was in (`GET /v1/tournaments`: the newest
    /// 100).
    pub tournaments: Vec<TournamentSummary>,
    /// The messages I wrote in tournaments' rooms (issue #50).
    pub tournament_messages: Vec<crate::talk::MyRoomMessage>,
    /// Addresses that left my account and may still be put back
    /// (issue #65): each with when it left and until when.
    pub addresses_left: Vec<crate::accounts::email_undos::AddressLeft>,
    /// My puzzles: attempts, ratings, and the mornings I was told of the
    /// daily one.
    pub puzzles: crate::puzzles::history::PuzzleHistory,
    /// The first steps I completed.
    pub lessons: Vec<crate::lessons::ExportedStep>,
    /// The share links I made that still open (issue #69), each with its
    /// address on this service.
    pub share_links: Vec<crate::sharing::ShareLink>,
    /// My coins: the balance and every line of the ledger (issue #70).
    pub coins: crate::coins::Ledger,
    /// The looks I wear.
    pub looks: crate::players::Worn,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ExportedSettings {
    pub notifications: crate::notify::Settings,
    pub challenges: ChallengeSettings,
    pub vacation: Vacation,
    /// Who may write to me at a table.
    pub talk: crate::talk::TalkSettings,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ExportedMatch {
    #[serde(rename = "match")]
    pub match_view: MatchView,
    pub events: Vec<EventView>,
    /// The conditional moves I keep in it.
    pub conditional_moves: Lines,
    /// The messages I wrote at its table (issue #50).
    pub my_messages: Vec<crate::talk::MyMessage>,
    /// My private note on it.
    pub note: Option<String>,
}

/// An export of `user`'s, counted against [`Limit::Export`]: taken in a
/// transaction of its own before the reads (they are many, and need none).
pub fn count(conn: &mut PgConnection, user: Uuid, now: DateTime<Utc>) -> Result<(), Error> {
    limits::take(conn, Limit::Export, &user.to_string(), now)?;
    Ok(())
}

/// My data.
pub fn export(
    conn: &mut PgConnection,
    user: Uuid,
    session: Uuid,
    now: DateTime<Utc>,
    site: &str,
    random: &mut dyn Random,
) -> Result<Export, Error> {
    Ok(Export {
        exported_at: now,
        profile: accounts::me(conn, user)?,
        settings: ExportedSettings {
            notifications: crate::notify::settings_of(conn, user)?,
            challenges: friends::challenge_settings(conn, user)?,
            vacation: vacation::status(conn, user, now)?,
            talk: crate::talk::settings(conn, user)?,
        },
        sessions: my_sessions::list(conn, user, session, now)?.sessions,
        identities: identities::list(conn, user)?.identities,
        push_subscriptions: crate::notify::push::export(conn, user)?,
        app_devices: crate::notify::native::devices::list(conn, user, session)?.devices,
        matches: my_matches(conn, user, now, random)?,
        ratings: crate::ratings::profile::exported(conn, user)?,
        rating_history: crate::ratings::profile::history(conn, user)?,
        friends: crate::matches::reads::friends(conn, user)?,
        blocks: friends::blocked(conn, user)?,
        tournaments: crate::tournaments::read::mine(conn, user)?,
        tournament_messages: crate::talk::mine_in_rooms(conn, user)?,
        addresses_left: crate::accounts::email_undos::export(conn, user)?,
        puzzles: crate::puzzles::history::export(conn, user)?,
        lessons: crate::lessons::export(conn, user)?,
        share_links: crate::sharing::made_by(conn, user, site)?,
        coins: crate::coins::exported(conn, user)?,
        looks: crate::players::worn(conn, user)?,
    })
}

/// Every match of mine through its own read use cases.
fn my_matches(
    conn: &mut PgConnection,
    user: Uuid,
    now: DateTime<Utc>,
    random: &mut dyn Random,
) -> Result<Vec<ExportedMatch>, Error> {
    (crate::matches::reads::of_player(conn, user)?.into_iter())
        .map(|id| {
            let (my_messages, note) = crate::talk::mine_at(conn, id, user)?;
            Ok(ExportedMatch {
                match_view: play::view(conn, id, user, now, random)?,
                events: play::events(conn, id, user, 0, now, random)?.events,
                conditional_moves: conditional::planned(conn, id, user)?,
                my_messages,
                note,
            })
        })
        .collect()
}
