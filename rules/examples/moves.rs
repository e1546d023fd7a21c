//! `cargo run --release -p posthorn-rules --example moves -- <game> [<position>]`
//!
//! Prints the legal moves on standard output, one per line, in the game's
//! notation (the positions `perft` reads; games as for `perft`). When the
//! match is over in that position it prints no move, and says why on
//! standard error: `# over: no_pieces (§B6)`. Judgments made before the
//! moves (a four-player chess skip or elimination) are noted there too.
//! See `posthorn_rules::listing`.

use posthorn_rules::listing::{legal_moves, GAMES};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(game) = args.first() else {
        eprintln!("usage: moves <game> [<position>]; games: {GAMES}");
        return ExitCode::from(2);
    };
    match legal_moves(game, args.get(1).map(String::as_str)) {
        Ok(listing) => {
            for note in &listing.notes {
                eprintln!("# {note}");
            }
            for mv in &listing.moves {
                println!("{mv}");
            }
            if let Some(ending) = listing.over {
                eprintln!("# over: {ending}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{}", e.message);
            ExitCode::from(2)
        }
    }
}
