//! The FlipChess engine (docs/bots-hidden.md; docs/rules/flipchess.md §F, §H1).
//!
//! A seat sees the board, its own hand, the other hand's size, the deck's
//! size, the pile's top card and size, the phase of the turn and the §F8
//! window (its own view, read into the rules' [`View`]). Hidden from it:
//! the other hand, the deck's order and the pile under the top card.
//! [`Seen`] is built from the view alone and samples worlds: the cards not seen (the 108 of §F2 minus its
//! own hand and the top of the pile) are shuffled and dealt to the other
//! hand, the deck and the pile below the top, in the sizes the view gives.
//! A world is a whole [`State`]; the search steps it with the game's own
//! `legal_actions` and `act`, so every action the engine considers is one
//! the rules list, in their JSON shape.
//!
//! The search counts *actions*, not turns: a turn is a card (or a draw),
//! then up to three moves of that card's group, then the end of the turn
//! (§F5, §F6). What the levels mean here:
//!
//! * easy: the action's own result, one action (the card, the move), with
//!   the immediate board threats of the side to move counted at the leaf,
//!   in 2 worlds; its occasional weaker choice (the frame's one in four)
//!   is made for the card only, its moves within the turn are its best;
//! * normal: three actions deep (a card and two moves of it, or the rest
//!   of a turn and the other side's card), in 4 sampled worlds, choosing
//!   among actions within a tenth of a pawn of its best;
//! * hard: five actions deep within its budget, in 8 sampled worlds.
//!
//! At each leaf the board is judged by material (§F9's values), a king
//! missing (a §F7 capture pending) weighs heavily, the hands count
//! (emptying one's hand wins, §F9), and the side to move is credited half
//! of the best capture one of its moves could make (the "one reply ahead
//! on the board": the card it would need is not known, so half).
//!
//! Outside the search: "last card!" is called at once (§F8), an
//! opponent who did not call is caught, a §F7 flip decision flips with a
//! Flip card, else the free flip, and concedes only when it cannot flip.
//! A play that leaves one card always declares "last card!". The
//! computer never resigns.

use super::puzzles::{json, Found, Goal, Puzzles, Rule, Step, NORMAL_AGAINST_EASY};
use super::{choose_scored, root_scores, Budget, Engine, Level, Sample, Search, WIN};
use crate::flipchess::board::{Board, Kind, Side};
use crate::flipchess::cards::{Card, DECK_SIZE};
use crate::flipchess::puzzle::{dealt, win_this_turn};
use crate::flipchess::{Action, Config, Event, FlipChess, Phase, PhaseKind, State, View};
use crate::{Env, Game, Random, RuleError, Seat, SplitMix64};

/// One sampled world: a whole match state.
#[derive(Clone, Debug)]
pub struct World {
    pub state: State,
}

fn actor(state: &State) -> Seat {
    match state.phase {
        Phase::FlipDecision { victim } => victim,
        _ => state.on_move(),
    }
}

fn worth(kind: Kind) -> i32 {
    match kind {
        Kind::King => 0,
        k => k.value() as i32 * 100,
    }
}

/// The actions the search considers for `seat`: the listed ones without
/// resigning, the §F8 calls and catches (decided outside the search), a
/// play that leaves one card only with its declaration, and conceding only
/// when nothing else is listed.
fn candidates(state: &State, seat: Seat, out: &mut Vec<Action>) {
    out.clear();
    let all = FlipChess::legal_actions(state, seat);
    let leaves_one = state.hand(seat).len() == 2;
    for a in &all {
        match a {
            Action::Resign {} | Action::CallLastCard {} | Action::Catch {} | Action::Concede {} => {
            }
            Action::Play { last_card, .. } if leaves_one && !last_card => {}
            a => out.push(a.clone()),
        }
    }
    if out.is_empty() && all.contains(&Action::Concede {}) {
        out.push(Action::Concede {});
    }
}

impl Search for World {
    type Move = Action;

    fn mover(&self) -> usize {
        actor(&self.state).index()
    }

    fn moves(&self, out: &mut Vec<Action>) {
        if self.state.outcome.is_some() {
            out.clear();
            return;
        }
        candidates(&self.state, actor(&self.state), out);
    }

    fn play(&self, mv: &Action) -> Self {
        let mut state = self.state.clone();
        // Draws take from the sampled deck; a reshuffle of the pile needs
        // a random source: a fixed one keeps the world deterministic.
        let mut random = SplitMix64::new(u64::from(state.turns) + 1);
        let mut env = Env {
            now: 0,
            random: &mut random,
        };
        if let Ok(events) = FlipChess::act(&self.state, actor(&self.state), mv, &mut env) {
            // Fresh events of the game's own: they fold.
            for e in &events {
                let folded = state.apply(e);
                debug_assert!(folded.is_ok(), "{folded:?}");
            }
        }
        World { state }
    }

    fn value(&self, side: usize) -> i32 {
        let state = &self.state;
        let me = Seat(side as u8);
        if let Some(outcome) = &state.outcome {
            return if outcome.winners.contains(&me) {
                WIN
            } else if outcome.winners.is_empty() {
                0
            } else {
                -WIN
            };
        }
        let board = &state.board;
        let my_side = state.side_of(me);
        let mut score = 0;
        for piece in board.squares.iter().flatten() {
            let w = worth(piece.kind);
            score += if piece.side == my_side { w } else { -w };
        }
        for s in [Side::White, Side::Black] {
            if board.king(s).is_none() {
                score += if s == my_side { -2_000 } else { 2_000 };
            }
        }
        let hands = state.hand(crate::flipchess::state::other(me)).len() as i32
            - state.hand(me).len() as i32;
        score += hands * 40;
        // The side to move on the board: half its best capture.
        if matches!(
            state.phase,
            Phase::Play | Phase::Moving { .. } | Phase::Drawn { .. }
        ) {
            let mut moves = Vec::new();
            board.moves(None, &mut moves);
            let late = state.round() > crate::flipchess::state::FLIP_ROUNDS;
            let best = moves
                .iter()
                .filter_map(|m| board.squares[m.to as usize])
                .filter(|p| p.side != board.side)
                .map(|p| match p.kind {
                    Kind::King if late => 4_000,
                    Kind::King => 1_000,
                    k => worth(k),
                })
                .max()
                .unwrap_or(0);
            score += if board.side == my_side {
                best / 2
            } else {
                -best / 2
            };
        }
        score
    }

    fn over(&self) -> bool {
        self.state.outcome.is_some()
    }
}

/// What a seat sees of a FlipChess match, from its own view only.
#[derive(Clone, Debug)]
pub struct Seen {
    pub seat: Seat,
    /// The match with the hidden parts empty: the other hand, the deck
    /// and the pile under its top.
    pub base: State,
    /// The ids of the cards the seat has not seen.
    pub unseen: Vec<u8>,
    pub other_hand: usize,
    pub deck: usize,
}

impl Seen {
    /// What `seat`'s own view (what `FlipChess::view` gives it) shows.
    pub fn from_view(view: &View, seat: Seat) -> Result<Seen, RuleError> {
        let bad = |why: &str| RuleError::malformed(format!("flipchess view: {why}"));
        if seat.index() > 1 {
            return Err(RuleError::illegal("there is no such seat in flipchess"));
        }
        let mut pool: Vec<u8> = (0..DECK_SIZE).collect();
        let mut take = |name: &str| -> Result<u8, RuleError> {
            let i = pool
                .iter()
                .position(|&id| Card::of(id).name() == name)
                .ok_or_else(|| bad("more cards of a kind than the deck holds"))?;
            Ok(pool.remove(i))
        };
        let own = view.hand.as_ref().ok_or_else(|| bad("no hand"))?;
        let hand = (own.iter())
            .map(|name| take(name))
            .collect::<Result<Vec<u8>, _>>()?;
        let top = view.discard_top.as_deref().map(take).transpose()?;
        let board = Board::from_fen(&view.position)?;
        let shown = &view.phase;
        let phase = match shown.kind {
            PhaseKind::Play => Phase::Play,
            PhaseKind::Drawn => {
                let name = shown
                    .drawn_card
                    .as_deref()
                    .ok_or_else(|| bad("drawn_card"))?;
                let card = hand
                    .iter()
                    .copied()
                    .find(|&id| Card::of(id).name() == name)
                    .ok_or_else(|| bad("the drawn card is not in the hand"))?;
                Phase::Drawn { card }
            }
            PhaseKind::Moving => Phase::Moving {
                colour: shown.colour.ok_or_else(|| bad("phase colour"))?,
                left: shown.moves_left.ok_or_else(|| bad("moves_left"))?,
            },
            PhaseKind::BasicMove => Phase::BasicMove,
            PhaseKind::FlipDecision => Phase::FlipDecision {
                victim: shown.flip_victim.ok_or_else(|| bad("flip_victim"))?,
            },
        };
        let other = crate::flipchess::state::other(seat);
        let other_hand = view.hand_sizes[other.index()];
        let deck = view.deck_size;
        if other_hand + deck + view.discard_size.saturating_sub(1) != pool.len() {
            return Err(bad("the card counts do not add up to 108"));
        }
        let mut hands: [Vec<u8>; 2] = [Vec::new(), Vec::new()];
        hands[seat.index()] = hand;
        let base = State {
            before_capture: matches!(phase, Phase::FlipDecision { .. }).then_some(board),
            played: match phase {
                Phase::Moving { .. } => top,
                _ => None,
            },
            board,
            white: view.white,
            started_white: view.white,
            deck: Vec::new(),
            discard: top.into_iter().collect(),
            named: view.named_colour,
            hands,
            turns: view.turn,
            phase,
            free_flip_used: !view.free_flip_available,
            last_card: view.last_card.as_ref().map(|l| (l.seat, l.closes_at)),
            outcome: None,
        };
        Ok(Seen {
            seat,
            base,
            unseen: pool,
            other_hand,
            deck,
        })
    }
}

impl Sample for Seen {
    type World = World;

    fn sample(&self, random: &mut dyn Random) -> World {
        let mut cards = self.unseen.clone();
        for i in (1..cards.len()).rev() {
            cards.swap(i, random.below(i as u64 + 1) as usize);
        }
        let mut state = self.base.clone();
        let other = crate::flipchess::state::other(self.seat);
        let rest = cards.split_off(self.other_hand);
        state.hands[other.index()] = cards;
        let mut rest = rest;
        let under = rest.split_off(self.deck);
        state.deck = rest;
        let mut discard = under;
        discard.extend(state.discard.iter().copied());
        state.discard = discard;
        World { state }
    }
}

/// Worlds sampled and nodes allowed (all worlds together) per level.
fn effort(level: Level) -> (u32, u64) {
    match level {
        Level::Easy => (2, 2_000),
        Level::Normal => (4, 16_000),
        Level::Hard => (8, 100_000),
        // Pinned: the puzzles were proved against it (docs/puzzles.md).
        Level::Puzzle => (8, 100_000),
    }
}

/// The action `level` takes as `seen.seat`.
/// The choice made by rule rather than by the search, when there is one
/// (`None`: the search decides): §F8's call at once and the catch of an
/// opponent who did not; at the seat's own §F7 flip decision, a Flip card
/// (it also empties the hand), else the free flip, conceding only when
/// neither is there.
fn by_rule(seen: &Seen, listed: &[Action]) -> Option<Option<Action>> {
    for a in [Action::CallLastCard {}, Action::Catch {}] {
        if listed.contains(&a) {
            return Some(Some(a));
        }
    }
    if matches!(seen.base.phase, Phase::FlipDecision { victim } if victim == seen.seat) {
        let flip = (listed.iter())
            .find(|a| matches!(a, Action::FlipCard { .. }))
            .or_else(|| listed.iter().find(|a| matches!(a, Action::FreeFlip {})))
            .or_else(|| listed.iter().find(|a| matches!(a, Action::Concede {})));
        return Some(flip.cloned());
    }
    None
}

pub fn choose_action(seen: &Seen, level: Level, random: &mut dyn Random) -> Option<Action> {
    let state = &seen.base;
    let listed = FlipChess::legal_actions(state, seen.seat);
    if let Some(chosen) = by_rule(seen, &listed) {
        return chosen;
    }
    let mut root = Vec::new();
    candidates(state, seen.seat, &mut root);
    if root.len() <= 1 {
        return root.pop();
    }
    let (worlds, nodes) = effort(level);
    let depth = level.depth();
    let mut totals: Vec<(Action, i32)> = Vec::new();
    for _ in 0..worlds {
        let world = seen.sample(random);
        let mut budget = Budget::for_level(level, nodes / u64::from(worlds));
        for (mv, score) in root_scores(&world, depth, &mut budget) {
            let score = score / worlds as i32;
            match totals.iter_mut().find(|(m, _)| *m == mv) {
                Some((_, total)) => *total = total.saturating_add(score),
                None => totals.push((mv, score)),
            }
        }
    }
    // Easy's occasional weaker choice is kept for the card it plays; the
    // moves within a turn are its best (several weaker steps a turn would
    // make it weaker than a beginner).
    let pick = match (level, &state.phase) {
        (Level::Easy, Phase::Moving { .. } | Phase::BasicMove) => Level::Hard,
        _ => level,
    };
    choose_scored(&totals, pick, 10, random).or_else(|| root.first().cloned())
}

/// Puzzles (docs/puzzles.md): a FlipChess position is never whole to a
/// player (the opponent's hand and the deck are hidden), so its puzzles
/// are not the engines' forced lines but "win this turn"
/// ([`crate::flipchess::puzzle`]), which no hidden card bears on.
impl Puzzles for FlipChess {
    type Whole = World;
    /// `depth` and `margin` are nominal: a line is the actions of one
    /// turn, and every other choice at a step takes no king this turn.
    const SHIPPED: &'static str = include_str!("../../puzzles/flipchess.jsonl");
    const RULE: Rule = Rule {
        mined: true,
        from_people: false,
        scan: 1,
        depth: 4,
        margin: 300,
        decisive: 500,
        nodes: 1_000_000,
        players: NORMAL_AGAINST_EASY,
    };

    fn whole(_view: &View) -> Option<World> {
        None
    }

    fn start_of(_view: &View, _config: &Config) -> Option<Config> {
        None
    }

    fn action(mv: &Action) -> Action {
        mv.clone()
    }

    fn material(_world: &World, _side: usize) -> i32 {
        0
    }

    fn mine_log(
        _config: &Config,
        _seats: usize,
        events: &[Event],
    ) -> Result<Option<Found>, RuleError> {
        mine_win_this_turn(events)
    }
}

/// The first "win this turn" puzzle ([`crate::flipchess::puzzle`]) of a
/// match's log: looked for just before each card a player plays or draw
/// they make, when the turn is whole (no effect of the last one still to
/// come), and proved again on the puzzle's own new match.
fn mine_win_this_turn(events: &[Event]) -> Result<Option<Found>, RuleError> {
    let mut state = State::default();
    for (i, event) in events.iter().enumerate() {
        let acts = matches!(event, Event::CardPlayed { .. })
            || matches!(event, Event::Drew { reason, .. } if reason == "no_playable_card");
        if i > 0 && acts {
            if let Some(found) = puzzle_at(&state, events.len() as u64) {
                return Ok(Some(found));
            }
        }
        state.apply(event)?;
        if state.outcome.is_some() {
            break;
        }
    }
    Ok(None)
}

fn puzzle_at(state: &State, seed: u64) -> Option<Found> {
    win_this_turn(state, state.on_move())?;
    let config = dealt(state)?;
    let opening = FlipChess::setup(&config, 2, &mut SplitMix64::new(seed)).ok()?;
    let mut fresh = State::default();
    for event in &opening {
        fresh.apply(event).ok()?;
    }
    let solver = fresh.on_move();
    let line = win_this_turn(&fresh, solver)?;
    Some(Found {
        events: opening.iter().map(json).collect(),
        seats: 2,
        solver,
        depth: line.len() as u32,
        line: line
            .iter()
            .map(|a| Step {
                seat: solver,
                action: json(a),
            })
            .collect(),
        goal: Goal::Win,
        margin: <FlipChess as Puzzles>::RULE.margin,
    })
}

/// A FlipChess play is judged in worlds drawn from its player's own view
/// (§H1): the other hand, the deck and the pile below its top dealt at
/// random from the cards not seen. The §F8 calls and catches and the §F7
/// flip decision are not judged: the engine makes them outside its
/// search (docs/bots-hidden.md).
impl super::analysis::Analyse for FlipChess {
    fn worlds(
        view: &View,
        seat: Seat,
        worlds: u32,
        random: &mut dyn Random,
    ) -> Result<Vec<World>, RuleError> {
        let seen = Seen::from_view(view, seat)?;
        let listed = FlipChess::legal_actions(&seen.base, seat);
        if by_rule(&seen, &listed).is_some() {
            return Ok(Vec::new());
        }
        Ok(super::analysis::sampled(&seen, worlds, random))
    }
}

impl Engine for FlipChess {
    fn decide(
        view: &View,
        seat: Seat,
        level: Level,
        random: &mut dyn Random,
    ) -> Result<Action, RuleError> {
        let seen = Seen::from_view(view, seat)?;
        choose_action(&seen, level, random).ok_or_else(RuleError::not_your_turn)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Game, SplitMix64, Viewer};

    /// §F2, §H1: a sampled world holds the 108 cards exactly once, the
    /// seat's own hand and the pile's top as they are, and the other hand
    /// and the deck in the sizes the view shows.
    #[test]
    fn samples_hold_each_card_once_with_the_seen_ones_in_place_f2() {
        for seed in 0..30u64 {
            let mut random = SplitMix64::new(seed);
            let mut state = State::default();
            for e in FlipChess::setup(&Default::default(), 2, &mut random).unwrap() {
                state.apply(&e).unwrap();
            }
            for seat in [Seat(0), Seat(1)] {
                let view = FlipChess::view(&state, Viewer::Seat(seat));
                let seen = Seen::from_view(&view, seat).unwrap();
                let world = seen.sample(&mut random).state;
                let mut all: Vec<u8> = world
                    .deck
                    .iter()
                    .chain(&world.discard)
                    .chain(&world.hands[0])
                    .chain(&world.hands[1])
                    .copied()
                    .collect();
                all.sort_unstable();
                assert_eq!(all, (0..DECK_SIZE).collect::<Vec<_>>());
                let names = |cards: &[u8]| -> Vec<String> {
                    cards.iter().map(|&c| Card::of(c).name()).collect()
                };
                assert_eq!(names(&world.hands[seat.index()]), names(state.hand(seat)));
                assert_eq!(world.top(), state.top());
                let them = 1 - seat.index();
                assert_eq!(world.hands[them].len(), state.hands[them].len());
                assert_eq!(world.deck.len(), state.deck.len());
                assert_eq!(world.discard.len(), state.discard.len());
            }
        }
    }
}
