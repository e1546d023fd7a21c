// Posthorn's service worker: the app shell offline, and turn notifications
// by Web Push (the service's push payload: {type, match_id, title, body, url}).
// The cache's name and the files it keeps are filled in by the service
// from its one list of the client's files (src/http/client.rs): the name
// carries a hash of them all.
const SHELL = "posthorn-shell-VERSION";
const FILES = ["FILES"];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(SHELL).then((cache) => cache.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys().then((keys) => Promise.all(keys.filter((k) => k !== SHELL).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

// Pages: the network first, the cached shell when offline. The API is
// never cached.
self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET" || url.origin !== self.location.origin || url.pathname.startsWith("/v1/")) {
    return;
  }
  event.respondWith(
    fetch(event.request).catch(() =>
      caches.match(FILES.includes(url.pathname) ? url.pathname : "/").then((hit) => hit || Response.error()),
    ),
  );
});

self.addEventListener("push", (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch (_) {
    data = { title: "Posthorn", body: event.data ? event.data.text() : "" };
  }
  event.waitUntil(
    self.registration.showNotification(data.title || "Posthorn", {
      body: data.body || "",
      icon: "/icon.svg",
      tag: data.tag || data.match_id || "posthorn",
      data: { url: data.url || (data.match_id ? "/matches/" + data.match_id : "/") },
    }),
  );
});

// A tap on a notification opens its match: in a window of ours if one is
// open (navigated there, which needs no user gesture), else a new one.
self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const done = openMatch(event.notification.data && event.notification.data.url);
  // A trusted click keeps the worker alive until the window is open.
  if (event.isTrusted) event.waitUntil(done);
});

async function openMatch(url) {
  const target = new URL(url || "/", self.location.origin);
  const path = target.origin === self.location.origin ? target.pathname : "/";
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const open = windows.find((w) => new URL(w.url).pathname === path) || windows[0];
  if (!open) return self.clients.openWindow(path);
  let shown = open;
  if (new URL(open.url).pathname !== path) {
    try {
      shown = (await open.navigate(path)) || open;
    } catch (_) {
      return self.clients.openWindow(path); // a window this worker does not control
    }
  }
  try {
    await shown.focus();
  } catch (_) { /* focusing needs a real tap */ }
  return shown;
}
