// Issue #33 in the browser: a first visitor is told what Posthorn is and
// shown the five games, each with a how-to-play page, in English and (a
// Korean browser) in Korean; the new-match form and a match link to them.
"use strict";
const L = require("./lib.cjs");

const { BASE, assert } = L;
const GAMES = ["checkers", "janggi", "banqi", "flipchess", "four_player_chess"];

async function welcomeAndHowTo(browser, errors) {
  const page = await L.player(browser, errors);
  await page.goto(BASE + "/");
  await page.waitForSelector(".welcome .game-cards li");
  const links = await page.$$eval(".welcome .game-cards a", (a) => a.map((x) => x.getAttribute("href")));
  assert.deepEqual(links, GAMES.map((g) => "/how-to/" + g), "the five games, each with its page");
  await L.shots(page, "welcome");
  // Signed out on a phone, the menu still opens onto sign-in.
  await page.click(".menu-toggle");
  assert.ok(await page.isVisible("nav a[href='/signin']"));
  for (const game of GAMES) {
    await page.goto(BASE + "/how-to/" + game);
    await page.waitForSelector(`.how-to[data-game=${game}] li`);
    assert.ok((await page.$$(`.how-to[data-game=${game}] li`)).length >= 4, game + ": its rules in short");
  }
  await page.context().close();
  // A Korean browser reads them in Korean.
  const context = await browser.newContext({ viewport: L.PHONE, locale: "ko-KR" });
  const ko = await context.newPage();
  ko.on("pageerror", (e) => errors.push(String(e)));
  await ko.goto(BASE + "/how-to/janggi");
  await ko.waitForSelector(".how-to[data-game=janggi] li");
  assert.match(await ko.textContent(".how-to h2"), /게임 방법: 장기/);
  assert.match(await ko.textContent(".how-to"), /덤 1\.5점/);
  await L.shots(ko, "how-to-janggi-ko");
  await context.close();
}

/// A move by keyboard alone (issue #33): a square picked with Enter keeps
/// the focus, the target's Enter leaves it on the confirm button, whose
/// Enter sends the move; only the status line is a live region.
async function moveByKeyboard(browser, errors) {
  const account = (username) => L.api("POST", "/v1/accounts", null, { username, password: "a long password" });
  const [kay, lee] = [await account("kay"), await account("lee")];
  const m = await L.api("POST", "/v1/matches", kay.access_token, { game: "checkers", opponents: ["lee"], turn_hours: 24 });
  // The challenge waits at the top of lee's matches, answered in one tap.
  const invited = await L.player(browser, errors);
  await L.signIn(invited, lee);
  await invited.goto(BASE + "/");
  await invited.waitForSelector(`.challenges [data-challenge="${m.id}"]`);
  assert.match(await invited.textContent(`.challenges [data-challenge="${m.id}"]`), /kay · Checkers \(American\) · 24 h a move/);
  await invited.click(`.challenges [data-challenge="${m.id}"] [data-action=accept_challenge]`);
  await invited.waitForSelector(".match-head[data-status=active]");
  await invited.context().close();
  const legal = async (s) => L.api("GET", `/v1/matches/${m.id}/legal-actions`, s.access_token);
  const mover = (await legal(kay)).actions.some((a) => a.type === "move") ? kay : lee;
  const page = await L.player(browser, errors);
  await L.signIn(page, mover);
  await L.openMatch(page, m.id);
  assert.equal(await page.$$eval("[aria-live]", (n) => n.length), 0, "main is not a live region");
  assert.equal(await page.$$eval(".match-head [role=status]", (n) => n.length), 1, "the status line is");
  const before = await legal(mover);
  const move = before.actions.find((a) => a.type === "move");
  const [from, to] = move.move.match(/\d+/g);
  await page.focus(`.sq[data-square="${from}"]`);
  await page.keyboard.press("Enter");
  await page.waitForSelector(`.sq.selected[data-square="${from}"]`);
  assert.equal(await page.evaluate(() => document.activeElement.dataset.square), from, "focus stays on the picked square");
  await page.focus(`.sq[data-square="${to}"]`);
  await page.keyboard.press("Enter");
  await page.waitForSelector(".confirm button");
  assert.equal(await page.evaluate(() => document.activeElement.closest(".confirm") !== null), true, "focus on the confirm button");
  await page.keyboard.press("Enter");
  await page.waitForFunction((s) => Number(document.querySelector(".match-head")?.dataset.seq) > s, before.seq);
  await page.context().close();
}

module.exports = { welcomeAndHowTo, moveByKeyboard };
