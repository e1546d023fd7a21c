//! A move as a turn notice tells it (issue #66 item 7): every game, one
//! line each, through the JSON contract the service calls
//! (`MatchState::told`), and the cases a first move does not reach —
//! a checkers multiple jump, a Banqi turn-up and what stays face down.

use posthorn_rules::{Env, GameId, MatchState, Seat, SplitMix64, Told, Viewer};
use serde_json::{json, Value};

/// The web client's words: every piece key told must be one of them.
const WORDS: &str = include_str!("../../src/web/words.js");

/// The piece a spectator sees on `square`, as a `words.js` key: the
/// test's oracle, read from the public view in each game's own terms.
fn seen_on(view: &Value, square: &str) -> Option<String> {
    let game = view["game"].as_str()?;
    if game == "flipchess" {
        return fen_piece(view["position"].as_str()?, square)
            .map(|c| format!("piece_chess_{}", c.to_ascii_lowercase()));
    }
    let piece = view["pieces"].as_array()?.iter().find(|p| {
        p["square"].as_str() == Some(square)
            || p["square"].as_u64().map(|n| n.to_string()) == Some(square.to_owned())
    })?;
    let kind = piece["kind"].as_str().unwrap_or_default();
    Some(match game {
        "checkers" if piece["king"] == true => "piece_checkers_king".to_owned(),
        "checkers" => "piece_checkers_man".to_owned(),
        "four_player_chess" => {
            let letter = if kind == "knight" {
                'n'
            } else {
                kind.chars().next()?
            };
            format!("piece_chess_{letter}")
        }
        _ => format!("piece_{game}_{kind}"),
    })
}

/// The piece letter on `square` (`e4`) of a chess FEN.
fn fen_piece(fen: &str, square: &str) -> Option<char> {
    let (file, rank) = (
        square.as_bytes()[0] - b'a',
        square[1..].parse::<usize>().ok()?,
    );
    let row = fen.split(' ').next()?.split('/').nth(8 - rank)?;
    let mut at = 0;
    for c in row.chars() {
        match c.to_digit(10) {
            Some(n) => at += n as u8,
            None if at == file => return Some(c),
            None => at += 1,
        }
    }
    None
}

/// Whether `told` tells the stored move `event` rightly, `after` being the
/// view once its append is folded: a piece key of `family` that
/// `words.js` has, the piece the view shows there, and the squares as the
/// move writes them, first the one it leaves.
fn tells_the_move(
    told: Option<Told>,
    event: &Value,
    after: &Value,
    family: &str,
) -> Result<(), String> {
    let notation = event["move"].as_str().ok_or("no move")?;
    let Some(Told::Moved {
        piece: Some(piece),
        from,
        to,
    }) = told
    else {
        return Err(format!("{told:?} for {event}"));
    };
    if !piece.starts_with(family) || !WORDS.contains(&format!("{piece}:")) {
        return Err(format!("{piece} is no piece of words.js's {family}*"));
    }
    if !notation.starts_with(&from) || !notation[from.len()..].contains(&to) {
        return Err(format!("{from}→{to} is not {notation}"));
    }
    match seen_on(after, &to) {
        Some(seen) if seen == piece => Ok(()),
        seen => Err(format!("told {piece} on {to}, the view shows {seen:?}")),
    }
}

/// Steps the tests prefer, in order: a move first, else what leads to one.
const PREFERRED: [&str; 5] = ["move", "play", "turn_up", "draw", "end_turn"];

/// Play `name` from a seeded start, moves first, until an append moves a
/// piece; that move is told rightly, and every event on the way is told
/// only if it moves a piece or turns one up.
fn a_move_is_told(name: &str, seats: usize, family: &str) {
    let (game, config) = GameId::named(name).unwrap();
    let mut random = SplitMix64::new(66);
    let opening = MatchState::setup(game, &config, seats, &mut random).unwrap();
    let mut state = MatchState::replay(game, &opening).unwrap();
    for event in &opening {
        assert_eq!(state.told(event).unwrap(), None, "{name}: {event}");
    }
    for _ in 0..40 {
        let seat = state.to_act()[0].seat;
        let listed = state.legal_actions(seat);
        let action = PREFERRED
            .iter()
            .find_map(|kind| listed.iter().find(|a| a["type"] == *kind))
            .unwrap_or_else(|| panic!("{name}: nothing to play in {listed:?}"));
        let mut env = Env {
            now: 0,
            random: &mut random,
        };
        let events = state.act(seat, action, &mut env).unwrap();
        for event in &events {
            state.apply(event).unwrap();
        }
        let after = state.view(Viewer::Spectator);
        let mut moved = false;
        for event in &events {
            let told = state.told(event).unwrap();
            match event["type"].as_str() {
                Some("moved") => {
                    tells_the_move(told, event, &after, family)
                        .unwrap_or_else(|e| panic!("{name}: {e}"));
                    moved = true;
                }
                Some("turned_up") => assert!(
                    matches!(told, Some(Told::TurnedUp { .. })),
                    "{name}: {event}"
                ),
                _ => assert_eq!(told, None, "{name}: {event}"),
            }
        }
        if moved {
            return;
        }
    }
    panic!("{name}: no move in 40 steps");
}

macro_rules! told {
    ($($test:ident: $name:expr, $seats:expr, $family:expr;)+) => {
        $(#[test]
        fn $test() {
            a_move_is_told($name, $seats, $family);
        })+
    };
}

told! {
    flipchess_a_move_is_told: "flipchess", 2, "piece_chess_";
    checkers_a_move_is_told: "checkers", 2, "piece_checkers_";
    checkers_international_a_move_is_told: "checkers/international", 2, "piece_checkers_";
    janggi_a_move_is_told: "janggi", 2, "piece_janggi_";
    banqi_a_move_is_told: "banqi", 2, "piece_banqi_";
    four_player_chess_a_move_is_told: "four_player_chess", 4, "piece_chess_";
    four_player_chess_ffa_a_move_is_told: "four_player_chess/ffa", 3, "piece_chess_";
}

/// The check bites: a wrong key, wrong squares, no piece and a piece the
/// view does not show are each refused, and a resignation tells nothing.
#[test]
fn the_check_refuses_a_wrong_telling() {
    let (game, config) = GameId::named("janggi").unwrap();
    let mut random = SplitMix64::new(66);
    let opening = MatchState::setup(game, &config, 2, &mut random).unwrap();
    let mut state = MatchState::replay(game, &opening).unwrap();
    // Cho's chariot leaves its corner (§J3).
    let seat = state.to_act()[0].seat;
    let mut env = Env {
        now: 0,
        random: &mut random,
    };
    let events = state
        .act(seat, &json!({"type": "move", "move": "a1a2"}), &mut env)
        .unwrap();
    for event in &events {
        state.apply(event).unwrap();
    }
    let (event, view) = (&events[0], state.view(Viewer::Spectator));
    let told = |piece: Option<&'static str>, from: &str, to: &str| {
        Some(Told::Moved {
            piece,
            from: from.into(),
            to: to.into(),
        })
    };
    let right = told(Some("piece_janggi_chariot"), "a1", "a2");
    assert_eq!(state.told(event).unwrap(), right);
    assert_eq!(tells_the_move(right, event, &view, "piece_janggi_"), Ok(()));
    for wrong in [
        told(Some("piece_janggi_rook"), "a1", "a2"),
        told(Some("piece_chess_r"), "a1", "a2"),
        told(Some("piece_janggi_horse"), "a1", "a2"),
        told(Some("piece_janggi_chariot"), "a2", "a1"),
        told(Some("piece_janggi_chariot"), "a1", "a3"),
        told(None, "a1", "a2"),
        None,
    ] {
        assert!(
            tells_the_move(wrong.clone(), event, &view, "piece_janggi_").is_err(),
            "{wrong:?}"
        );
    }
    let resigned = json!({"type": "resigned", "seat": 0});
    assert_eq!(state.told(&resigned).unwrap(), None);
    assert!(
        state.told(&json!({"type": "teleported"})).is_err(),
        "an unreadable event is an error"
    );
}

/// §C1: a multiple jump is one move, told from its first square to its
/// last; the man crowned on the far row is told as the king it now is.
#[test]
fn c1_a_multiple_jump_is_told_from_first_to_last_square() {
    // Black's man on 5 must jump 9, 18 and 26, landing on the far row.
    let config = json!({"position": "B:W9,18,26,32:B5"});
    let mut random = SplitMix64::new(66);
    let opening = MatchState::setup(GameId::Checkers, &config, 2, &mut random).unwrap();
    let mut state = MatchState::replay(GameId::Checkers, &opening).unwrap();
    let mut env = Env {
        now: 0,
        random: &mut random,
    };
    let events = state
        .act(Seat(0), &json!({"type": "move", "move": "5x30"}), &mut env)
        .unwrap();
    for event in &events {
        state.apply(event).unwrap();
    }
    assert_eq!(events[0]["move"], "5x14x23x30");
    let told = state.told(&events[0]).unwrap();
    let king = Some(Told::Moved {
        piece: Some("piece_checkers_king"),
        from: "5".into(),
        to: "30".into(),
    });
    assert_eq!(told, king);
}

/// The turn-up actions open to the seat on move, each as its stored event.
fn turn_ups(state: &MatchState, random: &mut SplitMix64) -> Vec<Value> {
    let seat = state.to_act()[0].seat;
    let mut env = Env { now: 0, random };
    state
        .legal_actions(seat)
        .iter()
        .filter(|a| a["type"] == "turn_up")
        .map(|a| state.act(seat, a, &mut env).unwrap().remove(0))
        .collect()
}

/// §B8: a face-down piece is never told — not on a turn-up told against a
/// state where its square is still face down, not as a move's piece — and
/// a turned-up piece is told by the piece now face up.
#[test]
fn b8_a_turn_up_is_told_and_a_face_down_piece_never() {
    let mut random = SplitMix64::new(66);
    let opening = MatchState::setup(GameId::Banqi, &json!({}), 2, &mut random).unwrap();
    let mut state = MatchState::replay(GameId::Banqi, &opening).unwrap();
    let everywhere = turn_ups(&state, &mut random);
    assert_eq!(everywhere.len(), 32, "every square starts face down");
    for event in &everywhere {
        assert_eq!(state.told(event).unwrap(), None, "{event}");
    }
    // Moves onto face-down squares name no piece either.
    let squares: Vec<&str> = everywhere
        .iter()
        .map(|e| e["square"].as_str().unwrap())
        .collect();
    for (from, to) in squares.iter().zip(&squares[1..]) {
        let moved = json!({"type": "moved", "seat": 0, "move": format!("{from}-{to}")});
        let told = state.told(&moved).unwrap();
        assert!(
            matches!(told, Some(Told::Moved { piece: None, .. })),
            "{told:?}"
        );
    }
    let turned = &everywhere[0];
    state.apply(turned).unwrap();
    let piece = format!("piece_banqi_{}", turned["piece"]["kind"].as_str().unwrap());
    assert!(WORDS.contains(&format!("{piece}:")), "{piece}");
    let Some(Told::TurnedUp { piece: told, at }) = state.told(turned).unwrap() else {
        panic!("{turned} is not told as a turn-up");
    };
    assert_eq!(
        (told, at.as_str()),
        (piece.as_str(), turned["square"].as_str().unwrap())
    );
    for event in &turn_ups(&state, &mut random) {
        assert_eq!(
            state.told(event).unwrap(),
            None,
            "{event} is still face down"
        );
    }
}
