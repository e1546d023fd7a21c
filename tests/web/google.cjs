// Issue #47, item 5, in the browser: signing in with Google through the
// OpenID Connect redirect, against the local issuer (oidc.cjs).
//  - A new person on a Korean phone signs in with Google on the sign-in
//    page, picks a username (a taken one refused first), lands signed
//    in; signs out, and in again with no username asked. From an
//    invitation, signed out, Google seats them in the match; a new person
//    from another invitation too, through the username.
//  - A guest who joined by an invitation saves the account with Google
//    and still has the match, on another browser too.
//  - Settings: a password account links Google and unlinks it (signed in
//    over 10 minutes ago, it confirms with its password first, a wrong
//    one refused there); a Google-only account is refused unlinking its
//    one way in, said there.
"use strict";
const L = require("./lib.cjs");
const { atGoogle } = require("./oidc.cjs");
const { englishOn } = require("./korean.cjs");
const { check } = require("./audit.cjs");

const { BASE, api, assert } = L;

/// Make `username`'s sessions as old as `minutes` ago (the service's clock
/// is the wall's here): a session that signed in long ago must prove again
/// who it is before a new way in is linked.
function ageSessions(username, minutes) {
  require("child_process").execFileSync("psql", ["-q", process.env.DATABASE_URL, "-c",
    `UPDATE refresh_tokens SET created_at = created_at - interval '${minutes} minutes' ` +
    `WHERE user_id = (SELECT id FROM users WHERE username = '${username}')`]);
}

async function noEnglish(page, where, names = []) {
  const words = await englishOn(page, names);
  assert.deepEqual(words, [], `${where}: English in Korean mode: ${words.join(", ")}`);
}

/// axe-core and the tap targets (audit.cjs) on a page only a flow reaches
/// (a reload would lose it), at phone size.
async function audited(page, name) {
  const found = [];
  await check(page, name, found, true);
  assert.deepEqual(found, [], "axe and the tap targets:\n  " + found.join("\n  "));
}

/// Signed out by the navigation's button (in the menu, on a phone).
async function signOut(page) {
  if (await page.isVisible(".menu-toggle")) await page.click(".menu-toggle");
  await page.click("nav button:not(.menu-toggle)");
  await page.waitForSelector("form input[name=password]");
  assert.equal(await L.tokenOf(page), null, "no token kept");
}

/// "Sign in with Google" on the sign-in page; back from the issuer on the
/// username form (`asked`) or signed in.
async function googleOnSignInPage(page, asked) {
  await page.click("[data-providers] [data-provider=google]");
  await page.waitForURL((url) => url.pathname !== "/signin");
  if (asked) {
    await page.waitForSelector("[data-choose-username]");
    assert.equal(new URL(page.url()).hash, "", "the token is out of the address");
  }
}

async function signInWithGoogle(browser, errors) {
  await api("POST", "/v1/accounts", null, { username: "gil_taken", password: "a long password" });
  // The username's refusal (409) and the unknown identity (404) are asked for.
  const page = await L.person(browser, errors, { locale: "ko-KR", expected: /status of 40[49]/ });
  await atGoogle(page.context(), "google-gildong", "gildong@example.test");
  await page.goto(BASE + "/signin");
  const button = page.locator("[data-providers] [data-provider=google]");
  assert.equal(await button.textContent(), "Google로 로그인");
  await noEnglish(page, "/signin");
  await L.shots(page, "signin-google-ko");

  await googleOnSignInPage(page, true);
  await noEnglish(page, "/signin/callback (a username to choose)");
  await audited(page, "choose a username (ko)");
  await L.shots(page, "signin-google-username-ko");
  const form = page.locator("[data-choose-username]");
  await form.locator("input[name=username]").fill("gil_taken");
  await form.locator("button[type=submit]").click();
  await page.waitForSelector("[data-choose-username] [role=alert]:not([hidden])");
  assert.match(await page.textContent("[data-choose-username] [role=alert]"), /[가-힣]/, "refused in Korean");
  await form.locator("input[name=username]").fill("gildong");
  await form.locator("button[type=submit]").click();
  await page.waitForURL(BASE + "/");
  await page.waitForSelector("nav a[href='/new']", { state: "attached" });
  const me = await api("GET", "/v1/me", await L.tokenOf(page));
  assert.deepEqual([me.username, me.guest, me.email, me.locale], ["gildong", false, "gildong@example.test", "ko"]);

  // Signed out and in again: the identity is known, no username asked.
  await signOut(page);
  // An answer this tab did not ask for (another tab's, or forged) is
  // refused before any request, and its token leaves the address.
  await page.goto(BASE + "/signin/callback#id_token=forged.token.here&state=not-ours");
  await page.waitForSelector("[data-identity-failed]");
  assert.equal(new URL(page.url()).hash, "");
  assert.equal(await L.tokenOf(page), null);
  await noEnglish(page, "/signin/callback (refused)");
  await page.goto(BASE + "/signin");
  await googleOnSignInPage(page, false);
  await page.waitForURL(BASE + "/");
  await page.waitForSelector("nav a[href='/new']", { state: "attached" });
  assert.equal((await api("GET", "/v1/me", await L.tokenOf(page))).username, "gildong");
  assert.equal(await page.$("[data-choose-username]"), null);

  // An invitation survives the round trip: signed out, "sign in" on the
  // invitation, Google, and seated.
  const host = await api("POST", "/v1/accounts", null, { username: "hostess", password: "a long password" });
  const invited = await api("POST", "/v1/matches", host.access_token, { game: "checkers", open_seats: 1, turn_hours: 24 });
  await signOut(page);
  await page.goto(BASE + "/invite/" + invited.invite.code);
  await page.click(`a[href='/signin?invite=${invited.invite.code}']`);
  await page.waitForSelector(`[data-invite-waiting='${invited.invite.code}']`);
  await googleOnSignInPage(page, false);
  await page.waitForURL(BASE + "/matches/" + invited.id);
  await page.waitForSelector(".match-head[data-seq]");
  assert.equal((await api("GET", "/v1/matches/" + invited.id, await L.tokenOf(page))).my_seats.length, 1, "seated");

  // A new person from an invitation: the username first, then seated.
  const other = await api("POST", "/v1/matches", host.access_token, { game: "checkers", open_seats: 1, turn_hours: 24 });
  const newcomer = await L.person(browser, errors, { expected: /status of 404/ });
  await atGoogle(newcomer.context(), "google-newcomer", "newcomer@example.test");
  await newcomer.goto(BASE + "/signin?invite=" + other.invite.code);
  assert.equal(await newcomer.textContent("[data-providers] [data-provider=google]"), "Sign in with Google");
  await googleOnSignInPage(newcomer, true);
  await newcomer.fill("[data-choose-username] input[name=username]", "newcomer");
  await newcomer.click("[data-choose-username] button[type=submit]");
  await newcomer.waitForURL(BASE + "/matches/" + other.id);
  await newcomer.waitForSelector(".match-head[data-seq]");
  assert.equal((await api("GET", "/v1/matches/" + other.id, await L.tokenOf(newcomer))).my_seats.length, 1, "seated");
  await newcomer.context().close();
  return page;
}

async function guestSavesWithGoogle(browser, errors) {
  const host = await api("POST", "/v1/accounts", null, { username: "gemma", password: "a long password" });
  const m = await api("POST", "/v1/matches", host.access_token, { game: "checkers", open_seats: 1, turn_hours: 24 });
  const page = await L.person(browser, errors, { locale: "ko-KR" });
  await atGoogle(page.context(), "google-guest-sol", "sol@example.test");
  await page.goto(BASE + "/invite/" + m.invite.code);
  await page.fill("input[name=nickname]", "솔");
  await page.click("form button[type=submit]");
  await page.waitForURL(BASE + "/matches/" + m.id);
  const guest = await api("GET", "/v1/me", await L.tokenOf(page));

  await page.goto(BASE + "/settings");
  await page.waitForSelector("[data-keep-account] [data-provider=google]");
  assert.equal(await page.textContent("[data-keep-account] [data-provider=google]"), "Google 계정으로 저장");
  await noEnglish(page, "/settings (a guest, with Google)");
  await L.sectionShot(page, "[data-keep-account]", "settings-keep-account-google-ko");
  // What was typed in the card comes back with Google's answer.
  await page.fill("[data-keep-account] input[name=username]", "sol_kim");
  await page.click("[data-keep-account] [data-provider=google]");
  await page.waitForSelector("[data-choose-username]");
  assert.equal(await page.inputValue("[data-choose-username] input[name=username]"), "sol_kim");
  assert.equal(await page.inputValue("[data-choose-username] input[name=display_name]"), "솔");
  await noEnglish(page, "/signin/callback (a guest saving the account)");
  await audited(page, "a guest's username (ko)");
  await page.click("[data-choose-username] button[type=submit]");
  await page.waitForSelector("[data-account-saved]");
  assert.match(await page.textContent("[data-account-saved]"), /Google로 로그인하세요/);
  const saved = await api("GET", "/v1/me", await L.tokenOf(page));
  assert.deepEqual([saved.id, saved.guest, saved.username, saved.display_name], [guest.id, false, "sol_kim", "솔"]);
  await page.click("[data-account-saved] a[href='/']");
  await page.waitForSelector(`a[href='/matches/${m.id}']`);

  // Another browser, signed in at Google as the same person: the match.
  const other = await L.person(browser, errors, { locale: "ko-KR" });
  await atGoogle(other.context(), "google-guest-sol", "sol@example.test");
  await other.goto(BASE + "/signin");
  await googleOnSignInPage(other, false);
  await other.waitForSelector(`a[href='/matches/${m.id}']`);
  for (const p of [page, other]) await p.context().close();
}

async function linkAndUnlink(browser, errors, googleOnly) {
  const lina = await api("POST", "/v1/accounts", null, { username: "lina", password: "a long password" });
  // The 403s are expected: the link refused until the password is given.
  const page = await L.person(browser, errors, { expected: /status of 403/ });
  await atGoogle(page.context(), "google-lina", "lina@example.test");
  await L.signIn(page, lina);
  await page.goto(BASE + "/settings");
  const methods = "[data-sign-in-methods]";
  await page.waitForSelector(methods + " [data-method=password]");
  assert.equal(await page.$(methods + " [data-identity]"), null, "nothing linked yet");
  ageSessions("lina", 11);
  await page.click(methods + " [data-provider=google]");
  // Back from Google: the password first, a wrong one refused in place.
  const confirm = "form[data-link-confirm]";
  await page.waitForSelector(confirm);
  await page.fill(confirm + " input[name=password]", "not the password");
  await page.click(confirm + " button[type=submit]");
  await page.waitForSelector(confirm + " [role=alert]:not([hidden])");
  assert.match(await page.textContent(confirm + " [role=alert]"), /password is wrong/);
  await page.fill(confirm + " input[name=password]", "a long password");
  await page.click(confirm + " button[type=submit]");
  await page.waitForSelector(methods + " [data-identity=google]");
  assert.equal(new URL(page.url()).pathname, "/settings", "back in settings");
  assert.match(await page.textContent(methods + " [data-identity=google]"), /lina@example\.test/);
  assert.match(await page.textContent(methods + " [role=status]"), /Google is linked/);
  await L.sectionShot(page, "[data-sign-in-methods]", "settings-sign-in-methods");
  let mine = await api("GET", "/v1/me/identities", lina.access_token);
  assert.deepEqual(mine.identities.map((i) => i.provider), ["google"]);
  await page.click(methods + " [data-action=unlink][data-provider=google]");
  await page.waitForSelector(methods + " [data-provider=google]:not([data-action])");
  assert.match(await page.textContent(methods + " [role=status]"), /Google is unlinked/);
  mine = await api("GET", "/v1/me/identities", lina.access_token);
  assert.deepEqual(mine.identities, []);
  await page.context().close();

  // Google is a Google-only account's one way in: refused, and said
  // (the 409 in its console is expected: `signInWithGoogle`'s page).
  await googleOnly.goto(BASE + "/settings");
  await googleOnly.waitForSelector(methods + " [data-identity=google]");
  assert.equal(await googleOnly.$(methods + " [data-method=password]"), null, "no password");
  await googleOnly.click(methods + " [data-action=unlink][data-provider=google]");
  await googleOnly.waitForSelector(methods + " .error");
  assert.match(await googleOnly.textContent(methods + " .error"), /유일한 로그인 방법/);
  // The address and the device's brands are names.
  await noEnglish(googleOnly, "/settings (unlinking refused)", ["gildong", "example", "test", "chrome", "linux"]);
  const still = await api("GET", "/v1/me/identities", await L.tokenOf(googleOnly));
  assert.deepEqual(still.identities.map((i) => i.provider), ["google"]);
}

module.exports = { signInWithGoogle, guestSavesWithGoogle, linkAndUnlink };
