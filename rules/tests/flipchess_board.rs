//! The FlipChess board (docs/rules/flipchess.md §F3): perft of single piece moves, and the
//! rules that differ from chess.

use posthorn_rules::flipchess::board::{Board, Group, Kind, Move, Side};

fn moves(fen: &str, group: Option<Group>) -> Vec<String> {
    let board = Board::from_fen(fen).unwrap();
    let mut out = Vec::new();
    board.moves(group, &mut out);
    let mut names: Vec<String> = out.iter().map(Move::to_string).collect();
    names.sort();
    names
}

#[test]
fn f3_each_colour_moves_its_group_and_the_king() {
    let fen = "4k3/8/8/8/8/8/1P6/R1BQK1N1 w - - 0 1";
    let red = moves(fen, Some(Group::Red));
    assert!(red.contains(&"b2b4".to_string()) && red.contains(&"e1f1".to_string()));
    assert!(red
        .iter()
        .all(|m| m.starts_with("b2") || m.starts_with("e1")));
    let yellow = moves(fen, Some(Group::Yellow));
    assert!(
        yellow.iter().all(|m| ["c1", "g1", "e1"].contains(&&m[..2])),
        "{yellow:?}"
    );
    let blue = moves(fen, Some(Group::Blue));
    assert!(blue.iter().all(|m| ["d1", "e1"].contains(&&m[..2])));
    let green = moves(fen, Some(Group::Green));
    assert!(green.iter().all(|m| ["a1", "e1"].contains(&&m[..2])));
}

#[test]
fn f3_castling_is_green_only_and_allowed_through_attacked_squares() {
    // The black rook on f8 attacks f1, which the king crosses.
    let fen = "4kr2/8/8/8/8/8/8/R3K2R w KQ - 0 1";
    let green = moves(fen, Some(Group::Green));
    assert!(green.contains(&"e1g1".to_string()) && green.contains(&"e1c1".to_string()));
    assert!(
        !moves(fen, Some(Group::Red)).contains(&"e1g1".to_string()),
        "not with a red card"
    );
    let mut board = Board::from_fen(fen).unwrap();
    board.play(&Move::parse("e1g1").unwrap());
    assert_eq!(
        board.to_fen().split(' ').next().unwrap(),
        "4kr2/8/8/8/8/8/8/R4RK1"
    );
    assert_eq!(board.castling, [false, false, false, false]);
}

#[test]
fn f3_no_castling_once_king_or_rook_has_moved_or_with_pieces_between() {
    assert!(
        !moves("4k3/8/8/8/8/8/8/R3K2R w - - 0 1", Some(Group::Green)).contains(&"e1g1".to_string())
    );
    assert!(
        !moves("4k3/8/8/8/8/8/8/R3KB1R w KQ - 0 1", Some(Group::Green))
            .contains(&"e1g1".to_string())
    );
    let mut board = Board::from_fen("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1").unwrap();
    board.play(&Move::parse("h1h2").unwrap());
    board.play(&Move::parse("h2h1").unwrap());
    let mut out = Vec::new();
    board.moves(Some(Group::Green), &mut out);
    assert!(!out.iter().any(|m| m.to_string() == "e1g1"));
}

#[test]
fn f3_no_en_passant() {
    // Black has just played d7d5 beside the white pawn on e5.
    let list = moves("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", Some(Group::Red));
    assert!(!list.contains(&"e5d6".to_string()));
}

#[test]
fn f3_promotion_by_choice_and_the_new_piece_joins_its_group() {
    let fen = "4k3/P7/8/8/8/8/8/4K3 w - - 0 1";
    let red = moves(fen, Some(Group::Red));
    for p in ["a7a8q", "a7a8r", "a7a8b", "a7a8n"] {
        assert!(red.contains(&p.to_string()), "{p}");
    }
    let mut board = Board::from_fen(fen).unwrap();
    let err = board.find_move("a7a8", Some(Group::Red)).unwrap_err();
    assert!(err.message.contains("promotion"), "{}", err.message);
    board.play(&board.find_move("a7a8n", Some(Group::Red)).unwrap());
    let yellow = moves(&board.to_fen(), Some(Group::Yellow));
    assert!(
        yellow.iter().any(|m| m.starts_with("a8")),
        "the new knight moves with yellow"
    );
    assert!(!moves(&board.to_fen(), Some(Group::Blue))
        .iter()
        .any(|m| m.starts_with("a8")));
}

#[test]
fn f3_kings_are_captured_like_any_piece_and_a_side_without_a_king_cannot_move() {
    let fen = "8/8/8/8/8/8/3k4/4K3 w - - 0 1";
    assert!(
        moves(fen, None).contains(&"e1d2".to_string()),
        "moving next to a king is allowed, and taking it"
    );
    let mut board = Board::from_fen(fen).unwrap();
    let taken = board.play(&Move::parse("e1d2").unwrap());
    assert_eq!(taken.map(|p| p.kind), Some(Kind::King));
    board.side = Side::Black;
    let mut out = Vec::new();
    board.moves(None, &mut out);
    assert!(out.is_empty());
}

#[test]
fn f9_material_uses_standard_values() {
    let board = Board::start();
    assert_eq!(board.material(Side::White), 8 + 2 * 3 + 2 * 3 + 2 * 5 + 9);
}

#[test]
fn malformed_positions_and_moves_are_refused_precisely() {
    for fen in [
        "",
        "8/8/8 w",
        "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w",
        "xnbqkbnr/8/8/8/8/8/8/8 w",
        "8/8/8/8/8/8/8/8 x",
    ] {
        assert_eq!(
            Board::from_fen(fen).unwrap_err().code,
            "validation_failed",
            "{fen:?}"
        );
    }
    for text in ["", "e2", "e2e9", "z2e4", "e7e8k", "e2e4qq"] {
        assert_eq!(
            Move::parse(text).unwrap_err().code,
            "validation_failed",
            "{text:?}"
        );
    }
}
