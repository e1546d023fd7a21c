//! Reporting a message (docs/decisions/table-talk.md, "Reports and
//! moderators"): any player who reads a message may report it, once, up to
//! 20 reports a day; moderators list the open reports. Nothing of a report
//! reaches the reported player.

use super::require;
use crate::error::Error;
use crate::limits::{self, Limit};
use crate::players::Player;
use crate::schema::reports;
use crate::talk::messages::Room;
use crate::talk::reported;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// Why a message is reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// Insults, threats, harassment.
    Abuse,
    /// Advertising, links, floods.
    Spam,
    Other,
}

impl Reason {
    fn name(self) -> &'static str {
        match self {
            Reason::Abuse => "abuse",
            Reason::Spam => "spam",
            Reason::Other => "other",
        }
    }

    fn parse(name: &str) -> Reason {
        [Reason::Abuse, Reason::Spam]
            .into_iter()
            .find(|r| r.name() == name)
            .unwrap_or(Reason::Other)
    }
}

/// `POST /v1/messages/{id}/report`.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Report {
    pub reason: Reason,
    /// What the moderators should know, 1–500 characters.
    #[serde(default)]
    #[schema(min_length = 1, max_length = 500)]
    pub detail: Option<String>,
}

/// A report taken.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Reported {
    pub id: Uuid,
}

/// A message `user` reads: its author, and whether it still shows a
/// text (neither hidden nor its author's account deleted). A message
/// `user` cannot read is, to them, no message at all (404).
fn readable(conn: &mut PgConnection, message: Uuid, user: Uuid) -> Result<(Uuid, bool), Error> {
    let said = crate::talk::reported::said(conn, message)?.ok_or(Error::not_found("message"))?;
    let room = match (said.at_match, said.at_tournament) {
        (Some(id), _) => Room::at_table(conn, id, user),
        (None, Some(id)) => crate::tournaments::room::room(conn, id, user),
        (None, None) => Err(Error::not_found("message")),
    };
    let room = room.map_err(|e| match e {
        Error::Forbidden(_) | Error::NotFound(_) => Error::not_found("message"),
        other => other,
    })?;
    let who = crate::talk::settings(conn, user)?.who;
    let of_my_team = said.team.is_none() || said.team == room.team;
    if !of_my_team || !crate::talk::hears(conn, user, who, said.author)? {
        return Err(Error::not_found("message"));
    }
    Ok((said.author, said.shown))
}

/// `reporter` reports `message`: once (a second report of theirs answers
/// the first), never their own.
pub fn report(
    conn: &mut PgConnection,
    message: Uuid,
    reporter: Uuid,
    report: Report,
    now: DateTime<Utc>,
) -> Result<Reported, Error> {
    let detail = (report.detail.as_deref())
        .map(|d| crate::talk::text(d, 500, true, "detail"))
        .transpose()?;
    let (author, shown) = readable(conn, message, reporter)?;
    if author == reporter {
        return Err(Error::unacceptable("that message is your own"));
    }
    if !shown {
        return Err(Error::unacceptable(
            "that message is hidden or deleted already: nothing to report",
        ));
    }
    let earlier: Option<Uuid> = reports::table
        .filter(reports::message_id.eq(message))
        .filter(reports::reporter_id.eq(reporter))
        .select(reports::id)
        .first(conn)
        .optional()?;
    if let Some(id) = earlier {
        return Ok(Reported { id });
    }
    limits::take(conn, Limit::ReportPerDay, &reporter.to_string(), now)?;
    // Two at once (a double tap): the second finds the first's.
    let taken: Option<Uuid> = diesel::insert_into(reports::table)
        .values((
            reports::id.eq(Uuid::new_v4()),
            reports::message_id.eq(message),
            reports::reporter_id.eq(reporter),
            reports::reason.eq(report.reason.name()),
            reports::detail.eq(detail),
            reports::created_at.eq(now),
        ))
        .on_conflict((reports::message_id, reports::reporter_id))
        .do_nothing()
        .returning(reports::id)
        .get_result(conn)
        .optional()?;
    let id = match taken {
        Some(id) => id,
        None => reports::table
            .filter(reports::message_id.eq(message))
            .filter(reports::reporter_id.eq(reporter))
            .select(reports::id)
            .first(conn)?,
    };
    Ok(Reported { id })
}

/// An open report, as moderators read it.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct OpenReport {
    pub id: Uuid,
    pub reason: Reason,
    pub detail: Option<String>,
    pub at: DateTime<Utc>,
    /// Who reported (moderators only: never the reported player).
    pub reporter: Player,
    pub message: ReportedMessage,
    /// What was said just before it in the same room and channel, oldest
    /// first (up to [`CONTEXT`]): a message is judged in its context,
    /// where a moderator has no seat.
    pub before: Vec<Said>,
}

/// Messages of context a report carries.
pub const CONTEXT: i64 = 5;

/// A message of a report's context. Named apart in the document: its
/// own name met talk's `Said` (a request body) and took its place there.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(as = ContextMessage)]
pub struct Said {
    pub author: Player,
    pub text: Option<String>,
    pub at: DateTime<Utc>,
}

/// The [`CONTEXT`] messages before `m`, in its room and channel, oldest
/// first, with their authors.
fn context(conn: &mut PgConnection, m: &reported::Whole) -> Result<Vec<Said>, Error> {
    let rows = reported::before(conn, m, CONTEXT)?;
    let players = crate::players::load(conn, rows.iter().map(|r| r.author).collect())?;
    Ok((rows.into_iter())
        .filter_map(|r| {
            let author = players.get(&r.author)?.clone();
            Some(Said {
                author,
                text: r.text,
                at: r.at,
            })
        })
        .collect())
}

/// The message reported, whole, and where it was written.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct ReportedMessage {
    pub id: Uuid,
    pub author: Player,
    pub text: Option<String>,
    pub hidden: bool,
    pub at: DateTime<Utc>,
    pub match_id: Option<Uuid>,
    pub tournament_id: Option<Uuid>,
}

/// The open reports, oldest first (100 at a time).
pub fn open(conn: &mut PgConnection, moderator: Uuid) -> Result<Vec<OpenReport>, Error> {
    require(conn, moderator)?;
    type Open = (Uuid, String, Option<String>, DateTime<Utc>, Uuid, Uuid);
    let rows: Vec<Open> = reports::table
        .filter(reports::closed_at.is_null())
        .order(reports::created_at)
        .limit(100)
        .select((
            reports::id,
            reports::reason,
            reports::detail,
            reports::created_at,
            reports::reporter_id,
            reports::message_id,
        ))
        .load(conn)?;
    let messages = reported::whole(conn, rows.iter().map(|r| r.5).collect())?;
    let authors = messages.values().map(|m| m.author);
    let ids = rows.iter().map(|r| r.4).chain(authors).collect();
    let players = crate::players::load(conn, ids)?;
    let player = |id: &Uuid| {
        (players.get(id).cloned()).ok_or_else(|| Error::internal(format!("no player {id}")))
    };
    // A report whose message is gone (none is: a deleted author's keep
    // their place) is left out, as the join it replaces left it.
    (rows.into_iter())
        .filter_map(|r| Some((messages.get(&r.5)?, r)))
        .map(|(m, (id, reason, detail, at, reporter, _))| {
            let before = context(conn, m)?;
            Ok(OpenReport {
                before,
                id,
                reason: Reason::parse(&reason),
                detail,
                at,
                reporter: player(&reporter)?,
                message: ReportedMessage {
                    id: m.id,
                    author: player(&m.author)?,
                    text: m.text.clone(),
                    hidden: m.hidden,
                    at: m.at,
                    match_id: m.match_id,
                    tournament_id: m.tournament_id,
                },
            })
        })
        .collect()
}
