// Issue #30 in the browser: a custom start is shown to the invited player
// (unrated), a waiting match shows no board, an email address is confirmed
// by the link mailed to it, and "sign out everywhere" ends every session.
"use strict";
const fs = require("fs");
const path = require("path");
const L = require("./lib.cjs");

const { BASE, api, assert } = L;

/// The token of the newest verification link mailed to `address` (the
/// service writes `.eml` files when no SMTP server is set), waiting for
/// the outbox's tick.
async function verificationToken(address) {
  const dir = process.env.MAIL_DIR;
  for (let i = 0; i < 100; i++) {
    const files = fs.existsSync(dir) ? fs.readdirSync(dir) : [];
    for (const file of files) {
      const mail = fs.readFileSync(path.join(dir, file), "utf8").replace(/=\r?\n/g, "").replace(/=3D/g, "=");
      if (!mail.includes("To: " + address)) continue;
      const found = mail.match(/\/verify-email#([A-Za-z0-9_.-]+)/);
      if (found) return found[1];
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error("no verification mail to " + address);
}

async function fairPlayAndSessions(browser, errors) {
  const dana = await api("POST", "/v1/accounts", null, { username: "dana", password: "a long password", email: "dana@example.test" });
  const page = await L.player(browser, errors);
  await L.signIn(page, dana);

  // A custom Janggi start, unrated: its waiting page has no board, and
  // the invited player reads the position before joining.
  const position = "r3k4/9/9/9/9/4R4/9/9/9/4K4 w - - 0 1";
  const custom = await api("POST", "/v1/matches", dana.access_token, { game: "janggi", options: { position }, open_seats: 1 });
  await L.openMatch(page, custom.id);
  assert.equal(await page.$$eval(".board", (b) => b.length), 0, "nothing set up while a seat is open");
  assert.match(await page.textContent("main"), /every seat is taken/);
  const guestPage = await L.player(browser, errors);
  await guestPage.goto(BASE + "/invite/" + custom.invite.code);
  await guestPage.waitForSelector(".start-terms code.position");
  assert.equal(await guestPage.textContent(".start-terms code.position"), position);
  assert.match(await guestPage.textContent(".start-terms"), /Unrated/);
  await L.shots(guestPage, "invite-custom-start");

  // The address waits for its link; the link confirms it.
  await page.goto(BASE + "/settings");
  await page.waitForSelector("[data-email-pending]");
  const token = await verificationToken("dana@example.test");
  await page.goto(BASE + "/verify-email#" + token);
  await page.waitForSelector("[role=status] h2");
  assert.match(await page.textContent("main"), /dana@example\.test/);
  assert.equal((await api("GET", "/v1/me", dana.access_token)).email, "dana@example.test");

  // Sign out everywhere: another device's session ends too.
  const phone = await api("POST", "/v1/sessions", null, { login: "dana", password: "a long password" });
  await page.goto(BASE + "/settings");
  page.once("dialog", (dialog) => dialog.accept());
  await page.click("button.danger");
  await page.waitForSelector("input[name=password]");
  await assert.rejects(api("GET", "/v1/me", phone.access_token), /401/);
  await assert.rejects(api("GET", "/v1/me", dana.access_token), /401/);
  await page.context().close();
  await guestPage.context().close();
}

module.exports = { fairPlayAndSessions };
