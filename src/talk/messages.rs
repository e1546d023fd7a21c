//! Messages at a match's table (docs/decisions/table-talk.md, "What is
//! built"): written by its seated people, read as [`super::hears`] allows,
//! counted unread for those who hear them until they read. A tournament's
//! room follows the same rules with no unread counts: its caller
//! (`tournaments::room`) finds the room, this writes and reads it.

use super::{hears, settings, Who};
use crate::error::Error;
use crate::idempotency::{self, Keyed};
use crate::limits::{self, Limit};
use crate::matches::{MatchView, Table};
use crate::players::Player;
use crate::schema::{messages, talk_seats};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use utoipa::ToSchema;
use uuid::Uuid;

/// The most characters of a message.
pub const MOST: usize = 500;
/// Messages a page holds; older ones are asked for with `before`.
pub const PAGE: i64 = 50;

/// `POST /v1/matches/{id}/messages`.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Said {
    /// 1–500 characters, one line, trimmed.
    #[schema(min_length = 1, max_length = 500)]
    pub text: String,
    /// To my team only (four-player chess in teams); else everyone at the
    /// table.
    #[serde(default)]
    pub team: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct Message {
    pub id: Uuid,
    pub author: Player,
    /// Written to the author's team only.
    pub team: bool,
    /// The text; absent once its author deleted their account, or a
    /// moderator hid it.
    pub text: Option<String>,
    /// Hidden by a moderator (issue #50 item 6).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hidden: bool,
    /// The match's seq when it was written: after which event (none in a
    /// tournament's room).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_seq: Option<i32>,
    pub at: DateTime<Utc>,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Messages {
    /// Oldest first, the newest `PAGE` before `before`.
    pub items: Vec<Message>,
    /// Pass as `before` for older ones; none at the start.
    pub next_before: Option<Uuid>,
    /// Not read yet by me (none while muted).
    pub unread: i32,
    /// My mute of this match: no notice, no unread count.
    pub muted: bool,
    /// Whether I may write here (seated, my talk not off, not muted by a
    /// moderator).
    pub may_write: bool,
    /// Whether I have a team channel here (teams of more than one).
    pub team_channel: bool,
}

type Row = (
    Uuid,
    Uuid,
    Option<i16>,
    Option<String>,
    i32,
    DateTime<Utc>,
    Option<DateTime<Utc>>,
);

/// Where a message is written: a match's table or a tournament's room.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    Match(Uuid),
    Tournament(Uuid),
}

/// A room as one of the people in it finds it: who is in it, and where
/// the talk stands.
pub struct Room {
    pub place: Place,
    /// Everyone who may be heard here, by id.
    pub players: HashMap<Uuid, Player>,
    /// The match's seq (none in a tournament).
    pub at_seq: Option<i32>,
    /// My team's channel, where I have one.
    pub team: Option<i16>,
}

impl Room {
    /// The talk of match `id` as `user`, seated there, finds it.
    pub fn at_table(conn: &mut PgConnection, id: Uuid, user: Uuid) -> Result<Room, Error> {
        let (table, seat) = seated(conn, id, user)?;
        Ok(Room::of_table(&table, seat))
    }

    fn of_table(table: &Table, seat: usize) -> Room {
        Room {
            place: Place::Match(table.row.id),
            players: table.players.clone(),
            at_seq: Some(table.row.seq),
            team: team_of(table, seat),
        }
    }
}

/// The table, if `user` is seated at it (404 for strangers, as every
/// match read; 403 for one only challenged to play it).
fn seated(conn: &mut PgConnection, id: Uuid, user: Uuid) -> Result<(Table, usize), Error> {
    let table = Table::load_mine(conn, id, user, false)?;
    let seat = (table.seats.iter()).position(|s| *s == Some(user));
    let seat =
        seat.ok_or_else(|| Error::forbidden("only the match's players talk at its table"))?;
    Ok((table, seat))
}

/// The team channel of `seat`, if its team has more than one seat.
fn team_of(table: &Table, seat: usize) -> Option<i16> {
    let teams = table.state.teams(table.seats.len());
    let mates = teams.iter().filter(|t| **t == teams[seat]).count();
    (mates > 1).then(|| teams[seat] as i16)
}

/// Write a message at a match's table ([`post_in`] its room), then count
/// it unread for those who hear it.
pub fn post(
    conn: &mut PgConnection,
    id: Uuid,
    author: Uuid,
    said: Said,
    keyed: Option<Keyed>,
    now: DateTime<Utc>,
) -> Result<Message, Error> {
    let (table, seat) = seated(conn, id, author)?;
    let room = Room::of_table(&table, seat);
    let (message, written) = post_in(conn, &room, id, author, said, keyed, now)?;
    if written {
        let team = room.team.filter(|_| message.team);
        count_unread(conn, &table, seat, team, author, now)?;
    }
    Ok(message)
}

/// Write a message in a room its caller found the author in (a table's,
/// a tournament's): a pure check of the text, then one insert. A retry
/// with the same `Idempotency-Key` gets the first answer, and `false`:
/// nothing was written.
pub fn post_in(
    conn: &mut PgConnection,
    room: &Room,
    id: Uuid,
    author: Uuid,
    said: Said,
    keyed: Option<Keyed>,
    now: DateTime<Utc>,
) -> Result<(Message, bool), Error> {
    let text = super::text(&said.text, MOST, false, "text")?;
    if let Some(answer) = idempotency::replay(keyed.as_ref(), conn, author, now)? {
        return Ok((
            serde_json::from_value(answer).map_err(Error::internal)?,
            false,
        ));
    }
    let message = write(conn, room, author, text, said.team, now)?;
    remember(conn, keyed, author, id, &message, now)?;
    Ok((message, true))
}

/// The checked `text` written by `author` in `room`: their talk must be
/// on, a team message needs a team channel, and the limits hold.
fn write(
    conn: &mut PgConnection,
    room: &Room,
    author: Uuid,
    text: String,
    to_team: bool,
    now: DateTime<Utc>,
) -> Result<Message, Error> {
    let (who, muted) = voice(conn, author, now)?;
    if who == Who::Nobody {
        return Err(Error::forbidden(
            "your talk is off (talk settings): turn it on to write",
        ));
    }
    if let Some(until) = muted {
        return Err(Error::forbidden(format!(
            "a moderator muted your talk until {}",
            until.format("%Y-%m-%d %H:%M UTC")
        )));
    }
    let team = match to_team {
        true => Some(
            room.team
                .ok_or_else(|| Error::unacceptable("there is no team channel here"))?,
        ),
        false => None,
    };
    limits::take(conn, Limit::MessagePerMinute, &author.to_string(), now)?;
    limits::take(conn, Limit::MessagePerDay, &author.to_string(), now)?;
    let author_player = room.players.get(&author).cloned();
    let author_player = author_player.ok_or_else(|| Error::forbidden("not in this room"))?;
    let message = Message {
        id: Uuid::new_v4(),
        author: author_player,
        team: team.is_some(),
        text: Some(text),
        hidden: false,
        at_seq: room.at_seq,
        at: now,
    };
    let (match_id, tournament_id) = match room.place {
        Place::Match(id) => (Some(id), None),
        Place::Tournament(id) => (None, Some(id)),
    };
    diesel::insert_into(messages::table)
        .values((
            messages::id.eq(message.id),
            messages::match_id.eq(match_id),
            messages::tournament_id.eq(tournament_id),
            messages::author_id.eq(author),
            messages::team.eq(team),
            messages::body.eq(&message.text),
            messages::at_seq.eq(message.at_seq.unwrap_or(0)),
            messages::created_at.eq(now),
        ))
        .execute(conn)?;
    Ok(message)
}

/// `user`'s voice: their talk setting, and until when a moderator muted
/// them, if that is still ahead.
fn voice(
    conn: &mut PgConnection,
    user: Uuid,
    now: DateTime<Utc>,
) -> Result<(Who, Option<DateTime<Utc>>), Error> {
    let (who, muted) = super::voice(conn, user)?;
    Ok((who, muted.filter(|until| *until > now)))
}

/// Keep the answer for a retry with the same key.
fn remember(
    conn: &mut PgConnection,
    keyed: Option<Keyed>,
    author: Uuid,
    id: Uuid,
    message: &Message,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    if let Some(keyed) = &keyed {
        let answer = serde_json::to_value(message).map_err(Error::internal)?;
        keyed.remember(conn, author, id, answer, now)?;
    }
    Ok(())
}

/// One more unread message for each person at the table who hears
/// `author` (of the team, for a team's message), to be told of it
/// (`super::told`); a muted table counts nothing.
fn count_unread(
    conn: &mut PgConnection,
    table: &Table,
    seat: usize,
    team: Option<i16>,
    author: Uuid,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    let teams = table.state.teams(table.seats.len());
    // A person holding two seats counts one message once.
    let mut counted = std::collections::HashSet::new();
    for (other, user) in table.seats.iter().enumerate() {
        let Some(user) = *user else { continue };
        if !counted.insert(user) {
            continue;
        }
        let person = table
            .players
            .get(&user)
            .is_some_and(|p| p.computer.is_none());
        let of_team = team.is_none() || teams[other] == teams[seat];
        if user == author || !person || !of_team {
            continue;
        }
        let who = settings(conn, user)?.who;
        if !hears(conn, user, who, author)? {
            continue;
        }
        super::told::count(conn, table.row.id, user, now)?;
    }
    Ok(())
}

/// The newest messages `reader` hears at the table, before the message
/// `before` if given.
pub fn list(
    conn: &mut PgConnection,
    id: Uuid,
    reader: Uuid,
    before: Option<Uuid>,
    now: DateTime<Utc>,
) -> Result<Messages, Error> {
    let (table, seat) = seated(conn, id, reader)?;
    let mut page = list_in(conn, &Room::of_table(&table, seat), reader, before, now)?;
    (page.unread, page.muted) = talk_seats::table
        .find((reader, id))
        .select((talk_seats::unread, talk_seats::muted))
        .first(conn)
        .optional()?
        .unwrap_or((0, false));
    Ok(page)
}

/// The newest messages `reader` hears in `room` (found there by its
/// caller), before the message `before` if given.
pub fn list_in(
    conn: &mut PgConnection,
    room: &Room,
    reader: Uuid,
    before: Option<Uuid>,
    now: DateTime<Utc>,
) -> Result<Messages, Error> {
    let (who, muted) = voice(conn, reader, now)?;
    let mut query = messages::table
        .filter(
            messages::team
                .is_null()
                .or(messages::team.nullable().eq(room.team)),
        )
        .order(messages::serial.desc())
        .limit(PAGE)
        .select((
            messages::id,
            messages::author_id,
            messages::team,
            messages::body,
            messages::at_seq,
            messages::created_at,
            messages::hidden_at,
        ))
        .into_boxed();
    let mut older = messages::table.select(messages::serial).into_boxed();
    match room.place {
        Place::Match(id) => {
            query = query.filter(messages::match_id.eq(id));
            older = older.filter(messages::match_id.eq(id));
        }
        Place::Tournament(id) => {
            query = query.filter(messages::tournament_id.eq(id));
            older = older.filter(messages::tournament_id.eq(id));
        }
    }
    if let Some(before) = before {
        let serial: i64 = older.filter(messages::id.eq(before)).first(conn)?;
        query = query.filter(messages::serial.lt(serial));
    }
    let rows: Vec<Row> = query.load(conn)?;
    let next_before = (rows.len() as i64 == PAGE).then(|| rows[rows.len() - 1].0);
    let mut heard: HashMap<Uuid, bool> = HashMap::new();
    let mut items = Vec::new();
    for (mid, author, team, body, at_seq, at, hidden) in rows.into_iter().rev() {
        let hears_author = match heard.get(&author) {
            Some(h) => *h,
            None => {
                let h = hears(conn, reader, who, author)?;
                *heard.entry(author).or_insert(h)
            }
        };
        let Some(player) = room.players.get(&author) else {
            continue;
        };
        if hears_author {
            items.push(Message {
                id: mid,
                author: player.clone(),
                team: team.is_some(),
                text: body.filter(|_| hidden.is_none()),
                hidden: hidden.is_some(),
                at_seq: room.at_seq.map(|_| at_seq),
                at,
            });
        }
    }
    Ok(Messages {
        items,
        next_before,
        unread: 0,
        muted: false,
        may_write: who != Who::Nobody && muted.is_none(),
        team_channel: room.team.is_some(),
    })
}

/// Everything at the table read by `reader`.
pub fn read(conn: &mut PgConnection, id: Uuid, reader: Uuid) -> Result<(), Error> {
    seated(conn, id, reader)?;
    diesel::update(talk_seats::table.find((reader, id)))
        .set((
            talk_seats::unread.eq(0),
            talk_seats::tell_at.eq(None::<DateTime<Utc>>),
        ))
        .execute(conn)?;
    Ok(())
}

/// `PUT /v1/matches/{id}/mute`.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Mute {
    pub muted: bool,
}

/// Mute (or hear again) the table's talk: a muted table raises no notice
/// and counts nothing unread; its messages are still there to read.
pub fn mute(conn: &mut PgConnection, id: Uuid, user: Uuid, mute: Mute) -> Result<Mute, Error> {
    seated(conn, id, user)?;
    diesel::insert_into(talk_seats::table)
        .values((
            talk_seats::match_id.eq(id),
            talk_seats::user_id.eq(user),
            talk_seats::muted.eq(mute.muted),
        ))
        .on_conflict((talk_seats::user_id, talk_seats::match_id))
        .do_update()
        .set((
            talk_seats::muted.eq(mute.muted),
            talk_seats::unread.eq(0),
            talk_seats::tell_at.eq(None::<DateTime<Utc>>),
        ))
        .execute(conn)?;
    Ok(mute)
}

/// The unread messages of each of `views` for `user`, set on them.
pub fn mark_unread(
    conn: &mut PgConnection,
    user: Uuid,
    views: &mut [MatchView],
) -> Result<(), Error> {
    let ids: Vec<Uuid> = views.iter().map(|v| v.id).collect();
    let counts: HashMap<Uuid, i32> = talk_seats::table
        .filter(talk_seats::user_id.eq(user))
        .filter(talk_seats::match_id.eq_any(ids))
        .filter(talk_seats::unread.gt(0))
        .select((talk_seats::match_id, talk_seats::unread))
        .load::<(Uuid, i32)>(conn)?
        .into_iter()
        .collect();
    for view in views {
        view.unread_messages = counts.get(&view.id).copied().unwrap_or(0);
    }
    Ok(())
}

/// Every unread message of `user`, over their matches.
pub fn unread_total(conn: &mut PgConnection, user: Uuid) -> Result<i64, Error> {
    let total: Option<i64> = talk_seats::table
        .filter(talk_seats::user_id.eq(user))
        .select(diesel::dsl::sum(talk_seats::unread))
        .first(conn)?;
    Ok(total.unwrap_or(0))
}

/// The team channel `user` hears at match `id`: none when they have none
/// or sit elsewhere (the live stream tells a team's messages to it alone).
pub fn channel_of(conn: &mut PgConnection, id: Uuid, user: Uuid) -> Result<Option<i16>, Error> {
    match seated(conn, id, user) {
        Ok((table, seat)) => Ok(team_of(&table, seat)),
        Err(Error::Forbidden(_) | Error::NotFound(_)) => Ok(None),
        Err(e) => Err(e),
    }
}

/// The channels (none: everyone's) of the messages at match `id` after
/// the one of `serial`: an index range of the few written since.
pub fn channels_after(
    conn: &mut PgConnection,
    id: Uuid,
    serial: i64,
) -> Result<Vec<Option<i16>>, Error> {
    Ok(messages::table
        .filter(messages::match_id.eq(id))
        .filter(messages::serial.gt(serial))
        .select(messages::team)
        .distinct()
        .load(conn)?)
}

#[derive(QueryableByName)]
struct Latest {
    #[diesel(sql_type = diesel::sql_types::Uuid)]
    id: Uuid,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::BigInt>)]
    at: Option<i64>,
}

/// The last message (its serial) of each of the matches `ids`: live pages
/// hear of a new one (`crate::live`). One probe of `messages_match` per
/// match, however many messages it holds, and never fooled by two
/// messages of one instant or by instances' clocks.
pub fn latest(conn: &mut PgConnection, ids: &[Uuid]) -> Result<HashMap<Uuid, i64>, Error> {
    let rows: Vec<Latest> = diesel::sql_query(
        "SELECT w.id, (SELECT m.serial FROM messages m WHERE m.match_id = w.id \
         ORDER BY m.serial DESC LIMIT 1) AS at FROM unnest($1::uuid[]) AS w(id)",
    )
    .bind::<diesel::sql_types::Array<diesel::sql_types::Uuid>, _>(ids)
    .load(conn)?;
    Ok(rows
        .into_iter()
        .filter_map(|r| Some((r.id, r.at?)))
        .collect())
}
