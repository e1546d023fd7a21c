//! Janggi, clause by clause (docs/rules/janggi.md §J). Positions are Fairy-Stockfish
//! janggi FENs; `board` builds one from a few pieces (Cho upper case).

use posthorn_rules::janggi::{
    start_position, Action, Config, Event, Janggi, Move, Position, Setup, Setups, State,
};
use posthorn_rules::{Duty, DutyKind, Env, Game, Random, Seat, SplitMix64, Viewer};

/// A FEN with `pieces` (`("e2", 'K')`) and `turn` (`'w'`: Cho).
fn board(pieces: &[(&str, char)], turn: char) -> String {
    let mut grid = [['.'; 9]; 10];
    for (square, piece) in pieces {
        let file = (square.as_bytes()[0] - b'a') as usize;
        let rank: usize = square[1..].parse().unwrap();
        grid[rank - 1][file] = *piece;
    }
    let rows: Vec<String> = grid
        .iter()
        .rev()
        .map(|row| {
            let mut text = String::new();
            let mut empty = 0;
            for c in row {
                if *c == '.' {
                    empty += 1;
                } else {
                    if empty > 0 {
                        text.push_str(&empty.to_string());
                    }
                    empty = 0;
                    text.push(*c);
                }
            }
            if empty > 0 {
                text.push_str(&empty.to_string());
            }
            text
        })
        .collect();
    format!("{} {turn} - - 0 1", rows.join("/"))
}

/// `pieces` with the kings out of each other's file: Cho's on d1, Han's
/// on e10.
fn with_kings(pieces: &[(&'static str, char)]) -> Vec<(&'static str, char)> {
    let mut all = vec![("d1", 'K'), ("e10", 'k')];
    all.extend_from_slice(pieces);
    all
}

/// The squares the piece on `from` may move to, sorted.
fn targets(fen: &str, from: &str) -> Vec<String> {
    let pos = Position::from_fen(fen).unwrap();
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    let mut out: Vec<String> = moves
        .iter()
        .map(Move::to_string)
        .filter_map(|m| m.strip_prefix(from).map(str::to_owned))
        .filter(|to| to.chars().next().is_some_and(|c| c.is_ascii_alphabetic()))
        .collect();
    out.sort();
    out
}

fn sorted(squares: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = squares.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

/// A match from `config`, seat 0 drawn to Cho unless `seed` says otherwise.
fn started(config: Config) -> State {
    let mut state = State::default();
    for seed in 0.. {
        let events = Janggi::setup(&config, 2, &mut SplitMix64::new(seed)).unwrap();
        let Event::Started { cho, .. } = &events[0] else {
            panic!()
        };
        if *cho == Seat(0) {
            for e in &events {
                Janggi::apply(&mut state, e).unwrap();
            }
            return state;
        }
    }
    unreachable!()
}

fn from_fen(fen: &str) -> State {
    started(Config {
        position: Some(fen.to_owned()),
        ..Config::default()
    })
}

fn act(state: &mut State, action: Action) -> Result<Vec<Event>, posthorn_rules::RuleError> {
    let seat = state.on_move();
    let mut random = SplitMix64::new(1);
    let mut env = Env {
        now: 0,
        random: &mut random,
    };
    let events = Janggi::act(state, seat, &action, &mut env)?;
    for e in &events {
        Janggi::apply(state, e).unwrap();
    }
    Ok(events)
}

fn play(state: &mut State, notation: &str) -> Vec<Event> {
    let action = if notation == "pass" {
        Action::Pass {}
    } else {
        Action::Move {
            notation: notation.into(),
        }
    };
    act(state, action).unwrap_or_else(|e| panic!("{notation}: {}", e.message))
}

fn finished(events: &[Event]) -> Option<&posthorn_rules::Outcome> {
    events.iter().find_map(|e| match e {
        Event::Finished { result } => Some(result),
        _ => None,
    })
}

#[test]
fn j2_each_setup_places_its_back_rank_from_the_players_own_left() {
    let rank = |fen: String, index: usize| fen.split(['/', ' ']).nth(index).unwrap().to_owned();
    for (setup, cho_rank, han_rank) in [
        (Setup::Smsm, "RBNA1ABNR", "rnba1anbr"),
        (Setup::Msms, "RNBA1ANBR", "rbna1abnr"),
        (Setup::Mssm, "RNBA1ABNR", "rnba1abnr"),
        (Setup::Smms, "RBNA1ANBR", "rbna1anbr"),
    ] {
        let fen = start_position(Setups {
            cho: setup,
            han: setup,
        })
        .to_fen();
        assert_eq!(rank(fen.clone(), 9), cho_rank, "{setup:?} for Cho");
        assert_eq!(rank(fen, 0), han_rank, "{setup:?} for Han");
    }
    // Each side chooses its own; the default is SMSM against SMSM.
    assert_eq!(
        start_position(Setups::default()).to_fen(),
        "rnba1anbr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RBNA1ABNR w - - 0 1"
    );
    let mixed = start_position(Setups {
        cho: Setup::Mssm,
        han: Setup::Msms,
    })
    .to_fen();
    assert!(mixed.starts_with("rbna1abnr/") && mixed.contains("/RNBA1ABNR w"));
}

#[test]
fn j2_the_seat_playing_cho_is_drawn_and_cho_moves_first() {
    let mut cho_seats = std::collections::HashSet::new();
    for seed in 0..20 {
        let events = Janggi::setup(&Config::default(), 2, &mut SplitMix64::new(seed)).unwrap();
        let mut state = State::default();
        Janggi::apply(&mut state, &events[0]).unwrap();
        cho_seats.insert(state.cho);
        assert_eq!(state.on_move(), state.cho);
        let view = Janggi::view(&state, Viewer::Spectator);
        assert_eq!((view.cho, view.han), (state.cho, Seat(1 - state.cho.0)));
    }
    assert_eq!(cho_seats.len(), 2, "both seats get to play Cho");
}

#[test]
fn j3_king_and_guards_step_along_the_palace_lines_and_never_leave_it() {
    // From the centre: all eight points of the palace.
    let fen = board(&[("e2", 'K'), ("f10", 'k')], 'w');
    assert_eq!(
        targets(&fen, "e2"),
        sorted(&["d1", "e1", "f1", "d2", "f2", "d3", "e3", "f3"])
    );
    // From a side's middle there is no diagonal line.
    let fen = board(&[("d2", 'K'), ("f10", 'k')], 'w');
    assert_eq!(targets(&fen, "d2"), sorted(&["d1", "d3", "e2"]));
    // A guard in a corner: along the edges and the diagonal, not out.
    let fen = board(&[("e1", 'K'), ("d3", 'A'), ("f10", 'k')], 'w');
    assert_eq!(targets(&fen, "d3"), sorted(&["d2", "e3", "e2"]));
}

#[test]
fn j3_chariot_slides_orthogonally_and_along_palace_diagonals() {
    let fen = board(&with_kings(&[("d8", 'R')]), 'w');
    let mut expected = vec!["d9", "d10", "d7", "d6", "d5", "d4", "d3", "d2"];
    expected.extend(["c8", "b8", "a8", "e8", "f8", "g8", "h8", "i8"]);
    // Corner → centre → opposite corner.
    expected.extend(["e9", "f10"]);
    assert_eq!(targets(&fen, "d8"), sorted(&expected));
    // A piece on the centre stops the diagonal there (a capture).
    let fen = board(&with_kings(&[("d8", 'R'), ("e9", 'p')]), 'w');
    let got = targets(&fen, "d8");
    assert!(got.contains(&"e9".to_owned()) && !got.contains(&"f10".to_owned()));
    // From the centre, every corner (Cho's palace).
    let fen = board(&[("d2", 'K'), ("f10", 'k'), ("e2", 'R')], 'w');
    let got = targets(&fen, "e2");
    for corner in ["d1", "f1", "d3", "f3"] {
        assert!(got.contains(&corner.to_owned()), "{corner}: {got:?}");
    }
    // A side's middle point of the palace has no diagonal line.
    let fen = board(&with_kings(&[("e8", 'R')]), 'w');
    assert!(!targets(&fen, "e8")
        .iter()
        .any(|t| t == "d9" || t == "f9" || t == "d7"));
}

#[test]
fn j3_cannon_needs_exactly_one_screen_to_move() {
    // Alone on its lines: no move at all.
    let fen = board(&with_kings(&[("a5", 'C')]), 'w');
    assert!(targets(&fen, "a5").is_empty());
    // Over a screen: every empty point beyond, up to and including the
    // first enemy piece (a capture), nothing past it.
    let fen = board(&with_kings(&[("a5", 'C'), ("a6", 'P'), ("a9", 'r')]), 'w');
    assert_eq!(targets(&fen, "a5"), sorted(&["a7", "a8", "a9"]));
}

#[test]
fn j3_cannon_never_jumps_a_cannon() {
    let fen = board(&with_kings(&[("a5", 'C'), ("a6", 'c'), ("a9", 'r')]), 'w');
    assert!(targets(&fen, "a5").is_empty());
    let fen = board(&with_kings(&[("a5", 'C'), ("a6", 'C')]), 'w');
    assert!(targets(&fen, "a5").is_empty());
}

#[test]
fn j3_cannon_never_captures_a_cannon() {
    let fen = board(&with_kings(&[("a5", 'C'), ("a6", 'P'), ("a8", 'c')]), 'w');
    assert_eq!(targets(&fen, "a5"), sorted(&["a7"]));
}

#[test]
fn j3_cannon_jumps_the_palace_centre_corner_to_corner() {
    // Over a non-cannon on the centre to the opposite corner.
    let fen = board(&[("d1", 'C'), ("e2", 'A'), ("e1", 'K'), ("d10", 'k')], 'w');
    assert!(targets(&fen, "d1").contains(&"f3".to_owned()));
    // No screen on the centre: no diagonal move.
    let fen = board(&[("d1", 'C'), ("e1", 'K'), ("d10", 'k'), ("d5", 'P')], 'w');
    assert!(!targets(&fen, "d1").iter().any(|t| t == "e2" || t == "f3"));
    // A cannon on the centre is no screen.
    let fen = board(&[("d1", 'C'), ("e2", 'C'), ("e1", 'K'), ("d10", 'k')], 'w');
    assert!(!targets(&fen, "d1").contains(&"f3".to_owned()));
    // In Han's palace too, capturing there.
    let fen = board(
        &[
            ("d8", 'C'),
            ("e9", 'p'),
            ("f10", 'r'),
            ("e1", 'K'),
            ("d10", 'k'),
        ],
        'w',
    );
    assert!(targets(&fen, "d8").contains(&"f10".to_owned()));
}

#[test]
fn j3_horse_is_blocked_on_its_orthogonal_step() {
    let fen = board(&with_kings(&[("e5", 'N')]), 'w');
    let free = sorted(&["d7", "f7", "d3", "f3", "c6", "c4", "g6", "g4"]);
    assert_eq!(targets(&fen, "e5"), free);
    let fen = board(&with_kings(&[("e5", 'N'), ("e6", 'p')]), 'w');
    assert_eq!(
        targets(&fen, "e5"),
        sorted(&["d3", "f3", "c6", "c4", "g6", "g4"])
    );
}

#[test]
fn j3_elephant_is_blocked_on_its_orthogonal_and_first_diagonal_steps() {
    let fen = board(&with_kings(&[("e5", 'B')]), 'w');
    let all = sorted(&["c8", "g8", "c2", "g2", "b7", "b3", "h7", "h3"]);
    assert_eq!(targets(&fen, "e5"), all);
    // The orthogonal step e6 taken: both northern targets go.
    let fen = board(&with_kings(&[("e5", 'B'), ("e6", 'p')]), 'w');
    assert_eq!(
        targets(&fen, "e5"),
        sorted(&["c2", "g2", "b7", "b3", "h7", "h3"])
    );
    // The first diagonal step d7 taken: only c8 goes.
    let fen = board(&with_kings(&[("e5", 'B'), ("d7", 'p')]), 'w');
    assert_eq!(
        targets(&fen, "e5"),
        sorted(&["g8", "c2", "g2", "b7", "b3", "h7", "h3"])
    );
}

#[test]
fn j3_soldier_steps_forward_or_sideways_never_back() {
    let fen = board(&with_kings(&[("e5", 'P')]), 'w');
    assert_eq!(targets(&fen, "e5"), sorted(&["e6", "d5", "f5"]));
    let fen = board(&with_kings(&[("e6", 'p')]), 'b');
    assert_eq!(targets(&fen, "e6"), sorted(&["e5", "d6", "f6"]));
}

#[test]
fn j3_soldier_goes_diagonally_forward_on_the_enemy_palace_lines() {
    let kings = [("d1", 'K'), ("f9", 'k')];
    let mut at_corner = kings.to_vec();
    at_corner.push(("d8", 'P'));
    assert_eq!(
        targets(&board(&at_corner, 'w'), "d8"),
        sorted(&["d9", "c8", "e8", "e9"])
    );
    let mut at_centre = kings.to_vec();
    at_centre.push(("e9", 'P'));
    assert_eq!(
        targets(&board(&at_centre, 'w'), "e9"),
        sorted(&["e10", "d9", "f9", "d10", "f10"])
    );
    // The middle of a side is off the diagonals.
    let mut at_side = kings.to_vec();
    at_side.push(("e8", 'P'));
    assert_eq!(
        targets(&board(&at_side, 'w'), "e8"),
        sorted(&["e9", "d8", "f8"])
    );
    // Han's soldier in Cho's palace, towards Cho's back rank.
    let fen = board(&[("d1", 'K'), ("f10", 'k'), ("f3", 'p')], 'b');
    assert_eq!(targets(&fen, "f3"), sorted(&["f2", "e3", "g3", "e2"]));
}

#[test]
fn j4_a_move_may_not_leave_ones_own_king_in_check() {
    // Cho's chariot on e5 shields its king on e1 from Han's chariot on e8.
    let fen = board(&[("e1", 'K'), ("e5", 'R'), ("e8", 'r'), ("d10", 'k')], 'w');
    let got = targets(&fen, "e5");
    assert!(
        !got.iter().any(|t| t.starts_with('d') || t.starts_with('a')),
        "{got:?}"
    );
    assert!(got.contains(&"e8".to_owned()) && got.contains(&"e6".to_owned()));
    let mut state = from_fen(&fen);
    assert!(act(
        &mut state,
        Action::Move {
            notation: "e5a5".into()
        }
    )
    .is_err());
}

#[test]
fn j4_checkmate_loses() {
    // Han's chariot c5 to d5 checks down the d file; e5 covers e1 and e2.
    let fen = board(&[("d1", 'K'), ("c5", 'r'), ("e5", 'r'), ("f10", 'k')], 'b');
    let mut state = from_fen(&fen);
    let han = state.on_move();
    let events = play(&mut state, "c5d5");
    let result = finished(&events).expect("the match is over");
    assert_eq!(
        (result.reason.as_str(), result.winners.clone()),
        ("checkmate", vec![han])
    );
    assert!(result.scores.is_some(), "every ending carries both scores");
}

#[test]
fn j5_pass_is_allowed_only_when_not_in_check() {
    let mut state = started(Config::default());
    assert!(Janggi::legal_actions(&state, state.on_move()).contains(&Action::Pass {}));
    play(&mut state, "pass");
    assert_eq!(state.last_move.as_deref(), Some("pass"));
    // In check: no pass listed, and a pass is refused.
    let fen = board(&[("d1", 'K'), ("d5", 'r'), ("f10", 'k')], 'w');
    let mut state = from_fen(&fen);
    assert!(Janggi::view(&state, Viewer::Spectator).in_check);
    assert!(!Janggi::legal_actions(&state, state.on_move()).contains(&Action::Pass {}));
    let refused = act(&mut state, Action::Pass {}).unwrap_err();
    assert!(refused.message.contains("check"), "{}", refused.message);
}

#[test]
fn j5_with_no_legal_move_and_not_in_check_the_only_action_is_to_pass() {
    // Cho's king on d1: d2 and e2 are covered by the chariot on a2, e1 by the horse on f3.
    let fen = board(&[("d1", 'K'), ("a2", 'r'), ("f3", 'n'), ("f10", 'k')], 'w');
    let state = from_fen(&fen);
    assert!(!Janggi::view(&state, Viewer::Spectator).in_check);
    let listed = Janggi::legal_actions(&state, state.on_move());
    assert_eq!(listed, vec![Action::Pass {}, Action::Resign {}]);
}

#[test]
fn j6_bikjang_made_by_a_move_ends_on_points() {
    let fen = board(&[("e1", 'K'), ("e5", 'R'), ("e10", 'k'), ("a10", 'r')], 'w');
    let mut state = from_fen(&fen);
    let events = play(&mut state, "e5b5");
    let result = finished(&events).expect("bikjang ends the match");
    assert_eq!(result.reason, "bikjang");
    // Cho 13 (a chariot), Han 13 + 1.5: Han wins on points.
    assert_eq!(
        result.winners,
        vec![state.seat_of(posthorn_rules::janggi::Side::Han)]
    );
    assert_eq!(result.scores.as_deref(), Some(&[13.0, 14.5][..]));
}

#[test]
fn j6_two_passes_in_a_row_end_on_points() {
    let mut state = started(Config::default());
    assert!(finished(&play(&mut state, "pass")).is_none());
    let result = finished(&play(&mut state, "pass"))
        .cloned()
        .expect("double pass");
    assert_eq!(result.reason, "double_pass");
    assert_eq!(result.scores.as_deref(), Some(&[72.0, 73.5][..]));
    assert_eq!(
        result.winners,
        vec![state.seat_of(posthorn_rules::janggi::Side::Han)]
    );
    // A pass, a move, a pass does not end it.
    let mut state = started(Config::default());
    play(&mut state, "pass");
    play(&mut state, "a10a9");
    assert!(finished(&play(&mut state, "pass")).is_none());
}

#[test]
fn j6_the_third_repetition_ends_on_points() {
    let mut state = started(Config::default());
    let shuffle = ["a1a2", "a10a9", "a2a1", "a9a10"];
    for (n, mv) in shuffle.iter().chain(shuffle.iter()).enumerate() {
        let events = play(&mut state, mv);
        let end = finished(&events);
        if n < 7 {
            assert!(end.is_none(), "ended at ply {}", n + 1);
        } else {
            assert_eq!(end.unwrap().reason, "threefold_repetition");
        }
    }
}

#[test]
fn j6_two_hundred_plies_end_on_points_passes_included() {
    let mut state = started(Config::default());
    state.plies = 198;
    assert_eq!(
        Janggi::view(&state, Viewer::Spectator).plies_until_ply_limit,
        2
    );
    assert!(finished(&play(&mut state, "pass")).is_none());
    let result = finished(&play(&mut state, "a10a9"))
        .cloned()
        .expect("ply limit");
    assert_eq!(result.reason, "ply_limit");
}

#[test]
fn j7_points_count_the_pieces_and_han_adds_one_and_a_half() {
    let state = started(Config::default());
    let view = Janggi::view(&state, Viewer::Spectator);
    assert_eq!((view.points.cho, view.points.han), (72.0, 73.5));
    // A capture takes the piece's points: Han's soldier (2) on a5 taken.
    let fen = board(&[("e1", 'K'), ("a4", 'R'), ("a5", 'p'), ("f10", 'k')], 'w');
    let mut state = from_fen(&fen);
    play(&mut state, "a4a5");
    let view = Janggi::view(&state, Viewer::Spectator);
    assert_eq!((view.points.cho, view.points.han), (13.0, 1.5));
}

#[test]
fn j8_resignation_and_abandonment_lose_with_both_scores() {
    let mut state = started(Config::default());
    let cho = state.on_move();
    let events = act(&mut state, Action::Resign {}).unwrap();
    let result = finished(&events).unwrap();
    assert_eq!(
        (result.reason.as_str(), result.winners.clone()),
        ("resigned", vec![Seat(1 - cho.0)])
    );
    assert_eq!(result.scores.as_deref(), Some(&[72.0, 73.5][..]));

    let state = started(Config::default());
    let duty = Duty::new(state.on_move(), DutyKind::Turn);
    let events = Janggi::deadline_passed(&state, &duty);
    let result = finished(&events).unwrap();
    assert_eq!(
        (result.reason.as_str(), result.winners.clone()),
        ("abandoned", vec![Seat(1 - cho.0)])
    );
}

#[test]
fn notation_reads_from_and_to_and_pass() {
    assert_eq!(
        Move::parse("e9e10").map(|m| m.to_string()).as_deref(),
        Some("e9e10")
    );
    assert_eq!(
        Move::parse("b1c3").map(|m| m.to_string()).as_deref(),
        Some("b1c3")
    );
    assert_eq!(Move::parse("pass"), Some(Move::Pass));
    for bad in ["", "e0e1", "j1a1", "a11a1", "e1e1", "e1", "b1-c3"] {
        assert!(Move::parse(bad).is_none(), "{bad}");
    }
    let mut state = started(Config::default());
    let refused = act(
        &mut state,
        Action::Move {
            notation: "b1-c3".into(),
        },
    )
    .unwrap_err();
    assert_eq!(refused.code, "validation_failed");
    let refused = act(
        &mut state,
        Action::Move {
            notation: "a1a5".into(),
        },
    )
    .unwrap_err();
    assert_eq!(refused.code, "illegal_action");
}

/// The seed's ranks by rating: 5급 and below up to 1299, 1단 and above from
/// 1500 (the titles the service shows beside a Janggi rating).
#[test]
fn janggi_titles_follow_the_seeds_anchors() {
    let title = |rating: i32| {
        posthorn_rules::janggi::JANGGI_TITLES
            .iter()
            .rev()
            .find(|(from, _)| rating >= *from)
            .map(|(_, t)| *t)
    };
    assert_eq!(title(1299), Some("5급"));
    assert_eq!(title(1000), Some("7급"));
    assert_eq!(title(1499), Some("1급"));
    assert_eq!(title(1500), Some("1단"));
    assert_eq!(title(2500), Some("7단"));
    assert_eq!(Janggi::ABOUT.titles, posthorn_rules::janggi::JANGGI_TITLES);
}

/// §J4: the legal moves the rules list (which play out only the steps
/// that could expose the king, a shortcut the computer's search relies
/// on) are exactly the moves `is_legal` accepts by playing every step out,
/// and `has_step` agrees (and `captures` lists those that take), over
/// seeded random games from the standard
/// setups (with captures, checks and passes along the way).
#[test]
fn j4_the_listed_moves_are_exactly_those_that_leave_the_king_safe() {
    let mut random = SplitMix64::new(48);
    let mut positions = 0;
    for game in 0..80 {
        let setups = [Setups::default(), other_setups()][game % 2];
        let mut pos: Position = start_position(setups);
        for _ in 0..160 {
            let mut listed = Vec::new();
            pos.legal_moves(&mut listed);
            let mut every: Vec<Move> = (0..90u8)
                .flat_map(|from| (0..90u8).map(move |to| Move::Step { from, to }))
                .chain([Move::Pass])
                .filter(|mv| pos.is_legal(*mv))
                .collect();
            let (mut a, mut b) = (listed.clone(), std::mem::take(&mut every));
            a.sort_by_key(|m| format!("{m:?}"));
            b.sort_by_key(|m| format!("{m:?}"));
            assert_eq!(a, b, "at {}", pos.to_fen());
            // The captures the engine's quiescence follows are the listed
            // steps that take, in the list's order.
            let mut captures = Vec::new();
            pos.captures(&mut captures);
            let taking: Vec<Move> = (listed.iter().copied())
                .filter(|m| matches!(m, Move::Step { to, .. } if pos.piece(*to).is_some()))
                .collect();
            assert_eq!(captures, taking, "at {}", pos.to_fen());
            // With the kings facing nothing is legal (§J6), whatever steps
            // the pieces have.
            if !pos.kings_face() {
                let steps = b.iter().any(|m| *m != Move::Pass);
                assert_eq!(pos.has_step(), steps, "at {}", pos.to_fen());
            }
            positions += 1;
            if listed.is_empty() {
                break;
            }
            // Prefer steps, so the game goes somewhere.
            let steps: Vec<&Move> = listed.iter().filter(|m| **m != Move::Pass).collect();
            let pick = match steps.is_empty() {
                true => listed[0],
                false => *steps[random.below(steps.len() as u64) as usize],
            };
            pos = pos.play(pick).0;
        }
    }
    assert!(positions > 400, "{positions} positions checked");
}

/// A second pair of setups for the check above.
fn other_setups() -> Setups {
    Setups {
        cho: Setup::Mssm,
        han: Setup::Smms,
    }
}
