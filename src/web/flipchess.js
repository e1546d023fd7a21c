// FlipChess's cards on the match page (docs/rules/flipchess.md §F): the pile, the deck,
// the round, the phase, and the viewer's own hand as cards to tap. Only
// the viewer's own hand is ever in their view (§H1); the opponent's is a
// count.
import { el, say, t } from "./core.js";
import { CHESS, grid, named } from "./boards.js";

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
        label: t(white ? "side_white" : "side_black") + " " + t("piece_chess_" + kind),
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

/// A card button's name: what its face shows (a screen reader's name
/// must hold the visible text), then the card's name when they differ:
/// "+2 · green draw two".
function spoken(name) {
  const face = card(name).face;
  const said = cardName(name);
  return said.includes(face) ? said : face + " · " + said;
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

/// A card's name for people: `red-7` → "red 7", `wild-draw4` → "wild
/// draw four", in the page's language.
export function cardName(name) {
  const c = card(name);
  const face = String(name).replace(/^(red|yellow|green|blue)-/, "");
  const said = /^\d$/.test(face) ? face : t("card_" + face);
  return c.colour ? t("card_" + c.colour) + " " + said : said;
}

/// What the player on move is to do now (§F5–§F7), said in words; the
/// other player is told whom they wait for.
function prompt(view, mySeat, active) {
  const phase = view.phase || {};
  // A finished match asks nothing (issue #49 item 11).
  if (mySeat === undefined || !active) return null;
  if (phase.kind === "flip_decision") {
    return phase.flip_victim === mySeat ? say("phase_flip_decision", { round: view.round }) : t("phase_flip_waiting");
  }
  // Whose turn it is the status line says already.
  if (view.on_move !== mySeat) return null;
  if (phase.kind === "moving") return say(phase.moves_left === 1 ? "phase_moving_one" : "phase_moving", { group: t("group_" + phase.colour), n: phase.moves_left });
  return t("phase_" + (phase.kind || "play"));
}

/// Which pieces each card colour moves (§F3): the key beside the hand.
function colourKey() {
  return el("details", { class: "colour-key" }, el("summary", {}, t("colour_key")),
    el("ul", {}, COLOURS.map((c) => el("li", {}, el("span", { class: "card-face swatch " + c, "aria-hidden": "true" }, ""),
      " " + t("card_" + c) + " → " + t("group_" + c)))));
}

/// The panel above the board: what everyone may know, what to do now,
/// and the hand. `waiting` is the match page's play waiting for its
/// confirm ({action, bar, send}), or nothing: the card is raised, its
/// confirm ("빨강 스킵 내기") sits in the bar that stays in sight under
/// the board, and a second tap on the card plays it (issue #68 item 6),
/// so a tap never moves the board.
export function panel(view, mySeat, actions, choose, active, waiting) {
  const other = mySeat === undefined ? null : 1 - mySeat;
  const facts = el("p", { class: "flip-facts" },
    t("round") + " " + view.round + " · " + t("pile") + " ", view.discard_top ? cardFace(view.discard_top, { "aria-label": cardName(view.discard_top) }) : "–",
    view.named_colour ? " (" + t("named") + ": " + t("card_" + view.named_colour) + ")" : "",
    " · " + t("deck") + " " + view.deck_size,
    other !== null ? " · " + t("opponent_cards") + " " + view.hand_sizes[other] : "");
  const said = prompt(view, mySeat, active);
  const doing = said ? el("p", { class: "phase-prompt", "data-phase": (view.phase || {}).kind || "play" }, said) : null;
  if (!view.hand) return el("div", { class: "flip" }, doing ? el("div", { class: "flip-bar" }, doing) : null, facts);
  const held = waiting && waiting.action.type === "play" ? waiting : null;
  const hand = el("div", { class: "hand", role: "group", "aria-label": t("hand") }, view.hand.map((name) => {
    const plays = playsOf(actions, name);
    const raised = held !== null && held.action.card === name;
    return el("button", {
      type: "button",
      class: "card-button" + (raised ? " raised" : ""),
      "data-card": name,
      "aria-label": spoken(name),
      "aria-pressed": raised ? "true" : null,
      title: raised && held.confirming ? t("card_tap_again") : null,
      disabled: plays.length === 0,
      on: { click: () => (raised ? held.send() : choose(plays)) },
    }, cardFace(name));
  }));
  // What to do and the hand in a bar that stays in sight under the board
  // (issue #49 item 1); a card's confirm takes the place of what to do,
  // so that the bar hardly grows and nothing above it moves. The pile,
  // the deck and the key after it.
  return el("div", { class: "flip" }, el("div", { class: "flip-bar" }, held ? held.bar : doing, hand), facts, colourKey());
}

/// The choice among several plays of one card: a Wild's colours (§F4).
export function picker(choices, take) {
  return choices.every((a) => a.type === "play") ? colourPicker(choices, take) : null;
}

/// The colour picker a Wild asks for (§F4).
export function colourPicker(plays, pick) {
  return el("div", { class: "picker", role: "group", "aria-label": t("colour") }, el("p", {}, t("colour")),
    plays.map((a) => el("button", { type: "button", class: "colour " + a.colour, "data-colour": a.colour, on: { click: () => pick(a) } }, t("card_" + a.colour))));
}

/// White's seat is named by the view; the other plays Black.
export function sides(view) {
  const out = [];
  out[view.white] = { side: "white" };
  out[1 - view.white] = { side: "black" };
  return out;
}
export const toMove = (view) => view.side_to_move;
