//! American checkers, one test per clause of docs/rules/checkers.md §C1.

use posthorn_rules::checkers::{perft, Action, Checkers, Config, Event, Position, State};
use posthorn_rules::{Duty, DutyKind, Env, Game, OutcomeKind, RuleError, Seat, SplitMix64, Viewer};

const BLACK: Seat = Seat(0);
const WHITE: Seat = Seat(1);

/// A match driven through the contract: act, then fold what it returned.
struct Table {
    state: State,
    log: Vec<Event>,
}

impl Table {
    fn new(position: Option<&str>) -> Table {
        let config = Config {
            position: position.map(str::to_owned),
            ..Config::default()
        };
        let log = Checkers::setup(&config, 2, &mut SplitMix64::new(1)).expect("setup");
        let mut state = State::default();
        for e in &log {
            Checkers::apply(&mut state, e).unwrap();
        }
        Table { state, log }
    }

    fn try_act(&mut self, seat: Seat, action: Action) -> Result<Vec<Event>, RuleError> {
        let mut random = SplitMix64::new(2);
        let mut env = Env {
            now: 0,
            random: &mut random,
        };
        let before = self.state.clone();
        let result = Checkers::act(&self.state, seat, &action, &mut env);
        assert_eq!(before, self.state, "act never mutates");
        let events = result?;
        for e in &events {
            Checkers::apply(&mut self.state, e).unwrap();
        }
        self.log.extend(events.iter().cloned());
        Ok(events)
    }

    fn play(&mut self, seat: Seat, notation: &str) -> Vec<Event> {
        self.try_act(seat, mv(notation))
            .unwrap_or_else(|e| panic!("{notation}: {e}"))
    }

    fn moves(&self) -> Vec<String> {
        let moves = self.state.position.legal_moves(self.state.variant);
        let mut names: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
        names.sort();
        names
    }

    fn result_reason(&self) -> Option<String> {
        Checkers::outcome(&self.state).map(|o| o.reason)
    }
}

fn mv(notation: &str) -> Action {
    Action::Move {
        notation: notation.into(),
    }
}

fn moves_of(fen: &str) -> Vec<String> {
    Table::new(Some(fen)).moves()
}

#[test]
fn c1_start_twelve_men_each_black_on_1_to_12_moves_first() {
    let t = Table::new(None);
    let p = *t.state.position.american().unwrap();
    assert_eq!(p.black, 0x0000_0FFF);
    assert_eq!(p.white, 0xFFF0_0000);
    assert_eq!(p.kings, 0);
    assert_eq!(
        Checkers::to_act(&t.state),
        vec![Duty::new(BLACK, DutyKind::Turn)]
    );
    assert_eq!(
        p.to_fen(),
        "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
    );
}

#[test]
fn c1_men_move_diagonally_forward_one_square_only() {
    assert_eq!(moves_of("B:W6:B14"), ["14-17", "14-18"]);
    assert_eq!(moves_of("W:W14:B1"), ["14-10", "14-9"]);
}

#[test]
fn c1_men_capture_forward_only() {
    // The white man on 10 is behind Black's man on 14: no backward capture.
    assert_eq!(moves_of("B:W10,30:B14"), ["14-17", "14-18"]);
    assert_eq!(moves_of("B:W15:B10"), ["10x19"]);
}

#[test]
fn c1_capturing_is_mandatory() {
    let mut t = Table::new(Some("B:W15,30:B10,1"));
    assert_eq!(t.moves(), ["10x19"]);
    let err = t.try_act(BLACK, mv("1-5")).unwrap_err();
    assert_eq!(err.code, "illegal_action");
    assert!(err.message.contains("mandatory"), "{}", err.message);
}

#[test]
fn c1_free_choice_among_captures_not_the_longest() {
    // The king may take one piece (10x19) though two are on offer (10x17x26).
    assert_eq!(moves_of("B:W14,15,22:BK10"), ["10x17x26", "10x19"]);
    let mut t = Table::new(Some("B:W14,15,22,1:BK10"));
    t.play(BLACK, "10x19");
    assert_eq!(
        t.state.position.turn(),
        posthorn_rules::checkers::Color::White
    );
}

#[test]
fn c1_a_chosen_capture_sequence_must_be_completed() {
    let mut t = Table::new(Some("B:W6,15,24:B1"));
    assert_eq!(t.moves(), ["1x10x19x28"]);
    let err = t.try_act(BLACK, mv("1x10")).unwrap_err();
    assert_eq!(err.code, "illegal_action");
    t.play(BLACK, "1x10x19x28");
    assert_eq!(
        t.state.position.american().unwrap().white,
        0,
        "all three captured"
    );
}

#[test]
fn c1_captured_pieces_leave_at_the_end_and_are_never_jumped_twice() {
    // The king circles 10 → 17 → 26 → 19 → 10 taking all four; it may not
    // take 14 a second time on the way (issue #2: exactly one legal move).
    assert_eq!(moves_of("B:W14,15,22,23:BK10"), ["10x17x26x19x10"]);
    let mut t = Table::new(Some("B:W14,15,22,23,32:BK10"));
    let events = t.play(BLACK, "10x17x26x19x10");
    match &events[0] {
        Event::Moved { captured, .. } => assert_eq!(captured, &vec![14, 15, 22, 23]),
        other => panic!("{other:?}"),
    }
}

#[test]
fn c1_move_identity_two_routes_are_one_move_and_either_is_accepted() {
    for route in ["10x17x26x19x10", "10x19x26x17x10"] {
        let mut t = Table::new(Some("B:W14,15,22,23,32:BK10"));
        t.play(BLACK, route);
        assert_eq!(
            t.state.position.american().unwrap().white,
            1 << 31,
            "{route}"
        );
    }
    // …and perft counts it once.
    let pos = Position::from_fen("B:W14,15,22,23:BK10").unwrap();
    assert_eq!(perft(&pos, 1, &mut [Vec::new()]), 1);
}

#[test]
fn c1_start_and_end_square_alone_name_a_capture_when_unambiguous() {
    let mut t = Table::new(Some("B:W6,15,24,32:B1"));
    t.play(BLACK, "1x28");
    assert_eq!(t.state.position.american().unwrap().white, 1 << 31);
}

#[test]
fn c1_man_reaching_the_far_row_is_crowned_and_the_move_ends() {
    // From 30 a king could go on over 25 to 21, but crowning ends the move.
    assert_eq!(moves_of("B:W25,26:B23"), ["23x30"]);
    let mut t = Table::new(Some("B:W25,26:B23"));
    let events = t.play(BLACK, "23x30");
    assert!(matches!(events[0], Event::Moved { crowned: true, .. }));
    assert_ne!(
        t.state.position.american().unwrap().kings & (1 << 29),
        0,
        "crowned on 30"
    );
    // A quiet move onto the far row crowns too.
    let mut t = Table::new(Some("B:W1:B27"));
    t.play(BLACK, "27-31");
    assert_ne!(t.state.position.american().unwrap().kings & (1 << 30), 0);
}

#[test]
fn c1_kings_move_and_capture_one_square_in_every_direction() {
    assert_eq!(moves_of("B:W1:BK14"), ["14-10", "14-17", "14-18", "14-9"]);
    assert_eq!(moves_of("B:W10:BK14"), ["14x7"]);
    // No flying king: the piece two squares away cannot be taken.
    assert_eq!(moves_of("B:W1,5:BK14"), ["14-10", "14-17", "14-18", "14-9"]);
}

#[test]
fn c1_long_man_chain_and_king_multi_jump() {
    assert_eq!(moves_of("B:W18,27:B14,1"), ["14x23x32"]);
    // A king jumping backward and forward in one move.
    assert_eq!(moves_of("B:W10,11,19:BK14,1"), ["14x7x16x23"]);
}

#[test]
fn c1_win_when_the_opponent_has_no_pieces() {
    let mut t = Table::new(Some("B:W15:B10"));
    t.play(BLACK, "10x19");
    let outcome = Checkers::outcome(&t.state).unwrap();
    assert_eq!(outcome.outcome, OutcomeKind::Win);
    assert_eq!(outcome.winners, vec![BLACK]);
    assert_eq!(outcome.reason, "no_pieces");
    assert!(Checkers::to_act(&t.state).is_empty());
}

#[test]
fn c1_win_when_the_opponent_has_no_legal_move() {
    // White's man on 5 can only go to 1, which Black holds.
    let mut t = Table::new(Some("B:W5:B1,10"));
    t.play(BLACK, "10-14");
    let outcome = Checkers::outcome(&t.state).unwrap();
    assert_eq!(
        (outcome.winners, outcome.reason.as_str()),
        (vec![BLACK], "no_legal_move")
    );
}

#[test]
fn c1_draw_on_the_third_occurrence_of_a_position_with_the_same_side_to_move() {
    let mut t = Table::new(Some("B:WK32:BK1"));
    for round in 0..2 {
        t.play(BLACK, "1-5");
        t.play(WHITE, "32-28");
        t.play(BLACK, "5-1");
        assert_eq!(t.result_reason(), None, "round {round}");
        t.play(WHITE, "28-32");
    }
    assert_eq!(t.result_reason().as_deref(), Some("threefold_repetition"));
    assert_eq!(
        Checkers::outcome(&t.state).unwrap().outcome,
        OutcomeKind::Draw
    );
}

#[test]
fn c1_draw_after_80_plies_without_capture_or_man_move_and_the_view_counts_down() {
    let mut t = Table::new(Some("B:WK32,21:BK1,12"));
    let view = |t: &Table| Checkers::view(&t.state, Viewer::Spectator).plies_until_no_progress_draw;
    assert_eq!(view(&t), 80);
    t.play(BLACK, "1-6");
    t.play(WHITE, "32-27");
    assert_eq!(view(&t), 78, "king moves count toward the draw");
    t.play(BLACK, "12-16");
    assert_eq!(
        t.state.plies_until_no_progress_draw(),
        80,
        "a man move resets the count"
    );
    // Jump ahead: 79 quiet plies so far, then one more king move.
    t.state.quiet_plies = 79;
    t.state.history.clear();
    t.play(WHITE, "27-32");
    assert_eq!(t.result_reason().as_deref(), Some("no_progress"));
}

#[test]
fn c1_draw_at_400_plies_in_total() {
    let mut t = Table::new(None);
    t.state.plies = 399;
    t.play(BLACK, "11-15");
    assert_eq!(t.result_reason().as_deref(), Some("ply_limit"));
    assert_eq!(
        Checkers::view(&t.state, Viewer::Spectator).plies_until_ply_limit,
        0
    );
}

#[test]
fn c1_draw_offer_accepted_ends_the_match_drawn() {
    let mut t = Table::new(None);
    t.try_act(BLACK, Action::OfferDraw {}).unwrap();
    assert!(Checkers::to_act(&t.state).contains(&Duty::new(WHITE, DutyKind::DrawReply)));
    assert_eq!(
        t.try_act(BLACK, Action::AcceptDraw {}).unwrap_err().code,
        "illegal_action"
    );
    t.try_act(WHITE, Action::AcceptDraw {}).unwrap();
    let o = Checkers::outcome(&t.state).unwrap();
    assert_eq!(
        (o.outcome, o.reason.as_str()),
        (OutcomeKind::Draw, "draw_agreed")
    );
}

#[test]
fn c1_draw_offer_declined_and_not_repeated_before_the_offerers_next_move() {
    let mut t = Table::new(None);
    t.try_act(BLACK, Action::OfferDraw {}).unwrap();
    t.try_act(WHITE, Action::DeclineDraw {}).unwrap();
    assert_eq!(t.state.draw_offer, None);
    assert!(t.try_act(BLACK, Action::OfferDraw {}).is_err());
    t.play(BLACK, "11-15");
    t.try_act(BLACK, Action::OfferDraw {}).unwrap();
}

#[test]
fn c1_draw_offer_lapses_when_the_offerers_opponent_moves() {
    let mut t = Table::new(None);
    t.play(BLACK, "11-15");
    t.try_act(BLACK, Action::OfferDraw {}).unwrap();
    let events = t.play(WHITE, "22-18");
    assert_eq!(events[0], Event::DrawOfferLapsed { seat: BLACK });
    assert_eq!(t.state.draw_offer, None);
    assert_eq!(
        t.try_act(WHITE, Action::AcceptDraw {}).unwrap_err().code,
        "illegal_action"
    );
}

#[test]
fn c1_draw_offer_survives_the_offerers_own_move() {
    let mut t = Table::new(None);
    t.try_act(BLACK, Action::OfferDraw {}).unwrap();
    t.play(BLACK, "11-15");
    assert_eq!(t.state.draw_offer, Some(BLACK));
}

#[test]
fn c1_draw_offer_lapses_at_the_deadline_t4() {
    let mut t = Table::new(None);
    t.try_act(WHITE, Action::OfferDraw {}).unwrap();
    let reply = Duty::new(BLACK, DutyKind::DrawReply);
    assert_eq!(
        Checkers::deadline_passed(&t.state, &reply),
        vec![Event::DrawOfferLapsed { seat: WHITE }]
    );
}

#[test]
fn c1_resignation_loses_at_once() {
    let mut t = Table::new(None);
    t.try_act(WHITE, Action::Resign {}).unwrap();
    let o = Checkers::outcome(&t.state).unwrap();
    assert_eq!((o.winners, o.reason.as_str()), (vec![BLACK], "resigned"));
    assert_eq!(
        t.try_act(BLACK, mv("11-15")).unwrap_err().code,
        "match_finished"
    );
}

#[test]
fn c1_abandonment_at_the_turn_deadline_t3() {
    let t = Table::new(None);
    let events = Checkers::deadline_passed(&t.state, &Duty::new(BLACK, DutyKind::Turn));
    assert_eq!(events[0], Event::Abandoned { seat: BLACK });
    match &events[1] {
        Event::Finished { result } => assert_eq!(
            (result.winners.clone(), result.reason.as_str()),
            (vec![WHITE], "abandoned")
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn c1_acting_out_of_turn_is_refused() {
    let mut t = Table::new(None);
    let err = t.try_act(WHITE, mv("22-18")).unwrap_err();
    assert_eq!(err, RuleError::not_your_turn());
}

#[test]
fn pdn_fen_reads_lists_in_either_order_with_kings_and_ranges() {
    let a = Position::from_fen("B:W21,22,K30:B1,2,K5").unwrap();
    let b = Position::from_fen("B:B1,2,K5:W21,22,K30.").unwrap();
    assert_eq!(a, b);
    assert_eq!(a.to_fen(), "B:W21,22,K30:B1,2,K5");
    assert_eq!(
        Position::from_fen("B:W21-32:B1-12").unwrap(),
        Position::start()
    );
}

#[test]
fn pdn_fen_errors_are_precise() {
    let cases = [
        ("X:W1:B2", "side to move"),
        ("B:W1", "three fields"),
        ("B:W33:B1", "off the board"),
        ("B:W1,1:B2", "listed twice"),
        ("B:W1:W2", "two piece lists"),
        ("B:Wx:B2", "not a square number"),
    ];
    for (fen, why) in cases {
        let err = Position::from_fen(fen).unwrap_err();
        assert_eq!(err.code, "validation_failed");
        assert!(err.message.contains(why), "{fen}: {}", err.message);
    }
}

#[test]
fn move_text_errors_are_precise() {
    let mut t = Table::new(None);
    for (text, code) in [
        ("", "validation_failed"),
        ("11", "validation_failed"),
        ("11-", "validation_failed"),
        ("11-15-19", "validation_failed"),
        ("0-4", "validation_failed"),
        ("11x15-19", "validation_failed"),
        ("11-14", "illegal_action"),
        ("11x18", "illegal_action"),
    ] {
        assert_eq!(
            t.try_act(BLACK, mv(text)).unwrap_err().code,
            code,
            "{text:?}"
        );
    }
}
