// What every page of the web client shares: the words in English and
// Korean, the API (tokens sent to this origin only: relative URLs), small
// DOM helpers and the viewer's clock.

const WORDS = {
  en: {
    tournaments: "Tournaments", new_tournament: "New tournament", tournament: "Tournament",
    t_name: "Name", t_format: "Format", t_round_robin: "Round robin", t_double_round_robin: "Double round robin",
    t_knockout: "Knockout", t_players: "Invite players (usernames)", t_seeding: "Knockout seeds",
    t_by_rating: "by rating", t_at_random: "at random", t_open: "Taking players", t_active: "Under way",
    t_finished: "Finished", t_invited: "invited", t_joined: "playing", t_declined: "declined", t_withdrawn: "withdrew",
    t_none: "No tournaments yet.", t_start: "Start now", t_withdraw: "Withdraw", t_starts: "starts",
    t_invite: "Invite more (usernames)", t_invite_button: "Invite", t_players_title: "Players", t_points: "Points",
    t_standings: "Standings", t_crosstable: "Crosstable", t_bracket: "Bracket", t_by_bye: "bye",
    t_by_walkover: "walkover", t_by_seed: "three draws: higher seed", t_replay: "replay", t_matches: "Matches",
    t_starts_at: "Starts by itself at (optional)", t_leave: "Leave",
    players: "Players", side_black: "Black", side_white: "White", side_cho: "Cho", side_han: "Han",
    side_red: "Red", side_green: "Green", side_blue: "Blue", side_gray: "Gray", strip_to_move: "to move",
    in_check: "check!", points_short: "points", captured: "captured",
    draw_by: "Draw:", wins_singular: "wins", win_plural: "win",
    kind_your_turn: "My turn", kind_timeout_notice: "Time running out", kind_match_finished: "Match finished", kind_invitation: "Invitations and challenges", kind_invitation_accepted: "Invitation accepted", kind_draw_offered: "Draw offered", kind_flip_decision: "FlipChess flip decision", kind_player_eliminated: "A player is out", kind_match_cancelled: "Match cancelled", kind_takeback_requested: "Takeback asked", kind_takeback_answered: "Takeback answered", kind_opponent_on_vacation: "Opponent on vacation", kind_opponent_back: "Opponent back", kind_conditional_played: "Conditional move played", kind_tournament_invited: "Tournament invitation", kind_tournament_started: "Tournament started", kind_tournament_round: "Next knockout round", kind_tournament_finished: "Tournament finished",
    challenges: "Challenges to you", hours_per_turn: "h a move",
    menu: "Menu", waiting_for_me: "waiting for me", copy: "Copy", copied: "Copied", share_button: "Share",
    welcome_title: "Slow board games with friends",
    welcome_lead: "Posthorn is correspondence play: a day or two per move, from your phone. You get a reminder when it is your turn, a result that counts on a leaderboard, and five games to choose from.",
    play_a_friend: "Sign up and play a friend", how_to_play: "How to play", all_games: "All the games",
    reason_resigned: "resigned", reason_abandoned: "ran out of time (abandoned)", reason_conceded: "conceded",
    reason_draw_agreed: "agreed", reason_no_pieces: "no pieces left", reason_no_legal_move: "no legal move",
    reason_threefold_repetition: "threefold repetition", reason_no_progress: "no progress", reason_stalemate: "stalemate",
    reason_king_captured: "king captured", reason_checkmate: "checkmate", reason_bikjang: "bikjang (facing kings), on points",
    reason_double_pass: "both passed, on points", reason_ply_limit: "move limit, on points", reason_round_limit: "round limit",
    reason_hand_emptied: "hand emptied",
    matches: "My matches", new_match: "New match", settings: "Settings", sign_out: "Sign out",
    sign_in: "Sign in", sign_up: "Sign up", guest: "Play as a guest", username: "Username",
    password: "Password", email: "Email (for reminders)", nickname: "Nickname",
    your_turn: "Your turn", their_turn: "Waiting for the others", finished: "Finished",
    waiting: "Waiting for players", cancelled: "Cancelled", left: "left", none: "No matches yet.",
    invite_title: "invites you to play", join: "Join", join_as_guest: "Join as a guest",
    dealt_at_start: "The board is set up when every seat is taken.",
    email_pending: "We sent a link to this address: open it to receive reminders there.",
    email_verified: "Your email address is confirmed.", email_not_verified: "This link did not work",
    password_and_sessions: "Password and sessions", current_password: "Current password", new_password: "New password",
    change_password: "Change password", password_changed: "Password changed; your other sessions have ended.",
    sign_out_everywhere: "Sign out everywhere", sure_sign_out_everywhere: "Sign out on every device, this one too?",
    custom_start: "Starts from a custom position (unrated)", rated_match: "Rated", unrated_match: "Unrated",
    invite_gone: "This invitation can no longer be used.", create: "Create", game: "Game",
    variant: "Variant or mode", opponent: "Opponent's username (empty: a link to share)",
    turn_hours: "Hours per turn", rated: "Rated", share: "Share this link with your opponent:",
    confirm: "Confirm", cancel: "Cancel", resign: "Resign", sure_resign: "Resign this match?",
    moves: "Moves", replay: "Replay", result: "Result", deadline: "Deadline", to_move: "To move",
    other_actions: "Other actions", push_on: "Turn notifications on this device", push_off: "Turn notifications off",
    saved: "Saved.", language: "Language", time_zone: "Time zone", email_mail: "Email me", push_me: "Push to me",
    leaderboards: "Leaderboards", error: "Something went wrong", seat: "seat", you: "you",
    accept: "Accept", decline: "Decline", hand: "Your cards", save: "Save", promote: "Promote to",
    colour: "Name a colour", quiet_hours: "Quiet hours (no push)", from: "from", to: "to",
    digest: "One email a day instead of one per turn", account: "Account", notifications: "Notifications",
    friends: "Friends", add_friend: "Add a friend by username", send: "Send", requests: "Requests",
    remove: "Remove", challenge: "Challenge", rank: "Rank", rating: "Rating", games_played: "Games",
    player: "Player", around_me: "Around me", top: "Top", friends_only: "Friends", next: "More",
    profile: "Profile", head_to_head: "Head to head", awaiting: "your turn in", pile: "Pile",
    deck: "Deck", round: "Round", opponent_cards: "Their cards", moves_left: "moves left",
    rematch: "Rematch", setup_cho: "Cho setup", setup_han: "Han setup", provisional: "provisional",
    wins: "wins", losses: "losses", draws: "draws", no_one: "Nobody yet.",
    a_play: "Play", a_draw: "Draw a card", a_end_turn: "End the turn", a_call_last_card: "Last card!",
    a_catch: "Catch!", a_free_flip: "Free flip", a_flip_card: "Flip with", a_concede: "Concede",
    a_offer_draw: "Offer a draw", a_accept_draw: "Accept the draw", a_decline_draw: "Decline the draw",
    a_pass: "Pass", a_turn_up: "Turn up", a_grant_time: "Give them 24 hours more",
    play_computer: "Play the computer", level: "Level", side: "Your side", computer: "computer",
    takebacks: "Opponents may ask me to take a move back", takebacks_never: "Never", takebacks_unrated: "In unrated matches", takebacks_always: "Always",
    vacation: "Vacation", vacation_left: "Vacation left", on_vacation: "on vacation", until: "until", days: "days", hours: "hours",
    auto_vacation: "Use my vacation before I time out", end_vacation: "I'm back", start_vacation: "Go on vacation", vacation_until: "Until (optional)",
    vacation_explained: "Your clocks stop in every match while you are away; the days are spent only while somebody waits for you.",
    conditional_moves: "Conditional moves", if_they: "If they play", i_reply: "I reply", save_line: "Keep this line",
    plan_line: "Plan a reply", forget_lines: "Forget my lines", no_lines: "No line kept: plan a reply to a move they may play.",
    ask_take_back: "Ask to take back my move", takeback_asked: "You asked to take back your last move; waiting for your opponent.",
    takeback_offer: "Your opponent asks to take back their last move.",
    take_back: "Take back my move", no_time_limit: "No time limit", random_side: "Drawn at random",
    computer_thinking: "The computer is thinking…", first_side: "moves first", taken_back: "taken back",
    level_easy: "easy", level_normal: "normal", level_hard: "hard",
    find_opponent: "Find an opponent", waiting_seeks: "Waiting for an opponent", withdraw: "Withdraw", play: "Play",
    computer_fallback: "If nobody comes, play the computer", never: "Never", after_minute: "after a minute",
    after_5_minutes: "after 5 minutes", after_hour: "after an hour",
  },
  ko: {
    tournaments: "토너먼트", new_tournament: "새 토너먼트", tournament: "토너먼트",
    t_name: "이름", t_format: "방식", t_round_robin: "리그전", t_double_round_robin: "더블 리그전",
    t_knockout: "토너먼트(녹아웃)", t_players: "초대할 선수 (아이디)", t_seeding: "녹아웃 시드",
    t_by_rating: "레이팅순", t_at_random: "무작위", t_open: "참가 받는 중", t_active: "진행 중",
    t_finished: "종료", t_invited: "초대됨", t_joined: "참가", t_declined: "거절함", t_withdrawn: "기권함",
    t_none: "아직 토너먼트가 없어요.", t_start: "지금 시작", t_withdraw: "토너먼트 기권", t_starts: "시작",
    t_invite: "더 초대하기 (아이디)", t_invite_button: "초대", t_players_title: "선수", t_points: "승점",
    t_standings: "순위", t_crosstable: "대진표", t_bracket: "대진", t_by_bye: "부전승",
    t_by_walkover: "기권승", t_by_seed: "세 번 무승부: 상위 시드", t_replay: "재경기", t_matches: "대국",
    t_starts_at: "자동 시작 시각 (선택)", t_leave: "나가기",
    players: "선수", side_black: "흑", side_white: "백", side_cho: "초", side_han: "한",
    side_red: "빨강", side_green: "초록", side_blue: "파랑", side_gray: "회색", strip_to_move: "차례",
    in_check: "장군!", points_short: "점", captured: "잡은 말",
    draw_by: "무승부:", wins_singular: "승리", win_plural: "승리",
    kind_your_turn: "내 차례", kind_timeout_notice: "시간이 얼마 안 남음", kind_match_finished: "대국 종료", kind_invitation: "초대와 도전", kind_invitation_accepted: "초대 수락", kind_draw_offered: "무승부 제안", kind_flip_decision: "플립체스 뒤집기 결정", kind_player_eliminated: "탈락한 선수", kind_match_cancelled: "대국 취소", kind_takeback_requested: "무르기 요청", kind_takeback_answered: "무르기 답변", kind_opponent_on_vacation: "상대 휴가", kind_opponent_back: "상대 복귀", kind_conditional_played: "예약한 수가 두어짐", kind_tournament_invited: "토너먼트 초대", kind_tournament_started: "토너먼트 시작", kind_tournament_round: "다음 라운드", kind_tournament_finished: "토너먼트 종료",
    challenges: "받은 도전", hours_per_turn: "시간/수",
    menu: "메뉴", waiting_for_me: "나를 기다리는 것", copy: "복사", copied: "복사했어요", share_button: "공유",
    welcome_title: "친구와 천천히 두는 보드게임",
    welcome_lead: "Posthorn은 통신 대국 서비스예요. 휴대폰으로 한 수에 하루나 이틀씩 둡니다. 내 차례가 오면 알림을 받고, 결과는 순위표에 올라가요. 다섯 가지 게임 중에서 골라 보세요.",
    play_a_friend: "가입하고 친구와 두기", how_to_play: "게임 방법", all_games: "모든 게임",
    reason_resigned: "기권", reason_abandoned: "시간 초과(기권패)", reason_conceded: "인정",
    reason_draw_agreed: "합의", reason_no_pieces: "남은 말 없음", reason_no_legal_move: "둘 수 있는 수 없음",
    reason_threefold_repetition: "동형 3회 반복", reason_no_progress: "진행 없음", reason_stalemate: "스테일메이트",
    reason_king_captured: "왕을 잡음", reason_checkmate: "외통", reason_bikjang: "빅장, 점수로",
    reason_double_pass: "양쪽 한수쉼, 점수로", reason_ply_limit: "수 제한, 점수로", reason_round_limit: "라운드 제한",
    reason_hand_emptied: "손패를 모두 냄",
    matches: "내 대국", new_match: "새 대국", settings: "설정", sign_out: "로그아웃",
    sign_in: "로그인", sign_up: "가입", guest: "손님으로 두기", username: "아이디",
    password: "비밀번호", email: "이메일 (알림용)", nickname: "별명",
    your_turn: "내 차례", their_turn: "상대 차례", finished: "끝남",
    waiting: "상대를 기다리는 중", cancelled: "취소됨", left: "남음", none: "아직 대국이 없어요.",
    invite_title: "님이 대국을 신청했어요", join: "참가", join_as_guest: "손님으로 참가",
    dealt_at_start: "모든 자리가 차면 판을 차려요.",
    email_pending: "이 주소로 확인 링크를 보냈어요. 링크를 열면 알림을 받을 수 있어요.",
    email_verified: "이메일 주소가 확인됐어요.", email_not_verified: "링크가 작동하지 않았어요",
    password_and_sessions: "비밀번호와 로그인 기기", current_password: "현재 비밀번호", new_password: "새 비밀번호",
    change_password: "비밀번호 바꾸기", password_changed: "비밀번호를 바꿨어요. 다른 기기에서는 로그아웃됐어요.",
    sign_out_everywhere: "모든 기기에서 로그아웃", sure_sign_out_everywhere: "이 기기를 포함해 모든 기기에서 로그아웃할까요?",
    custom_start: "정해진 국면에서 시작 (등급 미반영)", rated_match: "등급전", unrated_match: "친선전",
    invite_gone: "이 초대는 더 쓸 수 없어요.", create: "만들기", game: "게임",
    variant: "변형 또는 방식", opponent: "상대 아이디 (비우면 공유 링크)",
    turn_hours: "한 수 시간(시간)", rated: "레이팅", share: "이 링크를 상대에게 보내세요:",
    confirm: "확인", cancel: "취소", resign: "기권", sure_resign: "이 대국을 기권할까요?",
    moves: "기보", replay: "다시 보기", result: "결과", deadline: "마감", to_move: "차례",
    other_actions: "다른 행동", push_on: "이 기기로 차례 알림 받기", push_off: "알림 끄기",
    saved: "저장했어요.", language: "언어", time_zone: "시간대", email_mail: "이메일 받기", push_me: "푸시 받기",
    leaderboards: "순위표", error: "문제가 생겼어요", seat: "자리", you: "나",
    play_computer: "컴퓨터와 두기", level: "수준", side: "내 편", computer: "컴퓨터",
    takebacks: "상대의 무르기 요청 받기", takebacks_never: "받지 않음", takebacks_unrated: "비공식 대국에서만", takebacks_always: "항상",
    vacation: "휴가", vacation_left: "남은 휴가", on_vacation: "휴가 중", until: "~", days: "일", hours: "시간",
    auto_vacation: "시간이 다 되면 휴가를 대신 쓰기", end_vacation: "돌아왔어요", start_vacation: "휴가 가기", vacation_until: "끝나는 날(선택)",
    vacation_explained: "자리를 비운 동안 모든 대국의 시간이 멈춰요. 누군가 나를 기다리는 동안에만 휴가가 줄어요.",
    conditional_moves: "예약 수", if_they: "상대가 두면", i_reply: "내 응수", save_line: "이 수순 저장",
    plan_line: "응수 예약하기", forget_lines: "예약 모두 지우기", no_lines: "예약한 수순이 없어요. 상대가 둘 만한 수에 응수를 예약하세요.",
    ask_take_back: "무르기 요청", takeback_asked: "마지막 수 무르기를 요청했어요. 상대의 답을 기다려요.",
    takeback_offer: "상대가 마지막 수를 무르고 싶어 해요.",
    take_back: "한 수 무르기", no_time_limit: "시간 제한 없음", random_side: "무작위",
    computer_thinking: "컴퓨터가 생각하는 중…", first_side: "먼저 둠", taken_back: "무름",
    level_easy: "쉬움", level_normal: "보통", level_hard: "어려움",
    find_opponent: "상대 찾기", waiting_seeks: "상대를 기다리는 대국", withdraw: "취소", play: "두기",
    computer_fallback: "아무도 오지 않으면 컴퓨터와 두기", never: "안 함", after_minute: "1분 뒤",
    after_5_minutes: "5분 뒤", after_hour: "1시간 뒤",
    accept: "수락", decline: "거절", hand: "내 카드", save: "저장", promote: "승격",
    colour: "색을 고르세요", quiet_hours: "방해 금지 시간 (푸시 없음)", from: "부터", to: "까지",
    digest: "차례마다 말고 하루 한 번 이메일", account: "계정", notifications: "알림",
    friends: "친구", add_friend: "아이디로 친구 추가", send: "보내기", requests: "친구 요청",
    remove: "삭제", challenge: "대국 신청", rank: "순위", rating: "레이팅", games_played: "대국 수",
    player: "선수", around_me: "내 주변", top: "상위", friends_only: "친구", next: "더 보기",
    profile: "프로필", head_to_head: "상대 전적", awaiting: "내 차례인 대국", pile: "버린 더미",
    deck: "덱", round: "라운드", opponent_cards: "상대 카드", moves_left: "수 남음",
    rematch: "재대국", setup_cho: "초 상차림", setup_han: "한 상차림", provisional: "잠정",
    wins: "승", losses: "패", draws: "무", no_one: "아직 아무도 없어요.",
    a_play: "내기", a_draw: "카드 뽑기", a_end_turn: "차례 끝내기", a_call_last_card: "라스트 카드!",
    a_catch: "잡았다!", a_free_flip: "무료 뒤집기", a_flip_card: "뒤집기 카드", a_concede: "인정하기",
    a_offer_draw: "무승부 제안", a_accept_draw: "무승부 수락", a_decline_draw: "무승부 거절",
    a_pass: "한수쉼", a_turn_up: "뒤집기", a_grant_time: "상대에게 24시간 더 주기",
  },
};

let lang = (navigator.language || "en").toLowerCase().startsWith("ko") ? "ko" : "en";

export const t = (key) => (WORDS[lang] && WORDS[lang][key]) || WORDS.en[key] || key;
export const language = () => lang;

export function setLanguage(next) {
  lang = next === "ko" ? "ko" : "en";
  document.documentElement.lang = lang;
}

const store = window.localStorage;

export const session = {
  get access() { return store.getItem("access_token"); },
  get refresh() { return store.getItem("refresh_token"); },
  save(s) {
    store.setItem("access_token", s.access_token);
    if (s.refresh_token) store.setItem("refresh_token", s.refresh_token);
    if (s.user) store.setItem("user", JSON.stringify(s.user));
  },
  remember(user) { store.setItem("user", JSON.stringify(user)); },
  clear() { ["access_token", "refresh_token", "user", "push_id"].forEach((k) => store.removeItem(k)); },
  user() { try { return JSON.parse(store.getItem("user")); } catch (_) { return null; } },
  get pushId() { return store.getItem("push_id"); },
  set pushId(id) { store.setItem("push_id", id); },
};

export async function api(method, path, body, headers) {
  const send = () => fetch(path, {
    method,
    headers: Object.assign(
      // The service's problem documents in the page's language (issue #33).
      { "content-type": "application/json", "accept-language": lang },
      session.access ? { authorization: "Bearer " + session.access } : {},
      headers || {},
    ),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let response = await send();
  if (response.status === 401 && session.refresh) {
    const renewed = await fetch("/v1/sessions/refresh", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ refresh_token: session.refresh }),
    });
    if (renewed.ok) {
      session.save(await renewed.json());
      response = await send();
    }
  }
  const text = await response.text();
  const data = text ? JSON.parse(text) : null;
  if (!response.ok && response.status !== 304) {
    const error = new Error((data && data.detail) || response.statusText);
    error.status = response.status;
    error.problem = data;
    throw error;
  }
  return { status: response.status, data, etag: response.headers.get("etag") };
}

export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "on") for (const [event, f] of Object.entries(v)) node.addEventListener(event, f);
    else if (v === true) node.setAttribute(k, "");
    else if (v !== false && v !== null && v !== undefined) node.setAttribute(k, v);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined && child !== false) {
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
  }
  return node;
}

const main = () => document.getElementById("main");

export function show(...nodes) {
  main().replaceChildren(...nodes.filter((n) => n !== null && n !== undefined && n !== false));
}

export function fail(error) {
  show(el("p", { class: "error", role: "alert" }, t("error") + ": " + error.message));
}

/// A form whose submit runs `then(data)`; a failure is shown in place.
export function form(attrs, then, ...children) {
  return el("form", Object.assign({ class: "card" }, attrs, {
    on: {
      submit: async (event) => {
        event.preventDefault();
        try { await then(new FormData(event.target), event.target); } catch (error) { fail(error); }
      },
    },
  }), ...children);
}

const routes = { go: null };
export function onNavigate(f) { routes.go = f; }
export function go(path) {
  history.pushState(null, "", path);
  routes.go();
}

/// An invitation link to hand on in one tap (issue #33): the link, a copy
/// button, and the phone's own share sheet where the Web Share API exists.
export function shareLink(url, title) {
  const said = el("span", { class: "muted", role: "status" });
  const copy = el("button", { type: "button", class: "secondary", "data-action": "copy_link", on: { click: async () => {
    try { await navigator.clipboard.writeText(url); said.textContent = t("copied"); } catch (_) { input.select(); }
  } } }, t("copy"));
  const share = navigator.share
    ? el("button", { type: "button", "data-action": "share_link", on: { click: () => navigator.share({ title, url }).catch(() => {}) } }, t("share_button"))
    : null;
  const input = el("input", { readonly: true, value: url, class: "share", "aria-label": t("share") });
  return el("div", { class: "share-link" }, input, copy, share, said);
}

export function link(path, ...text) {
  return el("a", { href: path, "data-link": true }, ...text);
}

// ---- time, in the viewer's chosen time zone ----
export function countdown(iso) {
  const ms = new Date(iso).getTime() - Date.now();
  if (ms <= 0) return "0 " + t("left");
  const hours = Math.floor(ms / 3600000);
  const minutes = Math.floor((ms % 3600000) / 60000);
  return (hours >= 24 ? Math.floor(hours / 24) + "d " + (hours % 24) + "h" : hours + "h " + minutes + "m") + " " + t("left");
}

export function zone() {
  const user = session.user();
  return (user && user.time_zone && user.time_zone !== "UTC" ? user.time_zone : undefined);
}

export function local(iso) {
  const options = { dateStyle: "medium", timeStyle: "short", timeZone: zone() };
  return new Date(iso).toLocaleString(lang === "ko" ? "ko-KR" : "en-GB", options);
}

export function gameName(m) {
  const choice = m.variant || m.mode;
  return m.game.replace(/_/g, " ") + (choice ? " (" + choice + ")" : "");
}

export function displayName(seat) {
  if (!seat || !seat.user) return "…";
  // A computer opponent says so everywhere it is named (issue #32).
  return seat.user.computer ? t("computer") + " · " + t("level_" + seat.user.computer) : seat.user.display_name;
}

/// Whether a computer holds a seat of the match.
export const againstComputer = (m) => m.seats.some((s) => s.user && s.user.computer);

/// The game, its variant or mode and (`setups`) Janggi's setups (§J2,
/// SMSM unless chosen), as every form that starts a match asks them:
/// the form's fields, the chosen game, and its part of a request body.
/// `changed(game)` runs whenever the game changes, and once at once.
export function gameChoice(games, { setups = true, changed = () => {} } = {}) {
  const variant = el("select", { name: "variant" });
  const janggi = el("div", { class: "setups" });
  const select = el("select", { name: "game", on: { change: fill } }, games.map((g) => el("option", { value: g.id }, g.name)));
  const chosen = () => games.find((g) => g.id === select.value);
  const hasModes = (game) => game.modes && game.modes.length;
  function fill() {
    const game = chosen();
    const options = (hasModes(game) ? game.modes : game.variants) || [];
    variant.replaceChildren(...options.map((o) => el("option", { value: o }, o)));
    variant.disabled = options.length === 0;
    const setup = (side) => el("label", {}, t("setup_" + side), el("select", { name: "setup_" + side },
      ["SMSM", "MSMS", "MSSM", "SMMS"].map((o) => el("option", { value: o }, o))));
    janggi.replaceChildren(...(setups && game.id === "janggi" ? [setup("cho"), setup("han")] : []));
    changed(game);
  }
  fill();
  return {
    game: el("label", {}, t("game"), select),
    variant: el("label", {}, t("variant"), variant),
    setups: janggi,
    chosen,
    /// `{game, variant | mode, options?}` from the form's data.
    body(data) {
      const game = chosen();
      const body = { game: game.id };
      if (data.get("variant")) body[hasModes(game) ? "mode" : "variant"] = data.get("variant");
      if (setups && game.id === "janggi") body.options = { setups: { cho: data.get("setup_cho"), han: data.get("setup_han") } };
      return body;
    },
  };
}
