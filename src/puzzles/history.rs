//! A player's puzzles as their personal data
//! (docs/decisions/accounts-and-sessions.md): the attempts, the puzzle
//! ratings and the mornings they were told of the daily puzzle, exported
//! and forgotten together. The puzzles themselves name nobody and stay;
//! so do their ratings, which every solver moved.

use crate::error::Error;
use crate::personal::{Exported, Leaving, Owner};
use crate::schema::{puzzle_attempts, puzzle_mornings, puzzle_ratings, puzzles};
use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

pub const PERSONAL: Owner = Owner::erasing(
    "puzzles",
    &["puzzle_attempts", "puzzle_ratings", "puzzle_mornings"],
    forget,
    Exported::In(&["puzzles/attempts", "puzzles/ratings", "puzzles/mornings"]),
);

/// My puzzles, for the export.
#[derive(Debug, Serialize, ToSchema)]
pub struct PuzzleHistory {
    /// Every puzzle I began, oldest first.
    pub attempts: Vec<ExportedPuzzleAttempt>,
    /// My puzzle rating in each game I solved puzzles of.
    pub ratings: Vec<ExportedPuzzleRating>,
    /// The days I was told of the daily puzzle (the last two days').
    pub mornings: Vec<NaiveDate>,
}

#[derive(Debug, Serialize, ToSchema, Queryable)]
pub struct ExportedPuzzleAttempt {
    pub puzzle_id: Uuid,
    pub game: String,
    /// `playing`, `solved` or `failed`.
    pub state: String,
    /// Whether a wrong move was played.
    pub missed: bool,
    /// Whether it moved my puzzle rating.
    pub rated: bool,
    /// The day it was my daily puzzle of.
    pub daily: Option<NaiveDate>,
    pub started_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Serialize, ToSchema, Queryable)]
pub struct ExportedPuzzleRating {
    pub game: String,
    pub rating: f64,
    pub deviation: f64,
    pub attempts: i32,
}

pub fn export(conn: &mut PgConnection, user: Uuid) -> Result<PuzzleHistory, Error> {
    Ok(PuzzleHistory {
        attempts: puzzle_attempts::table
            .inner_join(puzzles::table)
            .filter(puzzle_attempts::user_id.eq(user))
            .order((puzzle_attempts::started_at, puzzle_attempts::puzzle_id))
            .select((
                puzzle_attempts::puzzle_id,
                puzzles::game,
                puzzle_attempts::state,
                puzzle_attempts::missed,
                puzzle_attempts::rated,
                puzzle_attempts::daily,
                puzzle_attempts::started_at,
                puzzle_attempts::finished_at,
            ))
            .load(conn)?,
        ratings: puzzle_ratings::table
            .filter(puzzle_ratings::user_id.eq(user))
            .order(puzzle_ratings::game)
            .select((
                puzzle_ratings::game,
                puzzle_ratings::rating,
                puzzle_ratings::deviation,
                puzzle_ratings::attempts,
            ))
            .load(conn)?,
        mornings: puzzle_mornings::table
            .filter(puzzle_mornings::user_id.eq(user))
            .order(puzzle_mornings::day)
            .select(puzzle_mornings::day)
            .load(conn)?,
    })
}

fn forget(conn: &mut PgConnection, leaving: &mut Leaving<'_>) -> Result<(), Error> {
    let user = leaving.user;
    diesel::delete(puzzle_attempts::table.filter(puzzle_attempts::user_id.eq(user)))
        .execute(conn)?;
    diesel::delete(puzzle_ratings::table.filter(puzzle_ratings::user_id.eq(user))).execute(conn)?;
    diesel::delete(puzzle_mornings::table.filter(puzzle_mornings::user_id.eq(user)))
        .execute(conn)?;
    Ok(())
}
