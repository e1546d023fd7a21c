//! First steps (issue #52, docs/lessons.md): each game taught by playing,
//! one short step at a time.
//!
//! A step is a position set up through the game's own `setup` (its
//! `position` option, FlipChess's `deal` too), the actions that bring it
//! to the moment taught (`prelude`, e.g. the opponent taking a king in
//! round 1), and the line the student is to play (`line`). The rules judge
//! every action the student sends: an illegal one is the rules' own
//! error; a legal one is accepted only when it leaves the match in the
//! very state the line's action leaves it (the rules' own state, compared
//! whole), so a move that is legal but not what the step teaches is
//! turned back with the step's explanation rather than played. The step
//! is done when the whole line is played.
//!
//! Everything is reproduced from the step and the actions so far: the
//! setup draws from a fixed seed and time stands still (§F8's window
//! never closes), so no attempt needs storing.

use crate::banqi::Banqi;
use crate::checkers::Checkers;
use crate::flipchess::FlipChess;
use crate::four_player_chess::FourPlayerChess;
use crate::janggi::Janggi;
use crate::{Env, Game, GameId, MatchState, RuleError, Seat, SplitMix64};
use serde_json::{json, Value};

/// The seed every step's setup draws from (who plays White, the hidden
/// order of a deck or of face-down pieces).
const SEED: u64 = 52;

/// One step of a game's first steps.
#[derive(Clone, Debug, PartialEq)]
pub struct Lesson {
    /// The step's name, stable: the client's words are keyed by it.
    pub key: &'static str,
    pub config: Value,
    pub seats: usize,
    /// Actions played before the student's turn, each by the seat then
    /// owing one.
    pub prelude: Vec<Value>,
    /// What the student is to play.
    pub line: Vec<Value>,
}

/// How an attempt at a step stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Right so far; more of the line is to come.
    Playing,
    /// The whole line is played.
    Done,
    /// The last action was legal but not what the step teaches: it was
    /// not played.
    NotThisWay,
}

/// The match after an attempt's accepted actions.
#[derive(Clone, Debug)]
pub struct Attempt {
    pub state: MatchState,
    pub student: Seat,
    pub verdict: Verdict,
    /// How many of the actions sent were accepted.
    pub accepted: usize,
}

/// A game's first steps. Every game in a [`crate::games!`] list has
/// them: the list generates the dispatch to them (`GameId::lessons`), as
/// it does to the engines and the puzzles.
pub trait Lessons: Game {
    /// The steps, in order.
    fn lessons() -> Vec<Lesson>;
}

/// The steps of `game`, in order.
pub fn lessons(game: GameId) -> Vec<Lesson> {
    game.lessons()
}

/// The step's match before the student acts, and the student's seat: the
/// one owing the first duty once the prelude is played.
pub fn opening(game: GameId, lesson: &Lesson) -> Result<(MatchState, Seat), RuleError> {
    let mut random = SplitMix64::new(SEED);
    let events = MatchState::setup(game, &lesson.config, lesson.seats, &mut random)?;
    let mut state = MatchState::replay(game, &events)?;
    for action in &lesson.prelude {
        let seat = owing(&state)?;
        state = played(&state, seat, action)?;
    }
    let student = owing(&state)?;
    Ok((state, student))
}

/// Judge `actions`, the student's whole attempt so far. An illegal action
/// is the rules' error; one past the line is malformed.
pub fn attempt(game: GameId, lesson: &Lesson, actions: &[Value]) -> Result<Attempt, RuleError> {
    let (mut state, student) = opening(game, lesson)?;
    if actions.len() > lesson.line.len() {
        return Err(RuleError::malformed(format!(
            "this step takes {} actions",
            lesson.line.len()
        )));
    }
    let mut verdict = Verdict::Playing;
    let mut accepted = 0;
    for (action, taught) in actions.iter().zip(&lesson.line) {
        let next = played(&state, student, action)?;
        if next != played(&state, student, taught)? {
            verdict = Verdict::NotThisWay;
            break;
        }
        state = next;
        accepted += 1;
    }
    if accepted == lesson.line.len() {
        verdict = Verdict::Done;
    }
    Ok(Attempt {
        state,
        student,
        verdict,
        accepted,
    })
}

/// The student's actions a step offers: the legal ones but resigning and
/// draw offers (nobody's match to end or share). Conceding a captured
/// king stays (§F7): a choice a step explains rather than hides.
pub fn offered(state: &MatchState, student: Seat) -> Vec<Value> {
    state
        .legal_actions(student)
        .into_iter()
        .filter(|a| a["type"] == "concede" || !crate::engine::is_talk(a))
        .collect()
}

fn owing(state: &MatchState) -> Result<Seat, RuleError> {
    state
        .to_act()
        .first()
        .map(|duty| duty.seat)
        .ok_or_else(|| RuleError::malformed("nobody is to act in this step"))
}

/// `state` after `seat` plays `action`, the clock standing still.
fn played(state: &MatchState, seat: Seat, action: &Value) -> Result<MatchState, RuleError> {
    let mut random = SplitMix64::new(SEED);
    let mut env = Env {
        now: 0,
        random: &mut random,
    };
    let mut next = state.clone();
    for event in state.act(seat, action, &mut env)? {
        next.apply(&event)?;
    }
    Ok(next)
}

fn step(key: &'static str, config: Value, seats: usize, line: Vec<Value>) -> Lesson {
    Lesson {
        key,
        config,
        seats,
        prelude: Vec::new(),
        line,
    }
}

fn moved(notation: &str) -> Value {
    json!({"type": "move", "move": notation})
}

fn card(name: &str) -> Value {
    json!({"type": "play", "card": name})
}

/// The seed's seven steps (§F, "from moving pieces to the flip").
impl Lessons for FlipChess {
    fn lessons() -> Vec<Lesson> {
        let dealt = |position: &str, white: &[&str], top: &str, turns: u32| {
            json!({"position": position, "deal": {
                "white": white, "black": ["green-2", "blue-5", "red-9"], "top": top, "turns": turns}})
        };
        vec![
            // §F3: a colour moves its group — yellow, the knights and bishops.
            step(
                "colour",
                dealt(
                    "4k3/8/8/3q4/8/2N5/8/4K3 w - - 0 1",
                    &["yellow-2", "blue-8", "green-1"],
                    "yellow-6",
                    0,
                ),
                2,
                vec![card("yellow-2"), moved("c3d5")],
            ),
            // §F3: the number is how many moves — a red 7 moves pawns three times.
            step(
                "number",
                dealt(
                    "4k3/8/8/P7/8/8/8/4K3 w - - 0 1",
                    &["red-7", "green-1", "blue-5"],
                    "red-3",
                    0,
                ),
                2,
                vec![card("red-7"), moved("a5a6"), moved("a6a7"), moved("a7a8q")],
            ),
            // §F4: a Wild fits anything; its colour is named.
            step(
                "wild",
                dealt(
                    "4k3/8/8/8/1r6/8/8/1Q2K3 w - - 0 1",
                    &["wild", "red-1", "blue-2"],
                    "green-5",
                    0,
                ),
                2,
                vec![
                    json!({"type": "play", "card": "wild", "colour": "blue"}),
                    moved("b1b4"),
                ],
            ),
            // §F7: a Flip played the ordinary way trades the sides.
            step(
                "flip_card",
                dealt(
                    "4k3/pppppppp/8/8/8/8/8/4K3 w - - 0 1",
                    &["green-flip", "red-2", "blue-9"],
                    "green-3",
                    0,
                ),
                2,
                vec![card("green-flip")],
            ),
            // §F7: a king taken in rounds 1–3 may be saved by a flip.
            Lesson {
                prelude: vec![card("yellow-4"), moved("b5e8")],
                ..step(
                    "flip_window",
                    json!({"position": "4k3/8/8/1B6/8/8/8/4K3 w - - 0 1", "deal": {
                    "white": ["yellow-4", "red-5", "green-7"], "black": ["blue-flip", "green-8"], "top": "yellow-1"}}),
                    2,
                    vec![json!({"type": "free_flip"})],
                )
            },
            // §F8: "last card!" goes with the play that leaves one card.
            step(
                "last_card",
                dealt(
                    "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
                    &["red-2", "blue-2"],
                    "red-9",
                    0,
                ),
                2,
                vec![
                    json!({"type": "play", "card": "red-2", "last_card": true}),
                    moved("e2e3"),
                ],
            ),
            // §F9: from round 4 a king taken ends the match.
            step(
                "king",
                dealt(
                    "4k3/8/8/8/8/8/8/4RK2 w - - 0 1",
                    &["green-3", "blue-7", "red-1"],
                    "green-9",
                    6,
                ),
                2,
                vec![card("green-3"), moved("e1e8")],
            ),
        ]
    }
}

/// American checkers (docs/rules/checkers.md).
impl Lessons for Checkers {
    fn lessons() -> Vec<Lesson> {
        let at = |position: &str| json!({"variant": "american", "position": position});
        vec![
            step("jump", at("W:W22:B18,1"), 2, vec![moved("22x15")]),
            step("jumps", at("W:W30:B26,18,1"), 2, vec![moved("30x23x14")]),
            step("crown", at("W:W5:B32"), 2, vec![moved("5-1")]),
        ]
    }
}

/// Janggi (docs/rules/janggi.md).
impl Lessons for Janggi {
    fn lessons() -> Vec<Lesson> {
        let at = |position: &str| json!({"position": position});
        vec![
            step(
                "chariot",
                at("9/4k4/9/9/9/9/n8/9/3K5/R8 w - - 0 1"),
                2,
                vec![moved("a1a4")],
            ),
            step(
                "cannon",
                at("9/4k4/9/9/1n7/9/9/1P7/3K5/1C7 w - - 0 1"),
                2,
                vec![moved("b1b6")],
            ),
            step(
                "mate",
                at("4k4/R8/9/9/9/9/9/9/9/1R1K5 w - - 0 1"),
                2,
                vec![moved("b1b10")],
            ),
        ]
    }
}

/// Banqi (docs/rules/banqi.md).
impl Lessons for Banqi {
    fn lessons() -> Vec<Lesson> {
        let at = |position: &str| json!({"position": position});
        vec![
            step(
                "turn_up",
                at("?K6?k/8/8/?p6?P - 0"),
                2,
                vec![json!({"type": "turn_up", "square": "a4"})],
            ),
            step("rank", at("7k/8/n7/R6K r 0"), 2, vec![moved("a1xa2")]),
            step("cannon", at("n6k/8/p7/C6K r 0"), 2, vec![moved("a1xa4")]),
        ]
    }
}

/// Four-player chess, free-for-all (docs/rules/four-player-chess.md).
impl Lessons for FourPlayerChess {
    fn lessons() -> Vec<Lesson> {
        let at = |pieces: &str| {
            json!({"mode": "ffa", "position": format!(
                "to=red; mode=ffa; castle=red:-,green:-,blue:-,gray:-; out=; {pieces}; dead=")})
        };
        vec![
            step(
                "capture",
                at("red=Kh1,Rd1; green=Ka8; blue=Kg14,Qd10; gray=Kn7"),
                4,
                vec![moved("d1d10")],
            ),
            step(
                "promote",
                at("red=Kh1,Pe7; green=Ka8; blue=Kg14; gray=Kn7"),
                4,
                vec![moved("e7e8q")],
            ),
        ]
    }
}
