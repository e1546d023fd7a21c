//! Drawings (issue #69 item 5, docs/pictures.md), one line per game: the
//! board a view shows has every cell once and every piece the view names
//! on its square, and nothing the view does not name (§H4): a Banqi start
//! seen by anyone is 32 blank discs; FlipChess draws its board, never a
//! hand.

use posthorn_rules::drawing::Drawing;
use posthorn_rules::{GameId, MatchState, SplitMix64, Viewer};
use serde_json::json;

fn opening(game: GameId, config: serde_json::Value, seats: usize) -> Drawing {
    let events = MatchState::setup(game, &config, seats, &mut SplitMix64::new(3)).unwrap();
    let state = MatchState::replay(game, &events).unwrap();
    game.drawing(&state.view(Viewer::Spectator)).unwrap()
}

/// Each cell once, inside the board; the pieces drawn.
fn checked(d: &Drawing, cells: usize, pieces: usize) {
    assert_eq!(d.cells.len(), cells);
    let mut seen = std::collections::HashSet::new();
    for c in &d.cells {
        assert!(c.col < d.cols && c.row < d.rows, "{c:?}");
        assert!(seen.insert((c.col, c.row)), "{c:?} twice");
    }
    assert_eq!(d.cells.iter().filter(|c| c.piece.is_some()).count(), pieces);
}

#[test]
fn every_game_draws_its_opening_cell_by_cell() {
    checked(&opening(GameId::Checkers, json!({}), 2), 64, 24);
    checked(
        &opening(GameId::Checkers, json!({"variant": "international"}), 2),
        100,
        40,
    );
    checked(&opening(GameId::Janggi, json!({}), 2), 90, 32);
    checked(&opening(GameId::FlipChess, json!({}), 2), 64, 32);
    checked(&opening(GameId::FourPlayerChess, json!({}), 4), 160, 64);
    let banqi = opening(GameId::Banqi, json!({}), 2);
    checked(&banqi, 32, 32);
    assert!(
        (banqi.cells.iter()).all(|c| c.piece.as_ref().is_some_and(|p| p.glyph.is_empty())),
        "§B8: every piece face down, a blank disc"
    );
    // Checkers: §C1's square 1 at Black's far left, on the top row.
    let checkers = opening(GameId::Checkers, json!({}), 2);
    let first = (checkers.cells.iter())
        .find(|c| c.row == 0 && c.piece.is_some())
        .unwrap();
    assert_eq!((first.col, first.piece.as_ref().unwrap().ink), (1, "black"));
}
