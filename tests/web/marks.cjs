// Issue #33 in the browser: what a board says without words.
//  - Every game, every seat: a strip per seat, mine marked, each side
//    named, and the side to move on the strip of whoever owes the move.
//  - Check marked on the king's square (Janggi's 장군, four-player kings).
//  - The last move marked in every game (FlipChess from its log), and a
//    multi-capture's whole path.
//  - Janggi on the intersections, and the pass warned before it ends the
//    match.
"use strict";
const L = require("./lib.cjs");
const { both } = require("./audit.cjs");

const { BASE, api, assert, started } = L;

const account = (username) => api("POST", "/v1/accounts", null, { username, password: "a long password" });
const legal = async (id, s) => (await api("GET", `/v1/matches/${id}/legal-actions`, s.access_token)).actions;
const seqOf = async (id, s) => (await api("GET", `/v1/matches/${id}`, s.access_token)).seq;


/// Plays `choose(actions)` for whoever owes an action, by the API.
async function playBy(id, players, choose) {
  for (const s of players) {
    const actions = await legal(id, s);
    const action = choose(actions);
    if (action) return api("POST", `/v1/matches/${id}/actions`, s.access_token, { seq: await seqOf(id, s), action });
  }
  throw new Error("nobody could play: " + JSON.stringify(await Promise.all(players.map((s) => legal(id, s)))));
}

/// One strip per seat, one of them mine; the side to move on the strip of
/// whoever owes the move, mine exactly when I do.
async function stripsAgree(page, id, s, game, seats) {
  await L.openMatch(page, id);
  const strips = await page.$$eval(".strips .strip", (li) => li.map((x) => ({
    mine: x.classList.contains("mine"), side: x.dataset.side, toMove: x.dataset.toMove || null })));
  assert.equal(strips.length, seats, game);
  assert.equal(strips.filter((x) => x.mine).length, 1, game + ": one is mine");
  assert.ok(strips.every((x) => x.side), game + ": every side named");
  const moving = strips.filter((x) => x.toMove);
  assert.equal(moving.length, 1, game + ": one strip to move");
  const m = await api("GET", `/v1/matches/${id}`, s.access_token);
  const owe = m.to_act.some((d) => m.my_seats.includes(d.seat));
  assert.equal(moving[0].mine, owe, game + ": the to-move strip is mine exactly when I owe the move");
}

async function boardsSayIt(browser, errors) {
  const people = [];
  for (const name of ["amy", "ben", "cal", "dot"]) people.push(await account(name));
  const page = await L.player(browser, errors);
  const as = (s) => L.signIn(page, s);
  // Sides in every game and seat.
  const two = people.slice(0, 2);
  const matches = {};
  for (const game of ["checkers", "flipchess", "janggi", "banqi"]) matches[game] = await started(two, { game });
  // Banqi's sides are known from the first turn-up (§B3).
  await playBy(matches.banqi, two, (actions) => actions.find((a) => a.type === "turn_up"));
  matches.four_player_chess = await started(people, { game: "four_player_chess", mode: "teams" });
  for (const [game, id] of Object.entries(matches)) {
    const seated = game === "four_player_chess" ? people : two;
    for (const s of seated) {
      await as(s);
      await stripsAgree(page, id, s, game, seated.length);
    }
  }
  // Four-player teams: each strip names its team.
  assert.equal(await page.$$eval(".strips .strip", (li) => li.filter((x) => /team [12]/.test(x.textContent)).length), 4);

  // FlipChess: the last move comes from the log (its view has none).
  let moved = null;
  for (let i = 0; i < 12 && !moved; i++) {
    await playBy(matches.flipchess, two, (actions) => actions.find((a) => a.type === "move") || actions.find((a) => a.type === "play") || actions.find((a) => a.type === "draw"));
    const events = (await api("GET", `/v1/matches/${matches.flipchess}/events?after=0`, two[0].access_token)).events;
    moved = events.find((e) => e.move);
  }
  assert.ok(moved, "a FlipChess move was made");
  await as(two[0]);
  await L.openMatch(page, matches.flipchess);
  assert.equal(await page.$$eval(".sq.last", (n) => n.length), 2, "FlipChess's last move marked");

  // Janggi: on the intersections, with the palace's diagonals; Cho in
  // check from a chariot, marked on Cho's general.
  const [eve, fay] = [await account("eva"), await account("fox")];
  const check = await started([eve, fay], { game: "janggi", rated: false, options: { position: "4k4/9/9/9/9/9/9/4r4/9/4K4 w - - 0 1" } });
  await as(eve);
  await L.openMatch(page, check);
  assert.equal(await page.$$eval(".board.janggi .sq.point", (n) => n.length), 90, "90 points");
  assert.equal(await page.$$eval(".board.janggi .sq.diag-x", (n) => n.length), 2, "two palace centres");
  assert.deepEqual(await page.$$eval(".sq.check", (n) => n.map((x) => x.dataset.square)), ["e1"], "Cho's general in check");
  assert.match(await page.getAttribute(".sq.check", "aria-label"), /check!/);
  await L.shots(page, "janggi-check");

  // Janggi: the opponent passed; passing now ends the match (§J6).
  const passing = await started([eve, fay], { game: "janggi" });
  await playBy(passing, [eve, fay], (actions) => actions.find((a) => a.type === "pass"));
  for (const s of [eve, fay]) {
    await as(s);
    await L.openMatch(page, passing);
    const owe = (await legal(passing, s)).some((a) => a.type === "pass");
    assert.equal(await page.isVisible("[data-passed]"), owe, "the warning to whoever would end it by passing");
  }

  // FlipChess: a king taken in round 1 (the kings stand side by side;
  // a king may always move, §F3): its owner is asked the §F7 decision,
  // explained where it is asked.
  const flip = await started([eve, fay], { game: "flipchess", rated: false, options: { position: "8/8/8/8/8/8/8/kK6 w - - 0 1" } });
  let decision = false;
  for (let i = 0; i < 20 && !decision; i++) {
    // Take the king when it can be taken; else play on, keeping the sides
    // (a Flip card exchanges them) while another play or a draw is left.
    const done = await playBy(flip, [eve, fay], (actions) => actions.find((a) => a.move === "b1a1" || a.move === "a1b1")
      || actions.find((a) => a.type === "play" && !a.card.endsWith("flip")) || actions.find((a) => a.type === "draw")
      || actions.find((a) => a.type === "end_turn") || actions.find((a) => a.type === "play"));
    decision = done.match.view.phase.kind === "flip_decision";
  }
  assert.ok(decision, "a king was taken in round 1");
  for (const s of [eve, fay]) {
    await as(s);
    await L.openMatch(page, flip);
    const prompt = await page.textContent(".phase-prompt");
    const owes = (await legal(flip, s)).some((a) => a.type === "concede");
    assert.match(prompt, owes ? /Your king was captured in round 1\. Flip the board/ : /they choose to flip the board or concede/, prompt);
    if (!owes) continue;
    await L.shots(page, "flipchess-flip-decision");
    const found = [];
    await both(page, "flipchess flip decision", found, ".phase-prompt");
    assert.deepEqual(found, [], "axe-core on the §F7 decision: " + found.join(" | "));
  }
  // The free flip taken (§F7): the turned board is said, with the side
  // now played (issue #49 item 11).
  let flipped = 0;
  for (const s of [eve, fay]) {
    const free = (await legal(flip, s)).find((a) => a.type === "free_flip");
    if (!free) continue;
    flipped++;
    await api("POST", `/v1/matches/${flip}/actions`, s.access_token, { seq: await seqOf(flip, s), action: free });
    await as(s);
    await L.openMatch(page, flip);
    assert.match(await page.textContent("[data-flipped]"), /The board was flipped: .* you now play (White|Black)/);
  }
  assert.equal(flipped, 1, "the free flip was offered to the one whose king was taken");

  // Checkers: a double capture's path (14x23x32) drawn on the board.
  const jump = await started([eve, fay], { game: "checkers", rated: false, options: { position: "B:W18,27:B14" } });
  await playBy(jump, [eve, fay], (actions) => actions.find((a) => a.type === "move"));
  await as(eve);
  await L.openMatch(page, jump);
  assert.deepEqual(await page.$$eval(".sq.path", (n) => n.map((x) => x.dataset.square)), ["23"], "the square it landed on between");
  assert.deepEqual((await page.$$eval(".sq.last", (n) => n.map((x) => x.dataset.square))).sort(), ["14", "32"]);
  await page.context().close();
}

module.exports = { boardsSayIt };
