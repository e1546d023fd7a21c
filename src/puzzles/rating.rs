//! Puzzle ratings: each attempt that counts is one Glicko-2 game between
//! the solver and the puzzle, as match ratings are (docs/puzzles.md). A
//! clean solve is the solver's win; a first wrong move or a give-up is the
//! puzzle's. Guests' attempts count for nothing, on either side.

use super::PuzzleRow;
use crate::error::Error;
use crate::schema::{puzzle_ratings, puzzles};
use diesel::prelude::*;
use diesel::PgConnection;
use serde::{Deserialize, Serialize};
use skillratings::glicko2::{glicko2, Glicko2Config, Glicko2Rating};
use skillratings::Outcomes;
use utoipa::ToSchema;
use uuid::Uuid;

/// Where a new solver starts, as lichess's puzzle ratings do.
pub const START: Glicko2Rating = Glicko2Rating {
    rating: 1500.0,
    deviation: 350.0,
    volatility: 0.06,
};

/// A solver's puzzle rating in one game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PuzzleRating {
    pub rating: i32,
    pub deviation: i32,
    /// Attempts that counted.
    pub attempts: i32,
}

fn glicko(rating: f64, deviation: f64, volatility: f64) -> Glicko2Rating {
    Glicko2Rating {
        rating,
        deviation,
        volatility,
    }
}

/// `user`'s puzzle rating in `game` (the start one if none yet).
pub fn of(conn: &mut PgConnection, user: Uuid, game: &str) -> Result<PuzzleRating, Error> {
    let row: Option<(f64, f64, i32)> = puzzle_ratings::table
        .find((user, game))
        .select((
            puzzle_ratings::rating,
            puzzle_ratings::deviation,
            puzzle_ratings::attempts,
        ))
        .first(conn)
        .optional()?;
    let (rating, deviation, attempts) = row.unwrap_or((START.rating, START.deviation, 0));
    Ok(PuzzleRating {
        rating: rating.round() as i32,
        deviation: deviation.round() as i32,
        attempts,
    })
}

/// One Glicko-2 game between solver and puzzle: `solved` is the solver's
/// win. Returns the solver's new rating and the puzzle's.
pub fn settle(
    solver: Glicko2Rating,
    puzzle: Glicko2Rating,
    solved: bool,
) -> (Glicko2Rating, Glicko2Rating) {
    let outcome = if solved {
        Outcomes::WIN
    } else {
        Outcomes::LOSS
    };
    glicko2(&solver, &puzzle, &outcome, &Glicko2Config::new())
}

/// Count an attempt of `user` at `puzzle`: both ratings move. The rows
/// are locked here and only here, so that solvers of one puzzle (the
/// daily one, shared by everyone) wait for each other only while a
/// counted attempt moves its rating, never on their other moves. The
/// player's row is made first if missing, so two attempts counted at
/// once both count (a lock on a missing row holds nothing).
pub fn record(
    conn: &mut PgConnection,
    user: Uuid,
    puzzle: &PuzzleRow,
    solved: bool,
) -> Result<PuzzleRating, Error> {
    diesel::insert_into(puzzle_ratings::table)
        .values((
            puzzle_ratings::user_id.eq(user),
            puzzle_ratings::game.eq(&puzzle.game),
            puzzle_ratings::rating.eq(START.rating),
            puzzle_ratings::deviation.eq(START.deviation),
            puzzle_ratings::volatility.eq(START.volatility),
            puzzle_ratings::attempts.eq(0),
        ))
        .on_conflict_do_nothing()
        .execute(conn)?;
    let (r, d, v, attempts): (f64, f64, f64, i32) = puzzle_ratings::table
        .find((user, &puzzle.game))
        .select((
            puzzle_ratings::rating,
            puzzle_ratings::deviation,
            puzzle_ratings::volatility,
            puzzle_ratings::attempts,
        ))
        .for_update()
        .first(conn)?;
    let before = glicko(r, d, v);
    let (pr, pd, pv): (f64, f64, f64) = puzzles::table
        .find(puzzle.id)
        .select((puzzles::rating, puzzles::deviation, puzzles::volatility))
        .for_no_key_update()
        .first(conn)?;
    let theirs = glicko(pr, pd, pv);
    let (me, it) = settle(before, theirs, solved);
    diesel::insert_into(puzzle_ratings::table)
        .values((
            puzzle_ratings::user_id.eq(user),
            puzzle_ratings::game.eq(&puzzle.game),
            puzzle_ratings::rating.eq(me.rating),
            puzzle_ratings::deviation.eq(me.deviation),
            puzzle_ratings::volatility.eq(me.volatility),
            puzzle_ratings::attempts.eq(attempts + 1),
        ))
        .on_conflict((puzzle_ratings::user_id, puzzle_ratings::game))
        .do_update()
        .set((
            puzzle_ratings::rating.eq(me.rating),
            puzzle_ratings::deviation.eq(me.deviation),
            puzzle_ratings::volatility.eq(me.volatility),
            puzzle_ratings::attempts.eq(attempts + 1),
        ))
        .execute(conn)?;
    diesel::update(puzzles::table.find(puzzle.id))
        .set((
            puzzles::rating.eq(it.rating),
            puzzles::deviation.eq(it.deviation),
            puzzles::volatility.eq(it.volatility),
            puzzles::plays.eq(puzzles::plays + 1),
        ))
        .execute(conn)?;
    Ok(PuzzleRating {
        rating: me.rating.round() as i32,
        deviation: me.deviation.round() as i32,
        attempts: attempts + 1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Glickman's Glicko-2 steps 2–8 for one game, written out here apart
    /// from the crate that rates (τ = 0.5, as `Glicko2Config::new`).
    fn by_hand(me: Glicko2Rating, other: Glicko2Rating, score: f64) -> (f64, f64) {
        const SCALE: f64 = 173.7178;
        let tau = 0.5;
        let (mu, phi, sigma) = (
            (me.rating - 1500.0) / SCALE,
            me.deviation / SCALE,
            me.volatility,
        );
        let (mu_j, phi_j) = ((other.rating - 1500.0) / SCALE, other.deviation / SCALE);
        let g = 1.0 / (1.0 + 3.0 * phi_j * phi_j / std::f64::consts::PI.powi(2)).sqrt();
        let e = 1.0 / (1.0 + (-g * (mu - mu_j)).exp());
        let v = 1.0 / (g * g * e * (1.0 - e));
        let delta = v * g * (score - e);
        let a = (sigma * sigma).ln();
        let f = |x: f64| {
            let ex = x.exp();
            ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex).powi(2))
                - (x - a) / (tau * tau)
        };
        let mut big_a = a;
        let mut big_b = if delta * delta > phi * phi + v {
            (delta * delta - phi * phi - v).ln()
        } else {
            let mut k = 1.0;
            while f(a - k * tau) < 0.0 {
                k += 1.0;
            }
            a - k * tau
        };
        let (mut fa, mut fb) = (f(big_a), f(big_b));
        while (big_b - big_a).abs() > 1e-6 {
            let c = big_a + (big_a - big_b) * fa / (fb - fa);
            let fc = f(c);
            if fc * fb <= 0.0 {
                big_a = big_b;
                fa = fb;
            } else {
                fa /= 2.0;
            }
            big_b = c;
            fb = fc;
        }
        let sigma_new = (big_a / 2.0).exp();
        let phi_star = (phi * phi + sigma_new * sigma_new).sqrt();
        let phi_new = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
        let mu_new = mu + phi_new * phi_new * g * (score - e);
        (SCALE * mu_new + 1500.0, SCALE * phi_new)
    }

    /// A new solver (1500, RD 350) solves a new puzzle rated 1600 (RD 300):
    /// both move as Glicko-2 says (docs/puzzles.md, "Ratings"), worked out
    /// by hand.
    #[test]
    fn puzzle_ratings_move_as_glicko2_says() {
        let puzzle = Glicko2Rating {
            rating: 1600.0,
            deviation: 300.0,
            volatility: 0.06,
        };
        let (me, it) = settle(START, puzzle, true);
        let (r, rd) = by_hand(START, puzzle, 1.0);
        assert!(
            (me.rating - r).abs() < 0.01 && (me.deviation - rd).abs() < 0.01,
            "{me:?} against {r} {rd}"
        );
        let (r, rd) = by_hand(puzzle, START, 0.0);
        assert!(
            (it.rating - r).abs() < 0.01 && (it.deviation - rd).abs() < 0.01,
            "{it:?} against {r} {rd}"
        );
        assert!(me.rating > 1500.0 && it.rating < 1600.0);
        // And a miss moves them the other way.
        let (me, it) = settle(START, puzzle, false);
        assert!(me.rating < 1500.0 && it.rating > 1600.0);
    }
}
