//! PDN notation for both checkers boards (docs/rules/checkers.md §C1, §C2): a move as
//! written (`11-15`, `22x15x8`, or its ends alone when one route fits)
//! and PDN FEN positions.

use super::board::{Color, Move, Position, Square, MAX_PATH};
use crate::RuleError;

impl Position {
    /// Find the legal move written as `text`. Any route of a capture is
    /// accepted; `from x to` alone is accepted when only one move fits.
    pub fn find_move(&self, text: &str) -> Result<Move, RuleError> {
        let written = parse_move_text(text)?;
        let mut legal = Vec::new();
        self.legal_moves(&mut legal);
        if legal.first().is_some_and(Move::is_capture) {
            if !written.capture {
                return Err(RuleError::illegal(
                    "a capture is available, and capturing is mandatory (§C1)",
                ));
            }
            let mut routes = Vec::new();
            self.capture_routes(&mut routes);
            if let Some(mv) = routes.iter().find(|m| m.path() == written.squares) {
                return Ok(*mv);
            }
            let (from, to) = (written.squares[0], *written.squares.last().unwrap());
            if written.squares.len() == 2 {
                let fits: Vec<&Move> = legal
                    .iter()
                    .filter(|m| m.from() == from && m.to() == to)
                    .collect();
                match fits.as_slice() {
                    [one] => return Ok(**one),
                    [] => {}
                    several => {
                        let names: Vec<String> = several.iter().map(|m| m.to_string()).collect();
                        return Err(RuleError::illegal(format!(
                            "{text} is ambiguous: write the whole path, one of {}",
                            names.join(", ")
                        )));
                    }
                }
            }
            return Err(RuleError::illegal(format!(
                "{text} is not a legal capture here; a capture must be completed (§C1)"
            )));
        }
        if written.capture {
            return Err(RuleError::illegal(format!(
                "{text} is not a legal capture here: there is nothing to capture"
            )));
        }
        legal
            .iter()
            .find(|m| m.path() == written.squares)
            .copied()
            .ok_or_else(|| RuleError::illegal(format!("{text} is not a legal move here")))
    }

    /// PDN FEN, White's list first: `B:W21,22,K30:B1,2,K5`.
    pub fn to_fen(&self) -> String {
        let list = |color: Color| {
            let mut parts = Vec::new();
            let mut bits = self.pieces(color);
            while bits != 0 {
                let sq = bits.trailing_zeros();
                bits &= bits - 1;
                let king = if self.kings & (1 << sq) != 0 { "K" } else { "" };
                parts.push(format!("{king}{}", sq + 1));
            }
            format!("{}{}", color.letter(), parts.join(","))
        };
        format!(
            "{}:{}:{}",
            self.turn.letter(),
            list(Color::White),
            list(Color::Black)
        )
    }

    /// Read PDN FEN: side to move, then the two piece lists in either order;
    /// `K` marks a king, `a-b` a range of squares, a final `.` is allowed.
    pub fn from_fen(text: &str) -> Result<Position, RuleError> {
        let bad = |why: String| RuleError::malformed(format!("position {text:?}: {why}"));
        let body = text.trim().trim_end_matches('.');
        let parts: Vec<&str> = body.split(':').map(str::trim).collect();
        if parts.len() != 3 {
            return Err(bad(
                "expected three fields separated by ':' (side to move, then White's and Black's pieces)".into(),
            ));
        }
        let turn =
            parse_color(parts[0]).ok_or_else(|| bad("side to move must be B or W".into()))?;
        let mut pos = Position {
            black: 0,
            white: 0,
            kings: 0,
            turn,
        };
        let mut seen = [false; 2];
        for list in &parts[1..] {
            let mut chars = list.chars();
            let color = chars
                .next()
                .and_then(|c| parse_color(&c.to_string()))
                .ok_or_else(|| bad(format!("piece list {list:?} must start with W or B")))?;
            if std::mem::replace(&mut seen[color as usize], true) {
                return Err(bad(format!("two piece lists for {}", color.name())));
            }
            for item in chars
                .as_str()
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
            {
                let (king, squares) = match item.strip_prefix(['K', 'k']) {
                    Some(rest) => (true, rest),
                    None => (false, item),
                };
                let (lo, hi) = match squares.split_once('-') {
                    Some((a, b)) => (
                        parse_square(a).map_err(&bad)?,
                        parse_square(b).map_err(&bad)?,
                    ),
                    None => {
                        let s = parse_square(squares).map_err(&bad)?;
                        (s, s)
                    }
                };
                if lo > hi {
                    return Err(bad(format!("range {item:?} runs backwards")));
                }
                for sq in lo..=hi {
                    let bit = 1u32 << sq;
                    if pos.occupied() & bit != 0 {
                        return Err(bad(format!("square {} is listed twice", sq + 1)));
                    }
                    match color {
                        Color::Black => pos.black |= bit,
                        Color::White => pos.white |= bit,
                    }
                    if king {
                        pos.kings |= bit;
                    }
                }
            }
        }
        if !(seen[0] && seen[1]) {
            return Err(bad("both a W and a B piece list are needed".into()));
        }
        Ok(pos)
    }
}

fn parse_color(s: &str) -> Option<Color> {
    match s {
        "B" | "b" => Some(Color::Black),
        "W" | "w" => Some(Color::White),
        _ => None,
    }
}

fn parse_square(s: &str) -> Result<Square, String> {
    let n: u32 = s
        .trim()
        .parse()
        .map_err(|_| format!("{s:?} is not a square number"))?;
    if !(1..=32).contains(&n) {
        return Err(format!("square {n} is off the board (squares are 1–32)"));
    }
    Ok((n - 1) as Square)
}

struct WrittenMove {
    squares: Vec<Square>,
    capture: bool,
}

fn parse_move_text(text: &str) -> Result<WrittenMove, RuleError> {
    let t = text.trim();
    let bad = |why: &str| RuleError::malformed(format!("move {text:?}: {why}"));
    let capture = t.contains(['x', 'X', ':']);
    if capture && t.contains('-') {
        return Err(bad(
            "use '-' for a plain move or 'x' between every square of a capture, not both",
        ));
    }
    let squares = t
        .split(['x', 'X', ':', '-'])
        .map(|s| parse_square(s).map_err(|why| bad(&why)))
        .collect::<Result<Vec<_>, _>>()?;
    if squares.len() < 2 {
        return Err(bad("write a move as 11-15, or a capture as 11x18x25"));
    }
    if !capture && squares.len() > 2 {
        return Err(bad("a plain move goes from one square to the next: 11-15"));
    }
    if squares.len() > MAX_PATH {
        return Err(bad("that path is longer than any capture can be"));
    }
    Ok(WrittenMove { squares, capture })
}

/// PDN on the draughts board, numbered from 1 to its size (§C2).
mod on_draughts {
    use super::super::board::Color;
    use super::super::draughts::{Move, Piece, Position, Rules};
    use crate::RuleError;

    impl Position {
        /// The move `notation` names: a route (`26x17x10`, `21-17`) or, when
        /// only one route fits, its ends (`26x10`).
        pub fn find_move(&self, rules: &Rules, notation: &str) -> Result<Move, RuleError> {
            let bad = || {
                RuleError::malformed(format!(
                    "{notation:?} is not a move: write 21-17 or 26x17x10"
                ))
            };
            let capture = notation.contains('x');
            let squares: Vec<usize> = notation
                .split(['x', '-'])
                .map(|s| {
                    s.trim()
                        .parse::<usize>()
                        .ok()
                        .filter(|n| (1..=rules.squares()).contains(n))
                        .map(|n| n - 1)
                })
                .collect::<Option<_>>()
                .ok_or_else(bad)?;
            if squares.len() < 2 {
                return Err(bad());
            }
            let mut moves = Vec::new();
            self.legal_moves(rules, &mut moves);
            let route = |m: &Move| m.path().iter().map(|s| *s as usize).collect::<Vec<_>>();
            let mut routes = Vec::new();
            if capture {
                self.captures(rules, &mut routes, true);
            }
            // Any route of a legal move names it; so do its ends alone when
            // only one move has them.
            let named = |m: &Move| {
                (m.is_capture() == capture && route(m) == squares)
                    || routes
                        .iter()
                        .any(|r| r.same_identity(m) && route(r) == squares)
            };
            let by_ends = |m: &&Move| {
                m.is_capture() == capture
                    && squares.len() == 2
                    && m.from() == squares[0]
                    && m.to() == squares[1]
            };
            if let Some(m) = moves.iter().find(|m| named(m)) {
                return Ok(*m);
            }
            let found: Vec<&Move> = moves.iter().filter(by_ends).collect();
            match found.as_slice() {
                [one] => Ok(**one),
                [] => Err(RuleError::illegal(format!(
                    "{notation} is not a legal move here"
                ))),
                _ => Err(RuleError::illegal(format!(
                    "{notation} fits several captures: give the whole route"
                ))),
            }
        }

        /// PDN FEN: `W:W21,22,K30:B1,2,K5`, ranges allowed (`W21-32`).
        pub fn from_fen(rules: &Rules, fen: &str) -> Result<Position, RuleError> {
            let bad = |why: &str| RuleError::malformed(format!("FEN {fen:?}: {why}"));
            let mut pos = Position::empty(*rules);
            let mut parts = fen.trim().trim_end_matches('.').split(':');
            pos.turn = match parts.next().map(str::trim) {
                Some("W") => Color::White,
                Some("B") => Color::Black,
                _ => return Err(bad("it starts with W or B, the side to move")),
            };
            for part in parts {
                let part = part.trim();
                let colour = match part.chars().next() {
                    Some('W') => Color::White,
                    Some('B') => Color::Black,
                    _ => return Err(bad("each list starts with W or B")),
                };
                for item in part[1..]
                    .split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                {
                    let (king, item) = match item.strip_prefix('K') {
                        Some(rest) => (true, rest),
                        None => (false, item),
                    };
                    let (a, b) = item.split_once('-').unwrap_or((item, item));
                    let parse = |s: &str| {
                        s.parse::<usize>()
                            .ok()
                            .filter(|n| (1..=rules.squares()).contains(n))
                            .ok_or_else(|| bad(&format!("square {s} is not on the board")))
                    };
                    for n in parse(a)?..=parse(b)? {
                        if pos.cells[n - 1].is_some() {
                            return Err(bad(&format!("square {n} is given twice")));
                        }
                        pos.cells[n - 1] = Some(Piece { colour, king });
                    }
                }
            }
            Ok(pos)
        }

        pub fn to_fen(&self, rules: &Rules) -> String {
            let list = |colour: Color| {
                (0..rules.squares())
                    .filter_map(|sq| {
                        let p = self.cells[sq].filter(|p| p.colour == colour)?;
                        Some(format!("{}{}", if p.king { "K" } else { "" }, sq + 1))
                    })
                    .collect::<Vec<_>>()
                    .join(",")
            };
            format!(
                "{}:W{}:B{}",
                self.turn.letter(),
                list(Color::White),
                list(Color::Black)
            )
        }
    }
}
