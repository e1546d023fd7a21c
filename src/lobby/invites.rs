//! What an invitation link shows before it is taken
//! (docs/decisions/challenges-and-lobby.md): who invites, to which game,
//! until when. Public: the code is the secret.

use crate::error::Error;
use crate::idempotency::{self, Keyed};
use crate::matches::{MatchStatus, MatchView, Table};
use crate::players::Player;
use crate::schema::{invites, users};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use posthorn_rules::{MatchState, Random};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct InvitePreview {
    pub code: String,
    pub game: String,
    pub variant: Option<String>,
    pub mode: Option<String>,
    pub turn_hours: f64,
    pub rated: bool,
    /// The match's configuration (variant or mode, setups, and a custom
    /// `position` if one was given): what the invited player agrees to.
    #[schema(value_type = Object)]
    pub options: serde_json::Value,
    pub inviter: Player,
    pub expires_at: DateTime<Utc>,
    /// Whether the seat can still be taken (unused, unexpired, match open).
    pub open: bool,
}

pub fn preview(
    conn: &mut PgConnection,
    code: &str,
    now: DateTime<Utc>,
) -> Result<InvitePreview, Error> {
    let code = code.trim().to_uppercase();
    let found: Option<(DateTime<Utc>, Option<uuid::Uuid>, uuid::Uuid)> = invites::table
        .filter(invites::code.eq(&code))
        .select((invites::expires_at, invites::used_by, invites::match_id))
        .first(conn)
        .optional()?;
    let Some((expires_at, used_by, match_id)) = found else {
        return Err(Error::not_found("invitation"));
    };
    let row = crate::matches::reads::row(conn, match_id)?
        .ok_or_else(|| Error::not_found("invitation"))?;
    let inviter: Player = users::table
        .find(row.created_by)
        .select(Player::as_select())
        .first(conn)?;
    Ok(InvitePreview {
        code,
        game: row.game,
        variant: row.variant,
        mode: row.mode,
        turn_hours: row.turn_seconds as f64 / 3600.0,
        rated: row.rated,
        options: row.options,
        inviter,
        expires_at,
        open: used_by.is_none()
            && expires_at > now
            && matches!(row.status, MatchStatus::Waiting | MatchStatus::Active),
    })
}

/// What an open invitation's link preview says, in `locale`: who invites
/// to which game, and how long a move takes (issue #69,
/// docs/pictures.md). 404 for a code that is unknown or no longer open.
pub fn card(
    conn: &mut PgConnection,
    code: &str,
    now: DateTime<Utc>,
    locale: crate::notify::words::Locale,
) -> Result<(String, String), Error> {
    let p = preview(conn, code, now)?;
    if !p.open {
        return Err(Error::not_found("invitation"));
    }
    let game = locale.word(&format!("game_{}", p.game));
    let hours = format!("{}", p.turn_hours.round() as i64);
    let title = locale.say(
        "invited.title",
        &[("inviter", &p.inviter.display_name), ("game", game)],
    );
    Ok((
        title,
        locale.say("invited.description", &[("hours", &hours)]),
    ))
}

/// An invitation's game as it starts, as anyone sees it (§H4: nothing is
/// dealt before the seats are taken, a hidden start is drawn face down,
/// and a drawn arrangement is one of the game's, not the match's): its
/// link preview's picture.
pub fn picture(
    conn: &mut PgConnection,
    code: &str,
    now: DateTime<Utc>,
) -> Result<std::sync::Arc<Vec<u8>>, Error> {
    let p = preview(conn, code, now)?;
    let game =
        posthorn_rules::GameId::parse(&p.game).ok_or_else(|| Error::not_found("invitation"))?;
    let state = (|| {
        let seats = MatchState::seat_range(game, &p.options).map_or(2, |r| *r.start());
        let mut random = posthorn_rules::SplitMix64::new(1);
        let events = MatchState::setup(game, &p.options, seats, &mut random)?;
        MatchState::replay(game, &events)
    })()
    .map_err(Error::internal)?;
    let view = state.view(posthorn_rules::Viewer::Spectator);
    let drawing = game.drawing(&view).map_err(Error::internal)?;
    Ok(crate::pictures::png(&drawing, crate::pictures::PREVIEW))
}

/// Take the open seat an invitation holds. Valid 24 h, usable once.
pub fn accept_invite(
    conn: &mut PgConnection,
    code: &str,
    user: Uuid,
    keyed: Option<Keyed>,
    now: DateTime<Utc>,
    random: &mut dyn Random,
) -> Result<MatchView, Error> {
    if let Some(answer) = idempotency::replay(keyed.as_ref(), conn, user, now)? {
        return serde_json::from_value(answer).map_err(Error::internal);
    }
    let invite: Option<(Uuid, i16, DateTime<Utc>, Option<Uuid>)> = invites::table
        .find(code.trim().to_uppercase())
        .select((
            invites::match_id,
            invites::seat,
            invites::expires_at,
            invites::used_by,
        ))
        .for_update()
        .first(conn)
        .optional()?;
    let Some((match_id, seat, expires_at, used_by)) = invite else {
        return Err(Error::not_found("invitation"));
    };
    let expired = |why: &str| Error::invite_expired(why);
    if used_by.is_some() {
        return Err(expired("this invitation has already been used"));
    }
    if expires_at <= now {
        return Err(expired("this invitation has expired; ask for a new one"));
    }
    let mut table =
        Table::load(conn, match_id, true)?.ok_or_else(|| Error::not_found("invitation"))?;
    if table.seats.contains(&Some(user)) {
        return Err(Error::conflict("you already have a seat in this match"));
    }
    if matches!(
        table.row.status,
        MatchStatus::Finished | MatchStatus::Cancelled
    ) {
        return Err(expired("this match is over or was cancelled"));
    }
    diesel::update(invites::table.find(code.trim().to_uppercase()))
        .set((invites::used_by.eq(user), invites::used_at.eq(now)))
        .execute(conn)?;
    super::seat::take_seat(conn, &mut table, seat, user, now, random)?;
    let view = table.view_for(conn, user)?;
    if let Some(keyed) = keyed {
        let stored = serde_json::to_value(&view).map_err(Error::internal)?;
        keyed.remember(conn, user, match_id, stored, now)?;
    }
    Ok(view)
}
