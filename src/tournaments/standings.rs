//! The standings of a round robin (docs/tournaments.md), derived from
//! the finished games every time they are read: nothing is counted on the
//! side, so nothing can drift from the matches.
//!
//! A win is 1 point, a draw ½, a loss 0 (an abandonment and a withdrawal's
//! forfeit are losses: they reach here as the match's result). Ties are
//! broken, in order, by
//! 1. Sonneborn–Berger: the points of each opponent beaten plus half the
//!    points of each opponent drawn (game by game, so a double round
//!    robin counts both games);
//! 2. the result between the tied players: their points in the games
//!    among themselves alone;
//! 3. the number of wins.
//!
//! Players still equal after all three share the place (listed by name).

use serde::Serialize;
use std::collections::HashMap;
use utoipa::ToSchema;
use uuid::Uuid;

/// A game's result for one player, from the score `first_scored` gives
/// (1, ½, 0): the one reading of a score as a win, draw or loss, for the
/// standings, the crosstable and the bracket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Won,
    Drew,
    Lost,
}

impl Verdict {
    pub fn of(scored: f64) -> Verdict {
        if scored > 0.75 {
            Verdict::Won
        } else if scored > 0.25 {
            Verdict::Drew
        } else {
            Verdict::Lost
        }
    }
}

/// One game between two players, as the standings read it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Game {
    pub first: Uuid,
    pub second: Uuid,
    /// The first player's score (1, ½ or 0) once the game is over.
    pub first_scored: Option<f64>,
}

/// One line of the table.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct Line {
    /// 1 for the leader; tied players share a place.
    pub place: u32,
    pub user: Uuid,
    pub points: f64,
    /// Sonneborn–Berger.
    pub sb: f64,
    /// Points in the games among the players tied with this one on
    /// points and SB (0 when nobody is).
    pub between_tied: f64,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    /// Games still to finish.
    pub unfinished: u32,
}

/// The table: `players` in a stable order (their seeds), `games` every
/// game of the tournament, finished or not.
pub fn table(players: &[(Uuid, String)], games: &[Game]) -> Vec<Line> {
    let mut lines: HashMap<Uuid, Line> = players
        .iter()
        .map(|(user, _)| (*user, blank(*user)))
        .collect();
    for game in games {
        let Some(first) = game.first_scored else {
            for user in [game.first, game.second] {
                if let Some(line) = lines.get_mut(&user) {
                    line.unfinished += 1;
                }
            }
            continue;
        };
        for (user, scored) in [(game.first, first), (game.second, 1.0 - first)] {
            let Some(line) = lines.get_mut(&user) else {
                continue;
            };
            line.points += scored;
            match Verdict::of(scored) {
                Verdict::Won => line.wins += 1,
                Verdict::Drew => line.draws += 1,
                Verdict::Lost => line.losses += 1,
            }
        }
    }
    let points: HashMap<Uuid, f64> = lines.iter().map(|(u, l)| (*u, l.points)).collect();
    for game in games {
        let Some(first) = game.first_scored else {
            continue;
        };
        for (user, opponent, scored) in [
            (game.first, game.second, first),
            (game.second, game.first, 1.0 - first),
        ] {
            if let (Some(line), Some(theirs)) = (lines.get_mut(&user), points.get(&opponent)) {
                line.sb += scored * theirs;
            }
        }
    }
    let names: HashMap<Uuid, &str> = players.iter().map(|(u, n)| (*u, n.as_str())).collect();
    let mut ordered: Vec<Line> = players.iter().map(|(u, _)| lines[u].clone()).collect();
    // The games among the players tied on points and SB.
    let key = |l: &Line| (l.points, l.sb);
    for line in ordered.iter_mut() {
        let tied: Vec<Uuid> = (lines.values())
            .filter(|o| o.user != line.user && key(o) == key(line))
            .map(|o| o.user)
            .collect();
        if tied.is_empty() {
            continue;
        }
        line.between_tied = between(line.user, &tied, games);
    }
    let rank = |l: &Line| (l.points, l.sb, l.between_tied, l.wins as f64);
    ordered.sort_by(|a, b| {
        rank(b)
            .partial_cmp(&rank(a))
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| names[&a.user].cmp(names[&b.user]))
    });
    let mut place = 0;
    for i in 0..ordered.len() {
        if i == 0 || rank(&ordered[i]) != rank(&ordered[i - 1]) {
            place = i as u32 + 1;
        }
        ordered[i].place = place;
    }
    ordered
}

fn blank(user: Uuid) -> Line {
    Line {
        place: 0,
        user,
        points: 0.0,
        sb: 0.0,
        between_tied: 0.0,
        wins: 0,
        draws: 0,
        losses: 0,
        unfinished: 0,
    }
}

/// `user`'s points in the finished games against `tied`.
fn between(user: Uuid, tied: &[Uuid], games: &[Game]) -> f64 {
    games
        .iter()
        .filter_map(|g| {
            let first = g.first_scored?;
            if g.first == user && tied.contains(&g.second) {
                Some(first)
            } else if g.second == user && tied.contains(&g.first) {
                Some(1.0 - first)
            } else {
                None
            }
        })
        .sum()
}

/// The rounds of a round robin by the circle method (Berger tables):
/// every pair meets once, each player plays at most once a round, and
/// sides alternate as evenly as the method allows. Each pairing is
/// `(first, second)`, `first` moving first; with an odd number the player
/// paired with the empty place sits the round out. A double round robin
/// repeats the rounds with sides swapped.
pub fn rounds<T: Copy>(players: &[T], double: bool) -> Vec<Vec<(T, T)>> {
    let mut ring: Vec<Option<T>> = players.iter().copied().map(Some).collect();
    if ring.len() % 2 == 1 {
        ring.push(None);
    }
    let n = ring.len();
    let mut rounds = Vec::new();
    for round in 0..n.saturating_sub(1) {
        let mut pairs = Vec::new();
        for i in 0..n / 2 {
            let (a, b) = (ring[i], ring[n - 1 - i]);
            let (Some(a), Some(b)) = (a, b) else { continue };
            // The fixed player alternates sides by round; the others by board.
            let swap = if i == 0 { round % 2 == 1 } else { i % 2 == 1 };
            pairs.push(if swap { (b, a) } else { (a, b) });
        }
        rounds.push(pairs);
        // Keep the first in place, turn the rest one step.
        let last = ring.pop().expect("at least two places");
        ring.insert(1, last);
    }
    if double {
        let swapped: Vec<Vec<(T, T)>> = (rounds.iter())
            .map(|r| r.iter().map(|(a, b)| (*b, *a)).collect())
            .collect();
        rounds.extend(swapped);
    }
    rounds
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn ids(n: u128) -> Vec<(Uuid, String)> {
        (1..=n)
            .map(|i| (Uuid::from_u128(i), format!("p{i}")))
            .collect()
    }

    fn game(a: u128, b: u128, first: Option<f64>) -> Game {
        Game {
            first: Uuid::from_u128(a),
            second: Uuid::from_u128(b),
            first_scored: first,
        }
    }

    #[test]
    fn every_pair_meets_once_and_nobody_plays_twice_a_round() {
        for n in 3..=16usize {
            let players: Vec<usize> = (0..n).collect();
            let rounds = rounds(&players, false);
            let mut met = HashSet::new();
            for round in &rounds {
                let mut busy = HashSet::new();
                for (a, b) in round {
                    assert!(busy.insert(*a) && busy.insert(*b), "{n}: twice in a round");
                    assert!(met.insert((*a.min(b), *a.max(b))), "{n}: a pair met twice");
                }
            }
            assert_eq!(met.len(), n * (n - 1) / 2, "{n}: every pair");
            let double = super::rounds(&players, true);
            let games: Vec<(usize, usize)> = double.iter().flatten().copied().collect();
            assert_eq!(games.len(), n * (n - 1));
            for (a, b) in &games {
                assert!(
                    games.contains(&(*b, *a)),
                    "{n}: each pairing with sides swapped"
                );
            }
        }
    }

    #[test]
    fn sides_are_shared_out_evenly() {
        let players: Vec<usize> = (0..6).collect();
        let mut firsts = [0; 6];
        for (a, _) in rounds(&players, false).iter().flatten() {
            firsts[*a] += 1;
        }
        assert!(firsts.iter().all(|f| (2..=3).contains(f)), "{firsts:?}");
    }

    #[test]
    fn points_first_then_sonneborn_berger() {
        // p1 beats p2 and p3; p2 beats p3; p3 draws p4; p4 loses the rest.
        let games = [
            game(1, 2, Some(1.0)),
            game(1, 3, Some(1.0)),
            game(1, 4, Some(1.0)),
            game(2, 3, Some(1.0)),
            game(2, 4, Some(0.0)),
            game(3, 4, Some(0.5)),
        ];
        let lines = table(&ids(4), &games);
        let order: Vec<u128> = lines.iter().map(|l| l.user.as_u128()).collect();
        // p1 3; p2 1 and p4 1.5; p3 0.5.
        assert_eq!(order, [1, 4, 2, 3]);
        assert_eq!(lines[0].sb, 1.0 + 0.5 + 1.5, "beaten: p2 1, p3 0.5, p4 1.5");
        assert_eq!(
            lines.iter().map(|l| l.place).collect::<Vec<_>>(),
            [1, 2, 3, 4]
        );
        // A tie on points that SB breaks: p2 and p3 have 2 each; p2 beat
        // p3 (2) and p4 (0.5) = 2.5, p3 beat p1 (1.5) and p4 = 2.0.
        let games = [
            game(1, 2, Some(1.0)),
            game(1, 3, Some(0.0)),
            game(1, 4, Some(0.5)),
            game(2, 3, Some(1.0)),
            game(2, 4, Some(1.0)),
            game(3, 4, Some(1.0)),
        ];
        let lines = table(&ids(4), &games);
        let order: Vec<(u128, f64, f64)> = (lines.iter())
            .map(|l| (l.user.as_u128(), l.points, l.sb))
            .collect();
        assert_eq!(
            order,
            [(2, 2.0, 2.5), (3, 2.0, 2.0), (1, 1.5, 2.25), (4, 0.5, 0.75)]
        );
        assert_eq!(lines[1].between_tied, 0.0, "not tied once SB differs");
    }

    #[test]
    fn the_result_between_players_tied_on_points_and_sb_decides() {
        // p1 and p2: 1.5 points and SB 1.75 each; p1 beat p2.
        let games = [
            game(1, 2, Some(1.0)),
            game(1, 3, Some(0.5)),
            game(1, 4, Some(0.0)),
            game(2, 3, Some(1.0)),
            game(2, 4, Some(0.5)),
            game(3, 4, Some(0.0)),
        ];
        let lines = table(&ids(4), &games);
        let order: Vec<u128> = lines.iter().map(|l| l.user.as_u128()).collect();
        assert_eq!(order, [4, 1, 2, 3]);
        assert_eq!((lines[1].points, lines[1].sb), (1.5, 1.75));
        assert_eq!((lines[2].points, lines[2].sb), (1.5, 1.75));
        assert_eq!((lines[1].between_tied, lines[2].between_tied), (1.0, 0.0));
        assert_eq!(
            lines.iter().map(|l| l.place).collect::<Vec<_>>(),
            [1, 2, 3, 4]
        );
    }

    #[test]
    fn wins_decide_after_that_and_players_still_equal_share_the_place() {
        // Everyone 1.5 points and SB 2.25, and the games among them are all
        // the games: p1, p2 and p3 won one each, p4 none.
        let games = [
            game(1, 2, Some(0.0)),
            game(1, 3, Some(1.0)),
            game(1, 4, Some(0.5)),
            game(2, 3, Some(0.0)),
            game(2, 4, Some(0.5)),
            game(3, 4, Some(0.5)),
        ];
        let lines = table(&ids(4), &games);
        assert!(
            lines.iter().all(|l| l.points == 1.5 && l.sb == 2.25),
            "{lines:?}"
        );
        let places: Vec<(u128, u32)> = lines.iter().map(|l| (l.user.as_u128(), l.place)).collect();
        assert_eq!(places, [(1, 1), (2, 1), (3, 1), (4, 4)]);
    }

    #[test]
    fn an_unfinished_game_scores_nothing_yet() {
        let lines = table(&ids(2), &[game(1, 2, None)]);
        assert!(lines.iter().all(|l| l.points == 0.0 && l.unfinished == 1));
    }
}
