//! My puzzles in one game (docs/puzzles.md, "Streaks"): my puzzle rating
//! and my daily streak, counted in real days whatever time zones I hop.

use super::day::{game, today, Solver};
use super::rating::{self, PuzzleRating};
use crate::closed::AttemptState;
use crate::error::Error;
use crate::schema::{puzzle_attempts, puzzles};
use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// My puzzles in one game: my rating and my daily streak.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct MyPuzzles {
    pub game: String,
    pub rating: PuzzleRating,
    /// Days in a row, ending today or yesterday (my day), on which I
    /// solved that day's daily puzzle of this game.
    pub streak: u32,
    /// Whether today's daily puzzle is solved.
    pub solved_today: bool,
}

/// `GET /v1/me/puzzles?game=`.
pub fn mine(
    conn: &mut PgConnection,
    me: Solver,
    game_id: &str,
    now: DateTime<Utc>,
) -> Result<MyPuzzles, Error> {
    let game = game(game_id)?;
    let today = today(conn, me.user, now)?;
    let days: Vec<(Option<NaiveDate>, Option<DateTime<Utc>>)> = puzzle_attempts::table
        .inner_join(puzzles::table)
        .filter(puzzle_attempts::user_id.eq(me.user))
        .filter(puzzles::game.eq(game.id()))
        .filter(puzzle_attempts::state.eq(AttemptState::Solved))
        .filter(puzzle_attempts::daily.is_not_null())
        .order(puzzle_attempts::daily.desc())
        .select((puzzle_attempts::daily, puzzle_attempts::day_began))
        .load(conn)?;
    let days: Vec<(NaiveDate, Option<DateTime<Utc>>)> = days
        .into_iter()
        .filter_map(|(day, began)| Some((day?, began)))
        .collect();
    Ok(MyPuzzles {
        game: game.id().to_owned(),
        rating: rating::of(conn, me.user, game.id())?,
        streak: streak(&days, today),
        solved_today: days.first().map(|(d, _)| d) == Some(&today),
    })
}

/// Consecutive days in `solved` (newest first, each with the instant its
/// local day began) ending `today`, or yesterday while today's is still to
/// do.
///
/// A real day counts once, whatever the time zone changes between
/// (docs/decisions/accounts-and-sessions.md, "The security review's
/// findings"): a day counts only when it began at least 23 hours (a
/// daylight-saving day's length) before the last day counted after it.
/// Switching zones can put two dates in one real day (Honolulu's 5th and
/// Kiritimati's 6th begin at the same instant): the streak goes on across
/// them but grows by one. A day recorded before this rule (no instant)
/// counts.
pub fn streak(solved: &[(NaiveDate, Option<DateTime<Utc>>)], today: NaiveDate) -> u32 {
    let mut expect = match solved.first() {
        Some((d, _)) if *d == today => today,
        Some((d, _)) if Some(*d) == today.pred_opt() => *d,
        _ => return 0,
    };
    let mut n = 0;
    let mut counted: Option<DateTime<Utc>> = None;
    for (day, began) in solved {
        if *day == expect {
            let apart = match (counted, began) {
                (Some(later), Some(began)) => later - *began >= chrono::Duration::hours(23),
                _ => true,
            };
            if apart {
                n += 1;
                counted = *began;
            }
            expect = match expect.pred_opt() {
                Some(d) => d,
                None => break,
            };
        } else if *day < expect {
            break;
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(day: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 12, day).unwrap()
    }

    /// Days with no recorded start, as older attempts have.
    fn plain(days: &[NaiveDate]) -> Vec<(NaiveDate, Option<DateTime<Utc>>)> {
        days.iter().map(|d| (*d, None)).collect()
    }

    #[test]
    fn a_streak_counts_days_in_a_row_to_today_or_yesterday() {
        assert_eq!(streak(&plain(&[d(5), d(4), d(3), d(1)]), d(5)), 3);
        assert_eq!(
            streak(&plain(&[d(4), d(3)]), d(5)),
            2,
            "today's still to do"
        );
        assert_eq!(streak(&plain(&[d(3), d(2)]), d(5)), 0, "a day missed");
        assert_eq!(streak(&[], d(5)), 0);
        assert_eq!(
            streak(
                &plain(&[d(31)]),
                NaiveDate::from_ymd_opt(2027, 1, 1).unwrap()
            ),
            1,
            "across a month and year"
        );
    }

    #[test]
    fn a_real_day_counts_once_whatever_the_zone_changes_issue_65_item_11() {
        let at = |day: u32, hour: u32| {
            chrono::NaiveDate::from_ymd_opt(2026, 12, day)
                .unwrap()
                .and_hms_opt(hour, 0, 0)
                .unwrap()
                .and_utc()
        };
        // Honolulu's 5th and Kiritimati's 6th both begin at 10:00 UTC on
        // the 5th; the -12 zone's 4th began 22 hours before.
        let hopped = [
            (d(6), Some(at(5, 10))),
            (d(5), Some(at(5, 10))),
            (d(4), Some(at(4, 12))),
        ];
        assert_eq!(streak(&hopped, d(6)), 1);
        // A day later, from Kiritimati: two real days, two.
        let next = [(d(7), Some(at(6, 10)))];
        assert_eq!(streak(&[&next[..], &hopped[..]].concat(), d(7)), 2);
        // One zone through a daylight-saving day (23 hours): every day.
        let shifting = [
            (d(4), Some(at(3, 15))),
            (d(3), Some(at(2, 16))),
            (d(2), Some(at(1, 16))),
        ];
        assert_eq!(streak(&shifting, d(4)), 3);
        // Seoul to Vancouver: a day of 41 hours counts, as it should.
        let flown = [(d(3), Some(at(3, 8))), (d(2), Some(at(1, 15)))];
        assert_eq!(streak(&flown, d(3)), 2);
    }
}
