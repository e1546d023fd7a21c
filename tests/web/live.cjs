// Issue #33 in the browser: nothing lost when the connection fails, and
// nothing stale while a page stays open.
//  - A move made offline stays on its board as "not sent" (through a
//    reload: the shell, the list and the board open from this device's
//    copies), and is sent exactly once when the connection returns.
//  - A challenge, a draw offer and a rematch asked for appear on the open
//    page without a reload, and are answered there.
//  - A whole short checkers match played by keyboard alone.
"use strict";
const L = require("./lib.cjs");

const { BASE, api, assert } = L;

const account = (username) => api("POST", "/v1/accounts", null, { username, password: "a long password" });

/// A started match of `a` against `b`.
async function started(a, b, body) {
  const m = await api("POST", "/v1/matches", a.access_token, Object.assign({ opponents: [b.user.username], turn_hours: 48 }, body));
  await api("POST", `/v1/matches/${m.id}/accept`, b.access_token);
  return m.id;
}

const seqOf = async (id, s) => (await api("GET", `/v1/matches/${id}`, s.access_token)).seq;
const legal = async (id, s) => (await api("GET", `/v1/matches/${id}/legal-actions`, s.access_token)).actions;

/// The browser's own complaints about requests it could not send while
/// offline are expected in this test: they are taken out of `errors`.
function forgetOfflineNoise(errors, from) {
  const kept = errors.slice(from).filter((e) => !/ERR_INTERNET_DISCONNECTED|Failed to fetch|net::ERR/.test(e));
  errors.splice(from, errors.length - from, ...kept);
}

async function offlineMoveSentOnce(browser, errors) {
  const [oda, pim] = [await account("oda"), await account("pim")];
  const id = await started(oda, pim, { game: "checkers" });
  const mover = (await legal(id, oda)).some((a) => a.type === "move") ? oda : pim;
  const page = await L.player(browser, errors);
  await L.signIn(page, mover);
  await page.goto(BASE + "/", { waitUntil: "networkidle" });
  await L.openMatch(page, id);
  await page.waitForFunction(() => navigator.serviceWorker && navigator.serviceWorker.controller !== null);
  const before = await seqOf(id, mover);
  const noise = errors.length;
  // Every action request that reached the service, with its key.
  const sent = [];
  page.on("requestfinished", (r) => { if (r.method() === "POST" && r.url().endsWith("/actions")) sent.push(r.headers()["idempotency-key"]); });
  await page.context().setOffline(true);
  await page.waitForSelector(".offline-banner:not([hidden])");
  const move = (await legal(id, mover)).find((a) => a.type === "move");
  const [from, to] = move.move.match(/\d+/g);
  await page.click(`[data-square="${from}"]`);
  await page.click(`[data-square="${to}"]`);
  await page.click(".confirm button:first-of-type");
  await page.waitForSelector("[data-unsent]");
  assert.match(await page.textContent("[data-unsent]"), /not sent/);
  assert.equal(await page.$$eval(".sq.unsent", (n) => n.length), 2, "its squares marked");
  assert.equal(await seqOf(id, mover), before, "nothing reached the service");
  // Still offline, a reload opens the shell, my matches and this board
  // from the device's copies; the move still waits.
  await page.goto(BASE + "/");
  await page.waitForSelector(".matches li a");
  await L.openMatch(page, id);
  await page.waitForSelector("[data-offline-copy]");
  await page.waitForSelector("[data-unsent]");
  // Back online: sent once, and the board shows it played.
  await page.context().setOffline(false);
  await page.waitForSelector("[data-unsent]", { state: "detached", timeout: 15000 });
  await page.waitForFunction((s) => Number(document.querySelector(".match-head")?.dataset.seq) > s, before);
  await page.waitForTimeout(1500);
  const events = (await api("GET", `/v1/matches/${id}/events?after=${before}`, mover.access_token)).events;
  const moves = events.filter((e) => e.move);
  assert.deepEqual(moves.map((e) => e.move), [move.move], "the move was applied exactly once");
  assert.equal(sent.length, 1, "and sent once");
  assert.equal(await page.isVisible(".offline-banner"), false);

  // The answer lost on the way back, online: the service applied the move
  // but the page never heard. It keeps the move as not sent and sends it
  // again with the same key; the service answers the first answer again.
  const other = mover === oda ? pim : oda;
  await L.signIn(page, other);
  await L.openMatch(page, id);
  const reply = (await legal(id, other)).find((a) => a.type === "move");
  const [a, b] = reply.move.match(/\d+/g);
  const mid = await seqOf(id, other);
  let lost = null;
  await page.route("**/v1/matches/*/actions", async (route) => {
    lost = route.request().headers()["idempotency-key"];
    await route.fetch();
    await route.abort("connectionreset");
  }, { times: 1 });
  await page.click(`[data-square="${a}"]`);
  await page.click(`[data-square="${b}"]`);
  await page.click(".confirm button:first-of-type");
  await page.waitForSelector("[data-unsent]");
  await page.waitForSelector("[data-unsent]", { state: "detached", timeout: 30000 });
  await page.waitForFunction((s) => Number(document.querySelector(".match-head")?.dataset.seq) > s, mid);
  const after = (await api("GET", `/v1/matches/${id}/events?after=${mid}`, other.access_token)).events.filter((e) => e.move);
  assert.deepEqual(after.map((e) => e.move), [reply.move], "applied once though sent twice");
  assert.equal(sent.length, 2, "the lost answer's move was sent again");
  assert.equal(sent[1], lost, "with the same idempotency key");
  forgetOfflineNoise(errors, noise);
  await page.context().close();
}

async function offersWithoutReload(browser, errors) {
  const [uma, ned] = [await account("uma"), await account("ned")];
  const page = await L.player(browser, errors);
  await L.signIn(page, ned);
  await page.goto(BASE + "/", { waitUntil: "networkidle" });
  // A challenge arrives while the list is open.
  const m = await api("POST", "/v1/matches", uma.access_token, { game: "checkers", opponents: ["ned"], turn_hours: 24 });
  await page.waitForSelector(`.challenges [data-challenge="${m.id}"]`, { timeout: 20000 });
  await page.click(`.challenges [data-challenge="${m.id}"] [data-action=accept_challenge]`);
  await page.waitForSelector(".match-head[data-status=active]");
  // A draw offer arrives while the board is open: answered from its banner.
  for (let i = 0; i < 6; i++) {
    const offer = (await legal(m.id, uma)).find((a) => a.type === "offer_draw");
    if (offer) {
      await api("POST", `/v1/matches/${m.id}/actions`, uma.access_token, { seq: await seqOf(m.id, uma), action: offer });
      break;
    }
    const [s, other] = (await legal(m.id, uma)).some((a) => a.type === "move") ? [uma, ned] : [ned, uma];
    const move = (await legal(m.id, s)).find((a) => a.type === "move");
    await api("POST", `/v1/matches/${m.id}/actions`, s.access_token, { seq: await seqOf(m.id, other), action: move });
  }
  await page.waitForSelector("[data-offer=draw]", { timeout: 20000 });
  await L.act(page, "checkers", { type: "decline_draw" });
  await page.waitForSelector("[data-offer=draw]", { state: "detached" });
  // The match ends and the opponent asks for a rematch: the banner
  // appears with no event in the log, and accepting opens the new match.
  await api("POST", `/v1/matches/${m.id}/actions`, uma.access_token, { seq: await seqOf(m.id, uma), action: { type: "resign" } });
  await page.waitForSelector(".match-head[data-status=finished]", { timeout: 20000 });
  await api("POST", `/v1/matches/${m.id}/rematch`, uma.access_token);
  await page.waitForSelector("[data-offer=rematch]", { timeout: 20000 });
  await page.click("[data-offer=rematch] [data-action=rematch]");
  await page.waitForURL((url) => /\/matches\/[0-9a-f-]{36}$/.test(url.pathname) && !url.pathname.endsWith(m.id));
  await page.waitForSelector(".match-head[data-status=active]");
  await page.context().close();
}

/// Two people play a whole (short) checkers match by keyboard alone: from
/// a custom start, White's 22-18 and Black's 14x23, which takes White's
/// last piece.
async function wholeMatchByKeyboard(browser, errors) {
  const [vic, wes] = [await account("vic"), await account("wes")];
  const id = await started(vic, wes, { game: "checkers", options: { position: "W:W22:B14" }, rated: false });
  const pages = new Map();
  for (const s of [vic, wes]) {
    const page = await L.player(browser, errors);
    await L.signIn(page, s);
    await L.openMatch(page, id);
    pages.set(s, page);
  }
  for (const notation of ["22-18", "14x23"]) {
    const s = (await legal(id, vic)).some((a) => a.move === notation) ? vic : wes;
    const page = pages.get(s);
    const before = await seqOf(id, s);
    await page.waitForFunction((b) => Number(document.querySelector(".match-head")?.dataset.seq) >= b, before, { timeout: 15000 });
    const [from, to] = notation.match(/\d+/g);
    await page.focus(`.sq[data-square="${from}"]`);
    await page.keyboard.press("Enter");
    await page.focus(`.sq[data-square="${to}"]`);
    await page.keyboard.press("Space");
    await page.waitForSelector(".confirm button");
    await page.keyboard.press("Enter");
    await page.waitForFunction((b) => Number(document.querySelector(".match-head")?.dataset.seq) > b, before);
  }
  const finished = await api("GET", `/v1/matches/${id}`, vic.access_token);
  assert.equal(finished.status, "finished", "the match was played to its end by keyboard");
  for (const page of pages.values()) await page.context().close();
}

/// Issue #46: an opponent's vacation never makes a move late, and a move
/// the service refuses as stale (the board changed under it) is said,
/// never dropped without a word.
async function staleMoveSaid(browser, errors) {
  const [ida, jon] = [await account("ida"), await account("jon")];
  const id = await started(ida, jon, { game: "checkers" });
  const [mover, other] = (await legal(id, ida)).some((a) => a.type === "move") ? [ida, jon] : [jon, ida];
  const page = await L.player(browser, errors);
  await L.signIn(page, mover);
  await L.openMatch(page, id);
  const pick = async () => {
    const move = (await legal(id, mover)).find((a) => a.type === "move");
    const [from, to] = move.move.match(/\d+/g);
    await page.click(`[data-square="${from}"]`);
    await page.click(`[data-square="${to}"]`);
    await page.waitForSelector(".confirm");
  };
  // The opponent goes on vacation and comes back while the move is being
  // made: it is played all the same.
  await pick();
  const before = await seqOf(id, mover);
  await api("POST", "/v1/me/vacation", other.access_token, {});
  await api("DELETE", "/v1/me/vacation", other.access_token);
  await page.click(".confirm button:first-of-type");
  await page.waitForFunction((b) => Number(document.querySelector(".match-head")?.dataset.seq) > b + 2, before, { timeout: 15000 });
  assert.equal(await page.$(".now .error"), null, "no complaint");
  // The other replies; then, while the mover's next move is being made,
  // the other offers a draw (a fact of the game): the move is refused as
  // stale and the page says why.
  const reply = (await legal(id, other)).find((a) => a.type === "move");
  await api("POST", `/v1/matches/${id}/actions`, other.access_token, { seq: await seqOf(id, other), action: reply });
  await page.waitForFunction((b) => Number(document.querySelector(".match-head")?.dataset.seq) > b + 3, before, { timeout: 20000 });
  await pick();
  const offer = (await legal(id, other)).find((a) => a.type === "offer_draw");
  assert.ok(offer, "a draw may be offered off turn");
  await api("POST", `/v1/matches/${id}/actions`, other.access_token, { seq: await seqOf(id, other), action: offer });
  const noise = errors.length;
  await page.click(".confirm button:first-of-type");
  await page.waitForSelector(".now .error", { timeout: 15000 });
  assert.match(await page.textContent(".now .error"), /board changed/);
  // The browser's own line for the refused request is expected here.
  const kept = errors.slice(noise).filter((e) => !/status of 409/.test(e));
  errors.splice(noise, errors.length - noise, ...kept);
  await page.waitForSelector("[data-offer=draw]", { timeout: 15000 });
  await page.context().close();
}

module.exports = { offlineMoveSentOnce, offersWithoutReload, wholeMatchByKeyboard, staleMoveSaid };
