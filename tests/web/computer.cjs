// Issue #32 in the browser: "Play the computer" — a game, a level and a
// side chosen on the page; a move by clicks and the computer's reply
// arriving by itself; the computer labelled; no deadline shown; and the
// takeback button undoing the move and the reply. Then a seek found from
// the "Find an opponent" page.
"use strict";
const L = require("./lib.cjs");

const { BASE, api, assert } = L;

async function playTheComputer(browser, errors) {
  const erin = await api("POST", "/v1/accounts", null, { username: "erin", password: "a long password" });
  const page = await L.player(browser, errors);
  await L.signIn(page, erin);
  await page.goto(BASE + "/computer");
  await page.waitForSelector("select[name=level] option", { state: "attached" });
  await page.selectOption("select[name=game]", "checkers");
  await page.selectOption("select[name=level]", "easy");
  await page.selectOption("select[name=seat]", "0");
  assert.match(await page.textContent("select[name=level]"), /Easy \(900\)/);
  await L.shots(page, "play-the-computer");
  await page.click("button[type=submit]");
  await page.waitForSelector(".match-head[data-seq]");
  const id = page.url().split("/").pop();
  assert.match(await page.textContent(".match-head"), /computer · easy/);
  assert.match(await page.textContent(".match-head .status"), /No time limit/);
  assert.equal(await page.$$eval(".match-head", (h) => h[0].textContent.includes("Deadline")), false, "no deadline");
  assert.match(await page.textContent(".match-head [data-rated]"), /Unrated/);
  assert.equal(await page.$("[data-action=take_back]"), null, "no move of mine to take back yet");

  // A move by clicks; the computer answers by itself (its job runs within
  // a second and the page asks every 1.5 s).
  const legal = await api("GET", `/v1/matches/${id}/legal-actions`, erin.access_token);
  const start = legal.seq;
  await L.act(page, "checkers", legal.actions[0]);
  await page.waitForFunction((seq) => Number(document.querySelector(".match-head")?.dataset.seq) >= seq + 2, start,
    { timeout: 20000 });
  assert.match(await page.textContent(".match-head .status"), /Your turn/);
  await L.shots(page, "computer-replied");

  // Take back: the move and the reply are undone, the log keeps both.
  await page.click("[data-action=take_back]");
  await page.waitForFunction((seq) => Number(document.querySelector(".match-head")?.dataset.seq) >= seq + 3, start);
  const after = await api("GET", `/v1/matches/${id}/legal-actions`, erin.access_token);
  assert.deepEqual(after.actions, legal.actions, "the start again");
  await page.click("details.moves summary");
  assert.match(await page.textContent("details.moves"), /taken back/);
  assert.equal(await page.$("[data-action=take_back]"), null, "nothing left to take back");
  await L.shots(page, "computer-taken-back");

  // Four-player chess with friends and computers (issue #32): two
  // computers beside Erin, and an invitation for the friend's seat.
  await page.goto(BASE + "/new");
  await page.waitForSelector("select[name=game] option", { state: "attached" });
  await page.selectOption("select[name=game]", "four_player_chess");
  await page.selectOption("select[name=variant]", "teams");
  await page.selectOption("select[name=computers]", "2");
  await page.selectOption("select[name=computer_level]", "easy");
  await L.shots(page, "friends-and-computers");
  await page.click("button[type=submit]");
  await page.waitForSelector(".card a[href^='/matches/']");
  const mine = await api("GET", "/v1/matches", erin.access_token);
  const table = mine.items.find((x) => x.game === "four_player_chess");
  assert.equal(table.status, "waiting", "until the friend takes the invited seat");
  assert.equal(table.seats.filter((x) => x.user && x.user.computer === "easy").length, 2);
  assert.equal(table.turn_hours, 48, "timed, as between people");
  assert.equal(table.rated, false);

  // Find an opponent: Fay's seek (the computer after a minute if nobody
  // comes) is taken by Erin from the list; Fay's page opens the match.
  const fay = await api("POST", "/v1/accounts", null, { username: "fay", password: "a long password" });
  const fayPage = await L.player(browser, errors);
  await L.signIn(fayPage, fay);
  await fayPage.goto(BASE + "/seek");
  await fayPage.waitForSelector("select[name=game] option", { state: "attached" });
  await fayPage.selectOption("select[name=game]", "janggi");
  await fayPage.selectOption("select[name=bot_after_seconds]", "60");
  await fayPage.click("button[type=submit]");
  await fayPage.waitForSelector(".seeks li button.secondary");
  await L.shots(fayPage, "seek-waiting");
  await page.goto(BASE + "/seek");
  await page.waitForSelector(".seeks li button:not(.secondary)");
  await page.click(".seeks li button:not(.secondary)");
  await page.waitForSelector(".match-head[data-seq]");
  assert.match(await page.textContent(".match-head"), /fay/);
  await fayPage.waitForSelector(".match-head[data-seq]", { timeout: 15000 });
  assert.match(await fayPage.textContent(".match-head"), /Janggi/);
  assert.match(await fayPage.textContent(".match-head"), /erin/);
  await fayPage.context().close();
  await page.context().close();
}

module.exports = { playTheComputer };
