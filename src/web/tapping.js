// A board played by taps on pages that are not a match — puzzles and
// first steps (issue #52): tap a piece, then where it goes; a Banqi
// turn-up is one tap; when one tap means several actions (a promotion,
// a Wild's colour) they are offered to pick from. The page keeps
// `s.selected` and `s.choices`, sends with `send(action)` and redraws
// with `redraw()`.
import { el, named, t } from "./core.js";
import { squareGrid } from "./boards.js";
import * as Games from "./games.js";

/// The board of `p` ({game, view, seat, legal}), `last` the squares of
/// the last move to mark.
export function tapBoard(s, p, last, send, redraw) {
  const game = Games.game(p.game);
  const board = game.layout(p.view, p.seat);
  const moves = p.legal.map((a) => ({ action: a, squares: game.squaresOf(a) })).filter((x) => x.squares);
  const targets = new Set(s.selected ? moves.filter((x) => x.squares.from === s.selected).map((x) => x.squares.to) : []);
  const starts = new Set(moves.map((x) => x.squares.from || x.squares.at));
  return squareGrid(board, { class: "board " + p.game, role: "group", "aria-label": named("game_", p.game) }, (id, piece) => {
    const classes = [];
    if (targets.has(id)) classes.push("target", piece ? "capture" : "empty");
    if (id === s.selected) classes.push("selected");
    if (last && (id === last.from || id === last.to || id === last.at)) classes.push("last");
    return { classes, disabled: !(starts.has(id) || targets.has(id)), tap: () => tap(s, id, moves, send, redraw) };
  });
}

function tap(s, square, moves, send, redraw) {
  const turnUp = moves.find((x) => x.squares.at === square);
  if (turnUp) return send(turnUp.action);
  if (s.selected) {
    const chosen = moves.filter((x) => x.squares.from === s.selected && x.squares.to === square).map((x) => x.action);
    if (chosen.length) s.selected = null;
    if (chosen.length === 1) return send(chosen[0]);
    if (chosen.length > 1) { s.choices = chosen; return redraw(); }
  }
  // A second tap on the chosen piece puts it down again.
  s.selected = s.selected === square ? null : square;
  redraw();
}

/// The pick among several actions of one tap: the game's own picker (a
/// Wild's colours), else a button for each.
export function choicesBar(s, gameId, send) {
  if (!s.choices) return null;
  const take = (a) => { s.choices = null; send(a); };
  const own = Games.game(gameId).picker(s.choices, take);
  if (own) return el("div", { class: "card picker", role: "group" }, own);
  return el("div", { class: "card picker", role: "group", "aria-label": t("promote") }, el("p", {}, t("promote")), choiceButtons(s.choices, take));
}

const PROMOTION = { q: "♛", r: "♜", b: "♝", n: "♞", k: "♚" };

/// Several moves from one tap, as the match page offers them (lessons and
/// puzzles too, issue #68): a promotion shows its piece (♛♜♝♞), two
/// capture routes (checkers) their paths; each named by its move for a
/// screen reader.
export function choiceButtons(choices, take) {
  return choices.map((a) => {
    const piece = (a.move || "").slice(-1).toLowerCase();
    return el("button", { type: "button", "data-move": a.move, "aria-label": a.move || a.type, on: { click: () => take(a) } }, PROMOTION[piece] || a.move || a.type);
  });
}

/// Buttons for the actions that have no square and are no card play
/// (FlipChess's end of turn, flip, concede, "last card!").
export function actionButtons(gameId, legal, send) {
  const game = Games.game(gameId);
  const rest = legal.filter((a) => !game.squaresOf(a) && a.type !== "play");
  if (!rest.length) return null;
  return el("p", { class: "actions" }, rest.map((a) => el("button", {
    type: "button", class: "secondary", "data-action": a.type, "data-card": a.card,
    on: { click: () => send(a) },
  }, t("a_" + a.type) + (a.card ? " " + game.cardName(a.card) : ""))));
}
