//! What moderation asks of a message (docs/decisions/table-talk.md,
//! "Reports and moderators"): where it was said and by whom, and hiding
//! it. Talk owns `messages`; moderation keeps the reports and the log.

use crate::error::Error;
use crate::schema::messages;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use uuid::Uuid;

/// A message as a report reads it.
pub struct Said {
    /// The match whose table it was said at, or the tournament's room.
    pub at_match: Option<Uuid>,
    pub at_tournament: Option<Uuid>,
    pub author: Uuid,
    /// The team channel it was said on, if one.
    pub team: Option<i16>,
    /// Whether it still shows a text: neither hidden nor its author's
    /// account deleted.
    pub shown: bool,
}

/// Message `id`, if there is one.
pub fn said(conn: &mut PgConnection, id: Uuid) -> Result<Option<Said>, Error> {
    type Row = (
        Option<Uuid>,
        Option<Uuid>,
        Uuid,
        Option<i16>,
        Option<String>,
        Option<DateTime<Utc>>,
    );
    let row: Option<Row> = messages::table
        .find(id)
        .select((
            messages::match_id,
            messages::tournament_id,
            messages::author_id,
            messages::team,
            messages::body,
            messages::hidden_at,
        ))
        .first(conn)
        .optional()?;
    Ok(row.map(
        |(at_match, at_tournament, author, team, body, hidden)| Said {
            at_match,
            at_tournament,
            author,
            team,
            shown: body.is_some() && hidden.is_none(),
        },
    ))
}

/// Hide message `id` from every reader; its author.
pub fn hide(conn: &mut PgConnection, id: Uuid, now: DateTime<Utc>) -> Result<Uuid, Error> {
    diesel::update(messages::table.find(id))
        .set(messages::hidden_at.eq(now))
        .returning(messages::author_id)
        .get_result(conn)
        .optional()?
        .ok_or(Error::not_found("message"))
}

/// A reported message whole, as the moderators read it, and where it
/// stands in its room (for its context).
#[derive(Queryable, Selectable)]
#[diesel(table_name = messages)]
pub struct Whole {
    pub id: Uuid,
    #[diesel(column_name = author_id)]
    pub author: Uuid,
    #[diesel(column_name = body)]
    pub text: Option<String>,
    #[diesel(column_name = created_at)]
    pub at: DateTime<Utc>,
    pub match_id: Option<Uuid>,
    pub tournament_id: Option<Uuid>,
    team: Option<i16>,
    serial: i64,
    #[diesel(select_expression = messages::hidden_at.is_not_null())]
    #[diesel(select_expression_type = diesel::dsl::IsNotNull<messages::hidden_at>)]
    pub hidden: bool,
}

/// Messages `ids`, whole, by id.
pub fn whole(
    conn: &mut PgConnection,
    ids: Vec<Uuid>,
) -> Result<std::collections::HashMap<Uuid, Whole>, Error> {
    let rows: Vec<Whole> = messages::table
        .filter(messages::id.eq_any(ids))
        .select(Whole::as_select())
        .load(conn)?;
    Ok(rows.into_iter().map(|m| (m.id, m)).collect())
}

/// A message of a report's context.
pub struct Before {
    pub author: Uuid,
    pub text: Option<String>,
    pub at: DateTime<Utc>,
}

/// The `count` messages before `m` in its room and channel, oldest first.
pub fn before(conn: &mut PgConnection, m: &Whole, count: i64) -> Result<Vec<Before>, Error> {
    let query = messages::table
        .filter(messages::serial.lt(m.serial))
        .filter(messages::team.is_not_distinct_from(m.team))
        .order(messages::serial.desc())
        .limit(count)
        .select((messages::author_id, messages::body, messages::created_at))
        .into_boxed();
    let query = match (m.match_id, m.tournament_id) {
        (Some(id), _) => query.filter(messages::match_id.eq(id)),
        (None, id) => query.filter(messages::tournament_id.is_not_distinct_from(id)),
    };
    let rows = query.load::<(Uuid, Option<String>, DateTime<Utc>)>(conn)?;
    Ok((rows.into_iter().rev())
        .map(|(author, text, at)| Before { author, text, at })
        .collect())
}
