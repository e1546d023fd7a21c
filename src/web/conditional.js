// Conditional moves on the match page (issue #34): while it is the
// opponent's turn, plan "if they play X, I reply Y" on a board that shows
// the position the line leads to, keep it, and see or forget my lines.
// Planning asks the service where a line leads (`…/options`), so the
// client knows no game's rules; where something is hidden from me (Banqi,
// FlipChess) the service does not plan, and the panel says nothing.
import { api, el, fail, t } from "./core.js";
import * as Games from "./games.js";

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
  const preview = (view) => {
    const board = Games.game(m.game).layout(view, me);
    const grid = el("div", { class: "board mini " + m.game, "aria-hidden": "true" });
    grid.style.gridTemplateColumns = "repeat(" + board.cols + ", 1fr)";
    grid.style.aspectRatio = board.cols + " / " + board.rows;
    for (const cell of board.cells) {
      const piece = cell.id ? board.pieces[cell.id] : null;
      const node = el("div", { class: "sq " + (cell.dark ? "dark" : "light") }, piece ? el("span", { class: "piece " + piece.cls }, piece.glyph) : null);
      node.style.gridColumn = String(cell.col + 1);
      node.style.gridRow = String(cell.row + 1);
      grid.append(node);
    }
    return grid;
  };
  const choice = (name, actions, then) => el("label", {}, t(name), el("select", { name, on: { change: (e) => then(actions[Number(e.target.value)]) } },
    el("option", { value: "" }, "—"), actions.map((a, i) => el("option", { value: i }, label(a)))));
  const list = () => el("ul", { class: "lines" }, stored.map((line) => el("li", {},
    line.map((step) => t("if_they") + " " + label(step.when) + " → " + step.play.map(label).join(", ")).join(" · "))));
  const save = async (line) => {
    try {
      stored = (await api("PUT", base, { lines: stored.concat([line]) })).data.lines;
      draw();
    } catch (error) { fail(error); }
  };
  // Plan: their move (from where we stand), then my answer to it.
  const plan = async () => {
    const now = await options([]);
    const theirs = now.actions.filter((a) => a.type === "move" || a.type === "turn_up");
    const step = el("div", {});
    box.replaceChildren(el("h3", {}, t("conditional_moves")), choice("if_they", theirs, async (x) => {
      if (!x) return;
      const after = await options([x]);
      const mine = after.actions.filter((a) => a.type === "move" || a.type === "turn_up");
      const when = Object.assign({}, after.last_events[after.last_events.length - 1]);
      delete when.seat;
      const outcome = el("div", {}, preview(after.view));
      step.replaceChildren(choice("i_reply", mine, async (y) => {
        if (!y) return;
        const shown = await options([x, y]);
        outcome.replaceChildren(preview(shown.view), el("button", { type: "button", "data-action": "save_line", on: { click: () => save([{ when, play: [y] }]) } }, t("save_line")));
      }), outcome);
    }), step, el("button", { type: "button", class: "secondary", on: { click: () => draw() } }, t("cancel")));
  };
  const draw = () => box.replaceChildren(el("h3", {}, t("conditional_moves")),
    stored.length ? list() : el("p", { class: "muted" }, t("no_lines")),
    el("div", { class: "actions" },
      el("button", { type: "button", class: "secondary", "data-action": "plan_line", on: { click: plan } }, t("plan_line")),
      stored.length ? el("button", { type: "button", class: "secondary", "data-action": "forget_lines", on: { click: async () => {
        await api("DELETE", base);
        stored = [];
        draw();
      } } }, t("forget_lines")) : null));
  draw();
  return box;
}
