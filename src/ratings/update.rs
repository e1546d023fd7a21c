//! A finished rated match changes its players' ratings, in the
//! transaction that records its end (called from `Table::append`).

use super::{is_weng_lin, perf_of, PROVISIONAL_ABOVE, START_RATING, WENG_LIN_SCALE};
use crate::error::Error;
use crate::matches::reactions::{Appended, Reaction};
use crate::matches::{EventRow, Table};
use crate::notify::outbox::Notice;
use crate::schema::{rating_changes, rating_counts, ratings, users};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use serde_json::{json, Value};
use skillratings::glicko2::{glicko2, Glicko2Config, Glicko2Rating};
use skillratings::weng_lin::{weng_lin_multi_team, WengLinConfig, WengLinRating};
use skillratings::{MultiTeamOutcome, Outcomes};
use std::collections::BTreeMap;
use uuid::Uuid;

#[derive(Clone, Debug, Queryable, Selectable)]
#[diesel(table_name = ratings)]
pub struct RatingRow {
    pub user_id: Uuid,
    pub perf: String,
    pub rating: f64,
    pub deviation: f64,
    pub volatility: f64,
    pub games: i32,
    pub wins: i32,
    pub draws: i32,
    pub losses: i32,
    pub last_rated_at: Option<DateTime<Utc>>,
    pub board_rating: Option<i32>,
}

/// Whether a rating is still provisional.
pub fn provisional(deviation: f64) -> bool {
    deviation > PROVISIONAL_ABOVE
}

/// The rating reaction: a rated match that ends has its ratings updated
/// in the transaction of its end (docs/decisions/ratings.md).
pub struct Rate;

impl Reaction for Rate {
    fn react(
        &self,
        conn: &mut PgConnection,
        table: &mut Table,
        appended: &Appended,
    ) -> Result<Vec<Notice>, Error> {
        let ended = appended.ended(&table.row);
        if ended && table.row.rated {
            record(conn, table, &appended.unwritten(), appended.now)?;
        }
        Ok(Vec::new())
    }
}

/// Apply the match's end to its players' ratings, and write the changes
/// into its result (`ratings`, or `aborted`/`unrated` with why).
pub fn record(
    conn: &mut PgConnection,
    table: &mut Table,
    appended: &[EventRow],
    now: DateTime<Utc>,
) -> Result<(), Error> {
    if table.state.outcome().is_none() {
        return Ok(());
    }
    if let Some((key, why)) = unrated(conn, table, appended)? {
        annotate(table, key, json!(why));
        return Ok(());
    }
    let perf = perf_of(&table.row);
    let places = table.state.placements(table.seats.len());
    let (by_seat, deleted) = lock_by_seat(conn, table, &perf)?;
    let after = if is_weng_lin(&perf) {
        weng_lin_update(table, &by_seat, &places)
    } else {
        glicko_update(&by_seat, &places)
    };
    let best = places.iter().min().copied().unwrap_or(1);
    let all_tied = places.iter().all(|p| *p == best);
    let mut counts: BTreeMap<i32, i32> = BTreeMap::new();
    let mut changes = Vec::new();
    for (seat, (before, after)) in by_seat.iter().zip(after).enumerate() {
        if deleted.contains(&before.user_id) {
            continue;
        }
        let (win, draw) = (places[seat] == best && !all_tied, all_tied);
        let rated = Rated {
            seat,
            match_id: table.row.id,
            perf: &perf,
            before,
            after,
            win,
            draw,
            now,
        };
        changes.push(rated.store(conn, &mut counts)?);
    }
    shift_counts(conn, &perf, &counts)?;
    annotate(table, "ratings", Value::Array(changes));
    Ok(())
}

/// Why a finished match is not rated, if it is not: a guest played, or a
/// seat never made a move of its own (`matches::fold::unmoved_seats`) —
/// except where the deal showed each player a private hand (FlipChess):
/// there leaving before a move, by resigning or by letting the clock run
/// out, counts as a loss, or a player could look at their hand and walk
/// away from it unrated until they liked one (docs/decisions/ratings.md).
fn unrated(
    conn: &mut PgConnection,
    table: &Table,
    appended: &[EventRow],
) -> Result<Option<(&'static str, &'static str)>, Error> {
    let seats: Vec<Uuid> = table.seats.iter().flatten().copied().collect();
    let guests: i64 = users::table
        .filter(users::id.eq_any(&seats))
        .filter(users::guest.eq(true))
        .count()
        .get_result(conn)?;
    if guests > 0 {
        return Ok(Some(("unrated", "a guest played: guests are never rated")));
    }
    if table.state.deals_in_private() {
        return Ok(None);
    }
    Ok(
        (!crate::matches::fold::unmoved_seats(conn, table, appended)?.is_empty())
            .then_some(("aborted", "a player never moved: the match is not rated")),
    )
}

/// Every seated player's rating in `perf`, created at the start value if
/// new and locked in user order (a fixed lock order), in seat order; and
/// the seated players whose account was deleted
/// (docs/decisions/accounts-and-sessions.md, "Deleting an account"): an
/// eliminated four-player seat stays seated after its player leaves. Such
/// a seat counts at the start values for the others' results, and nothing
/// is written for it.
fn lock_by_seat(
    conn: &mut PgConnection,
    table: &Table,
    perf: &str,
) -> Result<(Vec<RatingRow>, Vec<Uuid>), Error> {
    let mut users_sorted: Vec<Uuid> = table.seats.iter().flatten().copied().collect();
    users_sorted.sort();
    users_sorted.dedup();
    let deleted: Vec<Uuid> = users::table
        .filter(users::id.eq_any(&users_sorted))
        .filter(users::deleted_at.is_not_null())
        .select(users::id)
        .load(conn)?;
    users_sorted.retain(|u| !deleted.contains(u));
    let (rating, deviation, volatility) = start_of(perf);
    for user in &users_sorted {
        diesel::insert_into(ratings::table)
            .values((
                ratings::user_id.eq(user),
                ratings::perf.eq(perf),
                ratings::rating.eq(rating),
                ratings::deviation.eq(deviation),
                ratings::volatility.eq(volatility),
            ))
            .on_conflict_do_nothing()
            .execute(conn)?;
    }
    let locked: Vec<RatingRow> = ratings::table
        .filter(ratings::perf.eq(perf))
        .filter(ratings::user_id.eq_any(&users_sorted))
        .order(ratings::user_id)
        .select(RatingRow::as_select())
        .for_update()
        .load(conn)?;
    let gone = |user_id: Uuid| RatingRow {
        user_id,
        perf: perf.to_owned(),
        rating,
        deviation,
        volatility,
        games: 0,
        wins: 0,
        draws: 0,
        losses: 0,
        last_rated_at: None,
        board_rating: None,
    };
    let by_seat = (table.seats.iter().flatten())
        .filter_map(|u| match locked.iter().find(|r| r.user_id == *u) {
            Some(row) => Some(row.clone()),
            None => deleted.contains(u).then(|| gone(*u)),
        })
        .collect();
    Ok((by_seat, deleted))
}

/// One player's rated result, to be written.
struct Rated<'a> {
    seat: usize,
    match_id: Uuid,
    perf: &'a str,
    before: &'a RatingRow,
    /// Rating, deviation and volatility after the match.
    after: (f64, f64, f64),
    win: bool,
    draw: bool,
    now: DateTime<Utc>,
}

impl Rated<'_> {
    /// Write the new rating and its record, the rating change, and the
    /// move on the board (into `counts`); the change as the match shows it.
    fn store(
        &self,
        conn: &mut PgConnection,
        counts: &mut BTreeMap<i32, i32>,
    ) -> Result<Value, Error> {
        let (before, (rating, deviation, volatility)) = (self.before, self.after);
        let (win, draw) = (self.win, self.draw);
        let board = (!provisional(deviation)).then(|| rating.round() as i32);
        if let Some(old) = before.board_rating {
            *counts.entry(old).or_default() -= 1;
        }
        if let Some(new) = board {
            *counts.entry(new).or_default() += 1;
        }
        diesel::update(ratings::table.find((before.user_id, self.perf)))
            .set((
                ratings::rating.eq(rating),
                ratings::deviation.eq(deviation),
                ratings::volatility.eq(volatility),
                ratings::games.eq(before.games + 1),
                ratings::wins.eq(before.wins + i32::from(win)),
                ratings::draws.eq(before.draws + i32::from(draw)),
                ratings::losses.eq(before.losses + i32::from(!win && !draw)),
                ratings::last_rated_at.eq(self.now),
                ratings::board_rating.eq(board),
            ))
            .execute(conn)?;
        diesel::insert_into(rating_changes::table)
            .values((
                rating_changes::match_id.eq(self.match_id),
                rating_changes::user_id.eq(before.user_id),
                rating_changes::perf.eq(self.perf),
                rating_changes::before.eq(before.rating),
                rating_changes::after.eq(rating),
            ))
            .on_conflict_do_nothing()
            .execute(conn)?;
        Ok(json!({
            "seat": self.seat,
            "perf": self.perf,
            "before": before.rating.round(),
            "after": rating.round(),
            "change": (rating.round() - before.rating.round()),
            "provisional": provisional(deviation),
        }))
    }
}

/// Move players between whole ratings on the board, in rating order (a
/// fixed lock order for the count rows).
pub fn shift_counts(
    conn: &mut PgConnection,
    perf: &str,
    counts: &BTreeMap<i32, i32>,
) -> Result<(), Error> {
    for (rating, delta) in counts.iter().filter(|(_, d)| **d != 0) {
        diesel::insert_into(rating_counts::table)
            .values((
                rating_counts::perf.eq(perf),
                rating_counts::rating.eq(rating),
                rating_counts::players.eq(delta),
            ))
            .on_conflict((rating_counts::perf, rating_counts::rating))
            .do_update()
            .set(rating_counts::players.eq(rating_counts::players + delta))
            .execute(conn)?;
    }
    Ok(())
}

/// Add `key` to the match's result (the changes, or why none).
fn annotate(table: &mut Table, key: &str, value: Value) {
    if let Some(Value::Object(result)) = table.row.result.as_mut() {
        result.insert(key.to_owned(), value);
    }
}

fn start_of(perf: &str) -> (f64, f64, f64) {
    if is_weng_lin(perf) {
        let start = WengLinRating::new();
        (
            start.rating * WENG_LIN_SCALE,
            start.uncertainty * WENG_LIN_SCALE,
            0.0,
        )
    } else {
        let start = Glicko2Rating::new();
        debug_assert_eq!(start.rating, START_RATING);
        (start.rating, start.deviation, start.volatility)
    }
}

fn glicko_update(players: &[RatingRow], places: &[usize]) -> Vec<(f64, f64, f64)> {
    let rating = |r: &RatingRow| Glicko2Rating {
        rating: r.rating,
        deviation: r.deviation,
        volatility: r.volatility,
    };
    let outcome = match places[0].cmp(&places[1]) {
        std::cmp::Ordering::Less => Outcomes::WIN,
        std::cmp::Ordering::Equal => Outcomes::DRAW,
        std::cmp::Ordering::Greater => Outcomes::LOSS,
    };
    let (a, b) = glicko2(
        &rating(&players[0]),
        &rating(&players[1]),
        &outcome,
        &Glicko2Config::new(),
    );
    vec![
        (a.rating, a.deviation, a.volatility),
        (b.rating, b.deviation, b.volatility),
    ]
}

/// Four-player chess: teams mode as two teams (by army), the others as a
/// ranking of the players.
fn weng_lin_update(table: &Table, players: &[RatingRow], places: &[usize]) -> Vec<(f64, f64, f64)> {
    let rating = |r: &RatingRow| WengLinRating {
        rating: r.rating / WENG_LIN_SCALE,
        uncertainty: r.deviation / WENG_LIN_SCALE,
    };
    // Seats grouped by team, as the rules tell them (`Game::teams`).
    let team_of = table.state.teams(players.len());
    let mut teams: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (seat, team) in team_of.iter().enumerate() {
        teams.entry(*team).or_default().push(seat);
    }
    let groups: Vec<(Vec<WengLinRating>, MultiTeamOutcome)> = teams
        .values()
        .map(|seats| {
            let place = seats.iter().map(|s| places[*s]).min().unwrap_or(1);
            (
                seats.iter().map(|s| rating(&players[*s])).collect(),
                MultiTeamOutcome::new(place),
            )
        })
        .collect();
    let input: Vec<(&[WengLinRating], MultiTeamOutcome)> = groups
        .iter()
        .map(|(team, place)| (team.as_slice(), *place))
        .collect();
    let updated = weng_lin_multi_team(&input, &WengLinConfig::new());
    let mut out = vec![(0.0, 0.0, 0.0); players.len()];
    for (seats, new) in teams.values().zip(updated) {
        for (seat, r) in seats.iter().zip(new) {
            out[*seat] = (
                r.rating * WENG_LIN_SCALE,
                r.uncertainty * WENG_LIN_SCALE,
                0.0,
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use skillratings::glicko2::{glicko2_rating_period, Glicko2Config, Glicko2Rating};
    use skillratings::Outcomes;

    /// Glickman's worked example ("Example of the Glicko-2 system",
    /// glicko.net/glicko/glicko2.pdf): 1500/200/0.06 beats 1400/30, loses
    /// to 1550/100 and 1700/300 with τ = 0.5 → 1464.06, 151.52, 0.05999.
    #[test]
    fn glicko2_matches_glickmans_published_example() {
        let player = Glicko2Rating {
            rating: 1500.0,
            deviation: 200.0,
            volatility: 0.06,
        };
        let opponent = |rating, deviation| Glicko2Rating {
            rating,
            deviation,
            volatility: 0.06,
        };
        let results = [
            (opponent(1400.0, 30.0), Outcomes::WIN),
            (opponent(1550.0, 100.0), Outcomes::LOSS),
            (opponent(1700.0, 300.0), Outcomes::LOSS),
        ];
        let config = Glicko2Config {
            tau: 0.5,
            ..Glicko2Config::new()
        };
        let after = glicko2_rating_period(&player, &results, &config);
        assert!((after.rating - 1464.06).abs() < 0.01, "{}", after.rating);
        assert!(
            (after.deviation - 151.52).abs() < 0.01,
            "{}",
            after.deviation
        );
        assert!(
            (after.volatility - 0.05999).abs() < 0.00001,
            "{}",
            after.volatility
        );
    }

    /// A title is the game's own (`About::titles`): each applies from its
    /// rating up to the next one's; a game without titles shows none.
    #[test]
    fn a_title_is_the_games_own_from_its_rating_up() {
        use crate::ratings::title;
        for game in posthorn_rules::GameId::ALL {
            let about = game.about();
            let perf = match about.variants.iter().chain(about.modes).next() {
                Some(choice) => format!("{}/{choice}", about.id),
                None => about.id.to_owned(),
            };
            for pair in about.titles.windows(2) {
                let ((from, name), (next, _)) = (pair[0], pair[1]);
                assert_eq!(title(&perf, from.max(0)), Some(name), "{perf} {from}");
                assert_eq!(title(&perf, next - 1), Some(name), "{perf} {next}");
            }
            if about.titles.is_empty() {
                assert_eq!(title(&perf, 1500), None, "{perf}");
            }
        }
    }
}
