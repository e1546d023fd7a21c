// Lighthouse on the welcome page, a signed-in match page of each game and
// a tournament's page (issue #49; run by
// tests/web/lighthouse, not by CI). Chromium is started with a debugging
// port and a profile of its own; playwright-core puts the session in its
// localStorage; Lighthouse then runs against the same port and keeps it
// (disableStorageReset).
"use strict";
const { spawn } = require("child_process");
const path = require("path");
const { chromium } = require(path.join(process.env.NODE_PATH, "playwright-core"));

const BASE = process.env.BASE;
const RUNS = Number(process.env.RUNS || 3);
const CATEGORIES = ["performance", "accessibility", "best-practices", "seo"];

async function api(method, route, token, body) {
  const reply = await fetch(BASE + route, {
    method,
    headers: Object.assign({ "content-type": "application/json" }, token ? { authorization: "Bearer " + token } : {}),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!reply.ok) throw new Error(`${method} ${route}: ${reply.status} ${await reply.text()}`);
  return reply.json();
}

async function main() {
  const lighthouse = (await import(path.join(process.env.NODE_PATH, "lighthouse/core/index.js"))).default;
  const ann = await api("POST", "/v1/accounts", null, { username: "ann", password: "a long password" });
  const ben = await api("POST", "/v1/accounts", null, { username: "ben", password: "a long password" });
  const carl = await api("POST", "/v1/accounts", null, { username: "carl", password: "a long password" });
  // Issue #49: a match page of each game, and a tournament's page.
  const matches = {};
  for (const game of ["checkers", "flipchess", "janggi", "banqi"]) {
    const m = await api("POST", "/v1/matches", ann.access_token, { game, open_seats: 1, turn_hours: 24 });
    await api("POST", `/v1/invites/${m.invite.code}/accept`, ben.access_token);
    matches[game] = m.id;
  }
  const four = await api("POST", "/v1/matches", ann.access_token, { game: "four_player_chess", mode: "teams", open_seats: 3, turn_hours: 24 });
  for (const [i, s] of [ben, carl].entries()) await api("POST", `/v1/invites/${four.invites[i].code}/accept`, s.access_token);
  const guest = await api("POST", "/v1/guests", null, { nickname: "Dee" });
  await api("POST", `/v1/invites/${four.invites[2].code}/accept`, guest.access_token);
  matches.four_player_chess = four.id;
  const cup = await api("POST", "/v1/tournaments", ann.access_token, { name: "Spring cup", format: "round_robin", game: "checkers", players: ["ben", "carl"], turn_hours: 48 });
  for (const s of [ben, carl]) await api("POST", `/v1/tournaments/${cup.id}/join`, s.access_token, {});
  await api("POST", `/v1/tournaments/${cup.id}/start`, ann.access_token, {});
  const match = { id: matches.checkers };

  const port = 9300 + Math.floor(Math.random() * 500);
  const browser = spawn(process.env.CHROME_PATH, ["--headless=new", "--no-sandbox", `--remote-debugging-port=${port}`,
    `--user-data-dir=${process.env.PROFILE}`, "--no-first-run", "about:blank"], { stdio: "ignore" });
  try {
    let cdp;
    for (let i = 0; i < 100 && !cdp; i++) {
      cdp = await chromium.connectOverCDP(`http://127.0.0.1:${port}`).catch(() => null);
      if (!cdp) await new Promise((r) => setTimeout(r, 100));
    }
    const page = await cdp.contexts()[0].newPage();
    const pages = [["welcome (signed out)", BASE + "/"]];
    // Welcome first, signed out; then the session goes in for the match page.
    const rows = [];
    const runAll = async (name, url) => {
      const scores = Object.fromEntries(CATEGORIES.map((c) => [c, []]));
      for (let i = 0; i < RUNS; i++) {
        const { lhr } = await lighthouse(url, { port, output: "json", logLevel: "error", disableStorageReset: true, onlyCategories: CATEGORIES });
        for (const c of CATEGORIES) scores[c].push(Math.round(lhr.categories[c].score * 100));
        if (i === 0) {
          const failing = Object.values(lhr.audits).filter((a) => a.score !== null && a.score < 0.9 && a.scoreDisplayMode !== "informative" && a.scoreDisplayMode !== "manual");
          for (const a of failing) console.error(`  ${name}: ${a.id} ${a.score} ${a.displayValue || ""}`);
        }
      }
      const median = (list) => list.slice().sort((a, b) => a - b)[Math.floor(list.length / 2)];
      rows.push([name, ...CATEGORIES.map((c) => `${median(scores[c])} (${scores[c].join(", ")})`)]);
    };
    await runAll(...pages[0]);
    await page.goto(BASE + "/signin");
    await page.evaluate((s) => {
      localStorage.setItem("access_token", s.access_token);
      localStorage.setItem("refresh_token", s.refresh_token);
      localStorage.setItem("user", JSON.stringify(s.user));
    }, ann);
    await page.goto(BASE + "/matches/" + match.id);
    await page.waitForSelector(".match-head[data-seq]");
    await page.close();
    for (const [game, id] of Object.entries(matches)) await runAll(`${game} match page (signed in)`, BASE + "/matches/" + id);
    await runAll("tournament page (signed in)", BASE + "/tournaments/" + cup.id);
    // Still signed in after Lighthouse: what it measured was the match.
    const after = await cdp.contexts()[0].newPage();
    await after.goto(BASE + "/matches/" + match.id);
    await after.waitForSelector(".match-head[data-seq]", { timeout: 10000 });
    if (!(await after.evaluate(() => localStorage.getItem("access_token")))) throw new Error("signed out by Lighthouse");
    await after.close();
    console.log(`Lighthouse ${require(path.join(process.env.NODE_PATH, "lighthouse/package.json")).version}, mobile profile, median of ${RUNS} (each run):`);
    console.log(["page", ...CATEGORIES].join(" | "));
    for (const row of rows) console.log(row.join(" | "));
  } finally {
    browser.kill();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
