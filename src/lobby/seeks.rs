//! A random opponent (docs/decisions/challenges-and-lobby.md): seeks that
//! pair into matches.
//!
//! A seek names a pool — the game with its variant or mode, the players
//! wanted, the turn time and whether it is rated — and optionally a rating
//! range. Posting one first looks for compatible waiting seeks in the same
//! pool; when enough are found, a match starts at once with every seeker
//! seated (each asked for it: no challenge). Otherwise the seek waits in
//! the open list for [`SEEK_DAYS`], until a later seek pairs with it, its
//! owner withdraws it, or (two-player seeks) someone accepts it.
//!
//! Pairing across instances: the pool is locked for the transaction
//! (`pg_advisory_xact_lock`), so two seeks posted at the same moment are
//! judged one after the other and pair with each other exactly once — with
//! row locks alone both could insert and wait, neither seeing the other.
//! The candidates are claimed `FOR UPDATE SKIP LOCKED`, so a seek being
//! accepted through `accept` is never paired as well; a paired seek keeps
//! its `match_id` and is never used again.
//!
//! Ratings: the seeker's rating in the seek's perf
//! (docs/decisions/challenges-and-lobby.md), or the starting 1500 before a
//! first rated match there.

use super::create::{self, Ask, NewMatch};
use crate::error::Error;
use crate::matches::MatchView;
use crate::players::Player;
use crate::schema::{seeks, users};
use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use posthorn_rules::Random;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// How long a seek waits in the open list.
pub const SEEK_DAYS: i64 = 7;
/// How many of one player's seeks may wait at once (docs/abuse.md, "Limits
/// that hold").
pub const OPEN_SEEKS_PER_PLAYER: i64 = 5;
/// A rating before any rated match (Glicko-2's start,
/// docs/decisions/ratings.md).
pub const START_RATING: i32 = crate::ratings::START_RATING as i32;
/// An unranged seek accepts opponents this close at first…
pub const WINDOW_START: i64 = 150;
/// …and this much wider per hour it has waited.
pub const WINDOW_PER_HOUR: i64 = 50;
/// How many waiting seeks one pairing reads.
const CANDIDATES: i64 = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RatingRange {
    /// At most `max`.
    #[schema(minimum = 0)]
    pub min: i32,
    #[schema(minimum = 0)]
    pub max: i32,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewSeek {
    #[schema(schema_with = crate::enforced::game_choice)]
    pub game: String,
    #[schema(schema_with = crate::enforced::variant)]
    pub variant: Option<String>,
    #[schema(schema_with = crate::enforced::mode)]
    pub mode: Option<String>,
    /// Players in the match, me included (default: the game's fewest;
    /// four-player chess: 4 in teams, 3 or 4 in ffa and points; the
    /// other games 2).
    #[schema(minimum = 2, maximum = 4)]
    pub players: Option<u8>,
    /// Time per turn in hours (default 48; at least the service's
    /// shortest turn, 1 h unless configured, at most 336).
    pub turn_hours: Option<f64>,
    pub rated: Option<bool>,
    /// Only opponents rated within this range (inclusive); without it the
    /// window widens with the time the seek has waited.
    pub rating_range: Option<RatingRange>,
    /// Play the computer if nobody is found within this many seconds
    /// (issue #32; off unless given). The computer's level follows my
    /// rating, and the match is unrated and untimed: an unrated seek only.
    #[schema(minimum = 10, maximum = 86400)]
    pub bot_after_seconds: Option<u32>,
}

#[derive(Clone, Debug, Queryable, Selectable, Insertable)]
#[diesel(table_name = seeks)]
pub struct SeekRow {
    pub id: Uuid,
    pub user_id: Uuid,
    pub pool: String,
    pub game: String,
    pub variant: Option<String>,
    pub mode: Option<String>,
    pub players: i16,
    pub turn_seconds: i32,
    pub rated: bool,
    pub rating: i32,
    pub min_rating: Option<i32>,
    pub max_rating: Option<i32>,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub match_id: Option<Uuid>,
    pub paired_at: Option<DateTime<Utc>>,
}

impl SeekRow {
    /// The ratings this seek accepts now, paired with a seek waiting since
    /// `since`: an unranged window widens with the longer wait of the two,
    /// so a newcomer can take a long-waiting seek far from its rating.
    fn window(&self, now: DateTime<Utc>, since: DateTime<Utc>) -> (i64, i64) {
        match (self.min_rating, self.max_rating) {
            (Some(min), Some(max)) => (min as i64, max as i64),
            _ => {
                let waited = now - self.created_at.min(since);
                let hours = waited.num_hours().max(0);
                let half = WINDOW_START + WINDOW_PER_HOUR * hours;
                (self.rating as i64 - half, self.rating as i64 + half)
            }
        }
    }

    fn accepts(&self, rating: i32, now: DateTime<Utc>, since: DateTime<Utc>) -> bool {
        let (min, max) = self.window(now, since);
        (min..=max).contains(&(rating as i64))
    }
}

/// A seek as the open list shows it.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct SeekView {
    pub id: Uuid,
    pub user: Player,
    pub game: String,
    pub variant: Option<String>,
    pub mode: Option<String>,
    pub players: u8,
    pub turn_hours: f64,
    pub rated: bool,
    pub rating: i32,
    pub rating_range: Option<RatingRange>,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    /// The match it started, once paired.
    pub match_id: Option<Uuid>,
}

/// What posting a seek did: paired at once (`match` set) or waiting.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct SeekAnswer {
    pub seek: SeekView,
    #[serde(rename = "match")]
    pub started: Option<MatchView>,
}

fn view(row: &SeekRow, user: Player) -> SeekView {
    SeekView {
        id: row.id,
        user,
        game: row.game.clone(),
        variant: row.variant.clone(),
        mode: row.mode.clone(),
        players: row.players as u8,
        turn_hours: row.turn_seconds as f64 / 3600.0,
        rated: row.rated,
        rating: row.rating,
        rating_range: row
            .min_rating
            .zip(row.max_rating)
            .map(|(min, max)| RatingRange { min, max }),
        created_at: row.created_at,
        expires_at: row.expires_at,
        match_id: row.match_id,
    }
}

/// The perf a seek's match is rated in (`ratings::perf_of`'s naming).
fn perf_of(seek: &SeekRow) -> String {
    match seek.variant.as_ref().or(seek.mode.as_ref()) {
        Some(choice) => format!("{}/{choice}", seek.game),
        None => seek.game.clone(),
    }
}

/// The seeker's whole rating in the perf.
fn rating_of(conn: &mut PgConnection, user: Uuid, perf: &str) -> Result<i32, Error> {
    let rated = crate::ratings::profile::ratings_in(conn, perf, &[user])?;
    Ok(rated.get(&user).map_or(START_RATING, |r| r.round() as i32))
}

fn me(conn: &mut PgConnection, user: Uuid) -> Result<Player, Error> {
    Ok(users::table
        .find(user)
        .select(Player::as_select())
        .first(conn)?)
}

/// Check the seek's settings as a match's, and name its pool.
fn settle_pool(req: &NewSeek, min_turn_seconds: i64) -> Result<SeekRow, Error> {
    let choice = create::GameChoice {
        game: &req.game,
        variant: req.variant.as_deref(),
        mode: req.mode.as_deref(),
        options: None,
    };
    let (game, config) = create::game_config(choice)?;
    let range = posthorn_rules::MatchState::seat_range(game, &config)?;
    let about = game.about();
    let pick = |field: &str, offered: &[&str]| {
        config
            .get(field)
            .and_then(|v| v.as_str())
            .or(offered.first().copied())
            .map(str::to_owned)
    };
    let (variant, mode) = (pick("variant", about.variants), pick("mode", about.modes));
    let players = req.players.map_or(*range.start(), usize::from);
    if !range.contains(&players) {
        return Err(Error::unacceptable(format!(
            "{} takes {} to {} players",
            game.id(),
            range.start(),
            range.end()
        )));
    }
    // The rules judge the seat count for this configuration (teams: 2 or
    // 4): a count the document allows, refused for its meaning (422).
    posthorn_rules::MatchState::setup(
        game,
        &config,
        players,
        &mut posthorn_rules::SplitMix64::new(0),
    )
    .map_err(|e| Error::from(e).for_its_meaning())?;
    let turn_seconds = create::turn_seconds(req.turn_hours, min_turn_seconds)?;
    if let Some(r) = req.rating_range {
        if r.min > r.max || r.min < 0 {
            // Spans two fields, which the document cannot say: 422.
            return Err(Error::unacceptable("rating_range needs 0 ≤ min ≤ max"));
        }
    }
    let rated = req.rated.unwrap_or(false);
    let pool = format!(
        "{}/{}/{}/{players}/{turn_seconds}/{rated}",
        game.id(),
        variant.as_deref().unwrap_or("-"),
        mode.as_deref().unwrap_or("-")
    );
    let row = SeekRow {
        id: Uuid::new_v4(),
        user_id: Uuid::nil(),
        pool,
        game: game.id().to_owned(),
        variant,
        mode,
        players: players as i16,
        turn_seconds,
        rated,
        rating: START_RATING,
        min_rating: req.rating_range.map(|r| r.min),
        max_rating: req.rating_range.map(|r| r.max),
        created_at: DateTime::<Utc>::MIN_UTC,
        expires_at: DateTime::<Utc>::MIN_UTC,
        match_id: None,
        paired_at: None,
    };
    Ok(row)
}

/// The match a seek asks for: its settings, every seat taken by seekers.
pub(super) fn new_match(seek: &SeekRow) -> NewMatch {
    // A seek holds a variant only for games with variants, a mode only for
    // games with modes (`settle_pool` took them from a checked config).
    NewMatch {
        game: seek.game.clone(),
        variant: seek.variant.clone(),
        mode: seek.mode.clone(),
        options: None,
        opponents: None,
        open_seats: Some(0),
        turn_hours: Some(seek.turn_seconds as f64 / 3600.0),
        rated: Some(seek.rated),
        computers: None,
        seat: None,
        side: None,
    }
}

/// The kind of job that turns a waiting seek into a computer match.
pub const FALLBACK_JOB: &str = "seek.computer";

/// Refuse a fallback a seek cannot have: a computer match is unrated.
pub fn check_fallback(req: &NewSeek, rated: bool) -> Result<(), Error> {
    match req.bot_after_seconds {
        Some(_) if rated => Err(Error::unacceptable(
            "a match against the computer is unrated: a rated seek cannot fall back to it",
        )),
        Some(s) if !(10..=86_400).contains(&s) => Err(Error::validation(
            "bot_after_seconds must be between 10 and 86400",
        )),
        _ => Ok(()),
    }
}

/// Queue the fallback (`seek_fallback`) of the waiting `seek`, due `after` seconds from now.
pub fn queue_fallback(
    conn: &mut PgConnection,
    seek: &SeekRow,
    after: u32,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    crate::job_queue::enqueue(
        conn,
        FALLBACK_JOB,
        &format!("{FALLBACK_JOB}:{}", seek.id),
        serde_json::json!({"seek_id": seek.id}),
        now + Duration::seconds(i64::from(after)),
        now,
    )?;
    Ok(())
}

/// Post a seek: pair it now if the pool allows, else let it wait.
pub fn post(
    conn: &mut PgConnection,
    ask: &Ask,
    req: NewSeek,
    random: &mut dyn Random,
) -> Result<SeekAnswer, Error> {
    let me_player = me(conn, ask.creator)?;
    let mut mine = settle_pool(&req, ask.min_turn_seconds)?;
    check_fallback(&req, mine.rated)?;
    if mine.rated && me_player.guest {
        return Err(Error::validation(
            "guests play unrated: sign up to seek a rated match",
        ));
    }
    let perf = perf_of(&mine);
    mine.user_id = ask.creator;
    mine.rating = rating_of(conn, ask.creator, &perf)?;
    mine.created_at = ask.now;
    mine.expires_at = ask.now + Duration::days(SEEK_DAYS);
    // One player cannot fill everyone's list (docs/abuse.md, "Limits that
    // hold"). Counted under the player's own lock, so simultaneous posts
    // are counted in turn.
    crate::limits::serialize(conn, &format!("seeks:{}", ask.creator))?;
    let waiting: i64 = seeks::table
        .filter(seeks::user_id.eq(ask.creator))
        .filter(seeks::paired_at.is_null())
        .filter(seeks::expires_at.gt(ask.now))
        .count()
        .get_result(conn)?;
    if waiting >= OPEN_SEEKS_PER_PLAYER {
        return Err(Error::rate_limited(format!(
            "at most {OPEN_SEEKS_PER_PLAYER} seeks may wait at once; withdraw one first"
        )));
    }
    diesel::sql_query("SELECT pg_advisory_xact_lock(hashtext($1))")
        .bind::<diesel::sql_types::Text, _>(&mine.pool)
        .execute(conn)?;
    let open = seeks::table
        .filter(seeks::pool.eq(&mine.pool))
        .filter(seeks::paired_at.is_null())
        .filter(seeks::expires_at.gt(ask.now));
    let already: i64 = open
        .filter(seeks::user_id.eq(ask.creator))
        .count()
        .get_result(conn)?;
    if already > 0 {
        return Err(Error::conflict(
            "you already have a seek waiting with these settings",
        ));
    }
    let candidates: Vec<SeekRow> = open
        .filter(seeks::user_id.ne(ask.creator))
        .order(seeks::created_at)
        .limit(CANDIDATES)
        .select(SeekRow::as_select())
        .for_update()
        .skip_locked()
        .load(conn)?;
    let mut party: Vec<SeekRow> = Vec::new();
    for seek in candidates {
        if party.len() + 1 == mine.players as usize {
            break;
        }
        if compatible(conn, &seek, std::iter::once(&mine).chain(&party), ask.now)? {
            party.push(seek);
        }
    }
    if party.len() + 1 < mine.players as usize {
        diesel::insert_into(seeks::table)
            .values(&mine)
            .execute(conn)?;
        if let Some(after) = req.bot_after_seconds {
            queue_fallback(conn, &mine, after, ask.now)?;
        }
        return Ok(SeekAnswer {
            seek: view(&mine, me_player),
            started: None,
        });
    }
    let others: Vec<Uuid> = party.iter().map(|s| s.user_id).collect();
    let started = start_match(conn, ask, ask.creator, &others, new_match(&mine), random)?;
    mine.match_id = Some(started.id);
    mine.paired_at = Some(ask.now);
    diesel::insert_into(seeks::table)
        .values(&mine)
        .execute(conn)?;
    let ids: Vec<Uuid> = party.iter().map(|s| s.id).collect();
    diesel::update(seeks::table.filter(seeks::id.eq_any(ids)))
        .set((seeks::match_id.eq(started.id), seeks::paired_at.eq(ask.now)))
        .execute(conn)?;
    Ok(SeekAnswer {
        seek: view(&mine, me_player),
        started: Some(started),
    })
}

/// Whether `seek` may join the seekers already chosen: never oneself,
/// never a blocked pair, each within the other's rating window.
fn compatible<'a>(
    conn: &mut PgConnection,
    seek: &SeekRow,
    chosen: impl Iterator<Item = &'a SeekRow>,
    now: DateTime<Utc>,
) -> Result<bool, Error> {
    for other in chosen {
        if other.user_id == seek.user_id
            || !seek.accepts(other.rating, now, other.created_at)
            || !other.accepts(seek.rating, now, seek.created_at)
            || crate::friends::blocked_between(conn, seek.user_id, other.user_id)?
        {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Create the match for `creator` with `others` seated beside them.
fn start_match(
    conn: &mut PgConnection,
    ask: &Ask,
    creator: Uuid,
    others: &[Uuid],
    wanted: NewMatch,
    random: &mut dyn Random,
) -> Result<MatchView, Error> {
    let seated = Ask {
        seated: others,
        ..Ask::new(creator, ask.min_turn_seconds, ask.public_url, ask.now)
    };
    create::create(conn, &seated, wanted, random)
}

/// The waiting seeks others may accept (`game` filters), oldest first;
/// none of a blocked pair's, both ways.
pub fn open_list(
    conn: &mut PgConnection,
    me: Uuid,
    game: Option<String>,
    now: DateTime<Utc>,
) -> Result<Vec<SeekView>, Error> {
    let mut query = seeks::table
        .inner_join(users::table)
        .filter(seeks::paired_at.is_null())
        .filter(seeks::expires_at.gt(now))
        .order(seeks::created_at)
        .limit(200)
        .select((SeekRow::as_select(), Player::as_select()))
        .into_boxed();
    if let Some(game) = game {
        query = query.filter(seeks::game.eq(game));
    }
    let rows: Vec<(SeekRow, Player)> = query.load(conn)?;
    let mut shown = Vec::new();
    for (row, player) in rows {
        if row.user_id == me || !crate::friends::blocked_between(conn, me, row.user_id)? {
            shown.push(view(&row, player));
        }
    }
    Ok(shown)
}

/// Accept a waiting two-player seek: the match starts with both seated.
pub fn accept(
    conn: &mut PgConnection,
    ask: &Ask,
    id: Uuid,
    random: &mut dyn Random,
) -> Result<MatchView, Error> {
    let seek: Option<SeekRow> = seeks::table
        .find(id)
        .select(SeekRow::as_select())
        .for_update()
        .skip_locked()
        .first(conn)
        .optional()?;
    let Some(seek) = seek.filter(|s| s.expires_at > ask.now) else {
        return Err(Error::not_found("seek"));
    };
    if seek.paired_at.is_some() {
        return Err(Error::conflict("this seek has already been taken"));
    }
    if seek.user_id == ask.creator {
        return Err(Error::OwnSeek(
            "this seek is your own: wait for an opponent, or withdraw it".into(),
        ));
    }
    if seek.players != 2 {
        return Err(Error::conflict(
            "a seek for more than two players fills by seeks: post one with the same settings",
        ));
    }
    crate::friends::ensure_not_blocked(conn, ask.creator, seek.user_id, "this player")?;
    if seek.rated && me(conn, ask.creator)?.guest {
        return Err(Error::validation(
            "guests play unrated: sign up to accept a rated seek",
        ));
    }
    let perf = perf_of(&seek);
    if !seek.accepts(
        rating_of(conn, ask.creator, &perf)?,
        ask.now,
        seek.created_at,
    ) {
        return Err(Error::conflict("your rating is outside this seek's range"));
    }
    let started = start_match(
        conn,
        ask,
        seek.user_id,
        &[ask.creator],
        new_match(&seek),
        random,
    )?;
    diesel::update(seeks::table.find(id))
        .set((seeks::match_id.eq(started.id), seeks::paired_at.eq(ask.now)))
        .execute(conn)?;
    // The view for the one who accepted, not the seek's owner.
    let mut table = crate::matches::Table::load(conn, started.id, false)?
        .ok_or_else(|| Error::internal("the new match vanished"))?;
    table.view_for(conn, ask.creator)
}

/// Withdraw my own waiting seek.
pub fn withdraw(conn: &mut PgConnection, me: Uuid, id: Uuid) -> Result<(), Error> {
    let gone = diesel::delete(
        seeks::table
            .filter(seeks::id.eq(id))
            .filter(seeks::user_id.eq(me))
            .filter(seeks::paired_at.is_null()),
    )
    .execute(conn)?;
    if gone == 0 {
        return Err(Error::not_found("seek"));
    }
    Ok(())
}
