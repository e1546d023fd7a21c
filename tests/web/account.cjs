// Issue #47, items 6 to 8, in the browser: the account's own settings.
//  - Signed-in devices: two browsers signed in to one account are listed,
//    this one marked; the other, signed out from the first, is signed out
//    on its next request.
//  - Download my data: a file, named by the service, that parses as JSON
//    and holds the player's match.
//  - Delete account: a wrong password said, the right one deletes; the
//    opponent's match shows a deleted player ("탈퇴한 플레이어", "Deleted
//    player") linked nowhere; signing in again fails. A Google-only
//    account confirms with Google; a guest only confirms.
//  - /account-deletion, the public page, in Korean and English.
"use strict";
const fs = require("fs");
const L = require("./lib.cjs");
const { englishOn } = require("./korean.cjs");
const { check } = require("./audit.cjs");

const { BASE, api, assert } = L;

/// Signed in by the sign-in page's form, as `username`.
async function signInByForm(page, username) {
  await page.goto(BASE + "/signin");
  const form = page.locator("form").first();
  await form.locator("input[name=username]").fill(username);
  await form.locator("input[name=password]").fill("a long password");
  await form.locator("button[type=submit]").click();
  await page.waitForSelector("nav a[href='/new']", { state: "attached" });
}

async function signedInDevices(browser, errors) {
  // Made here, the account's first session (the test's own) ends: the
  // two browsers are all that is signed in.
  const devi = await api("POST", "/v1/accounts", null, { username: "devi", password: "a long password" });
  await api("DELETE", "/v1/sessions/current", devi.access_token);
  const first = await L.person(browser, errors);
  // Signed out from the first: its refresh refused (401) on the way.
  const second = await L.person(browser, errors, { expected: /status of 401/ });
  await signInByForm(first, "devi");
  await signInByForm(second, "devi");
  await first.goto(BASE + "/settings");
  await first.waitForSelector("[data-devices] li[data-current=no]");
  const rows = await first.$$eval("[data-devices] li", (items) => items.map((li) => ({ current: li.dataset.current, text: li.textContent })));
  assert.equal(rows.length, 2, "two devices: " + JSON.stringify(rows));
  assert.deepEqual(rows.map((r) => r.current).sort(), ["no", "yes"]);
  for (const row of rows) assert.match(row.text, /Chrome · Linux/, "the device by its browser and system");
  assert.match(rows.find((r) => r.current === "yes").text, /this device/);
  await first.waitForSelector("[data-devices] li[data-current=yes] >> text=last active");
  await L.sectionShot(first, "[data-devices]", "settings-devices");

  await first.click("[data-devices] li[data-current=no] [data-action=sign_out_device]");
  await first.waitForSelector("[data-devices] [role=status] >> text=That device is signed out.");
  assert.equal(await first.$$eval("[data-devices] li", (items) => items.length), 1);
  // The other browser's next request: signed out, the sign-in page.
  await second.goto(BASE + "/");
  await second.waitForSelector("form input[name=password]");
  assert.equal(await L.tokenOf(second), null, "its tokens forgotten");
  assert.equal((await api("GET", "/v1/me/sessions", await L.tokenOf(first))).sessions.length, 1);
  for (const p of [first, second]) await p.context().close();
}

/// The file "Download my data" saves, parsed.
async function downloaded(page) {
  const [file] = await Promise.all([page.waitForEvent("download"), page.click("[data-my-data] [data-action=download_my_data]")]);
  const name = file.suggestedFilename();
  const text = fs.readFileSync(await file.path(), "utf8");
  return { name, text, data: JSON.parse(text) };
}

/// Delete the account from its settings page: the box ticked, then the
/// password (or none, a guest).
async function deleteFromSettings(page, password) {
  const card = page.locator("[data-delete-account]");
  await card.locator("input[name=understand]").check();
  if (password !== undefined) await card.locator("input[name=confirm_password]").fill(password);
  await card.locator("button[type=submit]").click();
}

async function goneAndSaid(page) {
  await page.waitForSelector("[data-account-deleted]");
  assert.equal(await L.tokenOf(page), null, "the tokens are forgotten");
  assert.equal(new URL(page.url()).pathname, "/");
}

async function myDataAndDeletion(browser, errors, googleOnly) {
  const delia = await api("POST", "/v1/accounts", null, { username: "delia", password: "a long password" });
  const opal = await api("POST", "/v1/accounts", null, { username: "opal", password: "a long password", locale: "ko" });
  const m = await api("POST", "/v1/matches", delia.access_token, { game: "checkers", opponents: ["opal"], turn_hours: 48 });
  await api("POST", `/v1/matches/${m.id}/accept`, opal.access_token);

  // Her data, as a file.
  const page = await L.person(browser, errors, { expected: /status of 40[13]/ });
  await signInByForm(page, "delia");
  await page.goto(BASE + "/settings");
  await page.waitForSelector("[data-delete-account]");
  await L.sectionShot(page, "[data-my-data]", "settings-my-data");
  await L.sectionShot(page, "[data-delete-account]", "settings-delete-account");
  const file = await downloaded(page);
  assert.match(file.name, /^posthorn-delia-\d{4}-\d{2}-\d{2}\.json$/, file.name);
  assert.ok(file.text.includes(m.id), "the match is in the file");
  assert.equal(typeof file.data, "object");
  await page.waitForSelector("[data-my-data] [role=status] >> text=Downloaded.");

  // Deleted: a wrong password first, said; the right one.
  await deleteFromSettings(page, "not her password");
  await page.waitForSelector("[data-delete-account] [role=alert]:not([hidden])");
  assert.match(await page.textContent("[data-delete-account] [role=alert]"), /The password is wrong/);
  assert.equal((await api("GET", "/v1/me", delia.access_token)).username, "delia", "not deleted");
  await deleteFromSettings(page, "a long password");
  await goneAndSaid(page);
  await L.shots(page, "account-deleted");
  const found = [];
  await check(page, "account deleted (phone)", found, true);
  assert.deepEqual(found, [], "axe and the tap targets on the goodbye:\n  " + found.join("\n  "));
  await assert.rejects(api("GET", "/v1/me", delia.access_token), /401/);

  // Her opponent sees a deleted player, in Korean and English, linked nowhere.
  const opponent = await L.person(browser, errors, { locale: "ko-KR" });
  await L.signIn(opponent, opal);
  await L.openMatch(opponent, m.id);
  const strips = await opponent.textContent(".strips");
  assert.match(strips, /탈퇴한 플레이어/);
  assert.doesNotMatch(strips, /delia|Deleted player/);
  assert.equal(await opponent.$("main a[href^='/users/']"), null, "no profile link");
  const words = await englishOn(opponent, ["opal"]);
  assert.deepEqual(words, [], "the match in Korean: " + words.join(", "));
  const english = await api("PATCH", "/v1/me", opal.access_token, { locale: "en" });
  await L.signIn(opponent, Object.assign({}, opal, { user: english }));
  await L.openMatch(opponent, m.id);
  assert.match(await opponent.textContent(".strips"), /Deleted player/);
  assert.match(await opponent.textContent(".result"), /Deleted player/);
  await opponent.context().close();

  // Her name and password no longer sign in.
  await page.goto(BASE + "/signin");
  const form = page.locator("form").first();
  await form.locator("input[name=username]").fill("delia");
  await form.locator("input[name=password]").fill("a long password");
  await form.locator("button[type=submit]").click();
  await page.waitForSelector("form [role=alert]:not([hidden])");
  assert.equal(await L.tokenOf(page), null);
  await page.context().close();

  // A Google-only account confirms with Google.
  await googleOnly.goto(BASE + "/settings");
  const card = googleOnly.locator("[data-delete-account]");
  await card.locator("[data-provider=google]").waitFor();
  assert.equal(await card.locator("input[name=confirm_password]").count(), 0, "no password to ask");
  await card.locator("input[name=understand]").check();
  await card.locator("[data-provider=google]").click();
  await goneAndSaid(googleOnly);
  assert.match(await googleOnly.textContent("[data-account-deleted]"), /계정을 삭제했어요/);
  await googleOnly.context().close();

  // A guest only confirms.
  const guest = await api("POST", "/v1/guests", null, { nickname: "Wren" });
  const visitor = await L.person(browser, errors);
  await L.signIn(visitor, guest);
  await visitor.goto(BASE + "/settings");
  await visitor.waitForSelector("[data-delete-account]");
  await deleteFromSettings(visitor);
  await goneAndSaid(visitor);
  await assert.rejects(api("GET", "/v1/me", guest.access_token), /401/);
  await visitor.context().close();
}

/// The public page, signed out, in both languages.
async function accountDeletionPage(browser, errors) {
  for (const [locale, says] of [["en-US", [/365 days/, /7 days/, /deleted player/, /guest/]], ["ko-KR", [/365일/, /7일/, /탈퇴한 플레이어/, /손님/]]]) {
    const page = await L.person(browser, errors, { locale });
    await page.goto(BASE + "/account-deletion");
    await page.waitForSelector("[data-page=account-deletion] li");
    const text = await page.textContent("main");
    for (const said of says) assert.match(text, said);
    await L.shots(page, "account-deletion-" + locale.slice(0, 2));
    await page.context().close();
  }
}

module.exports = { signedInDevices, myDataAndDeletion, accountDeletionPage };
