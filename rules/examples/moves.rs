//! `cargo run --release -p posthorn-rules --example moves -- <game> [<position>]`
//!
//! Prints the legal moves, one per line, in the game's notation.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some(name) if name == "checkers" || name.starts_with("checkers/") => {
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
            let pos = match args.get(1).map(|fen| Board::from_fen(variant, fen)) {
                Some(Ok(p)) => p,
                Some(Err(e)) => {
                    eprintln!("{}", e.message);
                    return ExitCode::from(2);
                }
                None => Board::start(variant),
            };
            for mv in pos.legal_moves(variant) {
                println!("{mv}");
            }
            ExitCode::SUCCESS
        }
        Some("flipchess") => {
            use posthorn_rules::flipchess::board::Board;
            match Board::from_fen(args.get(1).map_or(Board::START, String::as_str)) {
                Ok(board) => {
                    let mut moves = Vec::new();
                    board.moves(None, &mut moves);
                    for mv in moves {
                        println!("{mv}");
                    }
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("{}", e.message);
                    ExitCode::from(2)
                }
            }
        }
        Some("janggi") => {
            use posthorn_rules::janggi::{start_position, Position};
            match args.get(1).map(|fen| Position::from_fen(fen)) {
                Some(Err(e)) => {
                    eprintln!("{}", e.message);
                    ExitCode::from(2)
                }
                found => {
                    let pos = found.map_or_else(
                        || start_position(Default::default()),
                        |p| p.unwrap_or_default(),
                    );
                    let mut moves = Vec::new();
                    pos.legal_moves(&mut moves);
                    for mv in moves {
                        println!("{mv}");
                    }
                    ExitCode::SUCCESS
                }
            }
        }
        Some("banqi") => {
            use posthorn_rules::banqi::{shuffled, Position};
            let pos = match args.get(1).map(|p| Position::from_notation(p)) {
                Some(Ok(p)) => p,
                Some(Err(e)) => {
                    eprintln!("{}", e.message);
                    return ExitCode::from(2);
                }
                None => shuffled(&mut posthorn_rules::SplitMix64::new(0)),
            };
            let mut steps = Vec::new();
            pos.legal_steps(&mut steps);
            for step in steps {
                println!("{step}");
            }
            ExitCode::SUCCESS
        }
        Some("four_player_chess") => {
            use posthorn_rules::four_player_chess::{Mode, Position};
            let pos = match args.get(1).map(|p| Position::from_notation(p)) {
                Some(Ok(p)) => p,
                Some(Err(e)) => {
                    eprintln!("{}", e.message);
                    return ExitCode::from(2);
                }
                None => Position::start(Mode::Teams, [true; 4]),
            };
            let mut moves = Vec::new();
            pos.legal_moves(&mut moves);
            for mv in moves {
                println!("{mv}");
            }
            ExitCode::SUCCESS
        }
        Some(other) => {
            eprintln!(
                "unknown game {other:?}; games: checkers, flipchess, janggi, banqi, four_player_chess"
            );
            ExitCode::from(2)
        }
        None => {
            eprintln!("usage: moves <game> [<position>]");
            ExitCode::from(2)
        }
    }
}
