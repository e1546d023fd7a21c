// Puzzles (issue #52, docs/puzzles.md): the daily puzzle and the next
// one of a game, solved by taps on the board: tap a piece, then where it
// goes. The service says whether it was the move, answers with the
// opponent's replies, and shows the line only once solved or given up.
import { api, el, fail, link, named, say, show, t } from "./core.js";
import { actionButtons, choicesBar, tapBoard } from "./tapping.js";
import * as Games from "./games.js";

/// The games that have puzzles (FlipChess's win this turn, §F9).
export const PUZZLE_GAMES = ["checkers", "janggi", "banqi", "four_player_chess", "flipchess"];

/// The home page's card: today's puzzle of each game.
export function dailyCard() {
  return el("section", { class: "card daily-puzzles" }, el("h2", {}, t("daily_puzzle")),
    el("p", { class: "actions" }, PUZZLE_GAMES.map((g) => el("a", { href: "/puzzles/" + g + "/daily", "data-link": true, class: "button secondary" }, named("game_", g)))));
}

/// `/puzzles`: each game's daily puzzle and the next one, with my puzzle
/// rating and streak there.
export async function puzzlesIndex() {
  const mine = await Promise.all(PUZZLE_GAMES.map((g) => api("GET", "/v1/me/puzzles?game=" + g).then((r) => r.data)));
  // Each game a card: its name and my standing, then its two puzzles as
  // 44-px buttons (issue #68: the crawl found two 19-px links a line).
  const go = (href, words, kind) => el("a", { href, "data-link": true, class: kind ? "button " + kind : "button" }, words);
  show(el("h1", {}, t("puzzles")), el("ul", { class: "puzzle-games" }, mine.map((m) => el("li", { class: "card" },
    el("h2", {}, named("game_", m.game)),
    el("p", { class: "muted" }, say("puzzle_mine_line", { mine: m.rating.rating, streak: m.streak })),
    el("p", { class: "actions" }, go("/puzzles/" + m.game + "/daily", t("daily_puzzle"), null),
      go("/puzzles/" + m.game, t("puzzle_next"), "secondary"))))));
}

/// `/puzzles/{game}` (the next one near my rating) or
/// `/puzzles/{game}/daily`.
export async function puzzlePage(game, daily) {
  const state = { game, daily, puzzle: null, selected: null, said: null, mine: null, choices: null };
  const path = "/v1/puzzles/" + (daily ? "daily" : "next") + "?game=" + encodeURIComponent(game);
  state.puzzle = (await api("GET", path)).data;
  state.mine = (await api("GET", "/v1/me/puzzles?game=" + encodeURIComponent(game))).data;
  draw(state);
}

function draw(state) {
  const p = state.puzzle;
  const playing = p.state === "playing";
  const last = p.played.length ? Games.game(p.game).squaresOf(p.played[p.played.length - 1].action) : null;
  const legal = playing ? p.legal : [];
  const grid = tapBoard(state, { ...p, legal }, last, (a) => send(state, a), () => draw(state));
  // FlipChess's hand and pile, its cards played by taps (§F4).
  const choose = (plays) => { if (plays.length === 1) return send(state, plays[0]); state.choices = plays; draw(state); };
  // FlipChess's are one turn's card and moves (§F9): "win this turn".
  // Banqi's pieces face down stay so: the answer turns none up (issue #68).
  const faceDown = p.view.face_down && p.view.face_down.length ? " " + t("puzzle_face_down") : "";
  const goal = p.game === "flipchess" ? t("puzzle_goal_turn") : say(p.goal === "win" ? "puzzle_goal_win" : "puzzle_goal_gain", { n: p.moves }) + faceDown;
  const status = {
    playing: state.said === "not_the_move" ? t("puzzle_not_the_move") : state.said === "right" ? t("puzzle_right") : goal,
    solved: p.missed ? t("puzzle_solved_late") : t("puzzle_solved"),
    given_up: t("puzzle_given_up"),
  }[p.state];
  const mine = state.mine;
  show(
    // The variant named (checkers has seven: docs/puzzles.md, "Serving").
    el("h1", { class: "compact" }, (state.daily ? t("daily_puzzle") : t("puzzles")) + " · " + named("game_", p.game)
      + (p.options && p.options.variant ? " · " + named("variant_", p.options.variant) : "")),
    // The board near the top, as a match's is (issue #68): what to do
    // above it, the ratings below.
    el("p", { class: "puzzle-status", role: "status", "aria-live": "polite", "data-state": p.state }, status),
    // What the attempt did to my rating, once it counted.
    // What solving the daily puzzle paid (docs/rules/rewards.md §R2).
    state.coins ? el("p", { class: "coins-paid", "data-coins": state.coins }, say("coins_plus", { n: state.coins })) : null,
    state.change ? el("p", { class: "puzzle-change", "data-change": state.change.to - state.change.from }, say("puzzle_change", {
      from: state.change.from, to: state.change.to, delta: (state.change.to >= state.change.from ? "+" : "−") + Math.abs(state.change.to - state.change.from),
    })) : null,
    grid,
    Games.game(p.game).panel(p.view, p.seat, legal, choose, playing),
    choicesBar(state, p.game, (a) => send(state, a)),
    playing ? actionButtons(p.game, legal.filter((a) => a.type !== "draw" && a.type !== "end_turn"), (a) => send(state, a)) : null,
    el("p", { class: "muted" }, say("puzzle_rating_line", { rating: p.rating, mine: mine.rating.rating, streak: mine.streak })),
    p.solution ? el("ol", { class: "solution", "aria-label": t("puzzle_solution") },
      p.solution.map((s) => el("li", { class: s.seat === p.seat ? "mine" : "reply" }, said(p.game, s.action)))) : null,
    el("p", { class: "actions" },
      playing ? el("button", { type: "button", class: "secondary", on: { click: () => giveUp(state) } }, t("puzzle_give_up")) : null,
      playing ? null : link("/puzzles/" + p.game, t("puzzle_next")),
      " ", link("/how-to/" + p.game, t("how_to_play"))),
  );
}

async function send(state, action) {
  // One move at a time: a second tap on its way would be judged against
  // the next step, and count as a miss.
  if (state.sending) return;
  state.sending = true;
  state.selected = null;
  state.choices = null;
  try {
    const answer = (await api("POST", "/v1/puzzles/" + state.puzzle.id + "/moves", { action })).data;
    state.puzzle = answer.puzzle;
    state.said = answer.verdict;
    if (answer.my_rating) {
      state.change = { from: state.mine.rating.rating, to: answer.my_rating.rating };
      state.mine.rating = answer.my_rating;
    }
    if (answer.coins) state.coins = answer.coins;
    if (answer.verdict === "solved") state.mine = (await api("GET", "/v1/me/puzzles?game=" + encodeURIComponent(state.game))).data;
    state.sending = false;
    draw(state);
  } catch (error) {
    state.sending = false;
    fail(error);
  }
}

async function giveUp(state) {
  try {
    const before = state.mine.rating.rating;
    state.puzzle = (await api("POST", "/v1/puzzles/" + state.puzzle.id + "/give-up", {})).data;
    state.mine = (await api("GET", "/v1/me/puzzles?game=" + encodeURIComponent(state.game))).data;
    if (state.mine.rating.rating !== before && !state.change) state.change = { from: before, to: state.mine.rating.rating };
    draw(state);
  } catch (error) {
    fail(error);
  }
}

/// An action of a line in words: a move, a square turned up, a card.
function said(game, action) {
  if (action.card) return say("a_play_card", { card: Games.game(game).cardName(action.card) + (action.colour ? " (" + t("card_" + action.colour) + ")" : "") });
  return action.move || action.square || action.type;
}
