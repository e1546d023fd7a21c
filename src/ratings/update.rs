//! A finished rated match changes its players' ratings, in the
//! transaction that records its end (called from `Table::append`).

use super::{is_weng_lin, perf_of, PROVISIONAL_ABOVE, START_RATING, WENG_LIN_SCALE};
use crate::error::Error;
use crate::matches::{EventRow, Table};
use crate::schema::{match_events, rating_changes, rating_counts, ratings, users};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use posthorn_rules::{OutcomeKind, Viewer};
use serde_json::{json, Value};
use skillratings::glicko2::{glicko2, Glicko2Config, Glicko2Rating};
use skillratings::weng_lin::{weng_lin_multi_team, WengLinConfig, WengLinRating};
use skillratings::{MultiTeamOutcome, Outcomes};
use std::collections::BTreeMap;
use uuid::Uuid;

/// Events that are not a player's own move: a seat that has only these
/// never moved, and its match is aborted.
const NOT_A_MOVE: [&str; 6] = [
    "resigned",
    "abandoned",
    "finished",
    "eliminated",
    "scored",
    "skipped",
];

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

/// Apply the match's end to its players' ratings, and write the changes
/// into its result (`ratings`, or `aborted`/`unrated` with why).
pub fn record(
    conn: &mut PgConnection,
    table: &mut Table,
    appended: &[EventRow],
    now: DateTime<Utc>,
) -> Result<(), Error> {
    let Some(outcome) = table.state.outcome() else {
        return Ok(());
    };
    let seats: Vec<Uuid> = table.seats.iter().flatten().copied().collect();
    let guests: i64 = users::table
        .filter(users::id.eq_any(&seats))
        .filter(users::guest.eq(true))
        .count()
        .get_result(conn)?;
    if guests > 0 {
        annotate(
            table,
            "unrated",
            json!("a guest played: guests are never rated"),
        );
        return Ok(());
    }
    let mut events: Vec<(Option<i16>, Value)> = match_events::table
        .filter(match_events::match_id.eq(table.row.id))
        .filter(match_events::rules.eq(true))
        .order(match_events::seq)
        .select((match_events::seat, match_events::body))
        .load(conn)?;
    events.extend(
        appended
            .iter()
            .filter(|e| e.rules)
            .map(|e| (e.seat, e.body.clone())),
    );
    let moved = |seat: usize| {
        events.iter().any(|(s, body)| {
            *s == Some(seat as i16)
                && !NOT_A_MOVE.contains(&body["type"].as_str().unwrap_or_default())
        })
    };
    if (0..table.seats.len()).any(|s| !moved(s)) {
        annotate(
            table,
            "aborted",
            json!("a player never moved: the match is not rated"),
        );
        return Ok(());
    }
    let perf = perf_of(&table.row);
    let places = placements(table, &outcome, &events);
    let mut users_sorted = seats.clone();
    users_sorted.sort();
    users_sorted.dedup();
    for user in &users_sorted {
        let (rating, deviation, volatility) = start_of(&perf);
        diesel::insert_into(ratings::table)
            .values((
                ratings::user_id.eq(user),
                ratings::perf.eq(&perf),
                ratings::rating.eq(rating),
                ratings::deviation.eq(deviation),
                ratings::volatility.eq(volatility),
            ))
            .on_conflict_do_nothing()
            .execute(conn)?;
    }
    let locked: Vec<RatingRow> = ratings::table
        .filter(ratings::perf.eq(&perf))
        .filter(ratings::user_id.eq_any(&users_sorted))
        .order(ratings::user_id)
        .select(RatingRow::as_select())
        .for_update()
        .load(conn)?;
    let by_seat: Vec<RatingRow> = table
        .seats
        .iter()
        .flatten()
        .filter_map(|u| locked.iter().find(|r| r.user_id == *u).cloned())
        .collect();
    let after = if is_weng_lin(&perf) {
        weng_lin_update(table, &by_seat, &places)
    } else {
        glicko_update(&by_seat, &places)
    };
    let mut counts: BTreeMap<i32, i32> = BTreeMap::new();
    let mut changes = Vec::new();
    let best = places.iter().min().copied().unwrap_or(1);
    let all_tied = places.iter().all(|p| *p == best);
    for (seat, (before, (rating, deviation, volatility))) in by_seat.iter().zip(after).enumerate() {
        let (win, draw) = (places[seat] == best && !all_tied, all_tied);
        let board = (!provisional(deviation)).then(|| rating.round() as i32);
        if let Some(old) = before.board_rating {
            *counts.entry(old).or_default() -= 1;
        }
        if let Some(new) = board {
            *counts.entry(new).or_default() += 1;
        }
        diesel::update(ratings::table.find((before.user_id, &perf)))
            .set((
                ratings::rating.eq(rating),
                ratings::deviation.eq(deviation),
                ratings::volatility.eq(volatility),
                ratings::games.eq(before.games + 1),
                ratings::wins.eq(before.wins + i32::from(win)),
                ratings::draws.eq(before.draws + i32::from(draw)),
                ratings::losses.eq(before.losses + i32::from(!win && !draw)),
                ratings::last_rated_at.eq(now),
                ratings::board_rating.eq(board),
            ))
            .execute(conn)?;
        diesel::insert_into(rating_changes::table)
            .values((
                rating_changes::match_id.eq(table.row.id),
                rating_changes::user_id.eq(before.user_id),
                rating_changes::perf.eq(&perf),
                rating_changes::before.eq(before.rating),
                rating_changes::after.eq(rating),
            ))
            .on_conflict_do_nothing()
            .execute(conn)?;
        changes.push(json!({
            "seat": seat,
            "perf": perf,
            "before": before.rating.round(),
            "after": rating.round(),
            "change": (rating.round() - before.rating.round()),
            "provisional": provisional(deviation),
        }));
    }
    shift_counts(conn, &perf, &counts)?;
    annotate(table, "ratings", Value::Array(changes));
    Ok(())
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

/// Each seat's place (1 = best; ties share): winners first; a points
/// result by score; the others by how long they lasted (the later an
/// elimination, the better).
fn placements(
    table: &Table,
    outcome: &posthorn_rules::Outcome,
    events: &[(Option<i16>, Value)],
) -> Vec<usize> {
    let n = table.seats.len();
    if let (Some(scores), true) = (&outcome.scores, table.row.mode.as_deref() == Some("points")) {
        return (0..n)
            .map(|i| 1 + scores.iter().filter(|s| **s > scores[i]).count())
            .collect();
    }
    if outcome.outcome == OutcomeKind::Draw && outcome.winners.is_empty() && n == 2 {
        return vec![1; n];
    }
    // Seats out of the match, in the order they went (four-player chess).
    let view = table.state.view(Viewer::Spectator);
    let seat_of_army = |army: &Value| {
        view["armies"]
            .as_array()
            .and_then(|a| a.iter().find(|x| x["army"] == *army))
            .and_then(|x| x["seat"].as_u64())
            .map(|s| s as usize)
    };
    let mut out_order: Vec<usize> = Vec::new();
    for (_, body) in events {
        if body["type"] == "eliminated" {
            if let Some(seat) = seat_of_army(&body["army"]) {
                out_order.push(seat);
            }
        }
    }
    (0..n)
        .map(|seat| {
            if outcome.winners.iter().any(|w| w.index() == seat) {
                1
            } else if let Some(pos) = out_order.iter().position(|s| *s == seat) {
                // The last one out is second, and so on back.
                n - pos
            } else if outcome.outcome == OutcomeKind::Draw {
                1
            } else {
                2
            }
        })
        .collect()
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
    // Group seats into teams: by army parity in teams mode, else alone.
    let view = table.state.view(Viewer::Spectator);
    let team_of = |seat: usize| -> usize {
        if table.row.mode.as_deref() != Some("teams") {
            return seat;
        }
        view["armies"]
            .as_array()
            .and_then(|armies| {
                armies
                    .iter()
                    .position(|a| a["seat"].as_u64() == Some(seat as u64))
            })
            .map_or(seat, |army| army % 2)
    };
    let mut teams: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for seat in 0..players.len() {
        teams.entry(team_of(seat)).or_default().push(seat);
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

    #[test]
    fn janggi_titles_follow_the_seeds_anchors() {
        use crate::ratings::title;
        assert_eq!(
            title("janggi", 1299),
            Some("5급"),
            "5급 and below up to 1299"
        );
        assert_eq!(title("janggi", 1000), Some("7급"));
        assert_eq!(title("janggi", 1499), Some("1급"));
        assert_eq!(
            title("janggi", 1500),
            Some("1단"),
            "1단 and above from 1500"
        );
        assert_eq!(title("janggi", 2500), Some("7단"));
        assert_eq!(title("checkers/american", 1500), None);
    }
}
