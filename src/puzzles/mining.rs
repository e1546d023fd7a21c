//! The mining job (issue #52, docs/puzzles.md): finished matches are
//! searched for a puzzle once each, and while a game has fewer puzzles
//! than the pool it should keep, the engines play one match of their own
//! for it. The search runs with no connection held; only its result is
//! written. A match still being played is never read: only `finished`
//! ones are, and a puzzle keeps the match's id, never its players.

use super::store;
use crate::error::Error;
use crate::schema::{mined_matches, puzzles};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use posthorn_rules::GameId;

/// Finished matches searched per pass.
pub const MATCHES_PER_PASS: i64 = 5;

/// What one pass did.
#[derive(Debug, Default, PartialEq)]
pub struct Mined {
    pub matches: usize,
    pub engine_matches: usize,
    pub puzzles: usize,
}

/// One pass: search the finished matches not searched yet; then, when
/// some games have fewer than `keep` puzzles, one engines' match for one
/// of them, in turn, at the game's own levels (`Rule::players`).
pub fn pass(pool: &crate::db::Pool, keep: i64, now: DateTime<Utc>) -> Result<Mined, Error> {
    let mut done = Mined::default();
    let finished = {
        let mut conn = pool.get()?;
        crate::matches::reads::finished_unmined(&mut conn, MATCHES_PER_PASS)?
    };
    for (id, game, config, seats, log) in finished {
        let game = GameId::parse(&game);
        // A FlipChess puzzle shows its solver's hand: never a person's.
        let found = game
            .filter(|g| g.puzzle_rule().from_people)
            .and_then(|g| g.mine(&config, seats, &log).ok().flatten());
        let mut conn = pool.get()?;
        conn.transaction(|conn| {
            if let (Some(game), Some(found)) = (game, &found) {
                done.puzzles +=
                    usize::from(store(conn, game, &config, found, &id.to_string(), now)?);
            }
            diesel::insert_into(mined_matches::table)
                .values((
                    mined_matches::match_id.eq(id),
                    mined_matches::mined_at.eq(now),
                ))
                .on_conflict_do_nothing()
                .execute(conn)
                .map_err(Error::from)
        })?;
        done.matches += 1;
    }
    if keep <= 0 {
        return Ok(done);
    }
    let counts: Vec<(String, i64)> = puzzles::table
        .group_by(puzzles::game)
        .select((puzzles::game, diesel::dsl::count_star()))
        .load(&mut *pool.get()?)?;
    let count = |g: GameId| counts.iter().find(|c| c.0 == g.id()).map_or(0, |c| c.1);
    let short: Vec<GameId> = GameId::ALL
        .iter()
        .copied()
        .filter(|g| g.puzzle_rule().mined && count(*g) < keep)
        .collect();
    let seed = now.timestamp_micros() as u64;
    // The games short of puzzles in turn, one a minute.
    let turn = (now.timestamp() / 60) as usize;
    if let Some(&game) = short.get(turn % short.len().max(1)) {
        let config = serde_json::json!({});
        let seats = game.about().seats.1;
        let log = game.self_play(&config, seats, game.about().action_cap, seed);
        if let Some(found) = log
            .ok()
            .and_then(|log| game.mine(&config, seats, &log).ok().flatten())
        {
            let source = format!("engines:{}:{seed}", game.id());
            let mut conn = pool.get()?;
            done.puzzles += usize::from(store(&mut conn, game, &config, &found, &source, now)?);
        }
        done.engine_matches += 1;
    }
    Ok(done)
}
