// What every board shares: squares named as the API names them ("e2";
// PDN numbers for checkers live with checkers), a grid of them turned so
// that the viewer's side is at the bottom, as the seeds draw it, and the
// chess glyphs two games use. Each game's own drawing is its module
// (checkers.js, flipchess.js, janggi.js, banqi.js, four_player_chess.js),
// found through games.js.
export const FILES = "abcdefghijklmn";

export function named(file, rank) {
  return FILES[file] + (rank + 1);
}

// A board of `files` × `ranks` named squares; `turns` quarter turns so
// that the viewer's side is at the bottom (rank 1 at the bottom at 0).
export function grid(files, ranks, turns, exists) {
  const cells = [];
  for (let rank = 0; rank < ranks; rank++) {
    for (let file = 0; file < files; file++) {
      if (exists && !exists(file, rank)) continue;
      let x = file, y = ranks - 1 - rank;
      if (turns === 2) {
        [x, y] = [files - 1 - x, ranks - 1 - y];
      } else {
        // Quarter turns clockwise: square boards only.
        for (let t = 0; t < turns; t++) [x, y] = [files - 1 - y, x];
      }
      cells.push({ id: named(file, rank), col: x, row: y, dark: (file + rank) % 2 === 0 });
    }
  }
  return cells;
}

export const CHESS = { k: "♚", q: "♛", r: "♜", b: "♝", n: "♞", p: "♟" };

// The squares a move joins, {from, to}, read from its notation ("e2e4",
// "e2-e4", "a10b10"); null for anything else.
export function squaresOfMove(action) {
  if (action.type !== "move" || typeof action.move !== "string") return null;
  const squares = action.move.match(/[a-n](1[0-4]|[1-9])/g) || [];
  return squares.length >= 2 ? { from: squares[0], to: squares[1] } : null;
}
