//! The analysis of a finished match (issue #69, docs/analysis.md), one
//! line per game and mode: a short seeded match is analysed at a small
//! node budget twice, to the same result, and its figures are pinned. Every
//! judged play is one of the log's plays, by the seat that made it; the
//! best move is valued at least as the played one; each call follows the
//! chance the play lost; most plays are judged. The hidden-information
//! rule (§H5) is shown by the crate's own tests (`engine::analysis`),
//! which may lay a world as it really lay.

mod harness;

use harness::random_match;
use posthorn_rules::engine::analysis::{analyse, Analyse, Effort, Judgement};
use serde_json::{json, Value};

const SMALL: Effort = Effort {
    nodes: 4_000,
    depth: 3,
    worlds: 4,
};

/// The analysis of seed `seed`'s random match, checked, as one line per
/// seat: `seat accuracy plays inaccuracies/mistakes/blunders`.
fn analysed<G: Analyse>(config: Value, seats: usize, seed: u64, plies: usize) -> String {
    let log = random_match::<G>(&config, seats, seed, plies);
    let analysis = analyse::<G>(&log, SMALL).unwrap();
    assert_eq!(
        analysis,
        analyse::<G>(&log, SMALL).unwrap(),
        "the same twice"
    );
    let mut state = G::State::default();
    let mut words = 0;
    for (i, event) in log.iter().enumerate() {
        let word = G::word(&state, event);
        words += usize::from(word.is_some());
        if let Some(ply) = analysis.plies.iter().find(|p| p.seq == i + 1) {
            let (_, word) = word.clone().expect("a judged play is a play of the log");
            let action = posthorn_rules::records::action_of::<G>(&word);
            let action = serde_json::to_value(action.unwrap()).unwrap();
            assert_eq!(ply.played, action, "event {}", i + 1);
            assert!(G::to_act(&state).iter().any(|d| d.seat == ply.seat));
            assert!(ply.before >= ply.after, "the best is at least the played");
            assert_eq!(ply.judgement, Judgement::of(ply.before - ply.after));
        }
        G::apply(&mut state, event).unwrap();
    }
    assert!(
        analysis.plies.len() * 4 >= words * 3,
        "{} of {words} plays judged",
        analysis.plies.len()
    );
    let line = |p: &posthorn_rules::engine::analysis::Player| {
        format!(
            "{} {:.1} {} {}/{}/{}",
            p.seat.0, p.accuracy, p.plies, p.inaccuracies, p.mistakes, p.blunders
        )
    };
    analysis
        .players
        .iter()
        .map(line)
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
fn checkers_analysis_is_pinned() {
    type C = posthorn_rules::checkers::Checkers;
    assert_eq!(
        analysed::<C>(json!({}), 2, 1, 30),
        "0 98.3 15 0/0/0, 1 88.0 15 1/1/1"
    );
    assert_eq!(
        analysed::<C>(json!({"variant": "russian"}), 2, 2, 30),
        "0 86.3 15 0/0/2, 1 92.6 15 0/0/1"
    );
}

#[test]
fn janggi_analysis_is_pinned() {
    assert_eq!(
        analysed::<posthorn_rules::janggi::Janggi>(json!({}), 2, 1, 24),
        "0 58.4 12 0/5/3, 1 59.6 12 1/4/3"
    );
}

#[test]
fn banqi_analysis_is_pinned() {
    assert_eq!(
        analysed::<posthorn_rules::banqi::Banqi>(json!({}), 2, 1, 30),
        "0 63.1 14 0/1/6, 1 63.1 15 0/2/5"
    );
}

#[test]
fn flipchess_analysis_is_pinned() {
    assert_eq!(
        analysed::<posthorn_rules::flipchess::FlipChess>(json!({}), 2, 1, 30),
        "0 88.0 14 0/0/2, 1 83.9 11 1/1/1"
    );
}

#[test]
fn four_player_chess_analysis_is_pinned() {
    type Q = posthorn_rules::four_player_chess::FourPlayerChess;
    assert_eq!(
        analysed::<Q>(json!({"mode": "teams"}), 4, 1, 24),
        "0 67.1 6 1/0/2, 1 48.5 6 0/1/4, 2 57.3 6 0/0/4, 3 59.6 6 3/0/2"
    );
    assert_eq!(
        analysed::<Q>(json!({"mode": "ffa"}), 4, 2, 24),
        "0 75.3 6 2/1/1, 1 83.4 6 0/0/1, 2 63.8 6 1/2/2, 3 74.7 6 0/0/2"
    );
}
