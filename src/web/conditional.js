// Conditional moves on the match page (issue #34): while it is the
// opponent's turn, plan "if they play X, I reply Y" by tapping the moves on
// a board (issue #49 item 6) that then shows the position the line leads
// to, keep it, and see or forget my lines.
// Planning asks the service where a line leads (`…/options`), so the
// client knows no game's rules; where something is hidden from me (Banqi,
// FlipChess) the service does not plan, and the panel says nothing.
import { api, askedFirst, el, fail, t } from "./core.js";
import * as Games from "./games.js";
import { squareGrid } from "./boards.js";

const label = (a) => a.move || a.square || a.type;

/// The panel, or null when no line may be kept now.
export async function conditionalPanel(m) {
  const me = m.my_seats.length === 1 ? m.my_seats[0] : undefined;
  const theirTurn = m.to_act.length && m.to_act.every((d) => d.seat !== me);
  if (m.status !== "active" || me === undefined || m.seats.length !== 2 || !theirTurn || !Games.game(m.game).plan) return null;
  const base = "/v1/matches/" + m.id + "/conditional-moves";
  let stored;
  try {
    stored = (await api("GET", base)).data.lines;
  } catch (_) {
    return null;
  }
  const box = el("section", { class: "card conditional", "aria-label": t("conditional_moves") });
  const options = async (line) => (await api("GET", base + "/options?line=" + encodeURIComponent(JSON.stringify(line)))).data;
  const list = () => el("ul", { class: "lines" }, stored.map((line) => el("li", {},
    line.map((step) => t("if_they") + " " + label(step.when) + " → " + step.play.map(label).join(", ")).join(" · "))));
  const game = Games.game(m.game);
  const save = async (line) => {
    try {
      stored = (await api("PUT", base, { lines: stored.concat([line]) })).data.lines;
      draw();
    } catch (error) { fail(error); }
  };
  const cancel = () => el("button", { type: "button", class: "secondary", on: { click: () => draw() } }, t("cancel"));
  // Plan on the board (issue #49 item 6): tap their move on the board as
  // it stands, then mine on the board after it, then keep the line seen
  // on the board after both. Each move is named with its piece.
  const plan = async () => {
    const now = await options([]);
    box.replaceChildren(el("h3", {}, t("conditional_moves")), el("p", { "data-plan-step": "theirs" }, t("tap_their_move")),
      planBoard(m, game, now.view, me, playable(now.actions), async (x, named) => {
        const after = await options([x]);
        const when = Object.assign({}, after.last_events[after.last_events.length - 1]);
        delete when.seat;
        box.replaceChildren(el("h3", {}, t("conditional_moves")),
          el("p", { "data-plan-step": "mine" }, t("if_they") + " " + named + " · " + t("tap_your_reply")),
          planBoard(m, game, after.view, me, playable(after.actions), async (y, mine) => {
            const shown = await options([x, y]);
            box.replaceChildren(el("h3", {}, t("conditional_moves")),
              el("p", { "data-plan-step": "keep" }, t("if_they") + " " + named + " → " + t("i_reply") + " " + mine),
              planBoard(m, game, shown.view, me, [], () => {}),
              el("button", { type: "button", "data-action": "save_line", on: { click: () => save([{ when, play: [y] }]) } }, t("save_line")), cancel());
          }), cancel());
      }), cancel());
  };
  const draw = () => box.replaceChildren(el("h3", {}, t("conditional_moves")),
    stored.length ? list() : el("p", { class: "muted" }, t("no_lines")),
    el("div", { class: "actions" },
      el("button", { type: "button", class: "secondary", "data-action": "plan_line", on: { click: plan } }, t("plan_line")),
      // Every line goes: asked first.
      stored.length ? askedFirst(t("forget_lines"), t("forget_lines_cost"), t("forget_lines_yes"), async () => {
        await api("DELETE", base);
        stored = [];
        draw();
      }, { "data-action": "forget_lines" }) : null));
  draw();
  return box;
}

const playable = (actions) => actions.filter((a) => a.type === "move" || a.type === "turn_up");

/// A board to plan on: `view` drawn with the game's own pieces and
/// coordinates, `actions` taken by tapping a piece and then its target
/// (several moves between the same squares, a promotion's pieces, are
/// offered as buttons). `chosen(action, name)` gets the move and its
/// name with the piece that makes it ("Black man 11-15").
function planBoard(m, game, view, me, actions, chosen) {
  const board = game.layout(view, me);
  const moves = actions.map((a) => ({ action: a, squares: game.squaresOf(a) })).filter((x) => x.squares);
  const name = (x) => {
    const piece = board.pieces[x.squares.from || x.squares.at];
    return (piece ? piece.label + " " : "") + label(x.action);
  };
  let selected = null;
  const extra = el("div", { class: "plan-choices" });
  const paint = () => {
    const targets = new Set(moves.filter((x) => selected && x.squares.from === selected).map((x) => x.squares.to));
    const starts = new Set(moves.map((x) => x.squares.from || x.squares.at));
    for (const node of grid.children) {
      const id = node.dataset.square;
      if (!id) continue;
      node.classList.toggle("selected", id === selected);
      node.classList.toggle("target", targets.has(id));
      node.classList.toggle("capture", targets.has(id) && Boolean(board.pieces[id]));
      node.disabled = !(starts.has(id) || targets.has(id));
    }
  };
  const tap = (id) => {
    const turnUp = moves.find((x) => x.squares.at === id);
    if (turnUp) return chosen(turnUp.action, name(turnUp));
    const here = selected ? moves.filter((x) => x.squares.from === selected && x.squares.to === id) : [];
    if (here.length === 1) return chosen(here[0].action, name(here[0]));
    if (here.length > 1) {
      extra.replaceChildren(...here.map((x) => el("button", { type: "button", class: "secondary", "data-move": label(x.action),
        on: { click: () => chosen(x.action, name(x)) } }, label(x.action))));
      return;
    }
    selected = selected === id ? null : id;
    extra.replaceChildren();
    paint();
  };
  const grid = squareGrid(board, { class: "board plan " + m.game, role: "group", "aria-label": t("plan_board") },
    (id) => ({ tap: () => tap(id) }));
  paint();
  return el("div", { class: "board-wrap" }, grid, extra);
}
