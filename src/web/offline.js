// Nothing lost offline (issue #33). A move confirmed without a connection
// waits in this device's outbox (localStorage, so a reload or a closed
// tab keeps it) and is shown on its board as "not sent"; when the
// connection returns it is sent once, with the idempotency key it was
// given when it was made, so that a send whose answer was lost is never
// applied twice. A banner says when the device is offline.
import { api, el, store, t } from "./core.js";

const read = () => { try { return JSON.parse(store.getItem("outbox")) || []; } catch (_) { return []; } };
const write = (list) => store.setItem("outbox", JSON.stringify(list));

/// Keep the action request `body` for match `id`, with its idempotency
/// `key`, to send later.
export function keep(id, body, key) {
  write(read().filter((e) => e.id !== id).concat([{ id, body, key }]));
}

/// The action waiting to be sent for match `id`, if any.
export const unsent = (id) => read().find((e) => e.id === id) || null;

const listeners = new Set();
/// `f(id, error)` runs after a kept action of match `id` was delivered,
/// or dropped with the service's refusal `error`.
export function onSent(f) { listeners.add(f); return () => listeners.delete(f); }

let sending = false;
/// Whether a failed send may succeed later: no connection, the service
/// busy or restarting, or signed out for now. A refusal of the move itself
/// (the match moved on, the move is no longer legal) will not.
const passing = (error) => error.network || !error.status || error.status >= 500 || [401, 408, 429].includes(error.status);

/// Send every kept action once; one that may still go through stays for
/// the next try, a refused one is dropped and its page told why.
export async function flush() {
  if (sending || !navigator.onLine || !read().length) return;
  sending = true;
  try {
    for (const entry of read()) {
      let refused = null;
      try {
        await api("POST", "/v1/matches/" + entry.id + "/actions", entry.body, { "idempotency-key": entry.key });
      } catch (error) {
        if (passing(error)) break;
        refused = error;
      }
      write(read().filter((e) => e.key !== entry.key));
      listeners.forEach((f) => f(entry.id, refused));
    }
  } finally {
    sending = false;
  }
}

/// The offline banner, kept in step with the connection; coming back
/// online sends what waits.
export function watchConnection(banner) {
  const update = () => {
    banner.textContent = t("offline");
    banner.hidden = navigator.onLine;
    if (navigator.onLine) flush();
  };
  window.addEventListener("online", update);
  window.addEventListener("offline", update);
  update();
  // A send that failed while the device thought it was online (the
  // service unreachable, restarting) is tried again every 15 s.
  setInterval(flush, 15000);
}

export function offlineBanner() {
  return el("p", { class: "offline-banner", role: "status", hidden: true }, t("offline"));
}
