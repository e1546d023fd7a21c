//! Pebbles, a test-only toy game: Nim on one pile with a secret token per
//! seat. It exists to show that a new game needs nothing but its module and
//! one line in a `games!` list to run through the whole harness — and that
//! the leak check catches a token shown to the wrong seat.

use posthorn_rules::engine::{Engine, Level, Search, WIN};
use posthorn_rules::lessons::{Lesson, Lessons};
use posthorn_rules::puzzles::{Puzzles, Rule};
use posthorn_rules::{
    About, Departure, Duty, DutyKind, Env, Game, Outcome, Random, RuleError, Seat, Viewer,
};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Taking the last pebble wins.
    #[default]
    LastWins,
    /// Taking the last pebble loses.
    LastLoses,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub mode: Mode,
    pub pile: Option<u8>,
    /// A deliberately broken redaction, to prove the leak check bites.
    #[serde(default)]
    pub leak_tokens: bool,
    /// Deliberately unnamed departures (a resignation that only ends the
    /// match), to prove the departure check bites.
    #[serde(default)]
    pub quiet_departures: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    Take { count: u8 },
    Resign {},
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    Started {
        mode: Mode,
        pile: u8,
        /// One secret token per seat; each seat sees only its own.
        tokens: Vec<Option<String>>,
        #[serde(default)]
        leak_tokens: bool,
        #[serde(default)]
        quiet_departures: bool,
    },
    Took {
        seat: Seat,
        count: u8,
    },
    Resigned {
        seat: Seat,
    },
    Abandoned {
        seat: Seat,
    },
    Finished {
        result: Outcome,
    },
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct State {
    pub mode: Mode,
    pub pile: u8,
    pub tokens: Vec<String>,
    pub on_move: Seat,
    /// Takes so far: two make a round.
    pub taken: u32,
    pub quiet_departures: bool,
    pub outcome: Option<Outcome>,
}

#[derive(Serialize, Deserialize, schemars::JsonSchema)]
pub struct View {
    pub mode: Mode,
    pub pile: u8,
    pub on_move: Seat,
    pub my_token: Option<String>,
}

pub struct Pebbles;

fn other(seat: Seat) -> Seat {
    Seat(1 - seat.0)
}

fn finish(winner: Seat, reason: &str) -> Event {
    Event::Finished {
        result: Outcome::win(vec![winner], reason),
    }
}

/// Sequences of takes of `depth` from a pile.
fn count(pile: u8, depth: usize) -> u64 {
    if depth == 0 {
        return 1;
    }
    (1..=pile.min(3)).map(|n| count(pile - n, depth - 1)).sum()
}

/// The toy's computer opponent (every game in a `games!` list has one):
/// it leaves a multiple of four when it can, else takes one.
impl Engine for Pebbles {
    fn decide(
        view: &View,
        seat: Seat,
        _level: Level,
        _random: &mut dyn Random,
    ) -> Result<Action, RuleError> {
        if view.on_move != seat {
            return Err(RuleError::not_your_turn());
        }
        let count = match view.pile % 4 {
            0 => 1,
            n => n,
        };
        Ok(Action::Take {
            count: count.min(view.pile),
        })
    }
}

/// The toy's puzzles: a pile seen whole, whose only winning take leaves
/// the opponent a multiple of four (last wins) or one more than one
/// (last loses). The forced line is one take, or a take and then the
/// finish.
#[derive(Clone, Debug)]
pub struct Heap {
    pub mode: Mode,
    pub pile: u8,
    pub mover: usize,
}

impl Search for Heap {
    type Move = u8;
    fn mover(&self) -> usize {
        self.mover
    }
    fn moves(&self, out: &mut Vec<u8>) {
        out.extend((1..=self.pile.min(3)).rev());
    }
    fn play(&self, take: &u8) -> Heap {
        Heap {
            mode: self.mode,
            pile: self.pile - take,
            mover: 1 - self.mover,
        }
    }
    fn value(&self, side: usize) -> i32 {
        // The side to act is lost on these piles.
        let lost = match self.mode {
            Mode::LastWins => self.pile.is_multiple_of(4),
            Mode::LastLoses => self.pile % 4 == 1,
        };
        let size = if self.pile == 0 { WIN } else { 1_000 };
        if lost == (side == self.mover) {
            -size
        } else {
            size
        }
    }
    fn over(&self) -> bool {
        self.pile == 0
    }
}

impl Puzzles for Pebbles {
    type Whole = Heap;
    /// The toy ships no puzzles.
    const SHIPPED: &'static str = "";
    const RULE: Rule = Rule {
        mined: true,
        from_people: true,
        scan: 4,
        depth: 4,
        margin: 500,
        decisive: 1_500,
        nodes: 100_000,
        players: &[Level::Easy],
    };
    fn whole(view: &View) -> Option<Heap> {
        Some(Heap {
            mode: view.mode,
            pile: view.pile,
            mover: view.on_move.index(),
        })
    }
    fn start_of(view: &View, config: &Config) -> Option<Config> {
        Some(Config {
            mode: view.mode,
            pile: Some(view.pile),
            leak_tokens: config.leak_tokens,
            quiet_departures: config.quiet_departures,
        })
    }
    fn action(take: &u8) -> Action {
        Action::Take { count: *take }
    }
    fn material(heap: &Heap, side: usize) -> i32 {
        heap.value(side)
    }
}

/// Every game in a `games!` list writes records: the toy's a take a word.
impl posthorn_rules::records::Records for Pebbles {
    const EXTENSION: &'static str = "txt";

    fn tags(
        _start: &State,
        _end: &State,
        header: &posthorn_rules::records::Header,
    ) -> Vec<(&'static str, String)> {
        vec![("Game", "Pebbles".into()), ("Site", header.site.clone())]
    }

    fn word(_before: &State, event: &Event) -> Option<(usize, String)> {
        match event {
            Event::Took { seat, count } => Some((seat.index(), format!("take{count}"))),
            _ => None,
        }
    }

    fn action(word: &str) -> Option<Action> {
        let count = word.strip_prefix("take")?.parse().ok()?;
        Some(Action::Take { count })
    }
}

/// Every game in a `games!` list is drawn: the toy's heap as a row.
impl posthorn_rules::drawing::Drawn for Pebbles {
    fn drawing(view: &View) -> posthorn_rules::drawing::Drawing {
        use posthorn_rules::drawing::{Cell, Drawing, Ground, Piece};
        let cells = (0..view.pile.min(30))
            .map(|i| Cell {
                col: i,
                row: 0,
                ground: Ground::Plain,
                piece: Some(Piece {
                    glyph: "",
                    ink: "black",
                    disc: true,
                }),
            })
            .collect();
        Drawing {
            cols: view.pile.clamp(1, 30),
            rows: 1,
            cells,
        }
    }
}

/// Every game in a `games!` list is analysed: the toy's heap is whole.
impl posthorn_rules::engine::analysis::Analyse for Pebbles {}

/// Every game in a `games!` list has first steps; the toy teaches none.
impl Lessons for Pebbles {
    fn lessons() -> Vec<Lesson> {
        Vec::new()
    }
}

impl Game for Pebbles {
    const ABOUT: About = About {
        id: "pebbles",
        name: "Pebbles",
        variants: &[],
        modes: &["last_wins", "last_loses"],
        seats: (2, 2),
        options: &[("pile", "start with this many pebbles (1–50)")],
        action_cap: 50,
        rating: posthorn_rules::Rating::Pairwise,
        titles: &[],
        hides: false,
    };

    type Config = Config;
    type State = State;
    type Action = Action;
    type Event = Event;
    type View = View;

    fn setup(
        config: &Config,
        _seats: usize,
        random: &mut dyn Random,
    ) -> Result<Vec<Event>, RuleError> {
        let pile = match config.pile {
            Some(n @ 1..=50) => n,
            Some(_) => return Err(RuleError::malformed("pile is 1 to 50")),
            None => 10 + random.below(11) as u8,
        };
        let tokens = (0..2)
            .map(|_| Some(format!("token-{:016x}", random.next_u64())))
            .collect();
        Ok(vec![Event::Started {
            mode: config.mode,
            pile,
            tokens,
            leak_tokens: config.leak_tokens,
            quiet_departures: config.quiet_departures,
        }])
    }

    fn seats(_config: &Config) -> std::ops::RangeInclusive<usize> {
        2..=2
    }

    fn apply(state: &mut State, event: &Event) -> Result<(), RuleError> {
        match event {
            Event::Started {
                mode,
                pile,
                tokens,
                quiet_departures,
                ..
            } => {
                *state = State {
                    mode: *mode,
                    pile: *pile,
                    quiet_departures: *quiet_departures,
                    tokens: tokens
                        .iter()
                        .map(|t| t.clone().unwrap_or_default())
                        .collect(),
                    ..State::default()
                }
            }
            Event::Took { seat, count } => {
                state.pile -= count;
                state.on_move = other(*seat);
                state.taken += 1;
            }
            Event::Resigned { .. } | Event::Abandoned { .. } => {}
            Event::Finished { result } => state.outcome = Some(result.clone()),
        }
        Ok(())
    }

    fn act(
        state: &State,
        seat: Seat,
        action: &Action,
        _env: &mut Env,
    ) -> Result<Vec<Event>, RuleError> {
        match action {
            _ if state.outcome.is_some() => Err(RuleError::finished()),
            _ if seat.index() > 1 => Err(RuleError::illegal("no such seat")),
            Action::Resign {} if state.quiet_departures => {
                Ok(vec![finish(other(seat), "resigned")])
            }
            Action::Resign {} => Ok(vec![
                Event::Resigned { seat },
                finish(other(seat), "resigned"),
            ]),
            Action::Take { .. } if seat != state.on_move => Err(RuleError::not_your_turn()),
            Action::Take { count } if !(1..=3).contains(count) || *count > state.pile => Err(
                RuleError::illegal("take 1 to 3 pebbles, no more than are left"),
            ),
            Action::Take { count } => {
                let mut events = vec![Event::Took {
                    seat,
                    count: *count,
                }];
                if state.pile == *count {
                    events.push(match state.mode {
                        Mode::LastWins => finish(seat, "last_pebble"),
                        Mode::LastLoses => finish(other(seat), "last_pebble"),
                    });
                }
                Ok(events)
            }
        }
    }

    fn legal_actions(state: &State, seat: Seat) -> Vec<Action> {
        if state.outcome.is_some() || seat.index() > 1 {
            return Vec::new();
        }
        let mut actions = Vec::new();
        if seat == state.on_move {
            actions.extend((1..=state.pile.min(3)).map(|count| Action::Take { count }));
        }
        actions.push(Action::Resign {});
        actions
    }

    fn to_act(state: &State) -> Vec<Duty> {
        match state.outcome {
            Some(_) => Vec::new(),
            None => vec![Duty::new(state.on_move, DutyKind::Turn)],
        }
    }

    fn outcome(state: &State) -> Option<Outcome> {
        state.outcome.clone()
    }

    fn view(state: &State, viewer: Viewer) -> View {
        View {
            mode: state.mode,
            pile: state.pile,
            on_move: state.on_move,
            my_token: match viewer {
                Viewer::Seat(s) => state.tokens.get(s.index()).cloned(),
                Viewer::Spectator => None,
            },
        }
    }

    fn redact(event: &Event, viewer: Viewer) -> Event {
        let mut event = event.clone();
        if let Event::Started {
            tokens,
            leak_tokens: false,
            ..
        } = &mut event
        {
            for (i, token) in tokens.iter_mut().enumerate() {
                if viewer != Viewer::Seat(Seat(i as u8)) {
                    *token = None;
                }
            }
        }
        event
    }

    fn expire(_state: &State, _env: &mut Env) -> Vec<Event> {
        Vec::new()
    }

    fn deadline_passed(state: &State, duty: &Duty) -> Vec<Event> {
        match state.outcome {
            None if duty.seat == state.on_move => vec![
                Event::Abandoned { seat: duty.seat },
                finish(other(duty.seat), "abandoned"),
            ],
            _ => Vec::new(),
        }
    }

    fn round(state: &State) -> u32 {
        state.taken / 2 + 1
    }

    fn departure(event: &Event) -> Option<(Seat, Departure)> {
        match event {
            Event::Resigned { seat } => Some((*seat, Departure::Resigned)),
            Event::Abandoned { seat } => Some((*seat, Departure::Abandoned)),
            _ => None,
        }
    }

    /// Every token but the viewer's own.
    fn secrets(state: &State, viewer: Viewer) -> Vec<Value> {
        (0..state.tokens.len())
            .filter(|&i| viewer != Viewer::Seat(Seat(i as u8)))
            .map(|i| json!(state.tokens[i]))
            .collect()
    }

    /// Positions are the pile's size.
    fn perft(_config: &Config, position: &str, depth: usize) -> Result<u64, RuleError> {
        let pile: u8 = position
            .parse()
            .map_err(|_| RuleError::malformed("a position is the number of pebbles"))?;
        Ok(count(pile, depth))
    }
}
