// The welcome page a first visitor sees, and a how-to-play page for each
// game (issue #33), in English and Korean, written from the project's
// rules reference (docs/rules/): what the game is, how it is won, what
// is special. The full rules stay in the reference; these are for a
// player about to make their first move.
import { el, language, link, show, t } from "./core.js";

const GAMES = ["checkers", "janggi", "banqi", "flipchess", "four_player_chess"];

/// A small picture of each game: a few of its pieces.
const PICTURE = {
  checkers: "⛀ ⛂ ●",
  janggi: "楚 車 包 漢",
  banqi: "◼ 帥 將 ◼",
  flipchess: "♞ 🂠 ♛",
  four_player_chess: "♜ ♞ ♝ ♛",
};

const HOWTO = {
  en: {
    checkers: ["Checkers", "Two players, twelve men each on the dark squares; Black moves first.", [
      "A man steps one square diagonally forward onto an empty square.",
      "A capture jumps over an enemy piece diagonally next to it onto the empty square behind; if the same piece can jump again, it must, in the same turn.",
      "Capturing is compulsory: when you can capture, you must.",
      "A man reaching the far row becomes a king, which moves and jumps diagonally backwards as well.",
      "You win when your opponent has no pieces or no legal move. The variants (Brazilian, Russian, Pool, Spanish, International, Thai) change the board, flying kings and which way men capture.",
    ]],
    janggi: ["Janggi (Korean chess)", "Pieces stand on the intersections of a 9 × 10 board; each side has a palace with diagonal lines. Cho (green) moves first; Han (red) gets 1.5 points.", [
      "The king and the two guards never leave their palace and move one step along its lines.",
      "The chariot runs any distance straight; the cannon moves and captures only by jumping exactly one piece, and never jumps or takes a cannon.",
      "The horse steps one point straight then one diagonally; the elephant one straight then two diagonally; both are blocked by a piece on the way.",
      "Soldiers step forward or sideways, never back.",
      "Checkmate wins. You may pass when you are not in check. Kings facing each other (bikjang), two passes in a row, a third repetition or 200 moves end the match on points.",
      "Whoever makes the match picks each side's order of horses and elephants (상차림), Cho's and Han's; both are SMSM unless chosen.",
    ]],
    banqi: ["Banqi (Chinese dark chess)", "All 32 Chinese-chess pieces start face down on a 4 × 8 board; nobody knows where anything is.", [
      "On your turn, turn a piece face up, move one of yours a square up, down, left or right, or capture.",
      "The first piece turned up gives its turner that colour for the rest of the match.",
      "A piece takes an adjacent enemy of the same or lower rank: general, advisor, elephant, chariot, horse, cannon, soldier. But the soldier takes the general, and the general cannot take a soldier.",
      "The cannon captures by jumping exactly one piece along a row or column, at any distance.",
      "You win when your opponent has no pieces or no move left. A third repetition, or 180 moves without a capture or a turn-up, is a draw.",
    ]],
    flipchess: ["FlipChess", "Chess played with a hand of cards: the card you play says which pieces may move, and how many times.", [
      "Each turn, play a card that matches the pile's colour, number or symbol (a Wild fits anything and names a colour).",
      "The colour picks the pieces: red pawns, yellow knights and bishops, green rooks, blue queens; the king may always move too.",
      "The number is how many moves you get: 0–3 one, 4–6 two, 7–9 three; Skip, Draw-2 and Wild one; Flip none.",
      "There is no check: capture the king to win. In the first three rounds a captured king can be saved by flipping the board (once for free, or with a Flip card).",
      "Empty your hand and you win too — say \"last card!\" when one card is left.",
    ]],
    four_player_chess: ["Four-player chess", "Four armies (Red, Green, Blue, Gray) on a cross-shaped board; Red moves first and play goes clockwise.", [
      "Pieces move as in chess; pawns go toward the far side and promote to queens.",
      "Teams: the armies facing each other play together; mate either opponent to win.",
      "Free-for-all: a mated player is out and their pieces stay as dead pieces; the last one standing wins.",
      "Points: captures, mates and checks of two or three kings score; the highest score wins.",
      "A player missing a legal move at the start of their turn is mated when in check, stalemated otherwise.",
    ]],
  },
  ko: {
    checkers: ["체커", "두 사람이 어두운 칸에 말 12개씩 놓고 둡니다. 흑이 먼저 둡니다.", [
      "말은 대각선 앞으로 한 칸, 빈 칸으로 갑니다.",
      "잡기는 대각선으로 붙은 상대 말을 뛰어넘어 그 뒤 빈 칸으로 갑니다. 같은 말이 또 잡을 수 있으면 같은 차례에 계속 잡아야 합니다.",
      "잡을 수 있으면 반드시 잡아야 합니다.",
      "맨 끝 줄에 닿은 말은 킹이 되어 대각선 뒤로도 움직이고 잡습니다.",
      "상대에게 말이나 둘 수 있는 수가 없으면 이깁니다. 변형(브라질, 러시아, 풀, 스페인, 국제, 태국)은 판 크기와 멀리 가는 킹, 뒤로 잡기를 바꿉니다.",
    ]],
    janggi: ["장기", "말은 9 × 10 판의 교차점에 놓입니다. 양쪽에 대각선이 그려진 궁이 있습니다. 초(초록)가 먼저 두고, 한(빨강)은 덤 1.5점을 받습니다.", [
      "궁과 사는 궁 밖으로 나가지 않고 궁의 선을 따라 한 칸씩 움직입니다.",
      "차는 직선으로 몇 칸이든 갑니다. 포는 꼭 말 하나를 넘어서만 움직이고 잡으며, 포를 넘거나 잡지 못합니다.",
      "마는 직선 한 칸 뒤 대각선 한 칸, 상은 직선 한 칸 뒤 대각선 두 칸을 갑니다. 가는 길이 막히면 못 갑니다.",
      "졸과 병은 앞이나 옆으로 한 칸 가고, 뒤로는 못 갑니다.",
      "외통이면 이깁니다. 장군이 아닐 때는 한수쉼을 할 수 있습니다. 빅장, 연속 두 번의 한수쉼, 같은 국면 세 번, 200수가 되면 점수로 승부를 가립니다.",
      "대국을 만드는 사람이 초와 한 양쪽의 마·상 배치(상차림)를 고릅니다. 고르지 않으면 둘 다 상마상마입니다.",
    ]],
    banqi: ["반치 (중국 암장기)", "상기 말 32개가 모두 뒤집힌 채 4 × 8 판에서 시작합니다. 어디에 무엇이 있는지 아무도 모릅니다.", [
      "차례마다 말 하나를 뒤집거나, 내 말을 상하좌우로 한 칸 옮기거나, 잡습니다.",
      "처음 뒤집힌 말의 색이 그 말을 뒤집은 사람의 색이 됩니다.",
      "말은 붙어 있는 같은 급이나 낮은 급의 상대 말을 잡습니다. 장, 사, 상, 차, 마, 포, 졸 순서이지만 졸은 장을 잡고, 장은 졸을 못 잡습니다.",
      "포는 줄을 따라 말 하나를 뛰어넘어 거리와 상관없이 잡습니다.",
      "상대에게 말이나 둘 수가 없으면 이깁니다. 같은 국면이 세 번 나오거나, 잡기나 뒤집기 없이 180수가 지나면 무승부입니다.",
    ]],
    flipchess: ["플립체스", "카드를 들고 두는 체스입니다. 낸 카드가 어떤 말을 몇 번 움직일지 정합니다.", [
      "차례마다 버린 더미 맨 위 카드와 색, 숫자, 기호가 같은 카드를 냅니다. 와일드는 무엇에든 낼 수 있고 색을 정합니다.",
      "색이 말을 고릅니다. 빨강은 폰, 노랑은 나이트와 비숍, 초록은 룩, 파랑은 퀸이고 킹은 언제나 움직일 수 있습니다.",
      "숫자는 움직일 횟수입니다. 0–3은 한 번, 4–6은 두 번, 7–9는 세 번, 스킵·드로우2·와일드는 한 번, 플립은 0번입니다.",
      "체크는 없습니다. 킹을 잡으면 이깁니다. 첫 세 라운드에는 잡힌 킹을 판 뒤집기로 살릴 수 있습니다(무료 한 번, 또는 플립 카드로).",
      "손패를 다 내도 이깁니다. 한 장 남으면 \"라스트 카드!\"를 외치세요.",
    ]],
    four_player_chess: ["4인 체스", "네 군대(빨강, 초록, 파랑, 회색)가 십자 모양 판에서 둡니다. 빨강이 먼저, 시계 방향으로 돌아갑니다.", [
      "말은 체스처럼 움직이고, 폰은 맞은편으로 가서 퀸으로 승격합니다.",
      "팀전: 마주 보는 군대끼리 한 팀입니다. 상대 중 하나를 외통시키면 이깁니다.",
      "개인전: 외통당한 사람은 빠지고 그 말은 죽은 말로 남습니다. 마지막까지 남은 사람이 이깁니다.",
      "점수전: 잡기, 외통, 두세 킹 동시 체크로 점수를 얻고 가장 높은 점수가 이깁니다.",
      "차례가 왔을 때 둘 수가 없으면 체크면 외통, 아니면 스테일메이트입니다.",
    ]],
  },
};

const words = () => HOWTO[language()] || HOWTO.en;

/// The first page a visitor sees: what Posthorn is, the five games, and
/// the two ways in.
export function welcomePage() {
  show(el("section", { class: "card welcome" },
    el("h2", {}, t("welcome_title")),
    el("p", {}, t("welcome_lead")),
    // The ways in before the games, so a phone shows them without a scroll.
    el("p", {}, link("/signin#up", t("play_a_friend")), " · ", link("/signin#guest", t("guest"))),
    el("p", { class: "muted" }, t("welcome_computer")),
    el("ul", { class: "game-cards" }, GAMES.map((g) => el("li", {},
      el("span", { class: "game-picture", "aria-hidden": "true" }, PICTURE[g]),
      link("/how-to/" + g, words()[g][0]))))));
}

/// How to play `game`, in the page's language.
export function howToPage(game) {
  const entry = words()[game];
  if (!entry) return welcomePage();
  const [name, lead, points] = entry;
  show(el("article", { class: "card how-to", "data-game": game },
    el("h2", {}, t("how_to_play") + ": " + name),
    el("p", { class: "game-picture", "aria-hidden": "true" }, PICTURE[game]),
    el("p", {}, lead),
    el("ul", {}, points.map((p) => el("li", {}, p))),
    // The first steps, to take or replay (issue #52); a visitor plays them
    // with no account (docs/lessons.md, "A visitor").
    el("p", {}, link("/learn/" + game, t("learn_replay"))),
    el("p", {}, link("/how-to", t("all_games")))));
}

export const HOW_TO_GAMES = GAMES;
