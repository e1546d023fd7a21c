//! `cargo run --release -p posthorn-rules --example duel -- <game> <level-a> <level-b> <games> [<level> …]`
//!
//! Plays `<games>` matches between computer opponents through the real
//! game contract (`MatchState` setup, act, legal_actions, outcome) and
//! prints the score: a win is 1 to each winner, a draw shared by the
//! players still in (½ each at two seats and in teams; an ffa player
//! already out has no part in it).
//! Levels are `easy`, `normal`, `hard`, `puzzle` (hard as it was before
//! the stronger search, which the puzzles pin), or `random` (a uniformly random
//! legal action, never a resignation nor a draw offer; it declines
//! offers). Each seat's action is chosen by `engine::decide` from that
//! seat's own view only.
//!
//! Every match opens with a few uniformly random plies (seeded by the
//! match number) so the matches differ, and the sides alternate: in match
//! `k` the levels are handed to the game's sides rotated by `k`. With two
//! levels and four seats (four-player chess) the seats take them in turn,
//! `a b a b` (teams: partners share a level); give one level per seat
//! instead (`duel four_player_chess/ffa easy normal 20 hard random`) for
//! a free-for-all, where the levels are also seated in every order round
//! the table in turn (every 24 matches at four seats, each level has had
//! each neighbour on each hand). Games as for `moves` (`checkers/<variant>`,
//! `four_player_chess/<mode>`).
//!
//! At more than two seats it also prints the placements (the game's own,
//! `MatchState::placements`: in an ffa the winner, then who lasted
//! longest; players still in at a draw tie): how often one level placed
//! above another, a tie counting ½. With two levels, over every pair of
//! an `a` seat and a `b` seat; with one level per seat, for neighbouring
//! slots. Each match's placements by slot go to standard error.

use posthorn_rules::engine::{decide, fallback, Level};
use posthorn_rules::{Env, GameId, MatchState, OutcomeKind, Random, Seat, SplitMix64, Viewer};
use serde_json::Value;
use std::process::ExitCode;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Player {
    Engine(Level),
    Random,
}

impl Player {
    fn parse(text: &str) -> Option<Player> {
        match text {
            "random" => Some(Player::Random),
            // The puzzles' pinned level is hard as it was before the
            // stronger search (docs/bots.md): the "before" of a duel.
            "puzzle" => Some(Player::Engine(Level::Puzzle)),
            other => Level::parse(other).map(Player::Engine),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Player::Engine(level) => level.id(),
            Player::Random => "random",
        }
    }
}

/// A uniformly random move (a declined offer when one is owed).
fn random_action(state: &MatchState, seat: Seat, random: &mut dyn Random) -> Option<Value> {
    fallback(&state.legal_actions(seat), random)
}

/// How one match ended, per side.
struct Played {
    /// 1 for each winner; a draw shared by the players still in.
    points: Vec<f64>,
    /// The game's placements (1 = first; equal places tie): in a
    /// four-player ffa the winner, then who lasted longest.
    places: Vec<usize>,
    reason: String,
}

/// One match, played to its end.
fn play(
    game: GameId,
    config: &Value,
    players: &[Player],
    opening_plies: u32,
    seed: u64,
) -> Result<Played, String> {
    let seats = players.len();
    let mut random = SplitMix64::new(seed);
    let events = MatchState::setup(game, config, seats, &mut random).map_err(|e| e.message)?;
    let mut state = MatchState::replay(game, &events).map_err(|e| e.message)?;
    // The levels go to the sides, whichever seat drew which side.
    let player_of = |state: &MatchState, seat: Seat| players[state.side(seat) % seats];
    let cap = 10_000u32;
    for plies in 0..cap {
        let duties = state.to_act();
        let Some(duty) = duties.first() else { break };
        let seat = duty.seat;
        let action = if plies < opening_plies {
            random_action(&state, seat, &mut random)
        } else {
            match player_of(&state, seat) {
                Player::Random => random_action(&state, seat, &mut random),
                Player::Engine(level) => {
                    let view = state.view(Viewer::Seat(seat));
                    Some(
                        decide(game, &view, seat, level, &mut random)
                            .map_err(|e| format!("{}: {}", e.code, e.message))?,
                    )
                }
            }
        };
        let action = action.ok_or("a seat owes an action but has none")?;
        let mut env = Env {
            now: 0,
            random: &mut random,
        };
        let new = state
            .act(seat, &action, &mut env)
            .map_err(|e| format!("{action} refused: {}", e.message))?;
        for event in &new {
            state.apply(event).map_err(|e| e.message)?;
        }
    }
    let outcome = state.outcome().ok_or("the match did not end")?;
    let seat_places = state.placements(seats);
    let mut points = vec![0.0; seats];
    match outcome.outcome {
        // A draw shares what a win would give (a point to each seat of
        // the winning side) among those it is between: the players still
        // in (placed first), not those already out of an ffa. Half each
        // at two seats and in teams.
        OutcomeKind::Draw => {
            let mut teams = state.teams(seats);
            teams.sort_unstable();
            teams.dedup();
            let win = (seats / teams.len().max(1)) as f64;
            let drawn = seat_places.iter().filter(|p| **p == 1).count().max(1);
            for (point, place) in points.iter_mut().zip(&seat_places) {
                if *place == 1 {
                    *point = win / drawn as f64;
                }
            }
        }
        _ if !outcome.winners.is_empty() => {
            for w in &outcome.winners {
                points[w.index()] = 1.0;
            }
        }
        _ => {}
    }
    // Seat points and places to side points and places.
    let mut by_side = vec![0.0; seats];
    let mut places = vec![0; seats];
    for (seat, p) in points.iter().enumerate() {
        let side = state.side(Seat(seat as u8)) % seats;
        by_side[side] += p;
        places[side] = seat_places[seat];
    }
    Ok(Played {
        points: by_side,
        places,
        reason: outcome.reason,
    })
}

/// The `n`-th order of the slots round a table of `seats` (slot 0 first,
/// the others in each of their orders in turn, cyclically).
fn seating(seats: usize, n: usize) -> Vec<usize> {
    let mut rest: Vec<usize> = (1..seats).collect();
    let orders: usize = (1..seats).product();
    let mut code = n % orders.max(1);
    let mut order = vec![0];
    while !rest.is_empty() {
        let ways: usize = (1..rest.len()).product();
        order.push(rest.remove(code / ways));
        code %= ways;
    }
    order
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 4 {
        eprintln!("usage: duel <game> <level-a> <level-b> <games> [<level> …]; levels: easy, normal, hard, random");
        return ExitCode::from(2);
    }
    let Some((game, config)) = GameId::named(&args[0]) else {
        eprintln!("unknown game {:?}", args[0]);
        return ExitCode::from(2);
    };
    let mut levels: Vec<Player> = Vec::new();
    for text in args[1..3].iter().chain(args.iter().skip(4)) {
        match Player::parse(text) {
            Some(p) => levels.push(p),
            None => {
                eprintln!("unknown level {text:?}: easy, normal, hard or random");
                return ExitCode::from(2);
            }
        }
    }
    let Ok(games) = args[3].parse::<u64>() else {
        eprintln!("the number of games is a number, not {:?}", args[3]);
        return ExitCode::from(2);
    };
    // As many seats as levels given where the game seats that many (a
    // four-player ffa of four levels), else the most it seats, the levels
    // taking them in turn: four-player chess is then played by four
    // players, as a table of people would (at two seats an ffa player
    // would run two armies, and outlive the first one's mate).
    let seats = match MatchState::seat_range(game, &config) {
        Ok(range) if range.contains(&levels.len()) && levels.len() > 2 => levels.len(),
        Ok(range) => *range.end(),
        Err(e) => {
            eprintln!("{}", e.message);
            return ExitCode::from(2);
        }
    };
    // The levels, one per slot; with two levels for more seats, they
    // alternate round the table.
    let slots: Vec<Player> = if levels.len() == seats {
        levels.clone()
    } else {
        (0..seats).map(|i| levels[i % levels.len()]).collect()
    };
    let mut totals = vec![0.0; seats];
    // above[i][j]: matches slot i placed above slot j (a tie counts ½).
    let mut above = vec![vec![0.0; seats]; seats];
    let mut reasons: std::collections::BTreeMap<String, u32> = Default::default();
    // `DUEL_FROM=n` starts at match n: more matches, none repeated.
    let from: u64 = std::env::var("DUEL_FROM")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    for k in from..from + games {
        let shift = (k as usize) % seats;
        // slot_of[side] = the slot sitting on that side this match: the
        // table turned by one each match and, with one level per seat,
        // seated in every order round it in turn (neighbours fight most
        // in four-player chess: turning alone would keep the same
        // neighbours for good).
        let order = if levels.len() == seats {
            seating(seats, k as usize / seats)
        } else {
            (0..seats).collect()
        };
        let slot_of: Vec<usize> = (0..seats)
            .map(|side| order[(side + seats - shift) % seats])
            .collect();
        let players: Vec<Player> = slot_of.iter().map(|slot| slots[*slot]).collect();
        let opening = 2 + (k % 3) as u32;
        match play(game, &config, &players, opening, 1000 + k) {
            Ok(Played {
                points,
                places,
                reason,
            }) => {
                let mut placed = vec![0; seats];
                for (side, slot) in slot_of.iter().enumerate() {
                    totals[*slot] += points[side];
                    placed[*slot] = places[side];
                }
                for (a, pa) in placed.iter().enumerate() {
                    for (b, pb) in placed.iter().enumerate() {
                        above[a][b] += match pa.cmp(pb) {
                            std::cmp::Ordering::Less => 1.0,
                            std::cmp::Ordering::Equal if a != b => 0.5,
                            _ => 0.0,
                        };
                    }
                }
                let running: Vec<String> = totals.iter().map(|t| format!("{t:.1}")).collect();
                eprintln!(
                    "match {k}: {reason}, places by slot {placed:?}; slots so far {}",
                    running.join(" – ")
                );
                *reasons.entry(reason).or_default() += 1;
            }
            Err(e) => {
                println!("match {k}: {e}");
                return ExitCode::from(1);
            }
        }
    }
    println!("{} — {games} matches, sides alternating", args[0]);
    for (i, slot) in slots.iter().enumerate() {
        println!(
            "  slot {i} ({}): {:.1} / {games} = {:.0} %",
            slot.name(),
            totals[i],
            100.0 * totals[i] / games as f64
        );
    }
    if levels.len() == 2 {
        // The two levels' shares (summed over their slots when several).
        let a: f64 = (0..seats).filter(|i| i % 2 == 0).map(|i| totals[i]).sum();
        let b: f64 = (0..seats).filter(|i| i % 2 == 1).map(|i| totals[i]).sum();
        let share = 100.0 * a / (a + b).max(f64::MIN_POSITIVE);
        println!(
            "{} vs {}: {a:.1} – {b:.1} ({share:.0} % for {})",
            levels[0].name(),
            levels[1].name(),
            levels[0].name()
        );
    }
    if seats > 2 {
        // Winner-takes scoring leaves the weaker players of an ffa little
        // to win; the placement (who outlasted whom) tells them apart.
        let placed = |a: Player, b: Player, n: f64, of: u64| {
            let share = 100.0 * n / of as f64;
            println!(
                "placed: {} above {} in {n:.1} of {of} ({share:.0} %)",
                a.name(),
                b.name()
            );
        };
        if levels.len() == 2 {
            // Every pair of an `a` slot and a `b` slot, each match.
            let (mut n, mut of) = (0.0, 0);
            for i in (0..seats).step_by(2) {
                for j in (1..seats).step_by(2) {
                    n += above[i][j];
                    of += games;
                }
            }
            placed(levels[0], levels[1], n, of);
        } else if levels.len() == seats {
            for i in 0..seats - 1 {
                placed(slots[i], slots[i + 1], above[i][i + 1], games);
            }
        }
    }
    let reasons: Vec<String> = reasons.iter().map(|(r, n)| format!("{r} {n}")).collect();
    println!("endings: {}", reasons.join(", "));
    ExitCode::SUCCESS
}
