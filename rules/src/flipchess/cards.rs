//! The FlipChess cards (docs/rules/flipchess.md §F2–F4): the 108-card deck, the moves a
//! card grants, and which card may be played on which.
//!
//! A card is known by its id `0..108`, so a shuffle is a permutation of ids
//! recorded in an event and hands are lists of ids; [`Card::of`] says what
//! an id is.

use super::board::Group;
use std::fmt;

/// A card's colour is the piece group it moves (§F3).
pub type Colour = Group;

pub const DECK_SIZE: u8 = 108;
pub const HAND_SIZE: usize = 7;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Face {
    Number(u8),
    Skip,
    Flip,
    DrawTwo,
    Wild,
    WildDrawFour,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Card {
    /// `None` for Wild and Wild Draw-4.
    pub colour: Option<Colour>,
    pub face: Face,
}

/// The 25 faces of one colour (§F2): one 0, two each of 1–9, two Skip,
/// two Flip, two Draw-2.
const COLOUR_FACES: [Face; 25] = {
    let mut faces = [Face::Number(0); 25];
    let mut i = 1;
    while i < 19 {
        faces[i] = Face::Number(i.div_ceil(2) as u8);
        i += 1;
    }
    faces[19] = Face::Skip;
    faces[20] = Face::Skip;
    faces[21] = Face::Flip;
    faces[22] = Face::Flip;
    faces[23] = Face::DrawTwo;
    faces[24] = Face::DrawTwo;
    faces
};

impl Card {
    /// The card with id `id` (`0..108`): ids 0–99 are the four colours'
    /// 25 cards each, 100–103 Wild, 104–107 Wild Draw-4.
    pub fn of(id: u8) -> Card {
        match id {
            0..100 => Card {
                colour: Some(Group::ALL[(id / 25) as usize]),
                face: COLOUR_FACES[(id % 25) as usize],
            },
            100..104 => Card {
                colour: None,
                face: Face::Wild,
            },
            _ => Card {
                colour: None,
                face: Face::WildDrawFour,
            },
        }
    }

    pub fn is_wild(self) -> bool {
        matches!(self.face, Face::Wild | Face::WildDrawFour)
    }

    /// §F3 Decision: moves granted by a card, in one place.
    pub fn moves_granted(self) -> u8 {
        match self.face {
            Face::Number(0..=3) => 1,
            Face::Number(4..=6) => 2,
            Face::Number(_) => 3,
            Face::Skip | Face::DrawTwo | Face::Wild | Face::WildDrawFour => 1,
            Face::Flip => 0,
        }
    }

    /// §F4: whether this card may be played on `top`; `named` is the colour
    /// named when `top` is a Wild or Wild Draw-4.
    pub fn plays_on(self, top: Card, named: Option<Colour>) -> bool {
        if self.is_wild() {
            return true;
        }
        if top.is_wild() {
            // Only the named colour (or another Wild) — no number or symbol match.
            return self.colour.is_some() && self.colour == named;
        }
        if self.colour == top.colour {
            return true;
        }
        match (self.face, top.face) {
            (Face::Number(a), Face::Number(b)) => a == b,
            (Face::Skip, Face::Skip)
            | (Face::Flip, Face::Flip)
            | (Face::DrawTwo, Face::DrawTwo) => true,
            _ => false,
        }
    }

    /// A stable name for clients: `red-7`, `blue-skip`, `green-flip`,
    /// `yellow-draw2`, `wild`, `wild-draw4`.
    pub fn name(self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let colour = match self.colour {
            Some(Group::Red) => "red-",
            Some(Group::Yellow) => "yellow-",
            Some(Group::Green) => "green-",
            Some(Group::Blue) => "blue-",
            None => "",
        };
        match self.face {
            Face::Number(n) => write!(f, "{colour}{n}"),
            Face::Skip => write!(f, "{colour}skip"),
            Face::Flip => write!(f, "{colour}flip"),
            Face::DrawTwo => write!(f, "{colour}draw2"),
            Face::Wild => f.write_str("wild"),
            Face::WildDrawFour => f.write_str("wild-draw4"),
        }
    }
}

/// §F1 first discard: cards are turned from the top of `deck` (its end)
/// until a number card appears. Returns how many cards were turned; the
/// last one turned is the number card, the others lie under it with no
/// effect. `None` if the deck holds no number card.
pub fn first_discard(deck: &[u8]) -> Option<usize> {
    deck.iter()
        .rev()
        .position(|&id| matches!(Card::of(id).face, Face::Number(_)))
        .map(|i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(name: &str) -> Card {
        (0..DECK_SIZE)
            .map(Card::of)
            .find(|c| c.name() == name)
            .expect(name)
    }

    #[test]
    fn f2_the_deck_holds_108_cards_25_per_colour_and_8_wilds() {
        let all: Vec<Card> = (0..DECK_SIZE).map(Card::of).collect();
        assert_eq!(all.len(), 108);
        for colour in Group::ALL {
            let of: Vec<&Card> = all.iter().filter(|c| c.colour == Some(colour)).collect();
            assert_eq!(of.len(), 25, "{colour:?}");
            let count = |face: Face| of.iter().filter(|c| c.face == face).count();
            assert_eq!(count(Face::Number(0)), 1);
            for n in 1..=9 {
                assert_eq!(count(Face::Number(n)), 2, "{colour:?} {n}");
            }
            assert_eq!(
                (count(Face::Skip), count(Face::Flip), count(Face::DrawTwo)),
                (2, 2, 2)
            );
        }
        assert_eq!(all.iter().filter(|c| c.face == Face::Wild).count(), 4);
        assert_eq!(
            all.iter().filter(|c| c.face == Face::WildDrawFour).count(),
            4
        );
    }

    #[test]
    fn f3_move_counts_per_card() {
        let expect = [
            ("red-0", 1),
            ("red-1", 1),
            ("red-3", 1),
            ("red-4", 2),
            ("red-6", 2),
            ("red-7", 3),
            ("red-9", 3),
            ("blue-skip", 1),
            ("blue-draw2", 1),
            ("wild", 1),
            ("wild-draw4", 1),
            ("green-flip", 0),
        ];
        for (name, moves) in expect {
            assert_eq!(card(name).moves_granted(), moves, "{name}");
        }
    }

    #[test]
    fn f4_same_colour_number_or_symbol_matches() {
        let top = card("red-7");
        assert!(card("red-2").plays_on(top, None), "same colour");
        assert!(card("blue-7").plays_on(top, None), "same number");
        assert!(!card("blue-6").plays_on(top, None));
        assert!(
            card("green-skip").plays_on(card("red-skip"), None),
            "same symbol"
        );
        assert!(card("green-flip").plays_on(card("blue-flip"), None));
        assert!(card("green-draw2").plays_on(card("yellow-draw2"), None));
        assert!(!card("green-skip").plays_on(card("yellow-flip"), None));
    }

    #[test]
    fn f4_wilds_always_play_and_the_named_colour_binds() {
        assert!(card("wild").plays_on(card("red-7"), None));
        assert!(card("wild-draw4").plays_on(card("wild"), Some(Group::Blue)));
        let top = card("wild");
        assert!(card("blue-3").plays_on(top, Some(Group::Blue)));
        assert!(
            !card("red-3").plays_on(top, Some(Group::Blue)),
            "only the named colour"
        );
        assert!(!card("red-skip").plays_on(card("wild-draw4"), Some(Group::Green)));
    }

    #[test]
    fn f1_first_discard_turns_until_a_number_card() {
        let skip = (0..DECK_SIZE)
            .find(|&i| Card::of(i).face == Face::Skip)
            .unwrap();
        let wild = 100;
        let five = (0..DECK_SIZE)
            .find(|&i| Card::of(i).face == Face::Number(5))
            .unwrap();
        // The top of the deck is its end: wild, then skip, then the five.
        assert_eq!(first_discard(&[1, five, skip, wild]), Some(3));
        assert_eq!(first_discard(&[five]), Some(1));
        assert_eq!(first_discard(&[wild, skip]), None);
    }
}
