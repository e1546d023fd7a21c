// Conditional moves on the match page (issue #34): while it is the
// opponent's turn, plan "if they play X, I reply Y", keep it, and see or
// forget my lines.
// A line is planned on the match page's own board (issue #68 item 6):
// their move tapped on the board as it stands, then mine on the board
// after it, then kept as seen after both. Each move is said with its
// piece ("흑 말 9 → 13"), in the plan and in the list of kept lines.
// Planning asks the service where a line leads (`…/options`), so the
// client knows no game's rules; where something is hidden from me (Banqi,
// FlipChess) the service does not plan, and the panel says nothing.
import { api, askedFirst, el, fail, say, t } from "./core.js";
import * as Games from "./games.js";

const label = (a) => a.move || a.square || a.type;
const playable = (actions) => actions.filter((a) => a.type === "move" || a.type === "turn_up");
const base = (m) => "/v1/matches/" + m.id + "/conditional-moves";
const mine = (m) => (m.my_seats.length === 1 ? m.my_seats[0] : undefined);
const options = async (m, line) => (await api("GET", base(m) + "/options?line=" + encodeURIComponent(JSON.stringify(line)))).data;

/// A move in words with the piece that makes it, as `view` stands for
/// `me` ("Black man 9 → 13", "빨강 차 b10 → a8"); a kept line's `when`
/// (an event) is said as its move. Only the squares where no piece is
/// drawn there.
export function moveWords(game, view, me, action) {
  const squares = game.squaresOf(action.move ? { type: "move", move: action.move } : action);
  const piece = squares && squares.from ? game.layout(view, me).pieces[squares.from] : null;
  if (!piece || !piece.label) return label(action);
  return piece.label + " " + [squares.from, ...(squares.path || []), squares.to].join(" → ");
}

/// The panel, or null when no line may be kept now. `plan()` starts
/// planning on the match page's board.
export async function conditionalPanel(m, plan) {
  const me = mine(m);
  const theirTurn = m.to_act.length && m.to_act.every((d) => d.seat !== me);
  if (m.status !== "active" || me === undefined || m.seats.length !== 2 || !theirTurn || !Games.game(m.game).plan) return null;
  let stored;
  try {
    stored = (await api("GET", base(m))).data.lines;
  } catch (_) {
    return null;
  }
  const game = Games.game(m.game);
  // The first step's pieces stand where the board shows them now (their
  // move cannot bring one of mine); a deeper step (kept through the API)
  // is said by its squares.
  const said = (action, step) => (step === 0 ? moveWords(game, m.view, me, action) : label(action));
  const list = () => el("ul", { class: "lines" }, stored.map((line) => el("li", {},
    line.map((step, i) => say("line_said", { theirs: said(step.when, i), mine: step.play.map((a) => said(a, i)).join(", ") })).join(" · "))));
  const box = el("section", { class: "card conditional", "aria-label": t("conditional_moves") });
  const draw = () => box.replaceChildren(el("h3", {}, t("conditional_moves")),
    stored.length ? list() : el("p", { class: "muted" }, t("no_lines")),
    el("div", { class: "actions" },
      el("button", { type: "button", class: "secondary", "data-action": "plan_line", on: { click: plan } }, t("plan_line")),
      // Every line goes: asked first.
      stored.length ? askedFirst(t("forget_lines"), t("forget_lines_cost"), t("forget_lines_yes"), async () => {
        try {
          await api("DELETE", base(m));
          stored = [];
          draw();
        } catch (error) { fail(error); }
      }, { "data-action": "forget_lines" }) : null));
  draw();
  return box;
}

/// A plan begun: their move to tap on the board as it stands.
export async function beginPlan(m) {
  const now = await options(m, []);
  return { step: "theirs", line: [], said: [], view: now.view, actions: playable(now.actions) };
}

/// The plan after `action` was tapped on its board: then my reply on the
/// board after their move, then the line to keep, shown after both.
export async function planStep(m, plan, action) {
  const said = plan.said.concat([moveWords(Games.game(m.game), plan.view, mine(m), action)]);
  const line = plan.line.concat([action]);
  const next = await options(m, line);
  if (plan.step !== "theirs") return { step: "keep", line, said, when: plan.when, view: next.view, actions: [] };
  // Kept as the event their move makes, which is what the service matches.
  const when = Object.assign({}, next.last_events[next.last_events.length - 1]);
  delete when.seat;
  return { step: "mine", line, said, when, view: next.view, actions: playable(next.actions) };
}

/// Keeps the planned line beside the lines already kept.
export async function keepPlan(m, plan) {
  const stored = (await api("GET", base(m))).data.lines;
  await api("PUT", base(m), { lines: stored.concat([[{ when: plan.when, play: [plan.line[1]] }]]) });
}

/// What to do now in the plan, under the board where the confirm goes.
export function planBar(plan, keep, cancel) {
  const words = plan.step === "theirs" ? t("tap_their_move")
    : plan.step === "mine" ? say("plan_mine", { theirs: plan.said[0] })
      : say("line_said", { theirs: plan.said[0], mine: plan.said[1] });
  return el("div", { class: "card plan-bar", role: "group", "aria-label": t("conditional_moves") },
    el("p", { "data-plan-step": plan.step }, words),
    plan.step === "keep" ? el("button", { type: "button", "data-action": "save_line", on: { click: keep } }, t("save_line")) : null,
    el("button", { type: "button", class: "secondary", "data-action": "cancel_plan", on: { click: cancel } }, t("cancel")));
}
