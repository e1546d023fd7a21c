//! A FlipChess match as a text record (issue #69, docs/records.md): PGN's
//! tags and movetext, every action of a turn in turn — a card by its
//! name (`red-7`; a Wild with the colour named, `wild:blue`; `!` when
//! "last card!" went with it), a move in §F3's coordinates (`e2e4`),
//! `draw`, `end`, `lastcard`, `catch`, `flip` (free), `flip:green-flip`,
//! `concede`. What was hidden — the hands dealt, the card a `draw` took —
//! is written only in a record whose reader may see it: a finished
//! match's players (§H3); a spectator's says `draw` alone. Draws that are
//! no action (a penalty, a Draw Two's) follow from the rules and are not
//! written; neither is the deck's order. A catch (§F8) is made out of
//! turn: its record names it, but reads back only where its seat is on
//! move (docs/records.md).

use super::cards::{Card, Colour};
use super::{Action, Event, FlipChess, State};
use crate::records::{Header, Records};
use crate::{Game, Seat};

fn name(card: u8) -> String {
    Card::of(card).name()
}

fn colour_word(colour: Colour) -> String {
    serde_json::to_value(colour)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

impl Records for FlipChess {
    const EXTENSION: &'static str = "txt";

    fn tags(start: &State, end: &State, header: &Header) -> Vec<(&'static str, String)> {
        let black = Seat(1 - start.started_white.0);
        let mut tags = vec![("Game", "FlipChess".into())];
        tags.extend(header.common());
        tags.extend([
            ("White", header.name(start.started_white)),
            ("Black", header.name(black)),
        ]);
        if let Some(o) = FlipChess::outcome(end) {
            tags.push(("Result", Self::result(end, &o)));
        }
        tags.push(("Position", start.board.to_fen()));
        if header.whole {
            let hand = |seat: Seat| {
                start
                    .hand(seat)
                    .iter()
                    .map(|c| name(*c))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            tags.push(("WhiteHand", hand(start.started_white)));
            tags.push(("BlackHand", hand(black)));
        }
        tags
    }

    /// White as the match started is written first.
    fn result(end: &State, outcome: &crate::Outcome) -> String {
        crate::records::pgn_result(outcome, |s| usize::from(s != end.started_white), 0)
    }

    fn word(_before: &State, event: &Event) -> Option<(usize, String)> {
        let word = match event {
            Event::CardPlayed {
                seat,
                card,
                colour,
                last_card,
                ..
            } => {
                let named = colour.map_or(String::new(), |c| format!(":{}", colour_word(c)));
                let called = if *last_card { "!" } else { "" };
                (*seat, format!("{}{named}{called}", name(*card)))
            }
            Event::Moved { seat, notation, .. } => (*seat, notation.clone()),
            Event::Drew {
                seat,
                cards,
                reason,
                ..
            } if reason == "no_playable_card" => {
                let drawn = (cards.iter().flatten())
                    .map(|c| name(*c))
                    .collect::<Vec<_>>();
                match cards {
                    Some(_) if !drawn.is_empty() => {
                        (*seat, format!("draw {{{}}}", drawn.join(" ")))
                    }
                    _ => (*seat, "draw".into()),
                }
            }
            Event::TurnEnded { seat, reason, .. } if reason == "ended" => (*seat, "end".into()),
            Event::LastCardCalled { seat } => (*seat, "lastcard".into()),
            Event::Caught { seat, .. } => (*seat, "catch".into()),
            Event::Flipped { seat, card, .. } => match card {
                Some(card) => (*seat, format!("flip:{}", name(*card))),
                None => (*seat, "flip".into()),
            },
            Event::Conceded { seat } => (*seat, "concede".into()),
            _ => return None,
        };
        Some((word.0.index(), word.1))
    }

    fn action(word: &str) -> Option<Action> {
        Some(match word {
            "draw" => Action::Draw {},
            "end" => Action::EndTurn {},
            "lastcard" => Action::CallLastCard {},
            "catch" => Action::Catch {},
            "flip" => Action::FreeFlip {},
            "concede" => Action::Concede {},
            _ => {
                if let Some(card) = word.strip_prefix("flip:") {
                    return Some(Action::FlipCard { card: card.into() });
                }
                let card_like = ["red", "yellow", "green", "blue", "wild"]
                    .iter()
                    .any(|c| word.starts_with(c));
                if !card_like {
                    return Some(Action::Move {
                        notation: word.to_owned(),
                    });
                }
                let (word, last_card) = match word.strip_suffix('!') {
                    Some(w) => (w, true),
                    None => (word, false),
                };
                let (card, colour) = match word.split_once(':') {
                    Some((card, colour)) => {
                        (card, Some(serde_json::from_value(colour.into()).ok()?))
                    }
                    None => (word, None),
                };
                Action::Play {
                    card: card.to_owned(),
                    colour,
                    last_card,
                }
            }
        })
    }
}
