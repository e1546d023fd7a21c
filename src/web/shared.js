// A finished game for friends who did not play (issue #69 item 6). On the
// match page a player makes its share link (copy it, send it, or turn it
// off); the link's page, `/shared/<token>`, needs no account: the board
// as a spectator sees it (no hand, no face-down piece, §H4), the replay
// step by step (← →, a swipe), the result and the analysis's public part,
// in the reader's language.
import { api, el, gameName, link, show, t } from "./core.js";
import { tapBoard } from "./tapping.js";
import { analysisSlot, swipeSteps } from "./analysis.js";
import { describe, describeResult, playsOf, replayControls } from "./match.js";

/// The share box of a finished match's page, for its players.
export function shareSlot(state, redraw) {
  const m = state.match;
  if (m.status !== "finished" || !m.my_seats.length) return null;
  const url = "/v1/matches/" + m.id + "/share";
  const box = (...children) => el("section", { class: "share", "aria-label": t("share_finished") }, ...children);
  if (!state.shareLink) {
    const make = async () => {
      try { state.shareLink = (await api("POST", url)).data; state.shareSaid = null; } catch (error) { state.shareSaid = t("error") + ": " + error.message; }
      redraw();
    };
    return box(el("button", { type: "button", class: "secondary", "data-action": "share", on: { click: make } }, t("share_finished")),
      state.shareSaid ? el("p", { role: "status" }, state.shareSaid) : null);
  }
  const said = el("span", { role: "status" });
  const copy = async () => {
    try { await navigator.clipboard.writeText(state.shareLink.url); said.textContent = t("share_copied"); } catch (e) { said.textContent = state.shareLink.url; }
  };
  const revoke = async () => {
    try {
      await api("DELETE", url);
      state.shareLink = null;
      state.shareSaid = t("share_revoked");
      redraw();
    } catch (error) {
      said.textContent = t("error") + ": " + error.message;
    }
  };
  return box(el("p", { class: "muted" }, t("share_why")),
    el("input", { type: "url", readonly: true, value: state.shareLink.url, "aria-label": t("share_finished"), "data-share-url": true }),
    el("button", { type: "button", class: "secondary", on: { click: copy } }, t("share_copy")),
    el("button", { type: "button", class: "secondary", "data-action": "unshare", on: { click: revoke } }, t("share_revoke")), " ", said);
}

let current = null;

/// The page a share link opens.
export async function sharedPage(token) {
  let doc;
  try {
    doc = (await api("GET", "/v1/shared/" + encodeURIComponent(token))).data;
  } catch (error) {
    if (error.status !== 404) throw error;
    return show(el("h2", {}, t("shared_title")), el("p", { "data-shared": "gone" }, t("shared_gone")), link("/", t("shared_join")));
  }
  const state = { token, match: doc.match, events: doc.events, analysis: doc.analysis.status === "done" ? doc.analysis : null, shared: true, replayView: null };
  const steps = playsOf(state.events);
  current = state;
  draw(state, steps);
}

/// A shared game's position after event `seq`, as a spectator sees it
/// (none when it cannot be read: the game's end is shown).
const positionAt = (state) => async (seq) => {
  try {
    return (await api("GET", "/v1/shared/" + encodeURIComponent(state.token) + "/positions/" + seq)).data.view;
  } catch (error) {
    return null;
  }
};

function draw(state, steps) {
  const m = state.match;
  const view = state.replayView || m.view;
  const names = m.seats.map((s) => (s.user && s.user.display_name) || "?").join(" · ");
  const wrap = el("div", { class: "board-wrap" }, tapBoard({}, { game: m.game, view, seat: undefined, legal: [] }, null, () => {}, () => {}));
  swipeSteps(wrap, state);
  show(el("div", { class: "match-page shared", "data-shared": "open" },
    el("div", { class: "match-head" },
      el("h2", {}, gameName(m)), el("p", { class: "players" }, names), wrap,
      m.result ? el("p", { class: "result" }, t("result") + ": " + describeResult(m)) : null),
    el("div", { class: "side-panel" },
      replayControls(state, steps, positionAt(state), () => {
        // The page may have been left while the position came.
        if (current === state && location.pathname.startsWith("/shared/")) draw(state, steps);
      }),
      analysisSlot(state, steps, describe, () => draw(state, steps)),
      el("p", {}, el("a", { href: "/v1/shared/" + encodeURIComponent(state.token) + "/game.gif", download: "posthorn-" + m.game + ".gif", "data-gif": true }, t("shared_gif"))),
      el("p", { class: "muted" }, t("shared_by_link"), " ", link("/", t("shared_join"))))));
}

document.addEventListener("keydown", (event) => {
  if (!current || !location.pathname.startsWith("/shared/") || event.target.closest("input, select, textarea")) return;
  if (event.key === "ArrowLeft") current.step(current.stepAt - 1);
  if (event.key === "ArrowRight") current.step(current.stepAt + 1);
});
