//! `cargo run --release -p posthorn-rules --example hide -- <count> [<first seed>]`
//!
//! Banqi puzzles with hidden pieces (issue #68, docs/puzzles.md) made
//! from the open ones: for each open puzzle of `rules/puzzles/banqi.jsonl`
//! (nothing face down) and each seed, two to four face-up pieces are
//! turned face down — one of them beside or on the line of the first
//! move, so that it may matter — and the position is proved again from
//! scratch by the forced-line rule in every deal (`puzzles::prove`: the
//! same line whatever lies where, nothing revealed, the hidden pieces
//! mattering). What holds is printed as the miner prints a puzzle; the
//! rate goes to stderr. The usual engines' matches give such positions
//! too (`mine banqi … hidden`), about a dozen an hour of a core.

use posthorn_rules::banqi::{Banqi, Cell, Config, Position};
use posthorn_rules::{Game, Random, SplitMix64};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let count: usize = args.first().map_or(10, |c| c.parse().expect("a count"));
    let first_seed: u64 = args.get(1).map_or(1, |s| s.parse().expect("a seed"));
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/puzzles/banqi.jsonl"))
        .unwrap();
    let open: Vec<serde_json::Value> = (text.lines())
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| {
            v["events"][0]["face_down"]
                .as_array()
                .is_some_and(|d| d.is_empty())
        })
        .collect();
    let began = Instant::now();
    let (mut found, mut tried) = (0, 0);
    let mut seed = first_seed;
    while found < count {
        let puzzle = &open[(seed as usize) % open.len()];
        let mut random = SplitMix64::new(seed);
        seed += 1;
        let Some(position) = hidden(puzzle, &mut random) else {
            continue;
        };
        tried += 1;
        let config = Config {
            position: Some(position.to_notation()),
        };
        let Ok(opening) = Banqi::setup(&config, 2, &mut SplitMix64::new(seed)) else {
            continue;
        };
        if let Some(proved) = posthorn_rules::puzzles::prove::<Banqi>(opening, 2) {
            let mut line = serde_json::to_value(&proved).unwrap();
            line["game"] = "banqi".into();
            line["config"] = serde_json::json!({});
            line["seed"] = seed.into();
            println!("{line}");
            found += 1;
        }
    }
    let hours = began.elapsed().as_secs_f64() / 3600.0;
    eprintln!(
        "banqi hidden: {found} puzzles from {tried} tries in {:.1} s: {:.0} an hour of one core",
        began.elapsed().as_secs_f64(),
        found as f64 / hours
    );
}

/// The open puzzle's start with two to four face-up pieces turned face
/// down, one of them within a step of the first move's squares or
/// between them (a cannon's screen).
fn hidden(puzzle: &serde_json::Value, random: &mut dyn Random) -> Option<Position> {
    let mut position = Position::from_notation(puzzle["events"][0]["position"].as_str()?).ok()?;
    let first = puzzle["line"][0]["action"]["move"].as_str()?;
    let ends: Vec<usize> = first
        .split(['-', 'x'])
        .map(|sq| {
            let b = sq.as_bytes();
            usize::from(b[0] - b'a') + 8 * usize::from(b[1] - b'1')
        })
        .collect();
    let (from, to) = (*ends.first()?, *ends.last()?);
    let near = |sq: usize| {
        let (f, r) = ((sq % 8) as i32, (sq / 8) as i32);
        let close = |e: usize| (f - (e % 8) as i32).abs() + (r - (e / 8) as i32).abs() == 1;
        // On the line between the ends (same file or rank), strictly.
        let inside = sq > from.min(to) && sq < from.max(to);
        let between = inside
            && ((from % 8 == to % 8 && sq % 8 == from % 8)
                || (from / 8 == to / 8 && sq / 8 == from / 8));
        sq != from && sq != to && (close(from) || close(to) || between)
    };
    let up: Vec<usize> = (0..32)
        .filter(|sq| matches!(position.cells[*sq], Cell::Up(_)) && *sq != from && *sq != to)
        .collect();
    let close: Vec<usize> = up.iter().copied().filter(|sq| near(*sq)).collect();
    if close.is_empty() {
        return None;
    }
    let mut chosen = vec![close[random.below(close.len() as u64) as usize]];
    let more = (1 + random.below(3) as usize).min(up.len().saturating_sub(1));
    while chosen.len() < 1 + more {
        let sq = up[random.below(up.len() as u64) as usize];
        if !chosen.contains(&sq) {
            chosen.push(sq);
        }
    }
    for sq in chosen {
        if let Cell::Up(p) = position.cells[sq] {
            position.cells[sq] = Cell::Down(p);
        }
    }
    Some(position)
}
