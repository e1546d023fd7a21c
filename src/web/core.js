// What every page of the web client shares: the words (words.js), the
// API (tokens sent to this origin only: relative URLs), small DOM helpers
// and the viewer's clock.

import { WORDS } from "./words.js";

let lang = (navigator.language || "en").toLowerCase().startsWith("ko") ? "ko" : "en";

export const t = (key) => (WORDS[lang] && WORDS[lang][key]) || WORDS.en[key] || key;

/// The words under `key` with each `{name}` replaced by its value.
export const say = (key, values) => Object.entries(values).reduce((text, [k, v]) => text.split("{" + k + "}").join(String(v)), t(key));

/// A word for an id the API sends (`game_janggi`, `variant_russian`), or
/// the id itself, readable, where no word is known.
export const named = (prefix, id) => (WORDS.en[prefix + id] ? t(prefix + id) : String(id).replace(/_/g, " "));
export const language = () => lang;

/// A refusal of one box of a form, said in the page's language (issue #49
/// item 9): the service names the field and the rule it broke (docs/api.md,
/// "Errors"); the box's label and the rule are ours. `null` where we have
/// no words for it: the service's sentence is said then.
function refusal(problem) {
  if (!problem || !problem.field || !problem.rule || problem.status >= 500) return null;
  const label = { locale: "language", text: "message" }[problem.field] || problem.field;
  const rule = problem.rule === "form" ? "rule_" + ({ new_password: "password" }[problem.field] || problem.field) : "refused_" + problem.rule;
  return WORDS.en[label] && WORDS.en[rule] ? t(label) + ": " + t(rule) : null;
}

export function setLanguage(next) {
  lang = String(next || "").toLowerCase().startsWith("ko") ? "ko" : "en";
  document.documentElement.lang = lang;
}

const store = window.localStorage;

/// The account's reads kept for offline and its unsent moves: forgotten
/// at sign-out and when another account signs in on this device.
function forgetKept() {
  store.removeItem("outbox");
  Object.keys(store).filter((k) => k.startsWith("kept:")).forEach((k) => store.removeItem(k));
}

export const session = {
  get access() { return store.getItem("access_token"); },
  get refresh() { return store.getItem("refresh_token"); },
  /// Whether the access token has a while left (60 s, or a quarter of
  /// its life if shorter). Unknown (saved before expiries were kept):
  /// taken as fresh, and a 401 renews it.
  get fresh() {
    const at = Number(store.getItem("access_expires_at"));
    if (!at) return true;
    const left = at - Date.now();
    return left > Math.min(60000, Number(store.getItem("access_life") || 900000) / 4);
  },
  save(s) {
    // Another account on this device: what the last one kept is not theirs.
    const before = this.user();
    if (s.user && before && before.id !== s.user.id) forgetKept();
    store.setItem("access_token", s.access_token);
    // When the access token ends, by this device's clock: it is renewed
    // a little before (`api`), not after a read has failed.
    if (s.expires_in) {
      store.setItem("access_expires_at", String(Date.now() + s.expires_in * 1000));
      store.setItem("access_life", String(s.expires_in * 1000));
    } else store.removeItem("access_expires_at");
    if (s.refresh_token) store.setItem("refresh_token", s.refresh_token);
    if (s.user) store.setItem("user", JSON.stringify(s.user));
    // The account's language applies at once, from sign-in on (issue #33).
    if (s.user && s.user.locale) setLanguage(s.user.locale);
  },
  remember(user) { store.setItem("user", JSON.stringify(user)); },
  // Signing out forgets the account's kept reads and unsent moves too.
  clear() {
    ["access_token", "access_expires_at", "access_life", "refresh_token", "user", "push_id", "looks"].forEach((k) => store.removeItem(k));
    forgetKept();
  },
  user() { try { return JSON.parse(store.getItem("user")); } catch (_) { return null; } },
  get pushId() { return store.getItem("push_id"); },
  set pushId(id) { store.setItem("push_id", id); },
};

/// The reads a player may open offline (issue #33): my matches, a match's
/// view, its legal actions and its whole event list, and the summary.
/// Each answer is kept in this device's storage for the signed-in account
/// (forgotten at sign-out or when another account signs in), and answered
/// from there when the network fails.
const KEPT = /^\/v1\/(matches(\/[0-9a-f-]{36}(\/legal-actions|\/events\?after=0)?)?|me\/summary)$/;

export { store };

/// Keep `data` (JSON, or its text) as the offline answer to GET `path`.
export function keepRead(path, data) {
  try {
    store.setItem("kept:" + path, typeof data === "string" ? data : JSON.stringify(data));
  } catch (_) { /* storage full: not kept */ }
}

/// The one renewal of the session in flight in this page (issue #47).
let renewing = null;

/// Renew the session whose access token is `stale`, once per browser:
/// every request of this page that needs it waits for the same renewal,
/// and tabs take turns through a Web Lock, each reading the stored session
/// again once it holds the lock, so that a tab finding the token another
/// tab just renewed uses it instead of spending the refresh token again
/// (the service would answer a second spend within 60 s alike, and end
/// the session after that). Resolves whether the session goes on; never
/// rejects (offline, the request itself says so).
export function renewSession(stale) {
  if (!renewing) {
    const locks = navigator.locks;
    const name = "posthorn-session-refresh";
    // Taken at once: nobody else is renewing. Else wait for whoever is.
    const locked = locks && locks.request
      ? locks.request(name, { ifAvailable: true }, (lock) => (lock ? renewUnlessDone(stale, false)
        : locks.request(name, () => renewUnlessDone(stale, true))))
      : renewUnlessDone(stale, false);
    renewing = Promise.resolve(locked).catch(() => false).finally(() => { renewing = null; });
  }
  return renewing;
}

/// Until `key` changes in another tab, at most `ms`.
function storageChange(key, ms) {
  return new Promise((resolve) => {
    const done = () => { removeEventListener("storage", changed); clearTimeout(timer); resolve(); };
    const changed = (event) => { if (event.key === key) done(); };
    const timer = setTimeout(done, ms);
    addEventListener("storage", changed);
  });
}

async function renewUnlessDone(stale, waited) {
  // Another tab held the lock: its renewal reaches this tab's storage
  // a moment after the lock does (tabs are other processes).
  if (waited && session.access === stale) await storageChange("access_token", 2000);
  // Renewed meanwhile, by this page or another tab: nothing to do.
  if (session.access && session.access !== stale && session.fresh) return true;
  const token = session.refresh;
  if (!token) return false;
  const renewed = await fetch("/v1/sessions/refresh", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ refresh_token: token }),
  });
  if (!renewed.ok) return false;
  session.save(await renewed.json());
  return true;
}

export async function api(method, path, body, headers) {
  // About to expire (back after a while): renewed before the request, so
  // that a page's reads do not each fail first.
  if (session.refresh && !session.fresh) await renewSession(session.access);
  const sent = session.access;
  const send = () => fetch(path, {
    method,
    headers: Object.assign(
      // The service's problem documents in the page's language (issue #33).
      { "content-type": "application/json", "accept-language": lang },
      session.access ? { authorization: "Bearer " + session.access } : {},
      headers || {},
    ),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let response;
  try {
    response = await send();
  } catch (_) {
    // No connection: a kept copy of a read, else a failure that says so.
    const kept = method === "GET" && KEPT.test(path) ? store.getItem("kept:" + path) : null;
    if (kept) return { status: 200, data: JSON.parse(kept), etag: null, offline: true };
    const error = new Error(t("offline"));
    error.network = true;
    throw error;
  }
  if (response.status === 401 && sent && session.refresh && await renewSession(sent)) {
    response = await send();
  }
  const text = await response.text();
  // A file to save (a match's record) is text, not JSON.
  const json = (response.headers.get("content-type") || "application/json").includes("json");
  const data = text && json ? JSON.parse(text) : null;
  if (!response.ok && response.status !== 304) {
    const error = new Error(refusal(data) || (data && data.detail) || response.statusText);
    error.status = response.status;
    error.problem = data;
    throw error;
  }
  if (method === "GET" && response.status === 200 && KEPT.test(path)) keepRead(path, text);
  // The text as sent and the headers too: a file to save keeps both.
  return { status: response.status, data, etag: response.headers.get("etag"), text, headers: response.headers };
}

export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "on") for (const [event, f] of Object.entries(v)) node.addEventListener(event, f);
    else if (v === true) node.setAttribute(k, "");
    else if (v !== false && v !== null && v !== undefined) node.setAttribute(k, v);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined && child !== false) {
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
  }
  return node;
}

const main = () => document.getElementById("main");

export function show(...nodes) {
  main().replaceChildren(...nodes.filter((n) => n !== null && n !== undefined && n !== false));
}

export function fail(error) {
  show(el("p", { class: "error", role: "alert" }, t("error") + ": " + error.message));
}

/// A form whose submit runs `then(data)`. A failure is said inside the
/// form, under its fields, which keep what was typed (issue #33: an error
/// never wipes the page).
export function form(attrs, then, ...children) {
  const said = el("p", { class: "error", role: "alert", hidden: true });
  return el("form", Object.assign({ class: "card" }, attrs, {
    on: {
      submit: async (event) => {
        event.preventDefault();
        said.hidden = true;
        try { await then(new FormData(event.target), event.target); } catch (error) {
          said.textContent = t("error") + ": " + error.message;
          said.hidden = false;
        }
      },
    },
  }), ...children, said);
}

const routes = { go: null };
export function onNavigate(f) { routes.go = f; }
export function go(path) {
  history.pushState(null, "", path);
  routes.go();
}

/// Draw `path` in place of the page in the history (a page nobody should
/// come back to, such as a provider's return, or the same page again).
export function replace(path) {
  history.replaceState(null, "", path);
  routes.go();
}

/// An invitation link to hand on in one tap (issue #33): the link, a copy
/// button, and the phone's own share sheet where the Web Share API exists.
export function shareLink(url, title) {
  const said = el("span", { class: "muted", role: "status" });
  const copy = el("button", { type: "button", class: "secondary", "data-action": "copy_link", on: { click: async () => {
    try { await navigator.clipboard.writeText(url); said.textContent = t("copied"); } catch (_) { input.select(); }
  } } }, t("copy"));
  const share = navigator.share
    ? el("button", { type: "button", "data-action": "share_link", on: { click: () => navigator.share({ title, url }).catch(() => {}) } }, t("share_button"))
    : null;
  const input = el("input", { readonly: true, value: url, class: "share", "aria-label": t("share") });
  return el("div", { class: "share-link" }, input, copy, share, said);
}

export function link(path, ...text) {
  return el("a", { href: path, "data-link": true }, ...text);
}

// ---- time, in the viewer's chosen time zone ----
export function countdown(iso) {
  const ms = new Date(iso).getTime() - Date.now();
  if (ms <= 0) return "0 " + t("left");
  const hours = Math.floor(ms / 3600000);
  const minutes = Math.floor((ms % 3600000) / 60000);
  const [d, h, m] = ["unit_d", "unit_h", "unit_m"].map(t);
  return (hours >= 24 ? Math.floor(hours / 24) + d + " " + (hours % 24) + h : hours + h + " " + minutes + m) + " " + t("left");
}

/// This device's time zone: a new account reads deadlines in it.
export const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";

export function zone() {
  const user = session.user();
  return (user && user.time_zone && user.time_zone !== "UTC" ? user.time_zone : undefined);
}

export function local(iso) {
  const options = { dateStyle: "medium", timeStyle: "short", timeZone: zone() };
  return new Date(iso).toLocaleString(lang === "ko" ? "ko-KR" : "en-GB", options);
}

/// A match's game with its variant or mode, in the page's language.
export function gameName(m) {
  const choice = m.variant ? named("variant_", m.variant) : m.mode ? named("mode_", m.mode) : null;
  return named("game_", m.game) + (choice ? " (" + choice + ")" : "");
}

export function displayName(seat) {
  if (!seat || !seat.user) return "…";
  // A computer opponent says so everywhere it is named (issue #32).
  return seat.user.computer ? t("computer") + " · " + t("level_" + seat.user.computer) : playerName(seat.user);
}

/// A player's name as others see it. A deleted account (issue #47) is
/// "deleted player" in the page's language, whatever name it had.
export const playerName = (player) => (player.deleted ? t("deleted_player")
  : player.display_name + (EMBLEMS[player.emblem] ? " " + EMBLEMS[player.emblem] : ""));

/// The emblems a player may wear beside their name (issue #70), drawn
/// with the fonts every phone has; the list is `coins::looks::EMBLEMS`
/// (a test holds the two together).
export const EMBLEMS = { star: "★", crown: "♛", knight: "♞", moon: "☾", sun: "☀", plum: "梅", crane: "鶴", dragon: "龍" };

/// A link to the player's profile; a deleted player has none to link to.
export const playerLink = (player, ...text) => (player.deleted
  ? el("span", { class: "deleted-player" }, t("deleted_player"))
  : link("/users/" + encodeURIComponent(player.username), ...(text.length ? text : [player.display_name])));

/// Whether a computer holds a seat of the match.
export const againstComputer = (m) => m.seats.some((s) => s.user && s.user.computer);

/// The game, its variant or mode and (`setups`) Janggi's setups (§J2,
/// SMSM unless chosen), as every form that starts a match asks them:
/// the form's fields, the chosen game, and its part of a request body.
/// `changed(game)` runs whenever the game changes, and once at once.
export function gameChoice(games, { setups = true, changed = () => {} } = {}) {
  const variant = el("select", { name: "variant", on: { change: () => changed(chosen(), variant.value) } });
  const variantLabel = el("label", {}, t("variant"), variant);
  const janggi = el("div", { class: "setups" });
  const select = el("select", { name: "game", on: { change: fill } }, games.map((g) => el("option", { value: g.id }, named("game_", g.id))));
  const chosen = () => games.find((g) => g.id === select.value);
  const hasModes = (game) => game.modes && game.modes.length;
  function fill() {
    const game = chosen();
    const options = (hasModes(game) ? game.modes : game.variants) || [];
    const prefix = hasModes(game) ? "mode_" : "variant_";
    variant.replaceChildren(...options.map((o) => el("option", { value: o }, named(prefix, o))));
    variant.disabled = options.length === 0;
    // A game with neither variants nor modes shows no empty box.
    variantLabel.hidden = options.length === 0;
    const setup = (side) => el("label", {}, t("setup_" + side), el("select", { name: "setup_" + side },
      ["SMSM", "MSMS", "MSSM", "SMMS"].map((o) => el("option", { value: o }, t("setup_" + o)))));
    janggi.replaceChildren(...(setups && game.id === "janggi" ? [setup("cho"), setup("han")] : []));
    changed(game, variant.value);
  }
  fill();
  return {
    game: el("label", {}, t("game"), select),
    variant: variantLabel,
    setups: janggi,
    chosen,
    /// `{game, variant | mode, options?}` from the form's data.
    body(data) {
      const game = chosen();
      const body = { game: game.id };
      if (data.get("variant")) body[hasModes(game) ? "mode" : "variant"] = data.get("variant");
      if (setups && game.id === "janggi") body.options = { setups: { cho: data.get("setup_cho"), han: data.get("setup_han") } };
      return body;
    },
  };
}

/// A destructive action asked first (issue #49 item 3): the button opens,
/// in its place, a question that says what it costs, answered by `yes`
/// (red) or "cancel" (focused, the safe default). One tap does nothing
/// that cannot be undone. `attrs` go on the first button.
export function askedFirst(label, cost, yes, run, attrs) {
  const box = el("div", { class: "asked-first" });
  const reset = () => box.replaceChildren(el("button", Object.assign({ type: "button", class: "danger", on: { click: ask } }, attrs || {}), label));
  const ask = () => {
    const cancel = el("button", { type: "button", class: "secondary", on: { click: () => { reset(); box.querySelector("button").focus(); } } }, t("cancel"));
    box.replaceChildren(el("div", { class: "card ask", role: "alertdialog", "aria-label": label, "aria-describedby": "ask-cost" },
      el("p", { id: "ask-cost" }, cost),
      el("button", { type: "button", class: "danger", "data-confirm": "yes", on: { click: run } }, yes), cancel));
    cancel.focus();
  };
  reset();
  return box;
}

/// A button that saves what `path` answers as a file, and `said`, where
/// it says how that went: `{button, said}` (my data, a match's record).
export function saveButton(label, path, type, fallback, attrs) {
  const said = el("span", { class: "muted", role: "status" });
  const button = el("button", Object.assign({ type: "button", class: "secondary", on: { click: async () => {
    button.disabled = true;
    try {
      await saveFile(path, type, fallback);
      said.textContent = t("downloaded");
    } catch (error) {
      said.textContent = t("error") + ": " + error.message;
    } finally {
      button.disabled = false;
    }
  } } }, attrs || {}), label);
  return { button, said };
}

/// Saves what `path` answers as a file, under the name the service gives
/// it (`fallback` else): read with the access token, which a link could
/// not carry.
async function saveFile(path, type, fallback) {
  const reply = await api("GET", path);
  const named = /filename="([^"]+)"/.exec(reply.headers.get("content-disposition") || "");
  const url = URL.createObjectURL(new Blob([reply.text], { type }));
  const save = el("a", { href: url, download: named ? named[1] : fallback, hidden: true });
  document.body.append(save);
  save.click();
  save.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
}
