//! First steps (docs/lessons.md): every step of every game can be
//! completed by its own line, and the rules turn back what it does not
//! teach — generic over the games, one line each.

use posthorn_rules::lessons::{attempt, lessons, opening, Lesson, Verdict};
use posthorn_rules::{GameId, MatchState, Viewer};
use serde_json::{json, Value};

/// Every step's line, played one action at a time, is right so far at
/// each action and done at the end.
fn completes(game: GameId, steps: usize) {
    let all = lessons(game);
    assert_eq!(all.len(), steps, "{game:?}: steps");
    for lesson in &all {
        for played in 1..=lesson.line.len() {
            let got = attempt(game, lesson, &lesson.line[..played])
                .unwrap_or_else(|e| panic!("{game:?} {}: {e:?}", lesson.key));
            let want = if played == lesson.line.len() {
                Verdict::Done
            } else {
                Verdict::Playing
            };
            assert_eq!(got.verdict, want, "{game:?} {} after {played}", lesson.key);
            assert_eq!(got.accepted, played);
        }
    }
}

#[test]
fn flipchess_seven_steps_complete() {
    completes(GameId::FlipChess, 7);
}
#[test]
fn checkers_steps_complete() {
    completes(GameId::Checkers, 3);
}
#[test]
fn janggi_steps_complete() {
    completes(GameId::Janggi, 3);
}
#[test]
fn banqi_steps_complete() {
    completes(GameId::Banqi, 3);
}
#[test]
fn four_player_chess_steps_complete() {
    completes(GameId::FourPlayerChess, 2);
}

/// The match after `seat` plays `action`, by the rules' own act and
/// fold (this file's, not the lessons module's).
fn after(state: &MatchState, seat: posthorn_rules::Seat, action: &Value) -> MatchState {
    let mut random = posthorn_rules::SplitMix64::new(1);
    let mut env = posthorn_rules::Env {
        now: 0,
        random: &mut random,
    };
    let mut next = state.clone();
    for event in state.act(seat, action, &mut env).expect("a legal action") {
        next.apply(&event).unwrap();
    }
    next
}

/// Every legal first action is judged by where it leaves the match: one
/// that leaves it where the taught action does is played, every other is
/// turned back, nothing of it played.
#[test]
fn every_other_legal_action_is_turned_back() {
    for &game in GameId::ALL {
        for lesson in lessons(game) {
            let (start, student) = opening(game, &lesson).unwrap();
            let taught = after(&start, student, &lesson.line[0]);
            let mut turned = 0;
            for other in start.legal_actions(student) {
                let got = attempt(game, &lesson, std::slice::from_ref(&other))
                    .unwrap_or_else(|e| panic!("{game:?} {} {other}: {e:?}", lesson.key));
                if after(&start, student, &other) == taught {
                    assert_ne!(
                        got.verdict,
                        Verdict::NotThisWay,
                        "{game:?} {}: {other}",
                        lesson.key
                    );
                    assert_eq!(got.accepted, 1);
                } else {
                    assert_eq!(
                        got.verdict,
                        Verdict::NotThisWay,
                        "{game:?} {}: {other}",
                        lesson.key
                    );
                    assert_eq!((got.accepted, &got.state), (0, &start));
                    turned += 1;
                }
            }
            assert!(
                turned > 0,
                "{game:?} {}: resigning at least is turned back",
                lesson.key
            );
        }
    }
}

/// An illegal action is the rules' own error, and more actions than the
/// line holds are refused.
#[test]
fn illegal_and_extra_actions_are_errors() {
    for &game in GameId::ALL {
        for lesson in lessons(game) {
            let nonsense = json!({"type": "move", "move": "z9z9"});
            assert!(
                attempt(game, &lesson, &[nonsense]).is_err(),
                "{game:?} {}",
                lesson.key
            );
            let mut long = lesson.line.clone();
            long.push(lesson.line[0].clone());
            assert!(attempt(game, &lesson, &long).is_err());
        }
    }
}

/// The steps that end a match end it with the student winning, by the
/// rules' own outcome (§F9, Janggi's mate).
#[test]
fn winning_steps_are_won_by_the_student() {
    for (game, key) in [(GameId::FlipChess, "king"), (GameId::Janggi, "mate")] {
        let lesson = lessons(game).into_iter().find(|l| l.key == key).unwrap();
        let done = attempt(game, &lesson, &lesson.line).unwrap();
        let outcome = done.state.outcome().expect("the match is over");
        assert_eq!(outcome.winners, vec![done.student], "{game:?} {key}");
    }
}

/// FlipChess's dealt cards are the student's own to see; the opponent's
/// hand is a count (§H1).
#[test]
fn a_step_shows_only_the_students_hand() {
    let lesson: Lesson = lessons(GameId::FlipChess).remove(0);
    let (start, student) = opening(GameId::FlipChess, &lesson).unwrap();
    let view = start.view(Viewer::Seat(student));
    assert_eq!(view["hand"], json!(["yellow-2", "blue-8", "green-1"]));
    let text = view.to_string();
    assert!(
        !text.contains("green-2") && !text.contains("red-9"),
        "{text}"
    );
}

/// FlipChess's `deal` takes each named card once from the deck, and its
/// top card is a number card, as §F1's first discard is.
#[test]
fn a_deal_names_real_cards_and_a_number_on_top() {
    use posthorn_rules::SplitMix64;
    let deal = |white: Value, top: &str| {
        let config = json!({"deal": {"white": white, "black": [], "top": top}});
        MatchState::setup(GameId::FlipChess, &config, 2, &mut SplitMix64::new(1))
    };
    assert!(deal(json!(["red-0"]), "red-5").is_ok());
    assert!(
        deal(json!(["red-0", "red-0"]), "red-5").is_err(),
        "one red 0 in the deck"
    );
    assert!(deal(json!(["purple-3"]), "red-5").is_err());
    assert!(deal(json!([]), "red-skip").is_err(), "§F1: a number on top");
    let late = json!({"deal": {"white": [], "black": [], "top": "red-5", "turns": 80}});
    assert!(
        MatchState::setup(GameId::FlipChess, &late, 2, &mut SplitMix64::new(1)).is_err(),
        "§F9: round 40 is the last"
    );
    // A dealt hand is known to whoever made the match: never a match's
    // opening (§H1), only a lesson's or a puzzle's.
    let dealt = json!({"deal": {"white": [], "black": [], "top": "red-5"}});
    assert_eq!(
        MatchState::start(GameId::FlipChess, &dealt).unwrap(),
        posthorn_rules::Start::FixesHidden
    );
}

/// A step offers the student its moves but never resigning; a captured
/// king's concession stays, for the step to explain (§F7).
#[test]
fn a_step_offers_no_resignation_but_the_concession() {
    use posthorn_rules::lessons::offered;
    for &game in GameId::ALL {
        for lesson in lessons(game) {
            let (start, student) = opening(game, &lesson).unwrap();
            let offer = offered(&start, student);
            assert!(offer.contains(&lesson.line[0]), "{game:?} {}", lesson.key);
            assert!(offer.iter().all(|a| a["type"] != "resign"));
        }
    }
    let window = lessons(GameId::FlipChess)
        .into_iter()
        .find(|l| l.key == "flip_window")
        .unwrap();
    let (start, student) = opening(GameId::FlipChess, &window).unwrap();
    assert!(offered(&start, student).contains(&json!({"type": "concede"})));
}
