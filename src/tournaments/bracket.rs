//! A knockout's bracket (docs/tournaments.md), derived
//! from the seeds and the games played: which games are due now, who
//! advanced, and the champion. Pure; the jobs write what it says is due.
//!
//! * Seeds 1..n go into a bracket of the next power of two in the usual
//!   order (1 meets n in the first round, 1 and 2 can meet only in the
//!   final); the missing places are byes, so the top seeds have them.
//! * In game 0 of a pairing the higher seed moves first. A drawn game is
//!   replayed with sides swapped (games 1 and 2); a third draw sends the
//!   higher seed through.
//! * A pairing starts as soon as both its players are known (after byes,
//!   a second-round pairing may start with the first round).
//! * A player who withdrew loses their game (it is resigned), and their
//!   opponent in any pairing not yet decided (none played, or only draws)
//!   goes through by walkover: no later game includes them.

use super::standings::Verdict;
use serde::Serialize;
use std::collections::HashSet;
use utoipa::ToSchema;
use uuid::Uuid;

/// Games a drawn pairing may take in all.
pub const MAX_GAMES: u32 = 3;

/// One game of the knockout, as stored.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Played {
    pub round: u32,
    pub slot: u32,
    pub game_no: u32,
    pub first: Uuid,
    pub second: Uuid,
    /// The first player's score once the game is over.
    pub first_scored: Option<f64>,
}

/// A game to start now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Due {
    pub round: u32,
    pub slot: u32,
    pub game_no: u32,
    pub first: Uuid,
    pub second: Uuid,
}

/// One pairing of the bracket, as the view shows it.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct Pairing {
    pub round: u32,
    pub slot: u32,
    /// The higher seed's side of the pairing; none while unknown or a bye.
    pub high: Option<Uuid>,
    pub low: Option<Uuid>,
    /// Who went through, once decided.
    pub winner: Option<Uuid>,
    /// `played`, `bye`, `walkover` (the other withdrew), `seed` (three
    /// draws: the higher seed through), or none while undecided.
    pub decided_by: Option<String>,
}

/// The bracket now: every pairing known so far, what is due, the champion.
#[derive(Clone, Debug, PartialEq)]
pub struct Bracket {
    pub rounds: Vec<Vec<Pairing>>,
    pub due: Vec<Due>,
    pub champion: Option<Uuid>,
}

/// The seed (1-based) of each place of a bracket of `size` (a power of
/// two): `[1, 8, 4, 5, 2, 7, 3, 6]` for 8.
pub fn places(size: usize) -> Vec<usize> {
    let mut order = vec![1];
    while order.len() < size {
        let n = order.len() * 2;
        order = order.iter().flat_map(|s| [*s, n + 1 - s]).collect();
    }
    order
}

/// A place in the bracket: a player, a bye, or not known yet (the
/// pairing that fills it is undecided).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Place {
    Player(Uuid),
    Bye,
    Pending,
}

impl Place {
    fn player(self) -> Option<Uuid> {
        match self {
            Place::Player(u) => Some(u),
            _ => None,
        }
    }
}

/// The bracket of `seeds` (best first) after `played`, with `withdrawn`
/// players out.
pub fn derive(seeds: &[Uuid], played: &[Played], withdrawn: &HashSet<Uuid>) -> Bracket {
    let size = seeds.len().next_power_of_two().max(2);
    let seed_of = |u: Uuid| seeds.iter().position(|s| *s == u).unwrap_or(usize::MAX);
    let mut places: Vec<Place> = places(size)
        .into_iter()
        .map(|s| seeds.get(s - 1).map_or(Place::Bye, |u| Place::Player(*u)))
        .collect();
    let mut bracket = Bracket {
        rounds: Vec::new(),
        due: Vec::new(),
        champion: None,
    };
    let mut round = 1;
    while places.len() > 1 {
        let mut pairings = Vec::new();
        let mut next = Vec::new();
        for (slot, pair) in places.chunks(2).enumerate() {
            let slot = slot as u32;
            let (mut high, mut low) = (pair[0], pair[1]);
            if let (Place::Player(a), Place::Player(b)) = (high, low) {
                if seed_of(b) < seed_of(a) {
                    (high, low) = (low, high);
                }
            }
            let games: Vec<&Played> = (played.iter())
                .filter(|p| p.round == round && p.slot == slot)
                .collect();
            let (through, decided_by, due) = decide(round, slot, high, low, &games, withdrawn);
            bracket.due.extend(due);
            pairings.push(Pairing {
                round,
                slot,
                high: high.player(),
                low: low.player(),
                winner: through.player(),
                decided_by: decided_by.map(str::to_owned),
            });
            next.push(through);
        }
        bracket.rounds.push(pairings);
        places = next;
        round += 1;
    }
    bracket.champion = places[0].player();
    bracket
}

/// One pairing: who goes through (and how), and the game due if any.
fn decide(
    round: u32,
    slot: u32,
    high: Place,
    low: Place,
    games: &[&Played],
    withdrawn: &HashSet<Uuid>,
) -> (Place, Option<&'static str>, Option<Due>) {
    let (a, b) = match (high, low) {
        (Place::Player(a), Place::Player(b)) => (a, b),
        // A player against a bye goes through; two byes make one.
        (Place::Player(a), Place::Bye) | (Place::Bye, Place::Player(a)) => {
            return (Place::Player(a), Some("bye"), None)
        }
        (Place::Bye, Place::Bye) => return (Place::Bye, None, None),
        // An undecided pairing before this one: wait for it.
        _ => return (Place::Pending, None, None),
    };
    let mut games: Vec<&&Played> = games.iter().collect();
    games.sort_by_key(|g| g.game_no);
    for g in &games {
        match g.first_scored {
            None => return (Place::Pending, None, None),
            Some(s) => match Verdict::of(s) {
                Verdict::Won => return (Place::Player(g.first), Some("played"), None),
                Verdict::Lost => return (Place::Player(g.second), Some("played"), None),
                Verdict::Drew => {}
            },
        }
    }
    // Nothing decided yet (no game, or only draws): a withdrawn player
    // gives a walkover rather than another game.
    match (withdrawn.contains(&a), withdrawn.contains(&b)) {
        (true, false) => return (Place::Player(b), Some("walkover"), None),
        (false, true) | (true, true) => return (Place::Player(a), Some("walkover"), None),
        _ => {}
    }
    let n = games.len() as u32;
    if n >= MAX_GAMES {
        return (Place::Player(a), Some("seed"), None);
    }
    // Game 0: the higher seed first; each replay swaps the sides.
    let (first, second) = match games.last() {
        None => (a, b),
        Some(last) => (last.second, last.first),
    };
    let due = Due {
        round,
        slot,
        game_no: n,
        first,
        second,
    };
    (Place::Pending, None, Some(due))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seeds(n: u128) -> Vec<Uuid> {
        (1..=n).map(Uuid::from_u128).collect()
    }

    fn won(due: &Due, first_scored: f64) -> Played {
        Played {
            round: due.round,
            slot: due.slot,
            game_no: due.game_no,
            first: due.first,
            second: due.second,
            first_scored: Some(first_scored),
        }
    }

    #[test]
    fn seeds_are_placed_so_the_top_two_meet_only_in_the_final() {
        assert_eq!(places(8), [1, 8, 4, 5, 2, 7, 3, 6]);
        assert_eq!(places(4), [1, 4, 2, 3]);
        assert_eq!(places(2), [1, 2]);
    }

    #[test]
    fn a_whole_knockout_of_eight_the_higher_seed_winning() {
        let seeds = seeds(8);
        let none = HashSet::new();
        let mut played = Vec::new();
        for round in 1..=3u32 {
            let bracket = derive(&seeds, &played, &none);
            assert_eq!(bracket.champion, None);
            assert_eq!(bracket.due.len(), 8 >> round, "round {round}");
            for due in &bracket.due {
                assert_eq!(due.round, round);
                // The higher seed (the smaller id here) moves first and wins.
                assert!(due.first.as_u128() < due.second.as_u128());
                played.push(won(due, 1.0));
            }
        }
        let bracket = derive(&seeds, &played, &none);
        assert_eq!(bracket.champion, Some(Uuid::from_u128(1)));
        assert!(bracket.due.is_empty());
        assert_eq!(bracket.rounds.len(), 3);
    }

    #[test]
    fn a_draw_is_replayed_with_sides_swapped_then_the_higher_seed_goes_through() {
        let seeds = seeds(2);
        let none = HashSet::new();
        let mut played = Vec::new();
        for game_no in 0..MAX_GAMES {
            let bracket = derive(&seeds, &played, &none);
            let due = bracket.due[0];
            assert_eq!(due.game_no, game_no);
            let high_first = due.first == seeds[0];
            assert_eq!(high_first, game_no % 2 == 0, "sides swap each replay");
            played.push(won(&due, 0.5));
        }
        let bracket = derive(&seeds, &played, &none);
        assert!(bracket.due.is_empty());
        assert_eq!(bracket.champion, Some(seeds[0]));
        assert_eq!(bracket.rounds[0][0].decided_by.as_deref(), Some("seed"));
        // A replay won by the lower seed sends them through.
        let mut played = vec![won(&derive(&seeds, &[], &none).due[0], 0.5)];
        let replay = derive(&seeds, &played, &none).due[0];
        played.push(won(&replay, 1.0));
        assert_eq!(derive(&seeds, &played, &none).champion, Some(seeds[1]));
    }

    #[test]
    fn byes_go_to_the_top_seeds_and_a_withdrawn_player_gives_a_walkover() {
        let seeds = seeds(5);
        let none = HashSet::new();
        let bracket = derive(&seeds, &[], &none);
        // 8 places, 5 players: seeds 1, 2, 3 have byes; 4 meets 5, and
        // 2 meets 3 in the second round at once (both are known).
        let due: Vec<(u32, Uuid, Uuid)> = bracket
            .due
            .iter()
            .map(|d| (d.round, d.first, d.second))
            .collect();
        assert_eq!(due, [(1, seeds[3], seeds[4]), (2, seeds[1], seeds[2])]);
        let byes: Vec<Uuid> = (bracket.rounds[0].iter())
            .filter(|p| p.decided_by.as_deref() == Some("bye"))
            .filter_map(|p| p.winner)
            .collect();
        assert_eq!(byes, [seeds[0], seeds[1], seeds[2]]);
        // Seed 4 wins; seed 1 withdraws before their second-round game.
        let played = vec![won(&bracket.due[0], 1.0)];
        let gone: HashSet<Uuid> = [seeds[0]].into();
        let bracket = derive(&seeds, &played, &gone);
        let walkover = &bracket.rounds[1][0];
        assert_eq!(
            (walkover.winner, walkover.decided_by.as_deref()),
            (Some(seeds[3]), Some("walkover"))
        );
        assert_eq!(bracket.due.len(), 1, "2 against 3 is due");
        // A withdrawal after a drawn game: a walkover, not a replay.
        let two = &seeds[..2];
        let drawn = derive(two, &[], &none).due[0];
        let played = vec![won(&drawn, 0.5)];
        let gone: HashSet<Uuid> = [seeds[1]].into();
        let bracket = derive(two, &played, &gone);
        assert!(bracket.due.is_empty(), "no replay with a player who left");
        assert_eq!(bracket.champion, Some(seeds[0]));
        assert_eq!(bracket.rounds[0][0].decided_by.as_deref(), Some("walkover"));
    }
}

#[cfg(test)]
mod scenario {
    use super::*;

    #[test]
    fn three_draws_and_a_replay_then_the_second_round() {
        let seeds: Vec<Uuid> = (1..=8).map(Uuid::from_u128).collect();
        let none = HashSet::new();
        let mut played: Vec<Played> = Vec::new();
        let plans: [&[f64]; 4] = [&[0.5, 0.5, 0.5], &[0.5, 1.0], &[1.0], &[0.0]];
        for game_no in 0..3u32 {
            let bracket = derive(&seeds, &played, &none);
            assert_eq!(bracket.champion, None);
            let due = bracket.due;
            for d in due.iter().filter(|d| d.round == 1 && d.game_no == game_no) {
                let s = plans[d.slot as usize][game_no as usize];
                played.push(Played {
                    round: 1,
                    slot: d.slot,
                    game_no,
                    first: d.first,
                    second: d.second,
                    first_scored: Some(s),
                });
            }
        }
        let b = derive(&seeds, &played, &none);
        let due: Vec<(u32, u32)> = b.due.iter().map(|d| (d.round, d.slot)).collect();
        assert_eq!(due, [(2, 0), (2, 1)], "{:?}", b.rounds);
        assert_eq!(b.champion, None, "nobody wins while the final is unknown");
    }
}
