//! The Banqi engine (issue #32; docs/rules/banqi.md §B, §H).
//!
//! The seat sees the face-up pieces, which squares are face down, the
//! captured pieces, the colours and the quiet count (its own view, §B8).
//! [`Seen`] is built from that view alone; it samples a *world* by
//! drawing the face-down identities uniformly from the pieces not yet
//! seen (the 32 of §B1 minus the face-up and the captured ones), and the
//! search runs in that world, where a turn-up reveals the sampled piece.
//! Several worlds are searched and the root moves' scores summed
//! (determinization, [`super::choose_hidden`]'s scheme with this game's
//! own node budgets).
//!
//! Evaluation: material by rank (§B4: the general highest, the cannon
//! high for its §B5 reach, the soldier low but above nothing since it
//! takes the general), face-down pieces counted for their owner, plus a
//! small mobility term. §B7's repetition draw is not searched; the quiet
//! count is (a position with the quiet plies run out is a draw).

use super::{choose_scored, root_scores, Budget, Level, Sample, Search, WIN};
use crate::banqi::board::{parse_square, square_name, Cell, Colour, Kind, Piece, Position, Step};
use crate::banqi::QUIET_PLY_LIMIT;
use crate::{Random, RuleError, Seat};
use serde_json::{json, Value};

/// A side's index in the search: red 0, black 1.
fn side(colour: Colour) -> usize {
    match colour {
        Colour::Red => 0,
        Colour::Black => 1,
    }
}

fn value_of(kind: Kind) -> i32 {
    match kind {
        Kind::General => 600,
        Kind::Advisor => 300,
        Kind::Elephant => 160,
        Kind::Chariot => 90,
        Kind::Horse => 60,
        Kind::Cannon => 200,
        Kind::Soldier => 40,
    }
}

/// One sampled world: a whole position, face-down identities drawn.
#[derive(Clone, Debug)]
pub struct World {
    pub position: Position,
}

impl Search for World {
    type Move = Step;

    fn mover(&self) -> usize {
        self.position.to_act.map_or(0, side)
    }

    fn moves(&self, out: &mut Vec<Step>) {
        if self.over() {
            out.clear();
            return;
        }
        self.position.legal_steps(out);
    }

    fn play(&self, mv: &Step) -> Self {
        World {
            position: self.position.play(*mv),
        }
    }

    fn value(&self, for_side: usize) -> i32 {
        let pos = &self.position;
        match pos.ending() {
            // §B6: the side to act has lost.
            Some("no_pieces") | Some("no_legal_move") => {
                return if Some(for_side) == pos.to_act.map(side) {
                    -WIN
                } else {
                    WIN
                };
            }
            // §B7: the quiet plies ran out.
            Some(_) => return 0,
            None => {}
        }
        let mut score = [0i32; 2];
        let mut mobility = [0i32; 2];
        for (sq, cell) in pos.cells.iter().enumerate() {
            match cell {
                Cell::Down(p) => score[side(p.colour)] += value_of(p.kind),
                Cell::Up(p) => {
                    score[side(p.colour)] += value_of(p.kind);
                    // Mobility, small: empty or takeable neighbours.
                    let s = sq as i32;
                    for (d, ok) in [(1, s % 8 != 7), (-1, s % 8 != 0), (8, s < 24), (-8, s >= 8)] {
                        if !ok {
                            continue;
                        }
                        match pos.cells[(s + d) as usize] {
                            Cell::Empty => mobility[side(p.colour)] += 1,
                            Cell::Up(t) if t.colour != p.colour && p.kind.takes(t.kind) => {
                                mobility[side(p.colour)] += 3
                            }
                            _ => {}
                        }
                    }
                }
                Cell::Empty => {}
            }
        }
        let me = for_side;
        let them = 1 - for_side;
        (score[me] - score[them]) * 10 + (mobility[me] - mobility[them]) * 2
    }

    fn over(&self) -> bool {
        self.position.ending().is_some()
    }
}

/// What a seat sees of a Banqi match, from its own view only.
#[derive(Clone, Debug)]
pub struct Seen {
    /// The board with face-down squares holding a placeholder.
    pub position: Position,
    pub face_down: Vec<u8>,
    /// The pieces not seen: face down somewhere, which one is unknown.
    pub unseen: Vec<Piece>,
}

impl Seen {
    /// Read a seat's view (what `Banqi::view` gives).
    pub fn from_view(view: &Value) -> Result<Seen, RuleError> {
        let bad = |why: &str| RuleError::malformed(format!("banqi view: {why}"));
        let colour = |v: &Value| -> Option<Colour> { serde_json::from_value(v.clone()).ok() };
        let kind = |v: &Value| -> Option<Kind> { serde_json::from_value(v.clone()).ok() };
        let mut position = Position {
            to_act: match &view["colour_to_act"] {
                Value::Null => None,
                v => Some(colour(v).ok_or_else(|| bad("colour_to_act"))?),
            },
            ..Position::default()
        };
        let until = view["plies_until_no_progress_draw"]
            .as_u64()
            .ok_or_else(|| bad("plies_until_no_progress_draw"))?;
        position.quiet = QUIET_PLY_LIMIT.saturating_sub(until as u32);
        let mut unseen = Piece::set();
        let mut take = |piece: Piece| -> Result<(), RuleError> {
            let i = unseen
                .iter()
                .position(|p| *p == piece)
                .ok_or_else(|| bad("more pieces of a kind than the set holds"))?;
            unseen.swap_remove(i);
            Ok(())
        };
        for p in view["pieces"].as_array().ok_or_else(|| bad("pieces"))? {
            let sq = p["square"]
                .as_str()
                .and_then(parse_square)
                .ok_or_else(|| bad("square"))?;
            let piece = Piece {
                colour: colour(&p["colour"]).ok_or_else(|| bad("colour"))?,
                kind: kind(&p["kind"]).ok_or_else(|| bad("kind"))?,
            };
            take(piece)?;
            position.cells[sq as usize] = Cell::Up(piece);
        }
        for (name, c) in [("red", Colour::Red), ("black", Colour::Black)] {
            for k in view["captured"][name]
                .as_array()
                .ok_or_else(|| bad("captured"))?
            {
                take(Piece {
                    colour: c,
                    kind: kind(k).ok_or_else(|| bad("captured kind"))?,
                })?;
            }
        }
        let mut face_down = Vec::new();
        for sq in view["face_down"]
            .as_array()
            .ok_or_else(|| bad("face_down"))?
        {
            let sq = sq
                .as_str()
                .and_then(parse_square)
                .ok_or_else(|| bad("face_down square"))?;
            face_down.push(sq);
        }
        if face_down.len() != unseen.len() {
            return Err(bad(
                "the face-down squares and the unseen pieces differ in number",
            ));
        }
        unseen.sort_by_key(|p| (side(p.colour), p.kind as u8));
        Ok(Seen {
            position,
            face_down,
            unseen,
        })
    }
}

impl Sample for Seen {
    type World = World;

    fn sample(&self, random: &mut dyn Random) -> World {
        let mut pieces = self.unseen.clone();
        for i in (1..pieces.len()).rev() {
            pieces.swap(i, random.below(i as u64 + 1) as usize);
        }
        let mut position = self.position;
        for (sq, piece) in self.face_down.iter().zip(pieces) {
            position.cells[*sq as usize] = Cell::Down(piece);
        }
        World { position }
    }
}

/// Worlds sampled and nodes allowed (all worlds together) per level.
fn effort(level: Level) -> (u32, u64) {
    match level {
        Level::Easy => (4, 8_000),
        Level::Normal => (8, 120_000),
        Level::Hard => (12, 200_000),
    }
}

/// The step `level` takes from what `seen` shows.
pub fn choose_step(seen: &Seen, level: Level, random: &mut dyn Random) -> Option<Step> {
    let (worlds, nodes) = effort(level);
    let mut totals: Vec<(Step, i32)> = Vec::new();
    for _ in 0..worlds {
        let world = seen.sample(random);
        let mut budget = Budget::new(nodes / u64::from(worlds));
        for (mv, score) in root_scores(&world, level.depth(), &mut budget) {
            let score = score / worlds as i32;
            match totals.iter_mut().find(|(m, _)| *m == mv) {
                Some((_, total)) => *total = total.saturating_add(score),
                None => totals.push((mv, score)),
            }
        }
    }
    choose_scored(&totals, level, 20, random)
}

pub fn decide(
    view: &Value,
    seat: Seat,
    level: Level,
    random: &mut dyn Random,
) -> Result<Value, RuleError> {
    if view["on_move"].as_u64() != Some(u64::from(seat.0)) {
        return Err(RuleError::not_your_turn());
    }
    let seen = Seen::from_view(view)?;
    let step = if seen.position.to_act.is_none() {
        // §B2: before any turn-up there is no colour and no knowledge:
        // every first turn-up is alike; take one at random.
        seen.face_down
            .get(random.below(seen.face_down.len().max(1) as u64) as usize)
            .map(|sq| Step::TurnUp(*sq))
    } else {
        choose_step(&seen, level, random)
    };
    match step {
        Some(Step::TurnUp(sq)) => Ok(json!({"type": "turn_up", "square": square_name(sq)})),
        Some(step) => Ok(json!({"type": "move", "move": step.to_string()})),
        None => Err(RuleError::illegal("there is no legal action to take")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::banqi::{Action, Banqi, State};
    use crate::{Env, Game, SplitMix64, Viewer};

    /// §B1, §B8: a sampled world holds exactly the 32 pieces of the set
    /// (never more of a kind than there are), keeps every face-up piece
    /// where it is and puts a face-down piece on every face-down square.
    #[test]
    fn samples_never_hold_an_impossible_face_down_piece_b1() {
        for seed in 0..60u64 {
            let mut random = SplitMix64::new(seed);
            let mut state = State::default();
            for e in Banqi::setup(&Default::default(), 2, &mut random).unwrap() {
                Banqi::apply(&mut state, &e);
            }
            for _ in 0..(seed * 5 % 90) {
                if state.outcome.is_some() {
                    break;
                }
                let seat = state.on_move();
                let actions: Vec<Action> = Banqi::legal_actions(&state, seat)
                    .into_iter()
                    .filter(|a| !matches!(a, Action::Resign {}))
                    .collect();
                let a = &actions[random.below(actions.len() as u64) as usize];
                let mut env = Env {
                    now: 0,
                    random: &mut random,
                };
                for e in Banqi::act(&state, seat, a, &mut env).unwrap() {
                    Banqi::apply(&mut state, &e);
                }
            }
            let view = serde_json::to_value(Banqi::view(&state, Viewer::Seat(Seat(0)))).unwrap();
            let seen = Seen::from_view(&view).unwrap();
            for _ in 0..5 {
                let world = seen.sample(&mut random);
                let mut all: Vec<Piece> = world
                    .position
                    .cells
                    .iter()
                    .filter_map(|c| match c {
                        Cell::Down(p) | Cell::Up(p) => Some(*p),
                        Cell::Empty => None,
                    })
                    .chain(state.captured.iter().copied())
                    .collect();
                let mut set = Piece::set();
                let key = |p: &Piece| (side(p.colour), p.kind as u8);
                all.sort_by_key(key);
                set.sort_by_key(key);
                assert_eq!(all, set, "seed {seed}: exactly the set");
                for (sq, cell) in state.position.cells.iter().enumerate() {
                    match (cell, world.position.cells[sq]) {
                        (Cell::Up(a), Cell::Up(b)) => assert_eq!(*a, b),
                        (Cell::Down(_), Cell::Down(_)) | (Cell::Empty, Cell::Empty) => {}
                        (a, b) => panic!("seed {seed}: {a:?} became {b:?}"),
                    }
                }
            }
        }
    }
}
