//! Profiles and head-to-head records (docs/decisions/ratings.md). A profile
//! shows only what every signed-in player may know: the name, since when,
//! and per perf the rating and the tally of rated matches. Between a
//! blocked pair (either way) it shows the public name and nothing more
//! (docs/decisions/ratings.md).

use super::{title, update::provisional};
use crate::error::Error;
use crate::players::Player;
use crate::schema::{rating_changes, ratings, users};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use utoipa::ToSchema;
use uuid::Uuid;

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct PerfRecord {
    pub perf: String,
    pub rating: i32,
    pub deviation: f64,
    pub provisional: bool,
    pub games: i32,
    pub wins: i32,
    pub draws: i32,
    pub losses: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct Profile {
    pub username: String,
    pub display_name: String,
    /// The emblem worn beside the name (issue #70).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub emblem: Option<String>,
    /// Absent when one of us has blocked the other.
    pub member_since: Option<DateTime<Utc>>,
    pub perfs: Vec<PerfRecord>,
}

/// `name`'s profile as `me` may see it.
pub fn profile(conn: &mut PgConnection, me: Uuid, name: &str) -> Result<Profile, Error> {
    let player = crate::players::named(conn, name)?;
    let since: DateTime<Utc> = users::table
        .find(player.id)
        .select(users::created_at)
        .first(conn)?;
    if crate::friends::blocked_between(conn, me, player.id)? {
        return Ok(Profile {
            username: player.username,
            display_name: player.display_name,
            emblem: None,
            member_since: None,
            perfs: Vec::new(),
        });
    }
    type Row = (String, f64, f64, i32, i32, i32, i32);
    let rows: Vec<Row> = ratings::table
        .filter(ratings::user_id.eq(player.id))
        .filter(ratings::games.gt(0))
        .order(ratings::perf)
        .select((
            ratings::perf,
            ratings::rating,
            ratings::deviation,
            ratings::games,
            ratings::wins,
            ratings::draws,
            ratings::losses,
        ))
        .load(conn)?;
    let perfs = rows
        .into_iter()
        .map(|(perf, rating, deviation, games, wins, draws, losses)| {
            let whole = rating.round() as i32;
            PerfRecord {
                title: title(&perf, whole).map(str::to_owned),
                perf,
                rating: whole,
                deviation,
                provisional: provisional(deviation),
                games,
                wins,
                draws,
                losses,
            }
        })
        .collect();
    Ok(Profile {
        username: player.username,
        display_name: player.display_name,
        emblem: player.emblem,
        member_since: Some(since),
        perfs,
    })
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct Meeting {
    pub match_id: Uuid,
    pub game: String,
    /// `win`, `draw` or `loss`, for the caller.
    pub for_me: String,
    pub reason: Option<String>,
    pub finished_at: DateTime<Utc>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, ToSchema)]
pub struct Tally {
    pub perf: String,
    pub wins: i32,
    pub draws: i32,
    pub losses: i32,
    /// The last ten finished matches between us, newest first.
    pub last: Vec<Meeting>,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct HeadToHead {
    pub opponent: Player,
    pub perfs: Vec<Tally>,
}

/// The finished matches between `me` and `name`, per perf.
pub fn head_to_head(conn: &mut PgConnection, me: Uuid, name: &str) -> Result<HeadToHead, Error> {
    let them = crate::players::named(conn, name)?;
    if crate::friends::blocked_between(conn, me, them.id)? {
        return Err(Error::not_found("player"));
    }
    let rows = crate::matches::reads::finished_between(conn, me, them.id, 1_000)?;
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    for (row, my_seats) in rows {
        let my_seats: Vec<i64> = my_seats.into_iter().map(i64::from).collect();
        let result = row.result.clone().unwrap_or(Value::Null);
        let winners: Vec<i64> = result["winners"]
            .as_array()
            .map(|w| w.iter().filter_map(Value::as_i64).collect())
            .unwrap_or_default();
        let for_me = if winners.is_empty() {
            "draw"
        } else if winners.iter().any(|w| my_seats.contains(w)) {
            "win"
        } else {
            "loss"
        };
        let perf = super::perf_of(&row);
        let tally = tallies.entry(perf.clone()).or_insert_with(|| Tally {
            perf,
            ..Tally::default()
        });
        match for_me {
            "win" => tally.wins += 1,
            "draw" => tally.draws += 1,
            _ => tally.losses += 1,
        }
        if tally.last.len() < 10 {
            tally.last.push(Meeting {
                match_id: row.id,
                game: row.game.clone(),
                for_me: for_me.to_owned(),
                reason: result["reason"].as_str().map(str::to_owned),
                finished_at: row.updated_at,
            });
        }
    }
    Ok(HeadToHead {
        opponent: them,
        perfs: tallies.into_values().collect(),
    })
}

#[derive(Debug, Serialize, ToSchema, Queryable)]
pub struct ExportedRating {
    pub perf: String,
    pub rating: f64,
    pub deviation: f64,
    pub games: i32,
    pub wins: i32,
    pub draws: i32,
    pub losses: i32,
    pub last_rated_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Serialize, ToSchema, Queryable)]
pub struct RatingChange {
    pub match_id: Uuid,
    pub perf: String,
    pub before: f64,
    pub after: f64,
}

/// My ratings, for the export.
pub fn exported(conn: &mut PgConnection, user: Uuid) -> Result<Vec<ExportedRating>, Error> {
    Ok(ratings::table
        .filter(ratings::user_id.eq(user))
        .order(ratings::perf)
        .select((
            ratings::perf,
            ratings::rating,
            ratings::deviation,
            ratings::games,
            ratings::wins,
            ratings::draws,
            ratings::losses,
            ratings::last_rated_at,
        ))
        .load(conn)?)
}

/// How each rated match moved my rating, for the export.
pub fn history(conn: &mut PgConnection, user: Uuid) -> Result<Vec<RatingChange>, Error> {
    Ok(rating_changes::table
        .filter(rating_changes::user_id.eq(user))
        .order(rating_changes::match_id)
        .select((
            rating_changes::match_id,
            rating_changes::perf,
            rating_changes::before,
            rating_changes::after,
        ))
        .load(conn)?)
}

/// The ratings of those of `players` rated in `perf` (others have none
/// yet: the caller says what they start at).
pub fn ratings_in(
    conn: &mut PgConnection,
    perf: &str,
    players: &[Uuid],
) -> Result<std::collections::HashMap<Uuid, f64>, Error> {
    Ok(ratings::table
        .filter(ratings::perf.eq(perf))
        .filter(ratings::user_id.eq_any(players))
        .select((ratings::user_id, ratings::rating))
        .load::<(Uuid, f64)>(conn)?
        .into_iter()
        .collect())
}
