// Issue #47, item 4, in the browser: "Forgot your password?" on the
// sign-in page asks for a link; the link read from the mail opens the
// page that sets a new password, which signs this browser in and every
// other device out; the new password signs in, the old one no longer,
// and the link does not work twice.
"use strict";
const fs = require("fs");
const path = require("path");
const L = require("./lib.cjs");

const { BASE, api, assert } = L;

/// The token of the newest link to `route` mailed to `address` (the
/// service writes `.eml` files when no SMTP server is set), waiting for
/// the job queue's and the outbox's ticks.
async function mailedToken(address, route) {
  const dir = process.env.MAIL_DIR;
  const pattern = new RegExp(route + "#([A-Za-z0-9_.-]+)");
  for (let i = 0; i < 200; i++) {
    const files = fs.existsSync(dir) ? fs.readdirSync(dir) : [];
    const found = files
      .map((file) => ({ file, at: fs.statSync(path.join(dir, file)).mtimeMs }))
      .sort((a, b) => b.at - a.at)
      .map(({ file }) => fs.readFileSync(path.join(dir, file), "utf8").replace(/=\r?\n/g, "").replace(/=3D/g, "="))
      .filter((mail) => mail.includes("To: " + address))
      .map((mail) => mail.match(pattern))
      .find(Boolean);
    if (found) return found[1];
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error("no " + route + " mail to " + address);
}

async function passwordReset(browser, errors) {
  const address = "sora@example.test";
  const sora = await api("POST", "/v1/accounts", null, { username: "sora", password: "a long password", email: address });
  await api("POST", "/v1/email-verifications", null, { token: await mailedToken(address, "/verify-email") });
  const phone = await api("POST", "/v1/sessions", null, { login: "sora", password: "a long password" });
  // The phone's browser, signed in before the reset (issue #68: told why
  // it is signed out afterwards).
  const old = await L.person(browser, errors, { expected: /status of 401/ });
  await L.signIn(old, phone);

  // Forgot it: from the sign-in page to the page that asks for a link.
  const page = await L.player(browser, errors);
  await page.goto(BASE + "/signin");
  await page.click("a[href='/forgot-password']");
  await page.waitForSelector("input[name=email]");
  await page.fill("input[name=email]", address);
  await page.click("form button[type=submit]");
  await page.waitForSelector("[data-reset-sent]:not([hidden])");
  await L.shots(page, "forgot-password");

  // The link from the mail opens the page that sets the new password.
  const token = await mailedToken(address, "/reset-password");
  await page.goto(BASE + "/reset-password#" + token);
  await page.fill("input[name=password]", "a brand new password");
  await L.shots(page, "reset-password");
  await page.click("form button[type=submit]");
  await page.waitForSelector("[data-reset-done]");
  const me = await api("GET", "/v1/me", await L.tokenOf(page));
  assert.equal(me.username, "sora", "signed in here by the new password");
  await assert.rejects(api("GET", "/v1/me", phone.access_token), /401/);
  await assert.rejects(api("GET", "/v1/me", sora.access_token), /401/);
  await assert.rejects(api("POST", "/v1/sessions", null, { login: "sora", password: "a long password" }), /401/);
  // The old device's next page says why it shows the sign-in form.
  await old.goto(BASE + "/friends");
  assert.match(await (await old.waitForSelector("[data-signed-out]")).textContent(), /signed out on this device: the password was changed/);
  await old.context().close();

  // The new password signs in from the sign-in page.
  const other = await L.player(browser, errors);
  await other.goto(BASE + "/signin");
  const signIn = other.locator("form").first();
  await signIn.locator("input[name=username]").fill("sora");
  await signIn.locator("input[name=password]").fill("a brand new password");
  await signIn.locator("button[type=submit]").click();
  await other.waitForSelector("nav a[href='/new']", { state: "attached" });

  // The link a second time: refused, said in the form.
  const logged = errors.length;
  await other.goto(BASE + "/reset-password#" + token);
  await other.fill("input[name=password]", "yet another password");
  await other.click("form button[type=submit]");
  const said = await (await other.waitForSelector("form .error:not([hidden])")).textContent();
  assert.match(said, /used already|more than an hour/, said);
  // The browser logs the refused request itself: expected here.
  errors.splice(logged, errors.length - logged, ...errors.slice(logged).filter((e) => !/status of 4\d\d/.test(e)));
  await page.context().close();
  await other.context().close();
}

/// Issue #65 in the browser: changing the address in settings asks for
/// the password (the field shows once the address changes; a wrong one
/// is said), and the link mailed to the old address, opened, puts it
/// back and signs this browser out.
async function addressChange(browser, errors) {
  const address = "hyeonsu@example.test";
  const hyeonsu = await api("POST", "/v1/accounts", null, { username: "hyeonsu", password: "a long password", email: address });
  await api("POST", "/v1/email-verifications", null, { token: await mailedToken(address, "/verify-email") });
  const page = await L.player(browser, errors);
  await L.signIn(page, hyeonsu);
  await page.goto(BASE + "/settings");
  await page.waitForSelector("input[name=email]");
  assert.equal(await page.isVisible("[data-email-confirm]"), false, "no password asked before a change");
  await page.fill("input[name=email]", "hyeonsu.new@example.test");
  await page.waitForSelector("[data-email-confirm] input[name=email_password]");
  await L.shots(page, "settings-email-password");
  const logged = errors.length;
  await page.fill("input[name=email_password]", "not my password");
  await page.click("form:has(input[name=email]) button[type=submit]");
  const said = await (await page.waitForSelector("form:has(input[name=email]) .error:not([hidden])")).textContent();
  assert.match(said, /password is wrong/, said);
  errors.splice(logged, errors.length - logged, ...errors.slice(logged).filter((e) => !/status of 4\d\d/.test(e)));
  await page.fill("input[name=email_password]", "a long password");
  await page.click("form:has(input[name=email]) button[type=submit]");
  await page.waitForSelector("[data-email-pending]");
  await api("POST", "/v1/email-verifications", null, { token: await mailedToken("hyeonsu.new@example.test", "/verify-email") });
  assert.equal((await api("GET", "/v1/me", hyeonsu.access_token)).email, "hyeonsu.new@example.test");

  // The old address's mail puts it back and signs everyone out.
  const undo = await mailedToken(address, "/undo-email");
  const before = errors.length;
  await page.goto(BASE + "/undo-email#" + undo);
  await page.waitForSelector("[data-email-restored]");
  assert.match(await page.textContent("main"), /hyeonsu@example\.test/);
  await L.shots(page, "email-restored");
  await assert.rejects(api("GET", "/v1/me", hyeonsu.access_token), /401/);
  const back = await api("POST", "/v1/sessions", null, { login: "hyeonsu", password: "a long password" });
  assert.equal((await api("GET", "/v1/me", back.access_token)).email, address);
  await page.context().close();
  // Every session ended, this page's too: a read it had in flight met
  // 401, which the browser logs. Expected here.
  errors.splice(before, errors.length - before, ...errors.slice(before).filter((e) => !/status of 401/.test(e)));
}

module.exports = { passwordReset, addressChange };
