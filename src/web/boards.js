// What every board shares: squares named as the API names them ("e2";
// PDN numbers for checkers live with checkers), a grid of them turned so
// that the viewer's side is at the bottom, as the seeds draw it, and the
// chess glyphs two games use. Each game's own drawing is its module
// (checkers.js, flipchess.js, janggi.js, banqi.js, four_player_chess.js),
// found through games.js.
import { el } from "./core.js";

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

/// The coordinates written on a board's edges (issue #49 item 5), as
/// players read them: under each column, on its lowest square, the part of
/// the squares' names that changes across the board (the file, or on a
/// board turned a quarter the rank), and beside each row, on its leftmost
/// square, the part that changes up the board. Squares named otherwise
/// (checkers' numbers, written on every square) get none. A map from
/// square to `{file, rank}` labels.
function edgeLabels(cells) {
  const named = cells.filter((c) => c.id && /^[a-n]\d+$/.test(c.id));
  const parts = (c) => [c.id[0], c.id.slice(1)];
  // Two squares of one column: does going up change the letter?
  const column = named.filter((c) => named[0] && c.col === named[0].col && c.row !== named[0].row);
  const upIsLetter = column.length > 0 && parts(column[0])[0] !== parts(named[0])[0];
  const labels = new Map();
  const edge = (pick, key, place, part) => {
    const ends = new Map();
    for (const c of named) {
      const at = ends.get(c[key]);
      if (!at || pick(c, at)) ends.set(c[key], c);
    }
    for (const c of ends.values()) labels.set(c.id, Object.assign(labels.get(c.id) || {}, { [place]: parts(c)[part] }));
  };
  edge((c, at) => c.row > at.row, "col", "file", upIsLetter ? 1 : 0);
  edge((c, at) => c.col < at.col, "row", "rank", upIsLetter ? 0 : 1);
  return labels;
}

/// The coordinate chips of `cell` (from `edgeLabels`), as grid items laid
/// over its square: outside the square's button, whose name ("e4 White
/// pawn") already says where it is.
function coordinates(cell, edges) {
  const labels = edges.get(cell.id) || {};
  return ["file", "rank"].filter((k) => labels[k]).map((k) => {
    const chip = document.createElement("span");
    chip.className = "coord " + k;
    chip.setAttribute("aria-hidden", "true");
    chip.textContent = labels[k];
    chip.style.gridColumn = String(cell.col + 1);
    chip.style.gridRow = String(cell.row + 1);
    return chip;
  });
}

/// A board as a grid of squares, for the match page and the conditional
/// plan alike: each square a button named by its id and piece, drawn with
/// the game's piece (and checkers' number), coordinates on the edges
/// (issue #49 item 5). `square(id, piece)` says what the page adds to a
/// square: `{classes, said, disabled, tap}`.
export function squareGrid(board, attrs, square) {
  const edges = edgeLabels(board.cells);
  const grid = el("div", attrs);
  // Pieces and marks scale with the square (app.css: cqw units).
  grid.style.setProperty("--cols", String(board.cols));
  // CSSOM, not a style attribute: the CSP allows no inline style.
  grid.style.gridTemplateColumns = "repeat(" + board.cols + ", 1fr)";
  grid.style.aspectRatio = board.cols + " / " + board.rows;
  for (const cell of board.cells) {
    const piece = cell.id ? board.pieces[cell.id] : null;
    const more = cell.id ? square(cell.id, piece) : {};
    const node = el(cell.id ? "button" : "div", {
      class: ["sq", cell.dark ? "dark" : "light"].concat(cell.marks || [], more.classes || []).join(" "),
      type: cell.id ? "button" : null,
      "aria-label": cell.id ? cell.id + (piece ? " " + piece.label : "") + (more.said || "") : null,
      "data-square": cell.id,
      disabled: more.disabled ? true : null,
      on: more.tap ? { click: more.tap } : {},
    }, piece ? el("span", { class: "piece " + piece.cls, "aria-hidden": "true" }, piece.glyph) : null,
      // Checkers' numbers on every square; the label names the square.
      cell.number ? el("span", { class: "num", "aria-hidden": "true" }, cell.number) : null);
    node.style.gridColumn = String(cell.col + 1);
    node.style.gridRow = String(cell.row + 1);
    grid.append(node, ...coordinates(cell, edges));
  }
  return grid;
}
