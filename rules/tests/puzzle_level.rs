//! The puzzles' engine level is pinned (docs/puzzles.md, "The puzzles'
//! own level"): the shipped puzzle sets were proved against the replies
//! of `Level::Puzzle`, so its answers on fixed positions are recorded
//! here, one line per game, and a retuned search fails this test instead
//! of silently changing a checked puzzle. `Level::Hard`, which players
//! meet, may be made stronger; this level may not.

use posthorn_rules::engine::Level;
use posthorn_rules::{Env, GameId, MatchState, Seat, SplitMix64, Viewer};
use serde_json::Value;

/// The position `name` reaches after `plies` of the easy engine from a
/// fixed seed, and the seat to act there.
fn midgame(name: &str, players: usize, plies: usize) -> (GameId, MatchState, Seat) {
    let (game, config) = GameId::named(name).unwrap();
    let mut random = SplitMix64::new(11);
    let opening = MatchState::setup(game, &config, players, &mut random).unwrap();
    let mut state = MatchState::replay(game, &opening).unwrap();
    for _ in 0..plies {
        let seat = state.to_act()[0].seat;
        let view = state.view(Viewer::Seat(seat));
        let action = game.decide(&view, seat, Level::Easy, &mut random).unwrap();
        let mut env = Env {
            now: 0,
            random: &mut random,
        };
        for event in state.act(seat, &action, &mut env).unwrap() {
            state.apply(&event).unwrap();
        }
    }
    let seat = state.to_act()[0].seat;
    (game, state, seat)
}

/// What `level` answers there, with a fixed seed for its ties.
fn answer(name: &str, players: usize, plies: usize, level: Level) -> Value {
    let (game, state, seat) = midgame(name, players, plies);
    let view = state.view(Viewer::Seat(seat));
    game.decide(&view, seat, level, &mut SplitMix64::new(7))
        .unwrap()
}

/// Game, players, easy plies before, and the puzzle level's answer as
/// recorded when the shipped sets were proved (2026-12-07).
const PINNED: [(&str, usize, usize, &str); 6] = [
    ("checkers", 2, 14, r#"{"move":"2-7","type":"move"}"#),
    (
        "checkers/international",
        2,
        14,
        r#"{"move":"30-25","type":"move"}"#,
    ),
    ("janggi", 2, 16, r#"{"move":"b1d4","type":"move"}"#),
    ("banqi", 2, 20, r#"{"square":"h3","type":"turn_up"}"#),
    ("flipchess", 2, 12, r#"{"card":"yellow-7","type":"play"}"#),
    (
        "four_player_chess",
        4,
        16,
        r#"{"move":"h1g1","type":"move"}"#,
    ),
];

#[test]
fn the_puzzle_level_answers_as_when_the_sets_were_proved() {
    for (name, players, plies, recorded) in PINNED {
        let got = answer(name, players, plies, Level::Puzzle);
        if std::env::var_os("POSTHORN_BLESS").is_some() {
            println!("(\"{name}\", {players}, {plies}, r#\"{got}\"#),");
            continue;
        }
        let recorded: Value = serde_json::from_str(recorded).unwrap();
        assert_eq!(got, recorded, "{name}: the puzzle level answers otherwise");
    }
}

/// The check bites: a level that searches otherwise (normal) answers
/// otherwise on these positions, as a retuned puzzle level would.
#[test]
fn a_level_searched_otherwise_fails_the_record() {
    let differs = PINNED.iter().filter(|(name, players, plies, recorded)| {
        let recorded: Value = serde_json::from_str(recorded).unwrap_or(Value::Null);
        answer(name, *players, *plies, Level::Normal) != recorded
    });
    assert!(
        differs.count() >= 1,
        "normal answers as the puzzle level everywhere"
    );
}
