// Janggi (docs/rules/janggi.md §J): a 9 × 10 board with its two palaces,
// Cho at the bottom unless the viewer plays Han.
import { t } from "./core.js";
import { FILES, grid } from "./boards.js";

export { squaresOfMove as squaresOf } from "./boards.js";

const JANGGI = {
  cho: { king: "楚", guard: "士", chariot: "車", cannon: "包", horse: "馬", elephant: "象", soldier: "卒" },
  han: { king: "漢", guard: "士", chariot: "車", cannon: "包", horse: "馬", elephant: "象", soldier: "兵" },
};

export function layout(view, mySeat) {
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
    pieces[p.square] = { glyph: (JANGGI[p.side] || {})[p.kind] || "?", cls: p.side, label: t("side_" + p.side) + " " + t("piece_janggi_" + p.kind) };
  }
  return { cols: 9, rows: 10, cells, pieces };
}


/// Cho and Han by seat with their points (§J6: Han's include the 1.5),
/// the side to move, and 장군 when it is in check.
export function sides(view) {
  const out = [];
  for (const side of ["cho", "han"]) {
    if (view[side] !== undefined) out[view[side]] = { side, points: view.points && view.points[side] };
  }
  return out;
}
export const toMove = (view) => view.side_to_move;
export const inCheck = (view) => Boolean(view.in_check);
