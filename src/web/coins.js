// Coins and looks (issue #70, docs/rules/rewards.md): what a finished
// game paid in its banner, the balance and the ledger on my profile, the
// looks bought and chosen in settings, and my theme on my own boards.
import { api, el, link, local, say, store, t } from "./core.js";

/// What the finished match `m` paid me ("+12 코인"), or why nothing
/// ("코인 없음 · 3라운드 전 기권"); null when I sat in no seat of it.
export function coinsLine(m) {
  const mine = ((m.result && m.result.coins) || []).find((c) => m.my_seats.includes(c.seat));
  if (!mine) return null;
  const text = mine.coins > 0 ? say("coins_plus", { n: mine.coins }) : t("coins_none") + " · " + t("coins_why_" + mine.why);
  return el("p", { class: "coins-paid", "data-coins": mine.coins, "data-why": mine.why }, text);
}

/// The looks I wear, as kept on this device (`wornLooks` refreshes it).
function keptLooks() {
  try { return JSON.parse(store.getItem("looks")) || {}; } catch (_) { return {}; }
}

/// Fetch what I wear and keep it; quiet when offline or signed out.
export async function wornLooks() {
  try {
    const looks = (await api("GET", "/v1/me/looks")).data;
    store.setItem("looks", JSON.stringify(looks.worn));
    return looks;
  } catch (_) { return null; }
}

/// The class of my theme for `game`'s boards (" theme-walnut"), or "".
export function themeClass(game) {
  const theme = (keptLooks().themes || {})[game];
  return theme ? " theme-" + theme : "";
}

/// The ledger's line as people read it: "+20 · 승리 · 등급전", a link to
/// the match that paid it.
function ledgerLine(line) {
  const amount = (line.amount > 0 ? "+" : "") + line.amount;
  const what = t("coins_why_" + line.why) + " · " + t("coins_source_" + line.source);
  const look = line.cause.startsWith("look:") ? " · " + lookName(line.cause.slice(5)) : "";
  return el("li", { "data-why": line.why }, el("strong", {}, amount), " ", what + look, " · ",
    line.match_id ? link("/matches/" + line.match_id, local(line.at)) : el("span", { class: "muted" }, local(line.at)));
}

/// My coins on my profile: the balance and what paid what, newest first.
export async function ledgerCard() {
  const ledger = (await api("GET", "/v1/me/coins")).data;
  return el("div", { class: "card", "data-ledger": true },
    el("h3", {}, t("coins")),
    el("p", { class: "balance", "data-balance": ledger.balance }, say("coins_balance", { n: ledger.balance })),
    ledger.lines.length ? el("ol", { class: "ledger" }, ledger.lines.map(ledgerLine)) : el("p", { class: "muted" }, t("coins_empty")),
    link("/settings#looks", t("looks_shop")));
}

/// A look's name in the page's language: "장기 · 호두나무", "별".
function lookName(id) {
  const [kind, a, b] = id.split(".");
  return kind === "theme" ? t("game_" + a) + " · " + t("theme_" + b) : t("emblem_" + a);
}

/// The games whose themes the player unfolded, kept through redraws.
const opened = new Set();

/// The looks in settings: every theme of every game and every emblem,
/// bought with a tap (asked first: it spends coins) and chosen with
/// another. `redraw` draws the card again after a change.
export async function looksCard(redraw) {
  const looks = await wornLooks();
  if (!looks) return null;
  const said = el("p", { class: "muted", role: "status" });
  const worn = looks.worn;
  const wear = async (next) => {
    try {
      await api("PUT", "/v1/me/looks", next);
      await redraw();
    } catch (error) { said.textContent = t("error") + ": " + error.message; }
  };
  const buy = async (item) => {
    try {
      await api("POST", "/v1/me/looks/purchases", { item }, { "idempotency-key": crypto.randomUUID() });
      await redraw();
    } catch (error) { said.textContent = t("error") + ": " + error.message; }
  };
  const isWorn = (look) => (look.kind === "emblem" ? worn.emblem === look.name : (worn.themes || {})[look.game] === look.name);
  const choose = (look) => {
    const themes = Object.assign({}, worn.themes);
    if (look.kind === "emblem") return wear({ emblem: isWorn(look) ? null : look.name, themes });
    if (isWorn(look)) delete themes[look.game]; else themes[look.game] = look.name;
    return wear({ emblem: worn.emblem || null, themes });
  };
  const row = (look) => el("li", { "data-look": look.id, class: isWorn(look) ? "worn" : "" },
    el("span", { class: "swatch " + (look.kind === "theme" ? "theme-" + look.name : "emblem-" + look.name), "aria-hidden": "true" }),
    el("span", {}, look.kind === "theme" ? t("theme_" + look.name) : t("emblem_" + look.name), look.price ? null : " · " + t("looks_free")),
    look.owned
      ? el("button", { type: "button", class: isWorn(look) ? "" : "secondary", "aria-pressed": String(isWorn(look)), "aria-label": lookName(look.id), "data-choose": look.id, on: { click: () => choose(look) } }, isWorn(look) ? t("looks_worn") : t("looks_choose"))
      : el("button", { type: "button", "aria-label": lookName(look.id) + " · " + say("looks_buy", { n: look.price }), "data-buy": look.id, disabled: looks.balance < look.price ? true : null, on: { click: () => buy(look.id) } }, say("looks_buy", { n: look.price })));
  const games = [...new Set(looks.items.filter((l) => l.game).map((l) => l.game))];
  // A game's themes folded under its name, open where one is chosen or
  // the player opened it (kept through a redraw).
  const themes = (game) => {
    const chosen = (worn.themes || {})[game];
    const fold = el("details", { open: chosen || opened.has(game) ? true : null, "data-game": game },
      el("summary", {}, t("game_" + game) + (chosen ? " · " + t("theme_" + chosen) : "")),
      el("ul", { class: "shop" }, looks.items.filter((l) => l.game === game).map(row)));
    fold.addEventListener("toggle", () => (fold.open ? opened.add(game) : opened.delete(game)));
    return fold;
  };
  return el("div", { class: "card looks", id: "looks" },
    el("h2", {}, t("looks")),
    el("p", { "data-balance": looks.balance }, el("strong", {}, say("coins_balance", { n: looks.balance })), " · ", el("span", { class: "muted" }, t("looks_what"))),
    said,
    el("h3", {}, t("looks_emblems")),
    el("ul", { class: "shop" }, looks.items.filter((l) => l.kind === "emblem").map(row)),
    el("h3", {}, t("looks_themes")),
    games.map(themes));
}
