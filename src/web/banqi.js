// Banqi (docs/rules/banqi.md §B): a 4 × 8 board of face-down and
// turned-up pieces; a turn-up names its one square. Turning up reveals a
// piece, so a takeback is never offered (§H1).
import { el, t } from "./core.js";
import { grid, squaresOfMove } from "./boards.js";

export const takeback = false;

const BANQI = {
  red: { general: "帥", advisor: "仕", elephant: "相", chariot: "俥", horse: "傌", cannon: "炮", soldier: "兵" },
  black: { general: "將", advisor: "士", elephant: "象", chariot: "車", horse: "馬", cannon: "包", soldier: "卒" },
};

export function layout(view) {
  const cells = grid(8, 4, 0);
  const pieces = {};
  for (const sq of view.face_down || []) {
    // A whole tile, face down (issue #49 item 4): as big as a piece.
    pieces[sq] = { glyph: "", cls: "face-down", label: t("face_down") };
  }
  for (const p of view.pieces || []) {
    pieces[p.square] = { glyph: (BANQI[p.colour] || {})[p.kind] || "?", cls: p.colour, label: t("side_" + p.colour) + " " + t("piece_banqi_" + p.kind) };
  }
  return { cols: 8, rows: 4, cells, pieces };
}

export function squaresOf(action) {
  if (action.type === "turn_up") return { at: action.square };
  return squaresOfMove(action);
}

/// Each seat's colour once the first turn-up gave it (§B3), with the
/// pieces it has captured; the colour to act.
export function sides(view) {
  return (view.colours || []).map((colour) => colour
    ? { side: colour, captured: captured(view, colour === "red" ? "black" : "red") }
    : { side: null });
}

/// The pieces of `colour` taken so far, each drawn as on the board
/// (issue #49 item 4: shown, not only counted).
function captured(view, colour) {
  return ((view.captured || {})[colour] || []).map((kind) => ({
    glyph: (BANQI[colour] || {})[kind] || "?", cls: colour, label: t("side_" + colour) + " " + t("piece_banqi_" + kind),
  }));
}

/// Before the first turn-up, what it decides (§B3): said at once.
export function panel(view, mySeat, actions, choose, active) {
  if (mySeat === undefined || !active || (view.colours || []).some(Boolean)) return null;
  return el("p", { class: "phase-prompt", "data-first-turn-up": "" }, t("banqi_first_turn_up"));
}
export const toMove = (view) => view.colour_to_act || null;
