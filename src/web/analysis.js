// The analysis of a finished match (issue #69, docs/analysis.md): a player
// asks for it; once the engines are done, the page shows each player's
// accuracy and counts, the graph of the winning chances, and at each step
// of the replay how the move that led there was judged and the engines'
// better move. ← → on a keyboard and a swipe across the board on a phone
// step through it. The client judges nothing: the service sends the
// judgements, and leaves out for strangers what was read from a hand.
import { api, el, say, t } from "./core.js";

const base = (m) => "/v1/matches/" + m.id + "/analysis";
const POLL_MS = 3000;

/// Read the match's analysis once per page (null: none asked yet).
async function load(state, redraw) {
  const read = (await api("GET", base(state.match))).data;
  state.analysis = read.status === "none" ? null : read;
  if (state.gone) return;
  if (state.analysis && state.analysis.status === "queued") {
    clearTimeout(state.analysisPoll);
    state.analysisPoll = setTimeout(() => load(state, redraw).catch(() => {}), POLL_MS);
  }
  redraw();
}

/// The analysis section of a finished match's page: the ask, the wait,
/// or the figures and the graph. `steps` are the replay's plays (with
/// their seqs), `describe` says an action in words.
export function analysisSlot(state, steps, describe, redraw) {
  const m = state.match;
  if (m.status !== "finished") return null;
  if (state.analysis === undefined) {
    state.analysis = "loading";
    load(state, redraw).catch((error) => { state.analysis = null; state.analysisError = error.message; redraw(); });
    return null;
  }
  const a = state.analysis;
  if (a === "loading") return null;
  const section = (...children) => el("section", { class: "analysis", "aria-label": t("analysis") }, el("h3", {}, t("analysis")), ...children);
  const said = state.analysisError ? el("p", { class: "error", role: "alert" }, t("error") + ": " + state.analysisError) : null;
  if (a === null || a.status === "failed") {
    if (!m.my_seats.length) return null;
    const ask = async () => {
      state.analysisError = null;
      try {
        state.analysis = (await api("POST", base(m))).data;
        await load(state, redraw);
      } catch (error) {
        state.analysisError = error.message;
        redraw();
      }
    };
    return section(el("p", { class: "muted", "data-analysis": a ? "failed" : "none" }, t(a ? "analysis_failed" : "analysis_why")),
      el("button", { type: "button", class: "secondary", "data-action": "ask_analysis", on: { click: ask } }, t("ask_analysis")), said);
  }
  if (a.status === "queued") return section(el("p", { role: "status" }, t("analysis_queued")));
  const plies = a.analysis.plies;
  return section(
    figures(m, a.analysis.players),
    a.withheld ? el("p", { class: "muted", "data-withheld": true }, t("analysis_withheld")) : null,
    plies.length ? graph(m, plies, steps, state) : null,
    judgedHere(state, steps, plies, describe),
    turningPoints(plies, steps, state, describe));
}

const name = (m, seat) => {
  const s = m.seats.find((x) => x.seat === seat);
  return (s && s.user && s.user.display_name) || t("seat") + " " + (seat + 1);
};

function figures(m, players) {
  if (!players.length) return null;
  return el("table", { class: "figures" },
    el("thead", {}, el("tr", {}, el("th", {}, ""), el("th", {}, t("accuracy")), el("th", {}, t("inaccuracies")), el("th", {}, t("mistakes")), el("th", {}, t("blunders")))),
    el("tbody", {}, ...players.map((p) => el("tr", { "data-seat": p.seat },
      el("th", {}, name(m, p.seat)), el("td", { "data-accuracy": p.accuracy }, p.accuracy.toFixed(1) + "%"),
      el("td", {}, String(p.inaccuracies)), el("td", {}, String(p.mistakes)), el("td", {}, String(p.blunders))))));
}

const SVG = "http://www.w3.org/2000/svg";
const svg = (tag, attrs) => {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
};
const COLOURS = ["#c0392b", "#2f4858", "#2e7d32", "#6d4c41"];

/// The winning chances after each judged play: two players as one line
/// (the first seat's chance), more as a line each; a tap steps there.
function graph(m, plies, steps, state) {
  const width = 300;
  const height = 100;
  const x = (i) => (plies.length > 1 ? (i * width) / (plies.length - 1) : width / 2);
  const y = (chance) => height - (chance * height) / 1000;
  const picture = svg("svg", { viewBox: "0 0 " + width + " " + height, class: "chances", role: "img", preserveAspectRatio: "none",
    "aria-label": t("analysis_graph") });
  picture.append(svg("line", { x1: 0, x2: width, y1: height / 2, y2: height / 2, class: "even" }));
  const lines = m.seats.length === 2 ? [0] : m.seats.map((s) => s.seat);
  for (const seat of lines) {
    const points = plies.map((p, i) => {
      const mine = p.seat === seat ? p.after : m.seats.length === 2 ? 1000 - p.after : null;
      return mine === null ? null : x(i).toFixed(1) + "," + y(mine).toFixed(1);
    }).filter(Boolean);
    picture.append(svg("polyline", { points: points.join(" "), fill: "none", stroke: COLOURS[seat % 4], "stroke-width": 2, "vector-effect": "non-scaling-stroke" }));
  }
  plies.forEach((p, i) => {
    if (!p.judgement || p.judgement === "inaccuracy") return;
    const mine = m.seats.length === 2 && p.seat !== 0 ? 1000 - p.after : p.after;
    picture.append(svg("circle", { cx: x(i), cy: y(mine), r: 3, class: p.judgement, "data-seq": p.seq }));
  });
  const at = steps.findIndex((s) => s.seq === (steps[state.stepAt - 1] || {}).seq);
  const here = plies.findIndex((p) => at >= 0 && p.seq === steps[at].seq);
  if (here >= 0) picture.append(svg("line", { x1: x(here), x2: x(here), y1: 0, y2: height, class: "here" }));
  picture.addEventListener("click", (event) => {
    const box = picture.getBoundingClientRect();
    const i = Math.round(((event.clientX - box.left) / box.width) * (plies.length - 1));
    const ply = plies[Math.max(0, Math.min(plies.length - 1, i))];
    stepTo(state, steps, ply.seq);
  });
  const legend = m.seats.length === 2
    ? el("p", { class: "muted legend" }, say("analysis_higher", { name: name(m, 0) }))
    : el("p", { class: "muted legend" }, ...lines.map((seat) => {
      const key = el("span", {}, "— " + name(m, seat) + " ");
      // CSSOM, not a style attribute: the CSP allows no inline style.
      key.style.color = COLOURS[seat % 4];
      return key;
    }));
  return el("div", { class: "graph" }, picture, legend);
}

const stepTo = (state, steps, seq) => {
  const i = steps.findIndex((s) => s.seq === seq);
  if (i >= 0 && state.step) state.step(i + 1);
};

const percent = (perMille) => Math.round(perMille / 10) + "%";

/// How the move that led to the replay's step was judged.
function judgedHere(state, steps, plies, describe) {
  const step = steps[(state.stepAt || 0) - 1];
  const ply = step && plies.find((p) => p.seq === step.seq);
  if (!ply) return el("p", { class: "muted", "data-judged": "none" }, t("analysis_step_hint"));
  const game = state.match.game;
  const same = JSON.stringify(ply.best) === JSON.stringify(ply.played);
  return el("p", { class: "judged", "data-judged": ply.judgement || "fine", role: "status" },
    say("analysis_played", { move: describe(ply.played, game), chance: percent(ply.after) }),
    ply.judgement ? " — " + t("judgement_" + ply.judgement) : "",
    same ? "" : el("span", { class: "better", "data-better": true }, " " + say("analysis_better", { move: describe(ply.best, game), chance: percent(ply.before) })));
}

/// The mistakes and blunders, each a button to its step.
function turningPoints(plies, steps, state, describe) {
  const marked = plies.filter((p) => p.judgement === "mistake" || p.judgement === "blunder");
  if (!marked.length) return null;
  return el("ul", { class: "turning-points" }, ...marked.map((p) => {
    const n = steps.findIndex((s) => s.seq === p.seq) + 1;
    return el("li", {}, el("button", { type: "button", class: "link", "data-seq": p.seq, on: { click: () => stepTo(state, steps, p.seq) } },
      n + ". " + describe(p.played, state.match.game) + " — " + t("judgement_" + p.judgement)));
  }));
}

/// A swipe across `node` steps the replay: left for the next play, right
/// for the one before, as a page is turned.
export function swipeSteps(node, state) {
  let start = null;
  node.addEventListener("touchstart", (e) => {
    start = e.touches.length === 1 ? { x: e.touches[0].clientX, y: e.touches[0].clientY } : null;
  }, { passive: true });
  node.addEventListener("touchend", (e) => {
    if (!start || !state.step) return;
    const touch = e.changedTouches[0];
    const dx = touch.clientX - start.x;
    const dy = touch.clientY - start.y;
    start = null;
    if (Math.abs(dx) < 40 || Math.abs(dy) > Math.abs(dx) / 2) return;
    state.step(state.stepAt + (dx < 0 ? 1 : -1));
  }, { passive: true });
}
