// The match page: the board from the viewer's side, click a piece and a
// marked square, a confirm step, promotion and card choices, the other
// actions, the move list and a step-by-step replay of a finished match.
// It reloads by the event feed (`events?after=`) and the match's ETag,
// when the live channel says the match changed (live.js) or by polling.
import { againstComputer, api, askedFirst, countdown, displayName, el, gameName, go, keepRead, local, saveButton, say, session, show, t } from "./core.js";
import { startTerms, statusLine } from "./pages.js";
import * as Games from "./games.js";
import { squareGrid } from "./boards.js";
import { beginPlan, conditionalPanel, keepPlan, moveWords, planBar, planStep } from "./conditional.js";
import { talkPanel } from "./talk.js";
import { flush, keep, onSent, unsent } from "./offline.js";
import { choiceButtons } from "./tapping.js";
import { listen, stopHearing } from "./live.js";
import { analysisSlot, swipeSteps } from "./analysis.js";
import { shareSlot } from "./shared.js";
import { coinsLine, themeClass, wornLooks } from "./coins.js";

let watching = null;
let current = null;
let forget = () => {};
let hearing = { up: false };

export async function matchPage(id) {
  const state = { id, match: null, etag: null, legal: null, events: [], selected: null, pending: null, choices: null, replayAt: null, replayView: null };
  current = state;
  // My board theme for this game (issue #70), kept on this device.
  await wornLooks();
  state.load = async () => {
    const reply = await api("GET", "/v1/matches/" + id, undefined, state.etag ? { "if-none-match": state.etag } : {});
    if (reply.status === 304) return false;
    // Offline, the last copy this device kept (issue #33).
    state.offline = Boolean(reply.offline);
    state.match = reply.data;
    state.etag = reply.etag;
    state.legal = state.match.status === "active" || state.match.status === "waiting"
      ? (await api("GET", "/v1/matches/" + id + "/legal-actions")).data : { actions: [], seats: [] };
    const after = state.events.length ? state.events[state.events.length - 1].seq : 0;
    const feed = await api("GET", "/v1/matches/" + id + "/events?after=" + after);
    state.events = state.events.concat(feed.data.events);
    // The whole log kept for offline, as the board it goes with.
    if (!feed.offline) keepRead("/v1/matches/" + id + "/events?after=0", { events: state.events });
    return true;
  };
  state.reload = async () => { await state.load(); draw(state); };
  // A move kept offline and sent when the connection came back: show
  // what the service made of it.
  forget();
  forget = onSent((sent, refused) => {
    if (current !== state || sent !== id) return;
    state.error = refused ? refused.message : null;
    state.reload().catch(() => {});
  });
  await state.load();
  // Left while it loaded: the page is another's now.
  if (current !== state) return;
  draw(state);
  // Live (issue #49 item 8): the service says when the match changed and
  // the page re-reads it; while that channel is down, the page polls.
  // Either way the match is revalidated by its ETag, which covers
  // everything the page shows: a move, a draw offer, a rematch asked
  // for, a challenge answered (a 304 costs no body).
  clearInterval(watching);
  const catchUp = async () => {
    // Never under a player's hands: a half-made move, a field being typed
    // (what was heard waits for the next tick).
    // A question asked first (resign) stays open too.
    if (document.hidden || current !== state || state.pending || state.choices || state.selected || state.plan || document.querySelector("main .ask")) return;
    // The talk is kept across redraws (its box keeps focus, draw() below):
    // chatting never holds the board back.
    const typing = document.activeElement && document.activeElement.closest("main input, main select, main textarea");
    if (typing && !typing.closest("[data-talk]")) return;
    state.behind = false;
    state.polled = Date.now();
    try {
      if (unsent(id)) flush();
      if (await state.load()) draw(state);
    } catch (_) { state.behind = true; /* a slow or lost connection: try again next time */ }
  };
  hearing = listen(id, (event, data) => {
    // A message (issue #50) changes no seq: the talk reads again in
    // place, even while its box is being typed in.
    if (state.talk && (event !== "seq" || data.seq === null)) state.talk.refresh().catch(() => {});
    if (event === "open" || event === "resync" || data.seq === null || data.seq > state.match.seq) {
      state.behind = true;
      catchUp();
    }
  });
  // Against the computer the reply comes within seconds: ask more often.
  const every = againstComputer(state.match) ? 1500 : 10000;
  state.polled = Date.now();
  watching = setInterval(() => {
    if (state.behind || (!hearing.up && Date.now() - state.polled >= every)) catchUp();
  }, 1000);
}

export function leaveMatch() {
  // A queued analysis stops asking once its page is left (issue #69).
  if (current) { current.gone = true; clearTimeout(current.analysisPoll); }
  current = null;
  forget();
  clearInterval(watching);
  stopHearing();
}

const mySeat = (m) => (m.my_seats.length ? m.my_seats[0] : undefined);
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

function draw(state) {
  // A redraw keeps the sections the player opened (move list, colour key).
  const open = [...document.querySelectorAll("main details[open]")].map((d) => d.className);
  // The talk panel is moved, not rebuilt: the box being typed in gets its
  // focus back.
  const typing = state.talk && state.talk.contains(document.activeElement) ? document.activeElement : null;
  drawBoard(state);
  if (typing && document.activeElement !== typing) typing.focus({ preventScroll: true });
  for (const d of document.querySelectorAll("main details")) if (open.includes(d.className)) d.open = true;
  // Keyboard play (issue #33): after a step on the board, focus stays
  // where the player is: the confirm button when a move waits for it,
  // else the square they picked. A reload from the feed moves nothing.
  if (!state.focusBoard) return;
  state.focusBoard = false;
  const target = state.pending ? document.querySelector(".confirm button")
    : state.selected ? document.querySelector(".sq[data-square=\"" + CSS.escape(state.selected) + "\"]") : null;
  // Scrolled to only when out of sight: a confirm held in a bar that
  // stays in sight (FlipChess's) is reached without moving the board.
  if (!target) return;
  target.focus({ preventScroll: true });
  const box = target.getBoundingClientRect();
  if (box.top < 0 || box.bottom > window.innerHeight) target.scrollIntoView({ block: "nearest" });
}

function drawBoard(state) {
  const m = state.match;
  const replaying = state.replayView !== null && state.replayView !== undefined;
  // A line being planned (issue #68 item 6) is drawn on the board itself.
  const planning = state.plan;
  const view = planning ? planning.view : replaying ? state.replayView : m.view;
  // A move waiting to be sent (offline) holds the board until it is.
  const waiting = unsent(state.id);
  state.waiting = waiting;
  const actions = planning ? planning.actions : replaying || waiting || state.offline ? [] : (state.legal && state.legal.actions) || [];
  const choose = (list) => {
    state.selected = null;
    state.focusBoard = true;
    if (list.length === 1) state.pending = list[0];
    else state.choices = list;
    draw(state);
  };
  // Nothing is dealt while a seat is open (issue #30): no board yet.
  if (m.status === "waiting") {
    return show(header(m), challengeBar(state), startTerms(m),
      el("p", { class: "muted" }, t("dealt_at_start")), otherActions(state, actions));
  }
  // The board at the top (issue #49 item 1): the opponents' strips above
  // it, mine below with the deadline and "rated" inside, then what to do
  // now (FlipChess's prompt and hand, an offer to answer, the confirm);
  // on a desktop the rest is a panel beside the board.
  const strips = stripsOf(m, view);
  // The confirm (or the choice among a tap's actions) under the board,
  // unless the game's panel holds it where the tap was: FlipChess's card,
  // in its bar, played by a second tap once confirmable.
  const bar = planning ? planBar(planning, () => keepLine(state), () => endPlan(state))
    : state.choices ? picker(state) : state.pending ? confirmBar(state) : null;
  const waitingOn = bar && !planning ? { action: state.pending || state.choices[0], bar, confirming: !state.choices, send: () => state.pending && send(state, state.pending) } : null;
  const panel = Games.game(m.game).panel(view, mySeat(m), replaying ? [] : actions, choose, m.status === "active" && !replaying, waitingOn);
  show(el("div", { class: "match-page" },
    el("div", { class: "match-head", "data-seq": m.seq, "data-status": m.status },
      title(m), strips.above,
      boardWrap(state, el("div", { class: "board-wrap" + themeClass(m.game) + (planning ? " planning" : "") }, boardGrid(state, view, actions, replaying || Boolean(planning)))),
      strips.below,
      el("p", { class: "status", role: "status" }, statusLine(m, { clock: false })),
      m.result ? el("p", { class: "result" }, t("result") + ": " + describeResult(m)) : null,
      m.result ? coinsLine(m) : null),
    el("div", { class: "now" },
      panel,
      // Where the thumb is, under the board: a tap never moves the board.
      bar && !(panel && panel.contains(bar)) ? bar : null,
      state.error ? el("p", { class: "error", role: "alert" }, t("error") + ": " + state.error) : null,
      state.offline ? el("p", { class: "muted", "data-offline-copy": true }, t("offline_copy")) : null,
      waiting ? el("p", { class: "banner unsent", "data-unsent": true }, describe(waiting.body.action, m.game) + " — " + t("not_sent")) : null,
      challengeBar(state), offerBar(state, actions), takebackBanner(state), passedBar(state), flippedBar(state, view), sinceMine(state, view)),
    el("div", { class: "side-panel" },
      talkSlot(state),
      // Conditional moves wait on a person's slow reply; a computer
      // answers within seconds, so a match against it offers none.
      planning ? null : replayBar(state), planning ? null : analysisSlot(state, plays(state), describe, () => current === state && draw(state)), takebackButton(state), againstComputer(m) ? null : linesSlot(state),
      otherActions(state, actions), finishedBar(state), recordButton(state), shareSlot(state, () => current === state && draw(state)), moveList(state), resignStep(state, actions))));
}

/// The board's frame; a finished match's steps by a swipe across it
/// (issue #69), as ← → do on a keyboard.
function boardWrap(state, wrap) {
  if (state.match.status === "finished") swipeSteps(wrap, state);
  return wrap;
}

/// The talk at the table (issue #50), built once per page: a redraw keeps
/// what is typed. Only the seated talk, and computers neither read nor
/// write, so a match against the computer has none.
function talkSlot(state) {
  const m = state.match;
  const people = m.seats.some((s) => s.user && !s.user.computer && !m.my_seats.includes(s.seat));
  if (!m.my_seats.length || !people) return null;
  if (!state.talk) state.talk = talkPanel(m);
  else if (state.talkUnread !== m.unread_messages) state.talk.refresh().catch(() => {});
  state.talkUnread = m.unread_messages;
  return state.talk;
}

/// My conditional moves (issue #34), built once per seq of the match: a
/// redraw for a tap on the board keeps the panel as it is.
function linesSlot(state) {
  const m = state.match;
  if (state.linesSeq !== m.seq) {
    state.linesSeq = m.seq;
    state.linesSlot = el("div", { class: "lines-slot" });
    const slot = state.linesSlot;
    conditionalPanel(m, () => startPlan(state)).then((panel) => { if (panel) slot.replaceChildren(panel); }, () => {});
  }
  return state.linesSlot;
}


/// Against the computer the person may take back their last move and the
/// reply (issue #32); between two people they ask, and the opponent
/// accepts or declines (issue #34). The service refuses what the rules
/// or the opponent's setting do not allow, with the reason.
// Where pieces or cards are hidden the service refuses takebacks (they
// would show them), so the game's module says not to offer the button.
const SERVICE_EVENTS = new Set(["player_joined", "cancelled", "timeout_notice", "time_granted", "taken_back",
  "takeback_requested", "takeback_declined", "on_vacation", "back_from_vacation"]);

/// A takeback undoes the events after its `to_seq`: they stay listed,
/// struck through, as the log keeps them. The seqs undone.
function undoneSeqs(events) {
  const undone = new Set();
  for (const e of events) {
    if (e.type === "taken_back") for (const d of events) if (d.seq > e.to_seq && d.seq < e.seq) undone.add(d.seq);
  }
  return undone;
}

/// The moves played since my last own one that stands, oldest first.
function movesSinceMine(state) {
  const undone = undoneSeqs(state.events);
  const standing = state.events.filter((e) => !undone.has(e.seq) && e.type !== "taken_back");
  const mine = state.match.my_seats;
  const since = standing.length - 1 - [...standing].reverse().findIndex((e) => e.move && mine.includes(e.seat));
  return standing.slice(since > standing.length - 1 ? 0 : since + 1).filter((e) => e.move).map((e) => e.move);
}

/// Whether a move of mine stands in the log (not taken back): only then
/// is there something to take back.
function myMoveStands(state) {
  const undone = undoneSeqs(state.events);
  const mine = state.match.my_seats;
  return state.events.some((e) => !SERVICE_EVENTS.has(e.type) && mine.includes(e.seat) && !undone.has(e.seq));
}

/// Whether takebacks are asked and answered in this match (issue #34):
/// the other player's answer, or at once against the computer (#32).
function takebacks(state) {
  const m = state.match;
  return m.status === "active" && m.my_seats.length && Games.game(m.game).takeback;
}

function takebackSend(state, what) {
  return async () => {
    try {
      await api("POST", "/v1/matches/" + state.id + "/takeback" + what, { seq: state.match.seq });
    } catch (error) {
      // Said, never dropped (issue #46): a stale seq is the board changed.
      state.error = error.problem && error.problem.code === "stale_seq" ? t("board_changed") : error.message;
    }
    await state.reload();
  };
}

const takebackButtonOf = (state, what, label, cls) => el("button", { type: "button", class: cls, "data-action": "take_back" + what.replace("/", "_"),
  on: { click: takebackSend(state, what) } }, t(label));

/// A takeback asked of me, answered in its banner by the board; mine
/// waiting for the answer, said there too (issue #49 item 2).
function takebackBanner(state) {
  const m = state.match;
  if (!takebacks(state) || againstComputer(m) || m.seats.length !== 2) return null;
  const asker = m.takeback_asked_by;
  if (asker === undefined || asker === null) return null;
  if (m.my_seats.includes(asker)) return el("p", { class: "muted banner", "data-takeback": "asked" }, t("takeback_asked"));
  return el("div", { class: "banner", role: "group", "aria-label": t("takeback_offer"), "data-takeback": "offered" }, el("p", {}, t("takeback_offer")),
    takebackButtonOf(state, "/accept", "accept", ""), takebackButtonOf(state, "/decline", "decline", "secondary"));
}

/// Asking to take my last move back: at once against the computer
/// (issue #32); between two people, while my move stands unanswered.
function takebackButton(state) {
  const m = state.match;
  if (!takebacks(state)) return null;
  if (againstComputer(m)) return myMoveStands(state) ? el("div", { class: "actions" }, takebackButtonOf(state, "", "take_back", "secondary")) : null;
  if (m.seats.length !== 2 || !Games.game(m.game).askTakeback) return null;
  if (m.takeback_asked_by !== undefined && m.takeback_asked_by !== null) return null;
  // My last move stands unanswered: the last of the game's own events
  // (not the service's: notices, grants, takebacks, vacations) is mine.
  const last = [...state.events].reverse().find((e) => !SERVICE_EVENTS.has(e.type));
  const mineLast = last && m.my_seats.includes(last.seat) && m.to_act.every((d) => !m.my_seats.includes(d.seat));
  return mineLast ? el("div", { class: "actions" }, takebackButtonOf(state, "", "ask_take_back", "secondary")) : null;
}

/// A waiting match's head: who is seated, the status.
function header(m) {
  return el("div", { class: "match-head", "data-seq": m.seq, "data-status": m.status },
    title(m),
    el("p", {}, m.seats.map((s) => displayName(s) + (m.my_seats.includes(s.seat) ? " (" + t("you") + ")" : "")).join(" · ")),
    el("p", { class: "status", role: "status" }, statusLine(m)));
}

/// One short line: the game, how to play it, its tournament.
function title(m) {
  return el("h2", { class: "match-title" }, gameName(m), " ",
    el("a", { href: "/how-to/" + m.game, "data-link": true, class: "how-to-link" }, t("how_to_play")),
    m.tournament ? el("a", { href: "/tournaments/" + m.tournament, "data-link": true, "data-tournament": m.tournament, class: "how-to-link" }, t("tournament") + " →") : null);
}

/// A strip per seat (issue #33): the player, their side (colour, Cho or
/// Han, army), captures or points where the game counts them, and which
/// side is to move; "you" on my own. Check is said on the mover's strip.
/// The opponents' strips go above the board, mine below (issue #49): the
/// deadline on the strip of whoever owes the move, "rated" on mine. A
/// spectator sees the first seat below.
function stripsOf(m, view) {
  const game = Games.game(m.game);
  const sides = game.sides(view);
  const moving = m.status === "active" ? game.toMove(view) : null;
  const bottom = m.my_seats.length ? m.my_seats : [0];
  const strip = (s) => {
    const side = sides[s.seat] || {};
    const names = side.armies && side.armies.length > 1 ? side.armies : side.side ? [side.side] : [];
    const toMove = moving && (names.includes(moving));
    const mine = m.my_seats.includes(s.seat);
    const team = names.length ? game.team(view, names[0]) : null;
    const duty = m.status === "active" && m.to_act.find((d) => d.seat === s.seat);
    return el("li", { class: "strip" + (mine ? " mine" : "") + (toMove ? " to-move" : ""), "data-seat": s.seat,
      "data-side": names.join(" ") || null, "data-to-move": toMove ? moving : null },
      names.length ? el("span", { class: "side-dot " + names[0], "aria-hidden": "true" }) : null,
      el("strong", {}, displayName(s)), mine ? " (" + t("you") + ")" : "",
      names.length ? " · " + names.map((n) => t("side_" + n)).join(" + ") : "",
      team ? " · " + t("team") + " " + team : "",
      side.points !== undefined && side.points !== null ? " · " + side.points + " " + t("points_short") : "",
      side.captured && side.captured.length ? el("span", { class: "captured" }, " · ",
        el("span", { class: "visually-hidden" }, t("captured") + ": " + side.captured.map((c) => c.label).join(", ")),
        side.captured.map((c) => el("span", { class: "piece " + c.cls, "aria-hidden": "true" }, c.glyph))) : null,
      toMove ? el("span", { class: "to-move-mark" }, " · " + t("side_" + moving) + " " + t("strip_to_move") + (game.inCheck(view) ? " · " + t("in_check") : "")) : null,
      duty && duty.paused_at ? el("span", { class: "muted", "data-paused": true }, " · " + t("on_vacation") + (duty.away_until ? " " + t("until") + " " + local(duty.away_until) : "")) : null,
      duty && duty.deadline_at && !duty.paused_at ? el("span", { class: "deadline", "data-deadline": duty.deadline_at, title: t("deadline") + ": " + local(duty.deadline_at) }, " · " + countdown(duty.deadline_at)) : null,
      // Whether the result will count (a match against the computer never does).
      mine || (!m.my_seats.length && s.seat === 0) ? el("span", { class: "rated-mark", "data-rated": String(!!m.rated) }, " · " + t(m.rated ? "rated_match" : "unrated_match")) : null);
  };
  const list = (seats, where) => (seats.length ? el("ol", { class: "strips " + where, "aria-label": t("players") }, seats.map(strip)) : null);
  return {
    above: list(m.seats.filter((s) => !bottom.includes(s.seat)), "above"),
    below: list(m.seats.filter((s) => bottom.includes(s.seat)), "below"),
  };
}

function boardGrid(state, view, actions, replaying) {
  const m = state.match;
  const game = Games.game(m.game);
  const board = game.layout(view, mySeat(m));
  const moves = actions.map((a) => ({ action: a, squares: game.squaresOf(a) })).filter((x) => x.squares);
  // The last move: the view's; a game whose view has none (FlipChess,
  // which has no takebacks) the log's last move.
  const fromLog = view.last_move === undefined && view.last_action === undefined && !replaying;
  const logged = fromLog ? [...state.events].reverse().find((e) => e.move) : null;
  const last = view.last_move || view.last_action || (logged && logged.move);
  const checked = new Set(game.checked(view));
  // A Banqi turn-up's last action is its one square.
  const lastSquares = last ? game.squaresOf({ type: "move", move: last }) || { from: last, to: last } : null;
  // At a table of more than two, every move since my own is marked: the
  // three armies that moved in between, not only the last (issue #32).
  const recent = replaying || m.seats.length <= 2 ? [] : movesSinceMine(state)
    .map((move) => game.squaresOf({ type: "move", move })).filter(Boolean);
  const recently = new Set(recent.flatMap((sq) => [sq.from, sq.to]));
  const unsentSquares = state.waiting ? game.squaresOf(state.waiting.body.action) : null;
  // A move waiting for its confirm is drawn where it goes (issue #68):
  // the piece on its new square, its start emptied, both marked; cancel
  // draws the board as it stands again.
  const pending = state.pending ? game.squaresOf(state.pending) : null;
  if (pending && pending.from && pending.to && board.pieces[pending.from]) {
    board.pieces = Object.assign({}, board.pieces, { [pending.to]: board.pieces[pending.from] });
    delete board.pieces[pending.from];
  }
  const targets = new Set(state.selected ? moves.filter((x) => x.squares.from === state.selected).map((x) => x.squares.to) : []);
  const starts = new Set(moves.map((x) => x.squares.from || x.squares.at));
  const label = state.plan ? t("plan_board") : gameName(m);
  return squareGrid(board, { class: "board " + m.game + (state.plan ? " plan" : ""), role: "group", "aria-label": label }, (id, piece) => {
    const classes = [];
    // A capture is a ring round the square, never a dot over the piece.
    if (targets.has(id)) classes.push("target", piece ? "capture" : "empty");
    if (id === state.selected) classes.push("selected");
    if (lastSquares && (id === lastSquares.from || id === lastSquares.to)) classes.push("last");
    else if (recently.has(id)) classes.push("recent");
    if (lastSquares && (lastSquares.path || []).includes(id)) classes.push("path");
    if (checked.has(id)) classes.push("check");
    if (pending && id === pending.to) classes.push("pending");
    if (pending && id === pending.from) classes.push("pending-from");
    if (unsentSquares && (id === unsentSquares.from || id === unsentSquares.to || id === unsentSquares.at)) classes.push("unsent");
    return {
      classes,
      said: checked.has(id) ? " · " + t("in_check") : "",
      disabled: !(starts.has(id) || targets.has(id)),
      tap: () => pick(state, id, moves),
    };
  });
}

function pick(state, square, moves) {
  state.focusBoard = true;
  const turnUp = moves.find((x) => x.squares.at === square);
  if (turnUp) return take(state, turnUp.action);
  if (state.selected) {
    const chosen = moves.filter((x) => x.squares.from === state.selected && x.squares.to === square).map((x) => x.action);
    // One move, or a promotion's several: the piece is then picked.
    if (chosen.length === 1) return take(state, chosen[0]);
    if (chosen.length > 1) { state.choices = chosen; return draw(state); }
  }
  state.selected = state.selected === square ? null : square;
  draw(state);
}

/// Several actions from one tap: a promotion's pieces, a Wild's colours.
function picker(state) {
  const chosen = (a) => { state.choices = null; take(state, a); };
  const cancel = el("button", { type: "button", class: "secondary", on: { click: () => { state.choices = null; state.selected = null; draw(state); } } }, t("cancel"));
  const own = Games.game(state.match.game).picker(state.choices, chosen);
  if (own) return el("div", { class: "card" }, own, cancel);
  return el("div", { class: "card picker", role: "group", "aria-label": t("promote") }, el("p", {}, t("promote")),
    choiceButtons(state.choices, chosen), cancel);
}

/// A move picked on the board: confirmed before it is sent, or, while a
/// line is planned, the plan's next step.
function take(state, action) {
  state.selected = null;
  if (!state.plan) {
    state.pending = action;
    return draw(state);
  }
  planStep(state.match, state.plan, action).then((plan) => { state.plan = plan; draw(state); }, (error) => endPlan(state, error));
}

/// Planning a line on the match's own board, from the board as it stands.
function startPlan(state) {
  beginPlan(state.match).then((plan) => {
    Object.assign(state, { plan, pending: null, choices: null, selected: null, focusBoard: true });
    draw(state);
    document.querySelector(".match-head").scrollIntoView({ block: "start" });
  }, (error) => endPlan(state, error));
}

/// The plan put away (kept, cancelled, or refused with the service's
/// reason, said where a move's refusal is) and the lines read again.
function endPlan(state, error) {
  Object.assign(state, { plan: null, selected: null, linesSeq: null, error: error ? error.message : null });
  draw(state);
}

function keepLine(state) {
  keepPlan(state.match, state.plan).then(() => endPlan(state), (error) => endPlan(state, error));
}

function confirmBar(state) {
  return el("div", { class: "confirm card", role: "dialog", "aria-label": t("confirm") }, el("p", {}, pendingWords(state)),
    el("button", { type: "button", on: { click: () => send(state, state.pending) } }, t("confirm")),
    el("button", { type: "button", class: "secondary", on: { click: () => { state.pending = null; state.selected = null; draw(state); } } }, t("cancel")));
}

/// The move waiting for its confirm in words (issue #68): the piece and
/// its squares, "빨강 말 9 → 13", "Red chariot b10 → a8", a multi-capture
/// through every landing; an action without a piece as `describe` says it.
function pendingWords(state) {
  const m = state.match;
  const game = Games.game(m.game);
  const squares = game.squaresOf(state.pending);
  return squares && squares.from ? moveWords(game, m.view, mySeat(m), state.pending) : describe(state.pending, m.game);
}

function otherActions(state, actions) {
  // A draw offer is answered from its banner (offerBar); resigning is
  // asked first, at the end of the page (resignStep).
  const rest = actions.filter((a) => !Games.game(state.match.game).squaresOf(a) && !["resign", "play", "accept_draw", "decline_draw"].includes(a.type));
  if (!rest.length) return null;
  return el("div", { class: "actions" }, el("h3", {}, t("other_actions")),
    rest.map((a) => el("button", { type: "button", class: "secondary", "data-action": a.type, "data-card": a.card, on: { click: () => { state.pending = a; draw(state); } } }, describe(a, state.match.game))));
}

/// Resigning, away from the other buttons and asked first with its cost
/// (issue #49 item 3): the match lost, and the rating with it if rated.
function resignStep(state, actions) {
  if (!actions.some((a) => a.type === "resign")) return null;
  const m = state.match;
  // Before round 3 a resignation pays no loss coins (§R3): said first.
  const cost = t(m.rated ? "resign_cost_rated" : "resign_cost") + (m.round < 3 ? " " + t("resign_early_coins") : "");
  return el("div", { class: "danger-zone" }, askedFirst(t("resign"), cost, t("resign_yes"),
    () => send(state, { type: "resign" }), { "data-action": "resign" }));
}

function challengeBar(state) {
  const m = state.match;
  const me = session.user();
  if (m.status !== "waiting" || !me || !(m.challenges || []).some((c) => c.user.username === me.username)) return null;
  return el("div", { class: "card" },
    el("button", { type: "button", on: { click: () => post(state, "accept") } }, t("accept")),
    el("button", { type: "button", class: "secondary", on: { click: () => post(state, "decline") } }, t("decline")));
}

/// The opponent passed and it is my turn: passing too ends the match on
/// points (§J6), which the player is told before they do it.
function passedBar(state) {
  const m = state.match;
  const last = plays(state).at(-1);
  const mine = m.status === "active" && m.to_act.some((d) => m.my_seats.includes(d.seat));
  if (!last || last.type !== "passed" || !mine || m.my_seats.includes(last.seat)) return null;
  return el("p", { class: "banner", role: "note", "data-passed": true }, t("opponent_passed"));
}

/// The board turned by a Flip (§F7) since I last moved: said, with the
/// side I play now, so the turned board is no surprise (issue #49 item 11).
function flippedBar(state, view) {
  const m = state.match;
  const last = plays(state).at(-1);
  if (!last || last.type !== "flipped" || !m.my_seats.length || m.status !== "active") return null;
  const side = (Games.game(m.game).sides(view)[mySeat(m)] || {}).side;
  return side ? el("p", { class: "banner", role: "note", "data-flipped": "" }, say("board_flipped", { side: t("side_" + side) })) : null;
}

/// At a table of more than two, the moves the others made since mine, as
/// one line (issue #49 item 11): a computer's three armies read as a
/// whole, "Since your move: Green e13-e11 · Blue b7-c7 · Gray …".
function sinceMine(state, view) {
  const m = state.match;
  if (m.seats.length <= 2 || !m.my_seats.length || state.replayView) return null;
  const undone = undoneSeqs(state.events);
  const standing = state.events.filter((e) => !undone.has(e.seq) && e.type !== "taken_back");
  const lastMine = standing.map((e) => Boolean(e.move) && m.my_seats.includes(e.seat)).lastIndexOf(true);
  const theirs = standing.slice(lastMine + 1).filter((e) => e.move);
  if (!theirs.length) return null;
  const sides = Games.game(m.game).sides(view);
  const who = (e) => {
    const side = sides[e.seat] || {};
    const names = side.armies && side.armies.length > 1 ? side.armies : side.side ? [side.side] : [];
    return names.length ? names.map((n) => t("side_" + n)).join("/") : displayName(m.seats[e.seat]);
  };
  return el("p", { class: "muted", "data-since-mine": "" }, t("since_your_move") + ": " + theirs.map((e) => who(e) + " " + e.move).join(" · "));
}

/// An opponent's offer as a banner above the board (issue #33): a draw
/// offered (answered here), a rematch asked for (accepted by asking back).
function offerBar(state, actions) {
  const m = state.match;
  const answer = (type) => actions.find((a) => a.type === type);
  if (answer("accept_draw")) {
    return el("div", { class: "banner", role: "group", "aria-label": t("draw_offer_banner"), "data-offer": "draw" },
      el("p", {}, t("draw_offer_banner")),
      // Answered here, in one tap each (issue #49 item 2): the banner is
      // the question, and it sits by the board.
      ["accept_draw", "decline_draw"].filter(answer).map((type, i) => el("button", { type: "button", class: i ? "secondary" : "",
        "data-action": type, on: { click: () => send(state, answer(type)) } }, t("a_" + type))));
  }
  const asked = m.rematch_asked_by || [];
  if (m.status === "finished" && !m.rematch && asked.length && !asked.some((s) => m.my_seats.includes(s)) && m.my_seats.length) {
    return el("div", { class: "banner", role: "group", "aria-label": t("rematch_offer_banner"), "data-offer": "rematch" },
      el("p", {}, t("rematch_offer_banner")), rematchButton(state, "accept"));
  }
  return null;
}

function rematchButton(state, label) {
  const m = state.match;
  return el("button", { type: "button", class: label === "accept" ? "" : "secondary", "data-action": "rematch", on: { click: async () => {
    try {
      const reply = (await api("POST", "/v1/matches/" + m.id + "/rematch")).data;
      if (reply.rematch) return go("/matches/" + reply.rematch.id);
      await state.reload();
    } catch (error) { state.error = error.message; draw(state); }
  } } }, t(label));
}

function finishedBar(state) {
  const m = state.match;
  if (m.status !== "finished" || !m.my_seats.length) return null;
  if (m.rematch) return el("p", {}, el("a", { href: "/matches/" + m.rematch, "data-link": true }, t("rematch") + " →"));
  if ((m.rematch_asked_by || []).some((s) => m.my_seats.includes(s))) return el("p", { class: "muted" }, t("rematch") + " …");
  // Asked by the opponent: the banner above says it and accepts.
  if ((m.rematch_asked_by || []).length) return null;
  return rematchButton(state, "rematch");
}

/// A finished match's record as a file (issue #69, docs/records.md):
/// PDN, PGN, PGN4 or the text record, whole for its players (§H3).
function recordButton(state) {
  const m = state.match;
  if (m.status !== "finished") return null;
  const { button, said } = saveButton(t("download_record"), "/v1/matches/" + m.id + "/record", "text/plain",
    "posthorn-" + m.game + ".txt", { "data-action": "download_record" });
  return el("p", { class: "record" }, button, " ", said);
}

// A finished match, step by step (← →): each step is the position after
// one more play, drawn by the service for this viewer.
function replayBar(state) {
  if (state.match.status !== "finished") return null;
  const steps = plays(state);
  if (!steps.length) return null;
  const positionAt = async (seq) => (await api("GET", "/v1/matches/" + state.id + "/positions/" + seq)).data.view;
  return replayControls(state, steps, positionAt, () => draw(state));
}

/// The ← → of a replay over `steps` (plays with their seqs): each step is
/// the position after one more play, read by `positionAt(seq)`, then
/// `redraw()`; a shared game's page (issue #69) steps the same way.
export function replayControls(state, steps, positionAt, redraw) {
  const at = state.replayAt === null || state.replayAt === undefined ? steps.length : state.replayAt;
  state.step = async (to) => {
    const next = Math.max(0, Math.min(steps.length, to));
    // Set at once: keys pressed quickly count each step, not the last.
    state.replayAt = next;
    state.stepAt = next;
    if (next === steps.length) state.replayView = null;
    else {
      const seq = next === 0 ? Math.max(1, steps[0].seq - 1) : steps[next - 1].seq;
      state.replayView = await positionAt(seq);
    }
    redraw();
  };
  state.stepAt = at;
  return el("div", { class: "replay", role: "group", "aria-label": t("replay") },
    el("button", { type: "button", class: "secondary", "aria-label": t("back"), "data-step": "back", on: { click: () => state.step(at - 1) } }, "←"),
    el("span", {}, " " + at + " / " + steps.length + " "),
    el("button", { type: "button", class: "secondary", "aria-label": t("forward"), "data-step": "forward", on: { click: () => state.step(at + 1) } }, "→"));
}

document.addEventListener("keydown", (event) => {
  if (!current || !current.step || event.target.closest("input, select, textarea")) return;
  if (event.key === "ArrowLeft") current.step(current.stepAt - 1);
  if (event.key === "ArrowRight") current.step(current.stepAt + 1);
});

const PLAYS = new Set(["moved", "passed", "turned_up", "card_played", "flipped"]);
// The move list also shows takebacks; the replay steps through plays only.
const LISTED = new Set([...PLAYS, "taken_back"]);
const plays = (state) => playsOf(state.events);

/// The plays of a log (moves, passes, turn-ups, cards, flips): a replay's steps.
export const playsOf = (events) => events.filter((e) => e.move || PLAYS.has(e.type));

/// An action in words, for the confirm step and the action buttons.
export function describe(action, gameId) {
  const card = (name) => Games.game(gameId).cardName(name);
  if (action.type === "move") return action.move;
  if (action.type === "turn_up") return t("a_turn_up") + " " + action.square;
  if (action.type === "play") return say("a_play_card", { card: card(action.card) + (action.colour ? " (" + t("card_" + action.colour) + ")" : "") });
  return t("a_" + action.type) + (action.card ? " " + card(action.card) : "");
}

/// The result as people say it (issue #33): "doyun resigned — minjun
/// wins (+37 → 1561)", "Draw by threefold repetition", with each side's
/// score where the game counts points ("Han 73.5 : Cho 72").
export function describeResult(m) {
  const r = m.result;
  const winners = r.winners || [];
  const name = (seat) => displayName(m.seats[seat]);
  const losers = m.seats.map((s) => s.seat).filter((seat) => winners.length && !winners.includes(seat));
  const reason = t("reason_" + r.reason) !== "reason_" + r.reason ? t("reason_" + r.reason) : String(r.reason).replace(/_/g, " ");
  const rating = (seat) => {
    const change = (r.ratings || []).find((x) => x.seat === seat);
    return change ? " (" + (change.change >= 0 ? "+" : "") + change.change + " → " + change.after + ")" : "";
  };
  const sides = Games.game(m.game).sides(m.view);
  const scores = Array.isArray(r.scores)
    ? " · " + r.scores.map((score, seat) => ((sides[seat] && t("side_" + sides[seat].side)) || name(seat)) + " " + score).join(" : ")
    : "";
  if (!winners.length) return t("draw_by") + " " + reason + scores;
  const won = winners.map((seat) => name(seat) + rating(seat)).join(", ") + " " + t(winners.length > 1 ? "win_plural" : "wins_singular");
  const gone = ["resigned", "abandoned", "conceded"].includes(r.reason) && losers.length
    ? losers.map(name).join(", ") + " " + reason + " — "
    : reason + " — ";
  return gone + won + scores;
}

async function send(state, action) {
  const seat = state.legal.seats.find((s) => s.actions.some((a) => same(a, action)));
  const body = { seq: state.match.seq, action };
  if (seat && state.legal.seats.length > 1) body.seat = seat.seat;
  state.pending = null;
  state.selected = null;
  state.error = null;
  // The key is made once: a move kept offline is sent later with it.
  const key = crypto.randomUUID();
  if (!navigator.onLine) { keep(state.id, body, key); return draw(state); }
  try {
    await api("POST", "/v1/matches/" + state.id + "/actions", body, { "idempotency-key": key });
  } catch (error) {
    if (error.network) { keep(state.id, body, key); return draw(state); }
    // Never dropped without a word (issue #46): a stale seq means the
    // position changed before the move arrived (the service re-bases a
    // move over events that only move the clock), so the player is told
    // and the reload shows the new board. Anything else is said above
    // the board, which stays.
    state.error = error.problem && error.problem.code === "stale_seq" ? t("moved_on") : error.message;
  }
  await state.reload();
}

async function post(state, what) {
  try {
    await api("POST", "/v1/matches/" + state.id + "/" + what);
    await state.reload();
  } catch (error) { state.error = error.message; draw(state); }
}

function moveList(state) {
  const list = state.events.filter((e) => e.move || LISTED.has(e.type));
  if (!list.length) return null;
  const text = (e) => e.move || (e.type === "taken_back" ? "↶ " + t("taken_back") : e.type === "turned_up" ? "↑" + e.square : e.type === "passed" ? t("a_pass")
    : e.type === "flipped" ? "⇅" + (e.name ? " " + cardName(e.name) : "")
      : e.name ? t("played") + " " + cardName(e.name) + (e.colour ? " (" + t("card_" + e.colour) + ")" : "") : e.type);
  const cardName = Games.game(state.match.game).cardName;
  const undone = undoneSeqs(list);
  const rows = numbered(list);
  return el("details", { class: "moves" }, el("summary", {}, t("moves") + " (" + rows.length + ")"),
    el("ol", {}, rows.map((row) => el("li", {}, row.map((e, i) => el("span", undone.has(e.seq) ? { class: "undone" } : {}, (i ? " " : "") + text(e)))))));
}

/// The plays in rows as players number them (issue #49 item 4): a row
/// from one turn of a seat to its next, so "1. 11-15
/// 23-19" in checkers, a round of four armies in four-player chess, a
/// FlipChess turn's card and moves together. A takeback stays in the row
/// it came in.
function numbered(list) {
  const rows = [];
  let seats = new Set();
  let last = null;
  for (const e of list) {
    const seat = e.type === "taken_back" ? null : e.seat;
    const acts = seat !== null && seat !== undefined;
    // A new row when a seat comes back after another's turn: the first
    // mover's, or, once it is out, whoever's turn comes round again.
    if (!rows.length || (acts && seat !== last && seats.has(seat))) {
      rows.push([]);
      seats = new Set();
    }
    rows[rows.length - 1].push(e);
    if (acts) { seats.add(seat); last = seat; }
  }
  return rows;
}
