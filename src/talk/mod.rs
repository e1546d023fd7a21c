//! Table talk (docs/decisions/table-talk.md): messages between the players
//! of a match, and each player's private note on it.
//!
//! A message is not a game event: it is written beside the match's log,
//! never in it, so it changes no `seq` and makes no move stale. It carries
//! the seq it was written at, which says after which event and nothing
//! of what a hidden game keeps from anyone (§H1). Who reads a message is
//! decided when it is read ([`hears`]): the reader's setting (everyone,
//! friends only, nobody) and a block between the two hide it, past
//! messages too; at a four-player table in teams, a team's own channel is
//! read by that team alone. Computers neither read nor write.

pub mod messages;
pub mod notes;
pub mod reported;
pub mod told;

use crate::error::Error;
use crate::personal::{Exported, Leaving, Owner, Phase};
use crate::schema::talk_settings;
use diesel::prelude::*;
use diesel::PgConnection;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// Who may write to me: their messages are the ones I read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Who {
    /// Everyone I play with (the default).
    Everyone,
    /// My friends only.
    Friends,
    /// Nobody: the talk is off for me, and I write nothing either.
    Nobody,
}

impl Who {
    pub const ALL: [Who; 3] = [Who::Everyone, Who::Friends, Who::Nobody];

    pub fn name(self) -> &'static str {
        match self {
            Who::Everyone => "everyone",
            Who::Friends => "friends",
            Who::Nobody => "nobody",
        }
    }

    pub(crate) fn parse(name: &str) -> Who {
        Who::ALL
            .into_iter()
            .find(|w| w.name() == name)
            .unwrap_or(Who::Everyone)
    }
}

/// `GET`/`PUT /v1/me/talk-settings`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TalkSettings {
    pub who: Who,
}

pub fn settings(conn: &mut PgConnection, me: Uuid) -> Result<TalkSettings, Error> {
    Ok(TalkSettings {
        who: voice(conn, me)?.0,
    })
}

pub fn set_settings(
    conn: &mut PgConnection,
    me: Uuid,
    settings: TalkSettings,
) -> Result<TalkSettings, Error> {
    let who = talk_settings::who.eq(settings.who.name());
    diesel::insert_into(talk_settings::table)
        .values((talk_settings::user_id.eq(me), who))
        .on_conflict(talk_settings::user_id)
        .do_update()
        .set(who)
        .execute(conn)?;
    Ok(settings)
}

/// `user`'s voice: who may write to them (and so whom they hear), and
/// until when a moderator muted them, if ever. No row: everyone, never
/// muted.
pub(crate) fn voice(
    conn: &mut PgConnection,
    user: Uuid,
) -> Result<(Who, Option<chrono::DateTime<chrono::Utc>>), Error> {
    let found: Option<(String, Option<chrono::DateTime<chrono::Utc>>)> = talk_settings::table
        .find(user)
        .select((talk_settings::who, talk_settings::muted_until))
        .first(conn)
        .optional()?;
    Ok(found.map_or((Who::Everyone, None), |(who, muted)| {
        (Who::parse(&who), muted)
    }))
}

/// A moderator mutes `user` until `until` (docs/decisions/table-talk.md,
/// "Reports and moderators").
pub fn mute(
    conn: &mut PgConnection,
    user: Uuid,
    until: chrono::DateTime<chrono::Utc>,
) -> Result<(), Error> {
    let muted = talk_settings::muted_until.eq(Some(until));
    diesel::insert_into(talk_settings::table)
        .values((talk_settings::user_id.eq(user), muted))
        .on_conflict(talk_settings::user_id)
        .do_update()
        .set(muted)
        .execute(conn)?;
    Ok(())
}

/// Lift `user`'s mute; false if none was still running at `now` (one
/// statement, so two moderators lifting it at once lift it once).
pub fn unmute(
    conn: &mut PgConnection,
    user: Uuid,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<bool, Error> {
    let lifted = diesel::update(talk_settings::table.find(user))
        .filter(talk_settings::muted_until.gt(now))
        .set(talk_settings::muted_until.eq(None::<chrono::DateTime<chrono::Utc>>))
        .execute(conn)?;
    Ok(lifted == 1)
}

/// Whether `reader` (whose setting is `who`) reads what `author` writes:
/// always their own; never across a block, either way; else as the
/// reader's setting says.
pub fn hears(conn: &mut PgConnection, reader: Uuid, who: Who, author: Uuid) -> Result<bool, Error> {
    if reader == author {
        return Ok(true);
    }
    if crate::friends::blocked_between(conn, reader, author)? {
        return Ok(false);
    }
    Ok(match who {
        Who::Everyone => true,
        Who::Friends => crate::friends::are_friends(conn, reader, author)?,
        Who::Nobody => false,
    })
}

/// My words at a match, for my data export (docs/decisions/table-talk.md,
/// "What is built"): the messages I wrote there and my note.
pub fn mine_at(
    conn: &mut PgConnection,
    id: Uuid,
    me: Uuid,
) -> Result<(Vec<MyMessage>, Option<String>), Error> {
    use crate::schema::{messages, notes};
    let said = messages::table
        .filter(messages::match_id.eq(id))
        .filter(messages::author_id.eq(me))
        .order(messages::serial)
        .select((
            messages::body,
            messages::team,
            messages::at_seq,
            messages::created_at,
        ))
        .load::<(
            Option<String>,
            Option<i16>,
            i32,
            chrono::DateTime<chrono::Utc>,
        )>(conn)?
        .into_iter()
        .map(|(text, team, at_seq, at)| MyMessage {
            text,
            team: team.is_some(),
            at_seq,
            at,
        })
        .collect();
    let note = notes::table
        .find((me, id))
        .select(notes::body)
        .first(conn)
        .optional()?;
    Ok((said, note))
}

/// My words in tournaments' rooms, for my data export, oldest first.
pub fn mine_in_rooms(conn: &mut PgConnection, me: Uuid) -> Result<Vec<MyRoomMessage>, Error> {
    use crate::schema::messages;
    Ok(messages::table
        .filter(messages::author_id.eq(me))
        .filter(messages::tournament_id.is_not_null())
        .order(messages::serial)
        .select((
            messages::tournament_id.assume_not_null(),
            messages::body,
            messages::created_at,
        ))
        .load::<(Uuid, Option<String>, chrono::DateTime<chrono::Utc>)>(conn)?
        .into_iter()
        .map(|(tournament_id, text, at)| MyRoomMessage {
            tournament_id,
            text,
            at,
        })
        .collect())
}

/// A message of mine in a tournament's room, as my export lists it.
#[derive(Debug, Serialize, ToSchema)]
pub struct MyRoomMessage {
    pub tournament_id: Uuid,
    pub text: Option<String>,
    pub at: chrono::DateTime<chrono::Utc>,
}

/// A message of mine, as my export lists it.
#[derive(Debug, Serialize, ToSchema)]
pub struct MyMessage {
    pub text: Option<String>,
    pub team: bool,
    pub at_seq: i32,
    pub at: chrono::DateTime<chrono::Utc>,
}

/// A deleted account's words (docs/decisions/table-talk.md): its messages
/// keep their place with their text erased (shown as deleted), its notes
/// and unread counts go.
pub const PERSONAL: Owner = Owner {
    module: "talk",
    tables: &["messages", "notes", "talk_seats", "talk_settings"],
    phase: Phase::Erase,
    forget,
    exported: Exported::In(&[
        "matches/*/my_messages",
        "matches/*/note",
        "tournament_messages",
        "settings/talk",
    ]),
    kept: "each message's place in its table's talk, its words erased: \
           the replies around it keep their sense",
};

fn forget(conn: &mut PgConnection, leaving: &mut Leaving<'_>) -> Result<(), Error> {
    use crate::schema::{messages, notes, talk_seats};
    let user = leaving.user;
    diesel::update(messages::table.filter(messages::author_id.eq(user)))
        .set(messages::body.eq(None::<String>))
        .execute(conn)?;
    diesel::delete(notes::table.filter(notes::user_id.eq(user))).execute(conn)?;
    diesel::delete(talk_seats::table.filter(talk_seats::user_id.eq(user))).execute(conn)?;
    diesel::delete(talk_settings::table.find(user)).execute(conn)?;
    Ok(())
}

/// The bidirectional controls (Unicode's Bidi_Control): they can make a
/// message read backwards from what it says.
const BIDI: [(char, char); 4] = [
    ('\u{061C}', '\u{061C}'),
    ('\u{200E}', '\u{200F}'),
    ('\u{202A}', '\u{202E}'),
    ('\u{2066}', '\u{2069}'),
];

/// Text a player writes (a message of 1–`most` characters, a note): line
/// breaks as `\n`, trimmed, with no control character (a message is one
/// line; a note keeps its line breaks, `lines`), no line or paragraph
/// separator in a message, no bidirectional control, and something
/// visible (`ink::shows`). `field` names the request member a refusal is about. Empty or
/// longer than `most` breaks the documented form (400); the rest is
/// refused for what it means (422, docs/api.md "Errors").
pub fn text(raw: &str, most: usize, lines: bool, field: &'static str) -> Result<String, Error> {
    let text = raw.replace("\r\n", "\n");
    let text = text.trim();
    let separator = |c: char| c == '\u{2028}' || c == '\u{2029}';
    let bad = |c: char| {
        (c.is_control() && !(lines && c == '\n'))
            || (!lines && separator(c))
            || BIDI.iter().any(|(a, b)| (*a..=*b).contains(&c))
    };
    let shape = if lines { "" } else { " on one line" };
    let said = format!(
        "{field} has 1–{most} characters{shape}, with no control or bidirectional control character"
    );
    if raw.is_empty() || text.chars().count() > most {
        return Err(Error::validation(said).in_field(field, crate::error::Rule::Form));
    }
    // Something must show (`ink`): fillers, blanks and format characters
    // alone are no message, however many
    // (docs/decisions/accounts-and-sessions.md, "The security review's
    // findings").
    let blank = !crate::ink::shows_something(text);
    if blank || text.chars().any(bad) {
        return Err(Error::unacceptable(said).in_field(field, crate::error::Rule::Form));
    }
    Ok(text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_of_characters_that_show_nothing_is_refused_issue_65_item_7() {
        let review = [
            "\u{115F}",
            "\u{1160}",
            "\u{FFA0}",
            "\u{2800}",
            "\u{00AD}",
            "\u{034F}",
            "\u{180E}",
            "\u{2061}",
            "\u{E0067}\u{E0067}",
        ];
        for blank in review {
            let said = text(&format!("{blank} {blank}{blank}"), 500, false, "text");
            assert!(said.is_err(), "{blank:?}");
        }
        // The same loop as names: none of these alone says anything.
        for c in crate::names::tests::never_shown() {
            let alone = format!("{c}{c} {c}");
            assert!(
                text(&alone, 500, false, "text").is_err(),
                "U+{:04X}",
                c as u32
            );
        }
        // One visible character among them is a message (a family emoji's
        // joiners stay).
        assert!(text("\u{2800}ㅋ\u{2800}", 500, false, "text").is_ok());
        assert!(text("👨\u{200D}👩", 500, false, "text").is_ok());
    }

    #[test]
    fn text_is_trimmed_and_refuses_control_and_bidirectional_characters() {
        assert_eq!(
            text("  잘 부탁해요! ", 500, false, "text").unwrap(),
            "잘 부탁해요!"
        );
        assert_eq!(text("👨‍👩‍👧 gg", 500, false, "text").unwrap(), "👨‍👩‍👧 gg");
        for bad in [
            "",
            "   ",
            "a\u{0}b",
            "a\nb",
            "a\u{202E}b",
            "a\u{2066}b",
            "a\u{200F}",
            "a\u{2028}b",
            "\u{200B}\u{200B}",
        ] {
            assert!(text(bad, 500, false, "text").is_err(), "{bad:?}");
        }
        assert!(text(&"가".repeat(500), 500, false, "text").is_ok());
        assert!(text(&"가".repeat(501), 500, false, "text").is_err());
        assert_eq!(text("one\ntwo", 2000, true, "text").unwrap(), "one\ntwo");
        assert_eq!(
            text("one\r\ntwo", 2000, true, "text").unwrap(),
            "one\ntwo",
            "a textarea's CRLF"
        );
        assert!(text("one\rtwo", 2000, true, "text").is_err());
    }
}
