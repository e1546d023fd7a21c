//! The four-player chess engine (docs/bots.md; docs/rules/four-player-chess.md §Q).
//!
//! Nothing is hidden (§Q), so the view (read into the rules' [`View`]),
//! with its §Q12 notation, rebuilds the whole position and the engine
//! searches it directly. The search's sides are the four armies; in teams
//! the partner army is an ally (§Q1), and the frame's minimax is then the
//! *paranoid* search: every army not allied with the one to move plays
//! against it. A seat running two armies (§Q5, one player a whole team)
//! acts for the army to move.
//!
//! Turn order follows the position's own logic: after a move the turn
//! passes clockwise over the armies out of play, and the start of each
//! turn is judged by the rules' own verdict ([`Position::judge_start`],
//! §Q4, §Q6–§Q8: stalemate skips in teams, mate or stalemate eliminating
//! in ffa/points, who scores a mate or a stalemate), applied step by step
//! as the rules' `act` applies it, so the search knows who won and what
//! was scored. The view shows no history: at the root the armies are
//! taken to have moved in turn order and none to have stranded itself.
//!
//! Evaluation: material (pawn 1, knight 3, bishop 4, rook 5, queen 9; a
//! promoted queen 7, the §Q8 points being what capturing scores, not
//! what the piece is worth on the board), a small king-shelter term
//! (own pieces next to the king), and in `points` the §Q8 points the
//! armies scored (captures, king captures, mates and stalemates counted
//! in the search as well). Dead pieces (§Q7) count for nobody. In ffa
//! and points an army is scored against the average of the others still
//! in, with a bonus for each one out, and it hunts the weakest enemy's
//! king when a rook ahead of it ([`hunting`]: the king's squares shut,
//! its distance from the centre, one-on-one the hunter's own king near),
//! which is what lets a shallow search finish a bare king instead of
//! drawing by repetition; half the worth of its own pieces left
//! [`exposed`] (an enemy attacks them, nothing of its own guards them)
//! counts against it, which a search that ends before the enemies reply
//! cannot see otherwise. §Q6's ply limit and repetition are not searched.
//! Easy's weaker moves (one in four) stay within a knight of its best.

use super::{choose_scored, root_scores, within, Budget, Engine, Level, Search, WIN};
use crate::four_player_chess::board::{coords, exists, Army, Kind, Mode, Move, Position};
use crate::four_player_chess::{Action, FourPlayerChess, Verdict, View, MATE_POINTS};
use crate::{Random, RuleError, Seat};
use std::rc::Rc;

/// How a searched line ended.
#[derive(Clone, Copy, Debug, PartialEq)]
enum End {
    /// Teams: the team (0 or 1) that won.
    Team(usize),
    /// Ffa: the army left.
    Army(usize),
    /// Points: judged on points (§Q8); a draw otherwise.
    Points,
    Draw,
}

#[derive(Clone, Debug)]
pub struct World {
    position: Position,
    /// §Q8 points per army (the view's, then what the search adds).
    points: [i32; 4],
    /// Per army, the ply of its last move, and in points the position
    /// that move left (whether it left the army without a legal move is
    /// asked of it only if the army is stalemated): what the rules'
    /// start-of-turn judgement reads besides the position (§Q8).
    last_moved: [u32; 4],
    own_after: [Option<Rc<Position>>; 4],
    /// Plies since the root, counted from 4 ([`World::root`]).
    ply: u32,
    end: Option<End>,
}

fn worth(kind: Kind, promoted: bool) -> i32 {
    if promoted {
        return 700;
    }
    match kind {
        Kind::Pawn => 100,
        Kind::Knight => 300,
        Kind::Bishop => 400,
        Kind::Rook => 500,
        Kind::Queen => 900,
        Kind::King => 0,
    }
}

impl World {
    /// The search's root: `points` as the view shows them. The view has no
    /// history, so the armies are taken to have last moved in turn order
    /// (the one before the army to move last of all), as they do in ffa
    /// and points once each has moved, and none to have stranded itself.
    fn root(position: Position, points: [i32; 4]) -> World {
        let to_move = position.to_move.index();
        let mut last_moved = [0; 4];
        for (army, last) in last_moved.iter_mut().enumerate() {
            // The army `k` places before the one to move moved `k` plies
            // before the root, which is ply 4.
            *last = 4 - ((to_move + 4 - army - 1) % 4 + 1) as u32;
        }
        World {
            position,
            points,
            last_moved,
            own_after: Default::default(),
            ply: 4,
            end: None,
        }
    }

    /// §Q4, §Q6–§Q8 at the start of the next turn: the rules' own verdict
    /// ([`Position::judge_start`]) applied as the rules' `act` applies it,
    /// until an army with a move is to move or the match is over, noting
    /// who won and what the verdicts scored.
    fn settle(&mut self) {
        let mut skips = 0;
        let mode = self.position.mode;
        loop {
            let army = self.position.to_move;
            let stranded = |army: Army| {
                self.own_after[army.index()].as_ref().is_some_and(|own| {
                    let mut own = Position::clone(own);
                    own.to_move = army;
                    !own.has_legal_move()
                })
            };
            let verdict = self.position.judge_start(skips, &self.last_moved, stranded);
            if mode == Mode::Points {
                for (scorer, points, _) in verdict.scores(&self.position) {
                    self.points[scorer.index()] += points;
                }
            }
            match verdict {
                Verdict::Moves => return,
                Verdict::TeamMated => {
                    self.end = Some(End::Team(1 - army.team()));
                    return;
                }
                Verdict::Skipped { last: true } => {
                    self.end = Some(End::Draw);
                    return;
                }
                Verdict::Skipped { last: false } => {
                    skips += 1;
                    self.position.pass_turn();
                }
                Verdict::Stalemated { last: true, .. } => {
                    self.end = Some(if mode == Mode::Points {
                        End::Points
                    } else {
                        End::Draw
                    });
                    return;
                }
                Verdict::Stalemated { last: false, .. } => self.position.eliminate(army),
                Verdict::Mated { last, .. } => {
                    self.position.eliminate(army);
                    if last {
                        let left = self.position.live_armies();
                        self.end = Some(match (mode, left.first()) {
                            (Mode::Points, _) => End::Points,
                            (_, Some(a)) => End::Army(a.index()),
                            _ => End::Draw,
                        });
                        return;
                    }
                }
            }
        }
    }
}

impl Search for World {
    type Move = Move;

    fn mover(&self) -> usize {
        self.position.to_move.index()
    }

    fn allies(&self, a: usize, b: usize) -> bool {
        a == b || (self.position.mode == Mode::Teams && a % 2 == b % 2)
    }

    fn moves(&self, out: &mut Vec<Move>) {
        out.clear();
        if self.end.is_none() {
            self.position.legal_moves(out);
        }
    }

    fn play(&self, mv: &Move) -> Self {
        let mover = self.position.to_move;
        let (mut next, captured) = self.position.play(*mv);
        let mut points = self.points;
        let ply = self.ply + 1;
        let mut last_moved = self.last_moved;
        last_moved[mover.index()] = ply;
        let mut end = None;
        if let Some(p) = captured {
            points[mover.index()] += p.value();
            if p.kind == Kind::King {
                if let Some(victim) = p.owner.army() {
                    if next.mode == Mode::Teams {
                        // §Q10: a king capture ends a teams match.
                        end = Some(End::Team(mover.team()));
                    } else {
                        points[mover.index()] += MATE_POINTS;
                        next.eliminate(victim);
                        if next.live_armies().len() <= 1 {
                            end = Some(if next.mode == Mode::Points {
                                End::Points
                            } else {
                                End::Army(mover.index())
                            });
                        }
                    }
                }
            }
        }
        let mut own_after = self.own_after.clone();
        if next.mode == Mode::Points {
            // The position the move left, as `Position::strands` judges it.
            own_after[mover.index()] = Some(Rc::new(next.clone()));
        }
        let mut world = World {
            position: next,
            points,
            last_moved,
            own_after,
            ply,
            end,
        };
        if world.end.is_none() {
            world.position.pass_turn();
            world.settle();
        }
        world
    }

    fn value(&self, side: usize) -> i32 {
        let pos = &self.position;
        let mode = pos.mode;
        let won = |yes: bool| if yes { WIN } else { -WIN };
        match self.end {
            Some(End::Team(t)) => return won(t == side % 2),
            Some(End::Army(a)) => return won(a == side),
            Some(End::Draw) => return 0,
            Some(End::Points) => {
                let best_other = (0..4)
                    .filter(|a| *a != side)
                    .map(|a| self.points[a])
                    .max()
                    .unwrap_or(0);
                return match self.points[side].cmp(&best_other) {
                    std::cmp::Ordering::Greater => WIN,
                    std::cmp::Ordering::Equal => 0,
                    std::cmp::Ordering::Less => -WIN,
                };
            }
            None => {}
        }
        if mode == Mode::Ffa && pos.out[side] {
            return -WIN / 2;
        }
        let mut material = [0i32; 4];
        let mut shelter = [0i32; 4];
        for (sq, cell) in pos.cells.iter().enumerate() {
            let Some(piece) = cell else { continue };
            let Some(army) = piece.owner.army() else {
                continue;
            };
            material[army.index()] += worth(piece.kind, piece.promoted);
            if piece.kind == Kind::King {
                let (f, r) = coords(sq as u8);
                for (df, dr) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                    let (nf, nr) = (f + df, r + dr);
                    if !exists(nf, nr) {
                        continue;
                    }
                    if let Some(p) = pos.cells[(nr as usize) * 14 + nf as usize] {
                        if p.owner == piece.owner {
                            shelter[army.index()] += 8;
                        }
                    }
                }
            }
        }
        let live: Vec<usize> = (0..4).filter(|a| !pos.out[*a]).collect();
        let strength = |a: usize| material[a] + shelter[a];
        match mode {
            Mode::Teams => {
                let mine: i32 = live
                    .iter()
                    .filter(|a| *a % 2 == side % 2)
                    .map(|a| strength(*a))
                    .sum();
                let theirs: i32 = live
                    .iter()
                    .filter(|a| *a % 2 != side % 2)
                    .map(|a| strength(*a))
                    .sum();
                mine - theirs
            }
            Mode::Ffa | Mode::Points => {
                // Against the average of the others still in, and a
                // bonus for each one out. (The average alone rose when a
                // weak army went out, so the search shunned mating the
                // weakest; a fixed third of the others' sum made a last
                // opponent's pieces worth a third of one's own.)
                let others: Vec<usize> = live.iter().copied().filter(|a| *a != side).collect();
                let rest =
                    others.iter().map(|a| strength(*a)).sum::<i32>() / others.len().max(1) as i32;
                let out = 3 - others.len() as i32;
                let hunt: i32 = others
                    .iter()
                    .min_by_key(|e| strength(**e))
                    .filter(|e| strength(side) >= strength(**e) + AHEAD)
                    .map_or(0, |e| {
                        hunting(pos, Army::ALL[side], Army::ALL[*e], others.len() == 1)
                    });
                let exposed = exposed(pos, Army::ALL[side]);
                let mut score = strength(side) - rest + OUT_BONUS * out + hunt - exposed / 2;
                if mode == Mode::Points {
                    let best_other = (0..4)
                        .filter(|a| *a != side)
                        .map(|a| self.points[a])
                        .max()
                        .unwrap_or(0);
                    score = score / 2 + (self.points[side] - best_other) * 100;
                }
                score
            }
        }
    }

    fn over(&self) -> bool {
        self.end.is_some()
    }

    /// The position and the §Q8 points; the plies of the armies' last
    /// moves (read only when one is stalemated in points) are left out.
    fn key(&self) -> Option<u64> {
        Some(super::key_of(&(&self.position, self.points, self.ply)))
    }

    /// The captures, the most valuable piece taken first.
    fn noisy(&self, out: &mut Vec<Move>) -> bool {
        out.clear();
        if self.end.is_none() {
            self.position.captures(out);
        }
        let taken = |mv: &Move| self.position.piece(mv.to).map(|p| p.value());
        out.sort_by_key(|mv| std::cmp::Reverse(taken(mv)));
        false
    }
}

/// Ffa and points: the worth of `army`'s pieces that an enemy attacks
/// and none of its own defends, which the next enemy to move may take (a
/// one-move search saw none of it: easy lost its pieces to the strong
/// army moving just before it).
fn exposed(pos: &Position, army: Army) -> i32 {
    let enemies = pos.enemies(army);
    pos.pieces()
        .filter(|(_, p)| p.owner.army() == Some(army) && p.kind != Kind::King)
        .filter(|(sq, _)| pos.attacked_by(*sq, &enemies) && !pos.attacked_by(*sq, &[army]))
        .map(|(_, p)| worth(p.kind, p.promoted))
        .sum()
}

/// How far ahead of an enemy army an army must be to hunt its king.
const AHEAD: i32 = 500;

/// Ffa and points: what hunting `prey`'s king is worth to `hunter`, so a
/// search too shallow to see a mate still closes in on one (matches of
/// easy against random players ended drawn by repetition with a queen
/// against a bare king): each square round the king it cannot go to
/// (off the board, its own piece, attacked), its distance from the
/// centre, and one-on-one the hunter's king coming near (a lone queen
/// cannot mate).
fn hunting(pos: &Position, hunter: Army, prey: Army, one_on_one: bool) -> i32 {
    let Some(king) = pos.king(prey) else { return 0 };
    let enemies = pos.enemies(prey);
    let (f, r) = coords(king);
    let mut shut = 0;
    for df in -1..=1 {
        for dr in -1..=1 {
            if (df, dr) == (0, 0) {
                continue;
            }
            let (nf, nr) = (f + df, r + dr);
            let open = exists(nf, nr) && {
                let sq = (nr as usize * 14 + nf as usize) as u8;
                pos.piece(sq).is_none_or(|p| p.owner.army() != Some(prey))
                    && !pos.attacked_by(sq, &enemies)
            };
            shut += i32::from(!open);
        }
    }
    let edge = i32::from((2 * f - 13).abs() + (2 * r - 13).abs());
    let mut value = shut * 30 + edge * 5;
    if one_on_one {
        if let Some(own) = pos.king(hunter) {
            let (hf, hr) = coords(own);
            let near = i32::from((hf - f).abs().max((hr - r).abs()));
            value += (13 - near) * 10;
        }
    }
    value
}

/// What each opponent out of an ffa or points match is worth to an army:
/// more than the average of the others can rise when one goes out (at
/// most half an army's whole strength, about 2,050, when the last but one
/// goes with nothing left, from the starting material) plus the most
/// the hunt of its king was worth (340 with three in), so a mate always
/// pays.
const OUT_BONUS: i32 = 2_500;

/// Nodes allowed per level: four-player moves are costly to generate
/// (every pseudo-move is checked against three enemies), so the budgets
/// are this game's own.
fn nodes(level: Level) -> u64 {
    match level {
        Level::Easy => 2_000,
        Level::Normal => 15_000,
        Level::Hard => 80_000,
        // Pinned: the puzzles were proved against it (docs/puzzles.md).
        Level::Puzzle => 80_000,
    }
}

/// Easy's weaker moves give away at most about a knight.
const EASY_FLOOR: i32 = 300;

/// Rebuild the search position from a view (`FourPlayerChess::view`).
pub fn world_from_view(view: &View) -> Result<World, RuleError> {
    let mut points = [0; 4];
    for a in &view.armies {
        points[a.army.index()] = a.points;
    }
    Ok(World::root(
        Position::from_notation(&view.position)?,
        points,
    ))
}

/// Puzzles (docs/puzzles.md): four-player chess hides nothing. Six plies
/// (a round and a half) where hard looks five; a knight's lead at every
/// step, a rook over the start ends a line (a checkmate's points count).
/// Mined from matches of easy all round: normal's search was 40% of the
/// mining time, and four easy armies blunder as often (the rate went
/// from about 77 an hour of one core to 178, docs/puzzles.md).
impl super::puzzles::Puzzles for FourPlayerChess {
    type Whole = World;
    const SHIPPED: &'static str = include_str!("../../puzzles/four_player_chess.jsonl");
    const RULE: super::puzzles::Rule = super::puzzles::Rule {
        mined: true,
        from_people: true,
        scan: 2,
        depth: 6,
        margin: 300,
        decisive: 500,
        nodes: 3_000_000,
        players: &[Level::Easy],
    };

    fn whole(view: &View) -> Option<World> {
        world_from_view(view).ok()
    }

    fn start_of(
        view: &View,
        _config: &crate::four_player_chess::Config,
    ) -> Option<crate::four_player_chess::Config> {
        Some(crate::four_player_chess::Config {
            mode: view.mode,
            position: Some(view.position.clone()),
        })
    }

    fn action(mv: &Move) -> Action {
        Action::Move {
            notation: mv.to_string(),
        }
    }

    /// Against the others still in, as the evaluation counts it (their
    /// sum in teams, their average otherwise), an army out worth
    /// [`OUT_BONUS`], a point of §Q points a pawn.
    fn material(world: &World, side: usize) -> i32 {
        let pos = &world.position;
        let mut material = [0i32; 4];
        for (_, piece) in pos.pieces() {
            if let Some(army) = piece.owner.army() {
                material[army.index()] += worth(piece.kind, piece.promoted);
            }
        }
        let live: Vec<usize> = (0..4).filter(|a| !pos.out[*a]).collect();
        let others: Vec<usize> = live.iter().copied().filter(|a| *a != side).collect();
        let points = world.points[side] * 100;
        if pos.mode == Mode::Teams {
            let sign = |a: &usize| if *a % 2 == side % 2 { 1 } else { -1 };
            return live.iter().map(|a| sign(a) * material[*a]).sum::<i32>() + points;
        }
        let rest = others.iter().map(|a| material[*a]).sum::<i32>() / others.len().max(1) as i32;
        material[side] - rest + OUT_BONUS * (3 - others.len() as i32) + points
    }
}

/// Four-player chess hides nothing: a play is judged in the position
/// itself, by the paranoid search the engines play.
impl super::analysis::Analyse for FourPlayerChess {}

impl Engine for FourPlayerChess {
    fn decide(
        view: &View,
        seat: Seat,
        level: Level,
        random: &mut dyn Random,
    ) -> Result<Action, RuleError> {
        if view.seat_to_move != Some(seat) {
            return Err(RuleError::not_your_turn());
        }
        let world = world_from_view(view)?;
        let mut budget = Budget::for_level(level, nodes(level));
        let mut scored = root_scores(&world, level.depth(), &mut budget);
        if level == Level::Easy {
            scored = within(&scored, EASY_FLOOR);
        }
        match choose_scored(&scored, level, 30, random) {
            Some(mv) => Ok(Action::Move {
                notation: mv.to_string(),
            }),
            None => Err(RuleError::illegal("there is no legal move to make")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn world(position: Position) -> World {
        World::root(position, [0; 4])
    }

    /// §Q7: an army going out never makes the position worse for the
    /// others, however little it had left, so no search shuns mating
    /// the weakest army at an ffa table.
    #[test]
    fn eliminating_the_weakest_army_never_lowers_the_others_score_q7() {
        for mode in [Mode::Ffa, Mode::Points] {
            let mut position = Position::start(mode, [true; 4]);
            let weak = Army::ALL[1];
            // The weak army keeps its king and pawns only.
            for cell in position.cells.iter_mut() {
                if cell.is_some_and(|p| {
                    p.owner.army() == Some(weak) && !matches!(p.kind, Kind::King | Kind::Pawn)
                }) {
                    *cell = None;
                }
            }
            let before = world(position.clone());
            position.eliminate(weak);
            let after = world(position);
            for side in [0, 2, 3] {
                assert!(
                    after.value(side) >= before.value(side),
                    "{mode:?}: side {side} scores {} with the weak army out, {} with it in",
                    after.value(side),
                    before.value(side)
                );
            }
        }
    }

    /// With one opponent left, its pieces count in full: giving a rook
    /// for its queen is a gain (a fixed third of the others' strength
    /// made it a loss, and a one-on-one finish shunned good trades).
    #[test]
    fn one_on_one_a_rook_for_the_last_opponents_queen_is_a_gain_q7() {
        for mode in [Mode::Ffa, Mode::Points] {
            let mut position = Position::start(mode, [true; 4]);
            position.eliminate(Army::ALL[2]);
            position.eliminate(Army::ALL[3]);
            let before = world(position.clone());
            let (me, last) = (Army::ALL[0], Army::ALL[1]);
            let first = |pos: &Position, army: Army, kind: Kind| {
                (pos.cells.iter())
                    .position(|c| c.is_some_and(|p| p.owner.army() == Some(army) && p.kind == kind))
                    .expect("the piece is on the board")
            };
            let rook = first(&position, me, Kind::Rook);
            position.cells[rook] = None;
            let queen = first(&position, last, Kind::Queen);
            position.cells[queen] = None;
            let after = world(position);
            assert!(
                after.value(0) > before.value(0),
                "{mode:?}: {} after the trade, {} before",
                after.value(0),
                before.value(0)
            );
        }
    }

    /// A search too shallow to see a mate still closes in: one-on-one, a
    /// queen up, the position with the bare king on its back row (fewer
    /// squares to go to, far from the centre) and the hunter's king near
    /// scores higher than the bare king in the middle (§Q7: easy drew by
    /// repetition with a queen against a bare king before this term).
    #[test]
    fn one_on_one_the_bare_king_driven_to_the_edge_scores_higher_q7() {
        let at = |blue_king: &str, red_king: &str| {
            let text = format!(
                "to=red; mode=ffa; castle=red:-,green:-,blue:-,gray:-; out=green,gray; \
                 red={red_king},Qd1; green=; blue={blue_king}; gray=; dead="
            );
            world(Position::from_notation(&text).expect("a §Q12 position")).value(0)
        };
        let (middle, edge) = (at("Kh8", "Kk1"), at("Kh14", "Kk1"));
        assert!(edge > middle, "edge {edge}, middle {middle}");
        let near = at("Kh14", "Kh12");
        assert!(near > edge, "hunter's king near {near}, far {edge}");
    }

    /// A queen left where an enemy rook takes it, with nothing of its own
    /// guarding it, scores lower than the queen out of reach (§Q7: easy,
    /// searching its own move only, lost its pieces to the army moving
    /// next).
    #[test]
    fn a_queen_left_where_an_enemy_takes_it_scores_lower_q7() {
        let at = |queen: &str| {
            let text = format!(
                "to=blue; mode=ffa; castle=red:-,green:-,blue:-,gray:-; out=green,gray; \
                 red=Kh1,{queen}; green=; blue=Kh14,Rh10; gray=; dead="
            );
            world(Position::from_notation(&text).expect("a §Q12 position")).value(0)
        };
        let (taken, safe) = (at("Qh5"), at("Qg5"));
        assert!(safe > taken, "out of reach {safe}, en prise {taken}");
    }
}
