//! Reports and moderators (docs/decisions/table-talk.md "Reports and
//! moderators"). Any player reports a message they read ([`reports`]); a
//! moderator — a role granted by the binary's command
//! (`posthorn moderator grant <username>`), never by the API — lists the
//! open reports and acts ([`acts`]): hides a message, mutes a player's
//! talk for a time, suspends an account. Every act, and every grant, is
//! kept in the audit log with who and why. The reported player is never
//! told who reported them.

pub mod acts;
pub mod reports;

use crate::error::Error;
use crate::personal::{Exported, Leaving, Owner, Phase};
use crate::schema::moderation_log;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// The most characters of a reason given.
pub const WHY_MOST: usize = 500;

/// Refuse anyone but a moderator (403: the moderation API is documented;
/// what it holds is not for players).
pub fn require(conn: &mut PgConnection, user: Uuid) -> Result<(), Error> {
    match crate::accounts::standing::is_moderator(conn, user)? {
        true => Ok(()),
        false => Err(Error::forbidden("only moderators do this")),
    }
}

/// An entry of the audit log, as written.
pub struct Entry {
    /// None: the binary's command line.
    pub moderator: Option<Uuid>,
    pub action: Action,
    pub user: Option<Uuid>,
    pub message: Option<Uuid>,
    pub report: Option<Uuid>,
    pub why: String,
    pub until: Option<DateTime<Utc>>,
}

/// What a moderator (or the command line) did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Grant,
    Revoke,
    Hide,
    Dismiss,
    Mute,
    Suspend,
    Reinstate,
}

impl Action {
    pub const ALL: [Action; 7] = [
        Action::Grant,
        Action::Revoke,
        Action::Hide,
        Action::Dismiss,
        Action::Mute,
        Action::Suspend,
        Action::Reinstate,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Action::Grant => "grant",
            Action::Revoke => "revoke",
            Action::Hide => "hide",
            Action::Dismiss => "dismiss",
            Action::Mute => "mute",
            Action::Suspend => "suspend",
            Action::Reinstate => "reinstate",
        }
    }

    fn parse(name: &str) -> Option<Action> {
        Action::ALL.into_iter().find(|a| a.name() == name)
    }
}

/// Keep `entry` in the audit log.
pub fn record(conn: &mut PgConnection, entry: Entry, now: DateTime<Utc>) -> Result<(), Error> {
    diesel::insert_into(moderation_log::table)
        .values((
            moderation_log::moderator_id.eq(entry.moderator),
            moderation_log::action.eq(entry.action.name()),
            moderation_log::target_user.eq(entry.user),
            moderation_log::target_message.eq(entry.message),
            moderation_log::target_report.eq(entry.report),
            moderation_log::why.eq(entry.why),
            moderation_log::until.eq(entry.until),
            moderation_log::at.eq(now),
        ))
        .execute(conn)?;
    Ok(())
}

/// `posthorn moderator grant|revoke <username>`: the only way a player
/// becomes (or stops being) a moderator. Logged as the command line's.
pub fn grant(
    conn: &mut PgConnection,
    username: &str,
    on: bool,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    let player = crate::players::named(conn, username)?;
    crate::accounts::standing::set_moderator(conn, player.id, on)?;
    let action = if on { Action::Grant } else { Action::Revoke };
    let entry = Entry {
        moderator: None,
        action,
        user: Some(player.id),
        message: None,
        report: None,
        why: "the command line".into(),
        until: None,
    };
    record(conn, entry, now)
}

/// A reason a moderator gives: checked as a note's text (1–500
/// characters, line breaks kept).
pub fn why(text: &str) -> Result<String, Error> {
    crate::talk::text(text, WHY_MOST, true, "why")
}

/// One entry of the audit log, as moderators read it.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct LogEntry {
    pub serial: i64,
    /// Who acted; none for the command line.
    pub moderator: Option<crate::players::Player>,
    pub action: Action,
    pub player: Option<crate::players::Player>,
    pub message: Option<Uuid>,
    pub report: Option<Uuid>,
    pub why: String,
    pub until: Option<DateTime<Utc>>,
    pub at: DateTime<Utc>,
}

type LogRow = (
    i64,
    Option<Uuid>,
    String,
    Option<Uuid>,
    Option<Uuid>,
    Option<Uuid>,
    String,
    Option<DateTime<Utc>>,
    DateTime<Utc>,
);

/// The audit log, newest first, 100 entries before `before`.
pub fn log(
    conn: &mut PgConnection,
    moderator: Uuid,
    before: Option<i64>,
) -> Result<Vec<LogEntry>, Error> {
    require(conn, moderator)?;
    let rows: Vec<LogRow> = moderation_log::table
        .filter(moderation_log::serial.lt(before.unwrap_or(i64::MAX)))
        .order(moderation_log::serial.desc())
        .limit(100)
        .select((
            moderation_log::serial,
            moderation_log::moderator_id,
            moderation_log::action,
            moderation_log::target_user,
            moderation_log::target_message,
            moderation_log::target_report,
            moderation_log::why,
            moderation_log::until,
            moderation_log::at,
        ))
        .load(conn)?;
    let ids = (rows.iter()).flat_map(|r| [r.1, r.3]).flatten().collect();
    let players = crate::players::load(conn, ids)?;
    let who = |id: Option<Uuid>| id.and_then(|id| players.get(&id).cloned());
    rows.into_iter()
        .map(
            |(serial, by, action, user, message, report, why, until, at)| {
                Ok(LogEntry {
                    serial,
                    moderator: who(by),
                    action: Action::parse(&action)
                        .ok_or_else(|| Error::internal(format!("audit action {action:?}")))?,
                    player: who(user),
                    message,
                    report,
                    why,
                    until,
                    at,
                })
            },
        )
        .collect()
}

/// A deleted reporter's words: the reports stay, with their reason, and
/// so does the audit log, for the moderators' record of what was done
/// and why; the words a reporter wrote go.
pub const PERSONAL: Owner = Owner {
    module: "moderation",
    tables: &["reports", "moderation_log"],
    phase: Phase::Erase,
    forget,
    exported: Exported::Not(
        "the moderators' record of reports and acts, not the player's own; \
         the words a player wrote in a report are erased with the account",
    ),
    kept: "reports with their reason, and the audit log",
};

fn forget(conn: &mut PgConnection, leaving: &mut Leaving<'_>) -> Result<(), Error> {
    use crate::schema::reports;
    diesel::update(reports::table.filter(reports::reporter_id.eq(leaving.user)))
        .set(reports::detail.eq(None::<String>))
        .execute(conn)?;
    Ok(())
}
