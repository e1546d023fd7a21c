//! `cargo bench -p posthorn-rules --bench analysis`: the analysis of a
//! 100-ply match (issue #69, docs/analysis.md) per game, at the service's
//! effort (`Effort::SERVICE`), on one thread: the engines' own match of
//! 100 plies (`GameId::self_play`) is analysed once; the table gives the
//! plays judged, the time, the nodes searched and the time per play.
//! `ANALYSIS_GAMES` (comma-separated, as `GameId::named` names them) picks
//! the games; `ANALYSIS_NODES` the nodes a play.

use posthorn_rules::engine::analysis::Effort;
use posthorn_rules::engine::nodes_searched;
use posthorn_rules::{GameId, MatchState};
use std::time::Instant;

const GAMES: &str =
    "checkers/american,checkers/international,janggi,banqi,flipchess,four_player_chess/teams";

fn main() {
    let games = std::env::var("ANALYSIS_GAMES").unwrap_or_else(|_| GAMES.into());
    let nodes = std::env::var("ANALYSIS_NODES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(Effort::SERVICE.nodes);
    let effort = Effort {
        nodes,
        ..Effort::SERVICE
    };
    println!("effort: {effort:?}");
    println!("| game | plies in the log | plays judged | time | nodes | per play |");
    println!("|---|---|---|---|---|---|");
    for name in games.split(',') {
        let (game, config) = GameId::named(name).expect("a game");
        let seats = MatchState::seat_range(game, &config).map_or(2, |r| *r.start());
        let events = game.self_play(&config, seats, 100, 1).expect("a match");
        let nodes_before = nodes_searched();
        let started = Instant::now();
        let analysis = game.analyse(&events, effort).expect("an analysis");
        let took = started.elapsed();
        let nodes = nodes_searched() - nodes_before;
        let judged = analysis.plies.len().max(1);
        println!(
            "| {name} | {} | {} | {:.1} s | {:.1} M | {:.0} ms |",
            events.len(),
            analysis.plies.len(),
            took.as_secs_f64(),
            nodes as f64 / 1e6,
            took.as_secs_f64() * 1000.0 / judged as f64
        );
    }
}
