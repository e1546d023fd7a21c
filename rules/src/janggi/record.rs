//! A Janggi match as PGN (issue #69, docs/records.md), as pychess-variants
//! and Fairy-Stockfish read it: `[Variant "janggi"]`, the start as
//! Fairy-Stockfish's FEN (§J1; Cho is "White", upper case, and moves
//! first), the moves in coordinates (`b1c3`, files a–i, ranks 1–10) and
//! a pass as Fairy-Stockfish writes one: the king's square twice (`e2e2`).

use super::board::{square_name, Kind, Move};
use super::{Action, Event, Janggi, State};
use crate::records::{pgn_result, Header, Records};
use crate::{Game, Outcome};

impl Records for Janggi {
    const EXTENSION: &'static str = "pgn";

    fn tags(start: &State, end: &State, header: &Header) -> Vec<(&'static str, String)> {
        let han = crate::Seat(1 - start.cho.0);
        let result = Janggi::outcome(end).map_or("*".into(), |o| Self::result(end, &o));
        let mut tags = header.common();
        tags.extend([
            ("Round", "-".into()),
            ("White", header.name(start.cho)),
            ("Black", header.name(han)),
            ("Result", result),
            ("Variant", "janggi".into()),
            ("SetUp", "1".into()),
            ("FEN", start.position.to_fen()),
        ]);
        tags
    }

    /// Cho (side 0) is written first.
    fn result(end: &State, outcome: &Outcome) -> String {
        pgn_result(outcome, |s| Janggi::side(end, s), 0)
    }

    fn word(before: &State, event: &Event) -> Option<(usize, String)> {
        match event {
            Event::Moved { seat, notation, .. } => {
                Some((Janggi::side(before, *seat), notation.clone()))
            }
            Event::Passed { seat } => {
                let side = before.side_of(*seat);
                let king = (before.position.pieces())
                    .find(|(_, p)| p.kind == Kind::King && p.side == side)?;
                let at = square_name(king.0);
                Some((Janggi::side(before, *seat), format!("{at}{at}")))
            }
            _ => None,
        }
    }

    fn action(word: &str) -> Option<Action> {
        if matches!(word, "pass" | "@@@@" | "--") {
            return Some(Action::Pass {});
        }
        let split = word
            .char_indices()
            .skip(1)
            .find(|(_, c)| c.is_ascii_alphabetic())?
            .0;
        if word[..split] == word[split..] {
            return Some(Action::Pass {});
        }
        Move::parse(word).map(|_| Action::Move {
            notation: word.to_owned(),
        })
    }
}
