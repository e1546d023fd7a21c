//! `cargo run --release -p posthorn-rules --example perft -- <game> <depth> [<position>]`
//!
//! Prints one line per root move (`<move> <count>`), then `nodes <total>`,
//! and the speed on standard error. Games: `checkers` or `checkers/<variant>`
//! (PDN FEN positions; every §C2 variant),
//! `flipchess` (chess FEN; single piece moves under docs/rules/flipchess.md §F3, every
//! group, no card) and `janggi` (Fairy-Stockfish janggi FEN; the default
//! start is SMSM against SMSM; passes counted, a finished match is a leaf)
//! `banqi` (docs/rules/banqi.md §B9 positions; the default is the layout shuffled
//! with seed 0) and `four_player_chess` (docs/rules/four-player-chess.md §Q12 positions, the mode
//! from its `mode=`; the default is the teams start, §Q13).

use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(game), Some(depth)) = (args.first(), args.get(1)) else {
        eprintln!("usage: perft <game> <depth> [<position>]");
        return ExitCode::from(2);
    };
    let Ok(depth) = depth.parse::<usize>() else {
        eprintln!("depth must be a whole number, not {depth:?}");
        return ExitCode::from(2);
    };
    match game.as_str() {
        name if name == "checkers" || name.starts_with("checkers/") => {
            use posthorn_rules::checkers::{Board, Variant};
            let variant_name = name.strip_prefix("checkers/").unwrap_or("american");
            let Some(variant) = Variant::ALL
                .iter()
                .copied()
                .find(|v| v.name() == variant_name)
            else {
                eprintln!(
                    "no checkers variant {variant_name:?}; variants: {}",
                    Variant::NAMES.join(", ")
                );
                return ExitCode::from(2);
            };
            let pos = match args.get(2).map(|fen| Board::from_fen(variant, fen)) {
                Some(Ok(p)) => p,
                Some(Err(e)) => {
                    eprintln!("{}", e.message);
                    return ExitCode::from(2);
                }
                None => Board::start(variant),
            };
            let started = Instant::now();
            let mut total = 0;
            for mv in pos.legal_moves(variant) {
                let count = pos.play(&mv).perft(variant, depth.saturating_sub(1));
                println!("{mv} {count}");
                total += count;
            }
            println!("nodes {total}");
            let secs = started.elapsed().as_secs_f64();
            eprintln!("{secs:.3} s, {:.1} M nodes/s", total as f64 / secs / 1e6);
            ExitCode::SUCCESS
        }
        "flipchess" => {
            use posthorn_rules::flipchess::board::{perft, Board};
            let board = match Board::from_fen(args.get(2).map_or(Board::START, String::as_str)) {
                Ok(b) => b,
                Err(e) => {
                    eprintln!("{}", e.message);
                    return ExitCode::from(2);
                }
            };
            let started = Instant::now();
            let mut roots = Vec::new();
            board.moves(None, &mut roots);
            let mut total = 0;
            for mv in &roots {
                let mut next = board;
                next.play(mv);
                next.side = next.side.other();
                let count = perft(&next, depth.saturating_sub(1));
                println!("{mv} {count}");
                total += count;
            }
            println!("nodes {total}");
            let secs = started.elapsed().as_secs_f64();
            eprintln!("{secs:.3} s, {:.1} M nodes/s", total as f64 / secs / 1e6);
            ExitCode::SUCCESS
        }
        "janggi" => {
            use posthorn_rules::janggi::{perft, start_position, Move, Position};
            let pos = match args.get(2).map(|fen| Position::from_fen(fen)) {
                Some(Ok(p)) => p,
                Some(Err(e)) => {
                    eprintln!("{}", e.message);
                    return ExitCode::from(2);
                }
                None => start_position(Default::default()),
            };
            let started = Instant::now();
            let mut roots = Vec::new();
            pos.legal_moves(&mut roots);
            let mut total = 0;
            for mv in &roots {
                let count = perft(&pos.play(*mv).0, depth.saturating_sub(1), *mv == Move::Pass);
                println!("{mv} {count}");
                total += count;
            }
            println!("nodes {total}");
            let secs = started.elapsed().as_secs_f64();
            eprintln!("{secs:.3} s, {:.1} M nodes/s", total as f64 / secs / 1e6);
            ExitCode::SUCCESS
        }
        "banqi" => {
            use posthorn_rules::banqi::{perft, shuffled, Position};
            let pos = match args.get(2).map(|p| Position::from_notation(p)) {
                Some(Ok(p)) => p,
                Some(Err(e)) => {
                    eprintln!("{}", e.message);
                    return ExitCode::from(2);
                }
                None => shuffled(&mut posthorn_rules::SplitMix64::new(0)),
            };
            eprintln!("position {}", pos.to_notation());
            let started = Instant::now();
            let mut roots = Vec::new();
            if !pos.is_over() {
                pos.legal_steps(&mut roots);
            }
            let mut total = 0;
            for step in &roots {
                let count = perft(&pos.play(*step), depth.saturating_sub(1));
                println!("{step} {count}");
                total += count;
            }
            println!("nodes {total}");
            let secs = started.elapsed().as_secs_f64();
            eprintln!("{secs:.3} s, {:.1} M nodes/s", total as f64 / secs / 1e6);
            ExitCode::SUCCESS
        }
        "four_player_chess" => {
            use posthorn_rules::four_player_chess::{perft, Mode, Position};
            let pos = match args.get(2).map(|p| Position::from_notation(p)) {
                Some(Ok(p)) => p,
                Some(Err(e)) => {
                    eprintln!("{}", e.message);
                    return ExitCode::from(2);
                }
                None => Position::start(Mode::Teams, [true; 4]),
            };
            let started = Instant::now();
            let mut roots = Vec::new();
            let settled = pos.clone().settle();
            if let Some(pos) = &settled {
                pos.legal_moves(&mut roots);
            }
            let mut total = 0;
            for mv in &roots {
                let pos = settled.as_ref().unwrap_or(&pos);
                let count = match pos.successor(*mv) {
                    Some(next) => perft(&next, depth.saturating_sub(1)),
                    None => u64::from(depth <= 1),
                };
                println!("{mv} {count}");
                total += count;
            }
            println!("nodes {total}");
            let secs = started.elapsed().as_secs_f64();
            eprintln!("{secs:.3} s, {:.1} M nodes/s", total as f64 / secs / 1e6);
            ExitCode::SUCCESS
        }
        other => {
            eprintln!(
                "unknown game {other:?}; games: checkers, flipchess, janggi, banqi, four_player_chess"
            );
            ExitCode::from(2)
        }
    }
}
