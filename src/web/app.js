// Posthorn's web client: the navigation and the routes. No framework and
// no third party; every page is drawn from the REST API by the modules
// this one imports.
import { api, browserZone, el, go, link, onNavigate, session, setLanguage, show, t, countdown, fail } from "./core.js";
import { computerPage, invitePage, matchesPage, newMatchPage, settingsPage, signInPage, signInReturned, signOut, verifyEmailPage, undoEmailPage, emailReturned, forgotPasswordPage, resetPasswordPage } from "./pages.js";
import { accountDeletionPage, deleteReturned, linkReturned } from "./account.js";
import { guestReturned } from "./guests.js";
import { identityFailed, identityReturned } from "./identity.js";
import { friendsPage, leaderboardPage, profilePage } from "./social.js";
import { leaveMatch, matchPage } from "./match.js";
import { seekPage } from "./seeks.js";
import { tournamentPage, tournamentsPage } from "./tournaments.js";
import { moderationPage } from "./moderation.js";
import { howToPage, welcomePage } from "./welcome.js";
import { offlineBanner, watchConnection } from "./offline.js";
import { puzzlePage, puzzlesIndex } from "./puzzles.js";
import { carryVisitorSteps, lessonsPage } from "./lessons.js";
import { sharedPage } from "./shared.js";

const nav = document.getElementById("nav");

/// Who finishes what Google or Apple vouched for, by what it was asked
/// for (identity.js): signing in, a guest saving the account, linking it
/// in settings, confirming a deletion.
const RETURNS = { signin: signInReturned, register: guestReturned, link: linkReturned, delete: deleteReturned, email: emailReturned };

/// What waits for me (issue #33): my turns, challenges and friend
/// requests, as a badge on "My matches", in the title and on the app icon
/// where the Badging API exists. The badge keeps its place when empty, so
/// nothing moves when the count arrives.
// Issue #49 item 7: the count is the service's `badge` (moves owed to
// people, challenges, friend requests, tournament invitations; never a
// match against the computer), and on a phone it shows on the closed
// menu's button too.
const badge = el("span", { class: "badge" });
const menuBadge = el("span", { class: "badge", "data-menu-badge": "" });
async function countWaiting() {
  if (!session.access) return;
  try {
    const s = (await api("GET", "/v1/me/summary")).data;
    const n = s.badge !== undefined ? s.badge : s.awaiting_me + s.challenges + s.friend_requests;
    for (const b of [badge, menuBadge]) {
      b.textContent = n ? String(n) : "";
      b.classList.toggle("on", n > 0);
      b.setAttribute("aria-label", n ? n + " " + t("waiting_for_me") : "");
    }
    document.title = (n ? "(" + n + ") " : "") + "Posthorn";
    if (navigator.setAppBadge) (n ? navigator.setAppBadge(n) : navigator.clearAppBadge()).catch(() => {});
  } catch (_) { /* the count is a hint; the pages say the rest */ }
}

function drawNav() {
  const user = session.user();
  // On a phone the links fold into a menu (CSS), opened by this button.
  const toggle = el("button", { type: "button", class: "link menu-toggle", "aria-expanded": "false", "aria-controls": "nav",
    on: { click: () => {
      const open = nav.classList.toggle("open");
      toggle.setAttribute("aria-expanded", String(open));
    } } }, "☰ " + t("menu"), user ? menuBadge : null);
  nav.classList.remove("open");
  nav.replaceChildren(...(user
    ? [
        toggle,
        link("/", t("matches"), badge),
        link("/new", t("new_match")),
        link("/seek", t("find_opponent")),
        link("/computer", t("play_computer")),
        link("/puzzles", t("puzzles")),
        user.guest ? null : link("/tournaments", t("tournaments")),
        link("/leaderboards", t("leaderboards")),
        user.guest ? null : link("/friends", t("friends")),
        link("/settings", t("settings")),
        link("/how-to", t("how_to_play")),
        el("button", { type: "button", class: "link", on: { click: signOut } }, t("sign_out")),
      ].filter(Boolean)
    : [toggle, link("/how-to", t("how_to_play")), link("/signin", t("sign_in"))]));
}

document.addEventListener("click", (event) => {
  const anchor = event.target.closest("a[data-link]");
  if (anchor && anchor.origin === location.origin && !event.ctrlKey && !event.metaKey) {
    event.preventDefault();
    go(anchor.pathname + anchor.search + anchor.hash);
  }
});
window.addEventListener("popstate", route);
onNavigate(route);

setInterval(() => {
  for (const node of document.querySelectorAll("[data-deadline]")) {
    node.textContent = " · " + countdown(node.getAttribute("data-deadline"));
  }
}, 30000);

async function route() {
  drawNav();
  countWaiting();
  leaveMatch();
  const path = location.pathname;
  const part = (re) => { const m = path.match(re); return m && decodeURIComponent(m[1]); };
  try {
    const invite = part(/^\/invite\/([A-Za-z0-9]+)$/);
    if (invite) return await invitePage(invite, drawNav);
    if (path === "/signin/callback") {
      const back = identityReturned();
      const then = back && RETURNS[back.flow.purpose];
      if (back && !then) return identityFailed(back.flow, "identity_expired");
      return then ? await then(back.proof, back.flow, drawNav) : undefined;
    }
    if (path === "/signin") return await signInPage(null, drawNav);
    if (path === "/account-deletion") return accountDeletionPage();
    if (path === "/verify-email") return await verifyEmailPage();
    if (path === "/undo-email") return await undoEmailPage(drawNav);
    if (path === "/forgot-password") return forgotPasswordPage();
    if (path === "/reset-password") return resetPasswordPage(drawNav);
    const howTo = part(/^\/how-to\/([a-z_]+)$/);
    if (howTo) return howToPage(howTo);
    if (path === "/how-to") return welcomePage();
    // First steps need no account (docs/lessons.md, "A visitor"); once
    // signed in, what a visitor finished here becomes the account's.
    await carryVisitorSteps();
    const learn = path.match(/^\/learn\/([a-z_]+)(?:\/([a-z_]+))?$/);
    if (learn) return await lessonsPage(learn[1], learn[2]);
    // A finished game shared by its link (issue #69): no account needed.
    const shared = part(/^\/shared\/([A-Za-z0-9_-]{16,64})$/);
    if (shared) return await sharedPage(shared);
    // A first visit: what Posthorn is, before any form (issue #33).
    if (!session.access) return path === "/" ? welcomePage() : await signInPage(route, drawNav);
    const match = part(/^\/matches\/([0-9a-f-]{36})$/);
    if (match) return await matchPage(match);
    if (path === "/new") return await newMatchPage();
    const tournament = part(/^\/tournaments\/([0-9a-f-]{36})$/);
    if (tournament) return await tournamentPage(tournament);
    if (path === "/tournaments") return await tournamentsPage();
    if (path === "/moderation") return await moderationPage();
    if (path === "/computer") return await computerPage();
    if (path === "/puzzles") return await puzzlesIndex();
    const puzzle = path.match(/^\/puzzles\/([a-z_]+)(\/daily)?$/);
    if (puzzle) return await puzzlePage(puzzle[1], Boolean(puzzle[2]));
    if (path === "/seek") return await seekPage();
    if (path === "/settings") return await settingsPage(drawNav);
    if (path === "/friends") return await friendsPage();
    const user = part(/^\/users\/([^/]+)$/);
    if (user) return await profilePage(user);
    if (path.startsWith("/leaderboards")) return await leaderboardPage(path.replace(/^\/leaderboards\/?/, ""), location.search);
    return await matchesPage(drawNav);
  } catch (error) {
    // A session ended elsewhere (a password reset, signed out from another
    // device) says why before the form (issue #68).
    if (error.status === 401) { session.clear(); drawNav(); return signInPage(route, drawNav, t("session_ended")); }
    fail(error);
  }
}

// The language: the account's, else the browser's.
const account = session.user();
setLanguage((account && account.locale) || navigator.language);
if ("serviceWorker" in navigator) navigator.serviceWorker.register("/sw.js").catch(() => {});
// Offline: a banner under the bar, and what waits is sent on return.
const banner = offlineBanner();
document.getElementById("main").before(banner);
watchConnection(banner);
// The badge keeps up while the app stays open.
setInterval(() => { if (!document.hidden) countWaiting(); }, 30000);
show(el("p", { class: "muted" }, "…"));
route();
// An account still in UTC (a guest made before the browser's zone was
// sent, or never set) takes this device's zone on its next visit (issue
// #66): UTC is the service's "no zone yet". Someone who wants UTC picks
// another name for it in settings (Etc/UTC).
async function takeThisZone() {
  const here = browserZone();
  if (!session.access || here === "UTC") return;
  try {
    const me = (await api("GET", "/v1/me")).data;
    if (me.time_zone === "UTC") session.remember((await api("PATCH", "/v1/me", { time_zone: here })).data);
  } catch (_) { /* the next visit tries again */ }
}
takeThisZone();
