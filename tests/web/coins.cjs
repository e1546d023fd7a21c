// Issue #70 in the browser, in Korean on a 360-px phone: a finished game
// shows what it paid ("+12 코인") in its result; looks are bought and
// chosen in settings (a board theme, an emblem); the theme shows on my
// own board, the emblem beside my name on the opponent's page; my
// profile shows the balance and the ledger, newest first.
// Run by play.cjs; alone with `WEB_TEST=tests/web/coins.cjs tests/web/run`.
"use strict";
const L = require("./lib.cjs");

const { api, assert } = L;
const SMALL = { width: 360, height: 740 };

const account = (username, locale) => api("POST", "/v1/accounts", null, { username: "c70_" + username, password: "a long password", locale });
const seqOf = async (id, s) => (await api("GET", `/v1/matches/${id}`, s.access_token)).seq;

/// A checkers match of `a` against `b` played into round 3, then resigned
/// by `b`: `a` wins, and both are paid (§R1, §R3).
async function finished(a, b) {
  const m = await api("POST", "/v1/matches", a.access_token, { game: "checkers", opponents: [b.user.username], turn_hours: 48 });
  await api("POST", `/v1/matches/${m.id}/accept`, b.access_token);
  for (let turn = 0; turn < 4; turn++) {
    for (const p of [a, b]) {
      const legal = (await api("GET", `/v1/matches/${m.id}/legal-actions`, p.access_token)).actions;
      const move = legal.find((x) => x.type === "move");
      if (!move) continue;
      await api("POST", `/v1/matches/${m.id}/actions`, p.access_token, { seq: await seqOf(m.id, p), action: move });
      break;
    }
  }
  await api("POST", `/v1/matches/${m.id}/actions`, b.access_token, { seq: await seqOf(m.id, b), action: { type: "resign" } });
  return api("GET", `/v1/matches/${m.id}`, a.access_token);
}

/// `amount` coins for `username`, as a tournament's podium would pay them
/// (the service's own tests pay through every award; here the shop is
/// under test).
function grant(username, amount) {
  require("child_process").execFileSync("psql", ["-q", process.env.DATABASE_URL, "-c",
    "WITH e AS (INSERT INTO coins (user_id, cause, amount, source, why, at) " +
    `SELECT id, 'tournament:' || gen_random_uuid(), ${amount}, 'place', 'place', now() FROM users WHERE username = '${username}' ` +
    "RETURNING user_id, amount) INSERT INTO purses (user_id, balance) SELECT user_id, amount FROM e " +
    "ON CONFLICT (user_id) DO UPDATE SET balance = purses.balance + EXCLUDED.balance"]);
}

async function page(browser, errors, session, lang) {
  const p = await L.person(browser, errors, { locale: lang === "ko" ? "ko-KR" : "en-US", viewport: SMALL, hasTouch: true });
  await L.signIn(p, Object.assign({}, session, { user: Object.assign({}, session.user, { locale: lang }) }));
  return p;
}

const noLatin = (text, where) => assert.ok(!/[A-Za-z]{3,}/.test(text.replace(/c70_\w+/g, "")), `${where}: English in Korean: ${text}`);

async function coinsOnAPhone(browser, errors) {
  const [minji, tae] = [await account("minji", "ko"), await account("tae", "ko")];
  const done = await finished(minji, tae);
  const mine = done.result.coins.find((c) => done.my_seats.includes(c.seat));
  assert.ok(mine && mine.coins > 0 && mine.why === "win", JSON.stringify(done.result));

  // The result says what the game paid, in Korean.
  const ko = await page(browser, errors, minji, "ko");
  await L.openMatch(ko, done.id);
  const paid = await ko.waitForSelector(".coins-paid");
  assert.equal((await paid.textContent()).trim(), `+${mine.coins} 코인`);
  const theirs = await page(browser, errors, tae, "ko");
  await L.openMatch(theirs, done.id);
  const lost = await theirs.$eval(".coins-paid", (n) => n.textContent.trim());
  assert.match(lost, /^\+\d+ 코인$/, "a loss in round 3 pays loss coins");

  // Settings: a theme and an emblem bought and chosen.
  grant(minji.user.username, 400);
  await ko.goto(L.BASE + "/settings");
  await ko.waitForSelector("#looks [data-balance]");
  const balance = () => ko.$eval("#looks [data-balance]", (n) => Number(n.getAttribute("data-balance")));
  const before = await balance();
  await ko.click("details[data-game=checkers] summary");
  await ko.click("[data-buy='theme.checkers.walnut']");
  await ko.waitForSelector("[data-choose='theme.checkers.walnut']");
  await ko.click("[data-choose='theme.checkers.walnut']");
  await ko.waitForSelector("[data-choose='theme.checkers.walnut'][aria-pressed=true]");
  await ko.click("[data-buy='emblem.star']");
  await ko.waitForSelector("[data-choose='emblem.star']");
  await ko.click("[data-choose='emblem.star']");
  await ko.waitForSelector("[data-choose='emblem.star'][aria-pressed=true]");
  assert.equal(await balance(), before - 400, "two looks of 200");
  noLatin(await ko.$eval("#looks", (n) => n.innerText), "the looks");
  await L.sectionShot(ko, "#looks", "coins-looks-ko");

  // My own board wears the theme; the opponent's page shows the emblem.
  const m = await api("POST", "/v1/matches", minji.access_token, { game: "checkers", opponents: [tae.user.username], turn_hours: 48 });
  await api("POST", `/v1/matches/${m.id}/accept`, tae.access_token);
  await L.openMatch(ko, m.id);
  const wrap = await ko.$eval(".board-wrap", (n) => ({ cls: n.className, dark: getComputedStyle(n.querySelector(".sq.dark")).backgroundColor }));
  assert.ok(wrap.cls.includes("theme-walnut"), wrap.cls);
  assert.equal(wrap.dark, "rgb(168, 116, 63)", "walnut's dark squares");
  await L.shots(ko, "coins-theme-ko");
  await L.openMatch(theirs, m.id);
  const names = await theirs.$eval(".match-head", (n) => n.innerText);
  assert.ok(names.includes("★"), "the emblem beside minji's name: " + names);
  assert.ok(!(await theirs.$eval(".board-wrap", (n) => n.className)).includes("theme-"), "the theme is minji's own");

  // The profile: the balance and the ledger, newest first.
  await ko.goto(L.BASE + "/users/" + minji.user.username);
  await ko.waitForSelector("[data-ledger] [data-balance]");
  const lines = await ko.$$eval("[data-ledger] li", (lis) => lis.map((li) => li.getAttribute("data-why")));
  assert.deepEqual(lines.slice(0, 2), ["bought", "bought"], lines.join(","));
  assert.ok(lines.includes("win"), lines.join(","));
  noLatin(await ko.$eval("[data-ledger]", (n) => n.innerText), "the ledger");
  await L.sectionShot(ko, "[data-ledger]", "coins-ledger-ko");
  await ko.context().close();
  await theirs.context().close();
}

module.exports = { coinsOnAPhone };

if (require.main === module) {
  L.alone(async (browser, errors) => {
    await coinsOnAPhone(browser, errors);
    console.log("coins: a finished game's coins in its result, a theme and an emblem bought and chosen in Korean at 360 px, the theme on my board, the emblem on the opponent's, the ledger on my profile");
  });
}
