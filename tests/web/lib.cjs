// Helpers for the browser test: players in their own browser contexts,
// actions performed by clicks, screenshots, and the service's answer time
// for every request the pages make.
"use strict";
const assert = require("assert");

const BASE = process.env.BASE;
const SHOTS = process.env.SHOTS;
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

/// The service's REST API from the test itself: setup and "whose turn".
/// Each call says it comes from an address of its own (tests/web/run
/// trusts loopback as a proxy): sign-ups and guests are limited per
/// address (issue #46), and the tests set up more people than one
/// address may make in an hour.
let nextAddress = 1;
async function api(method, path, token, body) {
  const from = `10.46.${(nextAddress >> 8) & 255}.${nextAddress++ & 255}`;
  const reply = await fetch(BASE + path, {
    method,
    headers: Object.assign({ "content-type": "application/json", "x-forwarded-for": from }, token ? { authorization: "Bearer " + token } : {}),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await reply.text();
  if (!reply.ok) throw new Error(`${method} ${path}: ${reply.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/// Time to first byte of every request a page makes, by route.
const timings = new Map();
function route(url) {
  const path = new URL(url).pathname;
  return path
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "{id}")
    .replace(/\/invite(s?)\/[A-Z0-9]+/, "/invite$1/{code}")
    .replace(/\/positions\/\d+/, "/positions/{seq}")
    .replace(/\/leaderboards\/.+/, "/leaderboards/{perf}")
    .replace(/\/users\/[^/]+/, "/users/{username}");
}

function timingReport() {
  const rows = [...timings.entries()].map(([name, list]) => {
    const sorted = list.slice().sort((a, b) => a - b);
    return { name, n: sorted.length, p50: sorted[Math.floor(sorted.length / 2)], max: sorted[sorted.length - 1] };
  }).sort((a, b) => b.max - a.max);
  return rows.map((r) => `${r.name.padEnd(48)} ${String(r.n).padStart(5)} ${r.p50.toFixed(1).padStart(8)} ${r.max.toFixed(1).padStart(8)}`)
    .join("\n");
}

/// A player with a browser context of their own (a phone unless told).
async function player(browser, errors, viewport) {
  const context = await browser.newContext({ viewport: viewport || PHONE, locale: "en-US", timezoneId: "Asia/Seoul" });
  // Layout shift, summed over the page's life (no input to excuse it).
  await context.addInitScript(() => {
    window.__shift = 0;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) if (!entry.hadRecentInput) window.__shift += entry.value;
    }).observe({ type: "layout-shift", buffered: true });
  });
  const page = await context.newPage();
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") errors.push(said(m)); });
  page.on("requestfinished", (request) => {
    const t = request.timing();
    if (!request.url().startsWith(BASE) || t.responseStart < 0 || t.requestStart < 0) return;
    const name = request.method() + " " + route(request.url());
    if (!timings.has(name)) timings.set(name, []);
    timings.get(name).push(t.responseStart - t.requestStart);
  });
  return page;
}

/// A console error as a failure names it: its text and where (a failed
/// load's message names no address by itself).
function said(message) {
  const url = message.location() && message.location().url;
  const page = message.page() ? " on " + message.page().url().replace(BASE, "") : "";
  return (url ? `${message.text()} (${url.replace(BASE, "")})` : message.text()) + page;
}

/// Someone on a browser of their own (issue #47): a phone in `locale`,
/// whose requests come from an address of its own (sign-ups from one
/// address are limited, and every test signs people up). Console errors
/// matching `expected` (the refusals a test asks for) are not script
/// errors.
let nextBrowserAddress = 1;
async function person(browser, errors, { locale = "en-US", viewport = PHONE, expected = null, hasTouch = false } = {}) {
  const context = await browser.newContext({ viewport, locale, timezoneId: "Asia/Seoul", hasTouch });
  const n = nextBrowserAddress++;
  await context.setExtraHTTPHeaders({ "x-forwarded-for": `10.47.${(n >> 8) & 255}.${n & 255}` });
  const page = await context.newPage();
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => {
    if (m.type() === "error" && !(expected && expected.test(m.text()))) errors.push(said(m));
  });
  return page;
}

/// Signs the page in with a session the test made through the API.
/// As the app's own sign-in does, it keeps when the access token ends (read
/// from the token itself, which may be minutes old): a page opened later
/// renews it first instead of meeting a 401 (a long run's early players
/// otherwise logged one when their 15 minutes were up).
async function signIn(page, session) {
  await page.goto(BASE + "/signin");
  const claims = JSON.parse(Buffer.from(session.access_token.split(".")[1], "base64url").toString());
  await page.evaluate(([s, claims]) => {
    localStorage.setItem("access_token", s.access_token);
    localStorage.setItem("refresh_token", s.refresh_token);
    localStorage.setItem("user", JSON.stringify(s.user));
    if (claims.exp && claims.iat) {
      localStorage.setItem("access_expires_at", String(claims.exp * 1000));
      localStorage.setItem("access_life", String((claims.exp - claims.iat) * 1000));
    }
  }, [session, claims]);
}

async function tokenOf(page) {
  return page.evaluate(() => localStorage.getItem("access_token"));
}

async function openMatch(page, id) {
  await page.goto(BASE + "/matches/" + id);
  try {
    await page.waitForSelector(".match-head[data-seq]");
  } catch (e) {
    throw new Error(`match ${id} did not open: ${await page.innerText("main")}`);
  }
}

async function shownSeq(page) {
  return Number(await page.getAttribute(".match-head", "data-seq"));
}

/// The phone-size and desktop-size screenshots of a page.
async function shots(page, name) {
  if (!SHOTS) return;
  await page.screenshot({ path: `${SHOTS}/${name}-phone.png`, fullPage: true });
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: `${SHOTS}/${name}-desktop.png`, fullPage: true });
  await page.setViewportSize(PHONE);
}

/// A phone-size screenshot of one part of a long page (a settings card).
async function sectionShot(page, selector, name) {
  if (!SHOTS) return;
  await page.locator(selector).screenshot({ path: `${SHOTS}/${name}-phone.png` });
}

/// The squares an action joins, as the board names them.
function squaresOf(game, action) {
  if (action.type === "turn_up") return { at: action.square };
  if (action.type !== "move") return null;
  const found = game === "checkers" ? action.move.match(/\d+/g) : action.move.match(/[a-n](1[0-4]|[1-9])/g);
  return { from: found[0], to: found[found.length - 1] };
}

/// Performs `action` on the page by clicks, as a player would, and waits
/// for the page to show the match after it.
async function act(page, game, action) {
  const before = await shownSeq(page);
  const squares = squaresOf(game, action);
  if (squares && squares.at) {
    await page.click(`[data-square="${squares.at}"]`);
  } else if (squares) {
    await page.click(`[data-square="${squares.from}"]`);
    await page.click(`[data-square="${squares.to}"]`);
    await page.waitForSelector(".confirm, .picker");
    if (await page.$(".picker")) await page.click(`.picker [data-move="${action.move}"]`);
  } else if (action.type === "play") {
    await page.click(`.hand button[data-card="${action.card}"]:not([disabled])`);
    if (action.colour) await page.click(`.picker [data-colour="${action.colour}"]`);
  } else if (action.type === "resign") {
    // Asked first, with its cost (issue #49 item 3).
    await page.click("[data-action=resign]");
    await page.click(".ask [data-confirm=yes]");
  } else {
    await page.click(`[data-action="${action.type}"]` + (action.card ? `[data-card="${action.card}"]` : ""));
  }
  // A draw offer is answered in its banner, in one tap (issue #49 item 2).
  if (!["resign", "accept_draw", "decline_draw"].includes(action.type)) {
    await page.waitForSelector(".confirm");
    await page.click(".confirm button:first-of-type");
  }
  await page.waitForFunction((seq) => Number(document.querySelector(".match-head")?.dataset.seq) > seq, before);
}

/// A match of `players[0]` against the others (sessions from the API),
/// every challenge accepted: its id.
async function started(players, body) {
  const [creator, ...others] = players;
  const m = await api("POST", "/v1/matches", creator.access_token,
    Object.assign({ opponents: others.map((o) => o.user.username), turn_hours: 48 }, body));
  for (const o of others) await api("POST", `/v1/matches/${m.id}/accept`, o.access_token);
  return m.id;
}

/// A repeatable random choice (the test's runs are alike).
function seeded(seed) {
  let x = seed >>> 0;
  return (n) => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x % n;
  };
}

/// What stands on each square of the page's board, by its label.
async function labels(page) {
  return page.$$eval("[data-square]", (nodes) => Object.fromEntries(nodes.map((n) => [n.dataset.square, n.getAttribute("aria-label")])));
}

/// Plays a match to its end by clicks: each round the player who owes an
/// action (by the API) is shown the current match and `choose`s one of
/// their legal actions, which is done on their page. Returns the plies.
async function playToEnd(players, id, game, choose, limit) {
  for (let ply = 0; ply < limit; ply++) {
    const m = await api("GET", "/v1/matches/" + id, players[0].token);
    if (m.status === "finished") return ply;
    const owing = [];
    for (const p of players) {
      const legal = await api("GET", `/v1/matches/${id}/legal-actions`, p.token);
      const actions = legal.actions.filter((a) => a.type !== "resign" && a.type !== "catch");
      const due = m.to_act.some((d) => (legal.seats || []).some((s) => s.seat === d.seat));
      if (actions.length) owing.push({ p, actions, seq: legal.seq, due });
    }
    // "Last card!" first (its window is short), then whoever the match waits for.
    const turn = owing.find((o) => o.actions.some((a) => a.type === "call_last_card")) || owing.find((o) => o.due);
    if (!turn) continue; // a window closing: the service moves on
    if ((await shownSeq(turn.p.page).catch(() => -1)) !== turn.seq) await openMatch(turn.p.page, id);
    const action = await choose(turn.actions, turn.p, ply);
    await act(turn.p.page, game, action);
  }
  throw new Error(`${game}: no end after ${limit} actions`);
}

/// A move by preference: a king taken, any capture, else at random.
async function preferCaptures(page, game, moves, random) {
  const on = await labels(page);
  const target = (a) => on[squaresOf(game, a).to] || "";
  const kings = moves.filter((a) => a.type === "move" && / (king|general)$/.test(target(a)));
  const captures = moves.filter((a) => a.type === "move" && target(a).includes(" "));
  const pool = kings.length ? kings : captures.length ? captures : moves;
  return pool[random(pool.length)];
}

/// A test file run alone (`WEB_TEST=tests/web/<file> tests/web/run`):
/// the system Chromium launched, `run(browser, errors)`, no script error
/// left; any failure exits 1.
function alone(run) {
  const { chromium } = require("playwright-core");
  (async () => {
    const browser = await chromium.launch({ executablePath: process.env.CHROMIUM, args: ["--no-sandbox"] });
    const errors = [];
    try {
      await run(browser, errors);
      assert.deepEqual(errors, [], "no script errors: " + errors.join(" | "));
    } finally {
      await browser.close();
    }
  })().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}

module.exports = { BASE, PHONE, DESKTOP, alone, api, started, player, person, signIn, tokenOf, openMatch, shownSeq, shots, sectionShot, act, seeded, labels, playToEnd, preferCaptures, timingReport, assert };
