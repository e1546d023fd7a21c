// "Find an opponent": post a seek (a game, rated or not, hours per turn,
// and — unrated only — the computer after a wait, issue #32), see the
// seeks waiting, take one, or withdraw one's own. When mine is paired the
// page opens the match it started.
import { api, displayName, el, fail, form, gameChoice, gameName, go, show, t } from "./core.js";

let polling = null;

export async function seekPage() {
  clearInterval(polling);
  const games = (await api("GET", "/v1/games")).data;
  const picker = gameChoice(games, { setups: false });
  const rated = el("input", { name: "rated", type: "checkbox", on: { change: () => { fallback.disabled = rated.checked; } } });
  const fallback = el("select", { name: "bot_after_seconds" },
    [["", t("never")], ["60", t("after_minute")], ["300", t("after_5_minutes")], ["3600", t("after_hour")]]
      .map(([v, label]) => el("option", { value: v }, label)));
  const list = el("div", { class: "seeks" });
  const draw = async () => {
    const seeks = (await api("GET", "/v1/seeks")).data;
    const me = JSON.parse(localStorage.getItem("user") || "{}").id;
    list.replaceChildren(el("h3", {}, t("waiting_seeks")), seeks.length ? el("ul", {}, seeks.map((s) => el("li", { "data-seek": s.id },
      el("strong", {}, gameName(s)), " — ", displayName({ user: s.user }), " (" + s.rating + ") · ",
      t(s.rated ? "rated_match" : "unrated_match"), " ",
      s.user.id === me
        ? el("button", { type: "button", class: "secondary", on: { click: () => act("DELETE", "/v1/seeks/" + s.id) } }, t("withdraw"))
        : el("button", { type: "button", on: { click: () => act("POST", "/v1/seeks/" + s.id + "/accept", true) } }, t("play"))))) : el("p", { class: "muted" }, t("no_one")));
  };
  const act = async (method, path, opens) => {
    try {
      const reply = (await api(method, path)).data;
      if (opens && reply && reply.id) return go("/matches/" + reply.id);
      await draw();
    } catch (error) { fail(error); }
  };
  show(form({}, async (data) => {
    const body = { ...picker.body(data), rated: data.get("rated") === "on", turn_hours: Number(data.get("turn_hours")) || 48 };
    if (!body.rated && data.get("bot_after_seconds")) body.bot_after_seconds = Number(data.get("bot_after_seconds"));
    // The matches I have now: the one a pairing starts is the new one.
    const mine = async () => (await api("GET", "/v1/matches")).data.items.map((m) => m.id);
    const known = new Set(await mine());
    const answer = (await api("POST", "/v1/seeks", body)).data;
    if (answer.match) return go("/matches/" + answer.match.id);
    await draw();
    // Mine waits until a person or the computer takes it: then its match
    // is among my matches, and the page opens it.
    clearInterval(polling);
    polling = setInterval(async () => {
      if (location.pathname !== "/seek") return clearInterval(polling);
      try {
        const started = (await mine()).find((id) => !known.has(id));
        if (started) { clearInterval(polling); return go("/matches/" + started); }
        await draw();
      } catch (_) { /* try again */ }
    }, 5000);
  },
  el("h2", {}, t("find_opponent")),
  picker.game,
  picker.variant,
  el("label", {}, t("turn_hours"), el("input", { name: "turn_hours", type: "number", min: "1", max: "336", value: "48" })),
  el("label", { class: "check" }, rated, t("rated")),
  el("label", {}, t("computer_fallback"), fallback),
  el("button", { type: "submit" }, t("find_opponent"))), list);
  await draw();
}
