// Issue #18 in a real browser (run by tests/web/run): Alice signs up on a
// phone-sized screen, creates a checkers match with an invite link; Bob
// opens the link, joins as a guest in one step and lands on the board;
// each moves by clicking a piece, a marked destination and Confirm; the
// other sees it. Every page carries the CSP and no script error.
"use strict";
const { chromium } = require("playwright-core");
const assert = require("assert");

const BASE = process.env.BASE;
const SHOTS = process.env.SHOTS;

async function phone(browser, errors) {
  const context = await browser.newContext({ viewport: { width: 360, height: 740 }, locale: "en-US" });
  const page = await context.newPage();
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  return page;
}

async function shot(page, name) {
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
}

/// The player on move clicks a piece that can move, a marked target, Confirm.
async function moveOnce(page) {
  await page.waitForSelector(".status", { timeout: 10000 });
  assert.match(await page.textContent(".status"), /Your turn/);
  const before = await page.evaluate(() => document.querySelectorAll(".sq.last").length);
  const starts = await page.$$("button.sq:not([disabled])");
  assert.ok(starts.length > 0, "some piece can move");
  await starts[0].click();
  const target = await page.waitForSelector("button.sq.target", { timeout: 5000 });
  await target.click();
  await page.click(".confirm button:first-of-type");
  await page.waitForFunction((n) => document.querySelectorAll(".sq.last").length > n || /Waiting/.test(document.querySelector(".status")?.textContent || ""), before);
}

(async () => {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM, args: ["--no-sandbox"] });
  const errors = [];
  try {
    // The shell and its headers.
    const alice = await phone(browser, errors);
    const first = await alice.goto(BASE + "/signin");
    const csp = first.headers()["content-security-policy"] || "";
    assert.match(csp, /script-src 'self'/, "a CSP that allows only our own scripts");
    assert.doesNotMatch(csp, /unsafe-inline/);
    assert.equal(await alice.$$eval("script:not([src])", (s) => s.length), 0, "no inline script");

    // Alice signs up (the second form) and creates a match to share.
    const signUp = alice.locator("form").nth(1);
    await signUp.locator("input[name=username]").fill("alice");
    await signUp.locator("input[name=password]").fill("a long password");
    await signUp.locator("button[type=submit]").click();
    await alice.waitForSelector("nav a[href='/new']");
    await alice.click("nav a[href='/new']");
    await alice.selectOption("select[name=game]", "checkers");
    await alice.click("form button[type=submit]");
    const link = await (await alice.waitForSelector("input.share")).inputValue();
    assert.match(link, /\/invite\/[A-Z0-9]+$/);
    await shot(alice, "1-invite-link");

    // Bob opens the link: who invites to what, a nickname, the board.
    const bob = await phone(browser, errors);
    await bob.goto(link);
    await bob.waitForSelector("h2");
    assert.match(await bob.textContent("h2"), /alice.*checkers/i);
    await bob.fill("input[name=nickname]", "Bob");
    await bob.click("form button[type=submit]");
    await bob.waitForURL(/\/matches\/[0-9a-f-]{36}$/);
    await bob.waitForSelector(".board");
    const squares = await bob.$$eval(".board button.sq", (b) => b.map((x) => x.getAttribute("aria-label")));
    assert.equal(squares.length, 32, "32 playable squares, each with a label");
    assert.ok(squares.every((label) => /^\d+/.test(label)));
    await shot(bob, "2-bob-board");

    // Alice's view of the same match.
    await alice.goto(bob.url());
    await alice.waitForSelector(".board");
    const width = await alice.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 360, `no sideways scrolling on a 360-px screen (${width})`);

    // Whoever is on move moves; the other then sees it is their turn.
    for (let ply = 0; ply < 2; ply++) {
      const onMove = /Your turn/.test(await alice.textContent(".status")) ? alice : bob;
      const other = onMove === alice ? bob : alice;
      await moveOnce(onMove);
      await other.reload();
      await other.waitForSelector(".sq.last");
      assert.match(await other.textContent(".status"), /Your turn/);
    }
    await shot(alice, "3-after-two-moves");

    // Alice resigns (with a confirmation), then replays the match: ← → .
    alice.once("dialog", (dialog) => dialog.accept());
    await alice.click("button.danger");
    await alice.waitForSelector(".replay");
    assert.match(await alice.textContent(".result"), /resigned/);
    assert.match(await alice.textContent(".replay span"), /2 \/ 2/);
    await alice.click(".replay button[aria-label=back]");
    await alice.waitForFunction(() => /1 \/ 2/.test(document.querySelector(".replay span").textContent));
    await alice.click(".replay button[aria-label=back]");
    await alice.waitForFunction(() => /0 \/ 2/.test(document.querySelector(".replay span").textContent));
    assert.equal(await alice.$$eval(".sq.last", (n) => n.length), 0, "the start: no last move");
    await alice.keyboard.press("ArrowRight");
    await alice.waitForFunction(() => /1 \/ 2/.test(document.querySelector(".replay span").textContent));
    await shot(alice, "4-replay");
    assert.deepEqual(errors, [], "no script errors");
    console.log("web client: sign-up, invite link, guest join, two moves by clicking, resignation, replay — ok");
  } finally {
    await browser.close();
  }
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
