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

module.exports = { welcomeAndHowTo };
