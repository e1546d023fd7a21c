// FlipChess's cards on the match page (docs/rules/flipchess.md §F): the pile, the deck,
// the round, the phase, and the viewer's own hand as cards to tap. Only
// the viewer's own hand is ever in their view (§H1); the opponent's is a
// count.
import { el, t } from "./core.js";
import { CHESS, CHESS_NAMES, grid, named } from "./boards.js";

export { squaresOfMove as squaresOf } from "./boards.js";

// Cards are drawn from a shuffled deck: a takeback would show them (§H1).
export const takeback = false;

// The board: a chess position, Black's side at the bottom for Black.
export function layout(view, mySeat) {
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



const SYMBOL = { skip: "⊘", flip: "⇅", draw2: "+2", wild: "★", "wild-draw4": "+4" };
export const COLOURS = ["red", "yellow", "green", "blue"];

/// `red-7` → {colour: "red", face: "7"}; `wild-draw4` → {colour: null, face: "+4"}.
export function card(name) {
  const [head, ...rest] = String(name).split("-");
  if (COLOURS.includes(head)) return { colour: head, face: SYMBOL[rest.join("-")] || rest.join("-") };
  return { colour: null, face: SYMBOL[name] || name };
}

/// A card's name as read aloud, with what its face shows in it (the
/// visible "+2" is part of "green +2 (draw2)").
function spoken(name) {
  const c = card(name);
  const rest = c.colour ? name.slice(c.colour.length + 1) : name;
  return (c.colour ? c.colour + " " : "") + c.face + (c.face === rest ? "" : " (" + rest.replace(/-/g, " ") + ")");
}

export function cardFace(name, attrs) {
  const c = card(name);
  return el("span", Object.assign({ class: "card-face " + (c.colour || "wild") }, attrs || {}), c.face);
}

/// The play a tap on `name` means: the "last card!" call goes with a play
/// that leaves one card (§F8), so that nobody is caught for forgetting in a
/// game played a day a move; a Wild waits for its colour.
export function playsOf(actions, name) {
  const plays = actions.filter((a) => a.type === "play" && a.card === name);
  const called = plays.filter((a) => a.last_card);
  return called.length ? called : plays;
}

/// The panel above the board: what everyone may know, and the hand.
export function panel(view, mySeat, actions, choose) {
  const other = mySeat === undefined ? null : 1 - mySeat;
  const phase = view.phase || {};
  const facts = el("p", { class: "flip-facts" },
    t("round") + " " + view.round + " · " + t("pile") + " ", view.discard_top ? cardFace(view.discard_top, { "aria-label": view.discard_top }) : "–",
    view.named_colour ? " (" + view.named_colour + ")" : "",
    " · " + t("deck") + " " + view.deck_size,
    other !== null ? " · " + t("opponent_cards") + " " + view.hand_sizes[other] : "",
    phase.kind === "moving" ? " · " + phase.colour + ", " + phase.moves_left + " " + t("moves_left") : "",
    phase.kind && phase.kind !== "moving" && phase.kind !== "play" ? " · " + phase.kind.replace(/_/g, " ") : "");
  if (!view.hand) return el("div", { class: "flip" }, facts);
  const hand = el("div", { class: "hand", role: "group", "aria-label": t("hand") }, view.hand.map((name) => {
    const plays = playsOf(actions, name);
    return el("button", {
      type: "button",
      class: "card-button",
      "data-card": name,
      "aria-label": spoken(name),
      disabled: plays.length === 0,
      on: { click: () => choose(plays) },
    }, cardFace(name));
  }));
  return el("div", { class: "flip" }, facts, el("h3", {}, t("hand")), hand);
}

/// The choice among several plays of one card: a Wild's colours (§F4).
export function picker(choices, take) {
  return choices.every((a) => a.type === "play") ? colourPicker(choices, take) : null;
}

/// The colour picker a Wild asks for (§F4).
export function colourPicker(plays, pick) {
  return el("div", { class: "picker", role: "group", "aria-label": t("colour") }, el("p", {}, t("colour")),
    plays.map((a) => el("button", { type: "button", class: "colour " + a.colour, "data-colour": a.colour, on: { click: () => pick(a) } }, a.colour)));
}

/// White's seat is named by the view; the other plays Black.
export function sides(view) {
  const out = [];
  out[view.white] = { side: "white" };
  out[1 - view.white] = { side: "black" };
  return out;
}
export const toMove = (view) => view.side_to_move;
