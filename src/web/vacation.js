// Vacation on the settings page (issue #34): the allowance left, going
// away (with an end date if one likes) and coming back, and whether a
// deadline that would lose a match starts a vacation by itself.
import { api, el, form, go, local, t } from "./core.js";

/// "12 days 3 hours" from hours.
function days(hours) {
  const d = Math.floor(hours / 24), h = hours % 24;
  return (d ? d + " " + t("days") + " " : "") + h + " " + t("hours");
}

export async function vacationCard(saved) {
  const v = (await api("GET", "/v1/me/vacation")).data;
  const away = !!v.since;
  const status = el("p", { "data-vacation": away ? "away" : "here" },
    t("vacation_left") + ": " + days(v.hours_left),
    away ? " · " + t("on_vacation") + (v.until ? " " + t("until") + " " + local(v.until) : "") : "");
  const auto = el("label", { class: "check" }, el("input", { type: "checkbox", name: "auto", checked: v.auto, on: { change: async (e) => {
    await api("PUT", "/v1/me/vacation/auto", { on: e.target.checked });
    saved.textContent = t("saved");
  } } }), t("auto_vacation"));
  if (away) {
    const back = el("button", { type: "button", "data-action": "end_vacation", on: { click: async () => {
      await api("DELETE", "/v1/me/vacation");
      go("/settings");
    } } }, t("end_vacation"));
    return el("div", { class: "card" }, el("h2", {}, t("vacation")), status, back, auto);
  }
  const start = form({}, async (data) => {
    const until = data.get("until");
    await api("POST", "/v1/me/vacation", until ? { until: new Date(until + "T23:59:00").toISOString() } : {});
    go("/settings");
  }, el("h2", {}, t("vacation")), status, el("p", { class: "muted" }, t("vacation_explained")),
  el("label", {}, t("vacation_until"), el("input", { type: "date", name: "until" })),
  el("button", { type: "submit", "data-action": "start_vacation" }, t("start_vacation")), auto);
  return start;
}
