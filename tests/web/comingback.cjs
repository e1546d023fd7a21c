// Issue #47 in the browser: coming back.
//  - Item 1: a page opened 16 minutes after sign-in, in two tabs at once,
//    each with several reads in flight, stays signed in, and the browser
//    spends its refresh token once: ahead of expiry where the page knows
//    it, after the reads' 401s where it does not (a session saved before
//    expiries were kept).
//  - Item 3: a signed-out visitor who taps "sign in" on an invitation and
//    signs in, and another (in Korean) who signs up, end up seated.
"use strict";
const crypto = require("crypto");
const fs = require("fs");
const path = require("path");
const L = require("./lib.cjs");

const { BASE, api, assert } = L;

/// The access token `token` as it is 16 minutes after it was issued: the
/// same claims, expired, signed with the service's key (from its data
/// folder), so the service refuses it as expired and nothing else.
function sixteenMinutesLater(token) {
  const secret = fs.readFileSync(path.join(process.env.DATA_DIR, "jwt-secret"));
  const [head, body] = token.split(".");
  const claims = JSON.parse(Buffer.from(body, "base64url").toString());
  claims.iat -= 16 * 60;
  claims.exp -= 16 * 60;
  const payload = Buffer.from(JSON.stringify(claims)).toString("base64url");
  const signature = crypto.createHmac("sha256", secret).update(head + "." + payload).digest("base64url");
  return head + "." + payload + "." + signature;
}

/// Every tab of `context` as it is 16 minutes on: its stored access token
/// expired, and (`knows`) the page's own note of when it expires passed.
async function comeBackLater(page, knows) {
  const expired = sixteenMinutesLater(await L.tokenOf(page));
  const refused = await fetch(BASE + "/v1/me", { headers: { authorization: "Bearer " + expired } });
  assert.equal(refused.status, 401);
  assert.match((await refused.json()).detail, /expired/, "refused as expired, not as forged");
  await page.evaluate(([token, knows]) => {
    localStorage.setItem("access_token", token);
    if (knows) localStorage.setItem("access_expires_at", String(Date.now() - 60000));
    else localStorage.removeItem("access_expires_at");
  }, [expired, knows]);
}

/// Six reads at once from the page's own `api` (the module the app uses).
async function burst(page, id) {
  return page.evaluate(async (id) => {
    const { api } = await import("/core.js");
    const paths = ["/v1/me", "/v1/matches", "/v1/me/summary", "/v1/matches/" + id, "/v1/matches/" + id + "/legal-actions", "/v1/games"];
    return Promise.all(paths.map((p) => api("GET", p).then((r) => r.status, (e) => e.status || String(e))));
  }, id);
}

async function staysSignedIn(browser, errors) {
  // The reads' 401s below are the point; any other error is not.
  const logged = [];
  const page = await L.player(browser, logged);
  const context = page.context();
  await page.goto(BASE + "/signin");
  const signUp = page.locator("form").nth(1);
  await signUp.locator("input[name=username]").fill("kyra");
  await signUp.locator("input[name=password]").fill("a long password");
  await signUp.locator("button[type=submit]").click();
  await page.waitForSelector("nav a[href='/new']", { state: "attached" });
  const ryu = await api("POST", "/v1/accounts", null, { username: "ryu", password: "a long password" });
  const m = await api("POST", "/v1/matches", await L.tokenOf(page), { game: "checkers", open_seats: 1, turn_hours: 24 });
  await api("POST", `/v1/invites/${m.invite.code}/accept`, ryu.access_token);

  let refreshes = 0;
  let refused = 0;
  context.on("request", (r) => { if (r.method() === "POST" && r.url().endsWith("/v1/sessions/refresh")) refreshes++; });
  context.on("response", (r) => { if (r.status() === 401 && new URL(r.url()).pathname.startsWith("/v1/")) refused++; });
  const second = await context.newPage();
  second.on("pageerror", (e) => logged.push(String(e)));
  second.on("console", (msg) => { if (msg.type() === "error") logged.push(msg.text()); });
  const tabs = [page, second];
  const signedIn = async (tab) => {
    await tab.waitForSelector(".match-head[data-seq]");
    assert.equal(await tab.$("input[name=password]"), null, "no sign-in form");
  };

  // The page knows when its token ends: one refresh, before any read.
  await comeBackLater(page, true);
  await Promise.all(tabs.map((tab) => tab.goto(BASE + "/matches/" + m.id)));
  await Promise.all(tabs.map(signedIn));
  const statuses = await Promise.all(tabs.map((tab) => burst(tab, m.id)));
  assert.deepEqual(statuses, [Array(6).fill(200), Array(6).fill(200)]);
  // One refresh per page at most (the page's reads share it); across
  // tabs the lock makes it one mostly, but another tab's storage may see
  // the new token a moment late, and its repeat of the same token is
  // what the service's reuse interval answers alike (docs/abuse.md).
  assert.equal(refused, 0, "no read met an expired token, ahead of expiry");
  assert.ok(refreshes >= 1 && refreshes <= tabs.length, `a refresh per tab at most (${refreshes})`);

  // It does not (saved before expiries were kept): the reads meet the
  // expired token, and still one refresh serves both tabs. (On a page
  // that reads nothing by itself meanwhile: the match page's watch would
  // take the refresh before the burst.)
  await Promise.all(tabs.map((tab) => tab.goto(BASE + "/how-to")));
  await Promise.all(tabs.map((tab) => tab.waitForSelector(".welcome")));
  await comeBackLater(page, false);
  [refreshes, refused] = [0, 0];
  const again = await Promise.all(tabs.map((tab) => burst(tab, m.id)));
  assert.deepEqual(again, [Array(6).fill(200), Array(6).fill(200)]);
  assert.ok(refused >= 2, `several reads met the expired token (${refused})`);
  assert.ok(refreshes >= 1 && refreshes <= tabs.length, `a refresh per tab at most for all their reads (${refreshes})`);
  for (const tab of tabs) {
    await tab.goto(BASE + "/matches/" + m.id);
    await signedIn(tab);
  }
  const token = await L.tokenOf(page);
  assert.equal((await api("GET", "/v1/me", token)).username, "kyra", "the session goes on");
  errors.push(...logged.filter((e) => !/status of 401/.test(e)));
  await context.close();
}

/// Opens the invitation signed out, taps "sign in", and signs in (`in`)
/// or up (`up`) as `name`: the page lands in the match, seated.
async function joinsAfterSigningIn(page, code, id, how, name) {
  await page.goto(BASE + "/invite/" + code);
  await page.click(`a[href='/signin?invite=${code}']`);
  await page.waitForSelector(`[data-invite-waiting='${code}']`);
  const said = await page.textContent("[data-invite-waiting]");
  const form = page.locator("form").nth(how === "in" ? 0 : 1);
  await form.locator("input[name=username]").fill(name);
  await form.locator("input[name=password]").fill("a long password");
  await form.locator("button[type=submit]").click();
  await page.waitForURL(BASE + "/matches/" + id);
  await page.waitForSelector(".match-head[data-seq]");
  const session = await api("POST", "/v1/sessions", null, { login: name, password: "a long password" });
  const m = await api("GET", "/v1/matches/" + id, session.access_token);
  assert.equal(m.my_seats.length, 1, `${name} is seated`);
  assert.equal(m.status, "active");
  return said;
}

async function invitationsSurviveSigningIn(browser, errors) {
  const hana = await api("POST", "/v1/accounts", null, { username: "hana", password: "a long password" });
  const match = () => api("POST", "/v1/matches", hana.access_token, { game: "checkers", open_seats: 1, turn_hours: 24 });
  const [first, second] = [await match(), await match()];
  await api("POST", "/v1/accounts", null, { username: "ivo", password: "a long password" });

  const ivo = await L.player(browser, errors);
  const said = await joinsAfterSigningIn(ivo, first.invite.code, first.id, "in", "ivo");
  assert.match(said, /join the invitation/);
  await ivo.context().close();

  // A Korean browser signing up: the words in Korean.
  const context = await browser.newContext({ viewport: L.PHONE, locale: "ko-KR" });
  const yuna = await context.newPage();
  yuna.on("pageerror", (e) => errors.push(String(e)));
  await yuna.goto(BASE + "/invite/" + second.invite.code);
  const link = await yuna.textContent(`a[href='/signin?invite=${second.invite.code}']`);
  assert.match(link, /로그인하거나 가입해서 참가/);
  const told = await joinsAfterSigningIn(yuna, second.invite.code, second.id, "up", "yuna");
  assert.match(told, /바로 초대에 참가/);
  await context.close();
}

module.exports = { staysSignedIn, invitationsSurviveSigningIn };
