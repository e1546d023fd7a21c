// First steps (issue #52, docs/lessons.md): each game taught by playing,
// one step at a time, on `/learn/{game}`. The service sets each step up
// and judges every action by the rules: a move the step does not teach
// is explained and not played; a finished step is kept as mine (a
// guest's on this device's guest account). The how-to page replays them.
// A visitor with no account plays them too: their finished steps stay on
// this device until they sign in or up, then are played into the account
// (docs/lessons.md, "A visitor"); no guest is made for a visitor.
import { api, el, fail, link, named, session, show, t } from "./core.js";
import { actionButtons, choicesBar, tapBoard } from "./tapping.js";
import * as Games from "./games.js";

/// A visitor's finished steps on this device: `{game: {step: actions}}`,
/// each with the actions that finished it. Signing out forgets them
/// (`forgetVisitorSteps`), so they go to the next account signed in here
/// only from a visitor's own visit.
const VISITED = "posthorn.lessons";

function keptSteps() {
  try { return JSON.parse(localStorage.getItem(VISITED)) || {}; } catch (_) { return {}; }
}

function keepSteps(all) {
  try {
    if (Object.keys(all).length) localStorage.setItem(VISITED, JSON.stringify(all));
    else localStorage.removeItem(VISITED);
  } catch (_) { /* storage full or blocked: the step is done on the page all the same */ }
}

function keepStep(game, key, actions) {
  const all = keptSteps();
  (all[game] = all[game] || {})[key] = actions;
  keepSteps(all);
}

export function forgetVisitorSteps() {
  keepSteps({});
}

let carrying = null;

/// Once signed in, the steps finished as a visitor become the account's:
/// each is played again through the service, which judges it as any
/// attempt (nothing is taken on trust). A step the service answered is
/// forgotten here (one the rules no longer finish that way stays undone);
/// one that could not be sent (offline, a server error) is kept for the
/// next page. One carry at a time, whatever pages are drawn meanwhile.
export function carryVisitorSteps() {
  if (!session.access || !Object.keys(keptSteps()).length) return Promise.resolve();
  carrying = carrying || carry().finally(() => { carrying = null; });
  return carrying;
}

async function carry() {
  const all = keptSteps();
  for (const [game, steps] of Object.entries(all)) {
    for (const [key, actions] of Object.entries(steps)) {
      const path = "/v1/lessons/" + encodeURIComponent(game) + "/" + encodeURIComponent(key) + "/moves";
      const answered = await api("POST", path, { actions }).then(() => true, (e) => e.status >= 400 && e.status < 500);
      if (answered) delete steps[key];
    }
    if (!Object.keys(steps).length) delete all[game];
  }
  keepSteps(all);
}

/// `/learn/{game}`: the first step I have not done yet (or the first).
export async function lessonsPage(game, wanted) {
  const list = (await api("GET", "/v1/lessons/" + encodeURIComponent(game))).data;
  const here = session.access ? {} : keptSteps()[game] || {};
  for (const step of list.steps) step.done = step.done || Boolean(here[step.key]);
  const first = list.steps.find((s) => !s.done) || list.steps[0];
  const at = Math.max(0, list.steps.findIndex((s) => s.key === (wanted || first.key)));
  await open({ game, list, at, played: [], view: null, said: null, selected: null, choices: null });
}

async function open(s) {
  s.sending = false;
  s.played = [];
  s.said = null;
  s.selected = null;
  s.choices = null;
  const step = s.list.steps[s.at];
  s.view = (await api("GET", "/v1/lessons/" + encodeURIComponent(s.game) + "/" + encodeURIComponent(step.key))).data;
  draw(s);
}

const words = (s, part) => t("lesson_" + s.game + "_" + s.list.steps[s.at].key + part);

function draw(s) {
  const v = s.view;
  const game = Games.game(s.game);
  const done = v.verdict === "done";
  const send = (a) => act(s, a);
  const last = s.played.length ? game.squaresOf(s.played[s.played.length - 1]) : null;
  const status = done ? t("learn_done") : s.said === "not_this_way" ? t("learn_not_this_way") + " " + words(s, "_hint")
    : s.said === "illegal" ? t("learn_illegal") + " " + words(s, "_hint") : words(s, "_goal");
  const choose = (plays) => { if (plays.length === 1) return send(plays[0]); s.choices = plays; draw(s); };
  const next = s.at + 1 < s.list.steps.length;
  // The board near the top, as a match's is (issue #68): the title and
  // what to do above it, the steps and the rest below.
  const steps = el("ol", { class: "lesson-steps", "aria-label": t("first_steps") }, s.list.steps.map((step, i) => el("li", {
    class: (i === s.at ? "current " : "") + (step.done ? "done" : ""),
  }, el("button", {
    type: "button", "aria-current": i === s.at ? "step" : null, title: t("lesson_" + s.game + "_" + step.key),
    "aria-label": (i + 1) + ". " + t("lesson_" + s.game + "_" + step.key) + (step.done ? " ✓" : ""),
    on: { click: () => { s.at = i; open(s).catch(fail); } },
  }, (step.done ? "✓" : "") + (i + 1)))));
  show(el("article", { class: "lesson", "data-game": s.game, "data-step": v.step },
    el("h1", { class: "compact" }, named("game_", s.game) + " · " + (s.at + 1) + ". " + words(s, "")),
    el("p", { class: "lesson-status" + (s.said && !done ? " wrong" : ""), role: "status", "aria-live": "polite", "data-verdict": s.said || v.verdict }, status),
    tapBoard(s, { game: s.game, view: v.view, seat: v.seat, legal: done ? [] : v.legal }, last, send, () => draw(s)),
    el("div", { class: "now" },
      game.panel(v.view, v.seat, done ? [] : v.legal, choose, !done),
      choicesBar(s, s.game, send),
      done ? null : actionButtons(s.game, v.legal, send)),
    el("p", { class: "actions" },
      done && next ? el("button", { type: "button", "data-next": true, on: { click: () => { s.at += 1; open(s).catch(fail); } } }, t("learn_next")) : null,
      done && !next ? el("strong", { "data-finished": true }, t("learn_all_done")) : null,
      done && !next ? link("/new", t("new_match")) : null,
      " ", el("button", { type: "button", class: "secondary", on: { click: () => open(s).catch(fail) } }, t("learn_again")),
      " ", link("/how-to/" + s.game, t("how_to_play"))),
    // The steps as a row of numbers; each says its title to a screen
    // reader and on a long press.
    el("h2", {}, t("first_steps")), steps,
    session.access ? null : el("p", { class: "muted", "data-visitor": true }, t("learn_visitor"), " ", link("/signin#up", t("sign_up")))));
}

async function act(s, action) {
  // One action at a time: a second tap while the first is on its way
  // would send the same action twice.
  if (s.sending) return;
  s.sending = true;
  s.selected = null;
  s.choices = null;
  try {
    const sent = [...s.played, action];
    const answer = (await api("POST", "/v1/lessons/" + encodeURIComponent(s.game) + "/" + encodeURIComponent(s.view.step) + "/moves", { actions: sent })).data;
    s.said = answer.verdict === "not_this_way" ? "not_this_way" : null;
    // What the rules accepted, not what was sent.
    s.played = sent.slice(0, answer.accepted);
    if (answer.verdict === "done") {
      s.list.steps[s.at].done = true;
      if (!session.access) keepStep(s.game, s.view.step, s.played);
    }
    s.view = answer;
  } catch (error) {
    // The rules refused it (422; 400 unread): explained, nothing played.
    if (error.status !== 422 && error.status !== 400) { s.sending = false; return fail(error); }
    s.said = "illegal";
  }
  s.sending = false;
  draw(s);
}
