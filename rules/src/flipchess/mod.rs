//! FlipChess (docs/rules/flipchess.md §F): chess where a card decides which pieces move
//! and how often. Seats 0 and 1; who plays White is drawn at setup and
//! changes with every flip.
//!
//! * `board` — the §F3 board: groups, no check, castling, promotion.
//! * `notation` — the chess FEN, and a move as written.
//! * `cards` — the §F2 deck, §F3 move counts, §F4 matching.
//! * `state` — actions, events, state and the fold.
//! * `puzzle` — the line of a "win this turn" puzzle (mined in
//!   `engine/flipchess.rs`).
//! * `turn` — validation and the facts each action produces.

pub mod board;
pub mod cards;
mod notation;
pub mod puzzle;
mod record;
pub mod state;
mod turn;

pub use state::{Action, Event, Phase, State};

use crate::{
    About, Departure, Duty, DutyKind, Env, Game, Millis, Outcome, Random, RuleError, Seat, Viewer,
};
use board::{Board, Group, Side};
use cards::{Card, Colour, DECK_SIZE, HAND_SIZE};
use serde::{Deserialize, Serialize};
use state::other;

/// Creation options: `position` starts from a chess FEN (lessons, tests);
/// `deal` sets the cards as well (lessons, puzzles).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deal: Option<Deal>,
}

/// A position's cards instead of §F1's deal: each side's hand and the
/// pile's top card by name (`red-7`, `wild`), and the turns already
/// played (§F5: the round follows). The rest of the deck is shuffled as
/// usual and stays hidden. The top card must be a number card, as §F1's
/// first discard is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Deal {
    pub white: Vec<String>,
    pub black: Vec<String>,
    pub top: String,
    #[serde(default)]
    pub turns: u32,
}

/// Which phase of a turn the view shows (§F3–§F7), by its name in the
/// view's JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PhaseKind {
    Play,
    Drawn,
    Moving,
    BasicMove,
    FlipDecision,
}

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PhaseView {
    /// `play`, `drawn`, `moving`, `basic_move` or `flip_decision`.
    #[schemars(with = "String")]
    pub kind: PhaseKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub colour: Option<Colour>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moves_left: Option<u8>,
    /// The drawn card that must be played — shown to its holder only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drawn_card: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flip_victim: Option<Seat>,
}

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LastCardView {
    pub seat: Seat,
    pub closes_at: Millis,
}

/// What one viewer sees (§H1): their own hand, only the sizes of the other
/// hand and of the deck, and the pile's top card.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct View {
    pub position: String,
    pub white: Seat,
    pub side_to_move: String,
    pub on_move: Seat,
    /// The viewer's own cards (absent for spectators).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hand: Option<Vec<String>>,
    pub hand_sizes: [usize; 2],
    pub deck_size: usize,
    pub discard_top: Option<String>,
    pub discard_size: usize,
    pub named_colour: Option<Colour>,
    pub turn: u32,
    pub round: u32,
    pub phase: PhaseView,
    pub free_flip_available: bool,
    pub last_card: Option<LastCardView>,
}

pub struct FlipChess;

fn side_name(side: Side) -> &'static str {
    match side {
        Side::White => "white",
        Side::Black => "black",
    }
}

/// Every way to play `id` (a Wild in each colour; with and without the
/// "last card!" declaration when it leaves one card).
fn plays(id: u8, hand_len: usize, out: &mut Vec<Action>) {
    let card = Card::of(id);
    let colours: Vec<Option<Colour>> = if card.is_wild() {
        Group::ALL.iter().map(|c| Some(*c)).collect()
    } else {
        vec![None]
    };
    for colour in colours {
        for last_card in [false, true] {
            if last_card && hand_len != 2 {
                continue;
            }
            out.push(Action::Play {
                card: card.name(),
                colour,
                last_card,
            });
        }
    }
}

fn distinct_names(ids: impl Iterator<Item = u8>) -> Vec<u8> {
    let mut seen = Vec::<String>::new();
    ids.filter(|&id| {
        let name = Card::of(id).name();
        let new = !seen.contains(&name);
        seen.push(name);
        new
    })
    .collect()
}

/// Hidden card ids as a JSON array of numbers.
fn ids(cards: &[u8]) -> serde_json::Value {
    serde_json::json!(cards)
}

impl Game for FlipChess {
    const ABOUT: About = About {
        id: "flipchess",
        name: "FlipChess",
        variants: &[],
        modes: &[],
        seats: (2, 2),
        options: &[(
            "position",
            "start from this chess FEN instead of the standard position",
        ), (
            "deal",
            "set each side's hand, the pile's top card and the turns played instead of §F1's deal",
        )],
        // §F9: 80 turns; a turn is at most a draw, a play, three moves, an
        // end, a call, a catch and a flip decision — ample headroom.
        action_cap: 2_000,
        rating: crate::Rating::Pairwise,
        hides: true,
        titles: &[],
    };

    type Config = Config;
    type State = State;
    type Action = Action;
    type Event = Event;
    type View = View;

    /// §F5: round = ⌊turns/2⌋ + 1, skipped turns included.
    fn round(state: &State) -> u32 {
        state.round()
    }

    /// §F7's concession is a departure too: the service reads one the
    /// clock made as an abandonment (docs/rules/rewards.md §R3).
    fn departure(event: &Event) -> Option<(Seat, Departure)> {
        match event {
            Event::Resigned { seat } => Some((*seat, Departure::Resigned)),
            Event::Abandoned { seat } => Some((*seat, Departure::Abandoned)),
            Event::Conceded { seat } => Some((*seat, Departure::Conceded)),
            _ => None,
        }
    }

    /// Resigning, abandoning and the end are not moves of one's own
    /// (a seat with nothing else never played: its match is aborted).
    fn is_own_move(event: &Event) -> bool {
        !matches!(
            event,
            Event::Resigned { .. } | Event::Abandoned { .. } | Event::Finished { .. }
        )
    }

    /// §F1: each player is dealt seven cards only they see.
    fn deals_in_private() -> bool {
        true
    }

    /// A given position is a custom start (issue #30); nothing hidden is
    /// fixed by it.
    /// A `deal` names the hands, which a match must keep hidden (§H1): it
    /// is for lessons and puzzles, never a match between people.
    fn start(config: &Config) -> crate::Start {
        match (&config.deal, &config.position) {
            (Some(_), _) => crate::Start::FixesHidden,
            (None, Some(_)) => crate::Start::Custom,
            (None, None) => crate::Start::Standard,
        }
    }

    fn setup(
        config: &Config,
        seats: usize,
        random: &mut dyn Random,
    ) -> Result<Vec<Event>, RuleError> {
        if seats != 2 {
            return Err(RuleError::malformed("FlipChess is played by two"));
        }
        let board = Board::from_fen(config.position.as_deref().unwrap_or(Board::START))?;
        let white = Seat(random.below(2) as u8);
        let mut deck: Vec<u8> = (0..DECK_SIZE).collect();
        for i in (1..deck.len()).rev() {
            deck.swap(i, random.below(i as u64 + 1) as usize);
        }
        let mut em = turn::Emitter::new(&State::default());
        em.emit(Event::Started {
            white,
            position: board.to_fen(),
            deck_size: deck.len(),
            deck: Some(deck),
            turns: config.deal.as_ref().map_or(0, |d| d.turns),
        });
        let (hands, top) = match &config.deal {
            Some(deal) => dealt(deal, &em.state.deck)?,
            None => usual_deal(&em.state.deck),
        };
        for (seat, cards) in [white, other(white)].into_iter().zip(hands) {
            em.emit(Event::Drew {
                seat,
                count: cards.len(),
                cards: Some(cards),
                reason: "deal".into(),
            });
        }
        em.emit(Event::FirstDiscard { cards: top });
        Ok(em.events)
    }

    fn seats(_config: &Config) -> std::ops::RangeInclusive<usize> {
        2..=2
    }

    fn apply(state: &mut State, event: &Event) -> Result<(), RuleError> {
        state.apply(event)
    }

    fn told(state: &State, event: &Event) -> Option<crate::Told> {
        state.told(event)
    }

    fn act(
        state: &State,
        seat: Seat,
        action: &Action,
        env: &mut Env,
    ) -> Result<Vec<Event>, RuleError> {
        turn::act(state, seat, action, env)
    }

    fn legal_actions(state: &State, seat: Seat) -> Vec<Action> {
        if state.outcome.is_some() || seat.index() > 1 {
            return Vec::new();
        }
        let mut out = Vec::new();
        match state.last_card {
            Some((owner, _)) if owner == seat => out.push(Action::CallLastCard {}),
            Some(_) => out.push(Action::Catch {}),
            None => {}
        }
        let hand = state.hand(seat);
        match state.phase {
            Phase::FlipDecision { victim } if victim == seat => {
                if !state.free_flip_used {
                    out.push(Action::FreeFlip {});
                }
                let flips = hand
                    .iter()
                    .copied()
                    .filter(|&c| Card::of(c).face == cards::Face::Flip);
                for id in distinct_names(flips) {
                    out.push(Action::FlipCard {
                        card: Card::of(id).name(),
                    });
                }
                out.push(Action::Concede {});
            }
            Phase::FlipDecision { .. } => {}
            _ if seat != state.on_move() => {}
            Phase::Play => {
                let playable = distinct_names(hand.iter().copied().filter(|&c| state.playable(c)));
                for id in &playable {
                    plays(*id, hand.len(), &mut out);
                }
                if playable.is_empty() {
                    out.push(Action::Draw {});
                }
            }
            Phase::Drawn { card } => plays(card, hand.len(), &mut out),
            Phase::Moving { colour, .. } => moves_and_end(&state.board, colour, &mut out),
            Phase::BasicMove => moves_and_end(&state.board, Group::Red, &mut out),
        }
        out.push(Action::Resign {});
        out
    }

    fn to_act(state: &State) -> Vec<Duty> {
        if state.outcome.is_some() {
            return Vec::new();
        }
        let mut duties = vec![match state.phase {
            Phase::FlipDecision { victim } => Duty::new(victim, DutyKind::FlipDecision),
            _ => Duty::new(state.on_move(), DutyKind::Turn),
        }];
        if let Some((seat, closes_at)) = state.last_card {
            duties.push(Duty {
                seat,
                kind: DutyKind::LastCard,
                closes_at: Some(closes_at),
            });
        }
        duties
    }

    /// White (as the match started) first.
    fn side(state: &State, seat: Seat) -> usize {
        usize::from(seat != state.started_white)
    }

    fn outcome(state: &State) -> Option<Outcome> {
        state.outcome.clone()
    }

    fn view(state: &State, viewer: Viewer) -> View {
        let me = match viewer {
            Viewer::Seat(s) if s.index() < 2 => Some(s),
            _ => None,
        };
        let phase = match state.phase {
            Phase::Play => PhaseView::named(PhaseKind::Play),
            Phase::Drawn { card } => PhaseView {
                drawn_card: (me == Some(state.on_move())).then(|| Card::of(card).name()),
                ..PhaseView::named(PhaseKind::Drawn)
            },
            Phase::Moving { colour, left } => PhaseView {
                colour: Some(colour),
                moves_left: Some(left),
                ..PhaseView::named(PhaseKind::Moving)
            },
            Phase::BasicMove => PhaseView::named(PhaseKind::BasicMove),
            Phase::FlipDecision { victim } => PhaseView {
                flip_victim: Some(victim),
                ..PhaseView::named(PhaseKind::FlipDecision)
            },
        };
        View {
            position: state.board.to_fen(),
            white: state.white,
            side_to_move: side_name(state.board.side).to_owned(),
            on_move: state.on_move(),
            hand: me.map(|s| state.hand(s).iter().map(|&c| Card::of(c).name()).collect()),
            hand_sizes: [state.hands[0].len(), state.hands[1].len()],
            deck_size: state.deck.len(),
            discard_top: state.top().map(Card::name),
            discard_size: state.discard.len(),
            named_colour: state.named,
            turn: state.turns,
            round: state.round(),
            phase,
            free_flip_available: !state.free_flip_used,
            last_card: state
                .last_card
                .map(|(seat, closes_at)| LastCardView { seat, closes_at }),
        }
    }

    fn redact(event: &Event, viewer: Viewer) -> Event {
        let sees = |seat: &Seat| viewer == Viewer::Seat(*seat);
        let mut e = event.clone();
        match &mut e {
            Event::Started { deck, .. } | Event::Reshuffled { deck, .. } => *deck = None,
            Event::Drew { seat, cards, .. } if !sees(seat) => *cards = None,
            // A played card is face up: every viewer reads its name.
            Event::CardPlayed { card, name, .. } => *name = Some(Card::of(*card).name()),
            Event::Flipped {
                card: Some(card),
                name,
                ..
            } => *name = Some(Card::of(*card).name()),
            _ => {}
        }
        e
    }

    fn expire(state: &State, env: &mut Env) -> Vec<Event> {
        turn::expire(state, env)
    }

    /// §H1: the deck's order, and every hand but the viewer's own: as card
    /// ids (events carry ids: the whole hand and each run of its last cards,
    /// which is what a draw adds) and as names (views show names). Arrays of
    /// one or two numbers are left out: seats and winners look the same.
    fn secrets(state: &State, viewer: Viewer) -> Vec<serde_json::Value> {
        let mut out = Vec::new();
        if state.deck.len() >= 2 {
            out.push(ids(&state.deck));
        }
        for seat in [Seat(0), Seat(1)] {
            if viewer == Viewer::Seat(seat) {
                continue;
            }
            let hand = &state.hands[seat.index()];
            out.extend((0..hand.len().saturating_sub(2)).map(|from| ids(&hand[from..])));
            if hand.len() >= 3 {
                let names: Vec<String> = hand.iter().map(|&c| Card::of(c).name()).collect();
                out.push(serde_json::json!(names));
            }
        }
        out
    }

    /// §F3 single piece moves from a chess FEN, every group, no card.
    fn perft(_config: &Config, position: &str, depth: usize) -> Result<u64, RuleError> {
        Ok(board::perft(&Board::from_fen(position)?, depth))
    }

    fn deadline_passed(state: &State, duty: &Duty) -> Vec<Event> {
        if state.outcome.is_some() {
            return Vec::new();
        }
        match (duty.kind, &state.phase) {
            (DutyKind::FlipDecision, Phase::FlipDecision { victim }) if *victim == duty.seat => {
                vec![
                    Event::Conceded { seat: duty.seat },
                    Event::Finished {
                        result: Outcome::win(vec![other(duty.seat)], "king_captured"),
                    },
                ]
            }
            (DutyKind::Turn, _) if duty.seat == state.on_move() => vec![
                Event::Abandoned { seat: duty.seat },
                Event::Finished {
                    result: Outcome::win(vec![other(duty.seat)], "abandoned"),
                },
            ],
            _ => Vec::new(),
        }
    }
}

/// The moves `group` may make now, and ending the turn early.
fn moves_and_end(board: &Board, group: Group, out: &mut Vec<Action>) {
    let mut moves = Vec::new();
    board.moves(Some(group), &mut moves);
    out.extend(moves.iter().map(|m| Action::Move {
        notation: m.to_string(),
    }));
    out.push(Action::EndTurn {});
}

impl PhaseView {
    fn named(kind: PhaseKind) -> PhaseView {
        PhaseView {
            kind,
            colour: None,
            moves_left: None,
            drawn_card: None,
            flip_victim: None,
        }
    }
}

/// §F1: seven cards each from the top of the shuffled `deck` (White's
/// first), then cards turned until a number card.
fn usual_deal(deck: &[u8]) -> ([Vec<u8>; 2], Vec<u8>) {
    let take = |rest: &mut Vec<u8>, n: usize| -> Vec<u8> {
        let cards = rest.split_off(rest.len() - n);
        cards.into_iter().rev().collect()
    };
    let mut rest = deck.to_vec();
    let hands = [take(&mut rest, HAND_SIZE), take(&mut rest, HAND_SIZE)];
    let turned = cards::first_discard(&rest).unwrap_or(0);
    (hands, take(&mut rest, turned))
}

/// A [`Deal`]'s cards as ids taken from `deck`, each name one copy.
fn dealt(deal: &Deal, deck: &[u8]) -> Result<([Vec<u8>; 2], Vec<u8>), RuleError> {
    if deal.turns >= state::TURN_LIMIT {
        return Err(RuleError::malformed(
            "deal: the turns played end before round 40 (§F9)",
        ));
    }
    let mut left = deck.to_vec();
    let mut take = |name: &str| -> Result<u8, RuleError> {
        let at = left
            .iter()
            .position(|&id| Card::of(id).name() == name)
            .ok_or_else(|| RuleError::malformed(format!("deal: no card {name:?} left")))?;
        Ok(left.remove(at))
    };
    let mut hand = |names: &[String]| {
        names
            .iter()
            .map(|n| take(n))
            .collect::<Result<Vec<u8>, _>>()
    };
    let hands = [hand(&deal.white)?, hand(&deal.black)?];
    let top = take(&deal.top)?;
    if !matches!(Card::of(top).face, cards::Face::Number(_)) {
        return Err(RuleError::malformed(
            "deal: the top card must be a number card (§F1)",
        ));
    }
    Ok((hands, vec![top]))
}
