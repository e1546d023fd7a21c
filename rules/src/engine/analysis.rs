//! The analysis of a finished match (issue #69, docs/analysis.md): the
//! engines' judgement of every play, each on one scale for every game.
//!
//! * **One scale.** An engine's value is in its game's own units
//!   (checkers' men-hundredths, Janggi's points…); it becomes the mover's
//!   *winning chance*, `1 / (1 + e^(-ln 3 · value / decisive))`, where
//!   `decisive` is the game's decisive gain ([`super::puzzles::Rule`]:
//!   150 in checkers, 250 in Banqi, 500 in Janggi, FlipChess and
//!   four-player chess). A decisive lead is a 75 % chance in every game,
//!   as a minor piece is in lichess's curve; a win found is 100 %.
//! * **Judged as the mover could know.** Each play is judged from its
//!   mover's own view, as the engines play ([`Analyse::worlds`]): where
//!   the view hides something (Banqi's face-down pieces, FlipChess's
//!   other hand and deck), the judgement is the average over a seeded
//!   sample of worlds drawn from that view, the played move and the best
//!   valued in the same worlds. The cards and pieces the mover could not
//!   see are never among the inputs.
//! * **What a play lost** is the best move's chance less the played
//!   move's: from 5 points an inaccuracy, 10 a mistake, 15 a blunder
//!   (lichess's thresholds, on the same chance). A move's accuracy is
//!   lichess's curve of the points lost, `103.1668 · e^(-0.04354 · lost)
//!   − 3.1669`, capped to 0–100; a player's accuracy is the mean over
//!   their judged plays.

use super::puzzles::{json, Puzzles};
use super::{root_scores, Budget, Sample, WIN};
use crate::records::Records;
use crate::{Game, Random, RuleError, Seat, SplitMix64, Viewer};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What an analysis spends on each play: nodes and the deepest
/// iteration, and the worlds sampled where the mover could not see
/// everything (the nodes shared among them). Node budgets only: the
/// rules read no clock, so an analysis is the same on every run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Effort {
    pub nodes: u64,
    pub depth: u32,
    pub worlds: u32,
}

impl Effort {
    /// The service's analysis: the normal level's nodes a play, a hard
    /// level's depth, eight worlds (docs/analysis.md, "Effort").
    pub const SERVICE: Effort = Effort {
        nodes: 200_000,
        depth: 6,
        worlds: 8,
    };
}

/// How a play is called, by the chance it lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Judgement {
    Inaccuracy,
    Mistake,
    Blunder,
}

impl Judgement {
    /// The call for a play that lost `lost` per mille of winning chance.
    pub fn of(lost: u16) -> Option<Judgement> {
        match lost {
            150.. => Some(Judgement::Blunder),
            100.. => Some(Judgement::Mistake),
            50.. => Some(Judgement::Inaccuracy),
            _ => None,
        }
    }
}

/// One judged play.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Ply {
    /// The number of the event that made it in the match's log (from 1):
    /// the replay's step after it.
    pub seq: usize,
    pub seat: Seat,
    /// The action played, and the engines' best, as the act call takes
    /// them.
    #[schemars(with = "Value")]
    pub played: Value,
    #[schemars(with = "Value")]
    pub best: Value,
    /// The mover's winning chance in per mille: with the best move, and
    /// with the move played.
    pub before: u16,
    pub after: u16,
    pub judgement: Option<Judgement>,
    /// Whether the mover saw nothing a spectator does not: a judgement
    /// read from a hand (FlipChess) is not, and is shown to the match's
    /// players only (§H3, §H4).
    pub public: bool,
}

/// One seat's figures over its judged plays.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Player {
    pub seat: Seat,
    /// The mean of the plays' accuracies, 0–100, to a tenth.
    pub accuracy: f64,
    pub plies: usize,
    pub inaccuracies: usize,
    pub mistakes: usize,
    pub blunders: usize,
}

/// A match's analysis.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Analysis {
    pub effort: Effort,
    pub plies: Vec<Ply>,
    pub players: Vec<Player>,
}

/// A game its analysis judges: the positions its engine searches for a
/// seat, from that seat's own view.
pub trait Analyse: Puzzles + Records {
    /// The worlds `seat` may be in, from its `view`: the position itself
    /// where it sees it whole (the default), else `worlds` sampled from
    /// what it sees as its engine samples them. None where the engine
    /// does not search (a choice made outside it: Banqi's first turn-up,
    /// FlipChess's calls and flip decisions).
    fn worlds(
        view: &Self::View,
        seat: Seat,
        worlds: u32,
        random: &mut dyn Random,
    ) -> Result<Vec<Self::Whole>, RuleError> {
        let _ = (seat, worlds, random);
        Ok(Self::whole(view).into_iter().collect())
    }
}

/// `worlds` worlds drawn from `seen`: the sampled games' [`Analyse::worlds`].
pub fn sampled<S: Sample>(seen: &S, worlds: u32, random: &mut dyn Random) -> Vec<S::World> {
    (0..worlds.max(1)).map(|_| seen.sample(random)).collect()
}

/// The mover's winning chance, per mille, of an engine value in a game
/// whose decisive gain is `decisive`.
pub fn chance(value: i32, decisive: i32) -> f64 {
    if value > WIN / 2 {
        return 1000.0;
    }
    if value < -WIN / 2 {
        return 0.0;
    }
    let x = -(3f64.ln()) * f64::from(value) / f64::from(decisive.max(1));
    1000.0 / (1.0 + x.exp())
}

/// A play's accuracy from the per mille of chance it lost (lichess's
/// curve, on points of 100).
pub fn accuracy(lost: u16) -> f64 {
    let points = f64::from(lost) / 10.0;
    (103.1668 * (-0.04354 * points).exp() - 3.1669).clamp(0.0, 100.0)
}

/// Every root move's chance for the mover, averaged over `worlds` (each
/// searched with its share of `effort`), in the order first met.
pub fn judged<G: Analyse>(worlds: &[G::Whole], effort: Effort) -> Vec<(Value, f64)> {
    let mut totals: Vec<(Value, f64)> = Vec::new();
    let share = effort.nodes / worlds.len().max(1) as u64;
    for world in worlds {
        // The stronger search (a transposition table, quiescence): an
        // analysis is read by people looking for the truth of a position.
        let mut budget = Budget::stronger(share.max(1));
        for (mv, score) in root_scores(world, effort.depth, &mut budget) {
            let action = json(&<G as Puzzles>::action(&mv));
            let worth = chance(score, G::RULE.decisive) / worlds.len() as f64;
            match totals.iter_mut().find(|(a, _)| *a == action) {
                Some((_, total)) => *total += worth,
                None => totals.push((action, worth)),
            }
        }
    }
    totals
}

/// One play judged from its worlds: `None` when the played action is not
/// among the engine's moves (nothing to compare it with).
pub fn judge_play<G: Analyse>(
    worlds: &[G::Whole],
    played: &Value,
    effort: Effort,
) -> Option<(Value, u16, u16)> {
    let scored = judged::<G>(worlds, effort);
    let after = scored.iter().find(|(a, _)| a == played)?.1;
    let (best, before) = scored
        .iter()
        .fold(None::<&(Value, f64)>, |top, m| match top {
            Some(t) if t.1 >= m.1 => Some(t),
            _ => Some(m),
        })?;
    Some((best.clone(), before.round() as u16, after.round() as u16))
}

/// The seat whose legal action `played` is, among those owing one.
fn actor<G: Game>(state: &G::State, played: &Value) -> Option<Seat> {
    G::to_act(state)
        .into_iter()
        .map(|duty| duty.seat)
        .find(|seat| (G::legal_actions(state, *seat).iter()).any(|a| json(a) == *played))
}

/// The analysis of a match's whole log at `effort`. Each play's worlds
/// are drawn with a seed of its own place in the log, so the same log
/// is judged the same every time.
pub fn analyse<G: Analyse>(events: &[G::Event], effort: Effort) -> Result<Analysis, RuleError> {
    let judged = judge_plays::<G>(events, effort, 0..usize::MAX)?;
    Ok(summed(effort, judged.plies))
}

/// Some plays of a log judged, and how many plays the log has.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Judged {
    pub plies: Vec<Ply>,
    pub plays: usize,
}

/// The plays `range` of a log (counted from 0 in the log's order of
/// plays) judged at `effort`: a long match is judged a few plays at a
/// time, so the service's threads give way to people's computer replies
/// between them. A play whose judgement fails (a view the engine cannot
/// read) is left unjudged rather than failing the rest.
pub fn judge_plays<G: Analyse>(
    events: &[G::Event],
    effort: Effort,
    range: std::ops::Range<usize>,
) -> Result<Judged, RuleError> {
    let mut state = G::State::default();
    let mut plies = Vec::new();
    let mut plays = 0;
    for (i, event) in events.iter().enumerate() {
        let action =
            G::word(&state, event).and_then(|(_, word)| crate::records::action_of::<G>(&word));
        if let Some(played) = action.map(|a| json(&a)) {
            if range.contains(&plays) {
                if let Ok(Some(ply)) = judge_at::<G>(&state, i + 1, &played, effort) {
                    plies.push(ply);
                }
            }
            plays += 1;
        }
        G::apply(&mut state, event)?;
    }
    Ok(Judged { plies, plays })
}

/// The analysis of judged plays: each seat's figures over them.
pub fn summed(effort: Effort, plies: Vec<Ply>) -> Analysis {
    let players = figures(&plies);
    Analysis {
        effort,
        plies,
        players,
    }
}

/// The play `played` made at `state`, event `seq`, judged.
fn judge_at<G: Analyse>(
    state: &G::State,
    seq: usize,
    played: &Value,
    effort: Effort,
) -> Result<Option<Ply>, RuleError> {
    let Some(seat) = actor::<G>(state, played) else {
        return Ok(None);
    };
    let view = G::view(state, Viewer::Seat(seat));
    let public = json(&view) == json(&G::view(state, Viewer::Spectator));
    let mut random = SplitMix64::new(0x9e37_79b9_7f4a_7c15 ^ seq as u64);
    let worlds = G::worlds(&view, seat, effort.worlds, &mut random)?;
    let Some((best, before, after)) = judge_play::<G>(&worlds, played, effort) else {
        return Ok(None);
    };
    Ok(Some(Ply {
        seq,
        seat,
        played: played.clone(),
        best,
        before,
        after,
        judgement: Judgement::of(before.saturating_sub(after)),
        public,
    }))
}

/// Each seat's accuracy and counts over its plies, by seat.
fn figures(plies: &[Ply]) -> Vec<Player> {
    let mut seats: Vec<Seat> = plies.iter().map(|p| p.seat).collect();
    seats.sort();
    seats.dedup();
    (seats.into_iter())
        .map(|seat| {
            let own: Vec<&Ply> = plies.iter().filter(|p| p.seat == seat).collect();
            let count = |j: Judgement| own.iter().filter(|p| p.judgement == Some(j)).count();
            let total: f64 = (own.iter())
                .map(|p| accuracy(p.before.saturating_sub(p.after)))
                .sum();
            Player {
                seat,
                accuracy: (total / own.len() as f64 * 10.0).round() / 10.0,
                plies: own.len(),
                inaccuracies: count(Judgement::Inaccuracy),
                mistakes: count(Judgement::Mistake),
                blunders: count(Judgement::Blunder),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_decisive_lead_is_three_to_one_in_every_game_and_a_win_is_certain() {
        for decisive in [150, 250, 500] {
            assert_eq!(chance(decisive, decisive).round(), 750.0);
            assert_eq!(chance(-decisive, decisive).round(), 250.0);
            assert_eq!(chance(0, decisive), 500.0);
        }
        assert_eq!(chance(WIN - 3, 150), 1000.0);
        assert_eq!(chance(-WIN + 3, 500), 0.0);
    }

    #[test]
    fn the_calls_follow_the_chance_lost() {
        assert_eq!(Judgement::of(49), None);
        assert_eq!(Judgement::of(50), Some(Judgement::Inaccuracy));
        assert_eq!(Judgement::of(100), Some(Judgement::Mistake));
        assert_eq!(Judgement::of(150), Some(Judgement::Blunder));
        assert_eq!(accuracy(0).round(), 100.0);
        assert!(accuracy(100) < 70.0 && accuracy(100) > 60.0);
        assert_eq!(accuracy(1000), 0.0);
    }

    /// A seeded match of random legal plays (no resigning, no offers).
    fn random_match<G: Game>(seed: u64, plies: usize) -> Vec<G::Event> {
        let mut random = SplitMix64::new(seed);
        let mut log = G::setup(&G::Config::default(), 2, &mut random).unwrap();
        let mut state = G::State::default();
        for event in &log {
            G::apply(&mut state, event).unwrap();
        }
        for _ in 0..plies {
            let Some(duty) = G::to_act(&state).into_iter().next() else {
                break;
            };
            let plays: Vec<G::Action> = (G::legal_actions(&state, duty.seat).into_iter())
                .filter(|a| !super::super::is_talk(&json(a)))
                .collect();
            if plays.is_empty() {
                break;
            }
            let action = &plays[random.below(plays.len() as u64) as usize];
            let mut env = crate::Env {
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

    const SMALL: Effort = Effort {
        nodes: 3_000,
        depth: 2,
        worlds: 4,
    };

    /// Finds, in seeded random matches, a play the analysis judges from
    /// its mover's view and does not call a mistake, which a judge seeing
    /// the hidden things as they lay (`peek`: the real state, searched
    /// whole) calls a mistake or a blunder; the seq and both calls.
    fn honest_where_a_peek_blames<G: Analyse>(
        peek: impl Fn(&G::State) -> G::Whole,
    ) -> Option<(u64, usize, Option<Judgement>, Judgement)> {
        for seed in 1..=12 {
            let log = random_match::<G>(seed, 60);
            let analysis = analyse::<G>(&log, SMALL).unwrap();
            let mut state = G::State::default();
            for (i, event) in log.iter().enumerate() {
                let honest = analysis.plies.iter().find(|p| p.seq == i + 1);
                if let Some(honest) = honest.filter(|p| p.judgement.is_none()) {
                    let worlds = [peek(&state)];
                    let (_, before, after) =
                        judge_play::<G>(&worlds, &honest.played, SMALL).unwrap();
                    let lost = Judgement::of(before.saturating_sub(after));
                    if let Some(j @ (Judgement::Mistake | Judgement::Blunder)) = lost {
                        return Some((seed, i + 1, honest.judgement, j));
                    }
                }
                G::apply(&mut state, event).unwrap();
            }
        }
        None
    }

    /// §H5: a FlipChess play is judged against what its player could
    /// know. A play that only looks bad with the other hand and the deck
    /// revealed is not called a mistake.
    #[test]
    fn a_play_bad_only_with_the_hidden_cards_revealed_is_not_a_mistake_h5() {
        use crate::flipchess::FlipChess;
        let found =
            honest_where_a_peek_blames::<FlipChess>(|state| super::super::flipchess::World {
                state: state.clone(),
            });
        let (seed, seq, honest, peeked) = found.expect("such a play in twelve matches");
        println!("seed {seed}, event {seq}: honest {honest:?}, peeking {peeked:?}");
        assert_eq!(honest, None);
    }

    /// §H1, §H5: the same for Banqi's face-down pieces.
    #[test]
    fn a_play_bad_only_with_the_face_down_pieces_shown_is_not_a_mistake_h5() {
        use crate::banqi::Banqi;
        let found = honest_where_a_peek_blames::<Banqi>(|state| {
            super::super::banqi::World::root(state.position)
        });
        let (seed, seq, honest, peeked) = found.expect("such a play in twelve matches");
        println!("seed {seed}, event {seq}: honest {honest:?}, peeking {peeked:?}");
        assert_eq!(honest, None);
    }
}
