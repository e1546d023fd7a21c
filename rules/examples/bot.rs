//! `cargo run --release -p posthorn-rules --example bot -- <game> <level> <seed> ['<position>']`
//!
//! The action the computer opponent at `<level>` (easy, normal, hard)
//! chooses in `<position>` (the game's notation, as `moves` and `perft`
//! read it; none: the game's start), printed on the last line in the
//! notation of the `moves` example. The same seed and position give the
//! same output. Games as for `moves` (`checkers/<variant>`,
//! `four_player_chess/<mode>`); a game without an engine yet prints the
//! refusal.
//!
//! The match is set up through the game's own contract with the position
//! as its `position` option, and the engine is handed only the seat's own
//! view (`MatchState::view(Viewer::Seat(seat))`), as the service does.

use posthorn_rules::engine::{decide, Level};
use posthorn_rules::{GameId, MatchState, SplitMix64, Viewer};
use serde_json::{json, Value};
use std::process::ExitCode;

/// An action as the `moves` example writes it: the move, `pass`, or the
/// action's JSON for anything else.
fn notation(action: &Value) -> String {
    match (
        action.get("move"),
        action.get("type").and_then(Value::as_str),
    ) {
        (Some(Value::String(mv)), _) => mv.clone(),
        (_, Some(kind)) if action.as_object().is_some_and(|o| o.len() == 1) => kind.to_owned(),
        _ => action.to_string(),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 {
        eprintln!("usage: bot <game> <easy|normal|hard> <seed> [<position>]");
        return ExitCode::from(2);
    }
    let Some((game, mut config)) = GameId::named(&args[0]) else {
        eprintln!("unknown game {:?}", args[0]);
        return ExitCode::from(2);
    };
    if let Some(position) = args.get(3) {
        config["position"] = json!(position);
    }
    let Some(level) = Level::parse(&args[1]) else {
        eprintln!("unknown level {:?}: easy, normal or hard", args[1]);
        return ExitCode::from(2);
    };
    let Ok(seed) = args[2].parse::<u64>() else {
        eprintln!("the seed is a number, not {:?}", args[2]);
        return ExitCode::from(2);
    };
    let mut random = SplitMix64::new(seed);
    let seats = match MatchState::seat_range(game, &config) {
        Ok(range) => *range.start(),
        Err(e) => {
            eprintln!("{}", e.message);
            return ExitCode::from(2);
        }
    };
    let state = match MatchState::setup(game, &config, seats, &mut random)
        .and_then(|events| MatchState::replay(game, &events))
    {
        Ok(state) => state,
        Err(e) => {
            eprintln!("{}", e.message);
            return ExitCode::from(2);
        }
    };
    let Some(duty) = state.to_act().first().cloned() else {
        eprintln!("the match is over in that position: {:?}", state.outcome());
        return ExitCode::from(1);
    };
    let view = state.view(Viewer::Seat(duty.seat));
    match decide(game, &view, duty.seat, level, &mut random) {
        Ok(action) => {
            println!("{}", notation(&action));
            ExitCode::SUCCESS
        }
        Err(e) => {
            println!("refused: {}", e.message);
            ExitCode::from(1)
        }
    }
}
