// "Play the computer" (issue #32): a game, its variant or mode, a level
// (with its rating, from GET /v1/bots) and a side; every other seat is
// the computer. Such a match is unrated and has no time limit, and the
// person may take back their move.
import { api, el, form, gameChoice, go, language, show, t } from "./core.js";
import * as Games from "./games.js";

/// The sides a player may pick, by order of play: named where the game
/// names them. Checkers: Black first in American, White first in every
/// other variant (docs/rules/checkers.md §C2, docs/decisions/games.md).
function sideNames(game, variant) {
  if (game.id === "checkers") return !variant || variant === "american" ? ["side_black", "side_white"] : ["side_white", "side_black"];
  return { janggi: ["side_cho", "side_han"] }[game.id] || [];
}

const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

export async function computerPage() {
  const [games, bots] = await Promise.all([api("GET", "/v1/games"), api("GET", "/v1/bots")]).then((r) => r.map((x) => x.data));
  const level = el("select", { name: "level" });
  const side = el("select", { name: "seat" });
  // Where pieces or cards are hidden there are no takebacks: said up front.
  const terms = el("p", { class: "muted", "data-terms": true });
  const picker = gameChoice(games, { changed: (game, variant) => {
    const offered = (bots.find((b) => b.game === game.id) || { bots: [] }).bots;
    const levelChosen = level.value || "normal";
    level.replaceChildren(...offered.map((b) => el("option", { value: b.level, selected: b.level === levelChosen ? true : null },
      (language() === "ko" ? b.name_ko : b.name_en) + " (" + b.rating + ")")));
    // Two sides: pick one by order of play. Four-player chess draws its
    // armies to the seats, so there the side is drawn too.
    const sides = game.seats.max === 2 ? 2 : 0;
    const named = sideNames(game, variant);
    const chosen = side.value;
    terms.textContent = t("unrated_match") + " · " + t("no_time_limit")
      + " · " + t(Games.game(game.id).takeback ? "takebacks_allowed" : "takebacks_hidden");
    side.replaceChildren(el("option", { value: "" }, t("random_side")),
      ...Array.from({ length: sides }, (_, i) => el("option", { value: String(i), selected: String(i) === chosen ? true : null },
        capital((named[i] ? t(named[i]) + " — " : "") + t(i === 0 ? "first_side" : "second_side")))));
  } });
  show(form({}, async (data) => {
    const game = picker.chosen();
    const body = picker.body(data);
    // Everyone else at the table is the computer at the chosen level.
    body.computers = Array.from({ length: game.seats.max - 1 }, () => ({ level: data.get("level") }));
    // The side by order of play (Janggi's Cho is whichever seat the
    // rules draw).
    if (data.get("seat") !== "") body.side = Number(data.get("seat"));
    const m = (await api("POST", "/v1/matches", body)).data;
    go("/matches/" + m.id);
  },
  el("h2", {}, t("play_computer")),
  picker.game,
  picker.variant,
  el("label", {}, t("level"), level),
  el("label", {}, t("side"), side),
  picker.setups,
  terms,
  el("button", { type: "submit" }, t("play_computer"))));
}
