// The registry of the games the client draws: one module per game, each
// exporting `layout(view, mySeat)` → {cols, rows, cells, pieces} and
// `squaresOf(action)` → {from, to} | {at} | null, and where it has them a
// `panel(view, mySeat, actions, choose, active, waiting)` under the board
// (`waiting`: the match page's confirm or choice, {action, bar, send}, which
// the panel may hold where the tap was), a
// `picker(choices, take)` for several actions from one tap (null leaves
// the choice to the match page's promotion picker), and
// `takeback = false` (hidden information, §H1) or `askTakeback = false`
// (no takeback asked of another person). A new game adds one
// module and one line here.
import * as checkers from "./checkers.js";
import * as flipchess from "./flipchess.js";
import * as janggi from "./janggi.js";
import * as banqi from "./banqi.js";
import * as four_player_chess from "./four_player_chess.js";

const GAMES = { checkers, flipchess, janggi, banqi, four_player_chess };

const NONE = { layout: () => ({ cols: 0, rows: 0, cells: [], pieces: {} }), squaresOf: () => null };

/// The module of `id`, with the defaults of what it leaves out.
export function game(id) {
  const known = GAMES[id] || NONE;
  return {
    layout: known.layout,
    squaresOf: known.squaresOf,
    panel: known.panel || (() => null),
    // Who plays what (player strips): each seat's side, the side to move.
    sides: known.sides || (() => []),
    toMove: known.toMove || (() => null),
    inCheck: known.inCheck || (() => false),
    // The squares of kings in check, marked on the board.
    checked: known.checked || (() => []),
    // The team of an army, where armies play in teams (four-player chess).
    team: known.team || (() => null),
    picker: known.picker || (() => null),
    // A card's name for people (FlipChess), from its API name.
    cardName: known.cardName || ((name) => String(name)),
    takeback: known.takeback !== false,
    askTakeback: known.askTakeback !== false,
    // Lines planned on a board, where nothing is hidden (as takebacks).
    plan: known.takeback !== false && known.askTakeback !== false,
  };
}
