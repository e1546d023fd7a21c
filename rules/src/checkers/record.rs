//! A checkers match as PDN (issue #69, docs/records.md): the tags, with
//! the variant's `GameType` (PDN 3.0's numbers) and the start as a PDN
//! FEN, and the moves as §C1 writes them already (`11-15`, `26x17x10`).

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
            ("FEN", Checkers::view(start, Viewer::Spectator).position),
        ]);
        tags
    }

    fn word(_before: &State, event: &Event) -> Option<(usize, String)> {
        match event {
            Event::Moved { seat, notation, .. } => Some((seat.index(), notation.clone())),
            _ => None,
        }
    }

    fn action(word: &str) -> Option<Action> {
        let route = word
            .split(['-', 'x'])
            .all(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
        route.then(|| Action::Move {
            notation: word.to_owned(),
        })
    }
}
