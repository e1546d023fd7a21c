//! Mining (docs/puzzles.md, "Where puzzles come from"): a finished match
//! worth it is searched for a puzzle once, by whichever instance claims
//! its job, charged to its players' engine time; while a game has fewer
//! puzzles than the pool it should keep, the engines play one match of
//! their own for it, once a minute across all instances.
//!
//! Both are jobs of the spare lane (`job_queue::Lane::Spare`): the hard
//! searches' threads take them only when no person's computer reply is
//! due. A search runs with no connection held; only its result is
//! written. A match still being played is never read, and a puzzle keeps
//! the match's id, never its players.

use super::store;
use crate::computer::budget;
use crate::db::Pool;
use crate::error::Error;
use crate::job_queue::{self, Job, Lane, Queued, Work};
use crate::matches::reactions::{Appended, Reaction};
use crate::matches::Table;
use crate::notify::outbox::Notice;
use crate::schema::{mined_matches, puzzles};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use posthorn_rules::GameId;
use serde_json::json;
use uuid::Uuid;

pub const MINE_JOB: &str = "puzzle.mine";
pub const SELF_PLAY_JOB: &str = "puzzle.self_play";

/// The events an unrated match between people must reach to be searched:
/// about fifteen moves each in a two-player game. Shorter unrated matches
/// are mostly tries and quick resignations, and searching them costs the
/// players' engine time for little.
pub const LONG_ENOUGH: i32 = 30;

/// A match that just ended is queued for the miner when it is worth a
/// search: between people only (a computer's moves make no puzzle of a
/// person's), of a game whose puzzles come from people's matches, not
/// aborted, and rated or [`LONG_ENOUGH`].
pub struct Queue;

impl Reaction for Queue {
    fn react(
        &self,
        conn: &mut PgConnection,
        table: &mut Table,
        appended: &Appended,
    ) -> Result<Vec<Notice>, Error> {
        let ended = appended.ended(&table.row);
        if ended && worth_mining(table) {
            let id = table.row.id;
            let work = Queued {
                kind: MINE_JOB,
                key: &format!("mine:{id}"),
                payload: json!({ "match_id": id }),
                lane: Lane::Spare,
                owner: None,
            };
            job_queue::enqueue_work(conn, work, appended.now, appended.now)?;
        }
        Ok(Vec::new())
    }
}

fn worth_mining(table: &Table) -> bool {
    let people = table.players.values().all(|p| p.computer.is_none());
    let aborted = (table.row.result.as_ref()).is_some_and(|r| r.get("aborted").is_some());
    people
        && table.game.puzzle_rule().from_people
        && !aborted
        && (table.row.rated || table.row.seq >= LONG_ENOUGH)
}

/// What the miner did with one match.
#[derive(Debug, PartialEq, Eq)]
pub enum Searched {
    /// Searched before (the job ran again).
    Already,
    /// A player was over their engine budget: not searched.
    OverBudget,
    /// Searched; whether it gave a new puzzle.
    Found(bool),
}

/// Searches a queued match.
pub struct Miner;

impl Work for Miner {
    fn kind(&self) -> &'static str {
        MINE_JOB
    }

    fn run(&self, pool: &Pool, job: &Job, now: DateTime<Utc>) -> Result<(), String> {
        let id: Uuid = serde_json::from_value(job.payload["match_id"].clone())
            .map_err(|e| format!("a mining job without its match: {e}"))?;
        search(pool, id, now).map(|_| ()).map_err(|e| e.to_string())
    }
}

/// Search finished match `id` for a puzzle, unless it was searched or a
/// player is over budget; the time the search took is charged to its
/// players in equal shares.
pub fn search(pool: &Pool, id: Uuid, now: DateTime<Utc>) -> Result<Searched, Error> {
    let (finished, people) = {
        let conn = &mut pool.get()?;
        let searched = mined_matches::table
            .find(id)
            .count()
            .get_result::<i64>(conn)?
            > 0;
        if searched {
            return Ok(Searched::Already);
        }
        let Some(finished) = crate::matches::reads::finished(conn, id)? else {
            return Ok(Searched::Already);
        };
        let people = crate::matches::reads::people_at(conn, id)?;
        if budget::any_over(conn, &people, now)? {
            mark_searched(conn, id, now)?;
            return Ok(Searched::OverBudget);
        }
        (finished, people)
    };
    let (game, config, seats, log) = finished;
    let started = std::time::Instant::now();
    let found = (GameId::parse(&game))
        .filter(|g| g.puzzle_rule().from_people)
        .and_then(|g| Some((g, g.mine(&config, seats, &log).ok().flatten()?)));
    let spent = started.elapsed();
    crate::db::transaction(pool, |conn| {
        let share = spent / people.len().max(1) as u32;
        for player in &people {
            budget::charge(conn, *player, share, now)?;
        }
        let new = match &found {
            Some((game, found)) => store(conn, *game, &config, found, &id.to_string(), now)?,
            None => false,
        };
        mark_searched(conn, id, now)?;
        Ok(Searched::Found(new))
    })
}

fn mark_searched(conn: &mut PgConnection, id: Uuid, now: DateTime<Utc>) -> Result<(), Error> {
    diesel::insert_into(mined_matches::table)
        .values((
            mined_matches::match_id.eq(id),
            mined_matches::mined_at.eq(now),
        ))
        .on_conflict_do_nothing()
        .execute(conn)?;
    Ok(())
}

/// Queue this minute's engines' match for the game whose turn it is, when
/// some games have fewer than `keep` puzzles: one job per minute whatever
/// the number of instances asking. Whether one was queued.
pub fn queue_self_play(
    conn: &mut PgConnection,
    keep: i64,
    now: DateTime<Utc>,
) -> Result<bool, Error> {
    if keep <= 0 {
        return Ok(false);
    }
    let counts: Vec<(String, i64)> = puzzles::table
        .group_by(puzzles::game)
        .select((puzzles::game, diesel::dsl::count_star()))
        .load(conn)?;
    let count = |g: GameId| counts.iter().find(|c| c.0 == g.id()).map_or(0, |c| c.1);
    let short: Vec<GameId> = (GameId::ALL.iter().copied())
        .filter(|g| g.puzzle_rule().mined && count(*g) < keep)
        .collect();
    // The games short of puzzles in turn, one a minute.
    let minute = now.timestamp() / 60;
    let Some(game) = short.get(minute as usize % short.len().max(1)) else {
        return Ok(false);
    };
    let work = Queued {
        kind: SELF_PLAY_JOB,
        key: &format!("self-play:{minute}"),
        payload: json!({ "game": game.id(), "seed": now.timestamp_micros() }),
        lane: Lane::Spare,
        owner: None,
    };
    job_queue::enqueue_work(conn, work, now, now)
}

/// Plays the engines' match a self-play job asks for and keeps its puzzle.
pub struct SelfPlay;

impl Work for SelfPlay {
    fn kind(&self) -> &'static str {
        SELF_PLAY_JOB
    }

    fn run(&self, pool: &Pool, job: &Job, now: DateTime<Utc>) -> Result<(), String> {
        let game = (job.payload["game"].as_str())
            .and_then(GameId::parse)
            .ok_or("a self-play job without its game")?;
        let seed = job.payload["seed"].as_i64().unwrap_or_default() as u64;
        let config = json!({});
        let seats = game.about().seats.1;
        let log = game.self_play(&config, seats, game.about().action_cap, seed);
        let Some(found) = log
            .ok()
            .and_then(|log| game.mine(&config, seats, &log).ok().flatten())
        else {
            return Ok(());
        };
        let source = format!("engines:{}:{seed}", game.id());
        let conn = &mut pool.get().map_err(|e| e.to_string())?;
        store(conn, game, &config, &found, &source, now).map_err(|e| e.to_string())?;
        Ok(())
    }
}
