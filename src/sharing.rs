//! Share links (issue #69 item 6): a finished match for friends who did
//! not play. Either player makes one (`POST /v1/matches/{id}/share`): an
//! unlisted address, `/shared/<token>` with a 128-bit token from the
//! operating system's random source, that opens the replay and the
//! analysis without an account, in the reader's language, in the
//! spectator's view (§H4: a share link's reader is a spectator, for ever;
//! what a hand showed stays with the players). One link a match, turned
//! off by either player (its row deleted); then it opens nothing, and a
//! new one may be made. The link names the player who made it, so it goes with
//! their account ([`PERSONAL`]).

use crate::computer::analysis::AnalysisView;
use crate::error::Error;
use crate::matches::replay::Position;
use crate::matches::{EventView, MatchStatus, MatchView, Table};
use crate::personal::{Exported, Leaving, Owner};
use crate::schema::match_shares;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use posthorn_rules::Viewer;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// A match's live share link.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct ShareLink {
    pub match_id: Uuid,
    pub token: String,
    /// The address to send: the web client's replay of the match.
    pub url: String,
    pub created_at: DateTime<Utc>,
}

/// A shared match as anyone with its link sees it: the spectator's.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct SharedMatch {
    #[serde(rename = "match")]
    pub match_view: MatchView,
    /// The log as a spectator may read it (`GET …/events`' items).
    #[schema(value_type = Vec<Object>)]
    pub events: Vec<EventView>,
    pub analysis: AnalysisView,
}

/// `user`, a player of finished match `id`, shares it: its live link,
/// made now if it has none (whether it was).
pub fn share(
    conn: &mut PgConnection,
    id: Uuid,
    user: Uuid,
    now: DateTime<Utc>,
    site: &str,
) -> Result<(bool, ShareLink), Error> {
    let table = player_of_finished(conn, id, user, "a match is shared once it is over")?;
    let token = URL_SAFE_NO_PAD.encode(crate::auth::random_bytes::<16>());
    let made = diesel::insert_into(match_shares::table)
        .values((
            match_shares::token.eq(&token),
            match_shares::match_id.eq(id),
            match_shares::created_by.eq(user),
            match_shares::created_at.eq(now),
        ))
        .on_conflict_do_nothing()
        .execute(conn)?
        == 1;
    let (token, created_at): (String, DateTime<Utc>) = match_shares::table
        .filter(match_shares::match_id.eq(table.row.id))
        .select((match_shares::token, match_shares::created_at))
        .first(conn)?;
    Ok((made, link(id, token, created_at, site)))
}

/// `user`, a player of match `id`, turns its link off (if any): the row
/// goes, so nothing of it stays to name its maker.
pub fn revoke(conn: &mut PgConnection, id: Uuid, user: Uuid) -> Result<(), Error> {
    player_of_finished(conn, id, user, "only a finished match has a share link")?;
    diesel::delete(match_shares::table.filter(match_shares::match_id.eq(id))).execute(conn)?;
    Ok(())
}

fn player_of_finished(
    conn: &mut PgConnection,
    id: Uuid,
    user: Uuid,
    live: &'static str,
) -> Result<Table, Error> {
    let table = Table::load_mine(conn, id, user, false)?;
    if !table.seats.contains(&Some(user)) {
        return Err(Error::forbidden("only the match's players share it"));
    }
    if table.row.status != MatchStatus::Finished {
        return Err(Error::conflict(live));
    }
    Ok(table)
}

fn link(match_id: Uuid, token: String, created_at: DateTime<Utc>, site: &str) -> ShareLink {
    ShareLink {
        match_id,
        url: format!("{}/shared/{token}", site.trim_end_matches('/')),
        token,
        created_at,
    }
}

/// The match a live link opens; 404 for any other token.
fn shared_table(conn: &mut PgConnection, token: &str) -> Result<Table, Error> {
    let id: Uuid = match_shares::table
        .filter(match_shares::token.eq(token))
        .select(match_shares::match_id)
        .first(conn)
        .optional()?
        .ok_or_else(|| Error::not_found("shared match"))?;
    Table::load(conn, id, false)?.ok_or_else(|| Error::not_found("shared match"))
}

/// The match link `token` opens, as a spectator sees it.
pub fn shared(conn: &mut PgConnection, token: &str) -> Result<SharedMatch, Error> {
    let mut table = shared_table(conn, token)?;
    table.seat_players(conn)?;
    // Nobody's: the view of no seat (§H4).
    let match_view = table.view_with(&table.players, Uuid::nil())?;
    let events = table.events_as(conn, Viewer::Spectator)?;
    let analysis = crate::computer::analysis::read_as(conn, &table, false)?;
    Ok(SharedMatch {
        match_view,
        events,
        analysis,
    })
}

/// The shared match after event `seq`, as a spectator saw it.
pub fn position(conn: &mut PgConnection, token: &str, seq: i32) -> Result<Position, Error> {
    let table = shared_table(conn, token)?;
    crate::matches::replay::position_of(conn, &table, Viewer::Spectator, seq)
}

/// The shared match's board as it ended, as a spectator sees it: a link
/// preview's picture (PNG, 1200×630).
pub fn preview(conn: &mut PgConnection, token: &str) -> Result<std::sync::Arc<Vec<u8>>, Error> {
    let table = shared_table(conn, token)?;
    let view = table.state.view(Viewer::Spectator);
    let drawing = table.game.drawing(&view).map_err(Error::internal)?;
    Ok(crate::pictures::png(&drawing, crate::pictures::PREVIEW))
}

/// The shared match as an animated GIF, a spectator's frames.
pub fn animation(conn: &mut PgConnection, token: &str) -> Result<Vec<u8>, Error> {
    let table = shared_table(conn, token)?;
    let log = crate::matches::fold::standing_log(conn, table.row.id)?;
    let events: Vec<serde_json::Value> = log.into_iter().map(|(_, body)| body).collect();
    let frames = (table.game.frames(&events, Viewer::Spectator)).map_err(Error::internal)?;
    Ok(crate::pictures::gif(&frames, crate::pictures::BOARD))
}

/// What a link preview says of the match `token` opens, in `locale`:
/// its title (the game and who played) and description (the result).
pub fn card(
    conn: &mut PgConnection,
    token: &str,
    locale: crate::notify::words::Locale,
) -> Result<(String, String), Error> {
    let mut table = shared_table(conn, token)?;
    table.seat_players(conn)?;
    let name = |seat: usize| {
        let user = table.seats.get(seat).copied().flatten();
        user.and_then(|u| table.players.get(&u))
            .map_or_else(|| "?".to_owned(), |p| p.display_name.clone())
    };
    let players: Vec<String> = (0..table.seats.len()).map(name).collect();
    let game = locale.word(&format!("game_{}", table.game.id()));
    let title = locale.say(
        "shared.title",
        &[("game", game), ("players", &players.join(" · "))],
    );
    let winners: Vec<String> = (table.row.result.as_ref())
        .and_then(|r| r["winners"].as_array().cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(|w| w.as_u64().map(|s| name(s as usize)))
        .collect();
    let description = if winners.is_empty() {
        locale.say("shared.drawn", &[])
    } else {
        locale.say("shared.won", &[("winner", &winners.join(", "))])
    };
    Ok((title, description))
}

/// The links `user` made, for their export, with their addresses on `site`.
pub fn made_by(conn: &mut PgConnection, user: Uuid, site: &str) -> Result<Vec<ShareLink>, Error> {
    let rows: Vec<(Uuid, String, DateTime<Utc>)> = match_shares::table
        .filter(match_shares::created_by.eq(user))
        .order(match_shares::created_at)
        .select((
            match_shares::match_id,
            match_shares::token,
            match_shares::created_at,
        ))
        .load(conn)?;
    Ok((rows.into_iter())
        .map(|(id, token, at)| link(id, token, at, site))
        .collect())
}

/// A deleted player's links go with them: the friends they sent one to
/// find nothing there any more (the other player may share the match
/// again).
pub const PERSONAL: Owner = Owner::erasing(
    "sharing",
    &["match_shares"],
    forget,
    Exported::In(&["share_links"]),
);

fn forget(conn: &mut PgConnection, leaving: &mut Leaving<'_>) -> Result<(), Error> {
    diesel::delete(match_shares::table.filter(match_shares::created_by.eq(leaving.user)))
        .execute(conn)?;
    Ok(())
}
