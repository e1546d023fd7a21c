// Checkers and its variants (docs/rules/checkers.md §C): PDN numbers on
// the dark squares, 1 at Black's far left; a move names its squares by
// number, a multi-capture every square it lands on.
import { t } from "./core.js";
export function layout(view, mySeat) {
  const size = view.size || 8;
  const perRow = size / 2;
  const cells = [];
  const flip = mySeat === 0; // seat 0 plays Black, whose men start at the top
  for (let n = 1; n <= size * perRow; n++) {
    const row = Math.floor((n - 1) / perRow);
    const k = (n - 1) % perRow;
    const col = row % 2 === 0 ? 2 * k + 1 : 2 * k;
    cells.push({
      id: String(n),
      col: flip ? size - 1 - col : col,
      row: flip ? size - 1 - row : row,
      dark: true,
      number: n,
    });
  }
  for (let row = 0; row < size; row++) {
    for (let col = 0; col < size; col++) {
      if ((row + col) % 2 === 0) cells.push({ id: null, col, row, dark: false });
    }
  }
  const pieces = {};
  for (const p of view.pieces || []) {
    pieces[String(p.square)] = {
      // A disc filling the square; a king carries a large crown in a
      // colour that stands out from its disc (issue #49 item 4; 3:1 at
      // least, app.css), never a chess queen (issue #33).
      glyph: p.king ? "♛" : "",
      cls: "disc " + p.colour + (p.king ? " king" : " man"),
      label: t("side_" + p.colour) + " " + t(p.king ? "piece_checkers_king" : "piece_checkers_man"),
    };
  }
  return { cols: size, rows: size, cells, pieces };
}

export function squaresOf(action) {
  if (action.type !== "move" || typeof action.move !== "string") return null;
  const numbers = action.move.match(/\d+/g) || [];
  // A multi-capture lands on every square between: its path is drawn.
  return numbers.length >= 2 ? { from: numbers[0], to: numbers[numbers.length - 1], path: numbers.slice(1, -1) } : null;
}

/// Each seat's side (§C1: seat 0 Black), and the side to move.
export const sides = (view) => (view.colours || []).map((side) => ({ side }));
export const toMove = (view) => view.side_to_move;
