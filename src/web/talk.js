// Table talk on the match page (issue #50): the messages of the match's
// players, a box to write, mute, and my private note. A drawer under the
// board (a `details`), so it never covers the board on a phone; it says
// how many messages are new while closed. Messages are no game events:
// the page hears of a new one on its live channel and asks again. The
// tournament page has the same drawer for its room (item 2), without
// mute, note or unread count, read again every 20 s while open.
import { api, el, form, local, playerName, say, session, t } from "./core.js";

/// The panel for match `m`, kept across the page's redraws (what is typed
/// stays); `refresh()` reads the messages again.
export function talkPanel(m) {
  return drawer("/v1/matches/" + m.id, true);
}

/// The tournament `x`'s room, for its joined players.
export function roomPanel(x) {
  const panel = drawer("/v1/tournaments/" + x.id, false);
  const every = setInterval(() => {
    if (!panel.isConnected) clearInterval(every);
    else if (panel.open && !document.hidden) panel.refresh().catch(() => {});
  }, 20000);
  return panel;
}

/// A talk drawer on `path`'s messages; a table's has mute and my note.
function drawer(path, table) {
  // A log (WAI-ARIA): a new message is told, and only the new one, since
  // only new ones are appended.
  const list = el("ol", { class: "messages", role: "log", "aria-label": t("talk") });
  const count = el("span", { class: "badge on", "data-talk-unread": "", hidden: true, "aria-hidden": "true" });
  const countSaid = el("span", { class: "visually-hidden" });
  // At a table of teams, two tabs (issue #68): the whole table's talk and
  // my team's, each its own list; what I send goes to the tab I am on, and
  // the send button names it. A tab, not a box to tick: where a message
  // goes is in sight before and after it is sent.
  let channel = "all";
  const tabs = el("div", { class: "talk-tabs", role: "tablist", "aria-label": t("talk"), hidden: true });
  const tab = (name) => el("button", { type: "button", role: "tab", "data-channel": name,
    on: { click: () => choose(name) } }, t(name === "team" ? "talk_team" : "talk_all"));
  const tabAll = tab("all"), tabTeam = tab("team");
  tabs.append(tabAll, tabTeam);
  const off = el("p", { class: "muted", "data-talk-off": "", hidden: true }, t("talk_off"));
  const mute = el("button", { type: "button", class: "secondary", "data-mute": "", on: { click: () => {
    api("PUT", path + "/mute", { muted: mute.dataset.mute !== "true" }).then(() => panel.refresh(), () => {});
  } } });
  const box = el("input", { name: "text", maxlength: "500", autocomplete: "off", "aria-label": t("message"), placeholder: t("message") });
  const send = el("button", { type: "submit" }, t("send"));
  // The send button names where the message goes; the list shows that
  // channel's messages.
  const named = () => { send.textContent = t(channel === "team" ? "send_team" : "send"); };
  const choose = (name) => {
    channel = name;
    for (const b of [tabAll, tabTeam]) b.setAttribute("aria-selected", String(b.dataset.channel === name));
    named();
    filter();
  };
  const filter = () => {
    let shown = 0;
    for (const li of list.querySelectorAll("[data-message]")) {
      li.hidden = (li.dataset.team === "true") !== (channel === "team");
      if (!li.hidden) shown += 1;
    }
    list.querySelector(".none")?.remove();
    if (!shown) list.append(el("li", { class: "muted none" }, t("no_messages")));
  };
  choose(channel);
  // One key per message typed: a retry of the same (a lost answer, a
  // second tap) is the same message, never two.
  let key = null;
  const write = form({ class: "talk-write" }, async (data) => {
    if (send.disabled) return;
    key = key || "m-" + Date.now() + "-" + Math.random().toString(36).slice(2);
    send.disabled = true;
    try {
      const said = (await api("POST", path + "/messages", { text: data.get("text"), team: channel === "team" }, { "idempotency-key": key })).data;
      key = null;
      box.value = "";
      show([said], false);
    } finally {
      send.disabled = false;
    }
  }, box, send);
  box.addEventListener("input", () => { key = null; });
  const panel = el("details", { class: "talk card", "data-talk": "", on: { toggle: () => { if (panel.open) panel.refresh().catch(() => {}); } } },
    el("summary", {}, el("h2", {}, t("talk"), count, countSaid)),
    tabs, list, off, write, table ? mute : null, table ? notePanel(path) : null);
  // The messages shown, appended as they come (a changed history, after
  // a block, is drawn again whole), the newest in sight.
  const show = (items, whole) => {
    const shown = [...list.querySelectorAll("[data-message]")].map((n) => n.dataset.message);
    const ids = new Set(items.map((x) => x.id));
    if (whole && shown.some((id) => !ids.has(id))) list.replaceChildren();
    const have = new Set([...list.querySelectorAll("[data-message]")].map((n) => n.dataset.message));
    list.append(...items.filter((x) => !have.has(x.id)).map(line));
    filter();
    list.scrollTop = list.scrollHeight;
  };
  // One read at a time: a change heard meanwhile reads once more after.
  let reading = null, again = false;
  panel.refresh = () => {
    if (reading) { again = true; return reading; }
    reading = (async () => {
      do {
        again = false;
        const page = (await api("GET", path + "/messages")).data;
        show(page.items, true);
        count.hidden = !page.unread;
        count.textContent = String(page.unread);
        countSaid.textContent = page.unread ? " · " + say("new_messages", { n: page.unread }) : "";
        tabs.hidden = !page.team_channel;
        if (!page.team_channel && channel !== "all") choose("all");
        off.hidden = page.may_write;
        write.hidden = !page.may_write;
        mute.dataset.mute = String(page.muted);
        mute.textContent = t(page.muted ? "unmute_talk" : "mute_talk");
        // Read where it is open: the new ones are seen now.
        if (panel.open && page.unread) {
          await api("POST", path + "/messages/read");
          count.hidden = true;
          countSaid.textContent = "";
        }
      } while (again);
    })().finally(() => { reading = null; });
    return reading;
  };
  panel.refresh().catch(() => {});
  return panel;
}

/// One message: who, when, the text (a deleted account's, or one a
/// moderator hid, says so), and a report button on another's.
function line(message) {
  const me = session.user();
  const gone = message.text === null || message.text === undefined;
  const mine = me && message.author.id === me.id;
  return el("li", { "data-message": message.id, "data-team": String(Boolean(message.team)) },
    el("span", { class: "who" }, playerName(message.author)), message.team ? el("span", { class: "muted" }, " · " + t("team")) : null,
    el("span", { class: "muted" }, " · " + local(message.at)), el("br"),
    gone ? el("em", { class: "muted" }, t(message.hidden ? "hidden_message" : "deleted_message")) : el("span", { class: "text" }, message.text),
    gone || mine ? null : reportButton(message));
}

/// Report a message (issue #50 item 6): why, then sent; the author is
/// never told who reported.
function reportButton(message) {
  const slot = el("span", { class: "report" });
  // A quiet "⋯" beside each message, not a button as strong as sending
  // (issue #68): it opens the report, whole on screen.
  const open = el("button", { type: "button", class: "more", "data-report": message.id, title: t("report"), "aria-label": t("report") + ": " + playerName(message.author) }, "⋯");
  open.addEventListener("click", () => {
    const reason = el("select", { name: "reason", "aria-label": t("report_reason") },
      ["abuse", "spam", "other"].map((r) => el("option", { value: r }, t("reason_" + r))));
    slot.replaceChildren(form({ class: "report-form" }, async (data) => {
      await api("POST", "/v1/messages/" + message.id + "/report", { reason: data.get("reason") });
      slot.replaceChildren(el("span", { class: "muted", role: "status" }, t("reported")));
    }, el("label", {}, t("report_reason"), reason), el("button", { type: "submit", class: "secondary" }, t("report_send"))));
    reason.focus({ preventScroll: true });
    slot.scrollIntoView({ block: "nearest" });
  });
  slot.append(" ", open);
  return slot;
}

/// My private note on the match: only I see it; kept after the match.
function notePanel(path) {
  const text = el("textarea", { name: "note", rows: "3", maxlength: "2000", "aria-label": t("my_note") });
  const saved = el("span", { class: "muted saved", role: "status" });
  api("GET", path + "/note").then((r) => { if (!text.value) text.value = r.data.text; }, () => {});
  return form({ class: "note", "data-note": "" }, async (data) => {
    saved.textContent = "";
    try {
      await api("PUT", path + "/note", { text: data.get("note") || "" });
    } catch (error) {
      // The note's own words: its member is `text`, like a message's.
      throw error.problem && error.problem.field === "text" ? new Error(t("my_note") + ": " + t("rule_note")) : error;
    }
    saved.textContent = t("saved");
  }, el("label", {}, t("my_note"), text), el("button", { type: "submit", class: "secondary" }, t("save_note")), saved);
}
