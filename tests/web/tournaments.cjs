// Issue #35 in the browser: a round robin created from the new-tournament
// form, joined from its invitation link by a second player, started by
// its creator, its matches reached from the tournament page and back,
// and its standings and crosstable once every match is over; a
// knockout's bracket.
"use strict";
const L = require("./lib.cjs");

const { BASE, api, assert } = L;

/// The player strips (issue #33): two seats, one mine, each side shown,
/// and the side to move on the strip of whoever owes the move.
async function stripsAgree(page, session, game, sides) {
  await page.waitForSelector(".strips .strip");
  const strips = await page.$$eval(".strips .strip", (li) => li.map((x) => ({
    mine: x.classList.contains("mine"), side: x.dataset.side, toMove: x.dataset.toMove || null, text: x.textContent })));
  assert.equal(strips.length, 2, game);
  assert.equal(strips.filter((s) => s.mine).length, 1, game + ": one is mine");
  assert.deepEqual(strips.map((s) => s.side).sort(), sides, game + ": both sides named");
  const moving = strips.filter((s) => s.toMove);
  assert.equal(moving.length, 1, game + ": one side to move");
  const id = new URL(page.url()).pathname.split("/").pop();
  const legal = await api("GET", `/v1/matches/${id}/legal-actions`, session.access_token);
  const myTurn = legal.actions.some((a) => a.type === "move");
  assert.equal(moving[0].mine, myTurn, game + ": the to-move strip is mine exactly when I owe the move");
  assert.ok(strips.find((s) => s.mine).text.includes("(you)"));
}

async function tournamentFromTheForm(browser, errors) {
  const account = (username) => api("POST", "/v1/accounts", null, { username, password: "a long password" });
  const [tia, tob, tuc] = [await account("tia"), await account("tob"), await account("tuc")];
  const creator = await L.player(browser, errors);
  await L.signIn(creator, tia);
  await creator.goto(BASE + "/tournaments");
  await creator.waitForSelector("form[data-form=new-tournament]");
  await creator.fill("input[name=name]", "Friday club");
  await creator.selectOption("select[name=format]", "round_robin");
  await creator.selectOption("select[name=game]", "checkers");
  await creator.fill("input[name=players]", "tuc");
  await creator.click("form[data-form=new-tournament] button[type=submit]");
  await creator.waitForSelector(".tournament[data-status=open]");
  const id = new URL(creator.url()).pathname.split("/").pop();
  const link = await creator.inputValue(".tournament input.share");
  assert.ok(link.includes("code="), "an invitation link to share");
  assert.ok(await creator.isVisible(".tournament [data-action=copy_link]"), "copied in one tap");

  // tob was not invited by name: the link lets them in.
  const joiner = await L.player(browser, errors);
  await L.signIn(joiner, tob);
  await joiner.goto(link);
  await joiner.click("[data-action=tournament_join]");
  await joiner.waitForSelector(".tournament[data-status=open] [data-action=tournament_join]", { state: "detached" });
  await api("POST", `/v1/tournaments/${id}/join`, tuc.access_token, {});

  await creator.goto(BASE + "/tournaments/" + id);
  await creator.click("[data-action=tournament_start]");
  await creator.waitForSelector(".tournament[data-status=active]");
  // What waits for me (issue #33): the joiner's turns, on the badge and in the title.
  for (const [page, s] of [[joiner, tob], [creator, tia]]) {
    const waiting = await api("GET", "/v1/me/summary", s.access_token);
    const n = waiting.awaiting_me + waiting.challenges + waiting.friend_requests;
    await page.goto(BASE + "/");
    await page.waitForFunction((want) => document.title === want, n ? `(${n}) Posthorn` : "Posthorn");
    assert.equal(await page.textContent("nav .badge"), n ? String(n) : "");
    // A tournament's game names its tournament in my matches (issue #68).
    await page.waitForSelector("[data-tournament-name]");
    const named = await page.$$eval("[data-tournament-name]", (n) => n.map((x) => x.textContent));
    assert.ok(named.length >= 2 && named.every((x) => x === " · in Friday club"), "named: " + named);
  }
  await creator.goto(BASE + "/tournaments/" + id);
  await creator.waitForSelector(".tournament[data-status=active]");
  await creator.waitForSelector("table.crosstable");
  // A match from the tournament page, and back from the match.
  // Only my own matches are links: a board is its players' to see.
  assert.equal(await creator.$$eval("ul.games li[data-mine=yes] a", (a) => a.length), 2);
  assert.equal(await creator.$$eval("ul.games li[data-mine=no] a", (a) => a.length), 0);
  await creator.click("ul.games li[data-mine=yes] a");
  await creator.waitForSelector(".match-head [data-tournament]");
  await stripsAgree(creator, tia, "checkers", ["black", "white"]);
  await creator.click(".match-head [data-tournament]");
  await creator.waitForSelector(".tournament[data-status=active]");

  // Every match ends: the second player resigns.
  const tokens = { [tia.user.id]: tia.access_token, [tob.user.id]: tob.access_token, [tuc.user.id]: tuc.access_token };
  const view = await api("GET", `/v1/tournaments/${id}`, tia.access_token);
  for (const m of view.matches) {
    const token = tokens[m.second];
    const seq = (await api("GET", `/v1/matches/${m.match_id}`, token)).seq;
    await api("POST", `/v1/matches/${m.match_id}/actions`, token, { seq, action: { type: "resign" } });
  }
  // The service's job runner finishes it within a few seconds (up to 30
  // on a loaded 2-core machine: once it took longer than 10).
  for (let i = 0; i < 300; i++) {
    if ((await api("GET", `/v1/tournaments/${id}`, tia.access_token)).status === "finished") break;
    await creator.waitForTimeout(100);
  }
  await creator.goto(BASE + "/tournaments/" + id);
  await creator.waitForSelector(".tournament[data-status=finished]");
  const rows = await creator.$$eval("table.standings tbody tr", (trs) => trs.map((tr) => tr.children[2].textContent));
  assert.equal(rows.length, 3);
  const cells = await creator.$$eval("table.crosstable tbody td:not(.self)", (tds) => tds.map((td) => td.textContent));
  assert.ok(cells.length === 6 && cells.every((c) => c === "1" || c === "0"), "every game decided: " + cells);
  await L.shots(creator, "tournament-round-robin");
  // A result as people say it (issue #33): who resigned, who won.
  const lost = view.matches.find((m) => m.second === tia.user.id);
  await L.openMatch(creator, lost.match_id);
  assert.match(await creator.textContent(".result"), /^Result: tia resigned — (tob|tuc) wins$/);

  // A knockout of four: the bracket.
  const tas = await account("tas");
  const ko = await api("POST", "/v1/tournaments", tia.access_token, { name: "Cup", format: "knockout", game: "janggi", players: ["tob", "tuc", "tas"] });
  for (const s of [tob, tuc, tas]) await api("POST", `/v1/tournaments/${ko.id}/join`, s.access_token, {});
  await api("POST", `/v1/tournaments/${ko.id}/start`, tia.access_token, {});
  await creator.goto(BASE + "/tournaments/" + ko.id);
  await creator.waitForSelector(".bracket .round .pairing");
  assert.equal(await creator.$$eval(".bracket .round", (r) => r.length), 2, "semi-finals and the final");
  await L.shots(creator, "tournament-knockout");
  // A Janggi board of it: Cho and Han, with their points.
  const mine = (await api("GET", `/v1/tournaments/${ko.id}`, tia.access_token)).matches
    .find((m) => m.first === tia.user.id || m.second === tia.user.id);
  await L.openMatch(creator, mine.match_id);
  await stripsAgree(creator, tia, "janggi", ["cho", "han"]);
  assert.match((await creator.$$eval(".strips", (s) => s.map((x) => x.textContent))).join(" "), /72 points[\s\S]*73\.5 points|73\.5 points[\s\S]*72 points/, "the points, Han's with its 1.5");
  await creator.context().close();
  await joiner.context().close();
}

module.exports = { tournamentFromTheForm };
