// Issue #49 in the browser: the board on a phone as players judge it.
//  - Every game at 360×740 and 390×844, in Korean and English: the whole
//    board and the player's hand on the screen unscrolled, coordinates on
//    every board, a screenshot of each at 360×740 in both languages.
//  - A draw offer and a takeback request answered from their banner, in
//    sight, without scrolling; the status says what is asked.
//  - Resigning and withdrawing from a tournament ask first, with the cost.
//  - A checkers king told from a man by its name and by a crown of 3:1.
//  - The waiting count on the closed menu, unmoved by a computer match.
//  - Refusals name the box and the rule in Korean; hidden stays hidden.
//  - Time zones by country and city, this phone's first.
//  - Four-player chess invites three friends by three links.
//  - Table talk: a message live on the other phone, counted, a note kept.
//  - Live: a move made on one page appears on the other through the live
//    channel (long before the 10-s poll could bring it), and by polling
//    when the channel is cut; the creator waiting on the share page sees
//    the friend join.
// Run by play.cjs; alone with `WEB_TEST=tests/web/phone.cjs tests/web/run`
// (PHONE_CHECKS=formsSayWhatIsWrong,zonesByCountry: those checks only).
"use strict";
const L = require("./lib.cjs");

const { BASE, api, assert, started } = L;

/// A new account; every name here has the prefix "p49_" so that it meets
/// no other test's people in the shared database.
const account = (username, locale) => api("POST", "/v1/accounts", null, { username: "p49_" + username, password: "a long password", locale });
const legal = async (id, s) => (await api("GET", `/v1/matches/${id}/legal-actions`, s.access_token)).actions;
const seqOf = async (id, s) => (await api("GET", `/v1/matches/${id}`, s.access_token)).seq;
const SIZES = [{ width: 360, height: 740 }, { width: 390, height: 844 }];
const LANGS = ["ko", "en"];
/// Coordinates on each board: checkers' 32 numbers, else one per file and
/// one per rank.
const COORDINATES = { checkers: 32, flipchess: 8 + 8, janggi: 9 + 10, banqi: 8 + 4, four_player_chess: 14 + 14 };


/// The player of `players` who owes an action in `id`.
async function owing(id, players) {
  const owed = (a) => !["resign", "offer_draw", "grant_time"].includes(a.type);
  for (const p of players) if ((await legal(id, p)).some(owed)) return p;
  return players[0];
}

/// `session` signed in on a phone of `size`, in `lang` (the account's
/// language, as the app takes it at sign-in).
async function phone(browser, errors, session, lang, size, expected) {
  const page = await L.person(browser, errors, { locale: lang === "ko" ? "ko-KR" : "en-US", viewport: size, expected });
  await L.signIn(page, Object.assign({}, session, { user: Object.assign({}, session.user, { locale: lang }) }));
  return page;
}

/// Whether the element is wholly inside the viewport, the page not scrolled.
async function inView(page, selector) {
  return page.$eval(selector, (node) => {
    const box = node.getBoundingClientRect();
    return window.scrollY === 0 && box.top >= 0 && box.bottom <= window.innerHeight + 0.5 && box.height > 0;
  });
}

/// A started checkers match of `a` against `b`, and who moves first.
async function checkers(a, b) {
  const m = await api("POST", "/v1/matches", a.access_token, { game: "checkers", opponents: [b.user.username], turn_hours: 48 });
  await api("POST", `/v1/matches/${m.id}/accept`, b.access_token);
  const legal = await api("GET", `/v1/matches/${m.id}/legal-actions`, a.access_token);
  const first = legal.actions.some((x) => x.type === "move") ? a : b;
  return { id: m.id, mover: first, waiter: first === a ? b : a };
}

/// Click a legal move of `who` on `page` and confirm it; the time of the confirm.
async function clickMove(page, id, who) {
  const move = (await api("GET", `/v1/matches/${id}/legal-actions`, who.access_token)).actions.find((a) => a.type === "move");
  const [from, to] = move.move.match(/\d+/g);
  await page.click(`[data-square="${from}"]`);
  await page.click(`[data-square="${to}"]`);
  await page.waitForSelector(".confirm");
  // The move is drawn before it is confirmed: the piece on its square,
  // its start empty (issue #68 item 6).
  assert.ok(await page.$(`.sq.pending[data-square="${to}"] .piece`), "the piece drawn where it goes");
  assert.equal(await page.$(`.sq.pending-from[data-square="${from}"] .piece`), null, "its start emptied");
  // Said with the piece's name, not as a code.
  const said = await page.textContent(".confirm p");
  assert.ok(said.endsWith(` ${from} → ${to}`) && said.length > ` ${from} → ${to}`.length, `the confirm names the piece: ${said}`);
  const at = Date.now();
  await page.click(".confirm button:first-of-type");
  return at;
}

/// A FlipChess card on a Korean phone (issue #68 item 6): the first tap
/// raises it and puts its confirm, "빨강 7 내기", in the bar under the
/// board, nothing moving; a second tap on the card plays it.
async function cardBySecondTap(browser, errors) {
  const [ha, jo] = [await account("flip_ha", "ko"), await account("flip_jo", "ko")];
  const id = await started([ha, jo], { game: "flipchess" });
  // Whoever owes acts through the API until Ha has a plain card to play.
  const plain = (actions) => actions.find((a) => a.type === "play" && /-\d$/.test(a.card) && !a.last_card);
  for (let i = 0; !plain(await legal(id, ha)); i++) {
    const who = await owing(id, [ha, jo]);
    const acts = await legal(id, who);
    const action = ["play", "move", "end_turn", "draw"].map((type) => acts.find((a) => a.type === type)).find(Boolean);
    assert.ok(action && i < 60, "the match comes to a plain card for Ha");
    if (action.type === "play" && /^wild/.test(action.card) && !action.colour) action.colour = "red";
    await api("POST", `/v1/matches/${id}/actions`, who.access_token, { seq: await seqOf(id, who), action });
  }
  const card = plain(await legal(id, ha)).card;
  const page = await phone(browser, errors, ha, "ko", SIZES[0]);
  await L.openMatch(page, id);
  const where = () => page.evaluate(() => [window.scrollY, document.querySelector(".board").getBoundingClientRect().top]);
  const before = await where();
  const seq = await L.shownSeq(page);
  await page.click(`.hand [data-card="${card}"]`);
  await page.waitForSelector(`.flip-bar .card-button.raised[aria-pressed=true][data-card="${card}"]`);
  assert.deepEqual(await where(), before, "the board did not move: " + JSON.stringify([before, await where()]));
  const [colour, face] = card.split("-");
  const names = { red: "빨강", yellow: "노랑", green: "초록", blue: "파랑" };
  assert.equal(await page.textContent(".flip-bar .confirm p"), `${names[colour]} ${face} 내기`);
  assert.ok(await page.$eval(".flip-bar .confirm button", (b) => { const r = b.getBoundingClientRect(); return r.top >= 0 && r.bottom <= window.innerHeight; }), "the confirm in sight");
  assert.equal(await page.$(".now > .confirm"), null, "no second confirm below the pile");
  await L.sectionShot(page, ".flip-bar", "flipchess-card-raised-ko-360");
  await page.click(`.hand [data-card="${card}"]`);
  await page.waitForFunction((b) => Number(document.querySelector(".match-head")?.dataset.seq) > b, seq);
  const events = (await api("GET", `/v1/matches/${id}/events?after=${seq}`, ha.access_token)).events;
  assert.ok(events.some((e) => e.type === "card_played" && e.name === card), "the second tap played " + card);
  await page.context().close();
}

/// A reply planned on the match's own board on a Korean phone (issue #68
/// item 6): the board stays where it is, the plan's words under it name
/// the piece, and cancel gives the board back as it stands.
async function planOnTheBoard(browser, errors) {
  const { id, mover, waiter } = await checkers(await account("plan_ha", "ko"), await account("plan_jo", "ko"));
  const page = await phone(browser, errors, waiter, "ko", SIZES[0]);
  await L.openMatch(page, id);
  // Where the board is on the page, and whether its top is in sight.
  const board = () => page.$eval(".match-head .board", (b) => [b.getBoundingClientRect().top + window.scrollY, b.getBoundingClientRect().top >= 0]);
  const [top] = await board();
  await page.click("[data-action=plan_line]");
  await page.waitForSelector(".match-head .board.plan");
  assert.deepEqual(await board(), [top, true], "the plan is on the match's board, brought into sight");
  assert.ok(await page.$eval(".now [data-plan-step=theirs]", (p) => p.getBoundingClientRect().bottom <= window.innerHeight), "what to do is under the board, in sight");
  const theirs = (await legal(id, mover)).find((a) => a.type === "move");
  const [from, to] = theirs.move.match(/\d+/g);
  await page.click(`.board.plan [data-square="${from}"]`);
  await page.click(`.board.plan [data-square="${to}"]`);
  await page.waitForSelector("[data-plan-step=mine]");
  assert.equal(await page.textContent("[data-plan-step=mine]"), `상대가 흑 말 ${from} → ${to} 두면: 이제 내 응수를 누르세요.`);
  assert.ok(await page.$(`.board.plan [data-square="${to}"] .piece`), "their move drawn on the board");
  await page.click("[data-action=cancel_plan]");
  await page.waitForFunction(() => !document.querySelector(".board.plan"));
  assert.ok(await page.$(`.board [data-square="${from}"] .piece`), "the board as it stands again");
  await page.context().close();
}

/// A finished match's record saved from a Korean phone (issue #69): the
/// button says 기보 내려받기 and the file is the match's PDN.
async function recordDownloads(browser, errors) {
  const { id, mover, waiter } = await checkers(await account("rec_ha", "ko"), await account("rec_jo", "ko"));
  const move = (await legal(id, mover)).find((a) => a.type === "move");
  await api("POST", `/v1/matches/${id}/actions`, mover.access_token, { seq: await seqOf(id, mover), action: move });
  await api("POST", `/v1/matches/${id}/actions`, waiter.access_token, { seq: await seqOf(id, waiter), action: { type: "resign" } });
  const page = await phone(browser, errors, mover, "ko", SIZES[0]);
  await L.openMatch(page, id);
  const button = await page.waitForSelector("[data-action=download_record]");
  assert.equal((await button.textContent()).trim(), "기보 내려받기");
  const [download] = await Promise.all([page.waitForEvent("download"), button.click()]);
  assert.match(download.suggestedFilename(), /^posthorn-checkers-.*\.pdn$/);
  const text = require("fs").readFileSync(await download.path(), "utf8");
  assert.ok(text.includes("[GameType \"21\"]") && text.includes(move.move), text);
  await page.waitForSelector("[data-action=download_record] + [role=status]:not(:empty)");
  await page.context().close();
}

async function liveMoves(browser, errors) {
  const { id, mover, waiter } = await checkers(await account("lina"), await account("mato"));
  const [moving, watching] = [await L.player(browser, errors), await L.player(browser, errors)];
  await L.signIn(moving, mover);
  await L.signIn(watching, waiter);
  await L.openMatch(moving, id);
  await L.openMatch(watching, id);
  await watching.waitForFunction(() => document.body.dataset.live === "up");
  const before = await L.shownSeq(watching);
  const at = await clickMove(moving, id, mover);
  // The poll comes every 10 s: well before that, only the channel brings it.
  await watching.waitForFunction((b) => Number(document.querySelector(".match-head")?.dataset.seq) > b, before, { timeout: 3000 });
  const live = Date.now() - at;

  // Cut: a page whose channel is refused falls back to polling.
  const cut = await L.player(browser, errors);
  await cut.route("**/v1/matches/*/live", (r) => r.abort());
  await L.signIn(cut, mover);
  await L.openMatch(cut, id);
  const cutAt = await L.shownSeq(cut);
  await watching.waitForFunction((b) => document.querySelectorAll(".board button.sq:not([disabled])").length > 0
    && Number(document.querySelector(".match-head")?.dataset.seq) >= b, cutAt);
  await clickMove(watching, id, waiter);
  await cut.waitForFunction((b) => Number(document.querySelector(".match-head")?.dataset.seq) > b, cutAt, { timeout: 15000 });
  assert.equal(await cut.evaluate(() => document.body.dataset.live), "down", "the cut page never heard live");
  // The browser's own lines for the aborted streams are expected here.
  const kept = errors.filter((e) => !/live|ERR_FAILED/.test(e));
  errors.splice(0, errors.length, ...kept);
  for (const page of [moving, watching, cut]) await page.context().close();
  return live;
}

/// The creator, on the share page of a new invitation, sees the friend
/// join: the board opens by itself.
async function shareSeesJoin(browser, errors) {
  const [host, friend] = [await account("noor"), await account("omar")];
  const page = await L.player(browser, errors);
  await L.signIn(page, host);
  await page.goto(BASE + "/new");
  await page.selectOption("select[name=game]", "checkers");
  await page.click("form button[type=submit]");
  const link = await (await page.waitForSelector("input.share")).inputValue();
  await page.waitForFunction(() => document.body.dataset.live === "up");
  const code = link.split("/").pop();
  await api("POST", `/v1/invites/${code}/accept`, friend.access_token);
  await page.waitForURL(/\/matches\/[0-9a-f-]{36}$/, { timeout: 3000 });
  await page.waitForSelector(".board");
  await page.context().close();
}

/// Four-player chess invites three friends by link (issue #49 item 11):
/// three links on the share page, each opened by a friend in their own
/// browser; the creator reads who joined, and the board opens on the
/// third.
async function threeFriendsByLink(browser, errors) {
  const host = await account("hana", "ko");
  const page = await phone(browser, errors, host, "ko", SIZES[0]);
  await page.goto(BASE + "/new");
  await page.selectOption("select[name=game]", "four_player_chess");
  await page.click("form button[type=submit]");
  await page.waitForSelector("input.share");
  const links = await page.$$eval("input.share", (all) => all.map((i) => i.value));
  assert.equal(links.length, 3, "a link for each open seat");
  assert.equal(new Set(links).size, 3, "each link its own");
  for (const [n, name] of ["ines", "jun", "kai"].entries()) {
    const friend = await phone(browser, errors, await account(name, "ko"), "ko", SIZES[0]);
    await friend.goto(links[n]);
    await friend.click("[data-accept], main button[type=submit]");
    await friend.waitForURL(/\/matches\/[0-9a-f-]{36}$/);
    await friend.context().close();
    if (n < 2) await page.waitForFunction((who) => document.querySelector("[data-joined]").textContent.includes(who), "p49_" + name);
  }
  await page.waitForURL(/\/matches\/[0-9a-f-]{36}$/, { timeout: 3000 });
  await page.waitForSelector(".board");
  await page.context().close();
}

/// Every game's board (and FlipChess's hand) on the screen unscrolled at
/// both sizes and in both languages, with its coordinates.
async function boardsFit(browser, errors) {
  const people = [];
  for (const name of ["pia", "quin", "ravi", "suki"]) people.push(await account(name));
  const two = people.slice(0, 2);
  const games = {
    checkers: await started(two, { game: "checkers" }),
    flipchess: await started(two, { game: "flipchess" }),
    janggi: await started(two, { game: "janggi" }),
    banqi: await started(two, { game: "banqi" }),
    four_player_chess: await started(people, { game: "four_player_chess", mode: "teams" }),
  };
  for (const [game, id] of Object.entries(games)) {
    const who = await owing(id, game === "four_player_chess" ? people : two);
    for (const lang of LANGS) {
      for (const size of SIZES) {
        const page = await phone(browser, errors, who, lang, size);
        await L.openMatch(page, id);
        const where = `${game} at ${size.width}×${size.height} in ${lang}`;
        assert.ok(await inView(page, ".match-head .board"), `${where}: the whole board on the screen`);
        if (game === "flipchess") assert.ok(await inView(page, ".hand"), `${where}: the hand on the screen`);
        // Coordinates: checkers' numbers on its 32 squares, files and
        // ranks along two edges elsewhere.
        const coords = await page.$$eval(".match-head .board .num, .match-head .board .coord", (n) => n.map((x) => x.textContent));
        assert.equal(coords.length, COORDINATES[game], `${where}: coordinates ${coords.join(" ")}`);
        if (game === "banqi") assert.ok(await page.isVisible("[data-first-turn-up]"), `${where}: the first turn-up explained`);
        if (size.width === 360 && process.env.SHOTS) await page.screenshot({ path: `${process.env.SHOTS}/board-${game}-${lang}-360x740.png` });
        await page.context().close();
      }
    }
  }
}

/// A draw offer and a takeback request, each answered from its banner on
/// a 360×740 phone without scrolling; the status says what is asked, and
/// the one who asked sees it wait.
async function answersInTheBanner(browser, errors) {
  for (const lang of LANGS) {
    const [a, b] = [await account("tia" + lang, lang), await account("uwe" + lang, lang)];
    const id = await started([a, b], { game: "checkers", rated: false });
    const mover = await owing(id, [a, b]);
    const other = mover === a ? b : a;
    // The mover moves; the other offers a draw, off turn.
    const move = (await legal(id, mover)).find((x) => x.type === "move");
    await api("POST", `/v1/matches/${id}/actions`, mover.access_token, { seq: await seqOf(id, mover), action: move });
    await api("POST", `/v1/matches/${id}/actions`, mover.access_token, { seq: await seqOf(id, mover), action: { type: "offer_draw" } });
    const asked = await phone(browser, errors, other, lang, SIZES[0]);
    await L.openMatch(asked, id);
    await asked.waitForSelector("[data-offer=draw]");
    assert.ok(await inView(asked, "[data-offer=draw]"), lang + ": the draw offer in sight");
    assert.match(await asked.textContent(".match-head .status"), lang === "ko" ? /무승부 제안에 답하세요/ : /Answer the draw offer/);
    const offerer = await phone(browser, errors, mover, lang, SIZES[0]);
    await L.openMatch(offerer, id);
    assert.match(await offerer.textContent(".match-head .status"), lang === "ko" ? /무승부 제안이 답을 기다려요/ : /draw offer waits/);
    const before = await L.shownSeq(asked);
    await asked.click("[data-offer=draw] [data-action=decline_draw]");
    await asked.waitForFunction((b) => Number(document.querySelector(".match-head")?.dataset.seq) > b, before);
    assert.equal(await asked.evaluate(() => window.scrollY), 0, "never scrolled");
    const events = (await api("GET", `/v1/matches/${id}/events?after=${before}`, other.access_token)).events;
    assert.ok(events.some((e) => e.type === "draw_declined"), lang + ": declined from the banner");
    // The other moves; the mover asks to take it back, and the other
    // accepts from the banner.
    const reply = (await legal(id, other)).find((x) => x.type === "move");
    await api("POST", `/v1/matches/${id}/actions`, other.access_token, { seq: await seqOf(id, other), action: reply });
    await api("POST", `/v1/matches/${id}/takeback`, other.access_token, { seq: await seqOf(id, other) });
    await L.openMatch(offerer, id);
    await offerer.waitForSelector("[data-takeback=offered]");
    assert.ok(await inView(offerer, "[data-takeback=offered]"), lang + ": the takeback request in sight");
    assert.match(await offerer.textContent(".match-head .status"), lang === "ko" ? /무르기 요청에 답하세요/ : /Answer the takeback request/);
    const at = await L.shownSeq(offerer);
    await offerer.click("[data-takeback=offered] [data-action=take_back_accept]");
    await offerer.waitForFunction((b) => Number(document.querySelector(".match-head")?.dataset.seq) > b, at);
    assert.equal(await offerer.evaluate(() => window.scrollY), 0, "never scrolled");
    const after = (await api("GET", `/v1/matches/${id}/events?after=${at}`, other.access_token)).events;
    assert.ok(after.some((e) => e.type === "taken_back"), lang + ": taken back from the banner");
    // Resigning asks first, with its cost; cancelled, nothing happens.
    await offerer.click("[data-action=resign]");
    await offerer.waitForSelector(".ask");
    assert.match(await offerer.textContent(".ask"), lang === "ko" ? /되돌릴 수 없어요/ : /cannot be undone/);
    await offerer.click(".ask button.secondary");
    await offerer.waitForSelector("[data-action=resign]");
    await offerer.waitForTimeout(500);
    assert.equal((await api("GET", `/v1/matches/${id}`, other.access_token)).status, "active", "cancel resigns nothing");
    for (const page of [asked, offerer]) await page.context().close();
  }
}

/// Withdrawing from a started tournament asks first and names the cost;
/// only the second, explicit answer withdraws.
async function withdrawAsksFirst(browser, errors) {
  const [vic, wen, xan] = [await account("vic"), await account("wen"), await account("xan")];
  const cup = await api("POST", "/v1/tournaments", vic.access_token, { name: "Vic's cup", format: "round_robin", game: "checkers", players: [wen.user.username, xan.user.username], turn_hours: 48 });
  for (const p of [wen, xan]) await api("POST", `/v1/tournaments/${cup.id}/join`, p.access_token, {});
  await api("POST", `/v1/tournaments/${cup.id}/start`, vic.access_token, {});
  const page = await phone(browser, errors, wen, "en", SIZES[0]);
  await page.goto(BASE + "/tournaments/" + cup.id);
  await page.click("[data-action=tournament_withdraw]");
  await page.waitForSelector(".ask");
  assert.match(await page.textContent(".ask"), /Withdraw from Vic's cup\? Your \d+ unfinished matches in it end as losses/);
  assert.equal((await api("GET", `/v1/tournaments/${cup.id}`, wen.access_token)).my_state, "joined", "one tap withdrew nothing");
  await page.click(".ask [data-confirm=yes]");
  await page.waitForFunction(() => !document.querySelector(".ask"));
  for (let i = 0; i < 50 && (await api("GET", `/v1/tournaments/${cup.id}`, wen.access_token)).my_state === "joined"; i++) await page.waitForTimeout(100);
  assert.notEqual((await api("GET", `/v1/tournaments/${cup.id}`, wen.access_token)).my_state, "joined", "withdrawn when confirmed");
  await page.context().close();
}

/// WCAG's contrast ratio of two CSS colours.
function contrast(a, b) {
  const lum = (css) => {
    const [r, g, b2] = css.match(/[\d.]+/g).slice(0, 3).map(Number).map((v) => {
      const c = v / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b2;
  };
  const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}

/// A checkers king is told from a man by its accessible name and by a
/// crown of at least 3:1 against its disc, for both colours.
async function kingsStandOut(browser, errors) {
  const [xia, yan] = [await account("xia"), await account("yan")];
  const id = await started([xia, yan], { game: "checkers", rated: false, options: { position: "B:W21,22,K30:B1,2,K9" } });
  const page = await phone(browser, errors, xia, "en", SIZES[0]);
  await L.openMatch(page, id);
  for (const [square, colour] of [["30", "White"], ["9", "Black"]]) {
    const king = `[data-square="${square}"]`;
    assert.match(await page.getAttribute(king, "aria-label"), new RegExp(`${colour} king`));
    const [crown, disc] = await page.$eval(king + " .piece", (p) => [getComputedStyle(p).color, getComputedStyle(p).backgroundColor]);
    assert.ok(contrast(crown, disc) >= 3, `${colour} king's crown ${crown} on ${disc}: ${contrast(crown, disc).toFixed(2)}`);
    assert.ok((await page.textContent(king + " .piece")).includes("♛"), "a crown");
  }
  for (const square of ["21", "1"]) {
    assert.match(await page.getAttribute(`[data-square="${square}"]`, "aria-label"), /man/);
    assert.equal((await page.textContent(`[data-square="${square}"] .piece`)).trim(), "", "a man has no crown");
  }
  await page.context().close();
}

/// The waiting count on the closed menu of a phone: a move owed to a
/// person counts, a computer match waiting on me does not.
async function countOnTheMenu(browser, errors) {
  const [zoe, abe] = [await account("zoe"), await account("abe")];
  const id = await started([abe, zoe], { game: "checkers" });
  if ((await owing(id, [abe, zoe])) !== zoe) {
    const move = (await legal(id, abe)).find((x) => x.type === "move");
    await api("POST", `/v1/matches/${id}/actions`, abe.access_token, { seq: await seqOf(id, abe), action: move });
  }
  const page = await phone(browser, errors, zoe, "en", SIZES[0]);
  await page.goto(BASE + "/");
  await page.waitForSelector("[data-menu-badge].on");
  assert.ok(await page.isVisible("[data-menu-badge]"), "on the closed menu's button");
  assert.equal(await page.textContent("[data-menu-badge]"), "1");
  // A computer match where it is my move (seat 0 plays Black, who starts).
  await api("POST", "/v1/matches", zoe.access_token, { game: "checkers", computers: [{ level: "easy" }], side: 0 });
  await page.goto(BASE + "/");
  await page.waitForSelector("[data-menu-badge].on");
  assert.equal(await page.textContent("[data-menu-badge]"), "1", "the computer waits on nobody");
  // The menu's count can be drawn before the list (CI saw an empty main).
  await page.waitForFunction(() => document.querySelectorAll("main h2").length >= 2);
  const headings = await page.$$eval("main h2", (h) => h.map((x) => x.textContent));
  // Then the daily puzzles (issue #52).
  assert.deepEqual(headings, ["Matches with people", "Against the computer", "Daily puzzle"]);
  await page.context().close();
}

/// At a table of four, the moves the other armies made since mine read
/// as one line (issue #49 item 11).
async function sinceMyMove(browser, errors) {
  const people = [];
  for (const name of ["bea", "cyd", "dov", "eli"]) people.push(await account(name));
  const id = await started(people, { game: "four_player_chess", mode: "ffa" });
  let first = null;
  for (let ply = 0; ply < 4; ply++) {
    const who = await owing(id, people);
    first = first || who;
    const move = (await legal(id, who)).find((a) => a.type === "move");
    await api("POST", `/v1/matches/${id}/actions`, who.access_token, { seq: await seqOf(id, who), action: move });
  }
  const page = await phone(browser, errors, first, "en", SIZES[0]);
  await L.openMatch(page, id);
  const line = await page.textContent("[data-since-mine]");
  assert.match(line, /^Since your move: \w+ \S+ · \w+ \S+ · \w+ \S+$/, line);
  await page.context().close();
}

/// The form's words after its submit: what it says went wrong.
async function refusedWith(page, form) {
  await form.locator("button[type=submit]").click();
  const said = form.locator("p.error[role=alert]");
  await said.waitFor();
  return said.textContent();
}

/// Each refusal names the box and the rule, in the page's language
/// (issue #49 item 9): the service names the field and the rule, the page
/// says them; an element marked hidden is never shown.
async function formsSayWhatIsWrong(browser, errors) {
  const taken = await account("taken", "ko");
  const expected = /status of (401|409|422)/;
  const page = await L.person(browser, errors, { locale: "ko-KR", viewport: SIZES[0], expected });
  await page.goto(BASE + "/signin");
  const up = page.locator("form").nth(1);
  await up.locator("input[name=username]").fill("p49_taken");
  await up.locator("input[name=password]").fill("a long password");
  assert.match(await refusedWith(page, up), /: 아이디: 다른 계정이 이미 쓰고 있어요\.$/);
  const guest = page.locator("form").nth(2);
  await guest.locator("input[name=nickname]").fill("P49_TAKEN");
  assert.match(await refusedWith(page, guest), /: 별명: 다른 플레이어의 이름과 너무 비슷해요\. 다른 이름을 고르세요\.$/);
  await L.signIn(page, taken);
  await page.goto(BASE + "/settings");
  const password = page.locator("form", { has: page.locator("input[name=current_password]") });
  await password.locator("input[name=current_password]").fill("not my password");
  await password.locator("input[name=new_password]").fill("another long password");
  assert.match(await refusedWith(page, password), /: 현재 비밀번호: 맞지 않아요\.$/);
  for (const path of ["/settings", "/leaderboards/checkers/american", "/"]) {
    await page.goto(BASE + path);
    await page.waitForLoadState("networkidle");
    const shown = await page.$$eval("[hidden]", (all) => all.filter((n) => getComputedStyle(n).display !== "none").map((n) => n.outerHTML.slice(0, 80)));
    assert.deepEqual(shown, [], path);
  }
  await page.context().close();
}

/// Time zones by country and city in the page's language (issue #49 item
/// 10), this phone's zone first.
async function zonesByCountry(browser, errors) {
  const zia = await account("zia", "ko");
  for (const [lang, seoul, york] of [["ko", /^대한민국 · 서울 · 한국 표준시 \(UTC\+09:00\)$/, /^미국 · 뉴욕 · /], ["en", /^South Korea · Seoul · Korean Standard Time \(UTC\+09:00\)$/, /^United States · New York · /]]) {
    const page = await phone(browser, errors, zia, lang, SIZES[0]);
    await page.goto(BASE + "/settings");
    await page.waitForSelector("select[name=time_zone]");
    const options = await page.$$eval("select[name=time_zone] option", (all) => all.map((o) => [o.value, o.textContent]));
    assert.equal(options[0][0], "Asia/Seoul", "this phone's zone first");
    assert.match(options[0][1], seoul);
    assert.match(options.find(([v]) => v === "America/New_York")[1], york);
    const unnamed = options.filter(([v, text]) => v.includes("/") && !v.startsWith("Etc/") && !/ · /.test(text));
    assert.deepEqual(unnamed, [], "every city's zone has its country");
    await page.context().close();
  }
}

/// Table talk (issue #50) on a 360×740 phone, one player in Korean and
/// one in English: the drawer under the board leaves the board in view;
/// a message sent on one page appears on the other's open drawer live,
/// and a closed drawer counts it; my note stays across a reload.
async function talkAtTheTable(browser, errors) {
  const [mina, olly] = [await account("mina", "ko"), await account("olly", "en")];
  const id = await started([mina, olly], { game: "checkers" });
  // The refused message below is logged by the browser: expected.
  const [ko, en] = [await phone(browser, errors, mina, "ko", SIZES[0], /status of 4\d\d/), await phone(browser, errors, olly, "en", SIZES[0])];
  for (const page of [ko, en]) await L.openMatch(page, id);
  assert.ok(await inView(ko, ".board"), "the talk covers no board");
  assert.match(await ko.textContent("[data-talk] summary h2"), /^대화/);
  await en.click("[data-talk] summary");
  await en.waitForSelector("[data-talk] .messages li");
  await ko.click("[data-talk] summary");
  await ko.fill("[data-talk] input[name=text]", "잘 부탁해요!");
  await ko.click("[data-talk] .talk-write button[type=submit]");
  await ko.waitForSelector("[data-talk] li[data-message] .text");
  await en.waitForFunction(() => [...document.querySelectorAll("[data-talk] .text")].some((n) => n.textContent === "잘 부탁해요!"), null, { timeout: 3000 });
  // Closed, the drawer counts what is new.
  await en.click("[data-talk] summary");
  await ko.fill("[data-talk] input[name=text]", "두 번째");
  await ko.click("[data-talk] .talk-write button[type=submit]");
  await en.waitForFunction(() => document.querySelector("[data-talk-unread]").textContent === "1" && !document.querySelector("[data-talk-unread]").hidden, null, { timeout: 3000 });
  // And my matches say it.
  await en.goto(BASE + "/");
  assert.equal(await (await en.waitForSelector(`a[href="/matches/${id}"] [data-unread-messages]`)).textContent(), " · new messages: 1");
  await L.openMatch(en, id);
  // A refused message named with its box, in Korean.
  await ko.fill("[data-talk] input[name=text]", "   ");
  await ko.click("[data-talk] .talk-write button[type=submit]");
  assert.match(await (await ko.waitForSelector("[data-talk] .talk-write .error:not([hidden])")).textContent(), /메시지: 한 줄에 1–500자\.$/);
  // My note, kept.
  await ko.fill("[data-note] textarea", "왼쪽이 약하다");
  await ko.click("[data-note] button[type=submit]");
  await ko.waitForFunction(() => document.querySelector("[data-note] .saved").textContent.length > 0);
  await ko.reload();
  await ko.waitForSelector(".board");
  await ko.click("[data-talk] summary");
  await ko.waitForFunction(() => document.querySelector("[data-note] textarea").value === "왼쪽이 약하다");
  await L.shots(ko, "talk-ko-360x740");
  for (const page of [ko, en]) await page.context().close();
}

/// At a table of teams (issue #68 item 6): two talk tabs, 모두 and 우리
/// 팀; what is sent goes to the tab in sight, the send button names it,
/// and the tab stays where the player put it.
async function talkToMyTeam(browser, errors) {
  const four = [];
  for (const name of ["tmA", "tmB", "tmC", "tmD"]) four.push(await account(name, "ko"));
  const id = await started(four, { game: "four_player_chess", mode: "teams" });
  const page = await phone(browser, errors, four[0], "ko", SIZES[0]);
  await L.openMatch(page, id);
  await page.click("[data-talk] summary");
  await page.waitForSelector("[data-talk] .talk-tabs:not([hidden])");
  const selected = () => page.$eval("[data-talk] [role=tab][aria-selected=true]", (b) => b.textContent);
  const button = () => page.textContent("[data-talk] .talk-write button[type=submit]");
  assert.equal(await selected(), "모두");
  assert.equal(await button(), "보내기");
  for (const tab of await page.$$("[data-talk] [role=tab]")) {
    const box = await tab.boundingBox();
    assert.ok(box.height >= 44, "a tab is a 44-px target");
  }
  await page.click("[data-talk] [role=tab][data-channel=team]");
  assert.equal(await selected(), "우리 팀");
  assert.equal(await button(), "우리 팀에게 보내기");
  await page.fill("[data-talk] input[name=text]", "왼쪽을 맡을게");
  await page.click("[data-talk] .talk-write button[type=submit]");
  await page.waitForSelector("[data-talk] li[data-message][data-team=true]:not([hidden]) .text");
  // The tab stays: the next message still goes to the team, as in sight.
  assert.equal(await selected(), "우리 팀");
  assert.equal(await button(), "우리 팀에게 보내기");
  await page.click("[data-talk] [role=tab][data-channel=all]");
  assert.equal(await button(), "보내기");
  assert.equal(await page.$$eval("[data-talk] li[data-message]:not([hidden])", (l) => l.length), 0, "the team's word is not in the table's tab");
  await page.fill("[data-talk] input[name=text]", "잘 부탁해요");
  await page.click("[data-talk] .talk-write button[type=submit]");
  await page.waitForSelector("[data-talk] li[data-message][data-team=false]:not([hidden]) .text");
  // Who heard what: the partner both, the two opponents the greeting only.
  const heard = [];
  for (const other of four.slice(1)) {
    const items = (await api("GET", `/v1/matches/${id}/messages`, other.access_token)).items;
    heard.push(items.map((m) => m.text).sort().join(" | "));
  }
  assert.deepEqual(heard.sort(), ["잘 부탁해요", "잘 부탁해요", "왼쪽을 맡을게 | 잘 부탁해요"].sort(), "one partner heard the team");
  await L.shots(page, "talk-team-ko-360x740");
  await page.context().close();
}

/// A tournament's room (issue #50 item 2): a Korean phone writes, an
/// English one reads it on opening the drawer; no mute and no note there.
async function talkInTheTournament(browser, errors) {
  const [yuna, zed] = [await account("yuna", "ko"), await account("zed", "en")];
  const cup = await api("POST", "/v1/tournaments", yuna.access_token, { name: "Yuna's cup", format: "round_robin", game: "checkers", players: [zed.user.username], turn_hours: 48 });
  await api("POST", `/v1/tournaments/${cup.id}/join`, zed.access_token, {});
  const [ko, en] = [await phone(browser, errors, yuna, "ko", SIZES[0]), await phone(browser, errors, zed, "en", SIZES[0])];
  for (const page of [ko, en]) await page.goto(BASE + "/tournaments/" + cup.id);
  await ko.click("[data-talk] summary");
  assert.match(await ko.textContent("[data-talk] summary h2"), /^대화/);
  await ko.fill("[data-talk] input[name=text]", "다들 잘 부탁해요");
  await ko.click("[data-talk] .talk-write button[type=submit]");
  await ko.waitForSelector("[data-talk] li[data-message] .text");
  await en.click("[data-talk] summary");
  await en.waitForFunction(() => [...document.querySelectorAll("[data-talk] .text")].some((n) => n.textContent === "다들 잘 부탁해요"), null, { timeout: 3000 });
  assert.equal(await en.$("[data-talk] [data-mute]"), null, "no mute in a room");
  assert.equal(await en.$("[data-talk] [data-note]"), null, "no note in a room");
  await L.shots(en, "tournament-talk-en-360x740");
  for (const page of [ko, en]) await page.context().close();
}

/// Reporting a message and a moderator acting on it (issue #50 item 6):
/// the reporter on a Korean phone, the moderator (granted by the binary's
/// command, never by the API) on an English one; the hidden message is
/// said so on the reporter's table.
async function reportAndModerate(browser, errors) {
  const [rae, sam, mo] = [await account("rae", "ko"), await account("sam", "en"), await account("mo", "en")];
  const id = await started([rae, sam], { game: "checkers" });
  await api("POST", `/v1/matches/${id}/messages`, sam.access_token, { text: "you are slow" });
  const granted = require("child_process").spawnSync(process.env.POSTHORN_BIN || "target/debug/posthorn", ["moderator", "grant", mo.user.username],
    { env: Object.assign({}, process.env, { RUST_LOG: "warn" }), encoding: "utf8" });
  assert.equal(granted.status, 0, granted.stderr);
  const ko = await phone(browser, errors, rae, "ko", SIZES[0]);
  await L.openMatch(ko, id);
  await ko.click("[data-talk] summary");
  await ko.click("[data-talk] [data-report]");
  assert.match(await ko.textContent("[data-talk] .report-form"), /신고 이유/);
  await ko.click("[data-talk] .report-form button[type=submit]");
  await ko.waitForFunction(() => (document.querySelector("[data-talk] .report [role=status]") || {}).textContent === "신고했어요. 운영자가 확인할 거예요.");
  const en = await phone(browser, errors, mo, "en", SIZES[0]);
  await en.goto(BASE + "/settings");
  await en.click("a[href='/moderation']");
  const card = await en.waitForSelector("[data-report]");
  assert.match(await card.textContent(), new RegExp("you are slow.*Insults or threats.*reported by " + rae.user.display_name, "s"));
  await en.click("[data-report] [data-mod=mod_hide]");
  assert.equal(await en.textContent("[data-report] [role=status]"), "", "nothing done without a why");
  await en.fill("[data-report] input[name=why]", "rude");
  await en.click("[data-report] [data-mod=mod_hide]");
  await en.waitForFunction(() => document.querySelector("[data-report] [role=status]").textContent === "Done.");
  await L.shots(en, "moderation-en-360x740");
  await ko.reload();
  await ko.waitForSelector(".board");
  await ko.click("[data-talk] summary");
  await ko.waitForFunction(() => [...document.querySelectorAll("[data-talk] em")].some((n) => n.textContent === "(운영자가 가린 메시지)"));
  for (const page of [ko, en]) await page.context().close();
}

/// Issue #51: the settings page lists the phone apps that get my
/// notifications, in Korean on a 360-px phone, and stops one in a tap.
async function appsInSettings(browser, errors) {
  const ana = await account("ana", "ko");
  const token = "ab".repeat(32);
  const made = await api("POST", "/v1/devices", ana.access_token, { platform: "ios", token, locale: "ko-KR" });
  assert.equal(made.platform, "ios");
  const page = await phone(browser, errors, ana, "ko", SIZES[0]);
  await page.goto(BASE + "/settings");
  const card = await page.waitForSelector("[data-app-devices]");
  assert.match(await card.textContent(), /휴대폰 앱[\s\S]*아이폰 또는 아이패드/);
  assert.ok(!(await card.textContent()).includes(token), "the token is never shown");
  if (process.env.SHOTS) await card.screenshot({ path: `${process.env.SHOTS}/settings-apps-listed-ko-360.png` });
  await page.click(`[data-app-device="${made.id}"] [data-action=remove_app_device]`);
  await page.waitForFunction(() => /이제 그 앱에는 알림이 가지 않아요/.test(document.querySelector("[data-app-devices]").textContent));
  assert.deepEqual((await api("GET", "/v1/devices", ana.access_token)).devices, []);
  if (process.env.SHOTS) await page.screenshot({ path: `${process.env.SHOTS}/settings-apps-ko-360.png` });
  await page.context().close();
}

/// Puzzles (issue #52) on a 360×740 phone in Korean: the daily puzzle
/// from the home page, a wrong move explained and not played, then the
/// line solved by taps, the solution shown. The puzzles are the sets
/// shipped with the rules, kept by the binary as it starts: its import
/// command then finds nothing new.
async function puzzlesByTaps(browser, errors) {
  const bin = process.env.POSTHORN_BIN || "target/debug/posthorn";
  const env = Object.assign({}, process.env, { DATABASE_URL: process.env.DATABASE_URL, POSTHORN_DATA_DIR: process.env.DATA_DIR });
  const imported = require("child_process").spawnSync(bin, ["puzzles", "import", "rules/puzzles/checkers.jsonl"], { env, encoding: "utf8" });
  assert.equal(imported.status, 0, imported.stderr);
  assert.match(imported.stdout, /^0 new puzzles/, imported.stdout);
  const pia = await account("puzzler", "ko");
  const page = await phone(browser, errors, pia, "ko", SIZES[0]);
  // By its address, as a shared link opens it, then from the home page.
  await page.goto(BASE + "/puzzles/checkers/daily");
  await page.waitForSelector(".puzzle-status[data-state=playing]");
  await page.goto(BASE + "/");
  await page.click(".daily-puzzles a[href='/puzzles/checkers/daily']");
  await page.waitForSelector(".puzzle-status[data-state=playing]");
  assert.match(await page.textContent("h1"), /^오늘의 퍼즐 · 체커 · 미국식$/, "a new player's daily is American checkers, named");
  const puzzle = await api("GET", "/v1/puzzles/daily?game=checkers", pia.access_token);
  const line = JSON.parse(require("child_process").execFileSync("psql", [process.env.DATABASE_URL, "-tAc", `SELECT line FROM puzzles WHERE id = '${puzzle.id}'`], { encoding: "utf8" }));
  const squares = (a) => a.move.match(/\d+/g);
  // Two capture routes between the same squares are picked by their path
  // after the taps, as a match page asks.
  const tapMove = async (a) => {
    const s = squares(a);
    await page.click(`[data-square="${s[0]}"]`);
    await page.click(`[data-square="${s[s.length - 1]}"]`);
    const route = await page.$(`.picker [data-move="${a.move}"]`);
    if (route) await route.click();
  };
  const right = squares(line[0].action);
  const wrong = puzzle.legal.find((a) => { const s = squares(a); return s[0] !== right[0] || s[s.length - 1] !== right[right.length - 1]; });
  assert.ok(wrong, "another legal move");
  await tapMove(wrong);
  await page.waitForFunction(() => /그 수가 아니에요/.test(document.querySelector(".puzzle-status").textContent));
  assert.equal(await page.$(".solution"), null, "no solution shown after a wrong move");
  // The miss counted: the rating change is said at once.
  await page.waitForSelector(".puzzle-change");
  assert.match(await page.textContent(".puzzle-change"), /^내 퍼즐 등급: \d+ → \d+ \(−\d+\)$/);
  await L.shots(page, "puzzle-wrong-ko");
  // Each of my moves waits for the service's answer to it (a reply may
  // mark the same squares as the one before it).
  for (const step of line.filter((s) => s.seat === puzzle.seat)) {
    const answered = page.waitForResponse((r) => r.request().method() === "POST" && /\/v1\/puzzles\/[^/]+\/moves$/.test(new URL(r.url()).pathname));
    await tapMove(step.action);
    const said = await (await answered).json();
    assert.notEqual(said.verdict, "not_the_move", "the line's move " + step.action.move);
  }
  await page.waitForSelector(".puzzle-status[data-state=solved]");
  assert.match(await page.textContent(".puzzle-status"), /풀었어요/);
  assert.equal(await page.$$eval(".solution li", (n) => n.length), line.length, "the whole line shown once solved");
  await L.shots(page, "puzzle-solved-ko");
  // FlipChess's "win this turn": the hand under the board, the card and
  // the moves by taps, the opponent's cards never on the page.
  const fc = require("child_process").spawnSync(bin, ["puzzles", "import", "rules/puzzles/flipchess.jsonl"], { env, encoding: "utf8" });
  assert.equal(fc.status, 0, fc.stderr);
  await page.goto(BASE + "/puzzles/flipchess");
  await page.waitForSelector(".puzzle-status[data-state=playing] ~ .flip .card-button");
  assert.match(await page.textContent(".puzzle-status"), /이번 차례에 이기세요/);
  const turn = await api("GET", "/v1/puzzles/next?game=flipchess", pia.access_token);
  const turnLine = JSON.parse(require("child_process").execFileSync("psql", [process.env.DATABASE_URL, "-tAc", `SELECT line FROM puzzles WHERE id = '${turn.id}'`], { encoding: "utf8" }));
  for (const { action } of turnLine) {
    const before = await page.$$eval(".board .piece", (n) => n.map((x) => x.parentNode.dataset.square + x.textContent).join());
    if (action.type === "play") {
      await page.click(`.card-button[data-card="${action.card}"]`);
      if (action.colour) await page.click(`[data-colour="${action.colour}"]`);
      await page.waitForFunction(() => !document.querySelector(".card-button:not([disabled])") || document.querySelector(".puzzle-status[data-state=solved]"));
      continue;
    }
    const [from, to] = action.move.match(/[a-h][1-8]/g);
    await page.click(`[data-square="${from}"]`);
    await page.click(`[data-square="${to}"]`);
    if (action.move.length > 4) await page.click(`.picker button:text-is("${action.move}")`);
    await page.waitForFunction((b) => document.querySelector(".puzzle-status[data-state=solved]") || [...document.querySelectorAll(".board .piece")].map((x) => x.parentNode.dataset.square + x.textContent).join() !== b, before);
  }
  await page.waitForSelector(".puzzle-status[data-state=solved]");
  await L.shots(page, "puzzle-flipchess-solved-ko");
  // Every game's puzzles from the menu's page, with my rating and streak.
  await page.goto(BASE + "/puzzles");
  await page.waitForSelector(".puzzle-games li");
  assert.equal(await page.$$eval(".puzzle-games li", (n) => n.length), 5);
  const checkers = await page.$eval(".puzzle-games li", (li) => [li.querySelector("h2").textContent, li.querySelector(".muted").textContent,
    [...li.querySelectorAll("a.button")].map((a) => a.textContent + " " + Math.round(a.getBoundingClientRect().height))]);
  assert.equal(checkers[0], "체커");
  assert.match(checkers[1], /^내 등급 \d+ · 연속 1일$/);
  assert.deepEqual(checkers[2], ["오늘의 퍼즐 44", "다음 퍼즐 44"], "each game's two puzzles as 44-px buttons");
  await page.context().close();
}

/// First steps (issue #52): every step of every game completed by taps in
/// Korean on a 360-px phone, opened from each game's how-to page; a legal
/// move a step does not teach, and conceding a king a flip can save, are
/// explained and not played; the progress is kept (a reload shows every
/// step done) and the steps can be replayed.
const LESSON_TAPS = {
  flipchess: [
    ["card:yellow-2", "c3", "d5"],
    ["card:red-7", "a5", "a6", "a6", "a7", "a7", "a8", "choice:a7a8q"],
    ["card:wild", "colour:blue", "b1", "b4"],
    ["card:green-flip"],
    ["wrong:action:concede", "action:free_flip"],
    ["card:red-2", "e2", "e3"],
    ["card:green-3", "e1", "e8"],
  ],
  checkers: [["22", "15"], ["30", "14"], ["5", "1"]],
  janggi: [["wrong:a1", "wrong:a2", "a1", "a4"], ["b1", "b6"], ["b1", "b10"]],
  banqi: [["a4"], ["a1", "a2"], ["a1", "a4"]],
  four_player_chess: [["d1", "d10"], ["e7", "e8"]],
};

/// Tap `what` on a lesson's board: a square, or `kind:name` (a card, a
/// colour, an action's button, a promotion choice).
function tapper(page) {
  return async (what) => {
    const [kind, name] = what.includes(":") ? what.split(/:(.*)/) : ["square", what];
    const selector = {
      square: `.board [data-square="${name}"]:not([disabled])`,
      card: `.card-button[data-card="${name}"]:not([disabled])`,
      colour: `[data-colour="${name}"]`,
      action: `button[data-action="${name}"]`,
      choice: `.picker button[data-move="${name}"]`,
    }[kind];
    await page.click(selector);
  };
}

async function lessonsByTaps(browser, errors) {
  const pupil = await account("pupil", "ko");
  const page = await phone(browser, errors, pupil, "ko", SIZES[0]);
  const tap = tapper(page);
  for (const [game, steps] of Object.entries(LESSON_TAPS)) {
    await page.goto(BASE + "/how-to/" + game);
    await page.click(`a[href="/learn/${game}"]`);
    for (const [i, taps] of steps.entries()) {
      await page.waitForSelector(`.lesson .lesson-status[data-verdict=playing]`);
      assert.equal(await page.$$eval(".lesson-steps li", (n) => n.findIndex((x) => x.classList.contains("current"))), i, game + " step " + (i + 1));
      const wrong = taps.filter((x) => x.startsWith("wrong:")).map((x) => x.slice(6));
      for (const what of wrong) await tap(what);
      if (wrong.length) {
        await page.waitForSelector(".lesson-status[data-verdict=not_this_way]");
        assert.match(await page.textContent(".lesson-status"), /이번엔 아니에요/);
        await L.shots(page, "lesson-wrong-" + game + "-ko");
      }
      for (const what of taps.filter((x) => !x.startsWith("wrong:"))) await tap(what);
      await page.waitForSelector(".lesson-status[data-verdict=done]");
      assert.match(await page.textContent(".lesson-status"), /잘했어요/);
      if (i + 1 < steps.length) await page.click("[data-next]");
    }
    await page.waitForSelector("[data-finished]");
    if (game === "flipchess") await L.shots(page, "lesson-done-flipchess-ko");
    // Kept: a reload shows every step done; the how-to page replays them.
    await page.goto(BASE + "/learn/" + game);
    await page.waitForSelector(".lesson-steps li");
    assert.equal(await page.$$eval(".lesson-steps li.done", (n) => n.length), steps.length, game + ": every step kept as done");
  }
  await page.context().close();
}

/// A visitor on a Korean phone (docs/lessons.md, "A visitor"): the first
/// Janggi step played from its how-to page with no account, and no
/// account or guest made for it; the welcome page's sign-up link lands on
/// the sign-up form; signed up, the step is the new account's.
async function visitorFirstStep(browser, errors) {
  // An address of its own: sign-ups are limited per address.
  const page = await L.person(browser, errors, { locale: "ko-KR", viewport: SIZES[0] });
  const users = () => Number(require("child_process").execFileSync("psql", [process.env.DATABASE_URL, "-tAc", "SELECT count(*) FROM users"], { encoding: "utf8" }).trim());
  const before = users();
  await page.goto(BASE + "/how-to/janggi");
  await page.click(`a[href="/learn/janggi"]`);
  await page.waitForSelector(".lesson .lesson-status[data-verdict=playing]");
  assert.match(await page.textContent("[data-visitor]"), /방문자로 배우는 중/);
  const tap = tapper(page);
  for (const what of LESSON_TAPS.janggi[0].filter((x) => !x.startsWith("wrong:"))) await tap(what);
  await page.waitForSelector(".lesson-status[data-verdict=done]");
  await page.goto(BASE + "/learn/janggi");
  await page.waitForSelector(".lesson-steps li");
  assert.equal(await page.$$eval(".lesson-steps li.done", (n) => n.length), 1, "kept on the device");
  assert.equal(users(), before, "no account or guest made for a visitor");
  await L.shots(page, "lesson-visitor-ko");
  // The welcome page's "sign up and play a friend" lands on the form.
  await page.goto(BASE + "/");
  await page.click(`a[href="/signin#up"]`);
  await page.waitForSelector("form#up input[name=username]");
  const top = await page.$eval("form#up", (f) => f.getBoundingClientRect().top);
  assert.ok(top > -2 && top < 370, "the sign-up form in the upper half of the screen, not below the sign-in form: " + top);
  assert.ok(await page.$eval("form#up input[name=username]", (i) => document.activeElement === i));
  await page.fill("form#up input[name=username]", "visitor1");
  await page.fill("form#up input[name=password]", "a long password");
  await page.click("form#up button[type=submit]");
  await page.waitForURL((url) => !url.pathname.startsWith("/signin"));
  await page.waitForSelector("[data-start-here]");
  const token = await L.tokenOf(page);
  let steps = [];
  for (let i = 0; i < 50 && !(steps[0] && steps[0].done); i++) {
    steps = (await api("GET", "/v1/lessons/janggi", token)).steps;
    if (!steps[0].done) await page.waitForTimeout(100);
  }
  assert.equal(steps[0].done, true, "the visitor's step is the new account's");
  assert.equal(await page.evaluate(() => localStorage.getItem("posthorn.lessons")), null, "and no longer kept on the device");
  // The empty home offers first steps and today's puzzles as buttons.
  for (const box of await page.$$eval("[data-start-here], .daily-puzzles a", (n) => n.map((a) => a.getBoundingClientRect().height))) {
    assert.ok(box >= 44, "a 44-px target: " + box);
  }
  await L.shots(page, "home-empty-ko");
  await page.context().close();
}

/// Every check of this file, each said as it passes.
async function all(browser, errors) {
  await boardsFit(browser, errors);
  console.log("phone: every board and the FlipChess hand on a 360×740 and a 390×844 screen unscrolled, in Korean and English, with coordinates; screenshots at 360×740");
  await answersInTheBanner(browser, errors);
  console.log("phone: a draw offer and a takeback request answered from their banners unscrolled, the status saying what was asked; resigning asked first");
  await withdrawAsksFirst(browser, errors);
  console.log("phone: withdrawing from a tournament asked first, with its cost");
  await kingsStandOut(browser, errors);
  console.log("phone: checkers kings named and crowned at 3:1 or more against their discs");
  await sinceMyMove(browser, errors);
  console.log("phone: at a table of four, the other armies' moves since mine in one line");
  await countOnTheMenu(browser, errors);
  console.log("phone: the waiting count on the closed menu, unmoved by a computer match; my matches split by opponent");
  const live = await liveMoves(browser, errors);
  console.log(`live: a move on the other page ${live} ms after its confirm, through the live channel; by polling with the channel cut`);
  await formsSayWhatIsWrong(browser, errors);
  console.log("phone: a taken username, a look-alike nickname and a wrong current password each named with their box in Korean; hidden stays hidden");
  await zonesByCountry(browser, errors);
  console.log("phone: time zones named by country and city in Korean and English, this phone's first");
  await shareSeesJoin(browser, errors);
  console.log("live: the creator on the share page saw the friend join");
  await talkAtTheTable(browser, errors);
  console.log("talk: a message from a Korean phone appeared live on an English one, counted while its drawer was closed; a refusal named its box; my note kept across a reload");
  await talkToMyTeam(browser, errors);
  console.log("talk: at a table of teams, a Korean phone wrote to its team from the 우리 팀 tab (the button named it, the tab stayed) and to the table from 모두; the partner heard both, the opponents the greeting only");
  await talkInTheTournament(browser, errors);
  console.log("talk: a tournament's room, written from a Korean phone and read on an English one");
  await reportAndModerate(browser, errors);
  console.log("talk: a message reported from a Korean phone, hidden by a moderator on an English one (granted by the binary's command), said hidden on the table");
  await appsInSettings(browser, errors);
  console.log("phone: the settings page lists a phone app in Korean and stops its notifications in a tap");
  await threeFriendsByLink(browser, errors);
  console.log("phone: four-player chess invites three friends by three links; the creator sees each join, the board opens on the third");
  await puzzlesByTaps(browser, errors);
  console.log("phone: the daily checkers puzzle from the home page in Korean: a wrong move explained, the line solved by taps, the solution shown");
  await lessonsByTaps(browser, errors);
  console.log("phone: every first step of every game completed by taps in Korean from the how-to pages; wrong moves explained, not played; progress kept");
  await cardBySecondTap(browser, errors);
  console.log("phone: a FlipChess card raised by a tap, its confirm (빨강 7 내기) in the bar under the board with nothing moved, played by a second tap");
  await planOnTheBoard(browser, errors);
  console.log("phone: a reply planned on the match's own board in Korean, the piece named under it, the board back as it stands on cancel");
  await recordDownloads(browser, errors);
  console.log("phone: a finished match's record saved from a Korean phone (기보 내려받기), the match's PDN");
  await visitorFirstStep(browser, errors);
  console.log("phone: a visitor played a first step with no account made, the sign-up link landed on its form, and the step became the new account's; the empty home offers first steps and puzzles as 44-px buttons");
}

module.exports = { all };
const CHECKS = { boardsFit, answersInTheBanner, withdrawAsksFirst, kingsStandOut, sinceMyMove, countOnTheMenu, liveMoves, formsSayWhatIsWrong, zonesByCountry, shareSeesJoin, threeFriendsByLink, talkAtTheTable, talkToMyTeam, talkInTheTournament, reportAndModerate, appsInSettings, puzzlesByTaps, lessonsByTaps, visitorFirstStep, cardBySecondTap, planOnTheBoard, recordDownloads };

if (require.main === module) {
  L.alone(async (browser, errors) => {
    // PHONE_CHECKS=zonesByCountry,liveMoves: those checks only.
    const only = (process.env.PHONE_CHECKS || "").split(",").filter(Boolean);
    if (only.length) for (const name of only) { await CHECKS[name](browser, errors); console.log("phone: " + name + " passed"); }
    else await all(browser, errors);
  });
}
