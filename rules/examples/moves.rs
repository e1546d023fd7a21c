//! `cargo run --release -p posthorn-rules --example moves -- <game> [<position>]`
//!
//! Prints the legal moves, one per line, in the game's notation.

use posthorn_rules::checkers::Position;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("checkers" | "checkers/american") => {
            let pos = match args.get(1).map(|fen| Position::from_fen(fen)) {
                Some(Ok(p)) => p,
                Some(Err(e)) => {
                    eprintln!("{}", e.message);
                    return ExitCode::from(2);
                }
                None => Position::start(),
            };
            let mut moves = Vec::new();
            pos.legal_moves(&mut moves);
            for mv in moves {
                println!("{mv}");
            }
            ExitCode::SUCCESS
        }
        Some(other) => {
            eprintln!("unknown game {other:?}; games: checkers");
            ExitCode::from(2)
        }
        None => {
            eprintln!("usage: moves <game> [<position>]");
            ExitCode::from(2)
        }
    }
}
