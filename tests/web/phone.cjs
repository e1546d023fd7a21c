// Issue #49 in the browser: the board on a phone as players judge it.
//  - Live: a move made on one page appears on the other through the live
//    channel (long before the 10-s poll could bring it), and by polling
//    when the channel is cut; the creator waiting on the share page sees
//    the friend join.
// Run by play.cjs; alone with `WEB_TEST=tests/web/phone.cjs tests/web/run`.
"use strict";
const L = require("./lib.cjs");

const { BASE, api, assert } = L;

const account = (username) => api("POST", "/v1/accounts", null, { username, password: "a long password" });

/// A started checkers match of `a` against `b`, and who moves first.
async function checkers(a, b) {
  const m = await api("POST", "/v1/matches", a.access_token, { game: "checkers", opponents: [b.user.username], turn_hours: 48 });
  await api("POST", `/v1/matches/${m.id}/accept`, b.access_token);
  const legal = await api("GET", `/v1/matches/${m.id}/legal-actions`, a.access_token);
  const first = legal.actions.some((x) => x.type === "move") ? a : b;
  return { id: m.id, mover: first, waiter: first === a ? b : a };
}

/// Click a legal move of `who` on `page` and confirm it; the time of the confirm.
async function clickMove(page, id, who) {
  const move = (await api("GET", `/v1/matches/${id}/legal-actions`, who.access_token)).actions.find((a) => a.type === "move");
  const [from, to] = move.move.match(/\d+/g);
  await page.click(`[data-square="${from}"]`);
  await page.click(`[data-square="${to}"]`);
  await page.waitForSelector(".confirm");
  const at = Date.now();
  await page.click(".confirm button:first-of-type");
  return at;
}

async function liveMoves(browser, errors) {
  const { id, mover, waiter } = await checkers(await account("lina"), await account("mato"));
  const [moving, watching] = [await L.player(browser, errors), await L.player(browser, errors)];
  await L.signIn(moving, mover);
  await L.signIn(watching, waiter);
  await L.openMatch(moving, id);
  await L.openMatch(watching, id);
  await watching.waitForFunction(() => document.body.dataset.live === "up");
  const before = await L.shownSeq(watching);
  const at = await clickMove(moving, id, mover);
  // The poll comes every 10 s: well before that, only the channel brings it.
  await watching.waitForFunction((b) => Number(document.querySelector(".match-head")?.dataset.seq) > b, before, { timeout: 3000 });
  const live = Date.now() - at;

  // Cut: a page whose channel is refused falls back to polling.
  const cut = await L.player(browser, errors);
  await cut.route("**/v1/matches/*/live", (r) => r.abort());
  await L.signIn(cut, mover);
  await L.openMatch(cut, id);
  const cutAt = await L.shownSeq(cut);
  await watching.waitForFunction((b) => document.querySelectorAll(".board button.sq:not([disabled])").length > 0
    && Number(document.querySelector(".match-head")?.dataset.seq) >= b, cutAt);
  await clickMove(watching, id, waiter);
  await cut.waitForFunction((b) => Number(document.querySelector(".match-head")?.dataset.seq) > b, cutAt, { timeout: 15000 });
  assert.equal(await cut.evaluate(() => document.body.dataset.live), "down", "the cut page never heard live");
  // The browser's own lines for the aborted streams are expected here.
  const kept = errors.filter((e) => !/live|ERR_FAILED/.test(e));
  errors.splice(0, errors.length, ...kept);
  for (const page of [moving, watching, cut]) await page.context().close();
  return live;
}

/// The creator, on the share page of a new invitation, sees the friend
/// join: the board opens by itself.
async function shareSeesJoin(browser, errors) {
  const [host, friend] = [await account("noor"), await account("omar")];
  const page = await L.player(browser, errors);
  await L.signIn(page, host);
  await page.goto(BASE + "/new");
  await page.selectOption("select[name=game]", "checkers");
  await page.click("form button[type=submit]");
  const link = await (await page.waitForSelector("input.share")).inputValue();
  await page.waitForFunction(() => document.body.dataset.live === "up");
  const code = link.split("/").pop();
  await api("POST", `/v1/invites/${code}/accept`, friend.access_token);
  await page.waitForURL(/\/matches\/[0-9a-f-]{36}$/, { timeout: 3000 });
  await page.waitForSelector(".board");
  await page.context().close();
}

module.exports = { liveMoves, shareSeesJoin };

if (require.main === module) {
  const { chromium } = require("playwright-core");
  (async () => {
    const browser = await chromium.launch({ executablePath: process.env.CHROMIUM, args: ["--no-sandbox"] });
    const errors = [];
    try {
      const live = await liveMoves(browser, errors);
      console.log(`live: a move appeared on the other page ${live} ms after its confirm; by polling with the channel cut`);
      await shareSeesJoin(browser, errors);
      console.log("live: the creator on the share page saw the friend join");
      assert.deepEqual(errors, [], "no script errors: " + errors.join(" | "));
    } finally {
      await browser.close();
    }
  })().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
