//! Four-player chess, clause by clause (docs/rules/four-player-chess.md §Q). Positions are §Q12
//! notation; `board` writes one from each army's pieces.

use posthorn_rules::four_player_chess::{
    perft, Action, Army, Config, Event, FourPlayerChess, Mode, Move, Owner, Position, State,
};
use posthorn_rules::{Duty, DutyKind, Env, Game, OutcomeKind, PutOut, Random, SplitMix64};

/// A position: `to` moves, `armies` = red, green, blue, gray piece lists
/// (an empty list: that army is out), no castling rights.
fn board(to: &str, mode: &str, armies: [&str; 4], dead: &str) -> String {
    let names = ["red", "green", "blue", "gray"];
    let out: Vec<&str> = (0..4)
        .filter(|i| armies[*i].is_empty())
        .map(|i| names[i])
        .collect();
    format!(
        "to={to}; mode={mode}; castle=red:-,green:-,blue:-,gray:-; out={}; red={}; green={}; blue={}; gray={}; dead={dead}",
        out.join(","),
        armies[0],
        armies[1],
        armies[2],
        armies[3]
    )
}

/// Each army's king on its home square, with `extra` pieces.
fn kings(extra: [&str; 4]) -> [String; 4] {
    let homes = ["Kh1", "Ka8", "Kg14", "Kn7"];
    std::array::from_fn(|i| {
        if extra[i].is_empty() {
            homes[i].to_owned()
        } else {
            format!("{},{}", homes[i], extra[i])
        }
    })
}

fn refs(armies: &[String; 4]) -> [&str; 4] {
    std::array::from_fn(|i| armies[i].as_str())
}

fn moves(position: &str) -> Vec<String> {
    let pos = Position::from_notation(position).unwrap();
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    moves.iter().map(Move::to_string).collect()
}

/// A match from `position` with `seats` players.
fn start(position: &str, seats: usize) -> State {
    let mode = Position::from_notation(position).unwrap().mode;
    let config = Config {
        mode,
        position: Some(position.to_owned()),
    };
    let mut state = State::default();
    let mut random = SplitMix64::new(1);
    for event in FourPlayerChess::setup(&config, seats, &mut random).unwrap() {
        FourPlayerChess::apply(&mut state, &event).unwrap();
    }
    state
}

fn fold(state: &mut State, events: &[Event]) {
    for event in events {
        FourPlayerChess::apply(state, event).unwrap();
    }
}

/// The army to move plays `mv`; the events it caused.
fn play(state: &mut State, mv: &str) -> Vec<Event> {
    let seat = state.on_move().expect("someone is to move");
    let mut random = SplitMix64::new(2);
    let mut env = Env {
        now: 0,
        random: &mut random,
    };
    let action = Action::Move {
        notation: mv.to_owned(),
    };
    let events = FourPlayerChess::act(state, seat, &action, &mut env)
        .unwrap_or_else(|e| panic!("{mv}: {e}"));
    fold(state, &events);
    events
}

fn scored(events: &[Event]) -> Vec<(Army, i32, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Scored {
                army,
                points,
                reason,
            } => Some((*army, *points, reason.clone())),
            _ => None,
        })
        .collect()
}

fn eliminated(events: &[Event]) -> Vec<(Army, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Eliminated { army, reason } => Some((*army, reason.clone())),
            _ => None,
        })
        .collect()
}

fn owner_on(state: &State, square: &str) -> Option<Owner> {
    let sq = posthorn_rules::four_player_chess::board::parse_square(square).unwrap();
    state.position.piece(sq).map(|p| p.owner)
}

#[test]
fn q1_the_board_has_160_squares_without_the_corners() {
    let squares = (0..14)
        .flat_map(|f| (0..14).map(move |r| (f, r)))
        .filter(|(f, r)| posthorn_rules::four_player_chess::board::exists(*f, *r))
        .count();
    assert_eq!(squares, 160);
    assert!(Move::parse("c3c4").is_none(), "c3 is a removed corner");
    assert!(Move::parse("d3d4").is_some());
}

#[test]
fn q2_each_army_starts_on_its_side_with_the_queen_on_its_square() {
    let text = Position::start(Mode::Teams, [true; 4]).to_notation();
    for piece in [
        "Qg1", "Kh1", "Qa7", "Ka8", "Kg14", "Qh14", "Kn7", "Qn8", "Rd1", "Pk2",
    ] {
        assert!(text.contains(piece), "{piece} in {text}");
    }
    assert_eq!(text.matches('P').count(), 32);
}

#[test]
fn q3_each_army_pushes_its_pawns_toward_the_opposite_side() {
    let start = Position::start(Mode::Teams, [true; 4]);
    let cases = [
        (Army::Red, ["e2e3", "e2e4"], "e2e1"),
        (Army::Green, ["b5c5", "b5d5"], "b5a5"),
        (Army::Blue, ["e13e12", "e13e11"], "e13e14"),
        (Army::Gray, ["m5l5", "m5k5"], "m5n5"),
    ];
    for (army, forward, backward) in cases {
        let mut pos = start.clone();
        pos.to_move = army;
        let mut list = Vec::new();
        pos.legal_moves(&mut list);
        let list: Vec<String> = list.iter().map(Move::to_string).collect();
        for mv in forward {
            assert!(list.contains(&mv.to_owned()), "{army}: {mv} in {list:?}");
        }
        assert!(!list.contains(&backward.to_owned()), "{army}: {backward}");
    }
}

#[test]
fn q3_the_double_step_only_from_the_start_row() {
    for (to, pawns, single, double) in [
        ("red", ["Pe3", "", "", ""], "e3e4", "e3e5"),
        ("green", ["", "Pc5", "", ""], "c5d5", "c5e5"),
        ("blue", ["", "", "Pe12", ""], "e12e11", "e12e10"),
        ("gray", ["", "", "", "Pl5"], "l5k5", "l5j5"),
    ] {
        let list = moves(&board(to, "ffa", refs(&kings(pawns)), ""));
        assert!(list.contains(&single.to_owned()), "{to}: {list:?}");
        assert!(!list.contains(&double.to_owned()), "{to}: {list:?}");
    }
}

#[test]
fn q6_teams_pawns_promote_on_the_11th_row_or_an_opposing_back_row() {
    let pos = board(
        "red",
        "teams",
        refs(&kings(["Ph10,Pb6", "Na7", "", ""])),
        "",
    );
    let list = moves(&pos);
    assert!(list.contains(&"h10h11q".to_owned()), "{list:?}");
    assert!(!list.contains(&"h10h11".to_owned()));
    assert!(
        list.contains(&"b6a7q".to_owned()),
        "file a is Green's back row: {list:?}"
    );
    let pos = board(
        "green",
        "teams",
        refs(&kings(["Ne1", "Pd2,Pj5", "", ""])),
        "",
    );
    let list = moves(&pos);
    assert!(
        list.contains(&"d2e1q".to_owned()),
        "rank 1 is Red's back row: {list:?}"
    );
    assert!(
        list.contains(&"j5k5q".to_owned()),
        "file k is Green's 11th row: {list:?}"
    );
}

#[test]
fn q7_ffa_and_points_pawns_promote_on_the_8th_row() {
    for mode in ["ffa", "points"] {
        for (to, pawn, promotion) in [
            ("red", ["Ph7", "", "", ""], "h7h8q"),
            ("green", ["", "Pg5", "", ""], "g5h5q"),
            ("blue", ["", "", "Ph8", ""], "h8h7q"),
            ("gray", ["", "", "", "Ph5"], "h5g5q"),
        ] {
            let list = moves(&board(to, mode, refs(&kings(pawn)), ""));
            assert!(
                list.contains(&promotion.to_owned()),
                "{mode} {to}: {list:?}"
            );
        }
    }
}

#[test]
fn q8_a_promoted_queen_moves_as_a_queen_and_scores_as_a_pawn() {
    let mut state = start(
        &board("red", "points", refs(&kings(["Re4", "qe8", "", ""])), ""),
        4,
    );
    let events = play(&mut state, "e4e8");
    assert_eq!(scored(&events), vec![(Army::Red, 1, "capture".into())]);
}

#[test]
fn q11_each_army_castles_on_both_sides_along_its_back_row() {
    let castle = "castle=red:KQ,green:KQ,blue:KQ,gray:KQ";
    let text = board(
        "red",
        "teams",
        [
            "Kh1,Rd1,Rk1",
            "Ka8,Ra4,Ra11",
            "Kg14,Rd14,Rk14",
            "Kn7,Rn4,Rn11",
        ],
        "",
    )
    .replace("castle=red:-,green:-,blue:-,gray:-", castle);
    // (army, short: king to, rook lands; long: king to, rook lands)
    let cases = [
        (Army::Red, ("h1j1", "i1"), ("h1f1", "g1")),
        (Army::Green, ("a8a10", "a9"), ("a8a6", "a7")),
        (Army::Blue, ("g14e14", "f14"), ("g14i14", "h14")),
        (Army::Gray, ("n7n5", "n6"), ("n7n9", "n8")),
    ];
    for (army, short, long) in cases {
        for (mv, rook) in [short, long] {
            let mut pos = Position::from_notation(&text).unwrap();
            pos.to_move = army;
            assert!(pos.is_legal(Move::parse(mv).unwrap()), "{army} {mv}");
            let (after, _) = pos.play(Move::parse(mv).unwrap());
            let sq = posthorn_rules::four_player_chess::board::parse_square(rook).unwrap();
            assert_eq!(
                after.piece(sq).map(|p| p.kind),
                Some(posthorn_rules::four_player_chess::Kind::Rook),
                "{army} {mv}"
            );
            assert_eq!(after.castling[army.index()], 0);
        }
    }
}

#[test]
fn q3_castling_is_refused_through_out_of_or_without_its_right() {
    let text = board(
        "red",
        "teams",
        ["Kh1,Rd1,Rk1", "Ka8,Ri6", "Kg14", "Kn7"],
        "",
    )
    .replace("castle=red:-", "castle=red:KQ");
    // Green's rook on i6 watches i1, the square the king passes short.
    let list = moves(&text);
    assert!(!list.contains(&"h1j1".to_owned()), "{list:?}");
    assert!(list.contains(&"h1f1".to_owned()));
    let checked = board(
        "red",
        "teams",
        ["Kh1,Rd1,Rk1", "Ka8,Rh6", "Kg14", "Kn7"],
        "",
    )
    .replace("castle=red:-", "castle=red:KQ");
    let list = moves(&checked);
    assert!(
        !list.iter().any(|m| m == "h1j1" || m == "h1f1"),
        "out of check: {list:?}"
    );
    let rightless = board("red", "teams", ["Kh1,Rd1,Rk1", "Ka8", "Kg14", "Kn7"], "")
        .replace("castle=red:-", "castle=red:Q");
    let list = moves(&rightless);
    assert!(!list.contains(&"h1j1".to_owned()) && list.contains(&"h1f1".to_owned()));
}

#[test]
fn q6_partners_cannot_be_captured_nor_checked_in_teams() {
    let armies = ["Kh1,Re4", "Ka8", "Kg14,Pe8", "Kn7"];
    let teams = board("red", "teams", armies, "");
    assert!(!moves(&teams).contains(&"e4e8".to_owned()));
    let ffa = board("red", "ffa", armies, "");
    assert!(moves(&ffa).contains(&"e4e8".to_owned()));
    let facing = ["Kh1,Rg4", "Ka8", "Kg14", "Kn7"];
    let teams = Position::from_notation(&board("green", "teams", facing, "")).unwrap();
    assert!(!teams.in_check(Army::Blue), "a partner gives no check");
    let ffa = Position::from_notation(&board("green", "ffa", facing, "")).unwrap();
    assert!(ffa.in_check(Army::Blue));
}

#[test]
fn q7_dead_pieces_never_move_give_no_check_block_and_score_nothing() {
    let text = board(
        "red",
        "points",
        ["Kh1,Re4", "Ka8", "Kg14", ""],
        "Qh5,Re8,Ke12",
    );
    let pos = Position::from_notation(&text).unwrap();
    assert!(
        !pos.in_check(Army::Red),
        "the dead queen on h5 gives no check"
    );
    let list = moves(&text);
    assert!(
        list.contains(&"e4e8".to_owned()),
        "dead pieces are captured"
    );
    // Whichever army is to move, no move starts on a dead piece.
    let dead: Vec<u8> = ["h5", "e8", "e12"]
        .iter()
        .map(|sq| posthorn_rules::four_player_chess::board::parse_square(sq).unwrap())
        .collect();
    for army in [Army::Red, Army::Green, Army::Blue] {
        let mut turn = pos.clone();
        turn.to_move = army;
        let mut listed = Vec::new();
        turn.legal_moves(&mut listed);
        assert!(!listed.is_empty(), "{army} can move");
        assert!(
            listed.iter().all(|m| !dead.contains(&m.from)),
            "{army} moves a dead piece: {listed:?}"
        );
    }
    assert!(
        !list.contains(&"e4e9".to_owned()),
        "and block what is behind them"
    );
    let mut state = start(&text, 3);
    let events = play(&mut state, "e4e8");
    assert!(scored(&events).is_empty(), "a dead piece scores 0");
}

#[test]
fn q8_captures_of_live_pieces_score_their_value() {
    for (piece, value) in [("Pe8", 1), ("Ne8", 3), ("Be8", 5), ("Re8", 5), ("Qe8", 9)] {
        let mut state = start(
            &board("red", "points", refs(&kings(["Re4", piece, "", ""])), ""),
            4,
        );
        let events = play(&mut state, "e4e8");
        assert_eq!(
            scored(&events),
            vec![(Army::Red, value, "capture".into())],
            "{piece}"
        );
    }
}

#[test]
fn q8_scores_outside_points_are_never_written() {
    let mut state = start(
        &board("red", "ffa", refs(&kings(["Re4", "Qe8", "", ""])), ""),
        4,
    );
    assert!(scored(&play(&mut state, "e4e8")).is_empty());
}

#[test]
fn q8_checks_on_two_and_three_kings_with_and_without_a_queen() {
    // d11 sees a8 and g14 on its diagonals, and n11 along rank 11.
    let cases = [
        (["Qd4", "", "", ""], "Kn7", "d4d11", 1, "double_check"),
        (["Qd4", "", "", ""], "Kn11", "d4d11", 5, "triple_check"),
        (["Bh7", "", "", ""], "Kn7", "h7d11", 5, "double_check"),
        // The bishop leaves h7 and uncovers the rook on h4: three kings.
        (["Bh7,Rh4", "", "", ""], "Kh10", "h7d11", 20, "triple_check"),
    ];
    for (red, gray, mv, points, reason) in cases {
        let mut armies = kings(red);
        armies[3] = gray.to_owned();
        let mut state = start(&board("red", "points", refs(&armies), ""), 4);
        let events = play(&mut state, mv);
        assert_eq!(
            scored(&events),
            vec![(Army::Red, points, reason.into())],
            "{mv} {gray}"
        );
    }
}

/// Blue's king on d14 behind its own rook and pawn: a rook on rank 14
/// mates it.
fn blue_boxed(red: &str, green: &str, gray: &str, mode: &str, to: &str) -> String {
    board(to, mode, [red, green, "Kd14,Rd13,Pe13", gray], "")
}

#[test]
fn q4_a_mate_is_judged_only_when_the_mated_army_is_to_move() {
    let mut state = start(&blue_boxed("Kh1,Rk10", "Ka8,Pb5", "Kn7", "ffa", "red"), 4);
    let events = play(&mut state, "k10k14");
    assert!(
        eliminated(&events).is_empty(),
        "Green moves before Blue's turn"
    );
    assert!(state.position.live(Army::Blue));
    let events = play(&mut state, "b5c5");
    assert_eq!(eliminated(&events), vec![(Army::Blue, "checkmate".into())]);
    assert_eq!(state.position.to_move, Army::Gray);
    assert_eq!(owner_on(&state, "d14"), Some(Owner::Dead));
}

#[test]
fn q6_mating_either_opponent_wins_for_the_team() {
    // Green's rook mates Blue; Red (Blue's partner) cannot help.
    let mut state = start(&blue_boxed("Kh1,Pd2", "Ka8,Rk10", "Kn7", "teams", "red"), 4);
    play(&mut state, "d2d3");
    play(&mut state, "k10k14");
    let result = state.outcome.clone().expect("over");
    assert_eq!(result.reason, "checkmate");
    let mut expected = vec![
        state.seat_of(Army::Green).unwrap(),
        state.seat_of(Army::Gray).unwrap(),
    ];
    expected.sort();
    assert_eq!(result.winners, expected);
}

#[test]
fn q8_a_mate_scores_20_for_the_last_mover_among_the_checking_armies() {
    // Red's rook already checks from k14; Gray's knight adds the newest
    // check from e12; then Red moves elsewhere. Red moved last among the
    // armies attacking Blue's king, so Red scores the mate, not Gray.
    let text = blue_boxed("Kh1,Rk14,Pd2", "Ka8,Pb5", "Kn7,Nf10", "points", "gray");
    let mut state = start(&text, 4);
    assert!(scored(&play(&mut state, "f10e12")).is_empty());
    play(&mut state, "d2d3");
    let events = play(&mut state, "b5c5");
    assert_eq!(scored(&events), vec![(Army::Red, 20, "checkmate".into())]);
    assert_eq!(eliminated(&events), vec![(Army::Blue, "checkmate".into())]);
}

/// The service learns of an elimination only through the contract
/// (`Game::put_out`): the mated army by its name, and why; the move and
/// the score that came with it put nobody out.
#[test]
fn q7_an_elimination_is_a_fact_the_contract_carries() {
    let text = blue_boxed("Kh1,Rk14,Pd2", "Ka8,Pb5", "Kn7,Nf10", "points", "gray");
    let mut state = start(&text, 4);
    play(&mut state, "f10e12");
    play(&mut state, "d2d3");
    let events = play(&mut state, "b5c5");
    let out: Vec<PutOut> = events.iter().filter_map(FourPlayerChess::put_out).collect();
    let blue = PutOut {
        side: "blue".into(),
        reason: "checkmate".into(),
    };
    assert_eq!(out, vec![blue]);
    assert!(events.len() > 1, "the move and the score are events too");
}

#[test]
fn q10_a_king_left_in_check_may_be_captured_in_each_mode() {
    // Green's king stands in check from Red's rook; Red moves first.
    let armies = ["Kh1,Ra4", "Ka8,Pb5", "Kg14", "Kn7"];
    let mut teams = start(&board("red", "teams", armies, ""), 4);
    play(&mut teams, "a4a8");
    let result = teams.outcome.clone().expect("a king capture ends teams");
    assert_eq!(result.reason, "king_captured");
    assert!(result.winners.contains(&teams.seat_of(Army::Red).unwrap()));
    let mut ffa = start(&board("red", "ffa", armies, ""), 4);
    let events = play(&mut ffa, "a4a8");
    assert_eq!(
        eliminated(&events),
        vec![(Army::Green, "king_captured".into())]
    );
    assert_eq!(owner_on(&ffa, "b5"), Some(Owner::Dead));
    assert_eq!(ffa.position.to_move, Army::Blue);
    let mut points = start(&board("red", "points", armies, ""), 4);
    let events = play(&mut points, "a4a8");
    assert_eq!(
        scored(&events),
        vec![(Army::Red, 20, "king_captured".into())]
    );
}

/// Issue #30's two held-out positions (an independent implementation of
/// §Q): Red in check from Green's bishop on i2 may take Green's king
/// (`m7a7`); Green in check from Blue's bishop on e13 may take Blue's king
/// (`h9h14`). Perft 1 and 2 as that implementation counts them.
const KING_CAPTURES_ANSWERING_CHECK: [(&str, &str, u64, u64); 2] = [
    (
        "to=red; mode=ffa; castle=red:-,green:-,blue:-,gray:-; out=gray; red=Kh1,qg2,ql9,qd13,Rm7,Bf6,Nl5; green=Ka7,Bi2; blue=Kf14,qk11,Rg3,Bc6,Bc11,Nh11,Ni12; gray=; dead=",
        "m7a7",
        5,
        103,
    ),
    (
        "to=green; mode=ffa; castle=red:-,green:-,blue:-,gray:-; out=; red=Ki4,Qf2,qf5,qj8,Rk1,Rd6,Bf1,Nd2,Nh2,Pd5,Pk7; green=Ka8,Qd7,qh9,Rc5,Nb8; blue=Kh14,qf13,Rd14,Be13,Nj14,Pd10; gray=Kl9,qg10,Rg5,Rl11,Bk9,Nn5,Nm9; dead=",
        "h9h14",
        6,
        158,
    ),
];

#[test]
fn q14_a_player_in_check_may_capture_the_king_of_the_army_giving_the_check() {
    for (text, capture, depth1, depth2) in KING_CAPTURES_ANSWERING_CHECK {
        let pos = Position::from_notation(text).unwrap();
        assert!(pos.in_check(pos.to_move), "{text}");
        assert!(
            moves(text).contains(&capture.to_owned()),
            "{capture}: {text}"
        );
        assert_eq!(perft(&pos, 1), depth1, "{text}");
        assert_eq!(perft(&pos, 2), depth2, "{text}");
    }
    // Played through a match, in ffa and in points: the captured army is
    // eliminated by that ply and its checking bishop is dead.
    for mode in ["ffa", "points"] {
        let text = KING_CAPTURES_ANSWERING_CHECK[0]
            .0
            .replace("mode=ffa", &format!("mode={mode}"));
        let mut state = start(&text, 3);
        let events = play(&mut state, "m7a7");
        assert_eq!(
            eliminated(&events),
            vec![(Army::Green, "king_captured".into())],
            "{mode}"
        );
        assert_eq!(owner_on(&state, "i2"), Some(Owner::Dead), "{mode}");
        assert!(!state.position.in_check(Army::Red), "{mode}");
    }
}

/// §Q14 speaks of ffa and points, where the king capture makes the
/// captured army's pieces dead. In teams it ends the match but kills
/// nothing: a piece of the captured army (or of its partner) still
/// attacks, so the capture may not leave the capturer's own king attacked.
#[test]
fn q14_in_teams_the_captured_army_still_attacks_so_the_capture_must_answer_check() {
    let armies = ["Kh1,Rm7", "Ka7,Bi2", "Kg14", "Kn6"];
    let ffa = board("red", "ffa", armies, "");
    assert!(moves(&ffa).contains(&"m7a7".to_owned()));
    let teams = board("red", "teams", armies, "");
    let listed = moves(&teams);
    assert!(!listed.contains(&"m7a7".to_owned()), "{listed:?}");
    assert!(listed.contains(&"h1i2".to_owned()), "{listed:?}");
}

/// §Q8 "stalemating yourself" reads the position after the mover's own
/// ply with that ply's elimination applied (§Q14): Red takes Green's king
/// while in check from Green's bishop, and with that bishop dead Red still
/// has moves (its king is boxed in by Blue, its rook is free).
#[test]
fn q14_a_king_capture_answering_check_does_not_leave_its_mover_stuck() {
    let text = board(
        "red",
        "points",
        ["Kh1,Rm7", "Ka7,Bk4", "Kg14,Rd2,Nh3", ""],
        "",
    );
    let mut state = start(&text, 3);
    play(&mut state, "m7a7");
    assert_eq!(owner_on(&state, "k4"), Some(Owner::Dead));
    assert!(!state.stuck_after_own_move[Army::Red.index()]);
}

/// Four kings boxed in by their own pawns and their partners'; Red's e5
/// pawn has one step left, onto Blue's e7 pawn.
fn all_stuck(mode: &str) -> String {
    board(
        "red",
        mode,
        [
            "Kh1,Pg1,Pi1,Pg2,Ph2,Pi2,Pf12,Pg12,Ph12,Pe5",
            "Ka8,Pa7,Pa9,Pb7,Pb8,Pb9,Pl6,Pl7,Pl8",
            "Kg14,Pf14,Ph14,Pf13,Pg13,Ph13,Pg3,Ph3,Pi3,Pe7",
            "Kn7,Pn6,Pn8,Pm6,Pm7,Pm8,Pc7,Pc8,Pc9",
        ],
        "",
    )
}

#[test]
fn q6_a_stalemated_army_is_skipped_and_all_stalemated_in_turn_draw() {
    let mut state = start(&all_stuck("teams"), 4);
    let events = play(&mut state, "e5e6");
    let skipped: Vec<&Event> = events
        .iter()
        .filter(|e| matches!(e, Event::Skipped { .. }))
        .collect();
    assert_eq!(skipped.len(), 4, "{events:?}");
    let result = state.outcome.clone().unwrap();
    assert_eq!(
        (result.outcome, result.reason.as_str()),
        (OutcomeKind::Draw, "stalemate")
    );
}

#[test]
fn q6_one_stalemated_army_is_skipped_and_play_goes_on() {
    // Green's king alone on a8, every way out watched, no check.
    let text = board(
        "red",
        "teams",
        ["Kh1,Qb6,Nc10,Pd2", "Ka8", "Kg14", "Kn7"],
        "",
    );
    let mut state = start(&text, 4);
    let events = play(&mut state, "d2d3");
    assert!(events.contains(&Event::Skipped { army: Army::Green }));
    assert_eq!(state.position.to_move, Army::Blue);
    assert!(state.outcome.is_none());
}

#[test]
fn q7_stalemate_eliminates_in_ffa_unless_two_are_left() {
    let armies = ["Kh1,Qb6,Nc10,Pd2", "Ka8", "Kg14", "Kn7"];
    let mut state = start(&board("red", "ffa", armies, ""), 4);
    let events = play(&mut state, "d2d3");
    assert_eq!(eliminated(&events), vec![(Army::Green, "stalemate".into())]);
    assert!(state.outcome.is_none());
    let two = ["Kh1,Qb6,Nc10,Pd2", "Ka8", "", ""];
    let mut state = start(&board("red", "ffa", two, ""), 2);
    play(&mut state, "d2d3");
    let result = state.outcome.clone().unwrap();
    assert_eq!(
        (result.outcome, result.reason.as_str()),
        (OutcomeKind::Draw, "stalemate")
    );
}

#[test]
fn q7_the_last_army_standing_wins_ffa() {
    let mut state = start(&blue_boxed("Kh1,Rk10", "Ka8,Pb5", "", "ffa", "red"), 3);
    play(&mut state, "k10k14");
    play(&mut state, "b5c5");
    assert!(!state.position.live(Army::Blue));
    // Red and Green remain; Green resigns.
    let green = state.seat_of(Army::Green).unwrap();
    let mut random = SplitMix64::new(0);
    let mut env = Env {
        now: 0,
        random: &mut random,
    };
    let events = FourPlayerChess::act(&state, green, &Action::Resign {}, &mut env).unwrap();
    fold(&mut state, &events);
    let result = state.outcome.clone().unwrap();
    assert_eq!(result.winners, vec![state.seat_of(Army::Red).unwrap()]);
    assert_eq!(result.reason, "resigned");
}

#[test]
fn q8_stalemating_an_opponent_gives_10_to_every_other_player() {
    let text = board("red", "points", ["Kh1,Qb6,Nc10,Pd2", "Ka8", "Kg14", ""], "");
    let mut state = start(&text, 3);
    let events = play(&mut state, "d2d3");
    assert_eq!(
        scored(&events),
        vec![
            (Army::Red, 10, "stalemated_opponent".into()),
            (Army::Blue, 10, "stalemated_opponent".into())
        ]
    );
    assert_eq!(eliminated(&events), vec![(Army::Green, "stalemate".into())]);
}

#[test]
fn q8_stalemating_yourself_gives_20_to_yourself() {
    // Green's last pawn steps onto l4 against Red's rook: no move left.
    let text = board(
        "green",
        "points",
        ["Kh1,Qb6,Nc10,Rm4", "Ka8,Pk4", "Kg14", ""],
        "",
    );
    let mut state = start(&text, 3);
    play(&mut state, "k4l4");
    play(&mut state, "g14g13");
    let events = play(&mut state, "h1h2");
    assert_eq!(
        scored(&events),
        vec![(Army::Green, 20, "self_stalemate".into())]
    );
}

#[test]
fn q8_points_decide_the_winner_and_equal_top_scores_draw() {
    // Two players: Red takes Green's queen, then Green is stalemated.
    let text = board("red", "points", ["Kh1,Qb6,Nc10,Re3", "Ka8,Qe5", "", ""], "");
    let mut state = start(&text, 2);
    play(&mut state, "e3e5");
    let result = state.outcome.clone().unwrap();
    assert_eq!(result.outcome, OutcomeKind::Points);
    assert_eq!(result.winners, vec![state.seat_of(Army::Red).unwrap()]);
    let red = state.seat_of(Army::Red).unwrap().index();
    assert_eq!(
        result.scores.as_ref().unwrap()[red],
        19.0,
        "9 for the queen, 10 for the stalemate"
    );
    // Equal top scores draw: 0 to 0 at the ply limit.
    let mut state = start(
        &board("red", "points", ["Kh1,Pd2", "Ka8,Pb5", "", ""], ""),
        2,
    );
    state.plies = 999;
    play(&mut state, "d2d3");
    let result = state.outcome.clone().unwrap();
    assert_eq!(
        (result.outcome, result.reason.as_str()),
        (OutcomeKind::Draw, "ply_limit")
    );
    assert_eq!(result.scores, Some(vec![0.0, 0.0]));
}

#[test]
fn q6_the_third_repetition_and_the_ply_limit_draw() {
    let mut state = start(&Position::start(Mode::Teams, [true; 4]).to_notation(), 4);
    let cycle = [
        "e1f3", "a5c6", "e14f12", "n5l6", "f3e1", "c6a5", "f12e14", "l6n5",
    ];
    for mv in cycle.iter().chain(cycle.iter()) {
        play(&mut state, mv);
    }
    assert_eq!(
        state.outcome.clone().unwrap().reason,
        "threefold_repetition"
    );
    let mut state = start(&Position::start(Mode::Ffa, [true; 4]).to_notation(), 4);
    state.plies = 999;
    play(&mut state, "e2e4");
    let result = state.outcome.clone().unwrap();
    assert_eq!(
        (result.outcome, result.reason.as_str()),
        (OutcomeKind::Draw, "ply_limit")
    );
}

#[test]
fn q9_resignation_loses_for_the_team_and_eliminates_in_ffa() {
    let mut random = SplitMix64::new(0);
    let mut env = Env {
        now: 0,
        random: &mut random,
    };
    let teams = start(&Position::start(Mode::Teams, [true; 4]).to_notation(), 4);
    let green = teams.seat_of(Army::Green).unwrap();
    let events = FourPlayerChess::act(&teams, green, &Action::Resign {}, &mut env).unwrap();
    let Some(Event::Finished { result }) = events.last() else {
        panic!("{events:?}")
    };
    let mut red_team = vec![
        teams.seat_of(Army::Red).unwrap(),
        teams.seat_of(Army::Blue).unwrap(),
    ];
    red_team.sort();
    assert_eq!(
        (result.winners.clone(), result.reason.as_str()),
        (red_team, "resigned")
    );
    // FFA: Blue resigns off move; the match goes on without Blue.
    let mut ffa = start(&Position::start(Mode::Ffa, [true; 4]).to_notation(), 4);
    let blue = ffa.seat_of(Army::Blue).unwrap();
    let events = FourPlayerChess::act(&ffa, blue, &Action::Resign {}, &mut env).unwrap();
    fold(&mut ffa, &events);
    assert_eq!(eliminated(&events), vec![(Army::Blue, "resigned".into())]);
    assert!(ffa.outcome.is_none());
    assert!(FourPlayerChess::legal_actions(&ffa, blue).is_empty());
    assert_eq!(owner_on(&ffa, "g14"), Some(Owner::Dead));
}

#[test]
fn q9_abandonment_eliminates_in_ffa_and_the_duty_passes_on() {
    let mut ffa = start(&Position::start(Mode::Ffa, [true; 4]).to_notation(), 4);
    let red = ffa.seat_of(Army::Red).unwrap();
    let events = FourPlayerChess::deadline_passed(&ffa, &Duty::new(red, DutyKind::Turn));
    fold(&mut ffa, &events);
    assert_eq!(eliminated(&events), vec![(Army::Red, "abandoned".into())]);
    let green = ffa.seat_of(Army::Green).unwrap();
    assert_eq!(
        FourPlayerChess::to_act(&ffa),
        vec![Duty::new(green, DutyKind::Turn)]
    );
    // A stale duty (not the seat on move) changes nothing.
    assert!(FourPlayerChess::deadline_passed(&ffa, &Duty::new(red, DutyKind::Turn)).is_empty());
}

#[test]
fn q5_two_players_in_teams_each_run_a_whole_team() {
    let mut state = start(&Position::start(Mode::Teams, [true; 4]).to_notation(), 2);
    assert_eq!(state.seat_of(Army::Red), state.seat_of(Army::Blue));
    assert_eq!(state.seat_of(Army::Green), state.seat_of(Army::Gray));
    assert_ne!(state.seat_of(Army::Red), state.seat_of(Army::Green));
    let red = state.seat_of(Army::Red).unwrap();
    play(&mut state, "e2e4");
    play(&mut state, "b5c5");
    assert_eq!(state.on_move(), Some(red), "the same seat now moves Blue");
    assert_eq!(state.position.to_move, Army::Blue);
}

#[test]
fn q5_seat_counts_per_mode_and_armies_in_play() {
    let mut random = SplitMix64::new(0);
    let teams = Config::default();
    assert!(
        FourPlayerChess::setup(&teams, 3, &mut random).is_err(),
        "teams: 2 or 4"
    );
    for seats in 2..=4 {
        let config = Config {
            mode: Mode::Ffa,
            position: None,
        };
        let mut state = State::default();
        fold(
            &mut state,
            &FourPlayerChess::setup(&config, seats, &mut random).unwrap(),
        );
        let playing: Vec<Army> = state.position.live_armies();
        let expected = match seats {
            2 => vec![Army::Red, Army::Blue],
            3 => vec![Army::Red, Army::Green, Army::Blue],
            _ => Army::ALL.to_vec(),
        };
        assert_eq!(playing, expected, "§Q14 with {seats} players");
        assert_eq!(state.position.pieces().count(), 16 * seats);
    }
}

#[test]
fn q13_perft_from_the_start_in_teams_and_ffa() {
    for mode in [Mode::Teams, Mode::Ffa] {
        let start = Position::start(mode, [true; 4]);
        assert_eq!(perft(&start, 1), 20, "{mode:?}");
        assert_eq!(perft(&start, 2), 399, "{mode:?}");
    }
}

/// `pos` turned a quarter clockwise with each army relabelled as the next
/// (red→green→blue→gray→red): the same game.
fn rotated(pos: &Position) -> Position {
    use posthorn_rules::four_player_chess::board::{coords, exists};
    let mut turned = pos.clone();
    turned.cells = [None; 196];
    for (sq, piece) in pos.pieces() {
        let (f, r) = coords(sq);
        let (nf, nr) = (r, 13 - f);
        assert!(exists(nf, nr));
        let owner = match piece.owner.army() {
            Some(a) => [Owner::Red, Owner::Green, Owner::Blue, Owner::Gray][a.next().index()],
            None => Owner::Dead,
        };
        turned.cells[nr as usize * 14 + nf as usize] =
            Some(posthorn_rules::four_player_chess::Piece { owner, ..piece });
    }
    turned.to_move = pos.to_move.next();
    turned.out = std::array::from_fn(|i| pos.out[(i + 3) % 4]);
    turned.castling = [0; 4];
    turned
}

/// A random position: every army in play with its king and a few pieces.
fn random_position(random: &mut SplitMix64, mode: Mode) -> Position {
    use posthorn_rules::four_player_chess::{board::exists, Kind, Piece};
    let mut pos = Position::start(mode, [true; 4]);
    pos.cells = [None; 196];
    pos.castling = [0; 4];
    let kinds = [
        Kind::Queen,
        Kind::Rook,
        Kind::Bishop,
        Kind::Knight,
        Kind::Pawn,
        Kind::Pawn,
    ];
    for (i, owner) in [
        Owner::Red,
        Owner::Green,
        Owner::Blue,
        Owner::Gray,
        Owner::Dead,
    ]
    .into_iter()
    .enumerate()
    {
        let count = 1 + random.below(6) as usize;
        for n in 0..count {
            let kind = if n == 0 && i < 4 {
                Kind::King
            } else {
                kinds[random.below(6) as usize]
            };
            loop {
                let sq = random.below(196) as u8;
                let (f, r) = ((sq % 14) as i8, (sq / 14) as i8);
                if exists(f, r) && pos.cells[sq as usize].is_none() {
                    pos.cells[sq as usize] = Some(Piece {
                        owner,
                        kind,
                        promoted: false,
                    });
                    break;
                }
            }
        }
    }
    pos.to_move = Army::ALL[random.below(4) as usize];
    pos
}

#[test]
fn q13_turning_the_board_and_relabelling_the_armies_keeps_perft() {
    let mut random = SplitMix64::new(11);
    for i in 0..300 {
        let mode = [Mode::Teams, Mode::Ffa, Mode::Points][i % 3];
        let pos = random_position(&mut random, mode);
        let turned = rotated(&pos);
        let text = pos.to_notation();
        assert_eq!(perft(&pos, 2), perft(&turned, 2), "{text}");
        let reread = Position::from_notation(&text).unwrap();
        assert_eq!(reread, pos, "notation round trip");
    }
}

#[test]
fn q12_positions_name_what_is_wrong_with_them() {
    for (text, says) in [
        ("to=red; mode=teams", "castle= is missing"),
        (
            &board("red", "teams", ["Kh1,Kh2", "Ka8", "Kg14", "Kn7"], "") as &str,
            "2 kings",
        ),
        (
            &board("red", "chess", ["Kh1", "Ka8", "Kg14", "Kn7"], ""),
            "mode",
        ),
        (
            &board("red", "ffa", ["Kh1,Pc3", "Ka8", "Kg14", "Kn7"], ""),
            "square",
        ),
        (&board("red", "ffa", ["", "Ka8", "", ""], ""), "out"),
    ] {
        let error = Position::from_notation(text).unwrap_err();
        assert!(error.message.contains(says), "{text}: {}", error.message);
    }
}

/// The captures the engine's quiescence follows (`Position::captures`)
/// are the legal moves onto an occupied square, in the legal list's order,
/// over seeded random games in every mode (eliminations on the way).
#[test]
fn q5_the_captures_are_the_legal_moves_that_take() {
    let mut random = SplitMix64::new(69);
    let mut taking_seen = 0;
    for mode in [Mode::Teams, Mode::Ffa, Mode::Points] {
        for _ in 0..3 {
            let mut pos = Position::start(mode, [true; 4]);
            for _ in 0..200 {
                let mut listed = Vec::new();
                pos.legal_moves(&mut listed);
                let mut captures = Vec::new();
                pos.captures(&mut captures);
                let taking: Vec<Move> = (listed.iter().copied())
                    .filter(|m| pos.piece(m.to).is_some())
                    .collect();
                assert_eq!(captures, taking);
                taking_seen += taking.len();
                if listed.is_empty() {
                    break;
                }
                let pick = listed[random.below(listed.len() as u64) as usize];
                pos = pos.after_eliminations(pick);
                pos.pass_turn();
            }
        }
    }
    assert!(taking_seen > 50, "{taking_seen} captures met");
}
