//! `cargo run --release -p posthorn-rules --example duel -- <game> <level-a> <level-b> <games> [<level> …]`
//!
//! Plays `<games>` matches between computer opponents through the real
//! game contract (`MatchState` setup, act, legal_actions, outcome) and
//! prints the score: a win is 1, a draw ½. Levels are `easy`, `normal`,
//! `hard`, or `random` (a uniformly random legal action, never a
//! resignation nor a draw offer; it declines offers). Each seat's action
//! is chosen by `engine::decide` from that seat's own view only.
//!
//! Every match opens with a few uniformly random plies (seeded by the
//! match number) so the matches differ, and the sides alternate: in match
//! `k` the levels are handed to the game's sides rotated by `k`. With two
//! levels and four seats (four-player chess) the seats take them in turn,
//! `a b a b` (teams: partners share a level); give one level per seat
//! instead (`duel four_player_chess/ffa easy normal 20 hard random`) for
//! a free-for-all. Games as for `moves` (`checkers/<variant>`,
//! `four_player_chess/<mode>`).

use posthorn_rules::engine::{decide, fallback, Level};
use posthorn_rules::{Env, GameId, MatchState, OutcomeKind, Random, Seat, SplitMix64, Viewer};
use serde_json::{json, Value};
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

fn config(name: &str) -> Option<(GameId, Value)> {
    let (id, variant) = match name.split_once('/') {
        Some((id, v)) => (id, Some(v)),
        None => (name, None),
    };
    let game = GameId::parse(id)?;
    let mut config = json!({});
    if let Some(v) = variant {
        let key = if game == GameId::FourPlayerChess {
            "mode"
        } else {
            "variant"
        };
        config[key] = json!(v);
    }
    Some((game, config))
}

/// A uniformly random move (a declined offer when one is owed).
fn random_action(state: &MatchState, seat: Seat, random: &mut dyn Random) -> Option<Value> {
    fallback(&state.legal_actions(seat), random)
}

/// One match: each side's points (1 for each winner, a draw shared
/// equally) and the ending's reason.
fn play(
    game: GameId,
    config: &Value,
    players: &[Player],
    opening_plies: u32,
    seed: u64,
) -> Result<(Vec<f64>, String), String> {
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
    let mut points = vec![0.0; seats];
    match outcome.outcome {
        OutcomeKind::Draw => points.iter_mut().for_each(|p| *p = 1.0 / seats as f64),
        _ if !outcome.winners.is_empty() => {
            for w in &outcome.winners {
                points[w.index()] = 1.0;
            }
        }
        _ => {}
    }
    // Seat points to side points.
    let mut by_side = vec![0.0; seats];
    for (seat, p) in points.iter().enumerate() {
        by_side[state.side(Seat(seat as u8)) % seats] += p;
    }
    Ok((by_side, outcome.reason))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 4 {
        eprintln!("usage: duel <game> <level-a> <level-b> <games> [<level> …]; levels: easy, normal, hard, random");
        return ExitCode::from(2);
    }
    let Some((game, config)) = config(&args[0]) else {
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
    // four-player ffa of four levels), else the fewest it seats.
    let seats = match MatchState::seat_range(game, &config) {
        Ok(range) if range.contains(&levels.len()) && levels.len() > 2 => levels.len(),
        Ok(range) => *range.start(),
        Err(e) => {
            eprintln!("{}", e.message);
            return ExitCode::from(2);
        }
    };
    // Slot i plays side (i + k) mod seats in match k; with two levels for
    // more seats, they alternate round the table.
    let slots: Vec<Player> = if levels.len() == seats {
        levels.clone()
    } else {
        (0..seats).map(|i| levels[i % levels.len()]).collect()
    };
    let mut totals = vec![0.0; seats];
    let mut reasons: std::collections::BTreeMap<String, u32> = Default::default();
    // `DUEL_FROM=n` starts at match n: more matches, none repeated.
    let from: u64 = std::env::var("DUEL_FROM")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    for k in from..from + games {
        let shift = (k as usize) % seats;
        // players[side] = the slot sitting on that side this match.
        let players: Vec<Player> = (0..seats)
            .map(|side| slots[(side + seats - shift) % seats])
            .collect();
        let opening = 2 + (k % 3) as u32;
        match play(game, &config, &players, opening, 1000 + k) {
            Ok((by_side, reason)) => {
                for (side, p) in by_side.iter().enumerate() {
                    totals[(side + seats - shift) % seats] += p;
                }
                let running: Vec<String> = totals.iter().map(|t| format!("{t:.1}")).collect();
                eprintln!("match {k}: {reason}; slots so far {}", running.join(" – "));
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
    let reasons: Vec<String> = reasons.iter().map(|(r, n)| format!("{r} {n}")).collect();
    println!("endings: {}", reasons.join(", "));
    ExitCode::SUCCESS
}
