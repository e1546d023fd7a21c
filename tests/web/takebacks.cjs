// Issue #34 in the browser: a takeback asked for between two people and
// accepted by the opponent from the banner on their board; the setting
// that decides whether one may be asked, and a vacation started and
// ended, on the settings page; a conditional move planned on the board
// and played in the same answer as the opponent's move.
"use strict";
const L = require("./lib.cjs");

const { BASE, api, assert } = L;

async function takebackByConsent(browser, errors) {
  const ivy = await api("POST", "/v1/accounts", null, { username: "ivy", password: "a long password" });
  const jun = await api("POST", "/v1/accounts", null, { username: "jun", password: "a long password" });
  const m = await api("POST", "/v1/matches", ivy.access_token, { game: "checkers", opponents: ["jun"], rated: false });
  await api("POST", `/v1/matches/${m.id}/accept`, jun.access_token);
  const legalOf = (s) => api("GET", `/v1/matches/${m.id}/legal-actions`, s.access_token);
  const [first, second] = (await legalOf(ivy)).actions.some((a) => a.type === "move") ? [ivy, jun] : [jun, ivy];
  const start = await legalOf(first);
  const move = start.actions.find((a) => a.type === "move");
  await api("POST", `/v1/matches/${m.id}/actions`, first.access_token, { seq: start.seq, action: move });

  const asker = await L.player(browser, errors);
  await L.signIn(asker, first);
  await L.openMatch(asker, m.id);
  await asker.click("[data-action=take_back]");
  await asker.waitForSelector("[data-takeback=asked]");
  assert.match(await asker.textContent(".match-head .status"), /takeback request waits/);
  const answerer = await L.player(browser, errors);
  await L.signIn(answerer, second);
  await L.openMatch(answerer, m.id);
  await answerer.waitForSelector("[data-action=take_back_accept]");
  await L.shots(answerer, "takeback-asked");
  const seq = await L.shownSeq(answerer);
  await answerer.click("[data-action=take_back_accept]");
  await answerer.waitForFunction((s) => Number(document.querySelector(".match-head")?.dataset.seq) > s, seq);
  const after = await legalOf(first);
  assert.deepEqual(after.actions, start.actions, "the asker's move is taken back");
  // The asker's board follows by itself (the event feed).
  await asker.waitForFunction(() => !document.querySelector(".banner"), null, { timeout: 15000 });

  // The setting: never / in unrated matches (the default) / always.
  await answerer.goto(BASE + "/settings");
  await answerer.waitForSelector("select[name=takebacks]");
  assert.equal(await answerer.inputValue("select[name=takebacks]"), "unrated");
  await answerer.selectOption("select[name=takebacks]", "always");
  await answerer.click("form button[type=submit]");
  for (let i = 0; i < 50; i++) {
    if ((await api("GET", "/v1/me", second.access_token)).takebacks === "always") break;
    await answerer.waitForTimeout(100);
  }
  assert.equal((await api("GET", "/v1/me", second.access_token)).takebacks, "always");

  // Vacation: away from the settings page, the opponent's board says so
  // (it is their turn now), and back again.
  await answerer.click("[data-action=start_vacation]");
  await answerer.waitForSelector("[data-vacation=away]");
  await L.shots(answerer, "on-vacation");
  assert.ok((await api("GET", "/v1/me/vacation", second.access_token)).since, "away");
  await L.openMatch(asker, m.id);
  await answerer.click("[data-action=end_vacation]");
  await answerer.waitForSelector("[data-vacation=here]");
  assert.equal((await api("GET", "/v1/me/vacation", second.access_token)).since, undefined);

  // A conditional move planned on the board while it is the opponent's
  // turn, then played for its owner in the same answer as their move.
  await L.openMatch(answerer, m.id);
  // Planned by tapping on the match's own board (issues #49 and #68 item
  // 6): their move, then my reply, each named with its piece, then kept
  // and listed with the pieces' names.
  const expected = (await legalOf(first)).actions.filter((a) => a.type === "move")[0];
  const tap = async (move) => {
    const [from, to] = move.match(/\d+/g);
    await answerer.click(`.match-head .board.plan [data-square="${from}"]`);
    await answerer.click(`.match-head .board.plan [data-square="${to}"]`);
  };
  const arrows = (move) => move.match(/\d+/g).join(" → ");
  const line = encodeURIComponent(JSON.stringify([expected]));
  const options = await api("GET", `/v1/matches/${m.id}/conditional-moves/options?line=${line}`, second.access_token);
  const reply = options.actions.find((a) => a.type === "move");
  const planAndKeep = async () => {
    await answerer.click("[data-action=plan_line]");
    await answerer.waitForSelector(".now [data-plan-step=theirs]");
    assert.equal(await answerer.$$eval(".board", (boards) => boards.length), 1, "planned on the one board of the page");
    await tap(expected.move);
    await answerer.waitForSelector("[data-plan-step=mine]");
    assert.match(await answerer.textContent("[data-plan-step=mine]"), new RegExp(`(Black|White) man ${arrows(expected.move)}`), "their move named with its piece");
    await tap(reply.move);
    await answerer.waitForSelector("[data-action=save_line]");
    assert.match(await answerer.textContent("[data-plan-step=keep]"), new RegExp(`I reply (Black|White) man ${arrows(reply.move)}`));
    await L.shots(answerer, "conditional-planned");
    await answerer.click("[data-action=save_line]");
    await answerer.waitForSelector(".conditional .lines li");
    assert.equal(await answerer.$(".board.plan"), null, "the board is the match's again");
  };
  await planAndKeep();
  assert.match(await answerer.textContent(".conditional .lines li"),
    new RegExp(`If they play (Black|White) man ${arrows(expected.move)}, I reply (Black|White) man ${arrows(reply.move)}`));
  // Forgetting every line is asked first: nothing goes until "yes".
  await answerer.click("[data-action=forget_lines]");
  await answerer.waitForSelector(".conditional .ask [data-confirm=yes]");
  assert.equal((await api("GET", `/v1/matches/${m.id}/conditional-moves`, second.access_token)).lines.length, 1, "kept while asked");
  await answerer.click(".conditional .ask [data-confirm=yes]");
  await answerer.waitForFunction(() => !document.querySelector(".conditional .lines"));
  assert.equal((await api("GET", `/v1/matches/${m.id}/conditional-moves`, second.access_token)).lines.length, 0, "forgotten on yes");
  await planAndKeep();
  const kept = (await api("GET", `/v1/matches/${m.id}/conditional-moves`, second.access_token)).lines;
  assert.deepEqual(kept[0][0].play, [reply], "the reply tapped is the one kept");
  const now = await legalOf(first);
  const theirs = now.actions.filter((a) => a.type === "move")[0];
  const answer = await api("POST", `/v1/matches/${m.id}/actions`, first.access_token, { seq: now.seq, action: theirs });
  const seats = new Set(answer.events.map((e) => e.seat));
  assert.equal(seats.size, 2, "the stored reply came in the same answer");
  await asker.context().close();
  await answerer.context().close();
}

module.exports = { takebackByConsent };

// Alone: `WEB_TEST=tests/web/takebacks.cjs tests/web/run`.
if (require.main === module) L.alone(takebackByConsent);
