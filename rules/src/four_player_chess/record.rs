//! A four-player chess match as PGN4 (issue #69, docs/records.md), as
//! chess.com writes it: a number a round, the armies' moves in turn
//! between `..`, each in long notation with its piece and, on a capture,
//! the piece taken (`Qg1xQn8`; a pawn has no letter, a promotion `=Q`).
//! chess.com's colours are named by where an army sits: ours go Red,
//! Green, Blue, Gray clockwise, chess.com's Red, Blue, Yellow, Green, so
//! our Green is written Blue, our Blue Yellow and our Gray Green
//! (docs/records.md). Castling is written as the king's move.

use super::board::{square_name, Kind, Mode, Move};
use super::{Action, Army, Event, FourPlayerChess, State};
use crate::records::{Header, Records};
use crate::{Game, Outcome, OutcomeKind};

/// chess.com's name of the army sitting where ours does.
fn written(army: Army) -> &'static str {
    ["Red", "Blue", "Yellow", "Green"][army.index()]
}

fn letter(kind: Kind) -> &'static str {
    ["K", "Q", "R", "B", "N", ""][kind as usize]
}

impl Records for FourPlayerChess {
    const EXTENSION: &'static str = "pgn4";

    fn tags(start: &State, end: &State, header: &Header) -> Vec<(&'static str, String)> {
        let mut tags = vec![
            ("Event", "Posthorn correspondence".into()),
            ("Site", header.site.clone()),
            ("Date", header.date.clone()),
            (
                "Variant",
                (if start.mode() == Mode::Teams {
                    "Teams"
                } else {
                    "FFA"
                })
                .into(),
            ),
        ];
        for army in Army::ALL {
            if let Some(seat) = start.seats[army.index()] {
                tags.push((written(army), header.name(seat)));
            }
        }
        if let Some(outcome) = FourPlayerChess::outcome(end) {
            tags.push(("Result", result_tag(start, end, &outcome)));
        }
        tags.push((
            "Position",
            FourPlayerChess::view(start, crate::Viewer::Spectator).position,
        ));
        tags
    }

    /// PGN4 ends its movetext without a result: the tag holds it.
    fn result(_end: &State, _outcome: &Outcome) -> String {
        String::new()
    }

    fn word(before: &State, event: &Event) -> Option<(usize, String)> {
        let Event::Moved {
            army,
            notation,
            captured,
            ..
        } = event
        else {
            return None;
        };
        let mv = Move::parse(notation)?;
        let piece = before.position.piece(mv.from)?;
        let taken = captured.map_or("-".into(), |c| format!("x{}", letter(c.kind)));
        let promotion = if mv.promotion { "=Q" } else { "" };
        Some((
            army.index(),
            format!(
                "{}{}{taken}{}{promotion}",
                letter(piece.kind),
                square_name(mv.from),
                square_name(mv.to)
            ),
        ))
    }

    /// `Qg1xQn8=Q+` → `g1n8q`.
    fn action(word: &str) -> Option<Action> {
        let word = word.trim_end_matches(['+', '#']);
        let (word, promotion) = match word.strip_suffix("=Q") {
            Some(w) => (w, "q"),
            None => (word, ""),
        };
        let word = word.trim_start_matches(['K', 'Q', 'R', 'B', 'N', 'P']);
        let (from, to) = word.split_once(['-', 'x'])?;
        let to = to.trim_start_matches(['K', 'Q', 'R', 'B', 'N', 'P']);
        let notation = format!("{from}{to}{promotion}");
        Move::parse(&notation).map(|_| Action::Move { notation })
    }

    /// A number a round (Red first, or the first army still playing),
    /// the quarter-turns between `..`.
    fn movetext(turns: &[(usize, Vec<String>)]) -> String {
        let mut out = String::new();
        let (mut round, mut last) = (0, usize::MAX);
        for (army, words) in turns {
            if last == usize::MAX || *army <= last {
                round += 1;
                out.push_str(&format!("\n{round}. "));
            } else {
                out.push_str(".. ");
            }
            out.push_str(&words.join(" "));
            out.push(' ');
            last = *army;
        }
        out
    }
}

/// Teams: `1-0` when Red and Yellow (ours Red and Blue) won, `0-1` when
/// Blue and Green did; free-for-all and points: each army's points in
/// chess.com's order, `20-0-5-12`.
fn result_tag(start: &State, end: &State, outcome: &Outcome) -> String {
    if start.mode() == Mode::Teams {
        return match outcome.outcome {
            OutcomeKind::Draw => "1/2-1/2".into(),
            _ => {
                let red_team =
                    (outcome.winners.iter()).any(|s| end.seats[Army::Red.index()] == Some(*s));
                (if red_team { "1-0" } else { "0-1" }).into()
            }
        };
    }
    (end.scores.iter().map(i32::to_string))
        .collect::<Vec<_>>()
        .join("-")
}
