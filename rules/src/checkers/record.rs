//! A checkers match as PDN (issue #69, docs/records.md): the tags, with
//! the variant's `GameType` (PDN 3.0's numbers) and the start as a PDN
//! FEN, and the moves as §C1 writes them already (`11-15`, `26x17x10`).
//! Russian and Brazilian records are written as their players and tools
//! write them (lidraughts, pydraughts): squares by file and rank, `c3-d4`,
//! `c3xe5xg7`, in the FEN too (`W:Wa1,c1,…:Bb8,…`).

use super::{Action, Checkers, Event, State, Variant};
use crate::records::{Header, Records};
use crate::{Game, Viewer};

/// PDN 3.0's game types.
fn game_type(variant: Variant) -> u8 {
    match variant {
        Variant::International => 20,
        Variant::American => 21,
        Variant::Pool => 23,
        Variant::Spanish => 24,
        Variant::Russian => 25,
        Variant::Brazilian => 26,
        Variant::Thai => 31,
    }
}

impl Records for Checkers {
    const EXTENSION: &'static str = "pdn";

    fn tags(start: &State, end: &State, header: &Header) -> Vec<(&'static str, String)> {
        // Seat 0 plays Black and seat 1 White (§C1).
        let result = Checkers::outcome(end).map_or("*".into(), |o| Self::result(end, &o));
        let mut tags = header.common();
        tags.extend([
            ("Round", "-".into()),
            ("White", header.name(crate::Seat(1))),
            ("Black", header.name(crate::Seat(0))),
            ("Result", result),
            ("GameType", game_type(start.variant).to_string()),
            ("SetUp", "1".into()),
            (
                "FEN",
                fen(
                    start.variant,
                    &Checkers::view(start, Viewer::Spectator).position,
                ),
            ),
        ]);
        tags
    }

    fn word(before: &State, event: &Event) -> Option<(usize, String)> {
        match event {
            Event::Moved { seat, notation, .. } if by_file_and_rank(before.variant) => {
                let squares: Option<Vec<String>> = (notation.split(['-', 'x']))
                    .map(|n| n.parse().ok().and_then(square_name))
                    .collect();
                let joint = if notation.contains('x') { "x" } else { "-" };
                Some((seat.index(), squares?.join(joint)))
            }
            Event::Moved { seat, notation, .. } => Some((seat.index(), notation.clone())),
            _ => None,
        }
    }

    /// A route by numbers (`26x17x10`) or, on the 8×8 boards written by
    /// file and rank, by squares (`c3xe5`).
    fn action(word: &str) -> Option<Action> {
        let numbers: Option<Vec<String>> = (word.split(['-', 'x']))
            .map(|part| match part.chars().next() {
                Some(c) if c.is_ascii_digit() => part
                    .chars()
                    .all(|c| c.is_ascii_digit())
                    .then(|| part.to_owned()),
                _ => square_number(part).map(|n| n.to_string()),
            })
            .collect();
        let joint = if word.contains('x') { "x" } else { "-" };
        Some(Action::Move {
            notation: numbers?.join(joint),
        })
    }
}

/// Russian and Brazilian records name squares by file and rank.
fn by_file_and_rank(variant: Variant) -> bool {
    matches!(variant, Variant::Russian | Variant::Brazilian)
}

/// §C1's square `n` of an 8×8 board (1 is b8, Black's side; 32 is g1) by
/// file and rank.
fn square_name(n: u8) -> Option<String> {
    let i = n.checked_sub(1).filter(|i| *i < 32)?;
    let row = i / 4;
    let file = 2 * (i % 4) + u8::from(row.is_multiple_of(2));
    Some(format!("{}{}", (b'a' + file) as char, 8 - row))
}

/// The §C1 number of a dark square named by file and rank (`c3`).
fn square_number(name: &str) -> Option<u8> {
    let mut chars = name.chars();
    let file = (chars.next()? as u8).checked_sub(b'a').filter(|f| *f < 8)?;
    let rank: u8 = chars
        .as_str()
        .parse()
        .ok()
        .filter(|r| (1..=8).contains(r))?;
    let row = 8 - rank;
    let dark = (file + u8::from(row.is_multiple_of(2))).is_multiple_of(2);
    dark.then(|| row * 4 + file / 2 + 1)
}

/// The PDN FEN as the variant's record writes it: by file and rank on the
/// boards written so (`W:Wa1,Kc3:Bb8`), else as §C1 has it.
fn fen(variant: Variant, numbered: &str) -> String {
    if !by_file_and_rank(variant) {
        return numbered.to_owned();
    }
    let side = |part: &str| {
        let (colour, squares) = part.split_at(part.len().min(1));
        let named: Vec<String> = (squares.split(','))
            .filter(|s| !s.is_empty())
            .map(|s| {
                let (king, n) = s.strip_prefix('K').map_or(("", s), |n| ("K", n));
                n.parse()
                    .ok()
                    .and_then(square_name)
                    .map_or(s.to_owned(), |sq| king.to_owned() + &sq)
            })
            .collect();
        format!("{colour}{}", named.join(","))
    };
    let mut parts = numbered.split(':');
    let turn = parts.next().unwrap_or("");
    std::iter::once(turn.to_owned())
        .chain(parts.map(side))
        .collect::<Vec<_>>()
        .join(":")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// §C1's numbers and the squares' names agree on every dark square,
    /// and the start is named as Russian players write it.
    #[test]
    fn russian_squares_by_file_and_rank_c1() {
        for n in 1..=32 {
            assert_eq!(square_number(&square_name(n).unwrap()), Some(n));
        }
        assert_eq!(square_name(1).as_deref(), Some("b8"));
        assert_eq!(square_name(29).as_deref(), Some("a1"));
        assert_eq!(square_number("a2"), None, "a light square");
        assert_eq!(fen(Variant::Russian, "W:W29,K30:B1"), "W:Wa1,Kc1:Bb8");
        assert!(matches!(
            Checkers::action("c3xe5xg7"),
            Some(Action::Move { notation }) if notation == "22x15x8"
        ));
    }
}
