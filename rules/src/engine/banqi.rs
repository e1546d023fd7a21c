//! The Banqi engine (docs/bots-hidden.md; docs/rules/banqi.md §B, §H).
//!
//! The seat sees the face-up pieces, which squares are face down, the
//! captured pieces, the colours and the quiet count (its own view, §B8,
//! read into the rules' [`View`]). [`Seen`] is built from that view
//! alone; it samples a *world* by drawing the face-down identities
//! uniformly from the pieces not yet seen (the 32 of §B1 minus the
//! face-up and the captured ones), and the search runs in that world,
//! where a turn-up reveals the sampled piece.
//! Several worlds are searched and the root moves' scores summed
//! (determinization, [`super::choose_hidden`]'s scheme with this game's
//! own node budgets).
//!
//! Evaluation: material by rank (§B4: the general highest, the cannon
//! high for its §B5 reach, the soldier low but above nothing since it
//! takes the general), face-down pieces counted for their owner, a small
//! mobility term, a hunting term (pieces near the enemy pieces they may
//! take, the side ahead also near those it may trade and driving them to
//! the edges), and for the side ahead a bonus for an early turn-up or
//! capture, larger the longer the root has been quiet. The quiet count is
//! searched (a position with the quiet plies run out is a draw); §B7's
//! repetition is searched within the line only (a position that already
//! stood on it since its last turn-up or capture scores a draw), since
//! the history before the root is not in the view.
//!
//! Search: the frame's, with captures ordered first (most valuable victim
//! first), below the root only the turn-ups next to a face-up piece and
//! one other; hard picks at random among equally scored best moves.

use super::{choose_scored, root_scores, Budget, Engine, Level, Sample, Search, WIN};
use crate::banqi::board::{parse_square, square_name, Cell, Colour, Kind, Piece, Position, Step};
use crate::banqi::{Action, Banqi, Event, State, View, QUIET_PLY_LIMIT};
use crate::{Random, RuleError, Seat};

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

/// A material lead (in `value_of` units) from which a side counts as
/// ahead: it then seeks exchanges and progress.
const AHEAD: i32 = 40;
/// Plies within which the progress bonus counts a turn-up or capture.
const PROGRESS_HORIZON: i32 = 6;
/// Evaluation units per ply sooner and per quiet ply at the root.
const PROGRESS_WEIGHT: i32 = 3;

/// Each side's hunting term: for every enemy face-up piece one of its
/// face-up pieces may take by rank without being taken back (the side
/// ahead also counts equal ranks, which trade), closeness of its nearest
/// and second-nearest such hunters, weighted by the quarry's value. It
/// brings pieces to what they can take, so that a side ahead closes in
/// instead of shuffling, and keeps the quarry away from its hunters.
fn hunting(pos: &Position, ahead: Option<usize>) -> [i32; 2] {
    let mut up: [Vec<(usize, Piece)>; 2] = [Vec::new(), Vec::new()];
    for (sq, cell) in pos.cells.iter().enumerate() {
        if let Cell::Up(p) = cell {
            up[side(p.colour)].push((sq, *p));
        }
    }
    let mut out = [0i32; 2];
    for hunter_side in 0..2 {
        let trades = ahead == Some(hunter_side);
        for &(qsq, q) in &up[1 - hunter_side] {
            let (mut d1, mut d2) = (99, 99);
            for &(hsq, h) in &up[hunter_side] {
                let safe = h.kind.takes(q.kind) && !q.kind.takes(h.kind);
                let trade = trades && h.kind.takes(q.kind);
                if !(safe || trade) {
                    continue;
                }
                let d = distance(hsq, qsq);
                if d < d1 {
                    d2 = d1;
                    d1 = d;
                } else if d < d2 {
                    d2 = d;
                }
            }
            let worth = 2 + value_of(q.kind) / 100;
            if trades && d1 < 99 {
                // The side ahead drives its quarry to the edges and
                // corners, where it has fewer ways out.
                let (f, r) = ((qsq % 8) as i32, (qsq / 8) as i32);
                out[hunter_side] += worth * ((2 * f - 7).abs() + (2 * r - 3).abs());
            }
            if d1 < 99 {
                out[hunter_side] += worth * (10 - d1) * 2;
            }
            if d2 < 99 {
                out[hunter_side] += worth * (10 - d2);
            }
        }
    }
    out
}

/// One sampled world: a whole position, face-down identities drawn, and
/// what the search needs of the line that led to it from the root.
#[derive(Clone, Debug)]
pub struct World {
    pub position: Position,
    /// The root's quiet count (§B7, from the view): how long nothing has
    /// been turned up or taken, which is how near a repetition may be.
    pub root_quiet: u32,
    /// Plies played from the root.
    pub ply: u8,
    /// The ply (from 1) of the first turn-up or capture on the line, if any.
    pub progress_at: Option<u8>,
    /// Keys of the positions on the line since its last turn-up or
    /// capture, the root's included (only the first `TRAIL` are kept).
    trail: [u64; TRAIL],
    trail_len: u8,
    /// This position already stood on the line: the search scores it a
    /// draw, as a chess engine treats a repetition within its own line
    /// (the history before the root is not in the view, so §B7's own
    /// count of three cannot be kept).
    repeated: bool,
}

/// Positions of the line kept for [`World::repeated`].
const TRAIL: usize = 12;

/// A key for §B7's "same position": the pieces (face-down ones included)
/// and the side to act.
fn key(pos: &Position) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for cell in pos.cells.iter() {
        let code = match cell {
            Cell::Empty => 0u64,
            Cell::Down(p) => 1 + side(p.colour) as u64 * 8 + p.kind as u64,
            Cell::Up(p) => 17 + side(p.colour) as u64 * 8 + p.kind as u64,
        };
        h = (h ^ code).wrapping_mul(0x0000_0100_0000_01b3);
    }
    let act = pos.to_act.map_or(0, |c| 1 + side(c) as u64);
    (h ^ act).wrapping_mul(0x0000_0100_0000_01b3)
}

impl World {
    /// The root world of a search from `position`.
    pub(crate) fn root(position: Position) -> World {
        let mut trail = [0; TRAIL];
        trail[0] = key(&position);
        World {
            position,
            root_quiet: position.quiet,
            ply: 0,
            progress_at: None,
            trail,
            trail_len: 1,
            repeated: false,
        }
    }
}

/// Manhattan distance between two squares.
fn distance(a: usize, b: usize) -> i32 {
    let (fa, ra) = ((a % 8) as i32, (a / 8) as i32);
    let (fb, rb) = ((b % 8) as i32, (b / 8) as i32);
    (fa - fb).abs() + (ra - rb).abs()
}

/// Whether a face-down square `sq` touches a face-up piece: a turn-up
/// there can be taken, or take, at once.
fn touches_face_up(pos: &Position, sq: usize) -> bool {
    let s = sq as i32;
    [(1, s % 8 != 7), (-1, s % 8 != 0), (8, s < 24), (-8, s >= 8)]
        .into_iter()
        .any(|(d, ok)| ok && matches!(pos.cells[(s + d) as usize], Cell::Up(_)))
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
        let pos = &self.position;
        pos.legal_steps(out);
        // Below the root, the turn-ups next to a face-up piece (those can
        // take or be taken at once) and one other, standing for every
        // quiet turn-up: the rest cost depth and change little.
        if self.ply > 0 {
            let mut other = false;
            out.retain(|step| match step {
                Step::TurnUp(sq) => {
                    if touches_face_up(pos, *sq as usize) {
                        true
                    } else {
                        !std::mem::replace(&mut other, true)
                    }
                }
                _ => true,
            });
        }
        // Captures first, the most valuable victim first; then moves; then
        // turn-ups (alpha-beta prunes more with good moves first).
        let key = |step: &Step| match step {
            Step::Capture(_, to) => match pos.cells[*to as usize] {
                Cell::Up(p) => -value_of(p.kind),
                _ => 0,
            },
            Step::Move(..) => 1,
            Step::TurnUp(_) => 2,
        };
        out.sort_by_key(key);
    }

    fn play(&self, mv: &Step) -> Self {
        let ply = self.ply.saturating_add(1);
        let progress = matches!(mv, Step::TurnUp(_) | Step::Capture(..));
        let position = self.position.play(*mv);
        let k = key(&position);
        let (mut trail, mut trail_len, mut repeated) = (self.trail, self.trail_len, false);
        if progress {
            trail_len = 0;
        } else {
            repeated = trail[..trail_len as usize].contains(&k);
        }
        if (trail_len as usize) < TRAIL {
            trail[trail_len as usize] = k;
            trail_len += 1;
        }
        World {
            position,
            root_quiet: self.root_quiet,
            ply,
            progress_at: self.progress_at.or(progress.then_some(ply)),
            trail,
            trail_len,
            repeated,
        }
    }

    fn value(&self, for_side: usize) -> i32 {
        let pos = &self.position;
        if self.repeated {
            return 0;
        }
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
        let lead = score[0] - score[1];
        let ahead = if lead >= AHEAD {
            Some(0)
        } else if lead <= -AHEAD {
            Some(1)
        } else {
            None
        };
        let hunt = hunting(pos, ahead);
        let mut value = (score[me] - score[them]) * 10
            + (mobility[me] - mobility[them]) * 2
            + (hunt[me] - hunt[them]);
        // Progress for the side ahead: a turn-up or a capture soon, the
        // sooner the better, and the more so the longer the position has
        // been quiet (the engine sees no history, so a quiet spell is its
        // only sign that a §B7 repetition may be near).
        if let Some(a) = ahead {
            let urgency = self.root_quiet.min(12) as i32 + 2;
            let soon = match self.progress_at {
                Some(k) => PROGRESS_HORIZON - i32::from(k).min(PROGRESS_HORIZON),
                None => 0,
            };
            let bonus = urgency * soon * PROGRESS_WEIGHT;
            value += if a == me { bonus } else { -bonus };
        }
        value
    }

    fn over(&self) -> bool {
        self.repeated || self.position.ending().is_some()
    }

    /// The position and what of its line the value reads (the ply of the
    /// first progress, a repetition); the line's other positions are left
    /// out, as a chess engine's table leaves its history out.
    fn key(&self) -> Option<u64> {
        let line = (self.ply, self.progress_at, self.repeated);
        Some(super::key_of(&(key(&self.position), line)))
    }

    /// The captures, the most valuable piece taken first (a turn-up is
    /// no capture: what it shows is the sampled world's guess).
    fn noisy(&self, out: &mut Vec<Step>) -> bool {
        out.clear();
        if self.over() {
            return false;
        }
        let pos = &self.position;
        pos.legal_steps(out);
        out.retain(|step| matches!(step, Step::Capture(..)));
        // As [`Search::moves`] orders them (a stable sort by the victim).
        out.sort_by_key(|step| match step {
            Step::Capture(_, to) => match pos.cells[*to as usize] {
                Cell::Up(p) => -value_of(p.kind),
                _ => 0,
            },
            _ => 0,
        });
        false
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
    /// What a seat's view (what `Banqi::view` gives) shows.
    pub fn from_view(view: &View) -> Result<Seen, RuleError> {
        let bad = |why: &str| RuleError::malformed(format!("banqi view: {why}"));
        let square = |name: &str| parse_square(name).ok_or_else(|| bad("a square"));
        let mut position = Position {
            to_act: view.colour_to_act,
            quiet: QUIET_PLY_LIMIT.saturating_sub(view.plies_until_no_progress_draw),
            ..Position::default()
        };
        let mut unseen = Piece::set();
        let mut take = |piece: Piece| -> Result<(), RuleError> {
            let i = unseen
                .iter()
                .position(|p| *p == piece)
                .ok_or_else(|| bad("more pieces of a kind than the set holds"))?;
            unseen.swap_remove(i);
            Ok(())
        };
        for p in &view.pieces {
            let piece = Piece {
                colour: p.colour,
                kind: p.kind,
            };
            take(piece)?;
            position.cells[square(&p.square)? as usize] = Cell::Up(piece);
        }
        let captured = [
            (Colour::Red, &view.captured.red),
            (Colour::Black, &view.captured.black),
        ];
        for (colour, kinds) in captured {
            for &kind in kinds {
                take(Piece { colour, kind })?;
            }
        }
        let face_down = (view.face_down.iter())
            .map(|name| square(name))
            .collect::<Result<Vec<u8>, _>>()?;
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
        World::root(position)
    }
}

/// Worlds sampled, nodes allowed (all worlds together) and the deepest
/// iteration, per level.
fn effort(level: Level) -> (u32, u64, u32) {
    match level {
        Level::Easy => (4, 8_000, 1),
        Level::Normal => (8, 120_000, 3),
        Level::Hard => (12, 600_000, 9),
        // Pinned: the puzzles were proved against it (docs/puzzles.md).
        Level::Puzzle => (12, 600_000, 9),
    }
}

/// The step `level` takes from what `seen` shows.
pub fn choose_step(seen: &Seen, level: Level, random: &mut dyn Random) -> Option<Step> {
    let (worlds, nodes, depth) = effort(level);
    let mut totals: Vec<(Step, i32)> = Vec::new();
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
    if matches!(level, Level::Hard | Level::Puzzle) {
        // The best, and among equally good moves one at random: a fixed
        // pick among equals would walk the same loop again and again
        // (§B7's repetition draw), which the engine cannot see coming.
        let best = totals.iter().map(|(_, s)| *s).max()?;
        let ties: Vec<Step> = totals
            .iter()
            .filter(|(_, s)| *s == best)
            .map(|(m, _)| *m)
            .collect();
        return ties.get(random.below(ties.len() as u64) as usize).copied();
    }
    choose_scored(&totals, level, 20, random)
}

/// Puzzles (docs/puzzles.md): positions with nothing face down, where
/// the one hidden state consistent with the view is the position itself,
/// and positions with at most [`PUZZLE_FACE_DOWN`] pieces face down,
/// proved in every way to lay them ([`arrangements`]). Seven plies: hard's iterations stop at nine, but its budget (50,000
/// nodes a sampled world) seldom finishes more than five; an elephant's
/// lead at every step, an advisor less a soldier over the start ends a
/// line.
impl super::puzzles::Puzzles for Banqi {
    type Whole = World;
    const SHIPPED: &'static str = include_str!("../../puzzles/banqi.jsonl");
    const RULE: super::puzzles::Rule = super::puzzles::Rule {
        mined: true,
        from_people: true,
        scan: 4,
        depth: 7,
        margin: 160,
        decisive: 250,
        nodes: 4_000_000,
        players: super::puzzles::NORMAL_AGAINST_EASY,
    };

    fn whole(view: &View) -> Option<World> {
        let seen = Seen::from_view(view).ok()?;
        (seen.face_down.is_empty() && seen.position.to_act.is_some())
            .then(|| World::root(seen.position))
    }

    fn start_of(view: &View, _config: &crate::banqi::Config) -> Option<crate::banqi::Config> {
        let world = Self::whole(view)?;
        Some(crate::banqi::Config {
            position: Some(world.position.to_notation()),
        })
    }

    /// The board as it lies, face-down pieces and all, with four face
    /// down at most: few enough deals to prove a line in each.
    fn world(state: &State, _solver: Seat) -> Option<World> {
        let pos = state.position;
        let down = (pos.cells.iter())
            .filter(|c| matches!(c, Cell::Down(_)))
            .count();
        (pos.to_act.is_some() && down <= PUZZLE_FACE_DOWN).then(|| World::root(pos))
    }

    fn start_at(
        state: &State,
        solver: Seat,
        _config: &crate::banqi::Config,
    ) -> Option<crate::banqi::Config> {
        let world = Self::world(state, solver)?;
        Some(crate::banqi::Config {
            position: Some(world.position.to_notation()),
        })
    }

    /// §H: every way to lay the face-down pieces on the face-down squares
    /// (what is face down is known: the set less the face-up and the
    /// captured pieces, §B9), the opening's own first.
    fn deals(opening: &[Event]) -> Vec<Vec<Event>> {
        let Some(position) = started(opening) else {
            return vec![opening.to_vec()];
        };
        arrangements(&position)
            .into_iter()
            .map(|p| with_position(opening, &p))
            .collect()
    }

    /// The opening with its face-down squares emptied.
    fn bare(opening: &[Event]) -> Option<Vec<Event>> {
        let mut position = started(opening)?;
        let mut any = false;
        for cell in position.cells.iter_mut() {
            if matches!(cell, Cell::Down(_)) {
                *cell = Cell::Empty;
                any = true;
            }
        }
        any.then(|| with_position(opening, &position))
    }

    fn action(mv: &Step) -> Action {
        match mv {
            Step::TurnUp(sq) => Action::TurnUp {
                square: square_name(*sq),
            },
            step => Action::Move {
                notation: step.to_string(),
            },
        }
    }

    /// Half the engines' matches for mining start as usual, where the
    /// last few face-down pieces make the hidden puzzles; the other half
    /// with every piece face up, shuffled (a custom §B9 position): the
    /// usual start seldom leads to a position with nothing face down
    /// (none in 5 minutes of matches).
    fn mining_start(
        config: &crate::banqi::Config,
        random: &mut dyn Random,
    ) -> crate::banqi::Config {
        if random.below(2) == 0 {
            return config.clone();
        }
        let mut open = crate::banqi::shuffled(random);
        for cell in open.cells.iter_mut() {
            if let Cell::Down(p) = *cell {
                *cell = Cell::Up(p);
            }
        }
        open.to_act = Some(if random.below(2) == 0 {
            Colour::Red
        } else {
            Colour::Black
        });
        crate::banqi::Config {
            position: Some(open.to_notation()),
        }
    }

    fn material(world: &World, for_side: usize) -> i32 {
        (world.position.cells.iter())
            .filter_map(|cell| match cell {
                Cell::Up(p) | Cell::Down(p) => Some(p),
                Cell::Empty => None,
            })
            .map(|p| {
                let sign = if side(p.colour) == for_side { 1 } else { -1 };
                sign * value_of(p.kind)
            })
            .sum()
    }
}

/// At most this many pieces face down in a puzzle (issue #68): 4! = 24
/// deals to prove at most.
pub const PUZZLE_FACE_DOWN: usize = 4;

/// The position an opening starts from, when it names one.
fn started(opening: &[Event]) -> Option<Position> {
    opening.iter().find_map(|e| match e {
        Event::Started {
            position: Some(text),
            ..
        } => Position::from_notation(text).ok(),
        _ => None,
    })
}

/// `opening` started from `position` instead.
fn with_position(opening: &[Event], position: &Position) -> Vec<Event> {
    let face_down = (0..position.cells.len() as u8)
        .filter(|sq| matches!(position.cells[*sq as usize], Cell::Down(_)))
        .map(square_name)
        .collect::<Vec<_>>();
    (opening.iter())
        .map(|e| match e {
            Event::Started { first, .. } => Event::Started {
                first: *first,
                position: Some(position.to_notation()),
                face_down: face_down.clone(),
            },
            other => other.clone(),
        })
        .collect()
}

/// Every distinct way to lay `position`'s face-down pieces on its
/// face-down squares (two pieces alike swapped are one way), `position`
/// itself first.
pub fn arrangements(position: &Position) -> Vec<Position> {
    let squares: Vec<usize> = (0..position.cells.len())
        .filter(|sq| matches!(position.cells[*sq], Cell::Down(_)))
        .collect();
    // More face down than a puzzle holds: no puzzle is proved there, and
    // listing its ways (10! for ten) would hold a request for ever.
    if squares.len() > PUZZLE_FACE_DOWN {
        return vec![*position];
    }
    let pieces: Vec<Piece> = (squares.iter())
        .filter_map(|sq| match position.cells[*sq] {
            Cell::Down(p) => Some(p),
            _ => None,
        })
        .collect();
    let mut out = vec![*position];
    let mut laid = Vec::with_capacity(pieces.len());
    lay(
        &pieces,
        &mut vec![false; pieces.len()],
        &mut laid,
        &mut |order| {
            let mut p = *position;
            for (sq, piece) in squares.iter().zip(order) {
                p.cells[*sq] = Cell::Down(*piece);
            }
            if !out.contains(&p) {
                out.push(p);
            }
        },
    );
    out
}

/// Each order of `pieces` once, alike pieces not told apart.
fn lay(
    pieces: &[Piece],
    used: &mut Vec<bool>,
    laid: &mut Vec<Piece>,
    each: &mut dyn FnMut(&[Piece]),
) {
    if laid.len() == pieces.len() {
        return each(laid);
    }
    for i in 0..pieces.len() {
        // A piece like one before it, still unused, would repeat an order.
        if used[i] || (0..i).any(|j| !used[j] && pieces[j] == pieces[i]) {
            continue;
        }
        used[i] = true;
        laid.push(pieces[i]);
        lay(pieces, used, laid, each);
        laid.pop();
        used[i] = false;
    }
}

/// A Banqi play is judged in worlds drawn from what everyone sees (§H):
/// the face-down pieces laid at random from those not yet seen, a
/// turn-up valued by what it may show. The first turn-up of a match is
/// not judged: before it there is no colour and every square is alike.
impl super::analysis::Analyse for Banqi {
    fn worlds(
        view: &View,
        _seat: Seat,
        worlds: u32,
        random: &mut dyn Random,
    ) -> Result<Vec<World>, RuleError> {
        let seen = Seen::from_view(view)?;
        if seen.position.to_act.is_none() {
            return Ok(Vec::new());
        }
        Ok(super::analysis::sampled(&seen, worlds, random))
    }
}

impl Engine for Banqi {
    fn decide(
        view: &View,
        seat: Seat,
        level: Level,
        random: &mut dyn Random,
    ) -> Result<Action, RuleError> {
        if view.on_move != seat {
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
            Some(Step::TurnUp(sq)) => Ok(Action::TurnUp {
                square: square_name(sq),
            }),
            Some(step) => Ok(Action::Move {
                notation: step.to_string(),
            }),
            None => Err(RuleError::illegal("there is no legal action to take")),
        }
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
                Banqi::apply(&mut state, &e).unwrap();
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
                    Banqi::apply(&mut state, &e).unwrap();
                }
            }
            let view = Banqi::view(&state, Viewer::Seat(Seat(0)));
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
