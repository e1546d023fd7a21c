//! Four-player chess moves (docs/rules/four-player-chess.md §Q3, §Q4, §Q6, §Q7, §Q10, §Q11,
//! §Q13, §Q14): move generation, castling, playing a move, the own-king
//! test, and the judgments at the start of a turn.

use super::board::{
    coords, step, Army, Kind, Mode, Move, Owner, Piece, Position, Start, ALL_DIRS, BISHOP_DIRS,
    KNIGHT_JUMPS, LONG, ROOK_DIRS, SHORT, SIZE,
};
use super::{MATE_POINTS, SELF_STALEMATE_POINTS, STALEMATED_OPPONENT_POINTS};

/// What the start of its turn decides for the army to move (§Q4, §Q6–§Q8):
/// the one judgement that the rules' `act` writes as events, that
/// [`Position::settle_or_end`] applies and that the computer opponent's
/// search applies along its lines (`engine/four_player_chess.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// It has a legal move: its turn begins.
    Moves,
    /// §Q6 teams: checkmated; the other team wins.
    TeamMated,
    /// §Q6 teams: stalemated, its turn passes; `last`: every live army has
    /// now been skipped in turn, and the match is drawn.
    Skipped { last: bool },
    /// §Q7, §Q8 ffa and points: checkmated, out of the match. `mater`
    /// scores the mate (§Q8 Decision: of the armies checking it, the one
    /// that moved last); `last`: one army is left, and the match is over.
    Mated { mater: Option<Army>, last: bool },
    /// §Q7, §Q8 ffa and points: stalemated, out of the match. `by_itself`:
    /// its own last move left it without one (§Q8 "stalemating
    /// yourself"); `last`: two were left, and the match ends drawn (in
    /// points, on points) instead.
    Stalemated { by_itself: bool, last: bool },
}

impl Verdict {
    /// §Q8: the points the verdict gives in `points` (`pos` the position
    /// it was reached in), each with the reason a `scored` event names.
    pub fn scores(self, pos: &Position) -> Vec<(Army, i32, &'static str)> {
        let army = pos.to_move;
        match self {
            Verdict::Mated {
                mater: Some(mater), ..
            } => vec![(mater, MATE_POINTS, "checkmate")],
            Verdict::Stalemated {
                by_itself: true, ..
            } => vec![(army, SELF_STALEMATE_POINTS, "self_stalemate")],
            Verdict::Stalemated { .. } => (pos.live_armies().into_iter())
                .filter(|b| *b != army)
                .map(|b| (b, STALEMATED_OPPONENT_POINTS, "stalemated_opponent"))
                .collect(),
            _ => Vec::new(),
        }
    }
}

impl Position {
    /// §Q6/Q7: the rows on which `army`'s pawn becomes a queen.
    fn promotes(&self, army: Army, sq: u8) -> bool {
        match self.mode {
            Mode::Ffa | Mode::Points => army.row(sq) == 8,
            Mode::Teams => {
                let (f, r) = coords(sq);
                let across = match army {
                    Army::Red | Army::Blue => f,
                    Army::Green | Army::Gray => r,
                };
                army.row(sq) == 11 || across == 0 || across == SIZE - 1
            }
        }
    }

    fn push_pawn(&self, army: Army, from: u8, to: u8, moves: &mut Vec<Move>) {
        let promotion = self.promotes(army, to);
        moves.push(Move {
            from,
            to,
            promotion,
        });
    }

    /// Moves by the rules of movement, before the own-king test.
    fn pseudo_moves(&self, army: Army, moves: &mut Vec<Move>) {
        let own = Owner::of(army);
        let open = |sq: u8| match self.piece(sq) {
            None => true,
            Some(p) => self.hostile(army, p.owner),
        };
        for (from, piece) in self.pieces().filter(|(_, p)| p.owner == own) {
            match piece.kind {
                Kind::Pawn => {
                    let fwd = army.forward();
                    if let Some(one) = step(from, fwd).filter(|s| self.piece(*s).is_none()) {
                        self.push_pawn(army, from, one, moves);
                        let two = step(one, fwd).filter(|s| self.piece(*s).is_none());
                        if let (2, Some(two)) = (army.row(from), two) {
                            self.push_pawn(army, from, two, moves);
                        }
                    }
                    for side in [-1, 1] {
                        let diagonal = if fwd.0 == 0 {
                            (side, fwd.1)
                        } else {
                            (fwd.0, side)
                        };
                        if let Some(to) = step(from, diagonal) {
                            if self.piece(to).is_some() && open(to) {
                                self.push_pawn(army, from, to, moves);
                            }
                        }
                    }
                }
                Kind::Knight | Kind::King => {
                    let jumps: &[(i8, i8)] = if piece.kind == Kind::Knight {
                        &KNIGHT_JUMPS
                    } else {
                        &ALL_DIRS
                    };
                    for &jump in jumps {
                        if let Some(to) = step(from, jump).filter(|s| open(*s)) {
                            moves.push(Move {
                                from,
                                to,
                                promotion: false,
                            });
                        }
                    }
                }
                slider => {
                    let dirs: &[(i8, i8)] = match slider {
                        Kind::Rook => &ROOK_DIRS,
                        Kind::Bishop => &BISHOP_DIRS,
                        _ => &ALL_DIRS,
                    };
                    for &dir in dirs {
                        let mut cur = from;
                        while let Some(to) = step(cur, dir) {
                            cur = to;
                            if open(to) {
                                moves.push(Move {
                                    from,
                                    to,
                                    promotion: false,
                                });
                            }
                            if self.piece(to).is_some() {
                                break;
                            }
                        }
                    }
                }
            }
        }
        self.castlings(army, moves);
    }

    /// §Q3/Q11: the king two squares toward a rook on its home square,
    /// the squares between empty, not out of, through or into check (the
    /// last by the own-king test).
    fn castlings(&self, army: Army, moves: &mut Vec<Move>) {
        let (king, short, long) = army.homes();
        let rights = self.castling[army.index()];
        let own = Owner::of(army);
        if rights == 0
            || self
                .piece(king)
                .is_none_or(|p| p.owner != own || p.kind != Kind::King)
        {
            return;
        }
        let enemies = self.enemies(army);
        for (bit, rook) in [(SHORT, short), (LONG, long)] {
            let is_rook = self
                .piece(rook)
                .is_some_and(|p| p.owner == own && p.kind == Kind::Rook && !p.promoted);
            if rights & bit == 0 || !is_rook {
                continue;
            }
            let (kf, kr) = coords(king);
            let (rf, rr) = coords(rook);
            let dir = ((rf - kf).signum(), (rr - kr).signum());
            let mut between = Vec::new();
            let mut cur = king;
            while let Some(next) = step(cur, dir).filter(|s| *s != rook) {
                between.push(next);
                cur = next;
            }
            let passes = between[0];
            if between.iter().any(|s| self.piece(*s).is_some())
                || self.attacked_by(king, &enemies)
                || self.attacked_by(passes, &enemies)
            {
                continue;
            }
            moves.push(Move {
                from: king,
                to: between[1],
                promotion: false,
            });
        }
    }

    /// The piece moved (and the rook of a castling), rights updated, the
    /// army to move unchanged. Returns what was captured.
    pub fn play(&self, mv: Move) -> (Position, Option<Piece>) {
        let mut next = self.clone();
        let Some(mut piece) = next.cells[mv.from as usize].take() else {
            return (next, None);
        };
        let captured = next.cells[mv.to as usize].take();
        if let Some(army) = piece.owner.army() {
            let (king, short, long) = army.homes();
            if piece.kind == Kind::King && mv.from == king {
                next.castling[army.index()] = 0;
                let (ff, fr) = coords(mv.from);
                let (tf, tr) = coords(mv.to);
                if (tf - ff).abs() == 2 || (tr - fr).abs() == 2 {
                    let dir = ((tf - ff).signum(), (tr - fr).signum());
                    // The rooks stand on either side of the king's home.
                    let (sf, sr) = coords(short);
                    let toward_short = ((sf - ff).signum(), (sr - fr).signum());
                    let rook = if dir == toward_short { short } else { long };
                    let rook_piece = next.cells[rook as usize].take();
                    next.cells[step(mv.from, dir).unwrap_or(rook) as usize] = rook_piece;
                }
            }
            for (bit, rook) in [(SHORT, short), (LONG, long)] {
                if mv.from == rook {
                    next.castling[army.index()] &= !bit;
                }
            }
            if mv.promotion && piece.kind == Kind::Pawn {
                piece = Piece {
                    kind: Kind::Queen,
                    promoted: true,
                    ..piece
                };
            }
        }
        // A rook taken on its home square takes its castling with it.
        for army in Army::ALL {
            let (_, short, long) = army.homes();
            for (bit, rook) in [(SHORT, short), (LONG, long)] {
                if mv.to == rook {
                    next.castling[army.index()] &= !bit;
                }
            }
        }
        next.cells[mv.to as usize] = Some(piece);
        (next, captured)
    }

    /// §Q4, Q14: whether `mv` (a move by the rules of movement) leaves the
    /// mover's own king attacked. Judged in the position after the ply with
    /// its eliminations applied: in `ffa`/`points` a king capture makes the
    /// captured army's pieces dead at once (§Q14), and dead pieces attack
    /// nothing, so a player in check may capture the king of the army giving
    /// it. In `teams` a king capture eliminates nobody (that team loses,
    /// §Q10), so the captured army's pieces still count as attackers.
    fn leaves_own_king_attacked(&self, mv: Move) -> bool {
        self.after_eliminations(mv).in_check(self.to_move)
    }

    /// [`Self::play`] with what the ply does at once (§Q10, Q14): in
    /// `ffa`/`points` the army whose king it captures is eliminated, its
    /// pieces dead. The army to move is unchanged.
    pub fn after_eliminations(&self, mv: Move) -> Position {
        let (mut after, captured) = self.play(mv);
        if self.mode != Mode::Teams {
            if let Some(victim) = captured
                .filter(|p| p.kind == Kind::King)
                .and_then(|p| p.owner.army())
            {
                after.eliminate(victim);
            }
        }
        after
    }

    /// Every legal move of the army to move: its king not left attacked.
    pub fn legal_moves(&self, moves: &mut Vec<Move>) {
        let army = self.to_move;
        let mut pseudo = Vec::new();
        self.pseudo_moves(army, &mut pseudo);
        moves.extend(
            pseudo
                .into_iter()
                .filter(|m| !self.leaves_own_king_attacked(*m)),
        );
    }

    /// The legal moves onto an occupied square, in [`Self::legal_moves`]'
    /// order: what the engine's quiescence follows, without judging every
    /// other move's safety.
    pub fn captures(&self, moves: &mut Vec<Move>) {
        let mut pseudo = Vec::new();
        self.pseudo_moves(self.to_move, &mut pseudo);
        moves.extend(
            (pseudo.into_iter())
                .filter(|m| self.piece(m.to).is_some() && !self.leaves_own_king_attacked(*m)),
        );
    }

    pub fn has_legal_move(&self) -> bool {
        let army = self.to_move;
        let mut pseudo = Vec::new();
        self.pseudo_moves(army, &mut pseudo);
        pseudo
            .into_iter()
            .any(|m| !self.leaves_own_king_attacked(m))
    }

    pub fn is_legal(&self, mv: Move) -> bool {
        let mut pseudo = Vec::new();
        self.pseudo_moves(self.to_move, &mut pseudo);
        pseudo.contains(&mv) && !self.leaves_own_king_attacked(mv)
    }

    /// §Q4: what the army to move finds at the start of its turn.
    pub fn start_of_turn(&self) -> Start {
        if self.has_legal_move() {
            Start::Moves
        } else if self.in_check(self.to_move) {
            Start::Checkmated
        } else {
            Start::Stalemated
        }
    }

    /// The turn passes clockwise to the next army in play.
    pub fn pass_turn(&mut self) {
        let mut army = self.to_move.next();
        while self.out[army.index()] && army != self.to_move {
            army = army.next();
        }
        self.to_move = army;
    }

    /// §Q7: the army leaves play; its pieces stay as dead pieces.
    pub fn eliminate(&mut self, army: Army) {
        self.out[army.index()] = true;
        self.castling[army.index()] = 0;
        for cell in self.cells.iter_mut().flatten() {
            if cell.owner == Owner::of(army) {
                cell.owner = Owner::Dead;
            }
        }
        if self.to_move == army {
            self.pass_turn();
        }
    }

    /// §Q4, §Q6–§Q8: the [`Verdict`] at the start of the army to move's
    /// turn. Besides the position it reads the §Q6 skips in a row so far,
    /// per army the ply of its last move (§Q8: who delivered a mate), and
    /// `stranded(army)`: whether that army's own last move left it without
    /// a legal move (§Q8 "stalemating yourself", [`Position::strands`]),
    /// asked only of a stalemated army in ffa and points.
    pub fn judge_start(
        &self,
        skips: usize,
        last_moved: &[u32; 4],
        stranded: impl Fn(Army) -> bool,
    ) -> Verdict {
        let army = self.to_move;
        let start = self.start_of_turn();
        if start == Start::Moves {
            return Verdict::Moves;
        }
        let live = self.live_armies();
        match (start, self.mode) {
            (Start::Checkmated, Mode::Teams) => Verdict::TeamMated,
            (_, Mode::Teams) => Verdict::Skipped {
                last: skips + 1 >= live.len(),
            },
            (Start::Checkmated, _) => Verdict::Mated {
                mater: (live.iter().copied())
                    .filter(|b| *b != army && self.checks(*b, army))
                    .max_by_key(|b| last_moved[b.index()]),
                last: live.len() <= 2,
            },
            _ => Verdict::Stalemated {
                by_itself: stranded(army),
                last: live.len() <= 2,
            },
        }
    }

    /// §Q8 "stalemating yourself": whether `mv` by `army` leaves `army`
    /// without a legal move, judged after the ply's own king capture, if
    /// any (the captured army's pieces are dead then, §Q14).
    pub fn strands(&self, army: Army, mv: Move) -> bool {
        let mut own = self.after_eliminations(mv);
        own.to_move = army;
        !own.has_legal_move()
    }

    /// The position after `mv` with the judgments before the next ply
    /// applied (§Q13), or `None` when the match is then over.
    pub fn successor(&self, mv: Move) -> Option<Position> {
        let (mut next, captured) = self.play(mv);
        if let Some(victim) = captured
            .filter(|p| p.kind == Kind::King)
            .and_then(|p| p.owner.army())
        {
            // §Q10: a king capture ends a teams match; in ffa/points it
            // eliminates that army at once.
            if self.mode == Mode::Teams {
                return None;
            }
            next.eliminate(victim);
            if next.live_armies().len() <= 1 {
                return None;
            }
        }
        next.pass_turn();
        next.settle()
    }

    /// Apply the start-of-turn judgments (§Q4, Q6, Q7) until an army with
    /// a move is to move; `None` when the match ends on the way.
    pub fn settle(self) -> Option<Position> {
        self.settle_or_end().ok()
    }

    /// [`Position::settle`], naming why the match ends when it does, as
    /// its result would: `checkmate` or `stalemate`. The position keeps no
    /// history, so who mated and who stranded itself are not asked.
    pub fn settle_or_end(mut self) -> Result<Position, &'static str> {
        let mut skips = 0;
        loop {
            match self.judge_start(skips, &[0; 4], |_| false) {
                Verdict::Moves => return Ok(self),
                Verdict::TeamMated => return Err("checkmate"),
                Verdict::Skipped { last: true } | Verdict::Stalemated { last: true, .. } => {
                    return Err("stalemate")
                }
                Verdict::Skipped { last: false } => {
                    skips += 1;
                    self.pass_turn();
                }
                Verdict::Stalemated { last: false, .. } => self.eliminate(self.to_move),
                Verdict::Mated { last, .. } => {
                    self.eliminate(self.to_move);
                    if last {
                        return Err("checkmate");
                    }
                }
            }
        }
    }
}
