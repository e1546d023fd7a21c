//! Every game and variant through the generic rules harness (`harness`),
//! one line each, plus the perft files in `tests/data`.

mod harness;
mod toy;

use posthorn_rules::Game;
use serde_json::json;

/// This crate's own list of games: the real ones and the toy, each
/// registered with one line, exactly as `rules/src/lib.rs` does.
mod registry {
    posthorn_rules::games! {
        FlipChess => posthorn_rules::flipchess::FlipChess,
        Checkers => posthorn_rules::checkers::Checkers,
        Janggi => posthorn_rules::janggi::Janggi,
        Banqi => posthorn_rules::banqi::Banqi,
        FourPlayerChess => posthorn_rules::four_player_chess::FourPlayerChess,
        Pebbles => crate::toy::Pebbles,
    }
}

/// `name: Game, config, seats, playouts, [reasons some playout must end by]`
/// gives the playout and the malformed-input tests for one game or variant.
macro_rules! harness {
    ($name:ident: $G:ty, $config:tt, $seats:expr, $games:expr, [$($reason:expr),*]) => {
        mod $name {
            use super::*;

            #[test]
            fn harness_playouts_end_legal_replayable_and_leak_nothing() {
                let reasons = harness::playouts::<$G>(json!($config), $seats, $games);
                for reason in [$($reason),*] {
                    assert!(reasons.contains_key(reason), "no playout ended by {reason}: {reasons:?}");
                }
            }

            /// Issue #22: every view, event and listed action of seeded
            /// playouts matches the JSON Schema derived from its Rust type.
            #[test]
            fn harness_payloads_match_their_json_schemas() {
                let schemas = harness::Compiled::of::<$G>();
                harness::checked_playouts::<$G>(json!($config), $seats, $games / 10, Some(&schemas));
            }

            #[test]
            fn harness_malformed_input_is_refused_never_a_panic() {
                harness::malformed::<$G>(json!($config), $seats, 5_000);
            }
        }
    };
}

use posthorn_rules::banqi::Banqi;
use posthorn_rules::checkers::Checkers;
use posthorn_rules::flipchess::FlipChess;
use posthorn_rules::four_player_chess::FourPlayerChess;
use posthorn_rules::janggi::Janggi;
use toy::Pebbles;

harness!(checkers_american: Checkers, {"variant": "american"}, 2, 3_000, ["no_legal_move", "no_pieces", "threefold_repetition", "draw_agreed", "abandoned"]);
harness!(checkers_brazilian: Checkers, {"variant": "brazilian"}, 2, 2_000, ["no_legal_move", "no_pieces", "abandoned"]);
harness!(checkers_russian: Checkers, {"variant": "russian"}, 2, 2_000, ["no_legal_move", "no_pieces", "abandoned"]);
harness!(checkers_pool: Checkers, {"variant": "pool"}, 2, 2_000, ["no_legal_move", "no_pieces", "abandoned"]);
harness!(checkers_spanish: Checkers, {"variant": "spanish"}, 2, 2_000, ["no_legal_move", "no_pieces", "abandoned"]);
harness!(checkers_international: Checkers, {"variant": "international"}, 2, 2_000, ["no_pieces", "abandoned"]);
harness!(checkers_thai: Checkers, {"variant": "thai"}, 2, 2_000, ["no_pieces", "abandoned"]);
harness!(flipchess: FlipChess, {}, 2, 2_000, ["king_captured", "hand_emptied", "round_limit", "abandoned"]);
harness!(janggi: Janggi, {}, 2, 1_000, ["bikjang", "ply_limit", "abandoned"]);
harness!(janggi_msms_against_smms: Janggi, {"setups": {"cho": "MSMS", "han": "SMMS"}}, 2, 500, ["bikjang", "ply_limit"]);
harness!(janggi_mssm_against_msms: Janggi, {"setups": {"cho": "MSSM", "han": "MSMS"}}, 2, 500, ["bikjang", "ply_limit"]);
harness!(banqi: Banqi, {}, 2, 2_000, ["no_pieces", "no_legal_move", "no_progress", "abandoned"]);
harness!(four_player_chess_teams: FourPlayerChess, {"mode": "teams"}, 4, 30, ["abandoned"]);
harness!(four_player_chess_teams_two_players: FourPlayerChess, {"mode": "teams"}, 2, 30, ["abandoned"]);
harness!(four_player_chess_ffa: FourPlayerChess, {"mode": "ffa"}, 4, 20, ["abandoned"]);
harness!(four_player_chess_ffa_three_players: FourPlayerChess, {"mode": "ffa"}, 3, 20, ["abandoned"]);
harness!(four_player_chess_ffa_two_players: FourPlayerChess, {"mode": "ffa"}, 2, 20, ["abandoned"]);
harness!(four_player_chess_points: FourPlayerChess, {"mode": "points"}, 4, 20, ["abandoned"]);
harness!(four_player_chess_points_three_players: FourPlayerChess, {"mode": "points"}, 3, 20, ["abandoned"]);
harness!(four_player_chess_points_two_players: FourPlayerChess, {"mode": "points"}, 2, 20, ["abandoned"]);
harness!(pebbles: Pebbles, {}, 2, 500, ["last_pebble", "abandoned"]);
harness!(pebbles_last_loses: Pebbles, {"mode": "last_loses"}, 2, 500, ["last_pebble"]);

/// The schemas bite: what the game would not produce does not match.
#[test]
fn schemas_refuse_what_the_types_cannot_hold() {
    let checkers = harness::Compiled::of::<Checkers>();
    assert!(checkers.takes_action(&json!({"type": "move", "move": "11-15"})));
    assert!(checkers.takes_action(&json!({"type": "resign"})));
    for wrong in [
        json!({"type": "move"}),
        json!({"type": "move", "move": 1115}),
        json!({"type": "teleport"}),
        json!({"type": "resign", "why": "bored"}),
    ] {
        assert!(!checkers.takes_action(&wrong), "{wrong}");
    }
    let flipchess = harness::Compiled::of::<FlipChess>();
    assert!(flipchess.takes_action(
        &json!({"type": "play", "card": "red-7", "colour": null, "last_card": false})
    ));
    assert!(!flipchess.takes_action(
        &json!({"type": "play", "card": "red-7", "colour": "purple", "last_card": false})
    ));
}

#[test]
#[should_panic(expected = "shows a secret")]
fn harness_leak_check_catches_a_secret_shown_to_the_wrong_seat() {
    harness::playouts::<Pebbles>(json!({"leak_tokens": true}), 2, 1);
}

/// Rewards §R3: a resignation that does not name its seat is caught.
#[test]
#[should_panic(expected = "a departure names its seat")]
fn harness_departure_check_catches_a_resignation_that_names_nobody() {
    harness::playouts::<Pebbles>(json!({"quiet_departures": true}), 2, 200);
}

#[test]
fn every_game_of_the_crate_is_in_this_registry() {
    for game in posthorn_rules::GameId::ALL {
        assert!(
            registry::GameId::parse(game.id()).is_some(),
            "{}",
            game.id()
        );
    }
    assert!(registry::GameId::parse("pebbles").is_some());
    assert!(
        posthorn_rules::GameId::parse("pebbles").is_none(),
        "the toy stays in tests"
    );
}

#[test]
fn a_game_named_with_a_variant_or_mode_gets_the_matching_option() {
    use posthorn_rules::GameId;
    let named = |name| GameId::named(name).map(|(game, options)| (game.id(), options));
    assert_eq!(named("janggi"), Some(("janggi", json!({}))));
    assert_eq!(
        named("checkers/russian"),
        Some(("checkers", json!({"variant": "russian"})))
    );
    assert_eq!(
        named("four_player_chess/ffa"),
        Some(("four_player_chess", json!({"mode": "ffa"})))
    );
    assert_eq!(named("chess/ffa"), None);
}

#[test]
fn the_registry_dispatches_a_whole_toy_match_through_json() {
    use posthorn_rules::{Env, Seat, SplitMix64};
    let game = registry::GameId::parse("pebbles").unwrap();
    let mut random = SplitMix64::new(3);
    let opening = registry::MatchState::setup(game, &json!({"pile": 2}), 2, &mut random).unwrap();
    let mut state = registry::MatchState::replay(game, &opening).unwrap();
    let mut env = Env {
        now: 0,
        random: &mut random,
    };
    let events = state
        .act(Seat(0), &json!({"type": "take", "count": 2}), &mut env)
        .unwrap();
    for e in &events {
        state.apply(e).unwrap();
    }
    // The toy keeps `Game::told`'s default: no event is told as a move.
    assert_eq!(state.told(&events[0]).unwrap(), None);
    assert_eq!(state.outcome().unwrap().winners, [Seat(0)]);
    assert!(state.to_act().is_empty());
}

/// The list generates the computer opponent's dispatch too: the toy's
/// engine decides from the view read into its own type, and a value that
/// is not a view is refused, never a panic.
#[test]
fn the_registry_dispatches_the_toy_engine_through_json() {
    use posthorn_rules::engine::Level;
    use posthorn_rules::{RuleCode, Seat, SplitMix64, Viewer};
    let game = registry::GameId::parse("pebbles").unwrap();
    let mut random = SplitMix64::new(3);
    let opening = registry::MatchState::setup(game, &json!({"pile": 7}), 2, &mut random).unwrap();
    let state = registry::MatchState::replay(game, &opening).unwrap();
    let view = state.view(Viewer::Seat(Seat(0)));
    let action = game
        .decide(&view, Seat(0), Level::Hard, &mut random)
        .unwrap();
    assert_eq!(action, json!({"type": "take", "count": 3}));
    for bad in [
        json!({}),
        json!([7]),
        json!({"pile": "seven", "on_move": 0}),
    ] {
        let refused = game.decide(&bad, Seat(0), Level::Easy, &mut random);
        assert_eq!(
            refused.unwrap_err().code,
            RuleCode::ValidationFailed,
            "{bad}"
        );
    }
}

/// Whether `fold` refuses the game's start with its `position` replaced by
/// one that does not parse: a corrupted log (issue #48).
fn refuses_an_unreadable_start<G: posthorn_rules::Game>(
    fold: fn(&mut G::State, &G::Event) -> Result<(), posthorn_rules::RuleError>,
) -> bool {
    let config = G::Config::default();
    let mut random = posthorn_rules::SplitMix64::new(48);
    let opening = G::setup(&config, *G::seats(&config).end(), &mut random).unwrap();
    let mut start = serde_json::to_value(&opening[0]).unwrap();
    start["position"] = json!("not a position");
    let start: G::Event = serde_json::from_value(start).unwrap();
    fold(&mut G::State::default(), &start).is_err()
}

/// Issue #48: a stored position that does not parse is an error, never
/// the start position (as every game's fold once made it).
#[test]
fn a_stored_position_that_does_not_parse_is_an_error() {
    assert!(refuses_an_unreadable_start::<FlipChess>(FlipChess::apply));
    assert!(refuses_an_unreadable_start::<Checkers>(Checkers::apply));
    assert!(refuses_an_unreadable_start::<Janggi>(Janggi::apply));
    assert!(refuses_an_unreadable_start::<Banqi>(Banqi::apply));
    assert!(refuses_an_unreadable_start::<FourPlayerChess>(
        FourPlayerChess::apply
    ));
    // The check bites: a fold that falls back quietly passes it by.
    let lenient: fn(&mut _, &_) -> Result<(), posthorn_rules::RuleError> = |state, event| {
        let _ = Checkers::apply(state, event);
        Ok(())
    };
    assert!(!refuses_an_unreadable_start::<Checkers>(lenient));
}

/// Each `data/<game>[-<variant>].tsv`: rows of position, depth and count.
/// Debug builds leave rows above a million nodes to `.ci/run`'s release run.
#[test]
fn perft_files_match_their_counts() {
    let max_nodes = if cfg!(debug_assertions) {
        1_000_000
    } else {
        u64::MAX
    };
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut files = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        // `puzzles/` holds the mined puzzles (tests/puzzles.rs).
        if path.is_dir() {
            continue;
        }
        let stem = path.file_stem().unwrap().to_str().unwrap().to_owned();
        let (id, config) = match stem.split_once('-') {
            Some((id, variant)) => (id.to_owned(), json!({"variant": variant})),
            None => (stem.clone(), json!({})),
        };
        let game = registry::GameId::parse(&id).unwrap_or_else(|| panic!("{stem}: no such game"));
        let text = std::fs::read_to_string(&path).unwrap();
        let mut ran = 0;
        for (n, line) in text.lines().enumerate() {
            let Some((position, depth, count)) = harness::perft_row(line) else {
                continue;
            };
            if count > max_nodes {
                continue;
            }
            let got = game
                .perft(&config, position, depth)
                .unwrap_or_else(|e| panic!("{stem}:{}: {e}", n + 1));
            assert_eq!(got, count, "{stem}:{}: perft {depth} of {position}", n + 1);
            ran += 1;
        }
        assert!(ran > 0, "{stem}: no row ran");
        files += 1;
    }
    for game in registry::GameId::ALL {
        assert!(
            dir.join(format!("{}.tsv", game.id())).exists() || files == 0,
            "{} has no perft file",
            game.id()
        );
    }
}
