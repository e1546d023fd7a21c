//! Validating FlipChess actions and producing their facts (docs/rules/flipchess.md §F4–F9).
//!
//! Every fact goes through [`Emitter::emit`], which folds it into a scratch
//! copy of the state at once, so each later decision sees the facts before
//! it — the same fold a replay performs.

use super::board::{Group, Kind, Move};
use super::cards::{Card, Face};
use super::state::{
    other, Action, Event, Phase, State, FLIP_ROUNDS, LAST_CARD_PENALTY, LAST_CARD_WINDOW_MS,
    TURN_LIMIT,
};
use crate::{Env, Millis, Outcome, Random, RuleError, Seat};

pub struct Emitter {
    pub state: State,
    pub events: Vec<Event>,
}

impl Emitter {
    pub fn new(state: &State) -> Emitter {
        Emitter {
            state: state.clone(),
            events: Vec::new(),
        }
    }

    pub fn emit(&mut self, event: Event) {
        // The game's own fresh event always folds (only a stored position
        // that does not parse fails, which `MatchState` reports).
        let folded = self.state.apply(&event);
        debug_assert!(folded.is_ok(), "{folded:?}");
        self.events.push(event);
    }

    fn finish(&mut self, result: Outcome) {
        self.emit(Event::Finished { result });
    }

    /// Draw `n` cards for `seat`, reshuffling the pile when the deck runs
    /// out (§F2); with nothing to reshuffle, a draw yields no card.
    pub fn draw(&mut self, seat: Seat, n: usize, reason: &str, random: &mut dyn Random) {
        let mut cards = Vec::new();
        for _ in 0..n {
            if self.state.deck.len() <= cards.len() {
                if !cards.is_empty() {
                    self.emit(Event::Drew {
                        seat,
                        count: cards.len(),
                        cards: Some(std::mem::take(&mut cards)),
                        reason: reason.into(),
                    });
                }
                let mut pool: Vec<u8> =
                    self.state.discard[..self.state.discard.len().saturating_sub(1)].to_vec();
                if pool.is_empty() {
                    break;
                }
                for i in (1..pool.len()).rev() {
                    pool.swap(i, random.below(i as u64 + 1) as usize);
                }
                self.emit(Event::Reshuffled {
                    count: pool.len(),
                    deck: Some(pool),
                });
            }
            let deck = &self.state.deck;
            cards.push(deck[deck.len() - 1 - cards.len()]);
        }
        if !cards.is_empty() {
            self.emit(Event::Drew {
                seat,
                count: cards.len(),
                cards: Some(cards),
                reason: reason.into(),
            });
        }
    }

    /// §F8: a hand that became exactly one card opens the window, unless
    /// the call came with it.
    fn open_window_if_one(&mut self, seat: Seat, called: bool, now: Millis) {
        if self.state.hand(seat).len() == 1 && !called && self.state.outcome.is_none() {
            self.emit(Event::LastCardWindowOpened {
                seat,
                closes_at: now + LAST_CARD_WINDOW_MS,
            });
        }
    }

    /// End the turn of `seat` (§F5.3–F5.4): the card's effect, a pending
    /// flip decision, the next turn (or its skip) and the round-40 judgement.
    pub fn end_turn(&mut self, seat: Seat, reason: &str, env: &mut Env) {
        let opponent = other(seat);
        let played = self.state.played.map(Card::of);
        self.emit(Event::TurnEnded {
            seat,
            reason: reason.into(),
            next: opponent,
        });
        let mut skip = false;
        match played.map(|c| c.face) {
            Some(Face::DrawTwo) => self.draw(opponent, 2, "draw2", env.random),
            Some(Face::WildDrawFour) => {
                self.draw(opponent, 4, "draw4", env.random);
                skip = true;
            }
            Some(Face::Skip) => skip = true,
            Some(Face::Number(0)) => {
                self.emit(Event::HandsExchanged { seat });
                for s in [seat, opponent] {
                    self.open_window_if_one(s, false, env.now);
                }
            }
            _ => {}
        }
        if self.state.before_capture.is_some() {
            // §F7: the capture stands until the victim decides.
            self.emit(Event::FlipDecisionOwed {
                seat: opponent,
                capturer: seat,
            });
            return;
        }
        if skip {
            self.emit(Event::TurnSkipped { seat: opponent });
        }
        self.judge_round_limit();
    }

    /// §F9: when round 40 ends, material, then fewer cards, then a draw.
    fn judge_round_limit(&mut self) {
        if self.state.turns < TURN_LIMIT || self.state.outcome.is_some() {
            return;
        }
        let s = &self.state;
        let score = |seat: Seat| s.board.material(s.side_of(seat));
        let (a, b) = (Seat(0), Seat(1));
        let winner = match score(a).cmp(&score(b)) {
            std::cmp::Ordering::Greater => Some(a),
            std::cmp::Ordering::Less => Some(b),
            std::cmp::Ordering::Equal => match s.hand(a).len().cmp(&s.hand(b).len()) {
                std::cmp::Ordering::Less => Some(a),
                std::cmp::Ordering::Greater => Some(b),
                std::cmp::Ordering::Equal => None,
            },
        };
        let scores = Some(vec![score(a) as f64, score(b) as f64]);
        let mut result = match winner {
            Some(w) => Outcome::win(vec![w], "round_limit"),
            None => Outcome::draw("round_limit"),
        };
        result.scores = scores;
        self.finish(result);
    }

    /// After a move or a card: end the turn when nothing is left to do.
    fn after_step(&mut self, seat: Seat, env: &mut Env) {
        if self.state.outcome.is_some() {
            return;
        }
        if self.state.before_capture.is_some() {
            return self.end_turn(seat, "king_captured", env);
        }
        let group = match self.state.phase {
            Phase::Moving { left: 0, .. } => return self.end_turn(seat, "moves_used", env),
            Phase::Moving { colour, .. } => colour,
            Phase::BasicMove => Group::Red,
            _ => return,
        };
        let mut moves = Vec::new();
        self.state.board.moves(Some(group), &mut moves);
        if moves.is_empty() {
            self.end_turn(seat, "no_legal_move", env);
        }
    }
}

fn illegal(why: impl Into<String>) -> RuleError {
    RuleError::illegal(why)
}

/// The card named `name` in `seat`'s hand.
fn card_in_hand(state: &State, seat: Seat, name: &str) -> Result<u8, RuleError> {
    state
        .find_in_hand(seat, name)
        .ok_or_else(|| illegal(format!("you hold no {name}")))
}

pub fn act(
    state: &State,
    seat: Seat,
    action: &Action,
    env: &mut Env,
) -> Result<Vec<Event>, RuleError> {
    if state.outcome.is_some() {
        return Err(RuleError::finished());
    }
    if seat.index() > 1 {
        return Err(illegal("there is no such seat in FlipChess"));
    }
    let mut em = Emitter::new(state);
    match action {
        Action::Resign {} => {
            em.emit(Event::Resigned { seat });
            em.finish(Outcome::win(vec![other(seat)], "resigned"));
        }
        Action::CallLastCard {} => match state.last_card {
            Some((owner, _)) if owner == seat => em.emit(Event::LastCardCalled { seat }),
            _ => return Err(illegal("you have no \"last card!\" to call now")),
        },
        Action::Catch {} => match state.last_card {
            Some((owner, _)) if owner == other(seat) => {
                em.emit(Event::Caught {
                    seat,
                    target: owner,
                });
                em.draw(owner, LAST_CARD_PENALTY, "last_card_penalty", env.random);
            }
            _ => return Err(illegal("there is nobody to catch")),
        },
        Action::FreeFlip {} | Action::FlipCard { .. } | Action::Concede {} => {
            decide_flip(&mut em, seat, action)?
        }
        Action::Play { .. } | Action::Move { .. } | Action::EndTurn {} | Action::Draw {} => {
            if !matches!(state.phase, Phase::FlipDecision { .. }) && seat != state.on_move() {
                return Err(RuleError::not_your_turn());
            }
            turn_step(&mut em, seat, action, env)?;
        }
    }
    Ok(em.events)
}

fn turn_step(
    em: &mut Emitter,
    seat: Seat,
    action: &Action,
    env: &mut Env,
) -> Result<(), RuleError> {
    let state = em.state.clone();
    match (&state.phase, action) {
        (Phase::FlipDecision { .. }, _) => Err(illegal("the flip decision comes first")),
        (
            Phase::Play | Phase::Drawn { .. },
            Action::Play {
                card,
                colour,
                last_card,
            },
        ) => {
            let id = card_in_hand(&state, seat, card)?;
            if let Phase::Drawn { card: drawn } = state.phase {
                if Card::of(drawn).name() != Card::of(id).name() {
                    return Err(illegal(
                        "the card you drew is playable and must be played (§F6)",
                    ));
                }
            }
            play_card(em, seat, id, *colour, *last_card, env)
        }
        (Phase::Play, Action::Draw {}) => {
            if state.hand(seat).iter().any(|&c| state.playable(c)) {
                return Err(illegal(
                    "you hold a playable card: play it instead of drawing (§F6)",
                ));
            }
            let before = em.events.len();
            em.draw(seat, 1, "no_playable_card", env.random);
            if !em.events[before..]
                .iter()
                .any(|e| matches!(e, Event::Drew { .. }))
            {
                // Nothing left to draw (§F2): the draw yields no card.
                em.emit(Event::Drew {
                    seat,
                    cards: Some(Vec::new()),
                    count: 0,
                    reason: "no_playable_card".into(),
                });
            }
            // The fold decides: the drawn card must be played if it can be,
            // else one basic move (§F6).
            em.after_step(seat, env);
            Ok(())
        }
        (Phase::Moving { colour, .. }, Action::Move { notation }) => {
            let mv = state.board.find_move(notation, Some(*colour))?;
            move_piece(em, seat, mv, env);
            Ok(())
        }
        (Phase::BasicMove, Action::Move { notation }) => {
            let mv = state
                .board
                .find_move(notation, Some(Group::Red))
                .map_err(|_| {
                    illegal(format!(
                        "{notation}: after drawing, only a pawn or the king may move once (§F6)"
                    ))
                })?;
            move_piece(em, seat, mv, env);
            Ok(())
        }
        (Phase::Moving { .. } | Phase::BasicMove, Action::EndTurn {}) => {
            em.end_turn(seat, "ended", env);
            Ok(())
        }
        (Phase::Play, Action::Move { .. } | Action::EndTurn {}) => {
            Err(illegal("play a card first (or draw if none is playable)"))
        }
        (Phase::Drawn { .. }, _) => Err(illegal(
            "the card you drew is playable and must be played (§F6)",
        )),
        (Phase::Moving { .. } | Phase::BasicMove, _) => Err(illegal(
            "you have already played this turn: move or end the turn",
        )),
        (Phase::Play, _) => Err(illegal("that is not possible now")),
    }
}

fn play_card(
    em: &mut Emitter,
    seat: Seat,
    id: u8,
    colour: Option<super::cards::Colour>,
    last_card: bool,
    env: &mut Env,
) -> Result<(), RuleError> {
    let card = Card::of(id);
    if !em.state.playable(id) {
        let top = em.state.top().map(|c| c.name()).unwrap_or_default();
        return Err(illegal(format!(
            "{} does not match {top} (§F4)",
            card.name()
        )));
    }
    match (card.is_wild(), colour) {
        (true, None) => return Err(illegal("name a colour for a Wild (§F4)")),
        (false, Some(_)) => return Err(RuleError::malformed("only a Wild takes a colour")),
        _ => {}
    }
    let left = em.state.hand(seat).len() - 1;
    if last_card && left != 1 {
        return Err(illegal(
            "\"last card!\" is declared with the play that leaves one card",
        ));
    }
    em.emit(Event::CardPlayed {
        seat,
        card: id,
        colour,
        last_card,
        name: None,
    });
    if left == 0 {
        // §F9: the hand win comes before any move or effect.
        em.finish(Outcome::win(vec![seat], "hand_emptied"));
        return Ok(());
    }
    em.open_window_if_one(seat, last_card, env.now);
    if card.face == Face::Flip {
        // §F7: sides exchanged; it is the opponent's turn at once.
        em.emit(Event::TurnEnded {
            seat,
            reason: "flip".into(),
            next: other(seat),
        });
        em.judge_round_limit();
        return Ok(());
    }
    em.after_step(seat, env);
    Ok(())
}

fn move_piece(em: &mut Emitter, seat: Seat, mv: Move, env: &mut Env) {
    let captured =
        em.state.board.squares[mv.to as usize].filter(|_| !em.state.board.is_castle(&mv));
    em.emit(Event::Moved {
        seat,
        notation: mv.to_string(),
        captured: captured.map(|p| format!("{:?}", p.kind).to_lowercase()),
    });
    if captured.is_some_and(|p| p.kind == Kind::King) && em.state.round() > FLIP_ROUNDS {
        // §F7: from round 4 a king capture ends the match at once.
        em.finish(Outcome::win(vec![seat], "king_captured"));
        return;
    }
    em.after_step(seat, env);
}

fn decide_flip(em: &mut Emitter, seat: Seat, action: &Action) -> Result<(), RuleError> {
    let Phase::FlipDecision { victim } = em.state.phase else {
        return Err(illegal("there is no flip decision to make"));
    };
    if victim != seat {
        return Err(RuleError::not_your_turn());
    }
    match action {
        Action::FreeFlip {} => {
            if em.state.free_flip_used {
                return Err(illegal(
                    "the free flip has already been used in this match (§F7)",
                ));
            }
            em.emit(Event::Flipped {
                seat,
                with: "free".into(),
                card: None,
                name: None,
            });
        }
        Action::FlipCard { card } => {
            let id = card_in_hand(&em.state, seat, card)?;
            if Card::of(id).face != Face::Flip {
                return Err(illegal("only a Flip card saves the king"));
            }
            em.emit(Event::Flipped {
                seat,
                with: "card".into(),
                card: Some(id),
                name: None,
            });
            if em.state.hand(seat).is_empty() {
                em.finish(Outcome::win(vec![seat], "hand_emptied"));
            }
            // A Flip card that leaves one card counts as the call (§F7).
        }
        _ => {
            em.emit(Event::Conceded { seat });
            em.finish(Outcome::win(vec![other(seat)], "king_captured"));
        }
    }
    Ok(())
}

/// §F8: a window that has closed by `env.now` costs its seat two cards.
pub fn expire(state: &State, env: &mut Env) -> Vec<Event> {
    let mut em = Emitter::new(state);
    if let Some((seat, closes_at)) = state.last_card {
        if env.now >= closes_at && state.outcome.is_none() {
            em.emit(Event::LastCardMissed { seat });
            em.draw(seat, LAST_CARD_PENALTY, "last_card_penalty", env.random);
        }
    }
    em.events
}
