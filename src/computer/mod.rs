//! Computer opponents in the service (docs/bots.md). The engines are the
//! rules crate's (`posthorn_rules::engine`); here a computer holds seats
//! as a player (one per level, `players::Player::computer`), a duty that
//! falls to one queues a job in the append's transaction ([`Reply`]), and
//! any instance's job runner plays the move ([`moves::Mover`]).

pub mod analysis;
pub mod budget;
pub mod moves;

use crate::error::Error;
use crate::job_queue::{Lane, Queued};
use crate::matches::reactions::{Appended, Reaction};
use crate::matches::{MatchStatus, Table};
use crate::notify::outbox::Notice;
use crate::players::Player;
use chrono::{DateTime, Duration, Utc};
use diesel::PgConnection;
use posthorn_rules::engine::Level;
use posthorn_rules::{GameId, Seat};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// The kind of job that plays a computer's move.
pub const MOVE_JOB: &str = "computer.move";

/// The player who is the computer at `level` (seeded by migration 18).
pub fn player_id(level: Level) -> Uuid {
    let n = match level {
        Level::Easy => 1,
        Level::Normal => 2,
        // The puzzles' level never sits at a table (not in `Level::ALL`).
        Level::Hard | Level::Puzzle => 3,
    };
    Uuid::from_u128(0x0000_0000_0000_4000_8000_0000_0000_c000 + n)
}

/// Whether `user` is one of the computer players: they hear no notice.
pub fn is_computer(user: &Uuid) -> bool {
    Level::ALL
        .into_iter()
        .any(|level| player_id(level) == *user)
}

/// The level of a seated player, if it is a computer.
pub fn level_of(player: &Player) -> Option<Level> {
    player.computer.as_deref().and_then(Level::parse)
}

/// One computer opponent, as `GET /v1/bots` lists it.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Bot {
    /// `easy`, `normal` or `hard`: what `computers[].level` takes.
    pub level: String,
    /// The rating shown beside the level (computer matches are unrated).
    pub rating: u32,
    pub name_en: String,
    pub name_ko: String,
    /// The player who sits at the table.
    pub player: Player,
}

/// The computer opponents of one game.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct GameBots {
    pub game: String,
    pub bots: Vec<Bot>,
}

/// Every game's computer opponents: every game has all three levels.
pub fn catalogue() -> Vec<GameBots> {
    GameId::ALL
        .iter()
        .map(|game| GameBots {
            game: game.id().to_owned(),
            bots: Level::ALL.into_iter().map(bot).collect(),
        })
        .collect()
}

fn bot(level: Level) -> Bot {
    let (name_en, name_ko) = level.names();
    Bot {
        level: level.id().to_owned(),
        rating: level.rating(),
        name_en: name_en.to_owned(),
        name_ko: name_ko.to_owned(),
        player: Player {
            id: player_id(level),
            username: format!("computer:{}", level.id()),
            display_name: format!("Computer ({})", level.id()),
            guest: false,
            computer: Some(level.id().to_owned()),
            deleted: false,
            emblem: None,
        },
    }
}

/// The seats of `table` held by a computer and owing a duty now, with the
/// computer's level.
pub fn owing(table: &Table) -> Vec<(Seat, Level)> {
    if table.row.status != MatchStatus::Active {
        return Vec::new();
    }
    let level_at = |seat: Seat| {
        let user = table.seats.get(seat.index()).copied().flatten()?;
        level_of(table.players.get(&user)?)
    };
    let mut owing: Vec<(Seat, Level)> = table
        .state
        .to_act()
        .iter()
        .filter_map(|duty| Some((duty.seat, level_at(duty.seat)?)))
        .collect();
    owing.dedup_by_key(|(seat, _)| *seat);
    owing
}

/// The people still in `table`'s match: seats held by a person that
/// still have an action (a seat out of the match has none, §Q9).
pub fn people_in(table: &Table) -> Vec<Uuid> {
    let person = |user: &Uuid| {
        table
            .players
            .get(user)
            .is_some_and(|p| p.computer.is_none())
    };
    (table.seats.iter().enumerate())
        .filter_map(|(i, user)| Some((Seat(i as u8), (*user)?)))
        .filter(|(seat, user)| person(user) && !table.state.legal_actions(*seat).is_empty())
        .map(|(_, user)| user)
        .collect()
}

/// The computer's turn: when an append leaves a duty with a computer
/// seat, a job to play it is queued in the same transaction, keyed by the
/// match and its seq, so it is queued once and a crash loses nothing. It
/// waits in the lane of its cost (docs/abuse.md, "Engine time"): a hard
/// search in the heavy lane, easy and normal in the light one, and at a
/// table no person is left in (a four-player match whose people are out)
/// the computers only resign, which costs nothing ([`moves::Mover`]).
pub struct Reply;

impl Reaction for Reply {
    fn react(
        &self,
        conn: &mut PgConnection,
        table: &mut Table,
        appended: &Appended,
    ) -> Result<Vec<Notice>, Error> {
        if table.row.status == MatchStatus::Active {
            table.seat_players(conn)?;
        }
        let Some(&(_, level)) = owing(table).first() else {
            return Ok(Vec::new());
        };
        // Charged to the first person still in (docs/abuse.md, "Engine
        // time"); a table with nobody left only resigns, which spends
        // nothing and so waits for nobody's budget.
        let people = people_in(table);
        let lane = match level {
            _ if people.is_empty() => Lane::Quick,
            Level::Hard | Level::Puzzle => Lane::Heavy,
            Level::Easy | Level::Normal => Lane::Light,
        };
        let (id, seq) = (table.row.id, table.row.seq);
        let work = Queued {
            kind: MOVE_JOB,
            key: &format!("{MOVE_JOB}:{id}:{seq}"),
            payload: serde_json::json!({"match_id": id, "seq": seq}),
            lane,
            owner: people.first().copied(),
        };
        crate::job_queue::enqueue_work(conn, work, appended.now, appended.now)?;
        Ok(Vec::new())
    }
}

/// How long a computer's move that failed every attempt waits before it
/// is tried again.
pub const REVIVE_AFTER_MINUTES: i64 = 10;

/// A failed move older than this is left alone (its match went on, or was
/// revived since: a match still waiting fails again within minutes).
const REVIVE_WITHIN_DAYS: i64 = 7;

/// Try again the computer moves that failed every attempt (the database
/// away longer than the retries last) while their match still waits on
/// them: active, at the seq they were queued for. A person is never left
/// waiting on a computer for good; a move whose match went on is left
/// failed. The jobs revived.
pub fn revive(conn: &mut PgConnection, now: DateTime<Utc>) -> Result<usize, Error> {
    let failed = crate::job_queue::Failed {
        kind: MOVE_JOB,
        after: now - Duration::minutes(REVIVE_AFTER_MINUTES),
        within: now - Duration::days(REVIVE_WITHIN_DAYS),
    };
    let jobs = failed.list(conn)?;
    let waiting = |payload: &serde_json::Value| -> Option<(Uuid, i32)> {
        let id = payload["match_id"].as_str()?.parse().ok()?;
        Some((id, i32::try_from(payload["seq"].as_i64()?).ok()?))
    };
    let asked: Vec<(Uuid, i32)> = jobs.iter().filter_map(|(_, p)| waiting(p)).collect();
    let still = crate::matches::reads::still_at(conn, &asked)?;
    let revived: Vec<i64> = (jobs.iter())
        .filter(|(_, p)| waiting(p).is_some_and(|w| still.contains(&w)))
        .map(|(id, _)| *id)
        .collect();
    failed.revive(conn, &revived, now)
}
