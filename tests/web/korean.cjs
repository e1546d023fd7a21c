// Issue #33 in the browser: in Korean mode no English is left on any
// page. A Korean account with matches of every game (and one finished, one
// against the computer), a challenge, a friend request and a tournament
// visits every page; every visible text, every selected option and every
// aria-label, title and placeholder is read, and any word of two or more
// Latin letters that is not a name (usernames, "Posthorn", the time zone
// the player chose, the language's own name) fails the test with the page
// and the words. A refusal from the service is read in Korean too.
"use strict";
const L = require("./lib.cjs");

const { BASE, api, assert } = L;

/// Latin words a Korean page may show: people's and the service's names,
/// an IANA time zone, the English language option's own name, and the
/// two sign-in providers' brands ("Google로 로그인", issue #47).
const NAMES = ["minjun", "seoyeon", "jiho", "posthorn", "utc", "asia", "seoul", "english", "google", "apple"];

/// The Latin words on the page that are not names (`NAMES`, and `more`).
async function englishOn(page, more = []) {
  return page.evaluate((names) => {
    for (const d of document.querySelectorAll("details")) d.open = true;
    const texts = [document.title];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      const parent = walker.currentNode.parentElement;
      if (!parent || parent.closest("script, style")) continue;
      const option = parent.closest("option");
      if (option ? !option.selected : !parent.checkVisibility()) continue;
      texts.push(walker.currentNode.textContent);
    }
    for (const node of document.querySelectorAll("[aria-label], [title], [placeholder]")) {
      for (const name of ["aria-label", "title", "placeholder"]) texts.push(node.getAttribute(name) || "");
    }
    const words = new Set();
    for (const text of texts) {
      for (const word of text.match(/[A-Za-z]{2,}/g) || []) if (!names.includes(word.toLowerCase())) words.add(word);
    }
    return [...words];
  }, NAMES.concat(more));
}

async function visit(page, path, ready) {
  // Not "networkidle": a match page keeps its live channel open (issue #49).
  await page.goto(BASE + path, { waitUntil: "load" });
  await page.waitForSelector(ready, { state: "attached" });
  await page.waitForTimeout(500);
  const words = await englishOn(page);
  assert.deepEqual(words, [], `${path}: English in Korean mode: ${words.join(", ")}`);
}

async function account(username, locale) {
  return api("POST", "/v1/accounts", null, { username, password: "a long password", locale });
}

/// A match between `a` and `b`, started (b accepts the challenge).
async function started(a, b, body) {
  const m = await api("POST", "/v1/matches", a.access_token, Object.assign({ opponents: [b.user.username], turn_hours: 48 }, body));
  await api("POST", `/v1/matches/${m.id}/accept`, b.access_token);
  return m.id;
}

async function everyPageInKorean(browser, errors) {
  const [minjun, seoyeon, jiho] = [await account("minjun", "ko"), await account("seoyeon", "ko"), await account("jiho", "en")];
  const matches = {};
  for (const game of ["checkers", "flipchess", "janggi", "banqi"]) matches[game] = await started(minjun, seoyeon, { game });
  matches.four = (await api("POST", "/v1/matches", minjun.access_token, { game: "four_player_chess", mode: "teams",
    computers: [{ level: "easy" }, { level: "easy" }, { level: "easy" }] })).id;
  matches.computer = (await api("POST", "/v1/matches", minjun.access_token, { game: "janggi", computers: [{ level: "normal" }] })).id;
  matches.finished = await started(seoyeon, minjun, { game: "checkers", variant: "russian" });
  const resign = await api("GET", `/v1/matches/${matches.finished}`, seoyeon.access_token);
  await api("POST", `/v1/matches/${matches.finished}/actions`, seoyeon.access_token, { seq: resign.seq, action: { type: "resign" } });
  await api("POST", "/v1/matches", jiho.access_token, { game: "janggi", opponents: ["minjun"], turn_hours: 24 });
  await api("POST", "/v1/friends/requests", jiho.access_token, { username: "minjun" });
  const cup = await api("POST", "/v1/tournaments", minjun.access_token, { name: "봄 대회", format: "round_robin", game: "checkers", players: ["seoyeon", "jiho"] });

  const page = await L.player(browser, errors, L.DESKTOP);
  await L.signIn(page, minjun);
  await visit(page, "/", ".challenges");
  for (const [path, ready] of [["/new", "select[name=game]"], ["/computer", "select[name=level]"], ["/seek", ".seeks"],
    ["/tournaments", "form"], [`/tournaments/${cup.id}`, "h2"], ["/settings", "select[name=language]"], ["/friends", ".people"],
    ["/leaderboards", ".tabs"], ["/users/minjun", ".perfs"], ["/users/seoyeon", ".card h3"], ["/how-to", ".welcome"], ["/puzzles", ".puzzle-games li"],
    ["/learn/flipchess", ".lesson .card-button"], ["/learn/janggi", ".lesson .board .sq"]]) {
    await visit(page, path, ready);
  }
  for (const game of ["checkers", "janggi", "banqi", "flipchess", "four_player_chess"]) await visit(page, "/how-to/" + game, ".how-to li");
  for (const [name, id] of Object.entries(matches)) {
    await visit(page, "/matches/" + id, ".board .sq");
    if (name === "finished") assert.match(await page.textContent(".result"), /seoyeon 기권 — minjun 승리/, "the result in words");
    await L.shots(page, "ko-" + name);
  }
  // Every game's form: its variants, modes and setups by their names.
  await page.goto(BASE + "/new", { waitUntil: "networkidle" });
  for (const game of ["checkers", "janggi", "four_player_chess"]) {
    await page.selectOption("select[name=game]", game);
    for (const option of await page.$$eval("select[name=variant] option, .setups option", (o) => o.map((x) => x.textContent))) {
      assert.doesNotMatch(option, /[A-Za-z]{2,}/, `${game}: "${option}" in Korean`);
    }
  }
  // A refusal, told by the service in Korean and shown beside the form.
  const logged = errors.length;
  await page.fill("input[name=opponent]", "nobody_by_this_name");
  await page.click("form button[type=submit]");
  const said = await (await page.waitForSelector("form .error")).textContent();
  assert.match(said, /^문제가 생겼어요: [가-힣]/, `the refusal in Korean: ${said}`);
  assert.doesNotMatch(said, /[A-Za-z]{2,}/, said);
  assert.equal(await page.inputValue("input[name=opponent]"), "nobody_by_this_name", "what was typed is kept");
  // The browser logs the refused request itself: expected here.
  errors.splice(logged, errors.length - logged, ...errors.slice(logged).filter((e) => !/status of 4\d\d/.test(e)));
  await page.context().close();

  // In an English browser, signing in to the Korean account turns the
  // pages Korean at once.
  const english = await L.player(browser, errors, L.DESKTOP);
  await english.goto(BASE + "/signin");
  const signIn = english.locator("form").first();
  await signIn.locator("input[name=username]").fill("minjun");
  await signIn.locator("input[name=password]").fill("a long password");
  await signIn.locator("button[type=submit]").click();
  await english.waitForSelector(".challenges");
  assert.match(await english.textContent("nav"), /내 대국/, "Korean right after sign-in");
  await english.context().close();

  // Signed out, a Korean browser: the welcome and sign-in pages.
  const context = await browser.newContext({ viewport: L.DESKTOP, locale: "ko-KR" });
  const visitor = await context.newPage();
  visitor.on("pageerror", (e) => errors.push(String(e)));
  await visit(visitor, "/", ".welcome");
  await visit(visitor, "/signin", "form");
  await visit(visitor, "/forgot-password", "input[name=email]");
  await visit(visitor, "/reset-password#a-token-from-a-mail", "input[name=password]");
  await visit(visitor, "/account-deletion", "[data-page=account-deletion] li");
  await context.close();
}

module.exports = { everyPageInKorean, englishOn };
