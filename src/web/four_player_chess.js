// Four-player chess (docs/rules/four-player-chess.md §Q): the 14 × 14
// board without its corners, turned so the viewer's army is at the bottom.
import { t } from "./core.js";
import { CHESS, grid } from "./boards.js";

export { squaresOfMove as squaresOf } from "./boards.js";

// Between people no takeback is asked for: other armies move between
// one's own (issue #34). Against the computer one still may.
export const askTakeback = false;

const ARMIES = ["red", "green", "blue", "gray"];

export function layout(view, mySeat) {
  const mine = (view.armies || []).find((a) => a.seat === mySeat);
  // Red sits at the bottom unturned; Green (west) a quarter turn, …
  const turns = mine ? (4 - ARMIES.indexOf(mine.army)) % 4 : 0;
  const edge = (x) => x < 3 || x > 10;
  const cells = grid(14, 14, turns, (f, r) => !(edge(f) && edge(r)));
  const pieces = {};
  for (const p of view.pieces || []) {
    const kind = p.kind === "knight" ? "n" : p.kind[0];
    pieces[p.square] = { glyph: CHESS[kind], cls: p.owner, label: t("side_" + p.owner) + " " + t("piece_chess_" + kind) };
  }
  return { cols: 14, rows: 14, cells, pieces };
}


/// Each seat's army or armies (a player may hold two), and the army to
/// move: "Blue to move", not just "your turn".
export function sides(view) {
  const out = [];
  for (const a of view.armies || []) {
    if (a.seat === null || a.seat === undefined) continue; // an absent army
    // §Q8: points, in the mode that counts them.
    out[a.seat] = out[a.seat] || { side: a.army, armies: [], points: view.mode === "points" ? 0 : undefined };
    if (view.mode === "points") out[a.seat].points += a.points;
    out[a.seat].armies.push(a.army);
  }
  return out;
}
export const toMove = (view) => view.army_to_move || null;

/// The kings of the armies in check.
export function checked(view) {
  const armies = (view.armies || []).filter((a) => a.in_check).map((a) => a.army);
  return (view.pieces || []).filter((p) => p.kind === "king" && armies.includes(p.owner)).map((p) => p.square);
}
export const inCheck = (view) => (view.armies || []).some((a) => a.in_check && a.army === view.army_to_move);

/// Teams (§Q): the armies facing each other play together.
export const team = (view, army) => (view.mode === "teams" ? (["red", "blue"].includes(army) ? 1 : 2) : null);
