// Issue #33, the web client as players judge it: axe-core (npm, pinned in
// tests/web/run) on every page, in English and Korean, at phone size
// (390×844), small phone size (360×740, issue #49) and desktop size
// (1280×900), live and finished boards; no serious or critical violation
// may remain. On the phone, the buttons and links a player taps are at
// least 44 px high (the board's squares aside: they are what fits). In
// Korean, no English word is left (`korean.cjs`'s reading of every text,
// label and placeholder): one crawl over every page checks the three
// (issue #68), the daily puzzles and a visitor's first steps included.
"use strict";
const fs = require("fs");
const L = require("./lib.cjs");

const { BASE, api, assert } = L;
const GAMES = ["checkers", "janggi", "banqi", "flipchess", "four_player_chess"];
const AXE = fs.readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
/// The Latin names this crawl's people and tournament carry.
const NAMES = ["ada", "bob", "cy", "di", "ed", "spring", "cup"];

/// The page drawn: the placeholder gone, the fonts in.
async function drawn(page, selector) {
  await page.waitForFunction(() => {
    const main = document.getElementById("main");
    return main && main.textContent.trim() !== "…";
  });
  if (selector) await page.waitForSelector(selector, { state: "attached" });
  await page.evaluate(() => document.fonts.ready);
}

/// Serious and critical violations on the page as shown, and taps too
/// small on a phone, each as a line naming the page.
async function check(page, name, found, phone) {
  await page.evaluate(AXE);
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }));
  for (const v of result.violations) {
    if (v.impact !== "serious" && v.impact !== "critical") continue;
    found.push(`${name}: ${v.id} (${v.impact}) at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  }
  if (!phone) return;
  const small = await page.$$eval("a, button, select, summary, input:not([type=checkbox]):not([type=radio])", (nodes) => nodes
    .filter((n) => !n.classList.contains("sq") && n.offsetParent !== null && !n.closest("p, li.inline, td, th"))
    .map((n) => ({ n, r: n.getBoundingClientRect() }))
    .filter(({ r }) => r.width > 0 && r.height < 44)
    .map(({ n, r }) => `${n.tagName.toLowerCase()}${n.className ? "." + String(n.className).split(" ").join(".") : ""} "${n.textContent.trim().slice(0, 20)}" ${Math.round(r.width)}×${Math.round(r.height)}`));
  for (const s of small) found.push(`${name}: tap target under 44 px: ${s}`);
  if (/\bko\b/.test(name)) {
    const words = await require("./korean.cjs").englishOn(page, NAMES);
    if (words.length) found.push(`${name}: English in Korean: ${words.join(", ")}`);
  }
}

/// A board's square on the phone (written down: a 9- or 14-file board's
/// squares cannot be 44 px there) and, on the desktop, the whole board
/// within the window's height.
async function measure(page, name, found, size) {
  const board = await page.$eval(".board", (b) => {
    const r = b.getBoundingClientRect();
    const sq = b.querySelector(".sq").getBoundingClientRect();
    return { top: r.top + scrollY, height: r.height, square: sq.width };
  });
  const viewport = page.viewportSize();
  console.log(`  ${name} (${size}): squares ${board.square.toFixed(1)} px, board ${Math.round(board.height)} px high from ${Math.round(board.top)} px`);
  if (size === "desktop" && board.height > viewport.height) found.push(`${name} (desktop): the board (${Math.round(board.height)} px) is higher than the window`);
}

/// Each viewport in turn, the page reloaded at its size.
async function both(page, name, found, selector) {
  // Issue #49: the small phone (360×740) too.
  for (const [size, viewport] of [["phone", L.PHONE], ["small phone", { width: 360, height: 740 }], ["desktop", L.DESKTOP]]) {
    await page.setViewportSize(viewport);
    await page.reload();
    await drawn(page, selector);
    await check(page, `${name} (${size})`, found, size !== "desktop");
    if (await page.$(".board:not(.mini)")) await measure(page, name, found, size);
  }
}

async function visit(page, path, name, found, selector) {
  await page.goto(BASE + path);
  await both(page, name, found, selector);
}

/// The matches the audit looks at, one of each game, made through the API.
async function matches(ada, bo) {
  const made = {};
  const two = async (body) => {
    const m = await api("POST", "/v1/matches", ada.access_token, Object.assign({ open_seats: 1, turn_hours: 24 }, body));
    await api("POST", `/v1/invites/${m.invite.code}/accept`, bo.access_token);
    return m.id;
  };
  made.checkers = await two({ game: "checkers" });
  made.janggi = await two({ game: "janggi", options: { setups: { cho: "MSMS", han: "SMMS" } } });
  made.banqi = await two({ game: "banqi" });
  const four = await api("POST", "/v1/matches", ada.access_token, { game: "four_player_chess", mode: "ffa", open_seats: 3, turn_hours: 24 });
  for (const [i, name] of ["Cy", "Di", "Ed"].entries()) {
    const guest = await api("POST", "/v1/guests", null, { nickname: name });
    await api("POST", `/v1/invites/${four.invites[i].code}/accept`, guest.access_token);
  }
  made.four_player_chess = four.id;
  // FlipChess: whoever owes an action acts (Ada ends her moves) until
  // Ada is to play a card.
  const flip = await two({ game: "flipchess" });
  const pick = (actions) => ["play", "end_turn", "move", "draw"].map((type) =>
    actions.find((a) => a.type === type && !a.last_card) || actions.find((a) => a.type === type)).find(Boolean);
  for (let i = 0; ; i++) {
    const mine = await api("GET", `/v1/matches/${flip}/legal-actions`, ada.access_token);
    if (mine.actions.some((a) => a.type === "play")) break;
    const theirs = await api("GET", `/v1/matches/${flip}/legal-actions`, bo.access_token);
    const [who, legal] = pick(mine.actions) ? [ada, mine] : [bo, theirs];
    const action = pick(legal.actions);
    if (!action || i > 40) throw new Error("flipchess: no card for Ada: " + JSON.stringify([mine.actions, theirs.actions]));
    if (action.type === "play" && /^wild/.test(action.card) && !action.colour) action.colour = "red";
    await api("POST", `/v1/matches/${flip}/actions`, who.access_token, { seq: legal.seq, action });
  }
  made.flipchess = flip;
  return made;
}

/// The match played on through the API until Ada has a move to make: she
/// plays a card (a plain number first), the other acts when it owes.
async function untilAdaMoves(ada, bo, flip) {
  const order = ["play", "move", "end_turn", "draw"];
  const pick = (actions, plain) => (plain && actions.find((a) => a.type === "play" && /-\d$/.test(a.card) && !a.last_card))
    || order.map((type) => actions.find((a) => a.type === type)).find(Boolean);
  for (let i = 0; i < 60; i++) {
    const mine = await api("GET", `/v1/matches/${flip}/legal-actions`, ada.access_token);
    if (mine.actions.some((a) => a.type === "move")) return true;
    const theirs = await api("GET", `/v1/matches/${flip}/legal-actions`, bo.access_token);
    const [who, legal] = pick(mine.actions, true) ? [ada, mine] : [bo, theirs];
    const action = pick(legal.actions, who === ada);
    if (!action) return false;
    if (action.type === "play" && /^wild/.test(action.card) && !action.colour) action.colour = "red";
    await api("POST", `/v1/matches/${flip}/actions`, who.access_token, { seq: legal.seq, action });
  }
  return false;
}

async function audit(browser, errors) {
  const found = [];
  const account = (username) => api("POST", "/v1/accounts", null, { username, password: "a long password" });
  const [ada, bo] = [await account("ada"), await account("bob_a")];
  await api("POST", "/v1/friends/requests", ada.access_token, { username: "bob_a" }).catch(() => {});
  const made = await matches(ada, bo);
  const cup = await api("POST", "/v1/tournaments", ada.access_token, { name: "Spring cup", format: "round_robin", game: "checkers", players: ["bob_a"] });

  for (const lang of ["en", "ko"]) {
    // Signed out: the browser's language.
    const context = await browser.newContext({ viewport: L.PHONE, locale: lang === "ko" ? "ko-KR" : "en-US" });
    const out = await context.newPage();
    out.on("pageerror", (e) => errors.push(String(e)));
    await visit(out, "/", `welcome ${lang}`, found, ".welcome");
    await visit(out, "/signin", `sign-in ${lang}`, found, "form");
    await visit(out, "/how-to", `how-to ${lang}`, found, ".game-cards");
    await visit(out, "/account-deletion", `account deletion ${lang}`, found, "[data-page=account-deletion] li");
    for (const game of GAMES) await visit(out, "/how-to/" + game, `how-to ${game} ${lang}`, found, `.how-to[data-game=${game}] li`);
    // A visitor's first steps, played with no account (issue #68 item 5).
    for (const game of GAMES) await visit(out, "/learn/" + game, `a visitor's first steps ${game} ${lang}`, found, ".lesson .board .sq");
    await context.close();

    // Signed in: the account's language.
    const user = await api("PATCH", "/v1/me", ada.access_token, { locale: lang });
    const page = await L.player(browser, errors);
    await L.signIn(page, Object.assign({}, ada, { user }));
    await visit(page, "/", `my matches ${lang}`, found, ".matches, .challenges, h2");
    await visit(page, "/new", `new match ${lang}`, found, "select[name=game]");
    await visit(page, "/computer", `play the computer ${lang}`, found, "select[name=level] option");
    await visit(page, "/seek", `find an opponent ${lang}`, found, "select[name=game] option");
    await visit(page, "/settings", `settings ${lang}`, found, "select[name=language]");
    await visit(page, "/friends", `friends ${lang}`, found, "input[name=username]");
    await visit(page, "/leaderboards", `leaderboards ${lang}`, found, "select");
    await visit(page, "/users/bob_a", `profile ${lang}`, found, "h3");
    await visit(page, "/tournaments", `tournaments ${lang}`, found, "h2");
    await visit(page, "/tournaments/" + cup.id, `a tournament ${lang}`, found, ".tournament");
    for (const game of GAMES) await visit(page, "/learn/" + game, `first steps ${game} ${lang}`, found, ".lesson .board .sq");
    await visit(page, "/puzzles", `puzzles ${lang}`, found, ".puzzle-games li");
    for (const game of GAMES) await visit(page, `/puzzles/${game}/daily`, `the daily ${game} puzzle ${lang}`, found, ".board .sq");
    for (const game of GAMES) {
      const phase = game === "flipchess" ? " (a card to play)" : "";
      await visit(page, "/matches/" + made[game], `${game} board${phase} ${lang}`, found, ".match-head[data-seq]");
    }
    await page.context().close();
  }
  // FlipChess after the card: the move to make (in both languages again).
  if (await untilAdaMoves(ada, bo, made.flipchess)) {
    for (const lang of ["en", "ko"]) {
      const user = await api("PATCH", "/v1/me", ada.access_token, { locale: lang });
      const page = await L.player(browser, errors);
      await L.signIn(page, Object.assign({}, ada, { user }));
      await visit(page, "/matches/" + made.flipchess, `flipchess board (a move to make) ${lang}`, found, ".match-head[data-seq]");
      await page.context().close();
    }
  } else found.push("flipchess: the match did not come to a move for Ada");
  // Finished boards (issue #49): every match ended by Ada's resignation
  // (four-player chess goes on without her army), each seen in both
  // languages and at every size.
  for (const game of GAMES) {
    const m = await api("GET", `/v1/matches/${made[game]}`, ada.access_token);
    const seat = m.my_seats[0];
    await api("POST", `/v1/matches/${made[game]}/actions`, ada.access_token, { seq: m.seq, seat, action: { type: "resign" } });
  }
  for (const lang of ["en", "ko"]) {
    const user = await api("PATCH", "/v1/me", ada.access_token, { locale: lang });
    const page = await L.player(browser, errors);
    await L.signIn(page, Object.assign({}, ada, { user }));
    for (const game of GAMES) await visit(page, "/matches/" + made[game], `${game} board after resigning ${lang}`, found, ".match-head[data-seq]");
    await page.context().close();
  }
  assert.deepEqual(found, [], "axe and the tap targets:\n  " + found.join("\n  "));
}

module.exports = { audit, both, check };

// WEB_TEST=tests/web/audit.cjs tests/web/run: the crawl alone.
if (require.main === module) {
  L.alone(async (browser, errors) => {
    await audit(browser, errors);
    console.log("the crawl: axe-core, 44-px taps and Korean words on every page");
  });
}
