// Posthorn's web client: every page of the PWA, drawn from the REST API.
// No framework and no third party. The tokens live in this origin's
// storage and are sent to this origin only (relative URLs).
"use strict";

(function () {
  const main = document.getElementById("main");
  const nav = document.getElementById("nav");

  // ---- words, English and Korean ----
  const WORDS = {
    en: {
      matches: "My matches", new_match: "New match", settings: "Settings", sign_out: "Sign out",
      sign_in: "Sign in", sign_up: "Sign up", guest: "Play as a guest", username: "Username",
      password: "Password", email: "Email (for reminders)", nickname: "Nickname",
      your_turn: "Your turn", their_turn: "Waiting for the others", finished: "Finished",
      waiting: "Waiting for players", cancelled: "Cancelled", left: "left", none: "No matches yet.",
      invite_title: "invites you to play", join: "Join", join_as_guest: "Join as a guest",
      invite_gone: "This invitation can no longer be used.", create: "Create", game: "Game",
      variant: "Variant or mode", opponent: "Opponent's username (empty: a link to share)",
      turn_hours: "Hours per turn", rated: "Rated", share: "Share this link with your opponent:",
      confirm: "Confirm", cancel: "Cancel", resign: "Resign", sure_resign: "Resign this match?",
      moves: "Moves", replay: "Replay", result: "Result", deadline: "Deadline", to_move: "To move",
      other_actions: "Other actions", push_on: "Turn notifications on this device", push_off: "Turn notifications off",
      saved: "Saved.", language: "Language", time_zone: "Time zone", email_mail: "Email me", push_me: "Push to me",
      leaderboards: "Leaderboards", error: "Something went wrong", seat: "seat", you: "you",
      accept: "Accept", decline: "Decline", hand: "Your cards", save: "Save",
    },
    ko: {
      matches: "내 대국", new_match: "새 대국", settings: "설정", sign_out: "로그아웃",
      sign_in: "로그인", sign_up: "가입", guest: "손님으로 두기", username: "아이디",
      password: "비밀번호", email: "이메일 (알림용)", nickname: "별명",
      your_turn: "내 차례", their_turn: "상대 차례", finished: "끝남",
      waiting: "상대를 기다리는 중", cancelled: "취소됨", left: "남음", none: "아직 대국이 없어요.",
      invite_title: "님이 대국을 신청했어요", join: "참가", join_as_guest: "손님으로 참가",
      invite_gone: "이 초대는 더 쓸 수 없어요.", create: "만들기", game: "게임",
      variant: "변형 또는 방식", opponent: "상대 아이디 (비우면 공유 링크)",
      turn_hours: "한 수 시간(시간)", rated: "레이팅", share: "이 링크를 상대에게 보내세요:",
      confirm: "확인", cancel: "취소", resign: "기권", sure_resign: "이 대국을 기권할까요?",
      moves: "기보", replay: "다시 보기", result: "결과", deadline: "마감", to_move: "차례",
      other_actions: "다른 행동", push_on: "이 기기로 차례 알림 받기", push_off: "알림 끄기",
      saved: "저장했어요.", language: "언어", time_zone: "시간대", email_mail: "이메일 받기", push_me: "푸시 받기",
      leaderboards: "순위표", error: "문제가 생겼어요", seat: "자리", you: "나",
      accept: "수락", decline: "거절", hand: "내 카드", save: "저장",
    },
  };
  let lang = (navigator.language || "en").toLowerCase().startsWith("ko") ? "ko" : "en";
  const t = (key) => (WORDS[lang] && WORDS[lang][key]) || WORDS.en[key] || key;

  // ---- the API ----
  const store = window.localStorage;
  const session = {
    get access() { return store.getItem("access_token"); },
    get refresh() { return store.getItem("refresh_token"); },
    save(s) {
      store.setItem("access_token", s.access_token);
      if (s.refresh_token) store.setItem("refresh_token", s.refresh_token);
      if (s.user) store.setItem("user", JSON.stringify(s.user));
    },
    clear() { ["access_token", "refresh_token", "user", "push_id"].forEach((k) => store.removeItem(k)); },
    user() { try { return JSON.parse(store.getItem("user")); } catch (_) { return null; } },
  };

  async function api(method, path, body, headers) {
    const send = () => fetch(path, {
      method,
      headers: Object.assign(
        { "content-type": "application/json" },
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

  // ---- small DOM helpers ----
  function el(tag, attrs, ...children) {
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

  function show(...nodes) {
    main.replaceChildren(...nodes.filter((n) => n !== null && n !== undefined && n !== false));
  }

  function fail(error) {
    show(el("p", { class: "error", role: "alert" }, t("error") + ": " + error.message));
  }

  function go(path) {
    history.pushState(null, "", path);
    route();
  }

  document.addEventListener("click", (event) => {
    const link = event.target.closest("a[data-link]");
    if (link && link.origin === location.origin) {
      event.preventDefault();
      go(link.pathname);
    }
  });
  window.addEventListener("popstate", route);

  function drawNav() {
    const user = session.user();
    nav.replaceChildren(
      ...(user
        ? [
            el("a", { href: "/", "data-link": true }, t("matches")),
            el("a", { href: "/new", "data-link": true }, t("new_match")),
            el("a", { href: "/settings", "data-link": true }, t("settings")),
            el("button", { type: "button", class: "link", on: { click: signOut } }, t("sign_out")),
          ]
        : [el("a", { href: "/signin", "data-link": true }, t("sign_in"))]),
    );
  }

  async function signOut() {
    const pushId = store.getItem("push_id");
    try {
      if (pushId) await api("DELETE", "/v1/push-subscriptions/" + pushId);
      const registration = await navigator.serviceWorker?.getRegistration();
      const subscription = await registration?.pushManager?.getSubscription();
      await subscription?.unsubscribe();
      await api("DELETE", "/v1/sessions/current");
    } catch (_) { /* signed out locally whatever the server said */ }
    session.clear();
    go("/");
  }

  // ---- time ----
  function countdown(iso) {
    const ms = new Date(iso).getTime() - Date.now();
    if (ms <= 0) return "0 " + t("left");
    const hours = Math.floor(ms / 3600000);
    const minutes = Math.floor((ms % 3600000) / 60000);
    return (hours >= 24 ? Math.floor(hours / 24) + "d " + (hours % 24) + "h" : hours + "h " + minutes + "m") + " " + t("left");
  }

  function local(iso) {
    return new Date(iso).toLocaleString(lang === "ko" ? "ko-KR" : undefined, { dateStyle: "medium", timeStyle: "short" });
  }

  setInterval(() => {
    for (const node of document.querySelectorAll("[data-deadline]")) {
      node.textContent = countdown(node.getAttribute("data-deadline"));
    }
  }, 30000);

  // ---- pages ----
  function signInPage(then) {
    const form = (mode) => {
      const fields = [
        el("label", {}, t("username"), el("input", { name: "username", required: true, autocomplete: "username" })),
        el("label", {}, t("password"), el("input", { name: "password", type: "password", required: true, autocomplete: mode === "up" ? "new-password" : "current-password" })),
      ];
      if (mode === "up") fields.push(el("label", {}, t("email"), el("input", { name: "email", type: "email" })));
      return el("form", {
        class: "card",
        on: {
          submit: async (event) => {
            event.preventDefault();
            const data = Object.fromEntries(new FormData(event.target));
            if (!data.email) delete data.email;
            try {
              const reply = await api("POST", mode === "up" ? "/v1/accounts" : "/v1/sessions", data);
              session.save(reply.data);
              drawNav();
              then ? then() : go("/");
            } catch (error) { fail(error); }
          },
        },
      }, el("h2", {}, mode === "up" ? t("sign_up") : t("sign_in")), ...fields, el("button", { type: "submit" }, mode === "up" ? t("sign_up") : t("sign_in")));
    };
    const guest = el("form", {
      class: "card",
      on: {
        submit: async (event) => {
          event.preventDefault();
          try {
            const reply = await api("POST", "/v1/guests", { nickname: new FormData(event.target).get("nickname") });
            session.save(reply.data);
            drawNav();
            then ? then() : go("/");
          } catch (error) { fail(error); }
        },
      },
    }, el("h2", {}, t("guest")), el("label", {}, t("nickname"), el("input", { name: "nickname", required: true })), el("button", { type: "submit" }, t("guest")));
    show(form("in"), form("up"), guest);
  }

  function statusLine(m) {
    if (m.status !== "active") return t(m.status);
    const mine = m.to_act.find((d) => m.my_seats.includes(d.seat));
    const duty = mine || m.to_act[0];
    return el("span", {}, mine ? t("your_turn") : t("their_turn"), duty ? el("span", { class: "deadline", "data-deadline": duty.deadline_at }, " · " + countdown(duty.deadline_at)) : null);
  }

  async function matchesPage() {
    const reply = await api("GET", "/v1/matches");
    const items = reply.data.items;
    if (!items.length) return show(el("p", { class: "muted" }, t("none")), el("a", { href: "/new", "data-link": true, class: "button" }, t("new_match")));
    show(el("ul", { class: "matches" }, items.map((m) => {
      const others = m.seats.filter((s) => !m.my_seats.includes(s.seat)).map((s) => (s.user ? s.user.display_name : "…")).join(", ");
      return el("li", {}, el("a", { href: "/matches/" + m.id, "data-link": true },
        el("strong", {}, gameName(m)), " — ", others, el("br"), statusLine(m)));
    })));
  }

  function gameName(m) {
    const choice = m.variant || m.mode;
    return m.game.replace(/_/g, " ") + (choice ? " (" + choice + ")" : "");
  }

  async function newMatchPage() {
    const games = (await api("GET", "/v1/games")).data;
    const choice = el("select", { name: "variant" });
    const gameSelect = el("select", { name: "game", on: { change: fill } }, games.map((g) => el("option", { value: g.id }, g.name)));
    function fill() {
      const game = games.find((g) => g.id === gameSelect.value);
      const options = (game.variants && game.variants.length ? game.variants : game.modes) || [];
      choice.replaceChildren(...options.map((o) => el("option", { value: o }, o)));
      choice.disabled = options.length === 0;
    }
    fill();
    const form = el("form", {
      class: "card",
      on: {
        submit: async (event) => {
          event.preventDefault();
          const data = new FormData(event.target);
          const game = games.find((g) => g.id === data.get("game"));
          const body = { game: game.id, turn_hours: Number(data.get("turn_hours")) || 48, rated: data.get("rated") === "on" };
          if (data.get("variant")) body[game.modes && game.modes.length ? "mode" : "variant"] = data.get("variant");
          const opponent = (data.get("opponent") || "").trim();
          if (opponent) body.opponents = opponent.split(/[ ,]+/);
          else body.open_seats = game.seats.min - 1;
          try {
            const m = (await api("POST", "/v1/matches", body)).data;
            const invites = m.invites && m.invites.length ? m.invites : m.invite ? [m.invite] : [];
            if (invites.length) {
              show(el("div", { class: "card" }, el("p", {}, t("share")),
                invites.map((i) => el("p", {}, el("input", { readonly: true, value: location.origin + "/invite/" + i.code, class: "share", "aria-label": "invite link" }))),
                el("a", { href: "/matches/" + m.id, "data-link": true, class: "button" }, gameName(m))));
            } else go("/matches/" + m.id);
          } catch (error) { fail(error); }
        },
      },
    },
    el("h2", {}, t("new_match")),
    el("label", {}, t("game"), gameSelect),
    el("label", {}, t("variant"), choice),
    el("label", {}, t("opponent"), el("input", { name: "opponent", autocomplete: "off" })),
    el("label", {}, t("turn_hours"), el("input", { name: "turn_hours", type: "number", min: "1", max: "336", value: "48" })),
    el("label", { class: "check" }, el("input", { name: "rated", type: "checkbox" }), t("rated")),
    el("button", { type: "submit" }, t("create")));
    show(form);
  }

  async function invitePage(code) {
    const invite = (await api("GET", "/v1/invites/" + encodeURIComponent(code))).data;
    const title = el("h2", {}, invite.inviter.display_name + " " + t("invite_title") + ": " + gameName(invite));
    if (!invite.open) return show(el("div", { class: "card" }, title, el("p", {}, t("invite_gone"))));
    const accept = async () => {
      try {
        const m = (await api("POST", "/v1/invites/" + encodeURIComponent(code) + "/accept")).data;
        go("/matches/" + m.id);
      } catch (error) { fail(error); }
    };
    if (session.access) {
      return show(el("div", { class: "card" }, title, el("button", { type: "button", on: { click: accept } }, t("join"))));
    }
    const guest = el("form", {
      class: "card",
      on: {
        submit: async (event) => {
          event.preventDefault();
          try {
            const reply = await api("POST", "/v1/guests", { nickname: new FormData(event.target).get("nickname") });
            session.save(reply.data);
            drawNav();
            await accept();
          } catch (error) { fail(error); }
        },
      },
    }, title, el("label", {}, t("nickname"), el("input", { name: "nickname", required: true, autocomplete: "nickname" })),
    el("button", { type: "submit" }, t("join_as_guest")),
    el("p", {}, el("a", { href: "/signin", "data-link": true }, t("sign_in"))));
    show(guest);
  }

  // ---- the match page ----
  let watching = null;

  async function matchPage(id) {
    const state = { id, match: null, etag: null, legal: null, events: [], selected: null, pending: null, replayAt: null, replayView: null };
    window.__posthornMatch = state;
    const load = async () => {
      const reply = await api("GET", "/v1/matches/" + id, undefined, state.etag ? { "if-none-match": state.etag } : {});
      if (reply.status !== 304) {
        state.match = reply.data;
        state.etag = reply.etag;
        state.legal = state.match.status === "active" || state.match.status === "waiting"
          ? (await api("GET", "/v1/matches/" + id + "/legal-actions")).data : { actions: [], seats: [] };
        const feed = (await api("GET", "/v1/matches/" + id + "/events?after=" + (state.events.length ? state.events[state.events.length - 1].seq : 0))).data;
        state.events = state.events.concat(feed.events);
      }
    };
    await load();
    draw(state);
    // Poll the event feed; fetch the match again only when it moved.
    clearInterval(watching);
    watching = setInterval(async () => {
      if (document.hidden || location.pathname !== "/matches/" + id || state.pending) return;
      try {
        const after = state.match.seq;
        const feed = (await api("GET", "/v1/matches/" + id + "/events?after=" + after)).data;
        if (feed.events.length) {
          await load();
          draw(state);
        }
      } catch (_) { /* a slow or lost connection: try again next time */ }
    }, 10000);
    state.reload = async () => { await load(); draw(state); };
  }

  function mySeat(m) {
    return m.my_seats.length ? m.my_seats[0] : undefined;
  }

  function draw(state) {
    const m = state.match;
    const game = m.game;
    const replaying = state.replayView !== null && state.replayView !== undefined;
    const view = replaying ? state.replayView : m.view;
    const board = Boards.layout(game, view, mySeat(m));
    const actions = replaying ? [] : (state.legal && state.legal.actions) || [];
    const moves = actions.map((a) => ({ action: a, squares: Boards.squaresOf(game, a) })).filter((x) => x.squares);
    const last = view.last_move || view.last_action;
    const lastSquares = last ? Boards.squaresOf(game, { type: "move", move: last }) : null;
    const targets = new Set(state.selected ? moves.filter((x) => x.squares.from === state.selected).map((x) => x.squares.to) : []);
    const starts = new Set(moves.map((x) => x.squares.from || x.squares.at));
    const grid = el("div", { class: "board " + game, role: "group", "aria-label": gameName(m) });
    // CSSOM, not a style attribute: the CSP allows no inline style.
    grid.style.gridTemplateColumns = "repeat(" + board.cols + ", 1fr)";
    grid.style.aspectRatio = board.cols + " / " + board.rows;
    for (const cell of board.cells) {
      const piece = cell.id ? board.pieces[cell.id] : null;
      const classes = ["sq", cell.dark ? "dark" : "light"];
      if (cell.id && targets.has(cell.id)) classes.push("target");
      if (cell.id && cell.id === state.selected) classes.push("selected");
      if (lastSquares && (cell.id === lastSquares.from || cell.id === lastSquares.to)) classes.push("last");
      const label = (cell.id || "") + (piece ? " " + piece.label : "");
      const node = el(cell.id ? "button" : "div", {
        class: classes.join(" "),
        type: cell.id ? "button" : null,
        "aria-label": cell.id ? label : null,
        "data-square": cell.id,
        disabled: cell.id && !(starts.has(cell.id) || targets.has(cell.id)) ? true : null,
        on: cell.id ? { click: () => pick(state, cell.id, moves) } : {},
      }, piece ? el("span", { class: "piece " + piece.cls, "aria-hidden": "true" }, piece.glyph) : cell.number ? el("span", { class: "num", "aria-hidden": "true" }, cell.number) : null);
      node.style.gridColumn = String(cell.col + 1);
      node.style.gridRow = String(cell.row + 1);
      grid.append(node);
    }
    const others = actions.filter((a) => !Boards.squaresOf(game, a) && a.type !== "resign");
    const confirm = state.pending
      ? el("div", { class: "confirm card", role: "dialog" }, el("p", {}, describe(state.pending)),
          el("button", { type: "button", on: { click: () => send(state, state.pending) } }, t("confirm")),
          el("button", { type: "button", class: "secondary", on: { click: () => { state.pending = null; state.selected = null; draw(state); } } }, t("cancel")))
      : null;
    const duty = m.to_act[0];
    const header = el("div", { class: "match-head" },
      el("h2", {}, gameName(m)),
      el("p", {}, m.seats.map((s) => (s.user ? s.user.display_name : "…") + (m.my_seats.includes(s.seat) ? " (" + t("you") + ")" : "")).join(" · ")),
      el("p", { class: "status" }, statusLine(m)),
      duty ? el("p", { class: "muted" }, t("deadline") + ": " + local(duty.deadline_at)) : null,
      m.result ? el("p", { class: "result" }, t("result") + ": " + describeResult(m)) : null);
    const hand = view.hand ? el("div", { class: "hand" }, el("h3", {}, t("hand")), el("p", {}, view.hand.join(" · "))) : null;
    const buttons = others.length || actions.some((a) => a.type === "resign")
      ? el("div", { class: "actions" }, el("h3", {}, t("other_actions")),
          others.map((a) => el("button", { type: "button", class: "secondary", on: { click: () => { state.pending = a; draw(state); } } }, describe(a))),
          actions.some((a) => a.type === "resign") ? el("button", { type: "button", class: "danger", on: { click: () => { if (window.confirm(t("sure_resign"))) send(state, { type: "resign" }); } } }, t("resign")) : null)
      : null;
    const challenge = m.status === "waiting" && (m.challenges || []).some((c) => session.user() && c.user.username === session.user().username)
      ? el("div", { class: "card" },
          el("button", { type: "button", on: { click: () => answer(state, "accept") } }, t("accept")),
          el("button", { type: "button", class: "secondary", on: { click: () => answer(state, "decline") } }, t("decline")))
      : null;
    show(header, challenge, confirm, el("div", { class: "board-wrap" }, grid), replayBar(state), hand, buttons, moveList(state));
  }

  // A finished match, step by step (← →): each step is the position after
  // one more move, drawn by the service for this viewer.
  function replayBar(state) {
    if (state.match.status !== "finished") return null;
    const steps = plays(state);
    if (!steps.length) return null;
    const at = state.replayAt === null || state.replayAt === undefined ? steps.length : state.replayAt;
    const step = async (to) => {
      const next = Math.max(0, Math.min(steps.length, to));
      state.replayAt = next;
      if (next === steps.length) {
        state.replayView = null;
      } else {
        const seq = next === 0 ? firstSeq(state) : steps[next - 1].seq;
        state.replayView = (await api("GET", "/v1/matches/" + state.id + "/positions/" + seq)).data.view;
      }
      draw(state);
    };
    state.step = step;
    state.stepAt = at;
    return el("div", { class: "replay", role: "group", "aria-label": t("replay") },
      el("button", { type: "button", class: "secondary", "aria-label": "back", on: { click: () => step(at - 1) } }, "←"),
      el("span", {}, " " + at + " / " + steps.length + " "),
      el("button", { type: "button", class: "secondary", "aria-label": "forward", on: { click: () => step(at + 1) } }, "→"));
  }

  function firstSeq(state) {
    const firstPlay = plays(state)[0];
    return Math.max(1, (firstPlay ? firstPlay.seq : 1) - 1);
  }

  document.addEventListener("keydown", (event) => {
    const state = window.__posthornMatch;
    if (!state || !state.step || event.target.closest("input, select, textarea")) return;
    if (event.key === "ArrowLeft") state.step(state.stepAt - 1);
    if (event.key === "ArrowRight") state.step(state.stepAt + 1);
  });

  function plays(state) {
    return state.events.filter((e) => e.move || e.type === "passed" || e.type === "turned_up" || e.type === "played");
  }

  function describe(action) {
    if (action.type === "move") return action.move;
    if (action.type === "play") return "play " + action.card + (action.colour ? " (" + action.colour + ")" : "");
    if (action.type === "turn_up") return "turn up " + action.square;
    return action.type.replace(/_/g, " ") + (action.card ? " " + action.card : "");
  }

  function describeResult(m) {
    const r = m.result;
    const names = (r.winners || []).map((seat) => { const s = m.seats[seat]; return s && s.user ? s.user.display_name : seat; });
    return (names.length ? names.join(", ") + " — " : r.outcome + " — ") + String(r.reason).replace(/_/g, " ");
  }

  function pick(state, square, moves) {
    const turnUp = moves.find((x) => x.squares.at === square);
    if (turnUp) { state.pending = turnUp.action; return draw(state); }
    if (state.selected) {
      const chosen = moves.filter((x) => x.squares.from === state.selected && x.squares.to === square);
      if (chosen.length) {
        // A promotion offers more than one move: take the queen/the first.
        state.pending = chosen[chosen.length - 1].action;
        return draw(state);
      }
    }
    state.selected = state.selected === square ? null : square;
    draw(state);
  }

  async function send(state, action) {
    const seat = state.legal.seats.find((s) => s.actions.some((a) => JSON.stringify(a) === JSON.stringify(action)));
    const body = { seq: state.match.seq, action };
    if (seat && state.legal.seats.length > 1) body.seat = seat.seat;
    state.pending = null;
    state.selected = null;
    try {
      await api("POST", "/v1/matches/" + state.id + "/actions", body, { "idempotency-key": crypto.randomUUID() });
    } catch (error) {
      if (error.status !== 409) return fail(error);
    }
    await state.reload();
  }

  async function answer(state, what) {
    try {
      await api("POST", "/v1/matches/" + state.id + "/" + what);
      await state.reload();
    } catch (error) { fail(error); }
  }

  function moveList(state) {
    const list = plays(state);
    if (!list.length) return null;
    return el("details", { class: "moves" }, el("summary", {}, t("moves") + " (" + list.length + ")"),
      el("ol", {}, list.map((e) => el("li", {}, e.move || (e.type === "turned_up" ? "↑" + e.square : e.type === "played" ? e.card || "card" : "pass")))));
  }

  // ---- settings and push ----
  function urlBase64ToBytes(text) {
    const padded = (text + "===".slice((text.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
    return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
  }

  async function subscribePush() {
    const registration = await navigator.serviceWorker.ready;
    const key = (await api("GET", "/v1/push/vapid-public-key")).data.key;
    const subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: urlBase64ToBytes(key) });
    const json = subscription.toJSON();
    const saved = (await api("POST", "/v1/push-subscriptions", { endpoint: json.endpoint, keys: json.keys })).data;
    store.setItem("push_id", saved.id);
  }

  async function settingsPage() {
    const settings = (await api("GET", "/v1/me/notification-settings")).data;
    const kinds = Object.keys(settings.email || {});
    const row = (channel) => el("fieldset", {}, el("legend", {}, channel === "email" ? t("email_mail") : t("push_me")),
      kinds.map((k) => el("label", { class: "check" }, el("input", { type: "checkbox", name: channel + "." + k, checked: settings[channel][k] }), k.replace(/_/g, " "))));
    const form = el("form", {
      class: "card",
      on: {
        submit: async (event) => {
          event.preventDefault();
          const data = new FormData(event.target);
          for (const channel of ["email", "push"]) for (const k of kinds) settings[channel][k] = data.get(channel + "." + k) === "on";
          lang = data.get("language");
          store.setItem("language", lang);
          try {
            await api("PUT", "/v1/me/notification-settings", settings);
            show(el("p", {}, t("saved")));
            drawNav();
          } catch (error) { fail(error); }
        },
      },
    }, el("h2", {}, t("settings")), row("email"), row("push"),
    el("label", {}, t("language"), el("select", { name: "language" }, el("option", { value: "en", selected: lang === "en" }, "English"), el("option", { value: "ko", selected: lang === "ko" }, "한국어"))),
    el("button", { type: "submit" }, t("save")));
    const push = "PushManager" in window
      ? el("button", { type: "button", class: "secondary", on: { click: () => subscribePush().then(() => alert(t("saved")), fail) } }, t("push_on"))
      : null;
    show(form, push);
  }

  // ---- routing ----
  async function route() {
    drawNav();
    const path = location.pathname;
    try {
      const invite = path.match(/^\/invite\/([A-Za-z0-9]+)$/);
      if (invite) return await invitePage(invite[1]);
      if (path === "/signin") return signInPage();
      if (!session.access) return signInPage(route);
      const match = path.match(/^\/matches\/([0-9a-f-]{36})$/);
      if (match) return await matchPage(match[1]);
      if (path === "/new") return await newMatchPage();
      if (path === "/settings") return await settingsPage();
      return await matchesPage();
    } catch (error) {
      if (error.status === 401) { session.clear(); return signInPage(route); }
      fail(error);
    }
  }

  // The language: chosen in settings, else the account's, else the browser's.
  const account = session.user();
  if (account && account.locale) lang = String(account.locale).startsWith("ko") ? "ko" : "en";
  if (store.getItem("language")) lang = store.getItem("language");
  document.documentElement.lang = lang;
  if ("serviceWorker" in navigator) navigator.serviceWorker.register("/sw.js").catch(() => {});
  route();
})();
