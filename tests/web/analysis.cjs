// Issue #69 item 3 in the browser: a finished match's analysis on a phone.
//  - A player asks for it in Korean at 360×740 (분석 요청하기); the page
//    shows the wait, then each player's accuracy and counts and the graph
//    of winning chances, with no English word in it.
//  - Stepping through the game says how each move was judged, by ← → on
//    a keyboard and by a swipe across the board on a phone; a tap on the
//    graph steps to that move.
//  - The other player, in English at 390×844, sees the same analysis.
//  - Item 6: the player shares the game; its link opens the replay and
//    the analysis for a friend with no account, in Korean and in English,
//    stepped by a swipe; turned off, the link opens nothing.
// Run by play.cjs; alone with `WEB_TEST=tests/web/analysis.cjs tests/web/run`.
"use strict";
const L = require("./lib.cjs");

const { api, assert } = L;

const account = (username, locale) => api("POST", "/v1/accounts", null, { username: "a69_" + username, password: "a long password", locale });
const legal = async (id, s) => (await api("GET", `/v1/matches/${id}/legal-actions`, s.access_token)).actions;
const seqOf = async (id, s) => (await api("GET", `/v1/matches/${id}`, s.access_token)).seq;

/// A checkers match of `a` against `b` with `moves` moves played, then
/// resigned by `a`.
async function finished(a, b, moves) {
  const m = await api("POST", "/v1/matches", a.access_token, { game: "checkers", opponents: [b.user.username], turn_hours: 48 });
  await api("POST", `/v1/matches/${m.id}/accept`, b.access_token);
  for (let i = 0; i < moves; i++) {
    for (const p of [a, b]) {
      const move = (await legal(m.id, p)).find((x) => x.type === "move");
      if (!move) continue;
      await api("POST", `/v1/matches/${m.id}/actions`, p.access_token, { seq: await seqOf(m.id, p), action: move });
      break;
    }
  }
  await api("POST", `/v1/matches/${m.id}/actions`, a.access_token, { seq: await seqOf(m.id, a), action: { type: "resign" } });
  return m.id;
}

async function page(browser, errors, session, lang, viewport) {
  const p = await L.person(browser, errors, { locale: lang === "ko" ? "ko-KR" : "en-US", viewport, hasTouch: true });
  await L.signIn(p, Object.assign({}, session, { user: Object.assign({}, session.user, { locale: lang }) }));
  return p;
}

const counter = (p) => p.$eval(".replay span", (n) => n.textContent.trim());

/// A swipe across the board, right to left (`-1`: left to right).
async function swipe(p, direction) {
  await p.$eval(".board-wrap", (node, d) => {
    const box = node.getBoundingClientRect();
    const y = box.top + box.height / 2;
    const at = (x) => [new Touch({ identifier: 1, target: node, clientX: x, clientY: y })];
    const [from, to] = d > 0 ? [box.right - 20, box.left + 20] : [box.left + 20, box.right - 20];
    node.dispatchEvent(new TouchEvent("touchstart", { touches: at(from), changedTouches: at(from), bubbles: true }));
    node.dispatchEvent(new TouchEvent("touchend", { touches: [], changedTouches: at(to), bubbles: true }));
  }, direction);
}

async function analysisOnAPhone(browser, errors) {
  const [ha, jo] = [await account("ha", "ko"), await account("jo", "en")];
  const id = await finished(ha, jo, 6);
  const ko = await page(browser, errors, ha, "ko", { width: 360, height: 740 });
  await L.openMatch(ko, id);
  const ask = await ko.waitForSelector("[data-action=ask_analysis]");
  assert.equal((await ask.textContent()).trim(), "분석 요청하기");
  await ask.click();
  // The job runs on the service's next tick; the page asks every 3 s.
  await ko.waitForSelector(".analysis .figures tbody tr", { timeout: 30000 });
  const rows = await ko.$$eval(".analysis .figures tbody tr", (trs) => trs.map((tr) => tr.textContent));
  assert.equal(rows.length, 2, rows.join(" | "));
  const heads = await ko.$eval(".analysis .figures thead", (n) => n.textContent);
  assert.ok(heads.includes("정확도") && heads.includes("대실수"), heads);
  const graph = await ko.$eval("svg.chances", (n) => ({ width: n.getBoundingClientRect().width, lines: n.querySelectorAll("polyline").length, points: n.querySelector("polyline").getAttribute("points").split(" ").length }));
  assert.ok(graph.width > 300 && graph.lines === 1 && graph.points === 6, JSON.stringify(graph));
  const words = await ko.$eval(".analysis", (n) => n.innerText);
  assert.ok(!/[A-Za-z]{3,}/.test(words), "no English in the Korean analysis: " + words);

  // Keyboard: ← steps back a play and says how the play before was judged.
  const total = (await counter(ko)).split("/")[1].trim();
  await ko.keyboard.press("ArrowLeft");
  await ko.waitForFunction((t) => document.querySelector(".replay span").textContent.trim() === (Number(t) - 1) + " / " + t, total);
  await ko.waitForSelector(".judged[data-judged]");
  const said = await ko.$eval(".judged", (n) => n.textContent);
  assert.match(said, /이길 가능성 \d+%/, said);
  // A swipe to the right steps back once more; to the left, forward.
  await swipe(ko, -1);
  await ko.waitForFunction((t) => document.querySelector(".replay span").textContent.trim() === (Number(t) - 2) + " / " + t, total);
  await swipe(ko, 1);
  await ko.waitForFunction((t) => document.querySelector(".replay span").textContent.trim() === (Number(t) - 1) + " / " + t, total);
  // A tap at the graph's start steps to the first play.
  const box = await (await ko.$("svg.chances")).boundingBox();
  await ko.mouse.click(box.x + 2, box.y + box.height / 2);
  await ko.waitForFunction(() => /^1 \//.test(document.querySelector(".replay span").textContent.trim()));
  await L.sectionShot(ko, ".analysis", "analysis-ko");

  // Shared (item 6): the link opens the replay and the analysis for a
  // friend with no account, in their language; turned off, nothing.
  await ko.click("[data-action=share]");
  const url = await (await ko.waitForSelector("[data-share-url]")).inputValue();
  assert.match(url, /\/shared\/[A-Za-z0-9_-]{22}$/);
  for (const lang of ["ko", "en"]) {
    const friend = await L.person(browser, errors, { locale: lang === "ko" ? "ko-KR" : "en-US", viewport: { width: 360, height: 740 }, hasTouch: true });
    await friend.goto(url);
    await friend.waitForSelector("[data-shared=open] .analysis .figures tbody tr");
    const steps = await counter(friend);
    assert.equal(steps, total + " / " + total, "every play, at the end");
    await swipe(friend, -1);
    await friend.waitForFunction((t) => document.querySelector(".replay span").textContent.trim() === (Number(t) - 1) + " / " + t, total);
    const text = await friend.innerText("main");
    if (lang === "ko") assert.ok(text.includes("정확도") && text.includes("공유한 끝난 대국"), text);
    else assert.ok(text.includes("Accuracy") && text.includes("shared by one of its players"), text);
    assert.equal(await friend.$("[data-action=ask_analysis]"), null, "a friend does not ask");
    if (lang === "ko") {
      await L.shots(friend, "shared-ko");
      // The link preview's picture and the game's GIF, decoded by the
      // browser at their sizes.
      const sizes = await friend.evaluate(async (paths) => {
        const out = [];
        for (const path of paths) {
          const img = new Image();
          img.src = path;
          await img.decode();
          out.push([img.naturalWidth, img.naturalHeight]);
        }
        return out;
      }, [new URL(url).pathname.replace("/shared/", "/v1/shared/") + "/picture", await friend.getAttribute("[data-gif]", "href")]);
      assert.deepEqual(sizes, [[1200, 630], [640, 640]]);
    }
    await friend.context().close();
  }
  await ko.click("[data-action=unshare]");
  await ko.waitForSelector("[data-action=share]");
  const gone = await L.person(browser, errors, { expected: /404/ });
  await gone.goto(url);
  await gone.waitForSelector("[data-shared=gone]");
  await gone.context().close();
  await ko.context().close();

  // The other player, in English, sees it at once.
  const en = await page(browser, errors, jo, "en", { width: 390, height: 844 });
  await L.openMatch(en, id);
  await en.waitForSelector(".analysis .figures tbody tr");
  const enHeads = await en.$eval(".analysis .figures thead", (n) => n.textContent);
  assert.ok(enHeads.includes("Accuracy") && enHeads.includes("Blunders"), enHeads);
  assert.equal(await en.$("[data-action=ask_analysis]"), null, "asked once for the match");
  await en.context().close();
}

module.exports = { analysisOnAPhone };

if (require.main === module) {
  L.alone(async (browser, errors) => {
    await analysisOnAPhone(browser, errors);
    console.log("analysis: asked in Korean on a phone, figures and graph shown, stepped by keyboard, swipe and a tap on the graph; the other player sees it in English");
  });
}
