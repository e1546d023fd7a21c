// Leaderboards, profiles and friends (issues #19 and #20).
import { api, el, form, gameName, go, link, local, playerName, session, show, t } from "./core.js";
import { ledgerCard } from "./coins.js";

/// Every perf a board exists for, as the service names them: a game, or a
/// game with its variant or mode.
async function perfs() {
  const games = (await api("GET", "/v1/games")).data;
  return games.flatMap((g) => {
    const choices = (g.variants || []).concat(g.modes || []);
    return choices.length ? choices.map((c) => g.id + "/" + c) : [g.id];
  });
}

/// `checkers/russian` → "Checkers (Russian)", in the page's language.
const perfName = (perf) => {
  const [game, choice] = perf.split("/");
  const modes = ["teams", "ffa", "points"];
  return gameName({ game, variant: modes.includes(choice) ? null : choice, mode: modes.includes(choice) ? choice : null });
};

export async function leaderboardPage(perf, query) {
  const all = await perfs();
  perf = all.includes(perf) ? perf : all[0];
  const params = new URLSearchParams(query);
  const view = params.get("around") === "me" ? "around" : params.get("scope") === "friends" ? "friends" : "top";
  const path = "/v1/leaderboards/" + perf + (view === "around" ? "?around=me" : view === "friends" ? "?scope=friends" : "");
  const me = session.user();
  // Around me needs a rating of mine in this perf: asked first, so that no
  // request ends in a 404.
  const rated = view !== "around" || (me && (await api("GET", "/v1/users/" + encodeURIComponent(me.username))).data
    .perfs.some((p) => p.perf === perf));
  const board = rated ? (await api("GET", path)).data : { rows: [], next_cursor: null };
  const rows = el("tbody", {});
  const add = (list) => rows.append(...list.map((r) => el("tr", { class: me && r.username === me.username ? "me" : null },
    el("td", {}, r.rank === null || r.rank === undefined ? "–" : String(r.rank)),
    el("td", {}, link("/users/" + encodeURIComponent(r.username), (r.title ? r.title + " " : "") + r.display_name)),
    el("td", {}, String(r.rating) + (r.provisional ? "?" : "")),
    el("td", {}, String(r.games)))));
  add(board.rows);
  let cursor = board.next_cursor;
  const more = el("button", { type: "button", class: "secondary", hidden: !cursor, on: { click: async () => {
    const next = (await api("GET", "/v1/leaderboards/" + perf + "?cursor=" + encodeURIComponent(cursor))).data;
    add(next.rows);
    cursor = next.next_cursor;
    more.hidden = !cursor;
  } } }, t("next"));
  const tabs = [["top", ""], ["around", "?around=me"], ["friends", "?scope=friends"]].map(([name, q]) =>
    el("a", { href: "/leaderboards/" + perf + q, "data-link": true, class: "tab" + (name === view ? " on" : ""), "aria-current": name === view ? "page" : null },
      t(name === "top" ? "top" : name === "around" ? "around_me" : "friends_only")));
  const select = el("select", { "aria-label": t("game"), on: { change: (e) => go("/leaderboards/" + e.target.value) } },
    all.map((p) => el("option", { value: p, selected: p === perf }, perfName(p))));
  show(el("h2", {}, t("leaderboards")), select, el("nav", { class: "tabs" }, tabs),
    board.rows.length
      ? el("table", { class: "board-table" }, el("thead", {}, el("tr", {}, [t("rank"), t("player"), t("rating"), t("games_played")].map((h) => el("th", { scope: "col" }, h)))), rows)
      : el("p", { class: "muted" }, t("no_one")),
    more);
}

export async function profilePage(username) {
  const name = encodeURIComponent(username);
  const profile = (await api("GET", "/v1/users/" + name)).data;
  const me = session.user();
  const mine = me && me.username.toLowerCase() === profile.username.toLowerCase();
  const h2h = mine ? null : (await api("GET", "/v1/users/" + name + "/head-to-head")).data;
  // My coins on my own profile (issue #70): the balance and the ledger.
  const coins = mine && !me.guest ? await ledgerCard() : null;
  const record = (p) => p.wins + " " + t("wins") + " · " + p.draws + " " + t("draws") + " · " + p.losses + " " + t("losses");
  show(el("div", { class: "card" },
    el("h2", {}, playerName(profile), " ", el("span", { class: "muted" }, "@" + profile.username)),
    profile.member_since ? el("p", { class: "muted" }, local(profile.member_since)) : null,
    el("ul", { class: "perfs" }, (profile.perfs || []).map((p) => el("li", {},
      el("strong", {}, perfName(p.perf)), " ", (p.title ? p.title + " " : ""),
      String(p.rating) + (p.provisional ? " (" + t("provisional") + ")" : ""), " — ", record(p))))),
  h2h ? el("div", { class: "card" }, el("h3", {}, t("head_to_head")),
    h2h.perfs.length ? el("ul", {}, h2h.perfs.map((p) => el("li", {}, el("strong", {}, perfName(p.perf)), " ", record(p),
      el("ul", {}, p.last.map((g) => el("li", {}, link("/matches/" + g.match_id, t("result_" + g.for_me) + (g.reason ? " (" + t("reason_" + g.reason) + ")" : "") + " · " + local(g.finished_at)))))))) : el("p", { class: "muted" }, "–")) : null,
  coins,
  mine ? null : el("a", { href: "/new?opponent=" + name, "data-link": true, class: "button" }, t("challenge")));
}

export async function friendsPage() {
  const friends = (await api("GET", "/v1/friends")).data;
  const reload = () => friendsPage();
  const act = (method, path) => async () => { await api(method, path); await reload(); };
  const who = (p) => link("/users/" + encodeURIComponent(p.username), p.display_name);
  show(el("h2", {}, t("friends")),
    form({}, async (data) => {
      await api("POST", "/v1/friends/requests", { username: String(data.get("username")).trim() });
      await reload();
    }, el("label", {}, t("add_friend"), el("input", { name: "username", required: true, autocomplete: "off" })),
    el("button", { type: "submit" }, t("send"))),
    friends.incoming.length ? el("div", { class: "card" }, el("h3", {}, t("requests")), el("ul", { class: "people" },
      friends.incoming.map((r) => el("li", {}, who(r.user), " ",
        el("button", { type: "button", on: { click: act("POST", "/v1/friends/requests/" + encodeURIComponent(r.user.username) + "/accept") } }, t("accept")),
        el("button", { type: "button", class: "secondary", on: { click: act("POST", "/v1/friends/requests/" + encodeURIComponent(r.user.username) + "/decline") } }, t("decline")))))) : null,
    friends.friends.length ? el("ul", { class: "people card" }, friends.friends.map((f) => el("li", {}, who(f.user),
      f.awaiting_me.length ? el("span", {}, " · " + t("awaiting") + " ", f.awaiting_me.map((id, i) => link("/matches/" + id, "#" + (i + 1)))) : null,
      " ", link("/new?opponent=" + encodeURIComponent(f.user.username), t("challenge")),
      el("button", { type: "button", class: "secondary", on: { click: act("DELETE", "/v1/friends/" + encodeURIComponent(f.user.username)) } }, t("remove"))))) : el("p", { class: "muted" }, t("no_one")),
    friends.outgoing.length ? el("p", { class: "muted" }, "→ " + friends.outgoing.map((r) => r.user.display_name).join(", ")) : null);
}
