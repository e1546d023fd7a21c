//! Reporting a message (docs/decisions/table-talk.md, "Reports and
//! moderators"): any player who reads a message may report it, once, up to
//! 20 reports a day; moderators list the open reports. Nothing of a report
//! reaches the reported player.

use super::require;
use crate::error::Error;
use crate::limits::{self, Limit};
use crate::players::Player;
use crate::schema::{messages, reports};
use crate::talk::messages::Room;
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
    type Found = (
        Option<Uuid>,
        Option<Uuid>,
        Uuid,
        Option<i16>,
        Option<String>,
        Option<DateTime<Utc>>,
    );
    let (at_match, at_tournament, author, team, body, hidden): Found = messages::table
        .find(message)
        .select((
            messages::match_id,
            messages::tournament_id,
            messages::author_id,
            messages::team,
            messages::body,
            messages::hidden_at,
        ))
        .first(conn)
        .optional()?
        .ok_or(Error::not_found("message"))?;
    let room = match (at_match, at_tournament) {
        (Some(id), _) => Room::at_table(conn, id, user),
        (None, Some(id)) => crate::tournaments::room::room(conn, id, user),
        (None, None) => Err(Error::not_found("message")),
    };
    let room = room.map_err(|e| match e {
        Error::Forbidden(_) | Error::NotFound(_) => Error::not_found("message"),
        other => other,
    })?;
    let who = crate::talk::settings(conn, user)?.who;
    let of_my_team = team.is_none() || team == room.team;
    if !of_my_team || !crate::talk::hears(conn, user, who, author)? {
        return Err(Error::not_found("message"));
    }
    Ok((author, body.is_some() && hidden.is_none()))
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

/// The [`CONTEXT`] messages before `message`, in its room and channel.
fn context(conn: &mut PgConnection, m: &MessageRow) -> Result<Vec<Said>, Error> {
    let query = messages::table
        .filter(messages::serial.lt(m.serial))
        .filter(messages::team.is_not_distinct_from(m.team))
        .order(messages::serial.desc())
        .limit(CONTEXT)
        .select((messages::author_id, messages::body, messages::created_at))
        .into_boxed();
    let query = match (m.match_id, m.tournament_id) {
        (Some(id), _) => query.filter(messages::match_id.eq(id)),
        (None, id) => query.filter(messages::tournament_id.is_not_distinct_from(id)),
    };
    let rows = query.load::<(Uuid, Option<String>, DateTime<Utc>)>(conn)?;
    let players = crate::players::load(conn, rows.iter().map(|r| r.0).collect())?;
    Ok((rows.into_iter().rev())
        .filter_map(|(author, text, at)| {
            let author = players.get(&author)?.clone();
            Some(Said { author, text, at })
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

/// A reported message as read for the moderators: what they see of it,
/// and where it stands in its room (for its context).
#[derive(Queryable, Selectable)]
#[diesel(table_name = messages)]
struct MessageRow {
    id: Uuid,
    author_id: Uuid,
    body: Option<String>,
    hidden_at: Option<DateTime<Utc>>,
    created_at: DateTime<Utc>,
    match_id: Option<Uuid>,
    tournament_id: Option<Uuid>,
    team: Option<i16>,
    serial: i64,
}

type OpenRow = (
    Uuid,
    String,
    Option<String>,
    DateTime<Utc>,
    Uuid,
    MessageRow,
);

/// The open reports, oldest first (100 at a time).
pub fn open(conn: &mut PgConnection, moderator: Uuid) -> Result<Vec<OpenReport>, Error> {
    require(conn, moderator)?;
    let rows: Vec<OpenRow> = reports::table
        .inner_join(messages::table)
        .filter(reports::closed_at.is_null())
        .order(reports::created_at)
        .limit(100)
        .select((
            reports::id,
            reports::reason,
            reports::detail,
            reports::created_at,
            reports::reporter_id,
            MessageRow::as_select(),
        ))
        .load(conn)?;
    let ids = rows.iter().flat_map(|r| [r.4, r.5.author_id]).collect();
    let players = crate::players::load(conn, ids)?;
    let player = |id: &Uuid| {
        (players.get(id).cloned()).ok_or_else(|| Error::internal(format!("no player {id}")))
    };
    rows.into_iter()
        .map(|(id, reason, detail, at, reporter, m)| {
            Ok(OpenReport {
                before: context(conn, &m)?,
                id,
                reason: Reason::parse(&reason),
                detail,
                at,
                reporter: player(&reporter)?,
                message: ReportedMessage {
                    id: m.id,
                    author: player(&m.author_id)?,
                    text: m.body,
                    hidden: m.hidden_at.is_some(),
                    at: m.created_at,
                    match_id: m.match_id,
                    tournament_id: m.tournament_id,
                },
            })
        })
        .collect()
}
