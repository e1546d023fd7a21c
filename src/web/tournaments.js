// Tournaments (issue #35): my tournaments and a new one; a tournament's
// page with its players, join/decline/withdraw/start, the invitation link,
// and the standings with the crosstable (round robin) or the bracket
// (knockout), each match a link. Built to read on a phone: the tables
// scroll sideways inside their card, not the page.
import { roomPanel } from "./talk.js";
import { api, askedFirst, el, form, gameChoice, gameName, go, link, local, named, playerLink, playerName, say, session, shareLink, show, t } from "./core.js";

const FORMATS = ["round_robin", "double_round_robin", "knockout"];

export async function tournamentsPage() {
  const mine = (await api("GET", "/v1/tournaments")).data;
  const list = mine.length
    ? el("ul", { class: "matches tournaments" }, mine.map((x) => el("li", {},
        link("/tournaments/" + x.id, el("strong", {}, x.name)), " — ", t("t_" + x.format), " · ",
        gameName(x), el("br"), el("span", { class: "muted" }, t("t_" + x.status) + " · " + t("t_" + x.my_state)))))
    : el("p", { class: "muted" }, t("t_none"));
  show(el("h2", {}, t("tournaments")), list, await newTournamentForm());
}

async function newTournamentForm() {
  const games = (await api("GET", "/v1/games")).data.filter((g) => g.seats.max === 2);
  const picker = gameChoice(games);
  return form({ "data-form": "new-tournament" }, async (data) => {
    const body = {
      ...picker.body(data),
      name: data.get("name"),
      format: data.get("format"),
      turn_hours: Number(data.get("turn_hours")) || 48,
      rated: data.get("rated") === "on",
      seeding: data.get("seeding"),
    };
    const players = (data.get("players") || "").split(/[ ,]+/).filter(Boolean);
    if (players.length) body.players = players;
    // A start time in this device's zone; it starts by itself then.
    if (data.get("starts_at")) body.starts_at = new Date(data.get("starts_at")).toISOString();
    const made = (await api("POST", "/v1/tournaments", body)).data;
    go("/tournaments/" + made.id);
  },
  el("h2", {}, t("new_tournament")),
  el("label", {}, t("t_name"), el("input", { name: "name", required: true, maxlength: 80 })),
  el("label", {}, t("t_format"), el("select", { name: "format" }, FORMATS.map((f) => el("option", { value: f }, t("t_" + f))))),
  picker.game, picker.variant, picker.setups,
  el("label", {}, t("t_players"), el("input", { name: "players", autocomplete: "off" })),
  el("label", {}, t("turn_hours"), el("input", { name: "turn_hours", type: "number", min: "1", max: "336", value: "48" })),
  el("label", {}, t("t_seeding"), el("select", { name: "seeding" },
    el("option", { value: "rating" }, t("t_by_rating")), el("option", { value: "random" }, t("t_at_random")))),
  el("label", {}, t("t_starts_at"), el("input", { name: "starts_at", type: "datetime-local" })),
  el("label", { class: "check" }, el("input", { name: "rated", type: "checkbox" }), t("rated")),
  el("button", { type: "submit" }, t("create")));
}

export async function tournamentPage(id) {
  const code = new URLSearchParams(location.search).get("code");
  const query = code ? "?code=" + encodeURIComponent(code) : "";
  const x = (await api("GET", "/v1/tournaments/" + id + query)).data;
  const me = session.user();
  const names = Object.fromEntries(x.players.map((p) => [p.player.id, playerName(p.player)]));
  const name = (id) => names[id] || "…";
  const step = (what, body) => async () => {
    await api("POST", "/v1/tournaments/" + x.id + "/" + what, body);
    go("/tournaments/" + x.id);
  };
  const button = (what, label, cls, body) => el("button", { type: "button", class: cls || "", "data-action": "tournament_" + what,
    on: { click: () => step(what, body)().catch((e) => { error.textContent = t("error") + ": " + e.message; }) } }, label);
  const error = el("p", { class: "error", role: "alert" });
  const open = x.status === "open";
  const mine = x.my_state;
  const actions = el("div", { class: "actions" },
    open && mine !== "joined" ? button("join", t("join"), "", code ? { code } : {}) : null,
    open && mine === "invited" ? button("decline", t("decline"), "secondary") : null,
    open && me && x.created_by === me.id ? button("start", t("t_start")) : null,
    open && mine === "joined" && me && x.created_by !== me.id ? asked(t("t_leave"), say("leave_cost", { name: x.name }), t("leave_yes")) : null);
  // Withdrawing from a started tournament scores every game left 0–1:
  // asked first with that cost, and apart from the other buttons
  // (issue #49 item 3).
  function asked(label, cost, yes) {
    return el("div", { class: "danger-zone" }, askedFirst(label, cost, yes,
      () => step("withdraw")().catch((e) => { error.textContent = t("error") + ": " + e.message; }), { "data-action": "tournament_withdraw" }));
  }
  const unfinished = x.matches.filter((m) => me && (m.first === me.id || m.second === me.id) && (m.first_scored === null || m.first_scored === undefined)).length;
  const withdraw = !open && x.status !== "finished" && mine === "joined"
    ? asked(t("t_withdraw"), say("withdraw_cost", { name: x.name, n: unfinished }), t("withdraw_yes")) : null;
  show(
    el("div", { class: "card tournament", "data-status": x.status },
      el("h2", {}, x.name),
      terms(x, open && mine === "invited"),
      el("p", { class: "status", role: "status" }, t("t_" + x.status),
        x.starts_at && open ? " · " + t("t_starts") + " " + local(x.starts_at) : "",
        x.champion ? " · 🏆 " + name(x.champion) : ""),
      actions, error,
      x.invite_url ? el("div", {}, el("p", {}, t("share")), shareLink(x.invite_url, x.name)) : null,
      open && me && x.created_by === me.id ? inviteForm(x) : null),
    playersCard(x),
    x.standings.length ? standingsCard(x, name) : null,
    x.standings.length || x.matches.length ? marksKey() : null,
    x.crosstable ? crosstableCard(x, name) : null,
    x.bracket ? bracketCard(x, name) : null,
    x.matches.length ? matchesCard(x, name) : null,
    mine === "joined" ? roomPanel(x) : null,
    withdraw);
}

/// What every match of the tournament will be (issue #46): the game and
/// its variant or mode, the format, the time per turn, rated or not, and
/// every other option (Janggi's setups, a custom start) — read by an
/// invitee before they join.
function terms(x, invited) {
  const options = x.options || {};
  const rows = [
    [t("game"), gameName(x)],
    [t("t_format"), t("t_" + x.format)],
    [t("turn_hours"), String(x.turn_hours)],
    [t("t_rating"), t(x.rated ? "rated_match" : "unrated_match")],
  ];
  const setups = options.setups || {};
  if (setups.cho) rows.push([t("setup_cho"), setups.cho]);
  if (setups.han) rows.push([t("setup_han"), setups.han]);
  if (options.position) rows.push([t("custom_start"), el("code", { class: "position" }, String(options.position))]);
  for (const [key, value] of Object.entries(options)) {
    if (key !== "setups" && key !== "position") rows.push([named("option_", key), JSON.stringify(value)]);
  }
  return el("div", { class: "terms", "data-terms": "" },
    invited ? el("p", { class: "muted" }, t("t_terms_first")) : null,
    el("dl", {}, ...rows.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)])));
}

function inviteForm(x) {
  return form({ class: "inline" }, async (data) => {
    const players = (data.get("invite") || "").split(/[ ,]+/).filter(Boolean);
    await api("POST", "/v1/tournaments/" + x.id + "/invite", { players });
    go("/tournaments/" + x.id);
  }, el("label", {}, t("t_invite"), el("input", { name: "invite", autocomplete: "off" })),
  el("button", { type: "submit", class: "secondary" }, t("t_invite_button")));
}

function playersCard(x) {
  return el("div", { class: "card" }, el("h3", {}, t("t_players_title")), el("ul", { class: "players" },
    x.players.map((p) => el("li", {}, p.seed ? "#" + p.seed + " " : "", playerLink(p.player),
      p.rating ? " (" + p.rating + ")" : "", " · ", el("span", { class: "muted" }, t("t_" + p.state))))));
}

const points = (n) => (Math.floor(n) || (n % 1 ? "" : "0")) + (n % 1 ? "½" : "");

function standingsCard(x, name) {
  const head = ["#", t("player"), t("t_points"), t("t_sb"), t("wins"), t("draws"), t("losses")];
  return el("div", { class: "card scroll" }, el("h3", {}, t("t_standings")),
    el("table", { class: "standings" },
      el("thead", {}, el("tr", {}, head.map((h) => el("th", { scope: "col" }, h)))),
      el("tbody", {}, x.standings.map((l) => el("tr", { "data-user": l.user },
        el("td", {}, String(l.place)), el("th", { scope: "row" }, name(l.user)), el("td", {}, points(l.points)),
        el("td", {}, String(l.sb)), el("td", {}, String(l.wins)), el("td", {}, String(l.draws)), el("td", {}, String(l.losses)))))));
}

function crosstableCard(x, name) {
  const order = x.crosstable.players;
  return el("div", { class: "card scroll" }, el("h3", {}, t("t_crosstable")),
    el("table", { class: "crosstable" },
      el("thead", {}, el("tr", {}, el("th", {}, ""), order.map((_, j) => el("th", { scope: "col" }, String(j + 1))))),
      el("tbody", {}, order.map((u, i) => el("tr", {}, el("th", { scope: "row" }, (i + 1) + ". " + name(u)),
        order.map((_, j) => el("td", { class: i === j ? "self" : "" }, i === j ? "—" : x.crosstable.cells[i][j].join(" "))))))));
}

function bracketCard(x, name) {
  const who = (u, winner) => el("span", { class: u && u === winner ? "winner" : "" }, u ? name(u) : "—");
  return el("div", { class: "card scroll" }, el("h3", {}, t("t_bracket")), el("div", { class: "bracket" },
    x.bracket.map((round, r) => el("section", { class: "round" }, el("h4", {}, t("round") + " " + (r + 1)),
      round.map((p) => el("p", { class: "pairing", "data-decided": p.decided_by || "" },
        who(p.high, p.winner), " – ", who(p.low, p.winner),
        p.decided_by && p.decided_by !== "played" ? el("span", { class: "muted" }, " · " + t("t_by_" + p.decided_by)) : null))))));
}

/// Every match with its score; my own are links (a match is seen by its
/// players only: others' boards stay private, as everywhere).
function matchesCard(x, name) {
  const me = session.user();
  const score = (m) => m.first_scored === null || m.first_scored === undefined ? "*" : points(m.first_scored) + "–" + points(1 - m.first_scored);
  const line = (m) => [t("round") + " " + m.round + (m.game_no ? " · " + t("t_replay") + " " + m.game_no : "") + ": ",
    name(m.first), " – ", name(m.second), " ", el("strong", {}, score(m))];
  const mine = (m) => me && (m.first === me.id || m.second === me.id);
  return el("div", { class: "card" }, el("h3", {}, t("t_matches")), el("ul", { class: "games" },
    x.matches.map((m) => el("li", { "data-mine": mine(m) ? "yes" : "no" }, mine(m) ? link("/matches/" + m.match_id, ...line(m)) : line(m)))));
}

/// What the tables' marks and words mean (issue #49 item 11).
function marksKey() {
  return el("details", { class: "card marks-key" }, el("summary", {}, t("t_marks_what")),
    el("ul", {}, ["t_mark_points", "t_mark_sb", "t_mark_half", "t_mark_open", "t_mark_replay"].map((k) => el("li", {}, t(k)))));
}
