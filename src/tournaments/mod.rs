//! Tournaments (docs/tournaments.md): a group's round robin
//! (single or double) or knockout in any two-player game. Above the lobby
//! (a pairing is a match laid out by `lobby::create::lay_table`) and the
//! match aggregate, which knows only its `tournament_id`.
//!
//! What is stored: the tournament's terms, who takes part (and their
//! seeds once started), and which match is which pairing. What is derived
//! on every read: the standings, the crosstable and the bracket
//! (`standings`, `bracket`), from the matches' results.

pub mod advance;
pub mod bracket;
pub mod entry;
pub mod read;
pub mod room;
pub mod standings;
pub mod start;

use crate::error::Error;
use crate::job_queue;
use crate::notify::outbox::Enqueue;
use crate::personal::{Exported, Leaving, Owner, Phase};
use crate::schema::{tournament_matches, tournament_players, tournaments};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use utoipa::ToSchema;
use uuid::Uuid;

/// How the players meet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// Everyone plays everyone once; all pairings start together.
    RoundRobin,
    /// Everyone plays everyone twice, sides swapped.
    DoubleRoundRobin,
    /// Single elimination; a drawn pairing is replayed (`bracket`).
    Knockout,
}

impl Format {
    pub const ALL: [Format; 3] = [
        Format::RoundRobin,
        Format::DoubleRoundRobin,
        Format::Knockout,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Format::RoundRobin => "round_robin",
            Format::DoubleRoundRobin => "double_round_robin",
            Format::Knockout => "knockout",
        }
    }

    pub fn parse(text: &str) -> Option<Format> {
        Self::ALL.into_iter().find(|f| f.id() == text)
    }

    /// How many players it takes (docs/tournaments.md, "Formats": 3–16, or
    /// 4–32 in a knockout).
    pub fn players(self) -> std::ops::RangeInclusive<usize> {
        match self {
            Format::RoundRobin | Format::DoubleRoundRobin => 3..=16,
            Format::Knockout => 4..=32,
        }
    }
}

pub use crate::closed::{EntrantState, Seeding, TournamentStatus as Status};

#[derive(Clone, Debug, Queryable, Selectable, Insertable)]
#[diesel(table_name = tournaments)]
pub struct TournamentRow {
    pub id: Uuid,
    pub name: String,
    pub format: String,
    pub game: String,
    pub variant: Option<String>,
    pub mode: Option<String>,
    pub options: Value,
    pub turn_seconds: i32,
    pub rated: bool,
    pub seeding: Seeding,
    pub status: Status,
    pub invite_code: String,
    pub created_by: Uuid,
    pub created_at: DateTime<Utc>,
    pub starts_at: Option<DateTime<Utc>>,
    pub started_at: Option<DateTime<Utc>>,
    pub finished_at: Option<DateTime<Utc>>,
}

impl TournamentRow {
    /// The format; one that does not parse is an error, never a round
    /// robin (docs/architecture.md).
    pub fn format(&self) -> Result<Format, Error> {
        Format::parse(&self.format).ok_or_else(|| {
            Error::internal(format!(
                "tournament {}: format {:?} is unreadable",
                self.id, self.format
            ))
        })
    }

    /// The game's configuration, as a match of it is created with.
    pub fn config(&self) -> Value {
        self.options.clone()
    }
}

#[derive(Clone, Debug, Queryable, Selectable)]
#[diesel(table_name = tournament_players)]
pub struct Entrant {
    pub user_id: Uuid,
    pub state: EntrantState,
    pub seed: Option<i32>,
    pub rating: Option<i32>,
}

#[derive(Clone, Debug, Queryable, Selectable, Insertable)]
#[diesel(table_name = tournament_matches)]
pub struct PairingRow {
    pub match_id: Uuid,
    pub tournament_id: Uuid,
    pub round: i32,
    pub slot: i32,
    pub game_no: i32,
    pub first_player: Uuid,
    pub second_player: Uuid,
}

/// The tournament, locked for the rest of the transaction when `lock`:
/// every change to a tournament (entries, the start, the next round)
/// holds this lock, so two instances never both start a round.
pub fn load(conn: &mut PgConnection, id: Uuid, lock: bool) -> Result<TournamentRow, Error> {
    let query = tournaments::table
        .find(id)
        .select(TournamentRow::as_select());
    let found = if lock {
        query.for_update().first(conn).optional()?
    } else {
        query.first(conn).optional()?
    };
    found.ok_or(Error::not_found("tournament"))
}

/// Everyone invited to or in the tournament, in seed order once started
/// (then by when they came).
pub fn entrants(conn: &mut PgConnection, id: Uuid) -> Result<Vec<Entrant>, Error> {
    Ok(tournament_players::table
        .filter(tournament_players::tournament_id.eq(id))
        .order((
            tournament_players::seed.asc().nulls_last(),
            tournament_players::updated_at.asc(),
            tournament_players::user_id.asc(),
        ))
        .select(Entrant::as_select())
        .load(conn)?)
}

/// Every pairing's match, in round, slot and game order.
pub fn pairings(conn: &mut PgConnection, id: Uuid) -> Result<Vec<PairingRow>, Error> {
    Ok(tournament_matches::table
        .filter(tournament_matches::tournament_id.eq(id))
        .order((
            tournament_matches::round.asc(),
            tournament_matches::slot.asc(),
            tournament_matches::game_no.asc(),
        ))
        .select(PairingRow::as_select())
        .load(conn)?)
}

/// The first player's score in a finished match's `result` (1, ½, 0), or
/// none while it is on: a winner scores 1, a result without winners is a
/// draw (the rules' `Outcome`; an abandonment or a resignation is a win
/// for the other).
pub fn first_scored(result: Option<&Value>, first_seat: usize) -> Option<f64> {
    let outcome = posthorn_rules::Outcome::deserialize(result?).ok()?;
    if outcome.winners.is_empty() {
        return Some(0.5);
    }
    Some(if outcome.winners.iter().any(|w| w.index() == first_seat) {
        1.0
    } else {
        0.0
    })
}

/// Queue the advance of tournament `id`, once per `why`.
pub fn queue_advance(
    conn: &mut PgConnection,
    id: Uuid,
    why: &str,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    let key = format!("{}:{id}:{why}", advance::ADVANCE_JOB);
    job_queue::enqueue(
        conn,
        advance::ADVANCE_JOB,
        &key,
        json!({"tournament_id": id}),
        now,
        now,
    )?;
    Ok(())
}

/// Queue the start of tournament `id` at `at`.
pub fn queue_start(
    conn: &mut PgConnection,
    id: Uuid,
    at: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    let key = format!("{}:{id}", advance::START_JOB);
    job_queue::enqueue(
        conn,
        advance::START_JOB,
        &key,
        json!({"tournament_id": id}),
        at,
        now,
    )?;
    Ok(())
}

/// Tell `users` the tournament's `news` (the words are the notices
/// policy's, `notices::tournament`).
pub fn tell(
    conn: &mut PgConnection,
    row: &TournamentRow,
    users: &[Uuid],
    news: crate::notices::TournamentNews,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    if users.is_empty() {
        return Ok(());
    }
    let notices = crate::notices::tournament(users, &row.game, &row.name, news);
    Enqueue::new(row.id, notices, now).execute(conn)?;
    Ok(())
}

/// A leaving player's tournaments (docs/decisions/accounts-and-sessions.md):
/// every one not finished is left through [`entry::leave`], so the others
/// play on; what was played stays, because the others' standings are made
/// of it.
pub const PERSONAL: Owner = Owner {
    module: "tournaments",
    tables: &["tournaments", "tournament_players", "tournament_matches"],
    phase: Phase::LeavePlay,
    forget: leave_all,
    exported: Exported::In(&["tournaments"]),
    kept: "the entries and pairings of tournaments played and the tournaments \
           created: the other players' standings are made of them",
};

fn leave_all(conn: &mut PgConnection, leaving: &mut Leaving<'_>) -> Result<(), Error> {
    let entered: Vec<Uuid> = tournament_players::table
        .inner_join(tournaments::table)
        .filter(tournament_players::user_id.eq(leaving.user))
        .filter(tournaments::status.ne(Status::Finished))
        .order(tournaments::id)
        .select(tournaments::id)
        .load(conn)?;
    for id in entered {
        entry::leave(conn, id, leaving.user, leaving.now, leaving.random)?;
    }
    Ok(())
}
