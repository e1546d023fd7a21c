//! Puzzles mined from play (issue #52, docs/puzzles.md).
//!
//! A puzzle starts just after the opponent's mistake and asks for a
//! *forced line* (lichess's generator's rule): at each step the solver's
//! move is the only one that keeps the win — its value beats every other
//! move's by the game's [`Rule::margin`] in a search of [`Rule::depth`]
//! plies, deeper than the hard level's — and the line ends in a win or in
//! a decisive material gain ([`Rule::decisive`], [`Puzzles::material`])
//! on the board after the opponent's best reply, within 1 to [`MOST_SOLVER_MOVES`] of the solver's moves. The
//! opponent's replies are the hard engine's own choices.
//!
//! A puzzle is a new match set up from the position (each game's
//! `position` option), so it names no players and carries no history; its
//! opening events are kept, which fixes whatever the setup drew (Janggi's
//! and Banqi's seats). Hidden information must not bear on the answer:
//! a position is mined where the solver sees it whole
//! ([`Puzzles::whole`]), or where what it hides can be laid out in few
//! enough ways ([`Puzzles::deals`]: Banqi with four pieces face down at
//! most) that the line is proved in every one of them, nothing of it
//! revealed along the line, and the hidden pieces shown to matter
//! ([`Puzzles::bare`]). docs/puzzles.md says which positions that leaves
//! per game.
//!
//! The value of a position is the engine's ([`Search::value`]): what
//! "keeps the win" means is the engines' judgement, searched deeper than
//! they play. So the puzzles live under the engine, one floor above the
//! games (`rules/tests/floors.rs`); the crate root re-exports them as
//! `posthorn_rules::puzzles`.

use super::{minimax, root_scores, Budget, Engine, Level, Search, WIN};
use crate::{Duty, DutyKind, Env, Game, Random, RuleError, Seat, SplitMix64, Viewer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The most solver moves a line may take.
pub const MOST_SOLVER_MOVES: usize = 5;

/// The forced-line rule's figures for one game (docs/puzzles.md).
#[derive(Clone, Copy, Debug)]
pub struct Rule {
    /// Whether any position of the game can be mined at all.
    pub mined: bool,
    /// Whether finished matches between people are mined too, not only
    /// the engines' own: not where a puzzle shows the solver what was
    /// private to a player then (FlipChess's hand, §H1).
    pub from_people: bool,
    /// Plies of the cheap scan that picks candidates.
    pub scan: u32,
    /// Plies of the search that proves each solver move the only one:
    /// deeper than [`Level::Hard`]'s (and [`Level::Puzzle`]'s, which
    /// answers the solver).
    pub depth: u32,
    /// The solver's move beats every other by at least this much.
    pub margin: i32,
    /// A lead of this much over the start, held after the opponent's best
    /// reply, ends the line as a decisive gain.
    pub decisive: i32,
    /// Nodes one step's proof may visit; past it the candidate is dropped.
    pub nodes: u64,
    /// The levels the engines' own matches are played at for mining
    /// ([`self_play`]), never empty: taken in turn round the seats,
    /// starting at `seed % len`.
    pub players: &'static [Level],
}

/// The engines' matches most games are mined from: normal against easy,
/// whose weaker moves are the mistakes a puzzle starts after.
pub const NORMAL_AGAINST_EASY: &[Level] = &[Level::Normal, Level::Easy];

/// A game whose positions can be puzzles.
pub trait Puzzles: Engine {
    type Whole: Search;
    const RULE: Rule;
    /// The checked puzzles shipped with the rules, one JSON line each as
    /// the miner writes them (`rules/puzzles/<game>.jsonl`, each proved by
    /// the independent check of `rules/tests/puzzles.rs`): the service
    /// keeps them from its first start (docs/puzzles.md, "Shipped sets").
    const SHIPPED: &'static str;

    /// The position `view` shows, searched whole, when nothing its viewer
    /// cannot see bears on it; `None` otherwise.
    fn whole(view: &Self::View) -> Option<Self::Whole>;

    /// The configuration that starts a new match in `view`'s position.
    fn start_of(view: &Self::View, config: &Self::Config) -> Option<Self::Config>;

    /// The position as the server knows it, searched whole, where a
    /// puzzle may start or go on (what is hidden from the solver laid as
    /// it lies: each of [`Puzzles::deals`] is searched so). By default
    /// what `solver` sees whole: nothing hidden.
    fn world(state: &Self::State, solver: Seat) -> Option<Self::Whole> {
        Self::whole(&Self::view(state, Viewer::Seat(solver)))
    }

    /// The configuration that starts a new match at `state`, what it
    /// hides laid as it lies; by default from `solver`'s view.
    fn start_at(state: &Self::State, solver: Seat, config: &Self::Config) -> Option<Self::Config> {
        Self::start_of(&Self::view(state, Viewer::Seat(solver)), config)
    }

    /// Every opening that differs from `opening` only in what its players
    /// cannot see (§H: every hidden state consistent with their view),
    /// `opening` first; it alone where nothing is hidden. A puzzle is
    /// proved in each, and each attempt is dealt one of them.
    fn deals(opening: &[Self::Event]) -> Vec<Vec<Self::Event>> {
        vec![opening.to_vec()]
    }

    /// `opening` with what it hides taken off the board, if it hides
    /// anything: where the line's first move is still the only one, the
    /// hidden pieces did not matter and there is no puzzle.
    fn bare(opening: &[Self::Event]) -> Option<Vec<Self::Event>> {
        let _ = opening;
        None
    }

    /// The rules' action for an engine move.
    fn action(mv: &<Self::Whole as Search>::Move) -> Self::Action;

    /// `side`'s material lead by the game's own piece values: what a
    /// decisive gain is counted in, once it is on the board.
    fn material(pos: &Self::Whole, side: usize) -> i32;

    /// The configuration the engines' own matches for mining start from:
    /// `config` itself, unless the game's usual start hides too much for
    /// a position to be mined (Banqi).
    fn mining_start(config: &Self::Config, random: &mut dyn Random) -> Self::Config {
        let _ = random;
        config.clone()
    }

    /// A puzzle from one match's log: by the forced-line rule over the
    /// game's engine ([`mine`]), unless the game's puzzles are of another
    /// kind (FlipChess's "win this turn").
    fn mine_log(
        config: &Self::Config,
        seats: usize,
        events: &[Self::Event],
    ) -> Result<Option<Found>, RuleError>
    where
        Self: Sized,
    {
        mine::<Self>(config, seats, events)
    }
}

/// How a line ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Goal {
    /// The match is won.
    Win,
    /// A decisive gain, held after the opponent's best reply.
    Gain,
}

/// One action of a line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Step {
    pub seat: Seat,
    pub action: Value,
}

/// A mined puzzle, as JSON crosses to the service.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Found {
    /// The opening events of the puzzle's own match (a custom position).
    pub events: Vec<Value>,
    /// Seats of that match.
    pub seats: usize,
    pub solver: Seat,
    /// The solver's moves and the replies between them; it ends with the
    /// solver's last move.
    pub line: Vec<Step>,
    pub goal: Goal,
    /// Plies of the proof, and the smallest lead of the solver's move over
    /// the next best at any step (capped at [`Rule::decisive`]).
    pub depth: u32,
    pub margin: i32,
}

impl Found {
    pub fn solver_moves(&self) -> usize {
        self.line.iter().filter(|s| s.seat == self.solver).count()
    }
}

pub(crate) fn json<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).expect("rules types serialize to JSON")
}

/// The one seat whose turn it is, when nobody owes anything else.
fn turn_of(duties: &[Duty]) -> Option<Seat> {
    match duties {
        [Duty {
            seat,
            kind: DutyKind::Turn,
            ..
        }] => Some(*seat),
        _ => None,
    }
}

/// The solver's only move at `pos` with its value and its lead over the
/// next best, at `rule.depth`: the scan's best is searched fully, every
/// other move only to prove it at least `rule.margin` worse (a null
/// window). `None` when another move comes close, the budget runs out or
/// there is a single legal move at the first step.
pub fn only_move<P: Search>(pos: &P, rule: &Rule, first: bool) -> Option<(P::Move, i32, i32)> {
    let root = pos.mover();
    let mut budget = Budget::new(rule.nodes);
    let scanned = root_scores(pos, rule.scan, &mut budget);
    if scanned.is_empty() || (first && scanned.len() < 2) {
        return None;
    }
    let deep = rule.depth - 1;
    let (best, _) = &scanned[0];
    let value = minimax(
        &pos.play(best),
        root,
        deep,
        i32::MIN + 1,
        i32::MAX - 1,
        &mut budget,
    )?;
    let mut lead = rule.decisive;
    for (other, _) in &scanned[1..] {
        let bound = value - rule.margin;
        let score = minimax(&pos.play(other), root, deep, bound, bound + 1, &mut budget)?;
        if score > bound {
            return None;
        }
        // A fail-low score is an upper bound: the lead is at least this.
        lead = lead.min(value - score);
    }
    Some((best.clone(), value, lead))
}

/// The most deals a puzzle is proved in: the 4! ways to lay four Banqi
/// pieces face down.
pub const MOST_DEALS: usize = 24;

fn replay<G: Game>(events: &[G::Event]) -> Option<G::State> {
    let mut state = G::State::default();
    for event in events {
        G::apply(&mut state, event).ok()?;
    }
    Some(state)
}

/// Nothing the deals differ in has come out: the solver's view is the
/// same in every deal, and as much is hidden from them as at the start
/// (no turn-up, by anyone, along the line).
fn alike<G: Game>(states: &[G::State], solver: Seat, hidden: usize) -> Option<()> {
    let seen = |s: &G::State| json(&G::view(s, Viewer::Seat(solver)));
    let first = seen(&states[0]);
    states
        .iter()
        .all(|s| seen(s) == first && G::secrets(s, Viewer::Seat(solver)).len() == hidden)
        .then_some(())
}

/// The puzzle set up from `opening` for `seats` seats, if the seat to
/// move there has a forced line, the same in every deal of what the
/// opening hides ([`Puzzles::deals`]).
pub fn prove<G: Puzzles>(opening: Vec<G::Event>, seats: usize) -> Option<Found> {
    let rule = G::RULE;
    let deals = G::deals(&opening);
    if deals.len() > MOST_DEALS {
        return None;
    }
    let mut states = (deals.iter().map(|d| replay::<G>(d))).collect::<Option<Vec<_>>>()?;
    let solver = turn_of(&G::to_act(&states[0]))?;
    let hidden = G::secrets(&states[0], Viewer::Seat(solver)).len();
    let worlds = |states: &[G::State]| {
        (states.iter().map(|s| G::world(s, solver))).collect::<Option<Vec<_>>>()
    };
    let starts = worlds(&states)?;
    let side = starts[0].mover();
    let start_values: Vec<i32> = starts.iter().map(|p| p.value(side)).collect();
    // Every deal holds the same pieces: the same material.
    let start_material = G::material(&starts[0], side);
    let mut random = SplitMix64::new(52);
    let mut line = Vec::new();
    let mut least = rule.decisive;
    for k in 0..MOST_SOLVER_MOVES {
        let mut chosen: Option<G::Action> = None;
        let mut values = Vec::with_capacity(states.len());
        for (pos, start_value) in worlds(&states)?.iter().zip(&start_values) {
            let (mv, value, lead) = only_move(pos, &rule, k == 0)?;
            if k == 0 && value <= WIN / 2 && value < start_value + rule.decisive {
                return None;
            }
            let action = G::action(&mv);
            // One answer, whatever lies hidden.
            if chosen.as_ref().is_some_and(|c| json(c) != json(&action)) {
                return None;
            }
            // Whether the hidden pieces matter is known from the first
            // deal's first move: asked before the other deals are proved,
            // it spares most of the work of a mined candidate.
            if k == 0 && chosen.is_none() && !matters::<G>(&opening, &action) {
                return None;
            }
            chosen.get_or_insert(action);
            least = least.min(lead);
            values.push(value);
        }
        let action = chosen?;
        for state in states.iter_mut() {
            play::<G>(state, solver, &action, &mut SplitMix64::new(0))?;
        }
        alike::<G>(&states, solver, hidden)?;
        line.push(Step {
            seat: solver,
            action: json(&action),
        });
        if let Some(outcome) = G::outcome(&states[0]) {
            let won = outcome.winners.contains(&solver) && outcome.winners.len() < seats;
            return won.then(|| found::<G>(opening, seats, solver, line, Goal::Win, least));
        }
        // Two players: a gain must hold whatever the one reply, not only
        // after the hard engine's (whose ties are broken at random).
        let worst = match seats {
            2 => (states.iter())
                .filter_map(|s| least_material::<G>(s, solver, side))
                .min(),
            _ => None,
        };
        let mut replies = Vec::new();
        while let Some(seat) = turn_of(&G::to_act(&states[0])).filter(|s| *s != solver) {
            let view = G::view(&states[0], Viewer::Seat(seat));
            let reply = G::decide(&view, seat, Level::Puzzle, &mut random).ok()?;
            for state in states.iter_mut() {
                play::<G>(state, seat, &reply, &mut SplitMix64::new(0))?;
            }
            alike::<G>(&states, solver, hidden)?;
            replies.push(Step {
                seat,
                action: json(&reply),
            });
            if G::outcome(&states[0]).is_some() {
                return None;
            }
        }
        turn_of(&G::to_act(&states[0])).filter(|s| *s == solver)?;
        // A gain is material held that the engine also rates above the
        // start (the independent check holds a line to both), in every deal.
        let ends = worlds(&states)?;
        let gained = (ends.iter().zip(&values).zip(&start_values)).all(|((end, value), start)| {
            let held = G::material(end, side).min(worst.unwrap_or(i32::MAX));
            *value <= WIN / 2 && held >= start_material + rule.decisive && value > start
        });
        if gained {
            return Some(found::<G>(opening, seats, solver, line, Goal::Gain, least));
        }
        line.extend(replies);
    }
    None
}

/// Whether what `opening` hides bears on its line (docs/puzzles.md,
/// "Banqi's hidden pieces"): with it taken off the board
/// ([`Puzzles::bare`]) the line's `first` move is no longer the only one:
/// it is not legal there, or another move comes within the margin of it
/// at the rule's depth. A search that runs out of nodes shows nothing.
/// An opening that hides nothing has nothing to show.
fn matters<G: Puzzles>(opening: &[G::Event], first: &G::Action) -> bool {
    let Some(bare) = G::bare(opening) else {
        return true;
    };
    let rule = G::RULE;
    let Some(pos) = replay::<G>(&bare).and_then(|s| {
        let solver = turn_of(&G::to_act(&s))?;
        G::world(&s, solver)
    }) else {
        return false;
    };
    let mut moves = Vec::new();
    pos.moves(&mut moves);
    let Some(at) = moves
        .iter()
        .position(|m| json(&G::action(m)) == json(first))
    else {
        return true;
    };
    let (root, deep) = (pos.mover(), rule.depth - 1);
    let mut budget = Budget::new(rule.nodes);
    let Some(value) = minimax(
        &pos.play(&moves[at]),
        root,
        deep,
        i32::MIN + 1,
        i32::MAX - 1,
        &mut budget,
    ) else {
        return false;
    };
    let bound = value - rule.margin;
    for (_, other) in moves.iter().enumerate().filter(|(i, _)| *i != at) {
        match minimax(&pos.play(other), root, deep, bound, bound + 1, &mut budget) {
            Some(score) if score > bound => return true,
            Some(_) => {}
            None => return false,
        }
    }
    false
}

/// `side`'s least material after any one legal reply of the seat owing
/// one in `state` (none if the solver owes it, or nothing is whole).
fn least_material<G: Puzzles>(state: &G::State, solver: Seat, side: usize) -> Option<i32> {
    let seat = turn_of(&G::to_act(state)).filter(|s| *s != solver)?;
    let mut least = None;
    for reply in G::legal_actions(state, seat) {
        if super::is_talk(&json(&reply)) {
            continue;
        }
        let mut next = state.clone();
        play::<G>(&mut next, seat, &reply, &mut SplitMix64::new(0))?;
        let held = G::material(&G::world(&next, solver)?, side);
        least = Some(least.map_or(held, |l: i32| l.min(held)));
    }
    least
}

fn found<G: Puzzles>(
    opening: Vec<G::Event>,
    seats: usize,
    solver: Seat,
    line: Vec<Step>,
    goal: Goal,
    margin: i32,
) -> Found {
    Found {
        events: opening.iter().map(json).collect(),
        seats,
        solver,
        line,
        goal,
        depth: <G as Puzzles>::RULE.depth,
        margin,
    }
}

pub(crate) fn play<G: Game>(
    state: &mut G::State,
    seat: Seat,
    action: &G::Action,
    random: &mut dyn Random,
) -> Option<()> {
    let mut env = Env { now: 0, random };
    for event in G::act(state, seat, action, &mut env).ok()? {
        G::apply(state, &event).ok()?;
    }
    Some(())
}

/// Puzzles from one match's log: at each position where the scan sees
/// the seat to move gain decisively over what the position holds (what
/// the last move left it) by a lone best move, the position is set up
/// anew and proved. At most one puzzle a match.
pub fn mine<G: Puzzles>(
    config: &G::Config,
    seats: usize,
    events: &[G::Event],
) -> Result<Option<Found>, RuleError> {
    let rule = G::RULE;
    let mut state = G::State::default();
    for event in events {
        G::apply(&mut state, event)?;
        if G::outcome(&state).is_some() {
            break;
        }
        let Some(seat) = turn_of(&G::to_act(&state)) else {
            continue;
        };
        let Some(pos) = G::world(&state, seat) else {
            continue;
        };
        let scored = root_scores(&pos, rule.scan, &mut Budget::new(rule.nodes / 8));
        let best = scored.first().map_or(i32::MIN, |s| s.1);
        // What the last move left: a gain the position does not hold yet.
        let left = best > WIN / 2 || best >= pos.value(pos.mover()) + rule.decisive;
        let lone = scored.len() >= 2 && best - scored[1].1 >= rule.margin;
        if !left || !lone {
            continue;
        }
        let Some(config) = G::start_at(&state, seat, config) else {
            continue;
        };
        // A position the game cannot start a match from (four-player
        // chess with an army out: its seats no longer fit) is passed over.
        let Ok(opening) = G::setup(&config, seats, &mut SplitMix64::new(events.len() as u64))
        else {
            continue;
        };
        if let Some(found) = prove::<G>(opening, seats) {
            return Ok(Some(found));
        }
    }
    Ok(None)
}

/// A match of the engines against themselves, for mining (from
/// [`Puzzles::mining_start`]): seat `i` plays at the game's
/// [`Rule::players`]`[(i + seed) % len]` (so the seats take turns at each
/// level from seed to seed), the log returned when it ends or reaches
/// `plies` actions.
pub fn self_play<G: Puzzles>(
    config: &G::Config,
    seats: usize,
    plies: usize,
    seed: u64,
) -> Result<Vec<G::Event>, RuleError> {
    let levels = G::RULE.players;
    let first = (seed % levels.len() as u64) as usize;
    let mut random = SplitMix64::new(seed);
    let config = G::mining_start(config, &mut random);
    let mut log = G::setup(&config, seats, &mut random)?;
    let mut state = G::State::default();
    for event in &log {
        G::apply(&mut state, event)?;
    }
    for _ in 0..plies {
        let Some(duty) = G::to_act(&state).into_iter().next() else {
            break;
        };
        let view = G::view(&state, Viewer::Seat(duty.seat));
        let level = levels[(duty.seat.index() + first) % levels.len()];
        let action = match G::decide(&view, duty.seat, level, &mut random) {
            Ok(action) => action,
            Err(_) => break,
        };
        let mut env = Env {
            now: 0,
            random: &mut random,
        };
        let Ok(events) = G::act(&state, duty.seat, &action, &mut env) else {
            break;
        };
        for event in events {
            G::apply(&mut state, &event)?;
            log.push(event);
        }
    }
    Ok(log)
}
