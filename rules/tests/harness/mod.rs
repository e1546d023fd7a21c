//! The rules harness every game inherits (docs/design.md §6): generic over
//! `G: Game`, so a game or variant plugs in with one line in `games.rs`.
//!
//! * [`playouts`] — seeded whole matches through the JSON contract the
//!   service uses: no panic; every listed action is accepted; `resign` is
//!   offered to every seat while the match runs; `to_act` is empty exactly
//!   when `outcome` is set; someone can always act; no match outlives its
//!   `action_cap`; no view or redacted event shows a viewer what
//!   [`Game::secrets`] says it may not see; `fold(events) == state`.
//! * [`malformed`] — arbitrary strings and JSON as actions, configurations
//!   and positions: a [`RuleError`] with a known code, never a panic.
//! * [`perft_row`] — a row of `rules/tests/data/<game>[-<variant>].tsv`:
//!   position, depth and count.
//! * [`mined`] — the mined puzzles of `rules/puzzles/<file>`,
//!   which must hold a least number (issue #52: 200 a game), every one or
//!   (`PUZZLES_CHECKED=n`, CI's small data) about n of them.

#![allow(dead_code)] // each test crate uses the part it needs

use posthorn_rules::{
    dispatch, Departure, Duty, DutyKind, Env, Game, Random, RuleCode, Seat, SplitMix64, Viewer,
};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashSet};

/// What the playouts saw: how many matches ended for each reason.
pub type Reasons = BTreeMap<String, u32>;

fn is_resign(action: &Value) -> bool {
    action["type"] == "resign"
}

/// One form of a JSON value in which arrays compare as multisets, so a
/// leaked hand in another order is still the hand.
fn shape(value: &Value) -> String {
    match value {
        Value::Array(items) => {
            let mut parts: Vec<String> = items.iter().map(Value::to_string).collect();
            parts.sort_unstable();
            format!("[{}]", parts.join(","))
        }
        other => other.to_string(),
    }
}

/// Panics when any value inside `shown` betrays one of `secrets`.
fn assert_hides(shown: &Value, secrets: &HashSet<String>, what: &dyn Fn() -> String) {
    if secrets.contains(&shape(shown)) {
        panic!("{} shows a secret: {shown}", what());
    }
    match shown {
        Value::Array(items) => items.iter().for_each(|v| assert_hides(v, secrets, what)),
        Value::Object(fields) => fields.values().for_each(|v| assert_hides(v, secrets, what)),
        _ => {}
    }
}

fn viewers(seats: usize) -> Vec<Viewer> {
    (0..seats as u8)
        .map(|s| Viewer::Seat(Seat(s)))
        .chain([Viewer::Spectator])
        .collect()
}

/// A match driven through the JSON contract, checking as it goes.
struct Run<'s, G: Game> {
    seed: u64,
    seats: usize,
    state: G::State,
    log: Vec<Value>,
    /// With these, every view, event and listed action is also checked
    /// against the game's own JSON Schemas.
    schemas: Option<&'s Compiled>,
}

/// A game's schemas, compiled once.
pub struct Compiled {
    action: jsonschema::Validator,
    event: jsonschema::Validator,
    view: jsonschema::Validator,
}

impl Compiled {
    pub fn of<G: Game>() -> Compiled {
        let schemas = dispatch::schemas::<G>();
        let compile = |s: &Value| jsonschema::validator_for(s).expect("a valid JSON Schema");
        Compiled {
            action: compile(&schemas.action),
            event: compile(&schemas.event),
            view: compile(&schemas.view),
        }
    }
}

impl Compiled {
    /// Whether `action` matches the action schema.
    pub fn takes_action(&self, action: &Value) -> bool {
        self.action.is_valid(action)
    }
}

fn conforms(validator: Option<&jsonschema::Validator>, value: &Value, what: &dyn Fn() -> String) {
    if let Some(validator) = validator {
        if let Err(e) = validator.validate(value) {
            panic!("{} does not match its schema: {e}\n{value}", what());
        }
    }
}

/// A view reads back into the game's own `View` (what a computer
/// opponent decides from) and writes out as the same JSON, `game` tag
/// and all: nothing in it is computed on the way out only.
fn reads_back<G: Game>(view: &Value, what: &dyn Fn() -> String) {
    let read = dispatch::read_view::<G>(view)
        .unwrap_or_else(|e| panic!("{} does not read back: {e}\n{view}", what()));
    let mut again = serde_json::to_value(&read).expect("a view serializes");
    if let Value::Object(fields) = &mut again {
        fields.insert("game".into(), Value::from(G::ABOUT.id));
    }
    assert_eq!(&again, view, "{} reads back as another view", what());
}

impl<G: Game> Run<'_, G> {
    /// Fold `events`, checking each as every viewer would receive it
    /// against what that viewer may not see once the fact holds.
    fn record(&mut self, events: Vec<Value>) {
        for event in events {
            dispatch::apply::<G>(&mut self.state, &event)
                .unwrap_or_else(|e| panic!("seed {}: {event} does not fold: {e}", self.seed));
            for viewer in viewers(self.seats) {
                let secrets = self.secrets(viewer);
                let shown = dispatch::redact::<G>(&event, viewer).unwrap();
                let what = || format!("seed {}: {event} redacted for {viewer:?}", self.seed);
                assert_hides(&shown, &secrets, &what);
                conforms(self.schemas.map(|s| &s.event), &shown, &what);
            }
            self.log.push(event);
        }
        for viewer in viewers(self.seats) {
            let secrets = self.secrets(viewer);
            let view = dispatch::view::<G>(&self.state, viewer);
            let what = || format!("seed {}: the view for {viewer:?}", self.seed);
            assert_hides(&view, &secrets, &what);
            conforms(self.schemas.map(|s| &s.view), &view, &what);
            reads_back::<G>(&view, &what);
        }
    }

    fn secrets(&self, viewer: Viewer) -> HashSet<String> {
        G::secrets(&self.state, viewer).iter().map(shape).collect()
    }

    /// The invariants that hold between any two steps.
    fn check_between_steps(&self) {
        let (duties, outcome) = (G::to_act(&self.state), G::outcome(&self.state));
        assert_eq!(
            duties.is_empty(),
            outcome.is_some(),
            "seed {}: to_act empty exactly when the match is over ({duties:?}, {outcome:?})",
            self.seed
        );
        if outcome.is_some() {
            return;
        }
        // A seat still in the match may always resign: every seat that
        // owes something or may act at all (an eliminated seat may not).
        for seat in (0..self.seats as u8).map(Seat) {
            let listed = dispatch::legal_actions::<G>(&self.state, seat);
            let owes = duties.iter().any(|d| d.seat == seat);
            assert!(
                listed.iter().any(is_resign) || (listed.is_empty() && !owes),
                "seed {}: seat {seat:?} may always resign",
                self.seed
            );
        }
    }

    /// Every action `seat` lists is accepted as it is.
    fn check_listed(&self, seat: Seat, listed: &[Value], random: &mut SplitMix64, now: i64) {
        for action in listed {
            let what = || format!("seed {}: listed {action}", self.seed);
            conforms(self.schemas.map(|s| &s.action), action, &what);
            let mut env = Env { now, random };
            if let Err(e) = dispatch::act::<G>(&self.state, seat, action, &mut env) {
                panic!(
                    "seed {}: listed {action} for {seat:?} refused: {e}",
                    self.seed
                );
            }
        }
    }
}

/// The next move of a playout: mostly a seat that owes something playing
/// an action of its most common kind (the moves, rather than a draw offer
/// each turn), sometimes anything listed, rarely a resignation.
fn pick(random: &mut SplitMix64, busy: &[(Seat, Vec<Value>)], duties: &[Duty]) -> (Seat, Value) {
    let owing: Vec<&(Seat, Vec<Value>)> = busy
        .iter()
        .filter(|(s, _)| duties.iter().any(|d| d.seat == *s))
        .collect();
    let (seat, listed) = match random.below(20) {
        0 => &busy[random.below(busy.len() as u64) as usize],
        _ if owing.is_empty() => &busy[random.below(busy.len() as u64) as usize],
        _ => owing[random.below(owing.len() as u64) as usize],
    };
    if random.below(2_000) == 0 {
        return (*seat, json!({"type": "resign"}));
    }
    let mut playing: Vec<&Value> = listed.iter().filter(|a| !is_resign(a)).collect();
    if random.below(20) != 0 {
        let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
        for action in &playing {
            *kinds.entry(action["type"].to_string()).or_default() += 1;
        }
        let common = kinds.into_iter().max_by_key(|(_, n)| *n).map(|(k, _)| k);
        playing.retain(|a| Some(a["type"].to_string()) == common);
    }
    (
        *seat,
        playing[random.below(playing.len() as u64) as usize].clone(),
    )
}

/// A match of random legal plays (no resigning, no offers) from `config`.
pub fn random_match<G: Game>(
    config: &Value,
    seats: usize,
    seed: u64,
    plies: usize,
) -> Vec<G::Event> {
    let config: G::Config = serde_json::from_value(config.clone()).unwrap();
    let mut random = SplitMix64::new(seed);
    let mut log = G::setup(&config, seats, &mut random).unwrap();
    let mut state = G::State::default();
    for event in &log {
        G::apply(&mut state, event).unwrap();
    }
    for _ in 0..plies {
        let Some(duty) = G::to_act(&state).into_iter().next() else {
            break;
        };
        let plays: Vec<G::Action> = G::legal_actions(&state, duty.seat)
            .into_iter()
            .filter(|a| {
                let t = serde_json::to_value(a).unwrap()["type"]
                    .as_str()
                    .unwrap_or("")
                    .to_owned();
                !matches!(
                    t.as_str(),
                    "resign" | "offer_draw" | "accept_draw" | "decline_draw" | "concede"
                )
            })
            .collect();
        if plays.is_empty() {
            break;
        }
        let action = &plays[random.below(plays.len() as u64) as usize];
        let mut env = Env {
            now: 0,
            random: &mut random,
        };
        for event in G::act(&state, duty.seat, action, &mut env).unwrap() {
            G::apply(&mut state, &event).unwrap();
            log.push(event);
        }
    }
    log
}

/// `games` seeded whole matches of `G` with `config` and `seats` players.
pub fn playouts<G: Game>(config: Value, seats: usize, games: u64) -> Reasons {
    checked_playouts::<G>(config, seats, games, None)
}

/// [`playouts`], with every payload also validated against `schemas`.
pub fn checked_playouts<G: Game>(
    config: Value,
    seats: usize,
    games: u64,
    schemas: Option<&Compiled>,
) -> Reasons {
    let mut reasons = Reasons::new();
    // The furthest round any playout reached: the rounds must count.
    let mut rounds = 1;
    for seed in 0..games {
        let mut random = SplitMix64::new(seed);
        let opening = dispatch::setup::<G>(&config, seats, &mut random)
            .unwrap_or_else(|e| panic!("setup {config}: {e}"));
        let mut run = Run::<G> {
            seed,
            seats,
            state: Default::default(),
            log: Vec::new(),
            schemas,
        };
        run.record(opening);
        assert_eq!(
            G::round(&run.state),
            1,
            "seed {seed}: a match starts in round 1"
        );
        let mut now = 1_000_000i64;
        let mut steps = 0;
        while G::outcome(&run.state).is_none() {
            run.check_between_steps();
            steps += 1;
            assert!(
                steps <= G::ABOUT.action_cap,
                "seed {seed}: the match must end within {} actions",
                G::ABOUT.action_cap
            );
            now += random.below(2_500) as i64;
            let mut env = Env {
                now,
                random: &mut random,
            };
            let expired = dispatch::expire::<G>(&run.state, &mut env);
            if !expired.is_empty() {
                run.record(expired);
                continue;
            }
            // Now and then a correspondence deadline passes (§T3/§T4).
            let duties = G::to_act(&run.state);
            if random.below(1_000) == 0 {
                let duty = &duties[random.below(duties.len() as u64) as usize];
                let events = dispatch::deadline_passed::<G>(&run.state, duty);
                if duty.kind == DutyKind::Turn && !events.is_empty() {
                    assert_departs::<G>(&events, duty.seat, Departure::Abandoned, seed);
                }
                // §F7: a lapsed flip decision concedes (the service reads
                // it as an abandonment, rewards §R3).
                if duty.kind == DutyKind::FlipDecision && !events.is_empty() {
                    assert_departs::<G>(&events, duty.seat, Departure::Conceded, seed);
                }
                run.record(events);
                continue;
            }
            let busy: Vec<(Seat, Vec<Value>)> = (0..seats as u8)
                .map(Seat)
                .map(|s| (s, dispatch::legal_actions::<G>(&run.state, s)))
                .filter(|(_, listed)| listed.iter().any(|a| !is_resign(a)))
                .collect();
            assert!(!busy.is_empty(), "seed {seed}: someone can always act");
            for (seat, listed) in &busy {
                run.check_listed(*seat, listed, &mut random, now);
            }
            let action = pick(&mut random, &busy, &duties);
            let mut env = Env {
                now,
                random: &mut random,
            };
            let (seat, action) = action;
            let events = dispatch::act::<G>(&run.state, seat, &action, &mut env).unwrap();
            assert!(!events.is_empty(), "seed {seed}: {action} changed nothing");
            if is_resign(&action) {
                assert_departs::<G>(&events, seat, Departure::Resigned, seed);
            }
            let round = G::round(&run.state);
            run.record(events);
            let after = G::round(&run.state);
            assert!(
                after >= round,
                "seed {seed}: the round went from {round} back to {after}"
            );
            rounds = rounds.max(after);
        }
        run.check_between_steps();
        let reason = G::outcome(&run.state).unwrap().reason;
        *reasons.entry(reason).or_insert(0) += 1;

        // The log alone replays the match.
        let mut replayed = G::State::default();
        for event in &run.log {
            dispatch::apply::<G>(&mut replayed, event).unwrap();
        }
        assert_eq!(replayed, run.state, "seed {seed}: fold(events) = state");
    }
    assert!(
        games < 10 || rounds >= 3,
        "no playout reached round 3: the round never moves"
    );
    reasons
}

/// Rewards §R3: the events of a resignation or of a turn's deadline name
/// the seat that departs, and how.
fn assert_departs<G: Game>(events: &[Value], seat: Seat, how: Departure, seed: u64) {
    let departed: Vec<(Seat, Departure)> = (events.iter())
        .filter_map(|e| dispatch::departure::<G>(e).unwrap())
        .collect();
    assert_eq!(
        departed,
        vec![(seat, how)],
        "seed {seed}: a departure names its seat and how ({events:?})"
    );
}

const ALPHABET: &[char] = &[
    '0', '1', '2', '3', '4', '5', '9', 'a', 'e', 'h', 'x', 'X', '-', '/', ':', ',', '.', ';', '=',
    '?', 'K', 'k', 'B', 'W', 'q', 'r', ' ', '+', '\u{0}', 'é', '궁', '\u{202e}',
];

pub fn arbitrary_string(random: &mut SplitMix64) -> String {
    let len = random.below(24) as usize;
    (0..len)
        .map(|_| {
            if random.below(10) == 0 {
                char::from_u32(random.below(0x11_0000) as u32).unwrap_or('?')
            } else {
                ALPHABET[random.below(ALPHABET.len() as u64) as usize]
            }
        })
        .collect()
}

/// Arbitrary JSON, some of it shaped like actions and configurations.
pub fn arbitrary_json(random: &mut SplitMix64, depth: u32) -> Value {
    let pick = random.below(if depth == 0 { 5 } else { 8 });
    match pick {
        0 => Value::Null,
        1 => json!(random.below(3) == 0),
        2 => json!(random.next_u64() as i64 >> random.below(64)),
        3 => json!((random.below(2_000_000) as f64 - 1e6) / 7.0),
        4 => json!(arbitrary_string(random)),
        5 => Value::Array(
            (0..random.below(4))
                .map(|_| arbitrary_json(random, depth - 1))
                .collect(),
        ),
        _ => {
            const KEYS: &[&str] = &[
                "type",
                "move",
                "card",
                "colour",
                "seat",
                "variant",
                "mode",
                "position",
                "from",
                "to",
                "square",
                "last_card",
                "setups",
            ];
            const TYPES: &[&str] = &[
                "move",
                "play",
                "draw",
                "pass",
                "turn_up",
                "resign",
                "offer_draw",
                "end_turn",
            ];
            let mut fields = serde_json::Map::new();
            for _ in 0..random.below(4) {
                let key = KEYS[random.below(KEYS.len() as u64) as usize];
                let value = if key == "type" && random.below(2) == 0 {
                    json!(TYPES[random.below(TYPES.len() as u64) as usize])
                } else {
                    arbitrary_json(random, depth - 1)
                };
                fields.insert(key.into(), value);
            }
            Value::Object(fields)
        }
    }
}

fn assert_known(code: RuleCode, what: &dyn Fn() -> String) {
    assert!(
        matches!(
            code,
            RuleCode::ValidationFailed
                | RuleCode::IllegalAction
                | RuleCode::NotYourTurn
                | RuleCode::MatchFinished
        ),
        "{}",
        what()
    );
}

/// Arbitrary input never panics: actions on a fresh match, configurations,
/// and positions (where the game has a notation) end in a `RuleError` or a
/// valid result.
pub fn malformed<G: Game>(config: Value, seats: usize, cases: u32) {
    let mut random = SplitMix64::new(0x6d61_6c66);
    let mut state = G::State::default();
    for event in dispatch::setup::<G>(&config, seats, &mut random).unwrap() {
        dispatch::apply::<G>(&mut state, &event).unwrap();
    }
    for case in 0..cases {
        let action = if case % 2 == 0 {
            arbitrary_json(&mut random, 3)
        } else {
            json!({"type": "move", "move": arbitrary_string(&mut random)})
        };
        let seat = Seat(random.below(seats as u64 + 1) as u8);
        let mut env = Env {
            now: 0,
            random: &mut random,
        };
        match dispatch::act::<G>(&state, seat, &action, &mut env) {
            Ok(events) => assert!(!events.is_empty(), "{action}: accepted with no fact"),
            Err(e) => assert_known(e.code, &|| format!("{action}: {e}")),
        }
        let options = arbitrary_json(&mut random, 2);
        if let Err(e) = dispatch::setup::<G>(&options, seats, &mut random) {
            assert_eq!(e.code, RuleCode::ValidationFailed, "{options}: {e}");
        }
        let position = arbitrary_string(&mut random);
        if let Err(e) = dispatch::perft::<G>(&config, &position, 1) {
            assert_eq!(e.code, RuleCode::ValidationFailed, "{position:?}: {e}");
        }
    }
}

/// One row of a perft file, `position<TAB>depth<TAB>count`; blank lines
/// and `#` comments give none.
pub fn perft_row(line: &str) -> Option<(&str, usize, u64)> {
    let line = line.trim_end();
    if line.trim().is_empty() || line.starts_with('#') {
        return None;
    }
    let fields: Vec<&str> = line.split('\t').collect();
    let [position, depth, count] = fields[..] else {
        panic!("{line:?}: position, depth and count, tab-separated");
    };
    Some((position, depth.parse().unwrap(), count.parse().unwrap()))
}

/// The puzzles of `rules/puzzles/<file>` (the sets shipped with the
/// rules), which must hold at least `least` distinct puzzles (issue #52:
/// 200 a game), counted by their opening: a line that repeats a position
/// is not another puzzle. All of them, or with `PUZZLES_CHECKED=n` every
/// `len / n`-th, about n spread over the file.
pub fn mined(file: &str, least: usize) -> Vec<posthorn_rules::puzzles::Found> {
    let all = mined_all(file);
    let distinct: std::collections::BTreeSet<String> =
        (all.iter()).map(|p| p.events[0].to_string()).collect();
    assert!(
        distinct.len() >= least,
        "{file}: {} distinct puzzles ({} lines), fewer than {least}",
        distinct.len(),
        all.len()
    );
    sampled(all)
}

/// Every puzzle of `rules/puzzles/<file>`, one a line.
pub fn mined_all(file: &str) -> Vec<posthorn_rules::puzzles::Found> {
    let path = format!("{}/puzzles/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// All of `all`, or (`PUZZLES_CHECKED=n`) about n of them, evenly spread.
pub fn sampled<T>(all: Vec<T>) -> Vec<T> {
    sampled_by(all, |n| n)
}

/// All of `all`, or about `part(n)` of them (at least one) when
/// `PUZZLES_CHECKED=n`: a costlier check takes a smaller part.
/// `PUZZLES_FROM=k` leaves out the first k and `PUZZLES_UNTIL=k` those
/// from k on (a new batch appended to a file is checked alone, in parts
/// at once, before it is kept).
pub fn sampled_by<T>(all: Vec<T>, part: impl Fn(usize) -> usize) -> Vec<T> {
    let bound = |name: &str| {
        std::env::var(name)
            .ok()
            .and_then(|n| n.parse::<usize>().ok())
    };
    let (from, until) = (bound("PUZZLES_FROM").unwrap_or(0), bound("PUZZLES_UNTIL"));
    let all: Vec<T> = (all.into_iter().enumerate())
        .filter(|(i, _)| *i >= from && until.is_none_or(|u| *i < u))
        .map(|(_, t)| t)
        .collect();
    let every = std::env::var("PUZZLES_CHECKED")
        .ok()
        .and_then(|n| n.parse::<usize>().ok())
        .map_or(1, |n| (all.len() / part(n).max(1)).max(1));
    all.into_iter().step_by(every).collect()
}
