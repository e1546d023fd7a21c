// The account pages: sign in / sign up / guest, my matches, a new match,
// an invitation, and the settings.
import { vacationCard } from "./vacation.js";
import { keepAccountCard, keepingAccount } from "./guests.js";
import { accountCards } from "./account.js";
import { identityFailed, providerButtons, signInProviders, signInWithIdentity } from "./identity.js";
import { againstComputer, api, browserZone, countdown, displayName, el, fail, form, gameChoice, gameName, go, language, link, playerName, say, session, setLanguage, shareLink, show, t } from "./core.js";
import { listen } from "./live.js";
import { cityOf, countryOf } from "./zones.js";
import { dailyCard } from "./puzzles.js";
import { forgetVisitorSteps } from "./lessons.js";
import { looksCard } from "./coins.js";
export { computerPage } from "./computer.js";

/// The invitation a signed-out visitor came from (`/signin?invite=CODE`),
/// joined once they have signed in or up (issue #47).
function invitationWaiting() {
  const code = new URLSearchParams(location.search).get("invite");
  return code && /^[A-Za-z0-9]+$/.test(code) ? code : null;
}

export async function signInPage(then, redraw, why) {
  const invite = invitationWaiting();
  const providers = await signInProviders();
  const done = async (reply) => {
    session.save(reply.data);
    redraw();
    if (invite) return joinInvitation(invite);
    then ? then() : go("/");
  };
  const account = (mode) => form({ id: mode }, async (data) => {
    const body = Object.fromEntries(data);
    // Each refusal names its field and rule, in the page's language
    // (issue #49 item 9), before anything is sent.
    const wrong = mode === "up" ? refusedAccount(body.username, body.password) : null;
    if (wrong) throw new Error(wrong);
    if (mode === "up") {
      if (!body.email) delete body.email;
      if (!String(body.display_name || "").trim()) delete body.display_name;
      // The new account reads deadlines in this device's zone and language.
      body.time_zone = browserZone();
      body.locale = language();
      return done(await api("POST", "/v1/accounts", body));
    }
    try {
      done(await api("POST", "/v1/sessions", { login: body.username, password: body.password }));
    } catch (error) {
      // Not "you need to sign in": the id or the password does not match.
      throw error.status === 401 ? new Error(t("wrong_credentials")) : error;
    }
  },
  el("h2", {}, mode === "up" ? t("sign_up") : t("sign_in")),
  el("label", {}, t("username"), el("input", { name: "username", required: true, autocomplete: "username", "aria-describedby": mode === "up" ? "rule-username" : null }),
    mode === "up" ? el("span", { class: "hint", id: "rule-username" }, t("rule_username")) : null),
  el("label", {}, t("password"), el("input", { name: "password", type: "password", required: true, autocomplete: mode === "up" ? "new-password" : "current-password", "aria-describedby": mode === "up" ? "rule-password" : null }),
    mode === "up" ? el("span", { class: "hint", id: "rule-password" }, t("rule_password")) : null),
  mode === "up" ? el("label", {}, t("email"), el("input", { name: "email", type: "email", autocomplete: "email" })) : null,
  // The name others see (issue #66); left empty, the username.
  mode === "up" ? el("label", {}, t("display_name"), el("input", { name: "display_name", autocomplete: "nickname", maxlength: 24, "aria-describedby": "rule-display-name" }),
    el("span", { class: "hint", id: "rule-display-name" }, t("rule_display_name"))) : null,
  el("button", { type: "submit" }, mode === "up" ? t("sign_up") : t("sign_in")),
  mode === "in" ? el("p", {}, link("/forgot-password", t("forgot_password"))) : null);
  // A guest reads deadlines and quiet hours in this device's zone too
  // (issue #66).
  const guest = form({ id: "guest" }, async (data) => done(await api("POST", "/v1/guests", { nickname: data.get("nickname"), time_zone: browserZone() })),
    el("h2", {}, t("guest")),
    el("label", {}, t("nickname"), el("input", { name: "nickname", required: true })),
    el("button", { type: "submit" }, t("guest")));
  // Google and Apple first where offered: one tap signs in or up (the
  // username is asked after, for a new account). The invitation goes
  // along and is joined on the way back.
  const withProvider = providers.length ? el("div", { class: "card providers", "data-providers": true },
    providerButtons(providers, "sign_in_with", "signin", { extra: () => (invite ? { invite } : {}) }),
    el("p", { class: "muted" }, t("identity_new_hint"))) : null;
  show(why ? el("p", { class: "card", role: "status", "data-signed-out": true }, why) : null,
    invite ? el("p", { class: "card", "data-invite-waiting": invite }, t("invite_after_sign_in")) : null,
    withProvider, account("in"), account("up"), guest);
  // A link to one of the forms (the welcome page's "sign up", "guest")
  // lands on it, not on the top of the page.
  const named = location.hash && document.getElementById(location.hash.slice(1));
  if (named && named.tagName === "FORM") {
    named.scrollIntoView({ block: "start" });
    named.querySelector("input").focus({ preventScroll: true });
  }
}

/// Why a new account's username or password would be refused, or null:
/// the service's own rules (3–24 Latin letters, digits, "_" and "-"; a password
/// of 8 characters or more), said with the field.
export function refusedAccount(username, password) {
  if (username !== undefined && !/^[A-Za-z0-9_-]{3,24}$/.test(String(username))) return t("username") + ": " + t("rule_username");
  if (password !== undefined && [...String(password)].length < 8) return t("password") + ": " + t("rule_password");
  return null;
}

/// Back from Google or Apple to sign in (or up): signed in, the
/// invitation the visitor came from is joined, else the page they were
/// on before signing in is drawn.
export function signInReturned(proof, flow, redraw) {
  return signInWithIdentity(proof, flow, async (reply) => {
    session.save(reply);
    redraw();
    // The provider's return is no page to come back to.
    history.replaceState(null, "", "/");
    if (flow.invite) return joinInvitation(flow.invite);
    const back = flow.back && !flow.back.startsWith("/signin") ? flow.back : "/";
    go(back);
  });
}

/// Join the invitation `code` and open its match. Refused (taken
/// meanwhile, or my own): the invitation's page says what it can.
async function joinInvitation(code) {
  let m;
  try {
    m = (await api("POST", "/v1/invites/" + encodeURIComponent(code) + "/accept")).data;
  } catch (_) {
    return go("/invite/" + code);
  }
  go("/matches/" + m.id);
}

/// Where a match stands for me, in a few words; `clock: false` leaves the
/// deadline to the player strips (the match page).
export function statusLine(m, { clock = true } = {}) {
  if (m.status === "finished" && m.result && m.my_seats.length) {
    // How it ended for me: won, lost or drawn.
    const winners = m.result.winners || [];
    const mine = !winners.length ? "result_draw" : m.my_seats.some((s) => winners.includes(s)) ? "result_win" : "result_loss";
    return el("span", { "data-result": mine }, t("finished") + " · " + t(mine));
  }
  if (m.status !== "active") return el("span", {}, t(m.status));
  const mine = m.to_act.find((d) => m.my_seats.includes(d.seat));
  const duty = mine || m.to_act[0];
  // A match against the computer has no deadline (issue #32).
  const due = clock && duty && duty.deadline_at;
  return el("span", {}, t(doing(m, mine, duty)),
    due ? el("span", { class: "deadline", "data-deadline": duty.deadline_at }, " · " + countdown(duty.deadline_at))
      : duty && !duty.deadline_at ? el("span", { class: "muted" }, " · " + t("no_time_limit")) : null);
}

/// What the match waits for, in words (issue #49 item 2): my answer to a
/// draw offer or a takeback request rather than "your turn" while the
/// board says the opponent moves next, my own offer waiting for theirs,
/// the computer thinking, the one opponent, or the others of a table.
function doing(m, mine, duty) {
  const asker = m.takeback_asked_by;
  const asked = asker !== undefined && asker !== null;
  if (asked && m.my_seats.length && !m.my_seats.includes(asker)) return "answer_takeback";
  // An answer owed comes before the move owed with it.
  const owed = (kind) => m.to_act.some((d) => d.kind === kind && m.my_seats.includes(d.seat));
  if (owed("draw_reply")) return "answer_draw";
  if (owed("flip_decision")) return "answer_flip";
  const offerWaits = m.my_seats.length && m.to_act.some((d) => d.kind === "draw_reply");
  // My move, and my draw offer still unanswered: both said (issue #68).
  if (mine) return offerWaits ? "your_turn_offer_waits" : "your_turn";
  if (offerWaits) return "draw_offer_waits";
  if (asked && m.my_seats.includes(asker)) return "takeback_waits";
  const holder = duty && m.seats[duty.seat];
  return holder && holder.user && holder.user.computer ? "computer_thinking"
    : m.seats.length === 2 ? "their_turn_one" : "their_turn";
}

/// Challenges to me first (issue #33): who asks, the game, the time per
/// turn, and the answer in one tap. A challenged player holds no seat
/// yet: that is how the list tells a challenge from my own waiting match.
function challengesCard(items) {
  const asked = items.filter((m) => m.status === "waiting" && !m.my_seats.length);
  if (!asked.length) return null;
  const answer = (m, what) => async () => {
    await api("POST", "/v1/matches/" + m.id + "/" + what);
    if (what === "accept") return go("/matches/" + m.id);
    await matchesPage();
  };
  return el("div", { class: "card challenges" }, el("h2", {}, t("challenges")), el("ul", { class: "games" },
    asked.map((m) => el("li", { "data-challenge": m.id },
      el("strong", {}, m.seats.filter((s) => s.user).map(displayName).join(", ")), " · ", gameName(m), " · ",
      m.turn_hours + " " + t("hours_per_turn"), el("br"),
      el("button", { type: "button", "data-action": "accept_challenge", on: { click: () => answer(m, "accept")().catch(fail) } }, t("accept")),
      el("button", { type: "button", class: "secondary", "data-action": "decline_challenge", on: { click: () => answer(m, "decline")().catch(fail) } }, t("decline"))))));
}

let listWatch = null;

/// My matches. While the list is open it is read again every 10 s and
/// redrawn when it changed: a challenge, a move or a new match appears
/// without a reload (issue #33).
export async function matchesPage(redraw = () => {}) {
  const items = (await api("GET", "/v1/matches")).data.items;
  const seen = JSON.stringify(items);
  clearInterval(listWatch);
  listWatch = setInterval(async () => {
    if (location.pathname !== "/") return clearInterval(listWatch);
    // A guest typing a username into the card keeps what was typed.
    if (document.hidden || keepingAccount()) return;
    try {
      const now = (await api("GET", "/v1/matches")).data.items;
      if (JSON.stringify(now) !== seen && location.pathname === "/") await matchesPage(redraw);
    } catch (_) { /* offline or slow: the next tick tries again */ }
  }, 10000);
  // An empty home points at where a newcomer starts: first steps and
  // today's puzzles, as buttons a thumb can hit.
  if (!items.length) {
    return show(el("p", { class: "muted" }, t("none")),
      el("p", { class: "actions" }, el("a", { href: "/how-to", "data-link": true, class: "button", "data-start-here": true }, t("start_here"))),
      el("p", { class: "actions" }, link("/new", t("new_match")), " · ", link("/computer", t("play_computer"))), dailyCard());
  }
  const mine = items.filter((m) => !(m.status === "waiting" && !m.my_seats.length));
  // A guest whose match has ended is offered to keep the account (issue
  // #47): the moment they know they want to come back.
  const ended = mine.some((m) => m.status === "finished" && m.my_seats.length);
  const guest = session.user() && session.user().guest;
  const providers = ended && guest ? await signInProviders() : [];
  // Tournament invitations wait for an answer too (issue #49 item 7).
  const tournaments = guest ? [] : await api("GET", "/v1/tournaments").then((r) => r.data, () => []);
  const invited = tournaments.filter((x) => x.status === "open" && x.my_state === "invited");
  // A tournament's game names its tournament (issue #68).
  const tournamentNames = new Map(tournaments.map((x) => [x.id, x.name]));
  // Matches with people first, then those against the computer, which
  // wait on nobody (issue #49 item 7).
  // A table of friends with a computer or two is a match with people.
  const people = (m) => m.seats.some((s) => s.user && !s.user.computer && !m.my_seats.includes(s.seat));
  const withPeople = mine.filter((m) => people(m) || !againstComputer(m));
  const withComputer = mine.filter((m) => !withPeople.includes(m));
  show(ended ? keepAccountCard(redraw, providers) : null, challengesCard(items), invitationsCard(invited),
    el("h2", {}, t("matches_people")), withPeople.length ? matchList(withPeople, tournamentNames) : el("p", { class: "muted" }, t("none_people")),
    withComputer.length ? el("h2", {}, t("matches_computer")) : null, withComputer.length ? matchList(withComputer, tournamentNames) : null, dailyCard());
}

function matchList(list, tournamentNames = new Map()) {
  return el("ul", { class: "matches" }, list.map((m) => {
    // One name per player, with how many seats they hold (three seats of
    // one computer level read "computer · hard ×3").
    const names = m.seats.filter((s) => !m.my_seats.includes(s.seat)).map(displayName);
    const others = [...new Set(names)].map((n) => {
      const seats = names.filter((x) => x === n).length;
      return seats > 1 ? n + " ×" + seats : n;
    }).join(", ");
    // Messages at the table not read yet (issue #50).
    const talk = m.unread_messages ? el("span", { class: "muted", "data-unread-messages": m.unread_messages }, " · " + say("new_messages", { n: m.unread_messages })) : null;
    const tournament = m.tournament && tournamentNames.get(m.tournament);
    return el("li", {}, el("a", { href: "/matches/" + m.id, "data-link": true },
      el("strong", {}, gameName(m)), " — ", others || "…",
      tournament ? el("span", { class: "muted", "data-tournament-name": true }, " · " + say("in_tournament", { name: tournament })) : null,
      el("br"), statusLine(m), talk));
  }));
}

/// Tournaments I am invited to and have not answered: each a link to its
/// page, where I join or decline.
function invitationsCard(invited) {
  if (!invited.length) return null;
  return el("div", { class: "card", "data-tournament-invitations": "" }, el("h2", {}, t("tournament_invitations")),
    el("ul", { class: "matches" }, invited.map((x) => el("li", {}, el("a", { href: "/tournaments/" + x.id, "data-link": true, "data-tournament": x.id },
      el("strong", {}, x.name), " — ", gameName(x))))));
}

export async function newMatchPage() {
  const [games, bots] = await Promise.all([api("GET", "/v1/games"), api("GET", "/v1/bots")]).then((r) => r.map((x) => x.data));
  // At a table of more than two (four-player chess), computers may take
  // seats beside friends (issue #32): how many, and at what level.
  // A table with a computer is never rated: the box says so.
  const rated = el("input", { name: "rated", type: "checkbox" });
  const computers = el("select", { name: "computers", on: { change: () => {
    rated.disabled = computers.value !== "0";
    if (rated.disabled) rated.checked = false;
  } } });
  const level = el("select", { name: "computer_level" });
  // How many sit at a table that seats more than two (four-player chess:
  // four by default, so three friends are invited by three links); the
  // computers take seats of those, never all but mine.
  const seats = el("select", { name: "players", on: { change: () => fillComputers(Number(seats.value)) } });
  const tableSize = el("label", {}, t("table_size"), seats);
  const fillComputers = (players) => {
    const most = Math.max(players - 2, 0);
    computers.replaceChildren(...Array.from({ length: most + 1 }, (_, n) => el("option", { value: String(n) }, String(n))));
    seatsForComputers.hidden = most === 0;
    rated.disabled = false;
    rated.checked = false;
  };
  const seatsForComputers = el("div", { class: "computers" },
    el("label", {}, t("computer_players"), computers), el("label", {}, t("level"), level));
  const picker = gameChoice(games, { changed: (game) => {
    const sizes = Array.from({ length: game.seats.max - game.seats.min + 1 }, (_, i) => game.seats.min + i);
    seats.replaceChildren(...sizes.map((n) => el("option", { value: String(n), selected: n === game.seats.max ? true : null }, String(n))));
    tableSize.hidden = sizes.length < 2;
    fillComputers(game.seats.max);
    const offered = (bots.find((b) => b.game === game.id) || { bots: [] }).bots;
    level.replaceChildren(...offered.map((b) => el("option", { value: b.level, selected: b.level === "normal" ? true : null },
      (language() === "ko" ? b.name_ko : b.name_en) + " (" + b.rating + ")")));
  } });
  show(form({}, async (data) => {
    const game = picker.chosen();
    const body = { ...picker.body(data), turn_hours: Number(data.get("turn_hours")) || 48, rated: data.get("rated") === "on" };
    const opponent = (data.get("opponent") || "").trim();
    const n = Number(data.get("computers")) || 0;
    const players = Number(data.get("players")) || game.seats.min;
    if (n) {
      // Never rated; the friends' seats are named or invited.
      body.computers = Array.from({ length: n }, () => ({ level: data.get("computer_level") }));
      delete body.rated;
    }
    if (opponent) body.opponents = opponent.split(/[ ,]+/);
    else body.open_seats = players - 1 - n;
    const m = (await api("POST", "/v1/matches", body)).data;
    const invites = m.invites && m.invites.length ? m.invites : m.invite ? [m.invite] : [];
    if (!invites.length) return go("/matches/" + m.id);
    const joined = el("p", { class: "muted", role: "status", "data-joined": "" });
    show(el("div", { class: "card" }, el("p", {}, t("share")),
      invites.map((i) => shareLink(location.origin + "/invite/" + i.code, gameName(m))),
      joined, link("/matches/" + m.id, gameName(m))));
    // Waiting here for the friend (issue #49 item 8): each who joins is
    // named at once, and the board opens when every seat is taken.
    let seen = m.seq;
    listen(m.id, async (event, data) => {
      if (event === "seq" && !(data.seq > seen)) return;
      try {
        const now = (await api("GET", "/v1/matches/" + m.id)).data;
        // Left meanwhile: the page is another's now.
        if (!joined.isConnected) return;
        seen = now.seq;
        if (now.status !== "waiting") return go("/matches/" + m.id);
        const names = now.seats.filter((s) => s.user && !m.my_seats.includes(s.seat)).map(displayName);
        joined.textContent = names.length ? t("joined") + ": " + names.join(", ") : "";
      } catch (_) { /* the next change, or the link, opens the board */ }
    });
  },
  el("h2", {}, t("new_match")),
  picker.game,
  el("p", {}, link("/how-to", t("how_to_play"))),
  picker.variant,
  picker.setups,
  el("label", {}, t("opponent"), el("input", { name: "opponent", autocomplete: "off", value: new URLSearchParams(location.search).get("opponent") || "" })),
  tableSize,
  seatsForComputers,
  el("label", {}, t("turn_hours"), el("input", { name: "turn_hours", type: "number", min: "1", max: "336", value: "48" })),
  el("label", { class: "check" }, rated, t("rated")),
  el("button", { type: "submit" }, t("create"))));
}

/// What a player agrees to before taking a seat (issue #30): rated or
/// not, and a custom start position shown in full.
export function startTerms(m) {
  const position = m.options && m.options.position;
  return el("div", { class: "start-terms" },
    el("p", { class: "muted" }, t(m.rated ? "rated_match" : "unrated_match")),
    position ? el("p", {}, t("custom_start") + ": ", el("code", { class: "position" }, String(position))) : null);
}

export async function invitePage(code, redraw) {
  const invite = (await api("GET", "/v1/invites/" + encodeURIComponent(code))).data;
  const title = el("div", {}, el("h2", {}, playerName(invite.inviter) + " " + t("invite_title") + ": " + gameName(invite)),
    startTerms(invite));
  if (!invite.open) return show(el("div", { class: "card" }, title, el("p", {}, t("invite_gone"))));
  const accept = async () => {
    const m = (await api("POST", "/v1/invites/" + encodeURIComponent(code) + "/accept")).data;
    go("/matches/" + m.id);
  };
  if (session.access) {
    return show(form({}, accept, title, el("button", { type: "submit" }, t("join"))));
  }
  show(form({}, async (data) => {
    session.save((await api("POST", "/v1/guests", { nickname: data.get("nickname"), time_zone: browserZone() })).data);
    redraw();
    await accept();
  }, title, el("label", {}, t("nickname"), el("input", { name: "nickname", required: true, autocomplete: "nickname" })),
  el("button", { type: "submit" }, t("join_as_guest")),
  // Signing in or up comes back here and joins (issue #47).
  el("p", {}, link("/signin?invite=" + encodeURIComponent(code), t("invite_sign_in")))));
}

// ---- settings: account, notifications, push on this device ----
function urlBase64ToBytes(text) {
  const padded = (text + "===".slice((text.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
}

/// Why push could not be switched on, in the page's language: the
/// browser's own message is English whatever the page's (a refusal of
/// the permission says where to allow it).
function pushRefused(error) {
  return error && error.name === "NotAllowedError" ? t("push_not_allowed") : t("push_failed");
}

async function subscribePush() {
  const registration = await navigator.serviceWorker.ready;
  const key = (await api("GET", "/v1/push/vapid-public-key")).data.key;
  const subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: urlBase64ToBytes(key) });
  const json = subscription.toJSON();
  session.pushId = (await api("POST", "/v1/push-subscriptions", { endpoint: json.endpoint, keys: json.keys })).data.id;
}

export async function settingsPage(redraw) {
  const [me, settings, talk] = await Promise.all([api("GET", "/v1/me"), api("GET", "/v1/me/notification-settings"), api("GET", "/v1/me/talk-settings")]).then((r) => r.map((x) => x.data));
  // The morning puzzle's one switch is its opt-in below the table, not a
  // row of it too.
  const kinds = Object.keys(settings.email || {}).filter((k) => k !== "daily_puzzle");
  // One row per kind, with a switch for mail and one for push, each a
  // 44-px target (issue #49 item 10).
  const kindName = (k) => (t("kind_" + k) === "kind_" + k ? k.replace(/_/g, " ") : t("kind_" + k));
  const toggle = (channel, k) => el("input", { type: "checkbox", role: "switch", class: "switch", name: channel + "." + k, checked: settings[channel][k],
    "aria-label": kindName(k) + " · " + (channel === "email" ? t("email_mail") : t("push_me")) });
  const switches = el("table", { class: "switches" },
    el("thead", {}, el("tr", {}, el("th", { scope: "col" }, t("notifications")), el("th", { scope: "col" }, t("by_mail")), el("th", { scope: "col" }, t("by_push")))),
    el("tbody", {}, kinds.map((k) => el("tr", { "data-kind": k }, el("th", { scope: "row" }, kindName(k)),
      el("td", {}, toggle("email", k)), el("td", {}, toggle("push", k))))));
  const quiet = settings.quiet_hours || {};
  const saved = el("p", { class: "muted", role: "status" });
  // "Saved" is said beside the button that saved (issue #49 item 9).
  const savedHere = () => el("span", { class: "muted saved", role: "status" });
  const accountSaved = savedHere();
  const noticesSaved = savedHere();
  // A new address controls the password, so it is confirmed with the
  // password, or with a linked Google or Apple sign-in when the account
  // has none (issue #65); the field shows only once the address changes.
  const emailNow = me.email_pending || me.email || "";
  const typedEmail = (value) => String(value || "").trim();
  const ways = me.guest ? null : await api("GET", "/v1/me/identities").then((r) => r.data, () => null);
  const withPassword = !ways || ways.has_password;
  const linked = withPassword ? [] : (await signInProviders()).filter((p) => ways.identities.some((i) => i.provider === p.provider));
  const emailInput = el("input", { name: "email", type: "email", value: emailNow, autocomplete: "email" });
  const emailConfirm = el("div", { hidden: true, "data-email-confirm": true },
    withPassword ? el("label", {}, t("email_password"), el("input", { name: "email_password", type: "password", autocomplete: "current-password" })) : null,
    providerButtons(linked, "email_confirm_with", "email", { extra: () => ({ email: typedEmail(emailInput.value) }) }));
  emailInput.addEventListener("input", () => {
    const changed = typedEmail(emailInput.value) !== emailNow;
    emailConfirm.hidden = !changed;
    const password = emailConfirm.querySelector("input");
    if (password) password.required = changed;
  });
  const account = form({}, async (data) => {
    const changes = { locale: data.get("language"), time_zone: data.get("time_zone"), takebacks: data.get("takebacks") };
    const email = typedEmail(data.get("email"));
    const shownAs = String(data.get("display_name") || "").trim();
    if (!me.guest && shownAs && shownAs !== me.display_name) changes.display_name = shownAs;
    if (!me.guest && email !== emailNow) {
      changes.email = email || null;
      if (withPassword) changes.password = data.get("email_password");
    }
    await api("PUT", "/v1/me/talk-settings", { who: data.get("talk") });
    let updated;
    try {
      updated = (await api("PATCH", "/v1/me", changes)).data;
    } catch (error) {
      throw error.status === 403 && changes.password !== undefined ? new Error(t("wrong_password")) : error;
    }
    session.remember(updated);
    setLanguage(updated.locale);
    redraw();
    // A new address waits for its link: the page says so at once.
    if (changes.email !== undefined) return settingsPage(redraw);
    accountSaved.textContent = t("saved");
  }, el("h2", {}, t("account")),
  me.guest ? null : el("label", {}, t("display_name"), el("input", { name: "display_name", value: me.display_name, maxlength: 24, autocomplete: "nickname" })),
  me.guest ? null : el("label", {}, t("email"), emailInput),
  me.guest ? null : emailConfirm,
  me.email_pending ? el("p", { class: "muted", "data-email-pending": true }, t("email_pending")) : null,
  el("label", {}, t("language"), el("select", { name: "language" },
    el("option", { value: "en", selected: language() === "en" }, "English"),
    el("option", { value: "ko", selected: language() === "ko" }, "한국어"))),
  el("label", {}, t("time_zone"), zoneChoice(me.time_zone)),
  // Whether opponents may ask me to take a move back (issue #34).
  el("label", {}, t("takebacks"), el("select", { name: "takebacks" },
    ["never", "unrated", "always"].map((v) => el("option", { value: v, selected: v === me.takebacks }, t("takebacks_" + v))))),
  // Whose messages I read at my tables (issue #50).
  el("label", {}, t("talk_who"), el("select", { name: "talk" },
    ["everyone", "friends", "nobody"].map((v) => el("option", { value: v, selected: v === talk.who }, t("talk_" + v))))),
  el("button", { type: "submit" }, t("save")), accountSaved);
  const notices = form({}, async (data) => {
    for (const channel of ["email", "push"]) for (const k of kinds) settings[channel][k] = data.get(channel + "." + k) === "on";
    settings.digest = data.get("digest") === "on";
    settings.daily_puzzle = data.get("daily_puzzle") === "on";
    const start = data.get("quiet_start"), end = data.get("quiet_end");
    if (start && end) settings.quiet_hours = { start, end };
    else delete settings.quiet_hours;
    await api("PUT", "/v1/me/notification-settings", settings);
    noticesSaved.textContent = t("saved");
  }, el("h2", {}, t("notifications")), switches,
  el("label", { class: "check" }, el("input", { type: "checkbox", name: "digest", checked: settings.digest }), t("digest")),
  // The daily puzzle's morning notice (issue #52): asked for, never assumed.
  el("label", { class: "check" }, el("input", { type: "checkbox", name: "daily_puzzle", checked: settings.daily_puzzle }), t("daily_puzzle_notice")),
  el("fieldset", {}, el("legend", {}, t("quiet_hours")),
    el("label", {}, t("from"), el("input", { type: "time", name: "quiet_start", value: quiet.start || "" })),
    el("label", {}, t("to"), el("input", { type: "time", name: "quiet_end", value: quiet.end || "" }))),
  el("button", { type: "submit" }, t("save")), noticesSaved);
  const push = "PushManager" in window
    ? el("button", { type: "button", class: "secondary", on: { click: () => subscribePush().then(() => { saved.textContent = t("saved"); }, (e) => { saved.textContent = pushRefused(e); }) } }, t("push_on"))
    : null;
  const [away, more, providers, looks] = await Promise.all([me.guest ? null : vacationCard(saved), accountCards(me, redraw), signInProviders(),
    looksCard(() => settingsPage(redraw))]);
  // A guest saves the account here too (issue #47); then the password
  // and sessions card is theirs. Devices, sign-in methods, my data and
  // deleting the account follow (account.js).
  show(el("h2", {}, t("settings")), me.moderator ? el("p", {}, link("/moderation", t("moderation"))) : null, saved, keepAccountCard(redraw, providers), account, looks, notices, push, away, me.guest ? null : sessionsCard(saved), ...more);
}

/// The time zone, chosen by country and city in the page's language
/// (issue #49 item 10): "대한민국 · Seoul · 한국 표준시 (UTC+09:00)", this
/// phone's own zone first, then the rest by country name as the page's
/// language sorts them. Browsers name countries and zones in Korean but not
/// cities, so the city stays as the zone's id writes it; which country a
/// zone is in comes from tzdata (zones.js).
function zoneChoice(current) {
  const all = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
  const zones = [...new Set([current, browserZone(), ...all].filter(Boolean))];
  const locale = language() === "ko" ? "ko-KR" : "en-GB";
  const now = new Date();
  const part = (zone, style) => {
    try {
      return new Intl.DateTimeFormat(locale, { timeZone: zone, timeZoneName: style }).formatToParts(now).find((p) => p.type === "timeZoneName").value;
    } catch (_) { return ""; }
  };
  const offset = (zone) => {
    const said = part(zone, "longOffset").replace("GMT", "UTC");
    return said === "UTC" ? "UTC+00:00" : said;
  };
  const regions = new Intl.DisplayNames([locale], { type: "region" });
  const country = (zone) => { const code = countryOf(zone); return code ? regions.of(code) : ""; };
  const city = (zone) => cityOf(zone, language());
  // Where the browser has no name for a zone it says "GMT+9": the city
  // and offset say it then.
  const name = (zone) => {
    const said = part(zone, "longGeneric");
    return [country(zone), city(zone), said && !/^GMT/.test(said) ? said : ""].filter(Boolean).join(" · ") + " (" + offset(zone) + ")";
  };
  const order = new Intl.Collator(locale);
  const here = browserZone();
  // Zones of no country (UTC, Etc/GMT+5) after the countries.
  const rest = zones.filter((z) => z !== here)
    .map((z) => ({ zone: z, country: country(z), label: name(z) }))
    .sort((a, b) => (!a.country - !b.country) || order.compare(a.label, b.label));
  const option = (z, label) => el("option", { value: z, selected: z === current }, label);
  return el("select", { name: "time_zone" },
    el("optgroup", { label: t("this_device_zone") }, option(here, name(here))),
    el("optgroup", { label: t("other_zones") }, rest.map((z) => option(z.zone, z.label))));
}

/// The password and the account's sessions (issue #30): a new password
/// ends every other session; "sign out everywhere" ends this one too.
function sessionsCard(saved) {
  const password = form({}, async (data) => {
    await api("POST", "/v1/me/password", { current_password: data.get("current_password"), new_password: data.get("new_password") });
    saved.textContent = t("password_changed");
  }, el("h2", {}, t("password_and_sessions")),
  el("label", {}, t("current_password"), el("input", { name: "current_password", type: "password", required: true, autocomplete: "current-password" })),
  el("label", {}, t("new_password"), el("input", { name: "new_password", type: "password", required: true, minlength: 8, autocomplete: "new-password" })),
  el("button", { type: "submit" }, t("change_password")));
  const everywhere = el("button", { type: "button", class: "danger", on: { click: async () => {
    if (!window.confirm(t("sure_sign_out_everywhere"))) return;
    try { await api("DELETE", "/v1/sessions"); } catch (_) { /* ended here whatever the server said */ }
    session.clear();
    go("/signin");
  } } }, t("sign_out_everywhere"));
  return el("div", {}, password, everywhere);
}

/// The page a verification link opens: the token rides in the fragment,
/// which no server log or Referer header sees.
export async function verifyEmailPage() {
  const token = location.hash.replace(/^#/, "");
  try {
    const verified = (await api("POST", "/v1/email-verifications", { token })).data;
    show(el("div", { class: "card", role: "status" }, el("h2", {}, t("email_verified")), el("p", {}, verified.email), link("/", t("matches"))));
  } catch (error) {
    show(el("div", { class: "card", role: "alert" }, el("h2", {}, t("email_not_verified")), el("p", {}, error.message || ""), link("/settings", t("settings"))));
  }
}

/// The link mailed to an address that left an account (issue #65): it
/// puts the address back and signs every device out, this one too.
export async function undoEmailPage(redraw) {
  const token = location.hash.replace(/^#/, "");
  history.replaceState(null, "", "/undo-email");
  try {
    const restored = (await api("POST", "/v1/email-undos", { token })).data;
    session.clear();
    redraw();
    show(el("div", { class: "card", role: "status", "data-email-restored": true }, el("h2", {}, t("email_restored")),
      el("p", {}, restored.email), el("p", {}, t("email_restored_text")),
      el("p", {}, link("/signin", t("sign_in")), " · ", link("/forgot-password", t("forgot_password")))));
  } catch (error) {
    show(el("div", { class: "card", role: "alert" }, el("h2", {}, t("email_not_restored")), el("p", {}, error.message || "")));
  }
}

/// Back from the provider with the identity that confirms a new address.
export async function emailReturned(proof, flow) {
  try {
    await api("PATCH", "/v1/me", { email: flow.email || null, identity: proof });
  } catch (error) {
    return identityFailed(flow, "identity_failed", error);
  }
  go("/settings");
}

/// Ask for a link that sets a forgotten password (issue #47). The service
/// answers alike whether or not the address is an account's, and so
/// does the page: it never says which.
export function forgotPasswordPage() {
  const sent = el("p", { role: "status", "data-reset-sent": true, hidden: true });
  const ask = form({}, async (data) => {
    await api("POST", "/v1/password-resets", { email: String(data.get("email")).trim() });
    sent.textContent = t("reset_link_sent");
    sent.hidden = false;
  }, el("h2", {}, t("forgot_password_title")),
  el("p", {}, t("forgot_password_help")),
  el("label", {}, t("reset_email"), el("input", { name: "email", type: "email", required: true, autocomplete: "email" })),
  el("button", { type: "submit" }, t("send_reset_link")), sent);
  show(ask, el("p", {}, link("/signin", t("sign_in"))));
}

/// The page a reset link opens: the token rides in the fragment, which no
/// server log or Referer header sees. A new password signs this browser
/// in (the service answers a session) and every other device out.
export function resetPasswordPage(redraw) {
  const token = location.hash.replace(/^#/, "");
  const again = el("p", {}, link("/forgot-password", t("ask_new_link")));
  if (!token) return show(el("div", { class: "card", role: "alert" }, el("h2", {}, t("reset_title")), el("p", {}, t("reset_link_missing"))), again);
  const set = form({}, async (data) => {
    const reply = await api("POST", "/v1/password-resets/complete", { token, password: data.get("password") });
    session.save(reply.data);
    redraw();
    show(el("div", { class: "card", role: "status", "data-reset-done": true }, el("h2", {}, t("password_reset_done")), link("/", t("matches"))));
  }, el("h2", {}, t("reset_title")),
  el("label", {}, t("new_password"), el("input", { name: "password", type: "password", required: true, minlength: 8, autocomplete: "new-password" })),
  el("button", { type: "submit" }, t("set_password")));
  show(set, again);
}

export async function signOut() {
  try {
    if (session.pushId) await api("DELETE", "/v1/push-subscriptions/" + session.pushId);
    const registration = await navigator.serviceWorker?.getRegistration();
    const subscription = await registration?.pushManager?.getSubscription();
    await subscription?.unsubscribe();
    await api("DELETE", "/v1/sessions/current");
  } catch (_) { /* signed out locally whatever the server said */ }
  session.clear();
  // A visitor's first steps left on this device are nobody's now.
  forgetVisitorSteps();
  go("/signin");
}
