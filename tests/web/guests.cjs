// Issue #47, item 2 in the browser: a guest who joined by invite link
// with a Korean browser plays in Korean, is offered to keep the account
// once the match has ended, saves it with a password, and signs in on
// another browser to find the match.
"use strict";
const L = require("./lib.cjs");
const { englishOn } = require("./korean.cjs");

const { BASE, api, assert } = L;

/// A phone whose browser speaks Korean. The console errors `expected`
/// (the refusal this test asks for) are not script errors.
async function koreanPhone(browser, errors, expected) {
  const context = await browser.newContext({ viewport: L.PHONE, locale: "ko-KR", timezoneId: "Asia/Seoul" });
  const page = await context.newPage();
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => {
    if (m.type() === "error" && !(expected && expected.test(m.text()))) errors.push(m.text());
  });
  return page;
}

async function noEnglish(page, path, names) {
  const words = await englishOn(page, names);
  assert.deepEqual(words, [], `${path}: English in Korean mode: ${words.join(", ")}`);
}

async function guestKeepsTheAccount(browser, errors) {
  const dahye = await api("POST", "/v1/accounts", null, { username: "dahye", password: "a long password" });
  const m = await api("POST", "/v1/matches", dahye.access_token, { game: "checkers", open_seats: 1, turn_hours: 24 });

  // Joined by the link as a guest, from a Korean browser: Korean
  // throughout, the account's language too.
  const page = await koreanPhone(browser, errors, /status of 409/);
  await page.goto(BASE + "/invite/" + m.invite.code);
  await page.fill("input[name=nickname]", "민지");
  await page.click("form button[type=submit]");
  await page.waitForURL(BASE + "/matches/" + m.id);
  await page.waitForSelector(".match-head[data-seq]");
  assert.equal(await page.evaluate(() => document.documentElement.lang), "ko");
  const guest = await api("GET", "/v1/me", await L.tokenOf(page));
  assert.deepEqual([guest.guest, guest.locale, guest.display_name], [true, "ko", "민지"]);
  // Issue #66 item 5: the browser's clock, not UTC.
  assert.equal(guest.time_zone, "Asia/Seoul");
  await noEnglish(page, "/matches/" + m.id, ["dahye"]);

  // Not offered before a match has ended; offered once it has.
  await page.goto(BASE + "/");
  await page.waitForSelector("ul.matches");
  assert.equal(await page.$("[data-keep-account]"), null, "no card before a match has ended");
  const view = await api("GET", "/v1/matches/" + m.id, dahye.access_token);
  await api("POST", `/v1/matches/${m.id}/actions`, dahye.access_token, { seq: view.seq, action: { type: "resign" } });
  await page.goto(BASE + "/");
  await page.waitForSelector("[data-keep-account]");
  assert.match(await page.textContent("[data-keep-account] h2"), /대국 기록 지키기/);
  await noEnglish(page, "/ (a guest's ended match)", ["dahye"]);

  // A refusal is said in Korean beside the form, what was typed kept.
  const card = page.locator("[data-keep-account]");
  await card.locator("input[name=username]").fill("dahye");
  await card.locator("input[name=password]").fill("a long password");
  await card.locator("button[type=submit]").click();
  await page.waitForSelector("[data-keep-account] [role=alert]:not([hidden])");
  assert.match(await page.textContent("[data-keep-account] [role=alert]"), /[가-힣]/);
  assert.equal(await card.locator("input[name=password]").inputValue(), "a long password");

  // Saved with a password: the same account, no longer a guest.
  await card.locator("input[name=username]").fill("minji");
  await card.locator("button[type=submit]").click();
  await page.waitForSelector("[data-account-saved]");
  await page.waitForSelector("nav a[href='/friends']", { state: "attached" });
  const saved = await api("GET", "/v1/me", await L.tokenOf(page));
  assert.deepEqual([saved.id, saved.guest, saved.username, saved.display_name], [guest.id, false, "minji", "민지"]);
  await noEnglish(page, "/ (saved)", ["dahye"]);

  // Another browser: signed in with the password, the match is there.
  const other = await koreanPhone(browser, errors);
  await other.goto(BASE + "/signin");
  const signIn = other.locator("form").nth(0);
  await signIn.locator("input[name=username]").fill("minji");
  await signIn.locator("input[name=password]").fill("a long password");
  await signIn.locator("button[type=submit]").click();
  await other.waitForSelector(`a[href='/matches/${m.id}']`);
  assert.match(await other.textContent(`a[href='/matches/${m.id}']`), /끝남/);
  await other.click(`a[href='/matches/${m.id}']`);
  await other.waitForSelector(".match-head[data-seq]");
  await noEnglish(other, "/matches/" + m.id + " (signed in again)", ["dahye"]);

  // A guest is offered it in the settings too (this one made by the
  // test, which sends no Accept-Language: Korean by the body's locale).
  const later = await api("POST", "/v1/guests", null, { nickname: "하늘", locale: "ko" });
  const third = await koreanPhone(browser, errors);
  await L.signIn(third, later);
  await third.goto(BASE + "/settings");
  await third.waitForSelector("[data-keep-account]");
  await noEnglish(third, "/settings (a guest)", []);
  // Issue #66 item 5: an account left in UTC by an earlier guest takes
  // the browser's zone on its next visit.
  const utc = await api("POST", "/v1/guests", null, { nickname: "바다", locale: "ko" });
  assert.equal((await api("GET", "/v1/me", utc.access_token)).time_zone, "UTC");
  const kept = await api("POST", "/v1/me/registration", utc.access_token, { username: "bada", password: "a long password" });
  assert.equal(kept.user.guest, false);
  const fourth = await koreanPhone(browser, errors);
  await L.signIn(fourth, kept);
  await fourth.goto(BASE + "/");
  let zone = "UTC";
  for (let i = 0; i < 50 && zone === "UTC"; i++) {
    await fourth.waitForTimeout(100);
    zone = (await api("GET", "/v1/me", kept.access_token)).time_zone;
  }
  assert.equal(zone, "Asia/Seoul", "a kept ex-guest in UTC takes the browser's zone");
  for (const p of [page, other, third, fourth]) await p.context().close();
}

/// Issue #66 item 5: sign-up sets a display name (닉네임), under the rules
/// of names everywhere; a refused one is said in Korean beside the form.
async function signUpWithADisplayName(browser, errors) {
  const page = await koreanPhone(browser, errors, /status of 4(00|22)/);
  await page.goto(BASE + "/signin");
  const form = page.locator("form", { has: page.locator("input[name=display_name]") });
  await form.locator("input[name=username]").fill("haneul");
  await form.locator("input[name=password]").fill("a long password");
  await form.locator("input[name=display_name]").fill("★하늘★");
  await form.locator("button[type=submit]").click();
  const alert = form.locator("[role=alert]:not([hidden])");
  await alert.waitFor();
  const said = await alert.textContent();
  assert.match(said, /보이는 이름/, said);
  assert.match(said, /기호/, said);
  await noEnglish(page, "/signin (a refused nickname)", []);
  await form.locator("input[name=display_name]").fill("하늘");
  await form.locator("button[type=submit]").click();
  await page.waitForURL((url) => !url.pathname.startsWith("/signin"));
  const me = await api("GET", "/v1/me", await L.tokenOf(page));
  assert.deepEqual([me.username, me.display_name, me.time_zone], ["haneul", "하늘", "Asia/Seoul"]);
  await page.context().close();
}

module.exports = { guestKeepsTheAccount, signUpWithADisplayName };
