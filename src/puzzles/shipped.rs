//! The checked puzzle sets shipped with the rules (docs/puzzles.md,
//! "Shipped sets"): kept when an instance starts, so a fresh install has
//! every game's daily puzzle from its first minute, and mining only adds
//! to them. Each is stored as `posthorn puzzles import` stores a line
//! (its source `import:<game>:<opening>`, unique), so a restart, a second
//! instance starting at the same moment, or an import of the same file
//! keeps each puzzle once.

use super::{read_mined, store};
use crate::error::Error;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use posthorn_rules::puzzles::Found;
use posthorn_rules::GameId;

/// The source a shipped or imported puzzle is kept under: its game and
/// opening event, so the same position is one puzzle however often its
/// line appears.
pub fn source_of(game: GameId, found: &Found) -> Result<String, String> {
    let opening = (found.events.first()).ok_or("a puzzle with no opening")?;
    Ok(format!("import:{}:{opening}", game.id()))
}

/// Keep every line of `text` (the miner's JSON lines), each once: how
/// many were new.
pub fn keep_lines(
    conn: &mut PgConnection,
    text: &str,
    now: DateTime<Utc>,
) -> Result<usize, String> {
    let mut added = 0;
    for (n, line) in text.lines().enumerate() {
        let (game, options, found) =
            read_mined(line).map_err(|e| format!("line {}: {e}", n + 1))?;
        let source = source_of(game, &found).map_err(|e| format!("line {}: {e}", n + 1))?;
        let new = store(conn, game, &options, &found, &source, now).map_err(|e| e.to_string())?;
        added += usize::from(new);
    }
    Ok(added)
}

/// Keep every shipped puzzle of every game, in one transaction a game:
/// how many were new (none once any instance has started before). A
/// game whose shipped puzzles are all kept already is one count, not a
/// statement a line; a puzzle deleted from the database comes back at the
/// next start (retire one by taking it out of the shipped file).
pub fn keep(conn: &mut PgConnection, now: DateTime<Utc>) -> Result<usize, Error> {
    let mut added = 0;
    for &game in GameId::ALL {
        let text = game.shipped_puzzles();
        added += conn.transaction(|c| {
            first_variant(c, game)?;
            if all_kept(c, text)? {
                return Ok(0);
            }
            keep_lines(c, text, now)
                .map_err(|e| Error::internal(format!("the shipped {} puzzles: {e}", game.id())))
        })?;
    }
    Ok(added)
}

/// Whether every puzzle of `text` is kept already: one count of their
/// sources.
fn all_kept(conn: &mut PgConnection, text: &str) -> Result<bool, Error> {
    use crate::schema::puzzles;
    let sources: std::collections::BTreeSet<String> = (text.lines())
        .filter_map(|line| read_mined(line).ok())
        .filter_map(|(game, _, found)| source_of(game, &found).ok())
        .collect();
    let kept: i64 = puzzles::table
        .filter(puzzles::source.eq_any(&sources))
        .count()
        .get_result(conn)?;
    Ok(kept == sources.len() as i64)
}

/// A puzzle kept before puzzles had variants, or by a release before
/// that, from a configuration naming none, plays the game's first
/// variant (`super::variant_of`).
fn first_variant(conn: &mut PgConnection, game: GameId) -> Result<(), Error> {
    use crate::schema::puzzles;
    if let Some(first) = game.about().variants.first() {
        diesel::update(puzzles::table)
            .filter(puzzles::game.eq(game.id()))
            .filter(puzzles::variant.eq(""))
            .set(puzzles::variant.eq(*first))
            .execute(conn)?;
    }
    Ok(())
}
