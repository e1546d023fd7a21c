// Nothing lost offline (issue #33). A move confirmed without a connection
// waits in this device's outbox (localStorage, so a reload or a closed
// tab keeps it) and is shown on its board as "not sent"; when the
// connection returns it is sent once, with the idempotency key it was
// given when it was made, so that a send whose answer was lost is never
// applied twice. A banner says when the device is offline.
import { api, el, store, t } from "./core.js";

const read = () => { try { return JSON.parse(store.getItem("outbox")) || []; } catch (_) { return []; } };
const write = (list) => store.setItem("outbox", JSON.stringify(list));

/// Keep `action` for match `id` at `seq` (with its own key) to send later.
export function keep(id, body, key) {
  write(read().filter((e) => e.id !== id).concat([{ id, body, key }]));
}

/// The action waiting to be sent for match `id`, if any.
export const unsent = (id) => read().find((e) => e.id === id) || null;

const listeners = new Set();
/// `f(id)` runs after a kept action of match `id` was delivered or dropped.
export function onSent(f) { listeners.add(f); return () => listeners.delete(f); }

let sending = false;
/// Send every kept action once. A refusal (the match moved on, the move
/// is no longer legal) drops it: the board then shows what happened.
export async function flush() {
  if (sending || !navigator.onLine) return;
  sending = true;
  try {
    for (const entry of read()) {
      try {
        await api("POST", "/v1/matches/" + entry.id + "/actions", entry.body, { "idempotency-key": entry.key });
      } catch (error) {
        if (error.network) break; // still offline: keep it for next time
      }
      write(read().filter((e) => e.key !== entry.key));
      listeners.forEach((f) => f(entry.id));
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
}

export function offlineBanner() {
  return el("p", { class: "offline-banner", role: "status", hidden: true }, t("offline"));
}
