//! `cargo bench --bench pictures`: a board's PNG (issue #69 item 5,
//! docs/pictures.md), painted and encoded afresh (the cache's miss), on
//! one thread: for each game, positions from seeded random playouts
//! drawn for a spectator at the match page's size (640×640) and a link
//! preview's (1200×630); the table gives p50 and p99 per picture and the
//! mean size. Then a finished game's GIF (`pictures::gif`, 640×640) of
//! 100 plays per game, 20 times: p50, p99, bytes and bytes a frame.
//! `PICTURES_POSITIONS` (default 200) sets the positions.

use posthorn_rules::{GameId, MatchState, Random, SplitMix64, Viewer};
use std::time::Instant;

fn positions(game: GameId, count: usize) -> Vec<serde_json::Value> {
    let mut out = Vec::new();
    let mut seed = 0;
    while out.len() < count {
        seed += 1;
        let mut random = SplitMix64::new(seed);
        let config = serde_json::json!({});
        let seats = MatchState::seat_range(game, &config).map_or(2, |r| *r.start());
        let events = MatchState::setup(game, &config, seats, &mut random).unwrap();
        let mut state = MatchState::replay(game, &events).unwrap();
        for ply in 0..120 {
            let Some(duty) = state.to_act().first().cloned() else {
                break;
            };
            if ply % 10 == 0 {
                out.push(state.view(Viewer::Spectator));
            }
            let legal: Vec<_> = (state.legal_actions(duty.seat).into_iter())
                .filter(|a| {
                    !["resign", "offer_draw", "concede"].contains(&a["type"].as_str().unwrap_or(""))
                })
                .collect();
            if legal.is_empty() {
                break;
            }
            let action = &legal[random.below(legal.len() as u64) as usize];
            let mut env = posthorn_rules::Env {
                now: 0,
                random: &mut random,
            };
            let Ok(events) = state.act(duty.seat, action, &mut env) else {
                break;
            };
            for event in &events {
                state.apply(event).unwrap();
            }
        }
    }
    out.truncate(count);
    out
}

/// The frames of a seeded random match of `game`: before play and after
/// each of up to 100 plays, as a spectator sees them.
fn game_frames(game: GameId) -> Vec<posthorn_rules::drawing::Drawing> {
    let mut random = SplitMix64::new(7);
    let config = serde_json::json!({});
    let seats = MatchState::seat_range(game, &config).map_or(2, |r| *r.start());
    let mut events = MatchState::setup(game, &config, seats, &mut random).unwrap();
    let mut state = MatchState::replay(game, &events).unwrap();
    for _ in 0..400 {
        let frames = game.frames(&events, Viewer::Spectator).unwrap();
        if frames.len() > 100 {
            return frames;
        }
        let Some(duty) = state.to_act().first().cloned() else {
            return frames;
        };
        let legal: Vec<_> = (state.legal_actions(duty.seat).into_iter())
            .filter(|a| {
                !["resign", "offer_draw", "concede"].contains(&a["type"].as_str().unwrap_or(""))
            })
            .collect();
        if legal.is_empty() {
            return frames;
        }
        let action = &legal[random.below(legal.len() as u64) as usize];
        let mut env = posthorn_rules::Env {
            now: 0,
            random: &mut random,
        };
        for event in state.act(duty.seat, action, &mut env).unwrap() {
            state.apply(&event).unwrap();
            events.push(event);
        }
    }
    game.frames(&events, Viewer::Spectator).unwrap()
}

fn main() {
    let count: usize = std::env::var("PICTURES_POSITIONS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(200);
    println!("| game | size | p50 | p99 | mean bytes |");
    println!("|---|---|---|---|---|");
    for &game in GameId::ALL {
        let views = positions(game, count);
        for size in [posthorn::pictures::BOARD, posthorn::pictures::PREVIEW] {
            let mut times = Vec::new();
            let mut bytes = 0;
            for view in &views {
                let drawing = game.drawing(view).unwrap();
                let started = Instant::now();
                let png = posthorn::pictures::render(&drawing, size);
                times.push(started.elapsed());
                bytes += png.len();
            }
            times.sort();
            let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize].as_secs_f64() * 1000.0;
            println!(
                "| {} | {}×{} | {:.2} ms | {:.2} ms | {:.1} KiB |",
                game.id(),
                size.0,
                size.1,
                at(0.5),
                at(0.99),
                bytes as f64 / views.len() as f64 / 1024.0
            );
        }
    }
    println!();
    println!("| game | frames | p50 | p99 | bytes | a frame |");
    println!("|---|---|---|---|---|---|");
    for &game in GameId::ALL {
        let frames = game_frames(game);
        if std::env::var("PICTURES_FIRST").is_ok() {
            let started = Instant::now();
            let first = posthorn::pictures::gif(&frames[..1], posthorn::pictures::BOARD).len();
            println!(
                "{}: the first frame alone {:?}, {first} bytes",
                game.id(),
                started.elapsed()
            );
        }
        let mut times = Vec::new();
        let mut size = 0;
        for _ in 0..20 {
            let started = Instant::now();
            size = posthorn::pictures::gif(&frames, posthorn::pictures::BOARD).len();
            times.push(started.elapsed());
        }
        times.sort();
        let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize].as_secs_f64() * 1000.0;
        println!(
            "| {} | {} | {:.1} ms | {:.1} ms | {:.0} KiB | {:.1} KiB |",
            game.id(),
            frames.len(),
            at(0.5),
            at(0.99),
            size as f64 / 1024.0,
            size as f64 / 1024.0 / frames.len() as f64
        );
    }
}
