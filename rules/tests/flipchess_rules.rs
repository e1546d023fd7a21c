//! FlipChess, one test per clause of docs/rules/flipchess.md §F5–F9 (the board's §F3 and
//! the cards' §F2–F4 are tested beside them).

use posthorn_rules::flipchess::board::{Group, Side};
use posthorn_rules::flipchess::cards::{Card, DECK_SIZE};
use posthorn_rules::flipchess::{Action, Event, FlipChess, Phase, State};
use posthorn_rules::{Duty, DutyKind, Env, Game, RuleError, Seat, SplitMix64, Viewer};

const A: Seat = Seat(0);
const B: Seat = Seat(1);
const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

struct Table {
    state: State,
    now: i64,
    random: SplitMix64,
}

/// A table where A plays White and is to move, with these hands and this
/// top card; the rest of the deck in id order (its top is the last).
fn table(position: &str, hand_a: &[&str], hand_b: &[&str], top: &str) -> Table {
    let mut used = Vec::new();
    let mut take = |name: &str| {
        let id = (0..DECK_SIZE)
            .find(|&i| !used.contains(&i) && Card::of(i).name() == name)
            .unwrap_or_else(|| panic!("no card {name} left"));
        used.push(id);
        id
    };
    let hands = [
        hand_a.iter().map(|n| take(n)).collect(),
        hand_b.iter().map(|n| take(n)).collect(),
    ];
    let discard = vec![take(top)];
    let deck = (0..DECK_SIZE).filter(|i| !used.contains(i)).collect();
    let mut state = State::default();
    FlipChess::apply(
        &mut state,
        &Event::Started {
            white: A,
            position: position.into(),
            deck: Some(Vec::new()),
            deck_size: 0,
            turns: 0,
        },
    )
    .unwrap();
    state.hands = hands;
    state.discard = discard;
    state.deck = deck;
    Table {
        state,
        now: 1_000_000,
        random: SplitMix64::new(3),
    }
}

fn play(card: &str) -> Action {
    Action::Play {
        card: card.into(),
        colour: None,
        last_card: false,
    }
}

fn mv(notation: &str) -> Action {
    Action::Move {
        notation: notation.into(),
    }
}

impl Table {
    fn act(&mut self, seat: Seat, action: Action) -> Result<Vec<Event>, RuleError> {
        let mut env = Env {
            now: self.now,
            random: &mut self.random,
        };
        let events = FlipChess::act(&self.state, seat, &action, &mut env)?;
        for e in &events {
            FlipChess::apply(&mut self.state, e).unwrap();
        }
        Ok(events)
    }

    fn ok(&mut self, seat: Seat, action: Action) -> Vec<Event> {
        let text = format!("{action:?}");
        self.act(seat, action)
            .unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn expire_at(&mut self, now: i64) -> Vec<Event> {
        self.now = now;
        let mut env = Env {
            now,
            random: &mut self.random,
        };
        let events = FlipChess::expire(&self.state, &mut env);
        for e in &events {
            FlipChess::apply(&mut self.state, e).unwrap();
        }
        events
    }

    /// Move a card of this name from the deck to its top; its id.
    fn put_on_deck(&mut self, name: &str) -> u8 {
        let deck = &mut self.state.deck;
        let at = deck
            .iter()
            .rposition(|&i| Card::of(i).name() == name)
            .expect(name);
        let id = deck.remove(at);
        deck.push(id);
        id
    }

    fn hand_len(&self, seat: Seat) -> usize {
        self.state.hands[seat.index()].len()
    }

    fn reason(&self) -> Option<String> {
        self.state.outcome.as_ref().map(|o| o.reason.clone())
    }

    fn winners(&self) -> Vec<Seat> {
        self.state
            .outcome
            .as_ref()
            .map(|o| o.winners.clone())
            .unwrap_or_default()
    }
}

#[test]
fn f1_setup_deals_seven_each_and_turns_to_a_number_card() {
    let events = FlipChess::setup(&Default::default(), 2, &mut SplitMix64::new(9)).unwrap();
    let mut state = State::default();
    for e in &events {
        FlipChess::apply(&mut state, e).unwrap();
    }
    assert_eq!((state.hands[0].len(), state.hands[1].len()), (7, 7));
    let top = Card::of(*state.discard.last().unwrap());
    assert!(matches!(
        top.face,
        posthorn_rules::flipchess::cards::Face::Number(_)
    ));
    assert_eq!(state.deck.len() + state.discard.len(), 108 - 14);
    assert_eq!(state.board.side, Side::White);
    assert_eq!(state.on_move(), state.white, "White moves first");
}

#[test]
fn f5_a_turn_is_one_card_then_up_to_its_moves_and_captures_do_not_end_it() {
    let mut t = table(
        "4k3/8/8/3p4/8/8/4P3/4K3 w - - 0 1",
        &["red-4", "blue-1"],
        &["green-1"],
        "red-2",
    );
    t.ok(A, play("red-4"));
    assert_eq!(
        t.state.phase,
        Phase::Moving {
            colour: Group::Red,
            left: 2
        }
    );
    assert_eq!(
        t.act(A, play("blue-1")).unwrap_err().code,
        "illegal_action",
        "one card per turn"
    );
    assert_eq!(
        t.act(A, mv("e8d8")).unwrap_err().code,
        "illegal_action",
        "only its own side"
    );
    t.ok(A, mv("e2e4"));
    t.ok(A, mv("e4d5")); // a capture, and the last move
    assert_eq!(t.state.on_move(), B, "two moves used: the turn ended");
    assert_eq!(t.state.turns, 1);
}

#[test]
fn f5_the_turn_may_end_early_and_passes_when_the_group_cannot_move() {
    let mut t = table(
        "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
        &["red-7", "blue-5"],
        &["green-1", "blue-2"],
        "red-2",
    );
    t.ok(A, play("red-7"));
    t.ok(A, mv("e2e3"));
    t.ok(A, Action::EndTurn {});
    assert_eq!(t.state.on_move(), B);
    // No knight or bishop, and the king boxed in by its own pieces: a
    // yellow card moves nothing, so the turn passes at once.
    let mut t = table(
        "7k/8/8/8/8/8/PP6/KR6 w - - 0 1",
        &["yellow-7", "red-1"],
        &["green-1"],
        "yellow-2",
    );
    let events = t.ok(A, play("yellow-7"));
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::TurnEnded { reason, .. } if reason == "no_legal_move")));
    assert_eq!(t.state.on_move(), B);
}

#[test]
fn f5_draw2_makes_the_opponent_draw_two_after_the_turn() {
    let mut t = table(START, &["red-draw2", "blue-1"], &["green-1"], "red-2");
    t.ok(A, play("red-draw2"));
    assert_eq!(t.hand_len(B), 1, "nothing until the turn ends");
    t.ok(A, mv("e2e4"));
    assert_eq!(t.hand_len(B), 3);
    assert_eq!(t.state.on_move(), B);
}

#[test]
fn f5_wild_draw4_draws_four_and_skips_and_the_skip_counts_as_a_turn() {
    let mut t = table(START, &["wild-draw4", "blue-1"], &["green-1"], "red-2");
    let err = t.act(A, play("wild-draw4")).unwrap_err();
    assert!(err.message.contains("colour"), "a Wild needs a colour");
    t.ok(
        A,
        Action::Play {
            card: "wild-draw4".into(),
            colour: Some(Group::Red),
            last_card: false,
        },
    );
    assert_eq!(t.state.named, Some(Group::Red));
    t.ok(A, mv("d2d4"));
    assert_eq!(t.hand_len(B), 5);
    assert_eq!(t.state.on_move(), A, "B's turn was skipped");
    assert_eq!(t.state.turns, 2, "the skipped turn counts");
    assert_eq!(t.state.round(), 2);
}

#[test]
fn f5_skip_skips_the_opponents_next_turn() {
    let mut t = table(START, &["green-skip", "blue-1"], &["green-1"], "green-2");
    t.ok(A, play("green-skip"));
    // Green: rooks are blocked; the king too — automatic pass, then the skip.
    assert_eq!(t.state.on_move(), A);
    assert_eq!(t.state.turns, 2);
}

#[test]
fn f5_zero_exchanges_the_hands_after_the_turn() {
    let mut t = table(
        START,
        &["red-0", "blue-1", "blue-2"],
        &["green-1", "green-2", "green-3", "green-4"],
        "red-2",
    );
    t.ok(A, play("red-0"));
    t.ok(A, mv("e2e4"));
    let names = |t: &Table, s: Seat| {
        t.state.hands[s.index()]
            .iter()
            .map(|&c| Card::of(c).name())
            .collect::<Vec<_>>()
    };
    assert_eq!(names(&t, A), ["green-1", "green-2", "green-3", "green-4"]);
    assert_eq!(names(&t, B), ["blue-1", "blue-2"]);
}

#[test]
fn f6_drawing_is_refused_while_a_playable_card_is_held() {
    let mut t = table(START, &["red-5", "blue-1"], &["green-1"], "red-2");
    let err = t.act(A, Action::Draw {}).unwrap_err();
    assert!(err.message.contains("playable"));
}

#[test]
fn f6_a_playable_drawn_card_must_be_played_and_only_it() {
    // A holds nothing that matches red-2; the deck's top card is red-9.
    let mut t = table(START, &["blue-5", "blue-1"], &["green-1"], "red-2");
    let red9 = t.put_on_deck("red-9");
    t.ok(A, Action::Draw {});
    assert_eq!(t.state.phase, Phase::Drawn { card: red9 });
    let listed = FlipChess::legal_actions(&t.state, A);
    assert!(listed.contains(&play("red-9")) && !listed.contains(&Action::EndTurn {}));
    assert_eq!(
        t.act(A, Action::EndTurn {}).unwrap_err().code,
        "illegal_action"
    );
    t.ok(A, play("red-9"));
    assert_eq!(
        t.state.phase,
        Phase::Moving {
            colour: Group::Red,
            left: 3
        }
    );
}

#[test]
fn f6_otherwise_one_basic_move_of_a_pawn_or_the_king_which_may_be_declined() {
    let mut t = table(START, &["blue-5", "blue-1"], &["green-1"], "red-2");
    t.put_on_deck("blue-9");
    t.ok(A, Action::Draw {});
    assert_eq!(t.state.phase, Phase::BasicMove);
    assert_eq!(
        t.act(A, mv("g1f3")).unwrap_err().code,
        "illegal_action",
        "a knight is not a basic move"
    );
    t.ok(A, mv("e2e4"));
    assert_eq!(t.state.on_move(), B, "one move only");
    // Declining: draw, then end the turn without moving.
    let mut t = table(START, &["blue-5", "blue-1"], &["green-1"], "red-2");
    t.put_on_deck("blue-9");
    t.ok(A, Action::Draw {});
    t.ok(A, Action::EndTurn {});
    assert_eq!(t.state.on_move(), B);
}

#[test]
fn f6_with_no_pawn_or_king_move_the_turn_passes() {
    // Pawns blocked by their own knights, the king boxed in.
    let mut t = table(
        "4k3/8/8/8/8/NN6/PP6/KN6 w - - 0 1",
        &["blue-5", "blue-1"],
        &["green-1"],
        "red-2",
    );
    t.put_on_deck("blue-9");
    let events = t.ok(A, Action::Draw {});
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::TurnEnded { reason, .. } if reason == "no_legal_move")));
}

#[test]
fn f9_playing_the_last_card_wins_before_any_move_or_effect() {
    let mut t = table(START, &["red-draw2"], &["green-1"], "red-2");
    t.ok(A, play("red-draw2"));
    assert_eq!(t.reason().as_deref(), Some("hand_emptied"));
    assert_eq!(t.winners(), vec![A]);
    assert_eq!(t.hand_len(B), 1, "no effect");
}

#[test]
fn f7_a_flip_card_played_normally_exchanges_the_sides_and_the_opponent_must_match_it() {
    let mut t = table(
        START,
        &["red-flip", "blue-1"],
        &["green-flip", "blue-7"],
        "red-2",
    );
    t.ok(A, play("red-flip"));
    assert_eq!(t.state.white, B, "B now plays White");
    assert_eq!(t.state.board.side, Side::White, "no piece moved");
    assert_eq!(t.state.on_move(), B);
    assert!(FlipChess::legal_actions(&t.state, B).contains(&play("green-flip")));
    assert_eq!(t.act(B, play("blue-7")).unwrap_err().code, "illegal_action");
}

/// A captures Black's king on its first turn (round 1): queen e2 takes e8.
fn king_capture(hand_b: &[&str]) -> Table {
    let mut t = table(
        "4k3/8/8/8/8/8/4Q3/5K2 w - - 0 1",
        &["blue-1", "red-3", "red-5"],
        hand_b,
        "blue-2",
    );
    t.ok(A, play("blue-1"));
    t.ok(A, mv("e2e8"));
    t
}

#[test]
fn f7_king_capture_in_rounds_1_to_3_owes_the_victim_a_decision() {
    let t = king_capture(&["green-1"]);
    assert_eq!(t.state.phase, Phase::FlipDecision { victim: B });
    assert_eq!(
        FlipChess::to_act(&t.state),
        vec![Duty::new(B, DutyKind::FlipDecision)]
    );
    assert!(t.state.outcome.is_none());
    let listed = FlipChess::legal_actions(&t.state, B);
    assert!(listed.contains(&Action::FreeFlip {}) && listed.contains(&Action::Concede {}));
}

#[test]
fn f7_free_flip_takes_back_the_capture_exchanges_sides_and_the_capturer_moves_again() {
    let mut t = king_capture(&["green-1", "green-2"]);
    assert!(matches!(t.state.phase, Phase::FlipDecision { victim } if victim == B));
    t.ok(B, Action::FreeFlip {});
    let fen = t.state.board.to_fen();
    assert!(
        fen.starts_with("4k3/8/8/8/8/8/4Q3/5K2 b"),
        "only the capture is taken back: {fen}"
    );
    assert_eq!(t.state.white, B, "sides exchanged");
    assert_eq!(
        t.state.on_move(),
        A,
        "the capturer moves next, now with Black"
    );
    assert_eq!(t.state.board.side, Side::Black);
    assert_eq!((t.hand_len(A), t.hand_len(B)), (2, 2), "hands kept");
    // Once per match for both players together.
    assert!(t.state.free_flip_used);
    assert!(!FlipChess::legal_actions(&t.state, B).contains(&Action::FreeFlip {}));
}

#[test]
fn f7_the_free_flip_is_refused_once_used() {
    let mut t = king_capture(&["green-1", "green-2"]);
    t.state.free_flip_used = true;
    let err = t.act(B, Action::FreeFlip {}).unwrap_err();
    assert!(err.message.contains("already been used"), "{}", err.message);
}

#[test]
fn f7_a_flip_card_from_hand_saves_the_king_and_binds_the_next_card() {
    let mut t = king_capture(&["yellow-flip", "green-2", "green-3"]);
    t.ok(
        B,
        Action::FlipCard {
            card: "yellow-flip".into(),
        },
    );
    assert_eq!(
        Card::of(*t.state.discard.last().unwrap()).name(),
        "yellow-flip"
    );
    assert_eq!(t.hand_len(B), 2);
    assert_eq!(t.state.on_move(), A);
    assert!(!t.state.free_flip_used, "a card flip leaves the free flip");
}

#[test]
fn f7_a_flip_card_as_the_last_card_wins_by_hand() {
    let mut t = king_capture(&["yellow-flip"]);
    t.ok(
        B,
        Action::FlipCard {
            card: "yellow-flip".into(),
        },
    );
    assert_eq!(
        (t.reason().as_deref(), t.winners()),
        (Some("hand_emptied"), vec![B])
    );
}

#[test]
fn f7_a_flip_card_leaving_one_card_counts_as_the_call() {
    let mut t = king_capture(&["yellow-flip", "green-2"]);
    t.ok(
        B,
        Action::FlipCard {
            card: "yellow-flip".into(),
        },
    );
    assert_eq!(t.state.last_card, None, "no window: the call is made");
}

#[test]
fn f7_conceding_lets_the_capture_stand() {
    let mut t = king_capture(&["green-1"]);
    t.ok(B, Action::Concede {});
    assert_eq!(
        (t.reason().as_deref(), t.winners()),
        (Some("king_captured"), vec![A])
    );
}

#[test]
fn f7_from_round_4_a_king_capture_ends_the_match() {
    let mut t = table(
        "4k2Q/8/8/8/8/8/8/4K3 w - - 0 1",
        &["blue-1", "red-3"],
        &["green-1"],
        "blue-2",
    );
    t.state.turns = 6; // round 4
    t.ok(A, play("blue-1"));
    t.ok(A, mv("h8e8"));
    assert_eq!(
        (t.reason().as_deref(), t.winners()),
        (Some("king_captured"), vec![A])
    );
}

#[test]
fn f8_last_card_declared_with_the_play_opens_no_window() {
    let mut t = table(
        START,
        &["red-5", "blue-1"],
        &["green-1", "green-2"],
        "red-2",
    );
    t.ok(
        A,
        Action::Play {
            card: "red-5".into(),
            colour: None,
            last_card: true,
        },
    );
    assert_eq!(t.state.last_card, None);
    let mut t = table(START, &["red-5", "blue-1", "blue-2"], &["green-1"], "red-2");
    let err = t
        .act(
            A,
            Action::Play {
                card: "red-5".into(),
                colour: None,
                last_card: true,
            },
        )
        .unwrap_err();
    assert_eq!(
        err.code, "illegal_action",
        "only with the play that leaves one card"
    );
}

#[test]
fn f8_a_missed_call_costs_two_cards_after_three_seconds() {
    let mut t = table(
        START,
        &["red-5", "blue-1"],
        &["green-1", "green-2"],
        "red-2",
    );
    t.ok(A, play("red-5"));
    let (seat, closes_at) = t.state.last_card.unwrap();
    assert_eq!((seat, closes_at), (A, t.now + 3_000));
    assert!(FlipChess::to_act(&t.state)
        .iter()
        .any(|d| d.kind == DutyKind::LastCard && d.closes_at == Some(closes_at)));
    assert!(t.expire_at(closes_at - 1).is_empty());
    let events = t.expire_at(closes_at);
    assert!(matches!(events[0], Event::LastCardMissed { seat } if seat == A));
    assert_eq!(t.hand_len(A), 3);
    assert!(t.expire_at(closes_at + 10_000).is_empty(), "once");
}

#[test]
fn f8_calling_within_the_window_avoids_the_penalty() {
    let mut t = table(
        START,
        &["red-5", "blue-1"],
        &["green-1", "green-2"],
        "red-2",
    );
    t.ok(A, play("red-5"));
    t.now += 2_000;
    t.ok(A, Action::CallLastCard {});
    assert!(t.expire_at(t.now + 5_000).is_empty());
    assert_eq!(t.hand_len(A), 1);
}

#[test]
fn f8_the_opponent_may_catch_during_the_window() {
    let mut t = table(
        START,
        &["red-5", "blue-1"],
        &["green-1", "green-2"],
        "red-2",
    );
    t.ok(A, play("red-5"));
    assert!(FlipChess::legal_actions(&t.state, B).contains(&Action::Catch {}));
    let events = t.ok(B, Action::Catch {});
    assert!(matches!(events[0], Event::Caught { seat, target } if seat == B && target == A));
    assert_eq!(t.hand_len(A), 3, "penalty at once");
    assert_eq!(
        t.act(B, Action::Catch {}).unwrap_err().code,
        "illegal_action"
    );
}

#[test]
fn f8_a_one_card_hand_received_through_a_zero_opens_a_window() {
    let mut t = table(START, &["red-0", "blue-1", "blue-2"], &["green-1"], "red-2");
    t.ok(A, play("red-0"));
    t.ok(A, mv("e2e4"));
    assert_eq!(t.hand_len(A), 1, "A received B's one card");
    assert_eq!(t.state.last_card.map(|w| w.0), Some(A));
}

#[test]
fn f9_round_40_material_then_fewer_cards_then_draw() {
    // White (A) has a queen more.
    let mut t = table(
        "4k3/8/8/8/8/8/8/Q3K3 w - - 0 1",
        &["red-3", "blue-1"],
        &["green-1"],
        "red-2",
    );
    t.state.turns = 79;
    t.ok(A, play("red-3"));
    t.ok(A, mv("e1e2"));
    let o = t.state.outcome.clone().unwrap();
    assert_eq!((o.reason.as_str(), o.winners), ("round_limit", vec![A]));
    assert_eq!(o.scores, Some(vec![9.0, 0.0]));
    // Equal material: fewer cards wins.
    let mut t = table(
        "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
        &["red-3", "blue-1", "blue-2"],
        &["green-1"],
        "red-2",
    );
    t.state.turns = 79;
    t.ok(A, play("red-3"));
    t.ok(A, mv("e1e2"));
    assert_eq!(t.winners(), vec![B]);
    // Equal material and cards: a draw.
    let mut t = table(
        "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
        &["red-3", "blue-1", "blue-2"],
        &["green-1", "green-2"],
        "red-2",
    );
    t.state.turns = 79;
    t.ok(A, play("red-3"));
    t.ok(A, mv("e1e2"));
    let o = t.state.outcome.clone().unwrap();
    assert_eq!((o.reason.as_str(), o.winners.len()), ("round_limit", 0));
}

#[test]
fn h1_views_show_only_the_viewers_own_hand() {
    let t = table(
        START,
        &["red-5", "blue-1"],
        &["green-1", "green-2", "wild"],
        "red-2",
    );
    let a = serde_json::to_value(FlipChess::view(&t.state, Viewer::Seat(A))).unwrap();
    assert_eq!(a["hand"], serde_json::json!(["red-5", "blue-1"]));
    assert_eq!(a["hand_sizes"], serde_json::json!([2, 3]));
    let text = a.to_string();
    assert!(
        !text.contains("green-1") && !text.contains("wild"),
        "{text}"
    );
    let spectator = serde_json::to_value(FlipChess::view(&t.state, Viewer::Spectator)).unwrap();
    assert!(spectator.get("hand").is_none());
}

#[test]
fn resignation_and_out_of_turn() {
    let mut t = table(START, &["red-5", "blue-1"], &["green-1"], "red-2");
    assert_eq!(
        t.act(B, play("green-1")).unwrap_err(),
        RuleError::not_your_turn()
    );
    t.ok(B, Action::Resign {});
    assert_eq!(
        (t.reason().as_deref(), t.winners()),
        (Some("resigned"), vec![A])
    );
}

#[test]
fn f2_an_empty_deck_is_refilled_from_the_pile_but_its_top_card() {
    let mut t = table(START, &["red-draw2", "blue-1"], &["green-1"], "red-2");
    // Move all but two deck cards onto the pile under its top card.
    let top = t.state.discard.pop().unwrap();
    let keep = t.state.deck.split_off(t.state.deck.len() - 1);
    t.state.discard.append(&mut t.state.deck);
    t.state.discard.push(top);
    t.state.deck = keep;
    let pile_before = t.state.discard.len();
    t.ok(A, play("red-draw2"));
    let events = t.ok(A, mv("e2e4"));
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Reshuffled { count, .. } if *count == pile_before)),
        "{events:?}"
    );
    assert_eq!(t.hand_len(B), 3, "both cards drawn across the reshuffle");
    assert_eq!(
        Card::of(*t.state.discard.last().unwrap()).name(),
        "red-draw2",
        "the top card stays"
    );
    assert_eq!(t.state.discard.len(), 1);
}

#[test]
fn f2_with_nothing_to_reshuffle_a_draw_yields_no_card() {
    let mut t = table(START, &["blue-5", "blue-1"], &["green-1"], "red-2");
    t.state.deck.clear();
    let events = t.ok(A, Action::Draw {});
    assert!(
        matches!(&events[0], Event::Drew { count: 0, .. }),
        "{events:?}"
    );
    assert_eq!(t.hand_len(A), 2);
    assert_eq!(t.state.phase, Phase::BasicMove);
}

#[test]
fn f7_the_capturers_new_turn_uses_up_the_skip_of_the_capturing_card() {
    // A takes the king with a rook on a green Skip; B flips.
    let mut t = table(
        "4k3/8/8/8/8/8/8/4R1K1 w - - 0 1",
        &["green-skip", "green-3", "red-5"],
        &["green-1", "green-2"],
        "green-2",
    );
    t.ok(A, play("green-skip"));
    t.ok(A, mv("e1e8"));
    assert_eq!(t.state.turns, 1);
    t.ok(B, Action::FreeFlip {});
    assert_eq!(t.state.on_move(), A, "the capturer's new turn");
    assert_eq!(t.state.turns, 1, "the decision is not a turn");
    t.ok(A, play("green-3"));
    t.ok(A, Action::EndTurn {});
    assert_eq!(t.state.on_move(), B, "the victim is not skipped again");
    assert_eq!(t.state.turns, 2);
}

#[test]
fn t4_the_flip_decision_follows_the_deadline_and_lapses_as_a_concession() {
    let t = king_capture(&["green-1"]);
    let events = FlipChess::deadline_passed(&t.state, &Duty::new(B, DutyKind::FlipDecision));
    assert!(matches!(events[0], Event::Conceded { seat } if seat == B));
    assert!(matches!(&events[1], Event::Finished { result } if result.winners == vec![A]));
    let events = FlipChess::deadline_passed(&t.state, &Duty::new(A, DutyKind::Turn));
    assert!(events.is_empty(), "A owes nothing while B decides");
}

#[test]
fn f5_a_king_capture_ends_the_turn_at_once_whatever_moves_are_left() {
    let mut t = table(
        "4k3/8/8/8/8/8/4Q3/5K2 w - - 0 1",
        &["blue-9", "red-3"],
        &["green-1"],
        "blue-2",
    );
    t.ok(A, play("blue-9"));
    let events = t.ok(A, mv("e2e8"));
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::TurnEnded { reason, .. } if reason == "king_captured")));
    assert_eq!(
        t.state.phase,
        Phase::FlipDecision { victim: B },
        "two moves left, but the turn is over"
    );
    assert_eq!(t.act(A, mv("e8e7")).unwrap_err().code, "illegal_action");
}
