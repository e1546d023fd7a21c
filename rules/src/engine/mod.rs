//! Computer opponents (issue #32): one small search interface that every
//! game's engine implements, one search over it, and the three levels.
//!
//! * [`Search`] is a position the engine may see whole: legal moves, the
//!   position after one, who acts, and a static evaluation. A game with
//!   hidden information implements it for one *sampled world*, never for
//!   the real state.
//! * [`Sample`] is what a seat may see of such a game (built from its own
//!   view only); it draws worlds consistent with that view. The engine of
//!   a hidden-information game is handed a `Sample`, so it cannot read
//!   what the seat does not see: the real state is not among its inputs.
//! * The search is alpha-beta minimax with iterative deepening under a node
//!   budget and move ordering by the previous iteration's scores. A side
//!   maximises when it is allied with the root's side and minimises
//!   otherwise: negamax for two players, the *paranoid* search for
//!   four-player chess (every other army is assumed to play against us;
//!   partners in teams are allies). Paranoid is chosen over max-n because
//!   alpha-beta still prunes under it, which buys depth within the budget.

use crate::{GameId, Random, RuleError, Seat};
use serde_json::Value;

mod banqi;
mod checkers;
mod flipchess;
mod four_player_chess;
mod janggi;

/// The action a computer opponent at `level` posts as `seat`, decided
/// from that seat's own view of the match and nothing else: `view` is what
/// `MatchState::view(Viewer::Seat(seat))` gives the seat's player, so what
/// the seat may not see is not among the inputs (issue #32: peeking is
/// impossible, not just unused). The answer is a JSON action as the act
/// call takes it, one of the seat's legal actions.
pub fn decide(
    game: GameId,
    view: &Value,
    seat: Seat,
    level: Level,
    random: &mut dyn Random,
) -> Result<Value, RuleError> {
    match game {
        GameId::Checkers => checkers::decide(view, seat, level, random),
        GameId::Janggi => janggi::decide(view, seat, level, random),
        GameId::Banqi => banqi::decide(view, seat, level, random),
        GameId::FlipChess => flipchess::decide(view, seat, level, random),
        GameId::FourPlayerChess => four_player_chess::decide(view, seat, level, random),
    }
}

/// A uniformly random move among `legal` (a seat's legal actions), never
/// a resignation nor a draw offer, and a declined offer when one is owed:
/// what a computer plays when its engine fails, so a person is never left
/// waiting on a computer (issue #32), and the duel's `random` player. Only
/// the seat's own options are read, so nothing hidden is.
pub fn fallback(legal: &[Value], random: &mut dyn Random) -> Option<Value> {
    let kind = |a: &Value| {
        a.get("type")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    if let Some(decline) = legal.iter().find(|a| kind(a) == "decline_draw") {
        return Some(decline.clone());
    }
    // Not a move of the game: resigning, the draw offers, a §F7
    // concession. Named whole: FlipChess's `draw` is drawing a card, a
    // move like any other.
    let talk = |a: &Value| TALK.contains(&kind(a).as_str());
    let moves: Vec<&Value> = legal.iter().filter(|a| !talk(a)).collect();
    let pick: Vec<&Value> = if moves.is_empty() {
        legal.iter().collect()
    } else {
        moves
    };
    (!pick.is_empty()).then(|| pick[random.below(pick.len() as u64) as usize].clone())
}

/// The action types that end or offer to end a match rather than play in
/// it, in every game: never a computer's choice while it has a move.
const TALK: [&str; 5] = [
    "resign",
    "offer_draw",
    "accept_draw",
    "decline_draw",
    "concede",
];

/// A win, from the side it is good for; shorter wins score higher.
pub const WIN: i32 = 1_000_000;

/// How strong a computer opponent is (the Janggi seed page's meanings).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Level {
    /// Looks a short way ahead and sometimes plays a weaker move.
    Easy,
    /// Looks about three moves ahead and picks among moves of similar value.
    Normal,
    /// Looks about five moves ahead (deeper within its budget) and plays
    /// the best.
    Hard,
}

impl Level {
    pub const ALL: [Level; 3] = [Level::Easy, Level::Normal, Level::Hard];

    pub fn id(self) -> &'static str {
        match self {
            Level::Easy => "easy",
            Level::Normal => "normal",
            Level::Hard => "hard",
        }
    }

    pub fn parse(id: &str) -> Option<Level> {
        Self::ALL.into_iter().find(|l| l.id() == id)
    }

    /// The rating shown beside the level.
    pub fn rating(self) -> u32 {
        match self {
            Level::Easy => 900,
            Level::Normal => 1300,
            Level::Hard => 1600,
        }
    }

    /// `(English, Korean)` names.
    pub fn names(self) -> (&'static str, &'static str) {
        match self {
            Level::Easy => ("Easy", "쉬움"),
            Level::Normal => ("Normal", "보통"),
            Level::Hard => ("Hard", "어려움"),
        }
    }

    /// How many plies the search looks ahead at most.
    pub fn depth(self) -> u32 {
        match self {
            Level::Easy => 1,
            Level::Normal => 3,
            Level::Hard => 5,
        }
    }

    /// The nodes one decision may visit (all sampled worlds together).
    pub fn nodes(self) -> u64 {
        match self {
            Level::Easy => 20_000,
            Level::Normal => 200_000,
            Level::Hard => 2_000_000,
        }
    }
}

/// A position the engine sees whole.
pub trait Search: Clone {
    type Move: Clone + PartialEq + std::fmt::Debug;

    /// Who acts: an index into the game's own sides.
    fn mover(&self) -> usize;

    /// Whether sides `a` and `b` play together (the same side, or partners
    /// in four-player teams).
    fn allies(&self, a: usize, b: usize) -> bool {
        a == b
    }

    /// The legal moves of the side to act; none when the game is over.
    fn moves(&self, out: &mut Vec<Self::Move>);

    /// The position after `mv`, one of [`Search::moves`].
    fn play(&self, mv: &Self::Move) -> Self;

    /// The value of this position for `side`: the game's result when it is
    /// over (±[`WIN`], 0 for a draw), else the evaluation.
    fn value(&self, side: usize) -> i32;

    /// Whether the game is over here.
    fn over(&self) -> bool;
}

/// A seat's own information about a game with hidden parts: it draws
/// worlds consistent with what the seat sees.
pub trait Sample {
    type World: Search;

    fn sample(&self, random: &mut dyn Random) -> Self::World;
}

thread_local! {
    /// Nodes searched on this thread so far, for the benchmark's nodes per
    /// second ([`nodes_searched`]).
    static NODES: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many nodes the searches on this thread have visited so far (a
/// measure for benchmarks; it never changes a decision).
pub fn nodes_searched() -> u64 {
    NODES.with(|n| n.get())
}

/// The nodes a decision may still visit.
pub struct Budget {
    left: u64,
}

impl Budget {
    pub fn new(nodes: u64) -> Self {
        Budget { left: nodes }
    }

    fn spend(&mut self) -> bool {
        if self.left == 0 {
            return false;
        }
        self.left -= 1;
        NODES.with(|n| n.set(n.get() + 1));
        true
    }

    pub fn spent(&self) -> bool {
        self.left == 0
    }
}

/// Alpha-beta minimax for `root`'s side from `pos`, `depth` plies deep.
/// `None` when the budget ran out (the iteration is then discarded).
fn minimax<P: Search>(
    pos: &P,
    root: usize,
    depth: u32,
    mut alpha: i32,
    mut beta: i32,
    budget: &mut Budget,
) -> Option<i32> {
    if !budget.spend() {
        return None;
    }
    if depth == 0 || pos.over() {
        return Some(pos.value(root));
    }
    let mut moves = Vec::new();
    pos.moves(&mut moves);
    if moves.is_empty() {
        return Some(pos.value(root));
    }
    let maximising = pos.allies(pos.mover(), root);
    let mut best = if maximising { i32::MIN } else { i32::MAX };
    for mv in &moves {
        let score = minimax(&pos.play(mv), root, depth - 1, alpha, beta, budget)?;
        // A win found sooner is worth more than one found later.
        let score = score - score.signum() * i32::from(score.abs() > WIN / 2);
        if maximising {
            best = best.max(score);
            alpha = alpha.max(score);
        } else {
            best = best.min(score);
            beta = beta.min(score);
        }
        if alpha >= beta {
            break;
        }
    }
    Some(best)
}

/// Every root move's score for the mover, from the deepest iteration the
/// budget allowed (iterative deepening; each iteration searches the
/// previous one's best moves first, which makes alpha-beta prune more).
pub fn root_scores<P: Search>(pos: &P, max_depth: u32, budget: &mut Budget) -> Vec<(P::Move, i32)> {
    let root = pos.mover();
    let mut moves = Vec::new();
    pos.moves(&mut moves);
    let mut scored: Vec<(P::Move, i32)> = moves.into_iter().map(|m| (m, 0)).collect();
    for depth in 1..=max_depth.max(1) {
        let mut this_depth = Vec::with_capacity(scored.len());
        for (mv, _) in &scored {
            // Each root move gets a full window: its own score is wanted,
            // not only whether it beats the best so far.
            match minimax(
                &pos.play(mv),
                root,
                depth - 1,
                i32::MIN + 1,
                i32::MAX - 1,
                budget,
            ) {
                Some(score) => this_depth.push((mv.clone(), score)),
                None => return scored,
            }
        }
        this_depth.sort_by_key(|m| std::cmp::Reverse(m.1));
        scored = this_depth;
        if budget.spent() {
            break;
        }
    }
    scored
}

/// Choose among scored root moves as `level` does: hard plays the best;
/// normal picks at random among those within `margin` of the best; easy
/// mostly plays its (shallow) best but one time in four plays a move from
/// the weaker half.
pub fn choose_scored<M: Clone>(
    scored: &[(M, i32)],
    level: Level,
    margin: i32,
    random: &mut dyn Random,
) -> Option<M> {
    let best = scored.iter().map(|(_, s)| *s).max()?;
    let pick = |list: Vec<&(M, i32)>, random: &mut dyn Random| {
        list.get(random.below(list.len() as u64) as usize)
            .map(|(m, _)| m.clone())
    };
    match level {
        Level::Hard => scored
            .iter()
            .find(|(_, s)| *s == best)
            .map(|(m, _)| m.clone()),
        Level::Normal => pick(
            scored.iter().filter(|(_, s)| *s >= best - margin).collect(),
            random,
        ),
        Level::Easy => {
            if scored.len() > 1 && random.below(4) == 0 {
                let mut sorted: Vec<&(M, i32)> = scored.iter().collect();
                sorted.sort_by_key(|m| std::cmp::Reverse(m.1));
                let weaker = sorted.split_off(sorted.len() / 2);
                pick(weaker, random)
            } else {
                scored
                    .iter()
                    .find(|(_, s)| *s == best)
                    .map(|(m, _)| m.clone())
            }
        }
    }
}

/// The move `level` plays in a position it sees whole.
pub fn choose<P: Search>(
    pos: &P,
    level: Level,
    margin: i32,
    random: &mut dyn Random,
) -> Option<P::Move> {
    let mut budget = Budget::new(level.nodes());
    let scored = root_scores(pos, level.depth(), &mut budget);
    choose_scored(&scored, level, margin, random)
}

/// Easy's weaker moves, kept within `floor` of its best: the scored root
/// moves without those worse than that (the best always stays), for a
/// game whose easy level would otherwise give away too much at random.
pub fn within<M: Clone>(scored: &[(M, i32)], floor: i32) -> Vec<(M, i32)> {
    let best = scored.iter().map(|(_, s)| *s).max().unwrap_or(0);
    scored
        .iter()
        .filter(|(_, s)| *s >= best.saturating_sub(floor))
        .cloned()
        .collect()
}

/// The move `level` plays from a seat's own information: `worlds` worlds
/// are sampled, each searched with its share of the budget, and each root
/// move's scores summed over them (determinization). The legal moves must
/// not depend on what the seat cannot see, so every world has the same.
pub fn choose_hidden<S: Sample>(
    seen: &S,
    level: Level,
    margin: i32,
    worlds: u32,
    random: &mut dyn Random,
) -> Option<<S::World as Search>::Move> {
    let mut totals: Vec<(<S::World as Search>::Move, i32)> = Vec::new();
    let share = level.nodes() / u64::from(worlds.max(1));
    for _ in 0..worlds.max(1) {
        let world = seen.sample(random);
        let mut budget = Budget::new(share);
        for (mv, score) in root_scores(&world, level.depth(), &mut budget) {
            let score = score / worlds.max(1) as i32;
            match totals.iter_mut().find(|(m, _)| *m == mv) {
                Some((_, total)) => *total = total.saturating_add(score),
                None => totals.push((mv, score)),
            }
        }
    }
    choose_scored(&totals, level, margin, random)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SplitMix64;

    #[test]
    fn fallback_plays_a_move_never_a_resignation_and_declines_an_offer() {
        let mut random = SplitMix64::new(7);
        let legal = vec![
            serde_json::json!({"type": "resign"}),
            serde_json::json!({"type": "offer_draw"}),
            serde_json::json!({"type": "move", "from": "a3", "to": "b4"}),
        ];
        for _ in 0..20 {
            let pick = fallback(&legal, &mut random).unwrap();
            assert_eq!(pick["type"], "move");
        }
        let owed = vec![
            serde_json::json!({"type": "accept_draw"}),
            serde_json::json!({"type": "decline_draw"}),
        ];
        assert_eq!(
            fallback(&owed, &mut random).unwrap()["type"],
            "decline_draw"
        );
        // §F6: drawing a card is a move, never mistaken for a draw offer.
        let must_draw = vec![
            serde_json::json!({"type": "resign"}),
            serde_json::json!({"type": "draw"}),
        ];
        for _ in 0..20 {
            assert_eq!(fallback(&must_draw, &mut random).unwrap()["type"], "draw");
        }
        // Only talk left (a §F7 concession): it is still an answer.
        let only = vec![serde_json::json!({"type": "concede"})];
        assert_eq!(fallback(&only, &mut random).unwrap()["type"], "concede");
        assert_eq!(fallback(&[], &mut random), None);
    }

    /// Nim with 1–3 taken a turn; whoever takes the last wins. The side to
    /// act loses exactly when the heap is a multiple of 4.
    #[derive(Clone, Debug)]
    struct Nim {
        heap: u32,
        mover: usize,
    }

    impl Search for Nim {
        type Move = u32;
        fn mover(&self) -> usize {
            self.mover
        }
        fn moves(&self, out: &mut Vec<u32>) {
            out.extend((1..=3).filter(|n| *n <= self.heap));
        }
        fn play(&self, mv: &u32) -> Self {
            Nim {
                heap: self.heap - mv,
                mover: 1 - self.mover,
            }
        }
        fn over(&self) -> bool {
            self.heap == 0
        }
        fn value(&self, side: usize) -> i32 {
            // The side to act is lost on a multiple of four (on an empty
            // heap: the other side took the last).
            let lost = self.heap.is_multiple_of(4);
            let size = if self.heap == 0 { WIN } else { 100 };
            if lost == (side == self.mover) {
                -size
            } else {
                size
            }
        }
    }

    #[test]
    fn hard_finds_the_winning_take_and_easy_sometimes_does_not() {
        let mut random = SplitMix64::new(1);
        for heap in [5, 6, 7, 9, 10, 11] {
            let pos = Nim { heap, mover: 0 };
            assert_eq!(
                choose(&pos, Level::Hard, 0, &mut random),
                Some(heap % 4),
                "heap {heap}"
            );
        }
        let pos = Nim { heap: 7, mover: 0 };
        let easy: Vec<u32> = (0..200)
            .filter_map(|_| choose(&pos, Level::Easy, 0, &mut random))
            .collect();
        assert!(
            easy.iter().any(|m| *m != 3),
            "easy plays a weaker move at times"
        );
        assert!(
            easy.iter().filter(|m| **m == 3).count() > 100,
            "but mostly its best"
        );
    }

    #[test]
    fn a_spent_budget_keeps_the_last_whole_iteration() {
        let pos = Nim { heap: 30, mover: 0 };
        let mut budget = Budget::new(50);
        let scored = root_scores(&pos, 10, &mut budget);
        assert_eq!(scored.len(), 3, "every root move keeps a score");
    }
}
