// The five boards: where each square is drawn, what stands on it, and
// which squares an action joins. Squares are named as the API names them
// (PDN numbers for checkers, "e2" elsewhere). The viewer's own side is
// drawn at the bottom, as the seeds draw it.
const FILES = "abcdefghijklmn";

function named(file, rank) {
  return FILES[file] + (rank + 1);
}

// A board of `files` × `ranks` named squares; `turns` quarter turns so
// that the viewer's side is at the bottom (rank 1 at the bottom at 0).
function grid(files, ranks, turns, exists) {
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

// Checkers: PDN numbers on the dark squares, 1 at Black's far left.
function checkers(view, mySeat) {
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
      glyph: p.king ? "♛" : "●",
      cls: p.colour,
      label: p.colour + (p.king ? " king" : " man"),
    };
  }
  return { cols: size, rows: size, cells, pieces };
}

const CHESS = { k: "♚", q: "♛", r: "♜", b: "♝", n: "♞", p: "♟" };
const CHESS_NAMES = { k: "king", q: "queen", r: "rook", b: "bishop", n: "knight", p: "pawn" };

function flipchess(view, mySeat) {
  const black = mySeat !== undefined && mySeat !== view.white;
  const cells = grid(8, 8, black ? 2 : 0);
  const pieces = {};
  const rows = (view.position || "").split(" ")[0].split("/");
  rows.forEach((row, i) => {
    let file = 0;
    for (const c of row) {
      if (/\d/.test(c)) {
        file += Number(c);
        continue;
      }
      const white = c === c.toUpperCase();
      const kind = c.toLowerCase();
      pieces[named(file, 7 - i)] = {
        glyph: CHESS[kind] || c,
        cls: white ? "white" : "black",
        label: (white ? "white " : "black ") + (CHESS_NAMES[kind] || c),
      };
      file += 1;
    }
  });
  return { cols: 8, rows: 8, cells, pieces };
}

const JANGGI = {
  cho: { king: "楚", guard: "士", chariot: "車", cannon: "包", horse: "馬", elephant: "象", soldier: "卒" },
  han: { king: "漢", guard: "士", chariot: "車", cannon: "包", horse: "馬", elephant: "象", soldier: "兵" },
};

function janggi(view, mySeat) {
  const han = mySeat !== undefined && mySeat === view.han;
  const cells = grid(9, 10, han ? 2 : 0);
  // §J1: the two palaces (files d–f, ranks 1–3 and 8–10) are marked.
  for (const cell of cells) {
    const file = FILES.indexOf(cell.id[0]);
    const rank = Number(cell.id.slice(1));
    if (file >= 3 && file <= 5 && (rank <= 3 || rank >= 8)) cell.marks = ["palace"];
  }
  const pieces = {};
  for (const p of view.pieces || []) {
    pieces[p.square] = { glyph: (JANGGI[p.side] || {})[p.kind] || "?", cls: p.side, label: p.side + " " + p.kind };
  }
  return { cols: 9, rows: 10, cells, pieces };
}

const BANQI = {
  red: { general: "帥", advisor: "仕", elephant: "相", chariot: "俥", horse: "傌", cannon: "炮", soldier: "兵" },
  black: { general: "將", advisor: "士", elephant: "象", chariot: "車", horse: "馬", cannon: "包", soldier: "卒" },
};

function banqi(view) {
  const cells = grid(8, 4, 0);
  const pieces = {};
  for (const sq of view.face_down || []) {
    pieces[sq] = { glyph: "◼", cls: "face-down", label: "face-down piece" };
  }
  for (const p of view.pieces || []) {
    pieces[p.square] = { glyph: (BANQI[p.colour] || {})[p.kind] || "?", cls: p.colour, label: p.colour + " " + p.kind };
  }
  return { cols: 8, rows: 4, cells, pieces };
}

const ARMIES = ["red", "green", "blue", "gray"];

function fourPlayer(view, mySeat) {
  const mine = (view.armies || []).find((a) => a.seat === mySeat);
  // Red sits at the bottom unturned; Green (west) a quarter turn, …
  const turns = mine ? (4 - ARMIES.indexOf(mine.army)) % 4 : 0;
  const edge = (x) => x < 3 || x > 10;
  const cells = grid(14, 14, turns, (f, r) => !(edge(f) && edge(r)));
  const pieces = {};
  for (const p of view.pieces || []) {
    const kind = p.kind === "knight" ? "n" : p.kind[0];
    pieces[p.square] = { glyph: CHESS[kind], cls: p.owner, label: p.owner + " " + p.kind };
  }
  return { cols: 14, rows: 14, cells, pieces };
}

export function layout(game, view, mySeat) {
  switch (game) {
    case "checkers": return checkers(view, mySeat);
    case "flipchess": return flipchess(view, mySeat);
    case "janggi": return janggi(view, mySeat);
    case "banqi": return banqi(view, mySeat);
    case "four_player_chess": return fourPlayer(view, mySeat);
    default: return { cols: 0, rows: 0, cells: [], pieces: {} };
  }
}

// The squares an action joins: {from, to} for a move, {at} for a
// Banqi turn-up; null for the rest (cards, pass, offers, resignation).
export function squaresOf(game, action) {
  if (action.type === "turn_up") return { at: action.square };
  if (action.type !== "move" || typeof action.move !== "string") return null;
  if (game === "checkers") {
    const numbers = action.move.match(/\d+/g) || [];
    return numbers.length >= 2 ? { from: numbers[0], to: numbers[numbers.length - 1] } : null;
  }
  const squares = action.move.match(/[a-n](1[0-4]|[1-9])/g) || [];
  return squares.length >= 2 ? { from: squares[0], to: squares[1] } : null;
}

