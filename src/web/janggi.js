// Janggi (docs/rules/janggi.md §J): a 9 × 10 board with its two palaces,
// Cho at the bottom unless the viewer plays Han.
import { el, t } from "./core.js";
import { FILES, grid } from "./boards.js";

export { squaresOfMove as squaresOf } from "./boards.js";

const JANGGI = {
  cho: { king: "楚", guard: "士", chariot: "車", cannon: "包", horse: "馬", elephant: "象", soldier: "卒" },
  han: { king: "漢", guard: "士", chariot: "車", cannon: "包", horse: "馬", elephant: "象", soldier: "兵" },
};

/// Pieces by rank, as a Janggi set is cut: the general largest, the
/// guards and soldiers smallest.
const RANK = { king: "r-king", chariot: "r-big", cannon: "r-big", horse: "r-big", elephant: "r-big", guard: "r-small", soldier: "r-small" };

// Janggi is played on the lines' intersections (§J1): each cell of the
// grid is one intersection, drawn with its lines through its centre (half
// lines on the board's edge) and, inside a palace, its diagonals: both
// through the centre point, one toward the centre from each corner.
export function layout(view, mySeat) {
  const han = mySeat !== undefined && mySeat === view.han;
  const cells = grid(9, 10, han ? 2 : 0);
  for (const cell of cells) {
    const file = FILES.indexOf(cell.id[0]);
    const rank = Number(cell.id.slice(1));
    const marks = ["point"];
    if (cell.row === 0) marks.push("edge-top");
    if (cell.row === 9) marks.push("edge-bottom");
    if (cell.col === 0) marks.push("edge-left");
    if (cell.col === 8) marks.push("edge-right");
    const palace = file >= 3 && file <= 5 && (rank <= 3 || rank >= 8);
    if (palace) {
      const centre = cells.find((c) => c.id === FILES[4] + (rank <= 3 ? 2 : 9));
      const [dx, dy] = [Math.sign(centre.col - cell.col), Math.sign(centre.row - cell.row)];
      if (!dx && !dy) marks.push("diag-x");
      else if (dx && dy) marks.push("diag-" + (dy < 0 ? "n" : "s") + (dx < 0 ? "w" : "e"));
    }
    cell.marks = marks;
    cell.dark = false;
  }
  const pieces = {};
  for (const p of view.pieces || []) {
    const label = t("side_" + p.side) + " " + t("piece_janggi_" + p.kind);
    pieces[p.square] = { glyph: (JANGGI[p.side] || {})[p.kind] || "?", cls: p.side + " " + (RANK[p.kind] || ""), label };
  }
  return { cols: 9, rows: 10, cells, pieces };
}

/// The square of the general in check (§J4), marked on the board.
export function checked(view) {
  if (!view.in_check) return [];
  const general = (view.pieces || []).find((p) => p.kind === "king" && p.side === view.side_to_move);
  return general ? [general.square] : [];
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

/// What the points on the strips are (§J6, §J7), said under the board
/// where they are shown (issue #49 item 11).
export function panel(view) {
  if (!view.points) return null;
  return el("details", { class: "points-key" }, el("summary", {}, t("janggi_points_what")), el("p", {}, t("janggi_points_rule")));
}
