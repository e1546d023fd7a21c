//! `cargo run --release -p posthorn-rules --example mine -- <game> <count> [<first seed>] [hidden]`
//!
//! Mines puzzles from the engines' own matches (issue #52,
//! docs/puzzles.md): match after match at the game's levels (normal
//! against easy; four-player chess easy all round), seeded from
//! `<first seed>` (default 1), one puzzle at most from each, until
//! `<count>` are found. Each puzzle is printed as one JSON line
//! (`{"game": …, "config": …, "seed": …, …Found}`); the rate, in verified
//! puzzles per hour of this one thread, goes to stderr. `<game>` is as the
//! examples name games: `janggi`, `checkers/russian`,
//! `four_player_chess/ffa`. With `hidden`, only puzzles with something
//! hidden at the start are kept (Banqi's face-down pieces), and only
//! matches that start with something hidden are mined.

use posthorn_rules::GameId;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(name), Some(count)) = (args.first(), args.get(1)) else {
        eprintln!("usage: mine <game> <count> [<first seed>]");
        std::process::exit(2);
    };
    let Some((game, config)) = GameId::named(name) else {
        eprintln!("unknown game {name}");
        std::process::exit(2);
    };
    let count: usize = count.parse().expect("a count");
    let mut seed: u64 = args.get(2).map_or(1, |s| s.parse().expect("a seed"));
    let hidden = args.get(3).is_some_and(|a| a == "hidden");
    let hides =
        |event: &serde_json::Value| event["face_down"].as_array().is_some_and(|d| !d.is_empty());
    let seats = game.about().seats.1.min(4);
    let began = Instant::now();
    let (mut found, mut matches) = (0, 0);
    while found < count {
        // At the game's own levels (`Rule::players`).
        let log = game
            .self_play(&config, seats, game.about().action_cap, seed)
            .expect("a self-play match");
        matches += 1;
        if hidden && !hides(&log[0]) {
            seed += 1;
            continue;
        }
        let mined = game.mine(&config, seats, &log).expect("a readable log");
        if let Some(puzzle) = mined.filter(|p| !hidden || hides(&p.events[0])) {
            let mut line = serde_json::to_value(&puzzle).expect("JSON");
            line["game"] = game.id().into();
            line["config"] = config.clone();
            line["seed"] = seed.into();
            println!("{line}");
            found += 1;
        }
        seed += 1;
    }
    let hours = began.elapsed().as_secs_f64() / 3600.0;
    eprintln!(
        "{name}: {found} puzzles from {matches} matches in {:.1} s: {:.0} puzzles per hour of one core",
        began.elapsed().as_secs_f64(),
        found as f64 / hours
    );
}
