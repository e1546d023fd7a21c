// Moderation (issue #50 item 6): for moderators only (the role is granted
// by the binary's command, never here). The open reports, each with the
// message whole, where it was written and who reported it, and the acts
// on it, each asking why (kept in the log); then what moderators did.
import { api, el, local, playerName, say, show, t } from "./core.js";

export async function moderationPage() {
  const [reports, log] = await Promise.all([api("GET", "/v1/moderation/reports"), api("GET", "/v1/moderation/log")]).then((r) => r.map((x) => x.data));
  show(el("h2", {}, t("moderation")),
    el("section", { class: "card", "aria-labelledby": "mod-reports" }, el("h3", { id: "mod-reports" }, t("mod_reports")),
      reports.length ? el("ol", { class: "reports" }, reports.map(reportCard)) : el("p", { class: "muted" }, t("mod_none"))),
    el("section", { class: "card", "aria-labelledby": "mod-log" }, el("h3", { id: "mod-log" }, t("mod_log")),
      el("ol", { class: "mod-log" }, log.map(logLine))));
}

/// One open report and what can be done about it.
function reportCard(r) {
  const m = r.message;
  const done = el("p", { class: "muted", role: "status" });
  const error = el("p", { class: "error", role: "alert", hidden: true });
  const why = el("input", { name: "why", required: true, maxlength: "500", autocomplete: "off" });
  const paths = {
    mod_hide: ["/v1/moderation/messages/" + m.id + "/hide", {}],
    mod_dismiss: ["/v1/moderation/reports/" + r.id + "/dismiss", {}],
    mod_mute: ["/v1/moderation/players/" + encodeURIComponent(m.author.username) + "/mute", { hours: 24 }],
    mod_suspend: ["/v1/moderation/players/" + encodeURIComponent(m.author.username) + "/suspend", {}],
  };
  // Every act says why: the box is asked for first.
  const act = (k) => el("button", { type: "button", class: "secondary", "data-mod": k, on: { click: async () => {
    if (!why.value.trim()) { why.reportValidity(); return; }
    error.hidden = true;
    try {
      const [path, body] = paths[k];
      await api("POST", path, Object.assign({ why: why.value }, body));
      done.textContent = t("mod_done");
    } catch (e) {
      error.textContent = t("error") + ": " + e.message;
      error.hidden = false;
    }
  } } }, t(k));
  return el("li", { "data-report": r.id },
    el("p", {}, el("strong", {}, playerName(m.author)), el("span", { class: "muted" }, " · " + local(m.at))),
    r.before.length ? el("ol", { class: "context muted", "aria-label": t("mod_context") }, r.before.map((b) => el("li", {}, playerName(b.author) + ": " + (b.text ?? t("deleted_message"))))) : null,
    el("blockquote", { class: "text" }, m.text === null || m.text === undefined ? t(m.hidden ? "hidden_message" : "deleted_message") : m.text),
    el("p", { class: "muted" }, t("reason_" + r.reason), r.detail ? " — " + r.detail : "", " · ", say("mod_reported_by", { name: playerName(r.reporter) })),
    el("div", { class: "mod-act" }, el("label", {}, t("mod_why"), why), el("div", { class: "actions" }, Object.keys(paths).map(act)), done, error));
}

/// One act of the audit log: when, who, what, on whom, why.
function logLine(e) {
  const who = e.moderator ? playerName(e.moderator) : "—";
  return el("li", {}, el("span", { class: "muted" }, local(e.at) + " · "), who, " ", t("log_" + e.action), e.player ? " " + playerName(e.player) : "",
    e.until ? " (" + local(e.until) + ")" : "", el("br"), el("span", { class: "muted" }, e.why));
}
