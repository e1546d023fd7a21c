//! Four-player chess moves (docs/rules/four-player-chess.md §Q3, §Q4, §Q6, §Q7, §Q10, §Q11,
//! §Q13, §Q14): move generation, castling, playing a move, the own-king
//! test, and the judgments at the start of a turn.

use super::board::{
    coords, step, Army, Kind, Mode, Move, Owner, Piece, Position, Start, ALL_DIRS, BISHOP_DIRS,
    KNIGHT_JUMPS, LONG, ROOK_DIRS, SHORT, SIZE,
};

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
    /// its result would: `checkmate` or `stalemate`.
    pub fn settle_or_end(mut self) -> Result<Position, &'static str> {
        let mut skips = 0;
        loop {
            let live = self.live_armies().len();
            match self.start_of_turn() {
                Start::Moves => return Ok(self),
                Start::Checkmated if self.mode == Mode::Teams => return Err("checkmate"),
                Start::Stalemated if self.mode == Mode::Teams => {
                    skips += 1;
                    if skips >= live {
                        return Err("stalemate");
                    }
                    self.pass_turn();
                }
                Start::Stalemated if live <= 2 => return Err("stalemate"),
                Start::Checkmated | Start::Stalemated => {
                    self.eliminate(self.to_move);
                    // Only a mate gets here with two left: a stalemate
                    // between two drew above.
                    if live <= 2 {
                        return Err("checkmate");
                    }
                }
            }
        }
    }
}
