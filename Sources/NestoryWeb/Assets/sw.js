// Nestory's service worker. The server puts two lines before this code: VERSION (changes with every asset)
// and SHELL (the stylesheet, the script, the icons and the offline page, by their versioned URLs).
//
// - The app shell is cached when the worker installs, so the app opens without a connection.
// - A page is fetched from the network first; a copy of each page opened is kept, so without a connection the
//   app shows what it last saw (the same page, else the offline page, which leads to the inventory).
// - Assets come from the cache first (their URLs change with their content).
// - Nothing else is touched: the API, uploads and every non-GET request go to the network as they are.
// Signing out deletes the kept pages (app.js).
"use strict";
const SHELL_CACHE = `nestory-shell-${VERSION}`;
const PAGES_CACHE = "nestory-pages";
const SIGNED_OUT = new Set(["/signin", "/setup", "/offline"]);

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(SHELL_CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith("nestory-shell-") && name !== SHELL_CACHE) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

const isPage = (request, url) => request.mode === "navigate" && url.origin === self.location.origin
  && !url.pathname.startsWith("/api/") && !url.pathname.startsWith("/files/") && !url.pathname.endsWith(".csv")
  && !url.pathname.endsWith(".json") && !url.pathname.endsWith("/download");

// A page is kept under its address without the one-off notice ("Item added.") a redirect put on it.
const pageKey = (url) => {
  const params = new URLSearchParams(url.search);
  params.delete("notice");
  const query = params.toString();
  return url.pathname + (query ? "?" + query : "");
};

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (url.pathname.startsWith("/assets/")) {
    event.respondWith(caches.match(request).then((hit) => hit || fetch(request)));
    return;
  }
  if (!isPage(request, url)) return;
  event.respondWith((async () => {
    try {
      const response = await fetch(request);
      // Keep signed-in pages only (a redirect to sign in, or the sign-in page itself, is not one to show offline).
      if (response.ok && !response.redirected && !SIGNED_OUT.has(url.pathname)
          && (response.headers.get("Content-Type") || "").startsWith("text/html")) {
        const copy = response.clone();
        caches.open(PAGES_CACHE).then((cache) => cache.put(pageKey(url), copy));
      }
      return response;
    } catch (error) {
      const pages = await caches.open(PAGES_CACHE);
      const kept = await pages.match(pageKey(url));
      if (kept) return kept;
      return (await caches.match("/offline")) || Response.error();
    }
  })());
});
