//! FlipChess actions, events, state and the fold (docs/rules/flipchess.md §F).

use super::board::{square_name, Board, Kind, Move, Side};
use super::cards::{Card, Colour, Face};
use crate::{Millis, Outcome, RuleError, Seat, Told};
use serde::{Deserialize, Serialize};

/// §F8: the "last card!" window, in milliseconds of server time.
pub const LAST_CARD_WINDOW_MS: Millis = 3_000;
/// §F8: cards drawn when the call is missed or caught.
pub const LAST_CARD_PENALTY: usize = 2;
/// §F7: king captures in rounds 1–3 may be flipped.
pub const FLIP_ROUNDS: u32 = 3;
/// §F9: the judgement when round 40 ends (80 turns, skipped turns included).
pub const TURN_LIMIT: u32 = 80;

/// One step a seat may take. Cards are named as in [`Card::name`]
/// (`red-7`, `wild-draw4`); `colour` names the colour of a Wild.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    /// Play a card; `last_card` declares "last card!" with the play (§F8).
    Play {
        card: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        colour: Option<Colour>,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        last_card: bool,
    },
    /// `e2e4`, `e7e8q`, castling `e1g1`.
    Move {
        #[serde(rename = "move")]
        notation: String,
    },
    EndTurn {},
    Draw {},
    CallLastCard {},
    Catch {},
    FreeFlip {},
    FlipCard {
        card: String,
    },
    Concede {},
    Resign {},
}

/// The facts of a FlipChess match. Card lists are ids (`0..108`); the ones
/// a viewer may not see are blanked by `redact` (`None`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// §F1: who takes White, the board, and the shuffled deck (top = last).
    Started {
        white: Seat,
        position: String,
        #[serde(default)]
        deck: Option<Vec<u8>>,
        deck_size: usize,
        /// Turns already played, for a position set up mid-match (a
        /// lesson's or a puzzle's [`super::Deal`]).
        #[serde(default, skip_serializing_if = "is_zero")]
        turns: u32,
    },
    /// Cards taken from the top of the deck into a hand.
    Drew {
        seat: Seat,
        #[serde(default)]
        cards: Option<Vec<u8>>,
        count: usize,
        /// `deal`, `no_playable_card`, `draw2`, `draw4`, `last_card_penalty`.
        reason: String,
    },
    /// §F1: cards turned onto the pile until a number card (face up).
    FirstDiscard {
        cards: Vec<u8>,
    },
    /// §F2: the pile but its top card became the new deck, in this order.
    Reshuffled {
        #[serde(default)]
        deck: Option<Vec<u8>>,
        count: usize,
    },
    CardPlayed {
        seat: Seat,
        card: u8,
        #[serde(default)]
        colour: Option<Colour>,
        #[serde(default)]
        last_card: bool,
        /// The card's name (`red-7`), for people reading the log: filled
        /// in by `redact` for every viewer (a played card is face up),
        /// never stored.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    Moved {
        seat: Seat,
        #[serde(rename = "move")]
        notation: String,
        #[serde(default)]
        captured: Option<String>,
    },
    /// The turn is over; `next` moves next (its side comes to move).
    TurnEnded {
        seat: Seat,
        reason: String,
        next: Seat,
    },
    TurnSkipped {
        seat: Seat,
    },
    /// §F5.4: a 0 exchanges the hands.
    HandsExchanged {
        seat: Seat,
    },
    LastCardWindowOpened {
        seat: Seat,
        closes_at: Millis,
    },
    LastCardCalled {
        seat: Seat,
    },
    /// The window passed with no call (penalty follows as `Drew`).
    LastCardMissed {
        seat: Seat,
    },
    /// The opponent caught the player (penalty follows as `Drew`).
    Caught {
        seat: Seat,
        target: Seat,
    },
    /// §F7: a king was captured in rounds 1–3; the victim decides.
    FlipDecisionOwed {
        seat: Seat,
        capturer: Seat,
    },
    /// §F7: the king-capturing move is taken back and the sides exchange.
    Flipped {
        seat: Seat,
        /// `free` or `card`.
        with: String,
        #[serde(default)]
        card: Option<u8>,
        /// The Flip card's name, as for `CardPlayed`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    Conceded {
        seat: Seat,
    },
    Resigned {
        seat: Seat,
    },
    Abandoned {
        seat: Seat,
    },
    Finished {
        result: Outcome,
    },
}

/// Where the seat on move is within its turn.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Phase {
    /// Play a card, or draw when none is playable (§F5.1, §F6.1).
    #[default]
    Play,
    /// The drawn card is playable and must be played (§F6.2).
    Drawn { card: u8 },
    /// Moves left with the played card's group (§F5.2).
    Moving { colour: Colour, left: u8 },
    /// §F6.3: one pawn-or-king move, or end the turn.
    BasicMove,
    /// §F7: the victim of a king capture decides.
    FlipDecision { victim: Seat },
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct State {
    pub board: Board,
    /// The seat playing White (sides exchange on a flip).
    pub white: Seat,
    /// The seat that started as White (a rematch swaps it).
    pub started_white: Seat,
    /// Top = last.
    pub deck: Vec<u8>,
    /// Top = last.
    pub discard: Vec<u8>,
    /// The colour named for a Wild on top of the pile (§F4).
    pub named: Option<Colour>,
    pub hands: [Vec<u8>; 2],
    /// Turns completed, skipped ones included (§F5).
    pub turns: u32,
    pub phase: Phase,
    /// The card played this turn, whose effect applies when it ends.
    pub played: Option<u8>,
    pub free_flip_used: bool,
    /// The board before the king-capturing move (§F7 takes only it back).
    pub before_capture: Option<Board>,
    /// §F8: (seat, closes_at) of an open "last card!" window.
    pub last_card: Option<(Seat, Millis)>,
    pub outcome: Option<Outcome>,
}

impl Default for Board {
    fn default() -> Self {
        Board::start()
    }
}

pub fn other(seat: Seat) -> Seat {
    Seat(1 - seat.0)
}

impl State {
    pub fn side_of(&self, seat: Seat) -> Side {
        if seat == self.white {
            Side::White
        } else {
            Side::Black
        }
    }

    pub fn seat_of(&self, side: Side) -> Seat {
        match side {
            Side::White => self.white,
            Side::Black => other(self.white),
        }
    }

    /// The seat whose turn it is.
    pub fn on_move(&self) -> Seat {
        self.seat_of(self.board.side)
    }

    /// §F5: round = ⌊turns/2⌋ + 1.
    pub fn round(&self) -> u32 {
        self.turns / 2 + 1
    }

    pub fn top(&self) -> Option<Card> {
        self.discard.last().map(|&id| Card::of(id))
    }

    pub fn playable(&self, id: u8) -> bool {
        self.top()
            .is_none_or(|top| Card::of(id).plays_on(top, self.named))
    }

    /// A move as a turn notice tells it (issue #66 item 7), read against
    /// the state after its append: the chess move's squares, the piece on
    /// the destination if it is the mover's (a promoted pawn is its new
    /// kind, §F3). Only the board is told: a card, played or held, never
    /// is (a hand is private, §H1), nor is a flip (§F7).
    pub fn told(&self, event: &Event) -> Option<Told> {
        let Event::Moved { seat, notation, .. } = event else {
            return None;
        };
        let mv = Move::parse(notation).ok()?;
        let piece = self.board.squares[mv.to as usize]
            .filter(|p| p.side == self.side_of(*seat))
            .map(|p| chess_word(p.kind));
        Some(Told::Moved {
            piece,
            from: square_name(mv.from),
            to: square_name(mv.to),
        })
    }

    pub fn hand(&self, seat: Seat) -> &[u8] {
        &self.hands[seat.index()]
    }

    /// The first card in `seat`'s hand with this name.
    pub fn find_in_hand(&self, seat: Seat, name: &str) -> Option<u8> {
        self.hand(seat)
            .iter()
            .copied()
            .find(|&id| Card::of(id).name() == name)
    }

    fn take_from_deck(&mut self, cards: &[u8]) {
        self.deck.retain(|c| !cards.contains(c));
    }

    fn remove_from_hand(&mut self, seat: Seat, card: u8) {
        let hand = &mut self.hands[seat.index()];
        if let Some(i) = hand.iter().position(|&c| c == card) {
            hand.remove(i);
        }
    }

    /// A window stays open only while its seat holds exactly one card.
    fn check_window(&mut self) {
        if let Some((seat, _)) = self.last_card {
            if self.hand(seat).len() != 1 {
                self.last_card = None;
            }
        }
    }

    /// Fold one event (deterministic; events come from `act`).
    pub fn apply(&mut self, event: &Event) -> Result<(), RuleError> {
        match event {
            Event::Started {
                white,
                position,
                deck,
                turns,
                ..
            } => {
                *self = State {
                    turns: *turns,
                    board: Board::from_fen(position)
                        .map_err(|e| RuleError::unreadable("position", e))?,
                    white: *white,
                    started_white: *white,
                    deck: deck.clone().unwrap_or_default(),
                    ..State::default()
                };
            }
            Event::Drew {
                seat,
                cards,
                reason,
                ..
            } => {
                let cards = cards.clone().unwrap_or_default();
                self.take_from_deck(&cards);
                if reason == "no_playable_card" {
                    // §F6: a playable drawn card must be played; otherwise
                    // one basic move.
                    self.phase = match cards.last().copied().filter(|&c| self.playable(c)) {
                        Some(card) => Phase::Drawn { card },
                        None => Phase::BasicMove,
                    };
                }
                self.hands[seat.index()].extend(cards);
                self.check_window();
            }
            Event::FirstDiscard { cards } => {
                self.take_from_deck(cards);
                self.discard.extend(cards);
            }
            Event::Reshuffled { deck, .. } => {
                let top = self.discard.pop();
                self.discard.clear();
                self.discard.extend(top);
                self.deck = deck.clone().unwrap_or_default();
            }
            Event::CardPlayed {
                seat, card, colour, ..
            } => {
                self.remove_from_hand(*seat, *card);
                self.discard.push(*card);
                let c = Card::of(*card);
                self.named = if c.is_wild() { *colour } else { None };
                self.played = Some(*card);
                self.phase = match c.face {
                    Face::Flip => Phase::Play,
                    _ => Phase::Moving {
                        colour: c.colour.or(*colour).unwrap_or(Colour::Red),
                        left: c.moves_granted(),
                    },
                };
                if c.face == Face::Flip {
                    // §F7: the sides exchange at once; no piece moves.
                    self.white = other(self.white);
                }
                self.check_window();
            }
            Event::Moved { notation, .. } => {
                let before = self.board;
                let mv = Move::parse(notation).map_err(|e| RuleError::unreadable("move", e))?;
                let captured = self.board.play(&mv);
                if captured.is_some_and(|p| p.kind == super::board::Kind::King) {
                    self.before_capture = Some(before);
                }
                self.phase = match self.phase {
                    Phase::Moving { colour, left } => Phase::Moving {
                        colour,
                        left: left.saturating_sub(1),
                    },
                    // The one basic move is used (§F6.3).
                    _ => Phase::Moving {
                        colour: Colour::Red,
                        left: 0,
                    },
                };
            }
            Event::TurnEnded { next, .. } => {
                self.turns += 1;
                self.board.side = self.side_of(*next);
                self.phase = Phase::Play;
                self.played = None;
            }
            Event::TurnSkipped { seat } => {
                self.turns += 1;
                self.board.side = self.side_of(other(*seat));
            }
            Event::HandsExchanged { .. } => {
                self.hands.swap(0, 1);
                self.check_window();
            }
            Event::LastCardWindowOpened { seat, closes_at } => {
                self.last_card = Some((*seat, *closes_at))
            }
            Event::LastCardCalled { .. } | Event::LastCardMissed { .. } | Event::Caught { .. } => {
                self.last_card = None;
            }
            Event::FlipDecisionOwed { seat, .. } => {
                self.phase = Phase::FlipDecision { victim: *seat }
            }
            Event::Flipped { seat, card, .. } => {
                match card {
                    Some(card) => {
                        self.remove_from_hand(*seat, *card);
                        self.discard.push(*card);
                        self.named = None;
                    }
                    None => self.free_flip_used = true,
                }
                if let Some(before) = self.before_capture.take() {
                    let side = self.board.side;
                    self.board = before;
                    self.board.side = side;
                }
                // The capturer now plays the side whose king was saved; its
                // new turn uses up any skip the capturing card imposed, so
                // no skip was recorded for it.
                self.white = other(self.white);
                self.phase = Phase::Play;
                self.check_window();
            }
            Event::Conceded { .. } | Event::Resigned { .. } | Event::Abandoned { .. } => {}
            Event::Finished { result } => {
                self.outcome = Some(result.clone());
                self.last_card = None;
            }
        }
        Ok(())
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// The web client's word key of a chess piece (`src/web/words.js`).
fn chess_word(kind: Kind) -> &'static str {
    match kind {
        Kind::King => "piece_chess_k",
        Kind::Queen => "piece_chess_q",
        Kind::Rook => "piece_chess_r",
        Kind::Bishop => "piece_chess_b",
        Kind::Knight => "piece_chess_n",
        Kind::Pawn => "piece_chess_p",
    }
}
