// A page open on a match hears of its changes at once (issue #49 item 8):
// `GET /v1/matches/{id}/live` is a stream of server-sent events saying
// the match's seq (src/http/live.rs). It is read with fetch, not
// EventSource, which cannot send the access token. The stream ends every
// few minutes and is opened again with a fresh token; while it is down
// the page polls as before (`up` says which). No game content comes this
// way: the page re-reads its match through the API.
import { renewSession, session } from "./core.js";

/// Nothing heard for this long (the service beats every 15 s): the
/// connection is taken for dead and opened again.
const SILENT_MS = 60000;

/// The page's one listener: a new page's replaces the last page's.
let here = { up: false, stop() {} };

/// Stop listening (a page left; app.js at every navigation).
export function stopHearing() { here.stop(); }

/// Listen to match `id` for the page now shown; `heard(event, data)` for
/// each event ("open" when a stream begins, "seq" with `{seq}`,
/// "resync"). Returns `{ up }`. A stream displaced by a newer one of the
/// same session ends the listening: the page polls.
export function listen(id, heard) {
  here.stop();
  const state = { up: false, stopped: false, displaced: false, aborter: null };
  // A hidden tab holds no connection (a browser has six per site): the
  // stream ends when the tab hides and opens again, with a fresh look,
  // when it shows.
  const hide = () => { if (document.hidden && state.aborter) state.aborter.abort(); };
  document.addEventListener("visibilitychange", hide);
  const shown = () => new Promise((resolve) => {
    const check = () => { if (!document.hidden || state.stopped) { document.removeEventListener("visibilitychange", check); resolve(); } };
    document.addEventListener("visibilitychange", check);
    check();
  });
  const run = async () => {
    let pause = 1000;
    while (!state.stopped) {
      if (document.hidden) await shown();
      if (state.stopped) break;
      const opened = await once(id, state, heard);
      state.up = false;
      document.body.dataset.live = "down";
      // A newer stream of this session (another tab) took this one's
      // place: this page polls from now on rather than take it back, so
      // open tabs do not bounce each other (issue #65).
      if (state.displaced) {
        document.body.dataset.live = "displaced";
        break;
      }
      // A stream that ran ends on its own: open the next at once. One
      // refused or broken: wait longer each time, up to half a minute.
      pause = opened ? 1000 : Math.min(pause * 2, 30000);
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  };
  run();
  here = {
    get up() { return state.up; },
    stop() {
      state.stopped = true;
      document.removeEventListener("visibilitychange", hide);
      if (state.aborter) state.aborter.abort();
    },
  };
  return here;
}

/// One stream, read to its end. Whether it opened.
async function once(id, state, heard) {
  if (!navigator.onLine || !session.access) return false;
  if (session.refresh && !session.fresh) await renewSession(session.access);
  // Stopped while the session was renewed: no stream to open.
  if (state.stopped || document.hidden) return false;
  const aborter = new AbortController();
  state.aborter = aborter;
  let silence = null;
  const quiet = () => { clearTimeout(silence); silence = setTimeout(() => aborter.abort(), SILENT_MS); };
  try {
    quiet();
    const response = await fetch("/v1/matches/" + id + "/live", {
      headers: { authorization: "Bearer " + session.access, accept: "text/event-stream" },
      signal: aborter.signal,
    });
    if (response.status === 401 && session.refresh) await renewSession(session.access);
    if (!response.ok || !response.body) return false;
    state.up = true;
    document.body.dataset.live = "up";
    // Each stream begins with a fresh look: what changed while none was
    // open (a rematch offer says no seq) is read then.
    heard("open", {});
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done || state.stopped) break;
      quiet();
      buffer += value;
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const field = (name) => block.split("\n").find((l) => l.startsWith(name + ": "));
        const event = field("event");
        const data = field("data");
        if (event && data) {
          const name = event.slice(7);
          if (name === "displaced") state.displaced = true;
          else heard(name, JSON.parse(data.slice(6)));
        }
      }
    }
    return true;
  } catch (_) {
    return false;
  } finally {
    clearTimeout(silence);
    // Ended here (stopped, hidden, silent): the service lets go at once.
    aborter.abort();
  }
}
