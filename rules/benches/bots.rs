//! `cargo bench -p posthorn-rules --bench bots`: the computer opponents'
//! think time (issue #32). For each game, positions are taken from seeded
//! playouts (a few random plies, then easy against easy) and every level
//! decides each of them from the seat's own view, on one thread; the table
//! gives the median and the 99th percentile of the time per decision and
//! the nodes searched per second. Bars: hard ≤ 2 s at p99, easy and normal
//! ≤ 0.3 s. `BOTS_POSITIONS` (default 12) sets the positions per game,
//! `BOTS_GAMES` (comma-separated, as `moves` names them) the games.

use posthorn_rules::engine::{decide, nodes_searched, Level};
use posthorn_rules::{Env, GameId, MatchState, Random, SplitMix64, Viewer};
use serde_json::Value;
use std::time::Instant;

const GAMES: &str = "checkers/american,checkers/russian,checkers/international,janggi,banqi,flipchess,four_player_chess/teams,four_player_chess/ffa";

fn is_talk(action: &Value) -> bool {
    let kind = action.get("type").and_then(Value::as_str).unwrap_or("");
    kind.contains("resign") || kind.contains("draw") || kind.contains("concede")
}

/// Views (with their seat) from seeded playouts: `count` in all, taken at
/// spread plies.
fn positions(game: GameId, config: &Value, count: usize) -> Vec<(posthorn_rules::Seat, Value)> {
    let mut out = Vec::new();
    let seats = MatchState::seat_range(game, config).map_or(2, |r| *r.start());
    let mut seed = 0;
    while out.len() < count && seed < 100 {
        seed += 1;
        let mut random = SplitMix64::new(seed);
        let Ok(events) = MatchState::setup(game, config, seats, &mut random) else {
            break;
        };
        let Ok(mut state) = MatchState::replay(game, &events) else {
            break;
        };
        let sample_at = [6 + seed as u32 % 5, 24, 50, 90];
        for ply in 0..200u32 {
            let Some(duty) = state.to_act().first().cloned() else {
                break;
            };
            let view = state.view(Viewer::Seat(duty.seat));
            if sample_at.contains(&ply) && out.len() < count {
                out.push((duty.seat, view.clone()));
            }
            let engine = if ply >= 4 {
                decide(game, &view, duty.seat, Level::Easy, &mut random).ok()
            } else {
                None
            };
            let action = engine.or_else(|| {
                let actions: Vec<Value> = state
                    .legal_actions(duty.seat)
                    .into_iter()
                    .filter(|a| !is_talk(a))
                    .collect();
                (!actions.is_empty())
                    .then(|| actions[random.below(actions.len() as u64) as usize].clone())
            });
            let Some(action) = action else { break };
            let mut env = Env {
                now: 0,
                random: &mut random,
            };
            let Ok(new) = state.act(duty.seat, &action, &mut env) else {
                break;
            };
            for e in &new {
                let _ = state.apply(e);
            }
        }
    }
    out
}

fn main() {
    let count: usize = std::env::var("BOTS_POSITIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12);
    let games = std::env::var("BOTS_GAMES").unwrap_or_else(|_| GAMES.to_owned());
    println!(
        "{:<28} {:<7} {:>9} {:>10} {:>10} {:>12}  bar",
        "game", "level", "positions", "median ms", "p99 ms", "nodes/s"
    );
    for name in games.split(',') {
        let Some((game, config)) = GameId::named(name) else {
            println!("{name}: unknown game");
            continue;
        };
        let views = positions(game, &config, count);
        if views.is_empty() {
            println!("{name}: no position could be set up");
            continue;
        }
        for level in Level::ALL {
            let mut times = Vec::new();
            let mut nodes = 0u64;
            let mut refused = None;
            let mut random = SplitMix64::new(7);
            for (seat, view) in &views {
                let before = nodes_searched();
                let started = Instant::now();
                match decide(game, view, *seat, level, &mut random) {
                    Ok(_) => {
                        times.push(started.elapsed().as_secs_f64());
                        nodes += nodes_searched() - before;
                    }
                    Err(e) => {
                        refused = Some(e.message);
                        break;
                    }
                }
            }
            if let Some(why) = refused {
                println!("{name:<28} {:<7} refused: {why}", level.id());
                break;
            }
            times.sort_by(f64::total_cmp);
            let at = |q: f64| times[((times.len() as f64 - 1.0) * q).round() as usize];
            let total: f64 = times.iter().sum();
            let bar = if level == Level::Hard { 2.0 } else { 0.3 };
            println!(
                "{name:<28} {:<7} {:>9} {:>10.1} {:>10.1} {:>12.0}  {}",
                level.id(),
                times.len(),
                at(0.5) * 1e3,
                at(0.99) * 1e3,
                nodes as f64 / total.max(1e-9),
                if at(0.99) <= bar { "ok" } else { "MISSED" }
            );
        }
    }
}
