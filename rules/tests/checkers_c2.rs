//! Checkers variants, rule by rule (docs/rules/checkers.md §C2), on PDN positions
//! (8×8: 1 = b8 … 32 = g1, White at the bottom on 21–32).

use posthorn_rules::checkers::{Board, Variant};

fn moves(variant: Variant, fen: &str) -> Vec<String> {
    let board = Board::from_fen(variant, fen).unwrap();
    let mut all: Vec<String> = board
        .legal_moves(variant)
        .iter()
        .map(|m| m.to_string())
        .collect();
    all.sort();
    all
}

fn sorted(list: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = list.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

use Variant::*;

#[test]
fn c2_men_capture_backward_in_brazilian_russian_pool_and_international() {
    // White's man on 18 (d4) behind Black's on 22 (c3), 25 empty.
    for variant in [Brazilian, Russian, Pool] {
        assert_eq!(moves(variant, "W:W18:B1,22"), ["18x25"], "{variant:?}");
    }
    for variant in [American, Spanish, Thai] {
        assert!(
            !moves(variant, "W:W18:B1,22")
                .iter()
                .any(|m| m.contains('x')),
            "{variant:?}"
        );
    }
    // 10×10: White's man on 28 behind Black's on 33, 39 empty.
    assert_eq!(moves(International, "W:W28:B1,33"), ["28x39"]);
}

#[test]
fn c2_flying_kings_move_and_capture_at_distance() {
    // White's king on 29 (a1), Black's man on 18 (d4) up the long diagonal.
    for variant in [Brazilian, Russian, Pool, Spanish] {
        assert_eq!(
            moves(variant, "W:WK29:B1,18"),
            sorted(&["29x15", "29x11", "29x8", "29x4"]),
            "{variant:?}"
        );
        let quiet = moves(variant, "W:WK29:B1");
        assert_eq!(
            quiet,
            sorted(&["29-25", "29-22", "29-18", "29-15", "29-11", "29-8", "29-4"]),
            "{variant:?}"
        );
    }
    // American kings are short: no capture from afar, one step.
    assert_eq!(moves(American, "W:WK29:B1,18"), ["29-25"]);
}

#[test]
fn c2_thai_kings_land_directly_behind_the_captured_piece() {
    assert_eq!(moves(Thai, "W:WK29:B1,18"), ["29x15"]);
}

#[test]
fn c2_thai_captured_pieces_leave_as_they_are_jumped() {
    // King on 15; Black on 18 and 11. Taking 18 lands on 22; from there the
    // way back up passes 18 — empty at once in Thai — to take 11, and the
    // other way round. Elsewhere a captured piece stays until the move
    // ends and blocks the way.
    assert_eq!(
        moves(Thai, "W:WK15:B11,18"),
        sorted(&["15x22x8", "15x8x22"])
    );
    assert_eq!(
        moves(Russian, "W:WK15:B11,18"),
        sorted(&["15x22", "15x25", "15x29", "15x8", "15x4"])
    );
}

#[test]
fn c2_majority_capture_is_mandatory_in_brazilian_spanish_and_international() {
    // 22x13 takes one; 22x15x6 takes two.
    assert_eq!(moves(Brazilian, "W:W22:B10,17,18"), ["22x15x6"]);
    assert_eq!(moves(Spanish, "W:W22:B10,17,18"), ["22x15x6"]);
    assert_eq!(
        moves(Russian, "W:W22:B10,17,18"),
        sorted(&["22x13", "22x15x6"])
    );
    assert_eq!(
        moves(Pool, "W:W22:B10,17,18"),
        sorted(&["22x13", "22x15x6"])
    );
}

#[test]
fn c2_spanish_ties_go_to_the_capture_of_more_kings() {
    // One piece either way; 17 is a king.
    assert_eq!(moves(Spanish, "W:W22:BK17,18"), ["22x13"]);
    assert_eq!(
        moves(Brazilian, "W:W22:BK17,18"),
        sorted(&["22x13", "22x15"])
    );
}

#[test]
fn c2_a_man_reaching_the_last_row_mid_capture() {
    // White's man on 11 takes 7, lands on 2 (the last row), and could take 6.
    let fen = "W:W11:B6,7";
    // Russian: crowned, captures on as a king (to any square beyond).
    assert_eq!(moves(Russian, fen), sorted(&["11x2x9", "11x2x13"]));
    // Pool and Brazilian: captures on as a man, not crowned where it ends.
    for variant in [Pool, Brazilian] {
        assert_eq!(moves(variant, fen), ["11x2x9"], "{variant:?}");
        let board = Board::from_fen(variant, fen).unwrap();
        let mv = board.find_move(variant, "11x2x9").unwrap();
        assert!(!board.crowns(&mv), "{variant:?}: a man still");
    }
    let board = Board::from_fen(Russian, fen).unwrap();
    assert!(board.crowns(&board.find_move(Russian, "11x2x13").unwrap()));
    // American: crowned, and the move ends there.
    let board = Board::from_fen(American, fen).unwrap();
    let mv = board.find_move(American, "11x2").unwrap();
    assert!(board.crowns(&mv));
    assert_eq!(moves(American, fen), ["11x2"]);
}

#[test]
fn c2_a_flying_king_lands_where_its_capture_can_go_on() {
    // Taking 22 from 29, only the landing on 15 lets it take 10 next.
    assert_eq!(
        moves(Russian, "W:WK29:B10,22"),
        sorted(&["29x15x6", "29x15x1"])
    );
}

#[test]
fn c2_international_starts_with_twenty_men_each_on_10x10() {
    let board = Board::start(International);
    assert_eq!(International.size(), 10);
    assert_eq!(
        board.to_fen(International),
        format!(
            "W:W{}:B{}",
            (31..=50)
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(","),
            (1..=20)
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(",")
        )
    );
    assert_eq!(board.legal_moves(International).len(), 9);
}

#[test]
fn c2_thai_starts_with_eight_men_each_and_white_moves_first() {
    assert_eq!(
        Board::start(Thai).to_fen(Thai),
        "W:W25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8"
    );
    for variant in [Brazilian, Russian, Pool, Spanish] {
        assert_eq!(
            Board::start(variant).to_fen(variant),
            "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
        );
    }
    assert!(Board::start(American).to_fen(American).starts_with("B:"));
}

#[test]
fn c2_russian_and_brazilian_moves_may_be_written_algebraically() {
    for variant in [Russian, Brazilian] {
        let board = Board::start(variant);
        assert_eq!(
            board.find_move(variant, "c3-d4").unwrap().to_string(),
            "22-18"
        );
        assert_eq!(
            board.find_move(variant, "22-18").unwrap().to_string(),
            "22-18"
        );
        assert!(board.find_move(variant, "c3-c4").is_err());
    }
    let board = Board::from_fen(Russian, "W:W22:B1,18").unwrap();
    assert_eq!(
        board.find_move(Russian, "c3:e5").unwrap().to_string(),
        "22x15"
    );
    // Elsewhere PDN numbers only.
    assert!(Board::start(Pool).find_move(Pool, "c3-d4").is_err());
}

#[test]
fn c2_a_capture_is_named_by_its_route_or_by_its_ends_alone() {
    let board = Board::from_fen(Brazilian, "W:W22:B10,17,18").unwrap();
    assert_eq!(
        board.find_move(Brazilian, "22x15x6").unwrap().to_string(),
        "22x15x6"
    );
    assert_eq!(
        board.find_move(Brazilian, "22x6").unwrap().to_string(),
        "22x15x6"
    );
    // The shorter capture is refused where the majority rule holds.
    assert_eq!(
        board.find_move(Brazilian, "22x13").unwrap_err().code,
        "illegal_action"
    );
}

#[test]
fn c2_international_flying_king_takes_at_distance_on_10x10() {
    // White's king on 46 (a1), Black's man on 32 up the long diagonal.
    assert_eq!(
        moves(International, "W:WK46:B1,32"),
        sorted(&["46x28", "46x23", "46x19", "46x14", "46x10", "46x5"])
    );
}
