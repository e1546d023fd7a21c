// Table talk on the match page (issue #50): the messages of the match's
// players, a box to write, mute, and my private note. A drawer under the
// board (a `details`), so it never covers the board on a phone; it says
// how many messages are new while closed. Messages are no game events:
// the page hears of a new one on its live channel and asks again.
import { api, el, form, local, playerName, t } from "./core.js";

/// The panel for match `m`, kept across the page's redraws (what is typed
/// stays); `refresh()` reads the messages again.
export function talkPanel(m) {
  const path = "/v1/matches/" + m.id;
  // A log (WAI-ARIA): new messages are told, and nothing else here.
  const list = el("ol", { class: "messages", role: "log", "aria-label": t("talk") });
  const count = el("span", { class: "badge on", "data-talk-unread": "", hidden: true });
  const team = el("label", { class: "check", hidden: true }, el("input", { type: "checkbox", name: "team" }), t("to_team"));
  const off = el("p", { class: "muted", "data-talk-off": "", hidden: true }, t("talk_off"));
  const mute = el("button", { type: "button", class: "secondary", "data-mute": "", on: { click: async () => {
    const muted = mute.dataset.mute !== "true";
    await api("PUT", path + "/mute", { muted });
    await panel.refresh();
  } } });
  const box = el("input", { name: "text", maxlength: "500", autocomplete: "off", "aria-label": t("message"), placeholder: t("message") });
  const write = form({ class: "talk-write" }, async (data) => {
    const said = (await api("POST", path + "/messages", { text: data.get("text"), team: data.get("team") === "on" },
      { "idempotency-key": "m-" + Date.now() + "-" + Math.random().toString(36).slice(2) })).data;
    box.value = "";
    list.append(line(said));
    list.lastChild.scrollIntoView({ block: "nearest" });
  }, box, team, el("button", { type: "submit" }, t("send")));
  const panel = el("details", { class: "talk card", "data-talk": "", on: { toggle: () => { if (panel.open) panel.refresh(); } } },
    el("summary", {}, el("h2", {}, t("talk"), count)),
    list, off, write, mute, notePanel(path));
  panel.refresh = async () => {
    const page = (await api("GET", path + "/messages")).data;
    list.replaceChildren(...(page.items.length ? page.items.map(line) : [el("li", { class: "muted" }, t("no_messages"))]));
    count.hidden = !page.unread;
    count.textContent = String(page.unread);
    team.hidden = !page.team_channel;
    off.hidden = page.may_write;
    write.hidden = !page.may_write;
    mute.dataset.mute = String(page.muted);
    mute.textContent = t(page.muted ? "unmute_talk" : "mute_talk");
    // Read where it is open: the new ones are seen now.
    if (panel.open && page.unread) {
      await api("POST", path + "/messages/read");
      count.hidden = true;
    }
  };
  panel.refresh().catch(() => {});
  return panel;
}

/// One message: who, when, the text (a deleted account's says so).
function line(message) {
  return el("li", { "data-message": message.id },
    el("span", { class: "who" }, playerName(message.author)), message.team ? el("span", { class: "muted" }, " · " + t("team")) : null,
    el("span", { class: "muted" }, " · " + local(message.at)), el("br"),
    message.text === null || message.text === undefined ? el("em", { class: "muted" }, t("deleted_message")) : el("span", { class: "text" }, message.text));
}

/// My private note on the match: only I see it; kept after the match.
function notePanel(path) {
  const text = el("textarea", { name: "note", rows: "3", maxlength: "2000", "aria-label": t("my_note") });
  const saved = el("span", { class: "muted saved", role: "status" });
  api("GET", path + "/note").then((r) => { if (!text.value) text.value = r.data.text; }, () => {});
  return form({ class: "note", "data-note": "" }, async (data) => {
    await api("PUT", path + "/note", { text: data.get("note") || "" });
    saved.textContent = t("saved");
  }, el("label", {}, t("my_note"), text), el("button", { type: "submit", class: "secondary" }, t("save_note")), saved);
}
