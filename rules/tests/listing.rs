//! `posthorn_rules::listing`, what the `moves` example prints (issue #30,
//! item 17): the legal actions of a position, none when the match is over
//! there, and why — judged as each game's `perft` judges it.

mod harness;

use posthorn_rules::listing::{legal_moves, Ending, Listing};
use posthorn_rules::GameId;
use serde_json::json;

fn listed(game: &str, position: &str) -> Listing {
    legal_moves(game, Some(position)).unwrap_or_else(|e| panic!("{game} {position}: {e}"))
}

fn over(reason: &'static str, clause: &'static str) -> Option<Ending> {
    Some(Ending { reason, clause })
}

/// §B6: Red to act with nothing on the board (its face-down advisor is
/// Black's) has lost; Black's general could still move.
#[test]
fn b6_a_side_without_pieces_lists_no_move_and_the_match_is_over() {
    let listing = listed("banqi", "8/8/?a7/k7 r 0");
    assert_eq!(listing.moves, Vec::<String>::new());
    assert_eq!(listing.over, over("no_pieces", "§B6"));
    assert_eq!(listing.over.unwrap().to_string(), "no_pieces (§B6)");
}

/// §B7: the 180th quiet ply has been played, so the match is drawn; one
/// ply earlier the same board has moves.
#[test]
fn b7_after_180_quiet_plies_no_move_is_listed() {
    let listing = listed("banqi", "8/1cN5/1Pc5/8 r 180");
    assert_eq!(listing.moves, Vec::<String>::new());
    assert_eq!(listing.over, over("no_progress", "§B7"));
    let before = listed("banqi", "8/1cN5/1Pc5/8 r 179");
    assert!(!before.moves.is_empty());
    assert_eq!(before.over, None);
}

/// The ending of each game as its result names it, with its clause.
#[test]
fn every_game_names_why_a_finished_position_has_no_move() {
    for (game, position, reason, clause) in [
        // White to move has no piece left.
        ("checkers", "W:W:B1,2", "no_pieces", "§C1"),
        // White's man on 29 can neither step to 25 nor jump it (22 taken).
        ("checkers", "W:W29:B25,22", "no_legal_move", "§C1"),
        // Black to move has lost its king.
        (
            "flipchess",
            "4Q3/8/8/8/8/8/8/4K3 b - - 0 1",
            "king_captured",
            "§F9",
        ),
        // The kings face each other on the e file.
        (
            "janggi",
            "4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1",
            "bikjang",
            "§J6",
        ),
        // Red's king, boxed in by its own pawns, is mated by Green's rook.
        (
            "four_player_chess",
            "to=red; mode=teams; castle=red:-,green:-,blue:-,gray:-; out=; red=Kh1,Pg2,Ph2,Pi2; green=Ka8,Rd1; blue=Kg14; gray=Kn7; dead=",
            "checkmate",
            "§Q6",
        ),
        // Red, not in check, has no move (the rook covers rank 2, the
        // knight g1 and i1) with only two armies left: a draw.
        (
            "four_player_chess",
            "to=red; mode=ffa; castle=red:-,green:-,blue:-,gray:-; out=blue,gray; red=Kh1; green=Ka8,Rd2,Nh3; blue=; gray=; dead=",
            "stalemate",
            "§Q7",
        ),
    ] {
        let listing = listed(game, position);
        assert_eq!(listing.moves, Vec::<String>::new(), "{game} {position}");
        assert_eq!(listing.over, over(reason, clause), "{game} {position}");
    }
}

/// §Q14: a stalemated army with three others in play is eliminated before
/// the turn passes (not a ply); the moves listed are the next army's.
#[test]
fn q14_the_start_of_the_turn_is_judged_before_the_moves_are_listed() {
    let position = "to=red; mode=ffa; castle=red:-,green:-,blue:-,gray:-; out=; red=Kh1; green=Ka8,Rd2,Nh3; blue=Kg14; gray=Kn7; dead=";
    let listing = listed("four_player_chess", position);
    assert_eq!(listing.over, None);
    assert!(listing.moves.contains(&"d2d1".to_owned()), "{listing:?}");
    assert_eq!(
        listing.notes,
        [
            "red is eliminated at the start of its turn (§Q7)",
            "green to move: red's turn was judged first (§Q14)"
        ]
    );
}

/// Every position of the perft files and every start: as many moves as
/// `perft` counts at depth 1, and none where the match is over.
#[test]
fn the_moves_listed_are_what_perft_counts_at_depth_1() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let stem = path.file_stem().unwrap().to_str().unwrap().to_owned();
        let (id, game, config) = match stem.split_once('-') {
            Some((id, variant)) => (
                id.to_owned(),
                format!("{id}/{variant}"),
                json!({ "variant": variant }),
            ),
            None => (stem.clone(), stem.clone(), json!({})),
        };
        // The test crate's toy game has no listing.
        let Some(game_id) = GameId::parse(&id) else {
            continue;
        };
        let text = std::fs::read_to_string(&path).unwrap();
        let mut positions: Vec<&str> = text
            .lines()
            .filter_map(harness::perft_row)
            .map(|(position, _, _)| position)
            .collect();
        positions.dedup();
        for position in positions {
            let listing = listed(&game, position);
            let count = game_id.perft(&config, position, 1).unwrap();
            assert_eq!(listing.moves.len() as u64, count, "{game} {position}");
            if listing.over.is_some() {
                assert!(listing.moves.is_empty(), "{game} {position}");
            }
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} positions");
    for game in [
        "checkers",
        "flipchess",
        "janggi",
        "banqi",
        "four_player_chess",
    ] {
        let start = legal_moves(game, None).unwrap();
        assert!(!start.moves.is_empty() && start.over.is_none(), "{game}");
    }
}

#[test]
fn an_unknown_game_or_variant_is_named_in_the_refusal() {
    for (game, says) in [("chess", "unknown game"), ("checkers/frisian", "variant")] {
        let error = legal_moves(game, None).unwrap_err();
        assert!(error.message.contains(says), "{game}: {}", error.message);
    }
}
