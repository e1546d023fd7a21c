//! A Banqi match as a text record (issue #69, docs/records.md): PGN's
//! tags and movetext, the moves in §B9's notation (`a1-a2`, `a1xa2`), a
//! turn-up with the piece it showed (`a1=K`, §B9's letters; a turn-up is
//! everyone's from then on). The layout the match started from is
//! written (`[Layout]`, §B9 with `?K` for a face-down piece) only in a
//! record whose reader may see it: a finished match's players (§H3).

use super::{Action, Banqi, Event, State};
use crate::records::{pgn_result, Header, Records};
use crate::{Game, Outcome, Seat};

impl Records for Banqi {
    const EXTENSION: &'static str = "txt";

    fn tags(start: &State, end: &State, header: &Header) -> Vec<(&'static str, String)> {
        let second = Seat(1 - start.first.0);
        let mut tags = vec![("Game", "Banqi".into())];
        tags.extend(header.common());
        tags.extend([
            ("First", header.name(start.first)),
            ("Second", header.name(second)),
        ]);
        if let Some(colour) = end.colour_of(start.first) {
            tags.push(("FirstColour", format!("{colour:?}").to_lowercase()));
        }
        if let Some(o) = Banqi::outcome(end) {
            tags.push(("Result", Self::result(end, &o)));
        }
        // The layout, only to those who may see it (§H3).
        if header.whole {
            tags.push(("Layout", start.position.to_notation()));
        }
        tags
    }

    /// The seat that acted first is written first.
    fn result(end: &State, outcome: &Outcome) -> String {
        pgn_result(outcome, |s| Banqi::side(end, s), 0)
    }

    fn word(_before: &State, event: &Event) -> Option<(usize, String)> {
        match event {
            Event::TurnedUp {
                seat,
                square,
                piece,
            } => Some((seat.index(), format!("{square}={}", piece.letter()))),
            Event::Moved { seat, notation, .. } => Some((seat.index(), notation.clone())),
            _ => None,
        }
    }

    fn action(word: &str) -> Option<Action> {
        if let Some((square, _)) = word.split_once('=') {
            return Some(Action::TurnUp {
                square: square.to_owned(),
            });
        }
        word.contains(['-', 'x']).then(|| Action::Move {
            notation: word.to_owned(),
        })
    }
}
