//! Banqi, clause by clause (docs/rules/banqi.md §B). Positions in §B9 notation:
//! ranks 4 to 1, red upper case, face down `?K`.

use posthorn_rules::banqi::{
    perft, shuffled, Action, Banqi, Cell, Colour, Config, Event, Kind, Piece, Position, State, Step,
};
use posthorn_rules::{Duty, DutyKind, Env, Game, Random, Seat, SplitMix64, Viewer};

fn steps(notation: &str) -> Vec<String> {
    let pos = Position::from_notation(notation).unwrap();
    let mut out = Vec::new();
    pos.legal_steps(&mut out);
    out.iter().map(Step::to_string).collect()
}

/// A match from `position` with seat 0 acting first.
fn from_position(position: &str) -> State {
    for seed in 0.. {
        let config = Config {
            position: Some(position.to_owned()),
        };
        let events = Banqi::setup(&config, 2, &mut SplitMix64::new(seed)).unwrap();
        let Event::Started { first, .. } = &events[0] else {
            panic!()
        };
        if *first == Seat(0) {
            let mut state = State::default();
            events
                .iter()
                .for_each(|e| Banqi::apply(&mut state, e).unwrap());
            return state;
        }
    }
    unreachable!()
}

fn act(state: &mut State, action: Action) -> Result<Vec<Event>, posthorn_rules::RuleError> {
    let seat = state.on_move();
    let mut random = SplitMix64::new(1);
    let mut env = Env {
        now: 0,
        random: &mut random,
    };
    let events = Banqi::act(state, seat, &action, &mut env)?;
    events.iter().for_each(|e| Banqi::apply(state, e).unwrap());
    Ok(events)
}

fn play(state: &mut State, text: &str) -> Vec<Event> {
    let action = if text.len() == 2 {
        Action::TurnUp {
            square: text.into(),
        }
    } else {
        Action::Move {
            notation: text.into(),
        }
    };
    act(state, action).unwrap_or_else(|e| panic!("{text}: {}", e.message))
}

fn ending(events: &[Event]) -> Option<(String, Vec<Seat>)> {
    events.iter().find_map(|e| match e {
        Event::Finished { result } => Some((result.reason.clone(), result.winners.clone())),
        _ => None,
    })
}

#[test]
fn b1_thirty_two_pieces_shuffled_face_down() {
    let set = Piece::set();
    assert_eq!(set.len(), 32);
    for colour in [Colour::Red, Colour::Black] {
        let count = |kind| set.iter().filter(|p| **p == Piece { colour, kind }).count();
        assert_eq!(
            Kind::ALL.map(count),
            [1, 2, 2, 2, 2, 2, 5],
            "general, advisors, elephants, chariots, horses, cannons, soldiers"
        );
    }
    let a = shuffled(&mut SplitMix64::new(1));
    let b = shuffled(&mut SplitMix64::new(2));
    assert!(a.cells.iter().all(|c| matches!(c, Cell::Down(_))));
    assert_ne!(a, b, "the layout is drawn");
    assert_eq!((a.to_act, a.quiet), (None, 0));
}

#[test]
fn b2_the_first_seat_is_drawn_and_the_first_turn_up_fixes_colours() {
    let mut firsts = std::collections::HashSet::new();
    for seed in 0..20 {
        let events = Banqi::setup(&Config::default(), 2, &mut SplitMix64::new(seed)).unwrap();
        let Event::Started { first, .. } = events[0] else {
            panic!()
        };
        firsts.insert(first);
    }
    assert_eq!(firsts.len(), 2, "either seat may act first");
    // Seat 0 turns up a black piece: it plays black, seat 1 red.
    let mut state = from_position("?K?k?p5/8/8/8 - 0");
    assert_eq!(Banqi::view(&state, Viewer::Spectator).colours, [None, None]);
    play(&mut state, "b4");
    assert_eq!(state.colour_of(Seat(0)), Some(Colour::Black));
    assert_eq!(state.colour_of(Seat(1)), Some(Colour::Red));
    assert_eq!(state.on_move(), Seat(1));
    let view = Banqi::view(&state, Viewer::Seat(Seat(1)));
    assert_eq!(view.colours, [Some(Colour::Black), Some(Colour::Red)]);
    assert_eq!(view.colour_to_act, Some(Colour::Red));
    // Turning up the opponent's colour later changes nothing.
    play(&mut state, "c4");
    assert_eq!(state.colour_of(Seat(1)), Some(Colour::Red));
}

#[test]
fn b3_turn_up_anything_or_step_one_square_orthogonally_to_an_empty_one() {
    let mut all = steps("8/8/1?p6/1R6 r 0");
    all.sort();
    // Any face-down piece, whatever its colour; one orthogonal step to an
    // empty square, never onto a face-down piece or diagonally.
    assert_eq!(all, ["b1-a1", "b1-c1", "b2"]);
}

#[test]
fn b4_every_rank_pair_both_ways() {
    use Kind::*;
    // (attacker, target, may capture) for every pair but the cannon as
    // attacker (§B5 has it capture only by jumping).
    let order = [General, Advisor, Elephant, Chariot, Horse, Cannon, Soldier];
    for (i, attacker) in order.iter().enumerate() {
        if *attacker == Cannon {
            continue;
        }
        for (j, target) in order.iter().enumerate() {
            let expected = match (attacker, target) {
                (General, Soldier) => false,
                (Soldier, General) => true,
                _ => i <= j,
            };
            for red_attacks in [true, false] {
                let (a, t) = (
                    Piece {
                        colour: Colour::Red,
                        kind: *attacker,
                    },
                    Piece {
                        colour: Colour::Black,
                        kind: *target,
                    },
                );
                let (a, t, to_act) = if red_attacks {
                    (a.letter(), t.letter(), 'r')
                } else {
                    (
                        a.letter().to_ascii_lowercase(),
                        t.letter().to_ascii_uppercase(),
                        'b',
                    )
                };
                let listed = steps(&format!("8/8/8/{a}{t}6 {to_act} 0"));
                assert_eq!(
                    listed.contains(&"a1xb1".to_owned()),
                    expected,
                    "{attacker:?} takes {target:?} ({})",
                    if red_attacks { "red" } else { "black" }
                );
            }
        }
    }
}

#[test]
fn b4_general_and_soldier_both_ways() {
    assert!(
        !steps("8/8/8/Kp6 r 0").contains(&"a1xb1".to_owned()),
        "the general never takes a soldier"
    );
    assert!(
        steps("8/8/8/Pk6 r 0").contains(&"a1xb1".to_owned()),
        "a soldier takes the general"
    );
    assert!(!steps("8/8/8/kP6 b 0").contains(&"a1xb1".to_owned()));
    assert!(steps("8/8/8/pK6 b 0").contains(&"a1xb1".to_owned()));
}

#[test]
fn b4_face_down_pieces_are_never_captured() {
    let mut state = from_position("8/8/8/K?p6 r 0");
    assert!(!steps("8/8/8/K?p6 r 0").iter().any(|s| s.contains('x')));
    let refused = act(
        &mut state,
        Action::Move {
            notation: "a1xb1".into(),
        },
    )
    .unwrap_err();
    assert_eq!(refused.message, "a face-down piece cannot be captured");
}

#[test]
fn b5_cannon_jumps_one_screen_of_any_kind_at_any_distance() {
    // Screen face down, own, enemy; gaps before and after the screen.
    for screen in ["?p", "P", "k"] {
        let listed = steps(&format!("8/8/8/C1{screen}2r2 r 0"));
        assert!(
            listed.contains(&"a1xf1".to_owned()),
            "screen {screen}: {listed:?}"
        );
    }
    // Along a file too.
    assert!(steps("p7/?K7/8/C7 r 0").contains(&"a1xa4".to_owned()));
}

#[test]
fn b5_cannon_takes_only_a_face_up_enemy_first_beyond_the_screen() {
    // First piece beyond face down, or own: no capture.
    assert!(!steps("8/8/8/C1P1?r3 r 0")
        .iter()
        .any(|s| s.starts_with("a1x")));
    assert!(!steps("8/8/8/C1P1R1r1 r 0")
        .iter()
        .any(|s| s.starts_with("a1x")));
    // Two screens: no capture; no screen: no capture (not even adjacent).
    assert!(!steps("8/8/8/CPPr4 r 0")
        .iter()
        .any(|s| s.starts_with("a1x")));
    assert!(!steps("8/8/8/Cr6 r 0").iter().any(|s| s.starts_with("a1x")));
    // Any rank: the cannon takes a general.
    assert!(steps("8/8/8/CPk5 r 0").contains(&"a1xc1".to_owned()));
    // And moves one step like the others.
    assert_eq!(steps("8/8/8/C7 r 0"), ["a1-a2", "a1-b1"]);
}

#[test]
fn b5_the_soldier_cannot_take_a_cannon_the_others_can() {
    assert!(!steps("8/8/8/Pc6 r 0").contains(&"a1xb1".to_owned()));
    for attacker in ['K', 'A', 'E', 'R', 'N', 'C'] {
        let can = steps(&format!("8/8/8/{attacker}c6 r 0")).contains(&"a1xb1".to_owned());
        assert_eq!(can, attacker != 'C', "{attacker} against a cannon");
    }
}

#[test]
fn b6_taking_the_last_piece_wins() {
    let mut state = from_position("8/8/8/Rp6 r 0");
    let events = play(&mut state, "a1xb1");
    assert_eq!(ending(&events), Some(("no_pieces".into(), vec![Seat(0)])));
}

#[test]
fn b6_face_down_pieces_count_but_only_ones_own() {
    // Black keeps a face-down piece of its own: not over.
    let mut state = from_position("?p7/8/8/Rp6 r 0");
    assert_eq!(ending(&play(&mut state, "a1xb1")), None);
    // Only red pieces lie face down: black has none and loses at once.
    let mut state = from_position("?P7/8/8/Rp6 r 0");
    assert_eq!(
        ending(&play(&mut state, "a1xb1")),
        Some(("no_pieces".into(), vec![Seat(0)]))
    );
}

#[test]
fn b6_no_legal_action_on_ones_turn_loses() {
    // Black's soldier on a1 is walled in by red pieces it may not take.
    let mut state = from_position("8/8/R7/pA1E4 r 0");
    let events = play(&mut state, "d1-c1");
    assert_eq!(
        ending(&events),
        Some(("no_legal_move".into(), vec![Seat(0)]))
    );
}

#[test]
fn b6_resignation_and_abandonment_lose() {
    let mut state = from_position("8/8/8/R1p5 r 0");
    assert_eq!(
        ending(&act(&mut state, Action::Resign {}).unwrap()),
        Some(("resigned".into(), vec![Seat(1)]))
    );
    let state = from_position("8/8/8/R1p5 r 0");
    let events = Banqi::deadline_passed(&state, &Duty::new(Seat(0), DutyKind::Turn));
    assert_eq!(ending(&events), Some(("abandoned".into(), vec![Seat(1)])));
}

#[test]
fn b7_the_third_repetition_draws() {
    let mut state = from_position("8/8/8/R6p r 0");
    let shuffle = ["a1-a2", "h1-h2", "a2-a1", "h2-h1"];
    let mut end = None;
    for (n, step) in shuffle.iter().cycle().take(8).enumerate() {
        end = ending(&play(&mut state, step));
        if n < 7 {
            assert_eq!(end, None, "after {} plies", n + 1);
        }
    }
    assert_eq!(end, Some(("threefold_repetition".into(), vec![])));
}

#[test]
fn b7_the_180th_quiet_ply_is_played_and_then_it_is_a_draw() {
    let mut state = from_position("8/8/8/R6p r 178");
    assert_eq!(
        Banqi::view(&state, Viewer::Spectator).plies_until_no_progress_draw,
        2
    );
    assert_eq!(ending(&play(&mut state, "a1-a2")), None);
    assert_eq!(
        ending(&play(&mut state, "h1-h2")),
        Some(("no_progress".into(), vec![]))
    );
}

#[test]
fn b7_a_turn_up_and_a_capture_reset_the_quiet_count() {
    let mut state = from_position("8/?p7/8/R6p r 100");
    play(&mut state, "a3");
    assert_eq!(state.position.quiet, 0, "turn-up");
    let mut state = from_position("8/8/8/Rp6 r 100");
    state.position.cells[20] = Cell::Down(Piece {
        colour: Colour::Black,
        kind: Kind::Soldier,
    });
    play(&mut state, "a1xb1");
    assert_eq!(state.position.quiet, 0, "capture");
    let mut state = from_position("8/8/8/R6p r 100");
    play(&mut state, "a1-a2");
    assert_eq!(state.position.quiet, 101, "a move");
}

#[test]
fn b8_the_layout_and_face_down_pieces_reach_no_viewer() {
    let events = Banqi::setup(&Config::default(), 2, &mut SplitMix64::new(8)).unwrap();
    let mut state = State::default();
    Banqi::apply(&mut state, &events[0]).unwrap();
    for viewer in [
        Viewer::Seat(Seat(0)),
        Viewer::Seat(Seat(1)),
        Viewer::Spectator,
    ] {
        let Event::Started {
            position,
            face_down,
            ..
        } = Banqi::redact(&events[0], viewer)
        else {
            panic!()
        };
        assert_eq!(position, None);
        assert_eq!(face_down.len(), 32);
        let view = serde_json::to_string(&Banqi::view(&state, viewer)).unwrap();
        for kind in [
            "general", "advisor", "elephant", "chariot", "horse", "cannon", "soldier",
        ] {
            assert!(!view.contains(kind), "{viewer:?} sees a {kind}: {view}");
        }
    }
    // An illegal action's error names no face-down piece either.
    let mut state = from_position("8/8/8/R?k6 r 0");
    let refused = act(
        &mut state,
        Action::Move {
            notation: "a1-b1".into(),
        },
    )
    .unwrap_err();
    assert_eq!(refused.message, "b1 is not empty");
}

#[test]
fn b9_notation_reads_and_writes_the_full_position() {
    for text in ["?K?k6/8/8/8 - 0", "8/2?p5/1R6/7c r 17", "ppppp3/8/8/8 b 0"] {
        assert_eq!(Position::from_notation(text).unwrap().to_notation(), text);
    }
    for bad in [
        "",
        "8/8/8 - 0",
        "9/8/8/8 r 0",
        "8/8/8/8 x 0",
        "8/8/8/8 r many",
        "KK6/8/8/8 r 0",
        "8/8/8/R7 - 0",
        "?8/8/8/8 - 0",
    ] {
        assert!(Position::from_notation(bad).is_err(), "{bad}");
    }
    assert_eq!(
        Step::parse("a1").map(|s| s.to_string()).as_deref(),
        Some("a1")
    );
    assert_eq!(
        Step::parse("a1-a2").map(|s| s.to_string()).as_deref(),
        Some("a1-a2")
    );
    assert_eq!(
        Step::parse("a1xh1").map(|s| s.to_string()).as_deref(),
        Some("a1xh1")
    );
    assert!(Step::parse("i1").is_none() && Step::parse("a5").is_none());
}

#[test]
fn b10_perft_turns_up_what_the_position_records_and_stops_at_the_end() {
    let start = shuffled(&mut SplitMix64::new(0));
    assert_eq!(perft(&start, 1), 32);
    // After a turn-up the other side has nothing of its own face up.
    assert_eq!(perft(&start, 2), 32 * 31);
    // The match is over: no children.
    assert_eq!(
        perft(&Position::from_notation("8/8/8/R7 b 0").unwrap(), 1),
        0
    );
    assert_eq!(
        perft(&Position::from_notation("8/8/8/R6p b 180").unwrap(), 1),
        0
    );
}

/// A position after a random stretch of play from a random layout.
fn random_position(random: &mut SplitMix64) -> Position {
    let mut pos = shuffled(random);
    let plies = random.below(60);
    let mut steps = Vec::new();
    for _ in 0..plies {
        if pos.is_over() {
            break;
        }
        pos.legal_steps(&mut steps);
        pos = pos.play(steps[random.below(steps.len() as u64) as usize]);
    }
    pos
}

fn transformed(pos: &Position, square: impl Fn(usize) -> usize, swap: bool) -> Position {
    let mut out = *pos;
    let flip = |p: Piece| {
        if swap {
            Piece {
                colour: p.colour.other(),
                kind: p.kind,
            }
        } else {
            p
        }
    };
    for sq in 0..32 {
        out.cells[square(sq)] = match pos.cells[sq] {
            Cell::Down(p) => Cell::Down(flip(p)),
            Cell::Up(p) => Cell::Up(flip(p)),
            Cell::Empty => Cell::Empty,
        };
    }
    if swap {
        out.to_act = pos.to_act.map(Colour::other);
    }
    out
}

#[test]
fn b10_perft_is_unchanged_by_mirroring_and_by_swapping_colours() {
    let mut random = SplitMix64::new(10);
    for _ in 0..200 {
        let pos = random_position(&mut random);
        let expected = perft(&pos, 3);
        let left_right = transformed(&pos, |sq| sq / 8 * 8 + (7 - sq % 8), false);
        let top_bottom = transformed(&pos, |sq| (3 - sq / 8) * 8 + sq % 8, false);
        let colours = transformed(&pos, |sq| sq, true);
        assert_eq!(perft(&left_right, 3), expected, "left-right {pos:?}");
        assert_eq!(perft(&top_bottom, 3), expected, "top-bottom {pos:?}");
        assert_eq!(perft(&colours, 3), expected, "colours {pos:?}");
    }
}

/// §B9 and issue #30: a given position is a custom start; one naming its
/// face-down pieces fixes what neither player may know, which the service
/// never lets a player choose. Standard deals are neither.
#[test]
fn b9_a_layout_naming_face_down_pieces_fixes_hidden_information() {
    use posthorn_rules::{GameId, MatchState, Start};
    let start = |config: serde_json::Value| MatchState::start(GameId::Banqi, &config).unwrap();
    assert_eq!(start(serde_json::json!({})), Start::Standard);
    assert_eq!(
        start(serde_json::json!({"position": "8/8/8/R?k5p r 0"})),
        Start::FixesHidden
    );
    assert_eq!(
        start(serde_json::json!({"position": "8/8/8/R1k5 r 0"})),
        Start::Custom
    );
    // The other games hide nothing a position could fix.
    for game in [
        GameId::Checkers,
        GameId::FlipChess,
        GameId::Janggi,
        GameId::FourPlayerChess,
    ] {
        let position = serde_json::json!({"position": "anything"});
        assert_eq!(
            MatchState::start(game, &position).unwrap(),
            Start::Custom,
            "{game:?}"
        );
        assert_eq!(
            MatchState::start(game, &serde_json::json!({})).unwrap(),
            Start::Standard
        );
    }
}
