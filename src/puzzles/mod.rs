//! Puzzles (docs/puzzles.md): positions mined from play by the rules
//! crate's forced-line rule ([`posthorn_rules::puzzles`]), stored here,
//! served one move at a time, rated like players.
//!
//! * [`store`] keeps a mined puzzle with its first rating ([`first_rating`]).
//! * [`solve`] — the daily puzzle, the next one near my rating, a move,
//!   giving up; the line is never sent before the attempt is over.
//! * [`streak`] — my puzzle rating and daily streak in a game.
//! * [`rating`] — Glicko-2 between the solver and the puzzle.
//! * [`mining`] — the job that mines finished matches and the engines'
//!   own matches.
//! * [`shipped`] — the checked sets shipped with the rules, kept from the
//!   first start.

pub mod day;
pub mod history;
pub mod mining;
pub mod morning;
pub mod rating;
pub mod shipped;
pub mod solve;
pub mod streak;

use crate::error::Error;
use crate::schema::puzzles;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use posthorn_rules::puzzles::Found;
use posthorn_rules::GameId;
use serde_json::Value;
use uuid::Uuid;

/// A stored puzzle.
#[derive(Clone, Debug, Queryable, Selectable, Insertable)]
#[diesel(table_name = puzzles)]
pub struct PuzzleRow {
    pub id: Uuid,
    pub game: String,
    pub config: Value,
    pub events: Value,
    pub seats: i16,
    pub solver: i16,
    pub line: Value,
    pub goal: crate::closed::PuzzleGoal,
    pub depth: i32,
    pub margin: i32,
    pub source: String,
    pub rating: f64,
    pub deviation: f64,
    pub volatility: f64,
    pub plays: i32,
    pub created_at: DateTime<Utc>,
    /// The variant it is played in (its configuration's), '' for a game
    /// without variants.
    pub variant: String,
}

/// A new puzzle's rating: 1,100 for one move, 200 more for each further
/// solver move, and up to 150 more the closer the runner-up came (the
/// margin, as a share of the game's decisive gain): a long line whose
/// only move barely beats the next is hard. Glicko-2 corrects it from
/// there; its deviation starts wide.
pub fn first_rating(found: &Found, decisive: i32) -> f64 {
    let moves = found.solver_moves().max(1) as f64;
    let closeness = 1.0 - (f64::from(found.margin) / f64::from(decisive.max(1))).clamp(0.0, 1.0);
    1100.0 + 200.0 * (moves - 1.0) + 150.0 * closeness
}

/// The deviation a new puzzle starts with.
pub const FIRST_DEVIATION: f64 = 300.0;

/// Keep `found`, mined from `source` (a match id, or the engines' match's
/// game and seed); a source mined before is kept once. Whether it was new.
pub fn store(
    conn: &mut PgConnection,
    game: GameId,
    config: &Value,
    found: &Found,
    source: &str,
    now: DateTime<Utc>,
) -> Result<bool, Error> {
    let row = PuzzleRow {
        id: Uuid::new_v4(),
        game: game.id().to_owned(),
        config: config.clone(),
        events: Value::from(found.events.clone()),
        seats: found.seats as i16,
        solver: i16::from(found.solver.0),
        line: serde_json::to_value(&found.line).map_err(|e| Error::Internal(e.to_string()))?,
        goal: found.goal.into(),
        depth: found.depth as i32,
        margin: found.margin,
        source: source.to_owned(),
        rating: first_rating(found, game.puzzle_rule().decisive),
        deviation: FIRST_DEVIATION,
        volatility: 0.06,
        plays: 0,
        created_at: now,
        variant: variant_of(game, config),
    };
    let added = diesel::insert_into(puzzles::table)
        .values(&row)
        .on_conflict(puzzles::source)
        .do_nothing()
        .execute(conn)?;
    Ok(added == 1)
}

/// The variant a `game`'s configuration plays: the one it names, else the
/// game's first (as a match made without one is played: American
/// checkers); '' for a game without variants.
pub fn variant_of(game: GameId, config: &Value) -> String {
    let first = game.about().variants.first().copied().unwrap_or("");
    config
        .get("variant")
        .and_then(Value::as_str)
        .unwrap_or(first)
        .to_owned()
}

/// A line the miner wrote (`{"game", "config", …Found}`): its game, the
/// configuration it was mined in and the puzzle.
pub fn read_mined(line: &str) -> Result<(GameId, Value, Found), String> {
    let value: Value = serde_json::from_str(line).map_err(|e| e.to_string())?;
    let id = value["game"].as_str().unwrap_or_default();
    let game = GameId::parse(id).ok_or_else(|| format!("unknown game {id:?}"))?;
    let config = value
        .get("config")
        .cloned()
        .unwrap_or_else(|| serde_json::json!({}));
    let found: Found = serde_json::from_value(value).map_err(|e| e.to_string())?;
    Ok((game, config, found))
}
