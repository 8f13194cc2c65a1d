"use strict";
(() => {
  const csrf = () => document.querySelector('meta[name="csrf-token"]')?.content || "";
  // The browser's time zone, for the times pages show (a session's last use, a report made): the server reads it.
  try {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (zone && !document.cookie.split("; ").includes("tz=" + encodeURIComponent(zone))) {
      document.cookie = `tz=${encodeURIComponent(zone)}; path=/; max-age=31536000; samesite=lax${location.protocol === "https:" ? "; secure" : ""}`;
    }
  } catch (error) { /* no Intl time zone: the server's is used */ }
  // Requests the page makes on its own (replays, reports, counters) say so: the server's app lock does not count
  // them as the person's activity (see AppLockMiddleware).
  const background = { "X-Nestory-Background": "1" };
  // Any answer 423 (the session is locked on the server) brings up the lock screen over the page as it is.
  const serverFetch = window.fetch.bind(window);
  window.fetch = async (...args) => {
    const response = await serverFetch(...args);
    if (response.status === 423) window.dispatchEvent(new Event("nestory:locked"));
    return response;
  };
  // A page opened at one of its parts after a save there (`/settings?notice=…#security`) shows what happened in that
  // part, under its heading, where the person is looking; at the top of a long page it would be out of sight.
  (() => {
    const notice = document.querySelector("#main > .notice[role=status]");
    let target = null;
    try { target = location.hash.length > 1 ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null; } catch (error) { /* a malformed fragment */ }
    if (!notice || !target || target.contains(notice) || !document.getElementById("main").contains(target)) return;
    const heading = target.querySelector(":scope > h2, :scope > h3");
    if (heading) heading.after(notice); else target.prepend(notice);
    target.scrollIntoView();
  })();
  // A notice says once what just happened: once the page has it, the address loses it, so reloading the page, or coming
  // back to it later, does not say it again.
  (() => {
    const url = new URL(location.href);
    if (!url.searchParams.has("notice")) return;
    url.searchParams.delete("notice");
    history.replaceState(history.state, "", url.pathname + url.search + url.hash);
  })();
  // What a run of photo uploads to an item did, for its page's notice: the server answers 200 rather than 201 for a
  // picture the item has already (nothing added).
  const photosNotice = (added, already) => {
    const parts = [];
    if (added > 0) parts.push(`${added === 1 ? "Photo" : added + " photos"} added.`);
    if (already > 0) parts.push(added > 0 ? `${already === 1 ? "1 was" : already + " were"} already on this item.`
      : `${already === 1 ? "That photo is" : "Those " + already + " photos are"} already on this item.`);
    return parts.join(" ");
  };
  // Photos are downsized here before upload when their long side passes the server's setting (meta
  // nestory-photos: long side, JPEG quality %, the most the server accepts): upright as the camera meant
  // (EXIF orientation), re-encoded as JPEG, which leaves the camera's metadata (location included) behind.
  // A photo within the size goes up as it is, byte for byte. When the browser cannot do it, the original goes
  // if the server accepts its size; otherwise a clear error.
  const photoHints = (() => {
    const [longSide, quality, maxBytes] = (document.querySelector('meta[name="nestory-photos"]')?.content || "2560 85 40000000")
      .split(" ").map(Number);
    return { longSide, quality: quality / 100, maxBytes };
  })();
  async function downsize(file) {
    let bitmap = null;
    try {
      bitmap = await createImageBitmap(file, { imageOrientation: "from-image" });
      const scale = photoHints.longSide / Math.max(bitmap.width, bitmap.height);
      if (scale >= 1) return file;
      const canvas = document.createElement("canvas");
      canvas.width = Math.round(bitmap.width * scale);
      canvas.height = Math.round(bitmap.height * scale);
      canvas.getContext("2d").drawImage(bitmap, 0, 0, canvas.width, canvas.height);
      const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", photoHints.quality));
      if (!blob) throw new Error("not encoded");
      return new File([blob], (file.name || "photo").replace(/\.[^.]*$/, "") + ".jpg", { type: "image/jpeg" });
    } catch {
      if (file.size <= photoHints.maxBytes) return file;
      const error = new Error(`This photo is ${(file.size / 1e6).toFixed(0)} MB and could not be made smaller here; the server takes up to ${(photoHints.maxBytes / 1e6).toFixed(0)} MB. Try a smaller photo or a screenshot of it.`);
      error.final = true;
      throw error;
    } finally {
      bitmap?.close?.();
    }
  }
  const downsizeAll = (files) => Promise.all(Array.from(files || []).map(downsize));

  // Non-fatal errors in the page go to the server's log (no personal data: the server scrubs the message
  // and keeps the page's path only), a few at most per page.
  let reported = 0;
  function reportError(kind, message) {
    if (reported++ >= 3 || !csrf()) return;
    fetch("/api/v1/client-errors", { method: "POST", credentials: "same-origin", keepalive: true,
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf(), ...background },
      body: JSON.stringify({ kind, message: String(message || "").slice(0, 300), page: location.pathname }) }).catch(() => {});
  }
  window.addEventListener("error", (event) => reportError("uncaught", event.message));
  window.addEventListener("unhandledrejection", (event) => reportError("uncaught", event.reason?.message || event.reason));

  // The service worker (sw.js): the app opens without a connection and shows the pages it last saw.
  if ("serviceWorker" in navigator && window.isSecureContext) {
    navigator.serviceWorker.register("/sw.js").catch(() => { /* the app works without it */ });
  }
  // Signing out forgets the pages kept on this device for offline use.
  document.querySelectorAll("form[action='/signout']").forEach((form) => form.addEventListener("submit", async (event) => {
    if (!("caches" in window) || form.dataset.cleared) return;
    event.preventDefault();
    try { await caches.delete("nestory-pages"); } catch { /* nothing kept */ }
    form.dataset.cleared = "1";
    form.submit();
  }));
  // Confirm destructive actions: the form's data-confirm, or the pressed button's (a row's Delete).
  document.addEventListener("submit", (event) => {
    const message = event.submitter?.dataset?.confirm || event.target.dataset?.confirm;
    if (message && !window.confirm(message)) event.preventDefault();
  });
  // A tip's "Got it" hides it at once and tells the server, which remembers it for this person.
  document.querySelectorAll("form[data-tip-dismiss]").forEach((form) => form.addEventListener("submit", async (event) => {
    event.preventDefault();
    form.closest("[data-tip]")?.remove();
    try {
      await fetch(form.action, { method: "POST", credentials: "same-origin", body: new URLSearchParams(new FormData(form)),
                                 headers: { "Accept": "application/json" } });
    } catch { /* offline: it shows again next time */ }
  }));
  // Addresses to copy (the calendar feed, the webhook secret) are selected whole when focused.
  document.querySelectorAll("[data-select-on-focus]").forEach((el) => el.addEventListener("focus", () => el.select()));
  // Sort menu submits on change.
  document.querySelectorAll("[data-autosubmit]").forEach((el) => el.addEventListener("change", () => el.form.submit()));
  // Infinite scroll: fetch the next page's items when "Show more" comes into view; the link still works without script.
  const more = () => document.querySelector("[data-more]");
  const load = async (link) => {
    if (link.dataset.loading) return;
    link.dataset.loading = "1";
    const url = new URL(link.href);
    url.searchParams.set("fragment", "1");
    const response = await fetch(url, { credentials: "same-origin" });
    if (!response.ok) { delete link.dataset.loading; return; }
    const doc = new DOMParser().parseFromString(await response.text(), "text/html");
    const list = document.querySelector("[data-items]");
    doc.querySelectorAll("[data-items] > li").forEach((li) => list.appendChild(document.adoptNode(li)));
    const next = doc.querySelector("[data-more]");
    if (next) { link.href = next.href; delete link.dataset.loading; observe(); } else { link.remove(); }
  };
  let observer;
  const observe = () => {
    const link = more();
    if (!link || !("IntersectionObserver" in window)) return;
    observer?.disconnect();
    observer = new IntersectionObserver((entries) => entries.forEach((e) => e.isIntersecting && load(e.target)), { rootMargin: "600px" });
    observer.observe(link);
  };
  observe();

  // Back from an item keeps the place: the rows loaded so far and the scroll position are kept for this
  // page's URL when leaving it, and put back when the browser comes back to it (not on a fresh visit).
  const list = document.querySelector("[data-items]");
  if (list) {
    const key = "nestory:list:" + location.pathname + location.search;
    const navigation = performance.getEntriesByType?.("navigation")?.[0];
    const saved = (() => { try { return JSON.parse(sessionStorage.getItem(key) || "null"); } catch { return null; } })();
    if (navigation?.type === "back_forward" && saved && saved.html && saved.first === list.firstElementChild?.outerHTML) {
      history.scrollRestoration = "manual";
      list.innerHTML = saved.html;
      const link = more();
      if (saved.next && link) link.href = saved.next; else if (!saved.next) link?.remove();
      observe();
      window.scrollTo(0, saved.y);
      requestAnimationFrame(() => window.scrollTo(0, saved.y));
    }
    sessionStorage.removeItem(key);
    window.addEventListener("pagehide", () => {
      const html = list.innerHTML;
      if (html.length > 3_000_000) return;  // sessionStorage holds about 5 MB
      try {
        sessionStorage.setItem(key, JSON.stringify({ html, first: list.firstElementChild?.outerHTML, next: more()?.href || null, y: window.scrollY }));
      } catch { /* storage full or off: Back then shows the first page */ }
    });
  }

  // Quick actions on a row of the list: its ⋯ button, a long press on the row, or the context menu key
  // (Edit, Add photo, Add receipt, Add to loss list), as on the item page.
  let menu = null, menuButton = null;
  const closeMenu = (focus) => {
    if (!menu) return;
    menu.remove(); menu = null;
    menuButton?.setAttribute("aria-expanded", "false");
    if (focus) menuButton?.focus();
    menuButton = null;
  };
  const openMenu = (button) => {
    closeMenu(false);
    const id = button.dataset.itemMenu;
    const name = button.closest(".item")?.querySelector(".name")?.textContent || "this item";
    menu = document.createElement("div");
    menu.className = "item-menu";
    menu.setAttribute("role", "menu");
    menu.setAttribute("aria-label", `Actions for ${name}`);
    const entry = (label, href) => {
      const a = document.createElement("a");
      a.href = href; a.textContent = label; a.setAttribute("role", "menuitem");
      menu.append(a);
      return a;
    };
    entry("Edit", `/items/${id}/edit`);
    const photo = entry("Add photo", `/items/${id}#photo-upload`);
    entry("Add receipt", `/capture/receipt?item=${id}`);
    entry("Add to loss list", `/reports/loss?item=${id}`);
    const input = document.createElement("input");
    input.type = "file"; input.accept = "image/*"; input.multiple = true; input.hidden = true;
    menu.append(input);
    photo.addEventListener("click", (event) => { event.preventDefault(); input.click(); });
    input.addEventListener("change", async () => {
      const files = await downsizeAll(input.files).catch(() => Array.from(input.files || []));
      let failed = "", already = 0;
      for (const [index, file] of files.entries()) {
        photo.textContent = `Uploading ${index + 1} of ${files.length}…`;
        const response = await fetch(`/api/v1/items/${id}/photos`, { method: "POST", body: file, credentials: "same-origin",
          headers: { "X-CSRF-Token": csrf(), "Content-Type": file.type || "application/octet-stream" } }).catch(() => null);
        if (response?.status === 200) already += 1;
        if (!response?.ok) failed = (await response?.json().catch(() => null))?.error?.message || "No connection; try again.";
      }
      const notice = failed ? `Not every photo was added: ${failed}` : photosNotice(files.length - already, already);
      window.location.assign(`/items/${id}?notice=${encodeURIComponent(notice)}`);
    });
    document.body.append(menu);
    const box = button.getBoundingClientRect();
    const width = Math.min(240, window.innerWidth - 16);
    menu.style.width = `${width}px`;
    menu.style.left = `${Math.max(8, Math.min(box.right - width, window.innerWidth - width - 8)) + window.scrollX}px`;
    const below = box.bottom + menu.offsetHeight + 8 < window.innerHeight - 64;
    menu.style.top = `${(below ? box.bottom + 4 : box.top - menu.offsetHeight - 4) + window.scrollY}px`;
    menuButton = button;
    button.setAttribute("aria-expanded", "true");
    menu.querySelector("a").focus();
  };
  document.addEventListener("click", (event) => {
    const button = event.target.closest?.("[data-item-menu]");
    if (button) { event.preventDefault(); menuButton === button ? closeMenu(true) : openMenu(button); return; }
    if (menu && !menu.contains(event.target)) closeMenu(false);
  });
  document.addEventListener("keydown", (event) => {
    if (!menu) return;
    const entries = Array.from(menu.querySelectorAll("a"));
    const at = entries.indexOf(document.activeElement);
    if (event.key === "Escape") { event.preventDefault(); closeMenu(true); }
    else if (event.key === "ArrowDown") { event.preventDefault(); entries[(at + 1) % entries.length].focus(); }
    else if (event.key === "ArrowUp") { event.preventDefault(); entries[(at - 1 + entries.length) % entries.length].focus(); }
    else if (event.key === "Tab") closeMenu(false);
  });
  // A long press on a row (touch) or a right click opens the same menu instead of the browser's.
  let pressTimer = null, pressed = false;
  const rowButton = (target) => target.closest?.(".items .item")?.querySelector("[data-item-menu]");
  document.addEventListener("contextmenu", (event) => {
    const button = !event.target.closest?.("[data-item-menu]") && rowButton(event.target);
    if (button) { event.preventDefault(); openMenu(button); }
  });
  document.addEventListener("touchstart", (event) => {
    const button = !event.target.closest?.("[data-item-menu]") && rowButton(event.target);
    pressed = false;
    if (!button) return;
    pressTimer = setTimeout(() => { pressed = true; openMenu(button); }, 500);
  }, { passive: true });
  const cancelPress = () => clearTimeout(pressTimer);
  document.addEventListener("touchmove", cancelPress, { passive: true });
  document.addEventListener("touchend", (event) => {
    cancelPress();
    if (pressed) { event.preventDefault(); pressed = false; }  // the long press is not also a tap on the row
  });

  // The item page's photos: arrows, dots, the count, arrow keys; swiping scrolls them as before.
  document.querySelectorAll("[data-carousel]").forEach((root) => {
    const track = root.querySelector(".carousel");
    const slides = Array.from(track.querySelectorAll(".slide"));
    const prev = root.querySelector("[data-carousel-prev]"), next = root.querySelector("[data-carousel-next]");
    const dots = Array.from(root.querySelectorAll("[data-carousel-to]"));
    const count = root.querySelector(".carousel-count");
    if (slides.length < 2) return;
    let current = 0;
    const show = (index) => {
      current = Math.max(0, Math.min(slides.length - 1, index));
      if (prev) prev.disabled = current === 0;
      if (next) next.disabled = current === slides.length - 1;
      dots.forEach((dot, i) => i === current ? dot.setAttribute("aria-current", "true") : dot.removeAttribute("aria-current"));
      if (count) count.textContent = `${current + 1} of ${slides.length}`;
    };
    const go = (index) => {
      const target = Math.max(0, Math.min(slides.length - 1, index));
      track.scrollTo({ left: slides[target].offsetLeft - track.offsetLeft, behavior: "smooth" });
      show(target);
    };
    prev?.addEventListener("click", () => go(current - 1));
    next?.addEventListener("click", () => go(current + 1));
    dots.forEach((dot) => dot.addEventListener("click", () => go(Number(dot.dataset.carouselTo))));
    track.addEventListener("keydown", (event) => {
      if (event.key === "ArrowRight") { event.preventDefault(); go(current + 1); }
      else if (event.key === "ArrowLeft") { event.preventDefault(); go(current - 1); }
      else if (event.key === "Home") { event.preventDefault(); go(0); }
      else if (event.key === "End") { event.preventDefault(); go(slides.length - 1); }
    });
    let settle = null;
    track.addEventListener("scroll", () => {
      clearTimeout(settle);
      settle = setTimeout(() => show(Math.round(track.scrollLeft / Math.max(1, track.clientWidth))), 80);
    }, { passive: true });
    // "Add photo" from a list row's menu lands here with #photo-upload: open the picker's label in view.
    show(0);
  });
  if (location.hash === "#photo-upload") document.querySelector("label[for=photo-upload]")?.focus();

  // The add-item form's photos: the item is saved as the form would save it, then each photo is uploaded
  // with progress, then its page opens. A form with errors comes back in place, keeping the chosen photos.
  document.querySelectorAll("[data-form-photos]").forEach((field) => {
    field.hidden = false;
    const input = field.querySelector("input[type=file]");
    const previews = field.querySelector(".previews");
    input.addEventListener("change", () => {
      previews.replaceChildren(...Array.from(input.files || []).map((file) => {
        const img = document.createElement("img");
        img.alt = file.name;
        try { img.src = URL.createObjectURL(file); } catch { /* no preview */ }
        return img;
      }));
    });
  });
  document.addEventListener("submit", async (event) => {
    const form = event.target;
    const field = form.querySelector?.("[data-form-photos]");
    const input = field?.querySelector("input[type=file]");
    if (event.defaultPrevented || !input?.files?.length) return;
    event.preventDefault();
    const status = field.querySelector(".upload-status"), progress = field.querySelector(".upload-progress");
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    status.classList.remove("error");
    status.textContent = "Saving…";
    let response;
    try {
      response = await fetch(form.action, { method: "POST", body: new URLSearchParams(new FormData(form)), credentials: "same-origin" });
    } catch {
      button.disabled = false;
      status.classList.add("error");
      status.textContent = "No connection. Nothing was saved and your photos are still chosen; try again.";
      return;
    }
    const itemPage = response.redirected && /\/items\/[0-9a-fA-F-]{36}(\?|$)/.test(new URL(response.url).pathname + new URL(response.url).search)
      ? new URL(response.url) : null;
    if (!itemPage) {
      // The form came back with its errors: show it, with the photos still chosen.
      const doc = new DOMParser().parseFromString(await response.text(), "text/html");
      const main = doc.querySelector("main");
      if (!main) { button.disabled = false; status.textContent = "Could not save. Nothing was lost; try again."; return; }
      document.querySelector("main").replaceWith(document.adoptNode(main));
      const again = document.querySelector("[data-form-photos]");
      if (again) {
        again.hidden = false;
        again.querySelector("input[type=file]").replaceWith(input);
        again.querySelector(".previews").replaceWith(field.querySelector(".previews"));
      }
      document.querySelector("[aria-invalid=true], .alert")?.scrollIntoView({ block: "center" });
      return;
    }
    const id = itemPage.pathname.split("/")[2];
    const files = await downsizeAll(input.files).catch(() => Array.from(input.files));
    let failed = 0, reason = "", already = 0;
    for (const [index, file] of files.entries()) {
      status.textContent = `Item saved. Uploading photo ${index + 1} of ${files.length}…`;
      progress.hidden = false;
      progress.value = 0;
      const ok = await new Promise((resolve) => {
        const xhr = new XMLHttpRequest();
        xhr.open("POST", `/api/v1/items/${id}/photos`);
        xhr.setRequestHeader("X-CSRF-Token", csrf());
        xhr.setRequestHeader("Content-Type", file.type || "application/octet-stream");
        xhr.upload.onprogress = (e) => { if (e.lengthComputable) progress.value = (e.loaded / e.total) * 100; };
        xhr.onload = () => {
          if (xhr.status >= 300) { try { reason = JSON.parse(xhr.responseText).error.message; } catch { reason = "The upload failed."; } }
          if (xhr.status === 200) already += 1;  // the same picture chosen twice
          resolve(xhr.status < 300);
        };
        xhr.onerror = () => { reason = "No connection."; resolve(false); };
        xhr.send(file);
      });
      if (!ok) failed += 1;
    }
    const added = files.length - already;
    const notice = failed === 0
      ? `Item added with ${added === 1 ? "its photo" : added + " photos"}.`
      : `Item added; ${failed} of ${files.length} photos could not be added (${reason}). Add them with “Add photo”.`;
    window.location.assign(`/items/${id}?notice=${encodeURIComponent(notice)}`);
  });

  // The offline queue. A capture that cannot reach the server (no connection, the server away) is kept in
  // this browser (IndexedDB: its fields and its photos), listed with its status wherever the app shows the
  // queue, and sent when the connection returns, when the app is next opened, or on Retry. The page drives
  // the replay itself (no Background Sync: Safari and Firefox lack it). Every request carries an
  // Idempotency-Key kept with the entry, so a replay after a lost response never makes a second item.
  const queue = (() => {
    const open = () => new Promise((resolve, reject) => {
      const request = indexedDB.open("nestory-queue", 1);
      request.onupgradeneeded = () => request.result.createObjectStore("captures", { keyPath: "key" });
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    const store = async (mode, work) => {
      const db = await open();
      return new Promise((resolve, reject) => {
        const tx = db.transaction("captures", mode);
        const result = work(tx.objectStore("captures"));
        tx.oncomplete = () => { db.close(); resolve(result?.result ?? result); };
        tx.onerror = tx.onabort = () => { db.close(); reject(tx.error || new Error("storage refused")); };
      });
    };
    const all = () => store("readonly", (s) => s.getAll());
    const put = (entry) => store("readwrite", (s) => s.put(entry));
    const remove = (key) => store("readwrite", (s) => s.delete(key));
    const newKey = () => (crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random().toString(16).slice(2)}`);
    let running = false;
    const list = () => document.querySelector("[data-queue]");
    const render = async () => {
      const section = list();
      if (!section) return;
      let entries = [];
      try { entries = await all(); } catch { entries = []; }
      section.hidden = entries.length === 0;
      const ul = section.querySelector("ul");
      ul.replaceChildren(...entries.sort((a, b) => a.created - b.created).map((entry) => {
        const li = document.createElement("li");
        li.className = `row queued ${entry.state}`;
        li.dataset.key = entry.key;
        const text = document.createElement("span");
        text.className = "text";
        const name = document.createElement("span");
        name.className = "name";
        name.textContent = entry.title;
        const state = document.createElement("span");
        state.className = "sub queue-state";
        state.textContent = { waiting: "Waiting for a connection", sending: "Uploading…", failed: `Couldn’t finish: ${entry.error}`,
                              done: "Uploaded" }[entry.state] || entry.state;
        text.append(name, state);
        li.append(text);
        if (entry.state === "done" && !entry.shown) { entry.shown = true; put(entry).catch(() => {}); }
        if (entry.state === "done" && entry.link) {
          const a = document.createElement("a");
          a.className = "button small"; a.href = entry.link; a.textContent = "Open";
          li.append(a);
        } else if (entry.state === "failed") {
          const retry = document.createElement("button");
          retry.type = "button"; retry.className = "small"; retry.textContent = "Retry";
          retry.addEventListener("click", async () => { entry.state = "waiting"; await put(entry); track("scan_retry"); replay(); });
          const discard = document.createElement("button");
          discard.type = "button"; discard.className = "small danger"; discard.textContent = "Discard";
          discard.addEventListener("click", async () => {
            if (window.confirm(`Discard “${entry.title}”? It was never saved on the server.`)) { await remove(entry.key); render(); }
          });
          li.append(retry, discard);
        }
        return li;
      }));
      const note = section.querySelector(".queue-note");
      if (note && entries.some((e) => e.state !== "done")) {
        const persisted = await navigator.storage?.persisted?.().catch(() => false);
        note.hidden = !!persisted;
      }
    };
    const send = async (url, options, key) => {
      const response = await fetch(url, { credentials: "same-origin", ...options,
        headers: { ...(options.headers || {}), "X-CSRF-Token": csrf(), "Idempotency-Key": key, ...background } });
      const body = await response.json().catch(() => ({}));
      if (response.ok) return body;
      const error = new Error(body.error?.message || `The server answered ${response.status}.`);
      error.final = response.status >= 400 && response.status < 500 && response.status !== 401 && response.status !== 408
        && response.status !== 409 && response.status !== 423 && response.status !== 429;  // 423: locked, sent once unlocked
      throw error;
    };
    // One entry: make the item (unless it has one), then each photo not yet sent; a receipt is one upload
    // whose answer names its review page.
    const run = async (entry) => {
      entry.state = "sending";
      await put(entry);
      render();
      if (entry.scan || entry.receipt) {
        // One photo to one address, whose answer says where to go: a receipt's review page, or a barcode
        // photo's first product code (its lookup and quick form).
        const photo = entry.photos[0];
        const answer = await send(entry.scan ? "/api/v1/barcodes/decode" : entry.receipt, { method: "POST", body: photo.blob,
                                  headers: { "Content-Type": photo.blob.type || "application/octet-stream" } }, entry.key);
        if (entry.scan) {
          const code = (answer.codes || []).find((c) => c.gtin) || (answer.codes || [])[0];
          if (!code) { const none = new Error("No barcode was found in this photo."); none.final = true; throw none; }
          entry.title = `Barcode ${code.text}`;
          entry.link = resultPath(code);
        } else {
          entry.link = answer.next;
        }
        photo.blob = null;
        entry.state = "done";
        await put(entry);
        return;
      }
      if (!entry.itemID) {
        const item = await send("/api/v1/items", { method: "POST", headers: { "Content-Type": "application/json" },
                                                   body: JSON.stringify(entry.item) }, entry.key);
        entry.itemID = item.id;
        await put(entry);
      }
      for (const [index, photo] of entry.photos.entries()) {
        if (photo.sent) continue;
        await send(`/api/v1/items/${entry.itemID}/photos`, { method: "POST", body: photo.blob,
                                                            headers: { "Content-Type": photo.blob.type || "application/octet-stream" } },
                   `${entry.key}-photo-${index}`);
        photo.sent = true;
        photo.blob = null;  // sent: no need to keep the bytes on the phone
        await put(entry);
      }
      entry.state = "done";
      entry.link = `/items/${entry.itemID}`;
      await put(entry);
    };
    const replay = async () => {
      if (running) return;
      running = true;
      try {
        for (const entry of await all()) {
          if (entry.state === "done" || entry.state === "failed") continue;
          try {
            await run(entry);
            track("replayed");
          } catch (error) {
            entry.state = error.final ? "failed" : "waiting";
            entry.error = error.final ? error.message : "";
            if (error.final) reportError("upload", error.message);
            await put(entry).catch(() => {});
            if (!error.final) break;  // no connection: the rest waits too
          }
        }
      } catch { /* storage unavailable: nothing to replay */ }
      running = false;
      render();
    };
    // Keeps a capture; tells the caller whether it could (storage full or refused: false).
    const add = async (title, item, files, itemID = null, receipt = null, scan = false) => {
      const entry = { key: newKey(), created: Date.now(), title, item, itemID, receipt, scan, state: "waiting", error: "",
                      photos: Array.from(files || []).map((blob) => ({ blob, sent: false })) };
      try { await put(entry); } catch { return null; }
      track("queued");
      navigator.storage?.persist?.().catch(() => false);
      render();
      return entry;
    };
    // An entry sent by a replay is listed as done (with its link) on the page where that happened, and gone
    // from the next page on.
    const tidy = async () => {
      try { for (const e of await all()) if (e.state === "done" && e.shown) await remove(e.key); } catch { /* */ }
    };
    window.addEventListener("online", replay);
    tidy().then(() => { render(); if (navigator.onLine !== false) replay(); });
    return { add, replay, run, put, remove, render };
  })();
  function track(event) {
    fetch("/api/v1/events", { method: "POST", credentials: "same-origin", keepalive: true,
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf(), ...background }, body: JSON.stringify({ event }) }).catch(() => {});
  }

  // Quick add: photo first; the item and its photo are saved through the API (as one queued capture, so
  // without a connection it is kept and sent later), then its page opens.
  document.querySelectorAll("form[data-quick-add]").forEach((form) => {
    const file = form.querySelector("input[type=file]");
    const preview = form.querySelector(".preview");
    const status = form.querySelector(".upload-status");
    file.addEventListener("change", () => {
      if (!file.files?.length) return;
      preview.src = URL.createObjectURL(file.files[0]);
      preview.hidden = false;
      form.querySelector(".photo-pick span").textContent = "Change photo";
      form.querySelector("[name=name]").focus();
      if (file.dataset.source === "camera") delete file.dataset.source; else track("pick_gallery");
    });
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const data = Object.fromEntries(new FormData(form));
      const item = { name: data.name, roomID: data.roomID || null, categoryID: data.categoryID || null, price: data.price || null,
                     purchaseDate: data.purchaseDate || null };
      status.classList.remove("error");
      status.textContent = "Saving…";
      let photos;
      try { photos = await downsizeAll(file.files); } catch (error) { status.classList.add("error"); status.textContent = error.message; return; }
      const entry = await queue.add(data.name || "Item", item, photos);
      if (!entry) {
        // Not even kept on this device: say so, and keep everything on the screen to try again.
        status.classList.add("error");
        status.textContent = "This phone refused to keep it (storage full or turned off). Nothing was saved: keep this page open and tap Save again, or save the photo to your device. ";
        if (photos[0]) {
          const keep = document.createElement("a");
          keep.href = URL.createObjectURL(photos[0]);
          keep.download = photos[0].name || "photo.jpg";
          keep.textContent = "Save the photo to this device";
          status.append(keep);
        }
        return;
      }
      try {
        await queue.run(entry);
        await queue.remove(entry.key).catch(() => {});  // sent at once: nothing to list
        window.location.href = `/items/${entry.itemID}?notice=added`;
      } catch (error) {
        if (error.final) {
          // The server refused it (a field, say): show why; the entry goes, the form stays as typed.
          await queue.remove(entry.key).catch(() => {});
          queue.render();
          status.classList.add("error");
          status.textContent = error.message;
          return;
        }
        entry.state = "waiting";
        await queue.put(entry);
        queue.render();
        form.reset();
        preview.hidden = true;
        form.querySelector(".photo-pick span").textContent = "Take or choose a photo";
        status.textContent = `No connection: “${item.name}” is kept on this phone and will be uploaded when you’re back online.`;
      }
    });
  });
  // Background jobs (reports, backups, receipts): one poller for every kind. An element with
  // data-job-status="/api/v1/jobs/ID" shows the job's progress in its .job-progress bar and .job-status
  // text (data-progress-text, with {done}, {total} and {percent}); once the job has finished, however it
  // ended, the page reloads and shows the outcome.
  document.querySelectorAll("[data-job-status]").forEach((element) => {
    const url = element.dataset.jobStatus;
    const bar = element.querySelector(".job-progress"), label = element.querySelector(".job-status");
    let delay = 300;
    const poll = async () => {
      let job = null;
      try {
        const response = await fetch(url, { credentials: "same-origin" });
        job = response.ok ? await response.json() : null;
      } catch { job = null; }
      if (job && job.state !== "queued" && job.state !== "running") { window.location.reload(); return; }
      if (job && job.progress.total > 0) {
        const percent = Math.floor((job.progress.done * 100) / job.progress.total);
        if (bar) bar.value = percent;
        if (label && element.dataset.progressText) {
          label.textContent = element.dataset.progressText
            .replace("{done}", job.progress.done).replace("{total}", job.progress.total).replace("{percent}", percent);
        }
      }
      delay = Math.min(delay * 1.3, 2000);
      setTimeout(poll, delay);
    };
    setTimeout(poll, delay);
  });
  // Loss list: keep the "selected" count current while ticking items.
  document.querySelectorAll("form.loss-select").forEach((form) => {
    const count = form.querySelector("[data-selected-count]");
    form.addEventListener("change", (event) => {
      if (event.target.name !== "item") return;
      count.textContent = form.querySelectorAll("input[name=item]:checked, input[type=hidden][name=item]").length;
    });
  });
  // A camera card (barcode scanning, photo item): one state of the scan spec at a time (data-state):
  // initializing (a skeleton), ready, unavailable, denied (with the steps for this browser first), insecure,
  // disabled. Each state's panel carries its own actions; Retry starts the camera again.
  function cameraCard(card, { ready, alternative, onReady }) {
    const video = card.querySelector("video");
    const status = card.querySelector(".scan-status");
    let stream = null, generation = 0;
    const stop = () => { if (stream) stream.getTracks().forEach((t) => t.stop()); stream = null; };
    const setState = (state, message) => {
      card.dataset.state = state;
      // When the screen first became usable (the camera or a fallback): the capture benchmark reads it.
      if (state !== "initializing" && !performance.getEntriesByName("capture-interactive").length) performance.mark("capture-interactive");
      card.querySelectorAll("[data-state-panel]").forEach((panel) => { panel.hidden = panel.dataset.statePanel !== state; });
      if (message !== undefined) status.textContent = message;
      if (state !== "ready" && state !== "initializing") stop();
    };
    const ua = navigator.userAgent;
    const family = /SamsungBrowser/.test(ua) ? "samsung" : /Firefox|FxiOS/.test(ua) ? "firefox"
      : /CriOS|Chrome|Edg/.test(ua) ? "chrome" : /Safari/.test(ua) ? "safari" : null;
    const steps = card.querySelector(".permission-steps");
    const yours = family && steps?.querySelector(`[data-browser="${family}"]`);
    if (yours) { steps.prepend(yours); yours.classList.add("yours"); }
    const unavailable = (reason) => {
      setState("unavailable", reason);
      card.querySelector(".scan-reason").textContent = `${reason} ${alternative}`;
    };
    const start = async () => {
      const mine = ++generation;
      setState("initializing", "Starting the camera…");
      if (!window.isSecureContext) { setState("insecure", "The camera needs a secure (https) address."); return; }
      if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) { unavailable("This browser can’t use a camera here."); return; }
      try {
        stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: { ideal: "environment" }, width: { ideal: 1920 } }, audio: false });
      } catch (error) {
        if (mine !== generation) return;
        const name = error && error.name;
        if (name === "NotAllowedError" || name === "SecurityError") {
          setState("denied", "Camera access is turned off for this site.");
          track("permission_denied");
          return;
        }
        unavailable(name === "NotFoundError" || name === "OverconstrainedError" ? "No camera was found on this device."
          : name === "NotReadableError" || name === "AbortError"
            ? "The camera is busy or not answering: another app or tab may be using it. Close it, then tap Retry."
            : "The camera could not be started.");
        return;
      }
      if (mine !== generation) { stop(); return; }
      video.srcObject = stream;
      try { await video.play(); } catch { /* autoplay needs muted, which it is */ }
      // Ready once a first frame has come (on a busy phone it can come after play() settles): a shutter tapped
      // before it would have no picture to take.
      await firstFrame(5000);
      if (mine !== generation) return;
      setState("ready", ready);
      onReady?.(() => mine === generation);
    };
    card.querySelectorAll("[data-scan-retry]").forEach((button) => button.addEventListener("click", () => { track("scan_retry"); start(); }));
    // Whether the preview has a picture, waiting up to `ms` for its first frame.
    const firstFrame = (ms) => video.videoWidth ? Promise.resolve(true) : new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        video.removeEventListener("loadeddata", done);
        video.removeEventListener("resize", done);
        resolve(video.videoWidth > 0);
      };
      const timer = setTimeout(done, ms);
      video.addEventListener("loadeddata", done);
      video.addEventListener("resize", done);
    });
    // The preview's current picture as a JPEG file (null when there is none, even after a short wait, or it could
    // not be encoded).
    const take = async (name, quality) => {
      if (!(await firstFrame(3000))) return null;
      const canvas = document.createElement("canvas");
      canvas.width = video.videoWidth;
      canvas.height = video.videoHeight;
      canvas.getContext("2d").drawImage(video, 0, 0);
      const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", quality));
      return blob && new File([blob], `${name}-${Date.now()}.jpg`, { type: "image/jpeg" });
    };
    return { start, stop, setState, take, video, status };
  }

  // A decoded code's result page; an uncertain read (the API's `uncertain`) asks there to check its digits.
  function resultPath(code) {
    return "/capture/barcode/" + encodeURIComponent(code.text) + (code.uncertain ? "?check=1" : "");
  }

  // Barcode scanning: frames from the camera's scan area go to the server a few times a second until one is read
  // for sure (both decoders agree); an uncertain read that three frames in a row agree on goes to the result page
  // with its digits to check.
  const scanner = document.querySelector("[data-scanner]:not(.disabled)");
  if (scanner) {
    const canvas = document.createElement("canvas");
    const area = { x: 0.1, y: 0.3, w: 0.8, h: 0.4 };  // as .scan-area in the CSS
    let last = null, agreeing = 0, done = false;
    const camera = cameraCard(scanner, { ready: "Point the camera at the barcode, inside the frame.",
      alternative: "You can also take a photo of the barcode or type the code.", onReady: (current) => { done = false; frame(current); } });
    const { video, status } = camera;
    const disabled = () => {
      done = true;
      camera.setState("disabled", "Scanning is turned off.");
      document.querySelector("#scan-photo-card")?.remove();
      track("scan_disabled");
    };
    const finish = (code) => {
      done = true;
      scanner.classList.add("found");
      status.textContent = `Found ${code.text}`;
      camera.stop();
      window.location.assign(resultPath(code));
    };
    const frame = async (current) => {
      if (done || !current()) return;
      if (video.videoWidth > 0) {
        const sx = video.videoWidth * area.x, sy = video.videoHeight * area.y;
        const sw = video.videoWidth * area.w, sh = video.videoHeight * area.h;
        const scale = Math.min(1, 1000 / sw);
        canvas.width = Math.round(sw * scale);
        canvas.height = Math.round(sh * scale);
        canvas.getContext("2d").drawImage(video, sx, sy, sw, sh, 0, 0, canvas.width, canvas.height);
        const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", 0.9));
        try {
          const response = await fetch("/api/v1/barcodes/decode", { method: "POST", body: blob, credentials: "same-origin",
            headers: { "X-CSRF-Token": csrf(), "Content-Type": "image/jpeg" } });
          if (response.ok) {
            const codes = (await response.json()).codes || [];
            const code = codes.find((c) => c.gtin) || codes[0];
            if (code) {
              agreeing = code.text === last ? agreeing + 1 : 1;
              last = code.text;
              if (!code.uncertain || agreeing >= 3) { finish(code); return; }
              status.textContent = `Reading ${code.text}… hold still`;
            }
          } else if ((await response.clone().json().catch(() => null))?.error?.code === "scanning_disabled") {
            disabled();  // turned off while this screen was open: takes effect now
            return;
          }
        } catch { status.textContent = "No connection to the server; retrying…"; }
      }
      setTimeout(() => frame(current), 250);
    };
    track("scan_open");
    camera.start();
  }

  // Photo item: the camera's picture (or one from the gallery) becomes the quick form's photo, shown before
  // anything is saved, with Retake; the form then saves the item as Quick add does (queued when offline).
  const photoCamera = document.querySelector("[data-photo-camera]");
  if (photoCamera) {
    const form = document.querySelector("form[data-quick-add]");
    const input = form.querySelector("input[type=file]");
    const camera = cameraCard(photoCamera, { ready: "Frame the item and tap the shutter.",
      alternative: "You can choose a photo from the gallery instead." });
    const shutter = photoCamera.querySelector("[data-shutter]");
    const retake = form.querySelector("[data-retake]");
    shutter.addEventListener("click", async () => {
      const file = await camera.take("photo", photoHints.quality);
      if (!file) { camera.status.textContent = "The picture could not be taken. Try again, or choose one from the gallery."; return; }
      const picked = new DataTransfer();
      picked.items.add(file);
      input.files = picked.files;
      input.dataset.source = "camera";
      input.dispatchEvent(new Event("change"));
      camera.stop();
      photoCamera.hidden = true;
      retake.hidden = false;
      track("capture_photo");
    });
    retake.addEventListener("click", () => {
      input.value = "";
      form.querySelector(".preview").hidden = true;
      form.querySelector(".photo-pick span").textContent = "Or choose from the gallery";
      photoCamera.hidden = false;
      retake.hidden = true;
      camera.start();
    });
    input.addEventListener("change", () => { if (input.files?.length) retake.hidden = false; });
    track("scan_open");
    camera.start();
  }

  // Receipt mode: the camera with a receipt-shaped outline; the picture is shown to check (Use this photo,
  // Retake) before it is uploaded and read, through the same input as a chosen photo.
  const receiptCamera = document.querySelector("[data-receipt-camera]");
  if (receiptCamera) {
    const input = document.querySelector("#receipt-photo");
    const camera = cameraCard(receiptCamera, { ready: "Fit the receipt inside the outline and tap the shutter.",
      alternative: "You can choose a photo of the receipt instead." });
    const taken = receiptCamera.querySelector(".taken"), preview = receiptCamera.querySelector(".taken-preview");
    const finder = receiptCamera.querySelector(".viewfinder");
    let photo = null;
    const check = (file) => {
      photo = file;
      preview.src = URL.createObjectURL(file);
      camera.stop();
      finder.hidden = true;
      receiptCamera.querySelectorAll("[data-state-panel]").forEach((panel) => { panel.hidden = true; });
      taken.hidden = false;
      taken.querySelector("[data-use]").disabled = false;
      receiptCamera.scrollIntoView({ block: "start" });
    };
    // A photo chosen from the gallery is shown to check first too; it is uploaded on "Use this photo".
    document.addEventListener("change", (event) => {
      if (event.target !== input || input.dataset.confirmed || !input.files?.length) return;
      event.stopImmediatePropagation();
      track("pick_gallery");
      check(input.files[0]);
    }, true);
    receiptCamera.querySelector("[data-shutter]").addEventListener("click", async () => {
      const file = await camera.take("receipt", 0.92);  // a receipt keeps more detail for reading
      if (!file) { camera.status.textContent = "The picture could not be taken. Try again, or choose a photo."; return; }
      check(file);
      track("capture_photo");
    });
    receiptCamera.querySelector("[data-retake]").addEventListener("click", () => {
      photo = null;
      input.value = "";
      taken.hidden = true;
      finder.hidden = false;
      camera.start();
    });
    receiptCamera.querySelector("[data-use]").addEventListener("click", () => {
      if (!photo) return;
      const picked = new DataTransfer();
      picked.items.add(photo);
      input.files = picked.files;
      input.dataset.confirmed = "1";
      input.dispatchEvent(new Event("change"));
      delete input.dataset.confirmed;
      taken.querySelector("[data-use]").disabled = true;
      input.closest(".card")?.scrollIntoView({ block: "center" });  // where the upload's progress shows
    });
    track("scan_open");
    camera.start();
  }

  // A photo of a barcode: decoded on the server; one code goes straight to its result.
  document.querySelectorAll("input[type=file][data-scan-photo]").forEach((input) => {
    input.addEventListener("change", async () => {
      const file = input.files && input.files[0];
      if (!file) return;
      const card = input.closest(".card");
      const status = card.querySelector(".photo-status");
      const list = card.querySelector(".photo-codes");
      status.classList.remove("error");
      list.hidden = true;
      status.textContent = "Looking for a barcode…";
      let body = null, ok = false, reached = false;
      try {
        const response = await fetch("/api/v1/barcodes/decode", { method: "POST", body: file, credentials: "same-origin",
          headers: { "X-CSRF-Token": csrf(), "Content-Type": file.type || "application/octet-stream" } });
        reached = true;
        ok = response.ok;
        body = await response.json();
      } catch { body = null; }
      input.value = "";
      if (!reached) {
        // No connection: the photo waits in the queue; once read, its entry links to the code's result.
        const entry = await queue.add("A barcode photo", null, [file], null, null, true);
        status.textContent = entry ? "No connection: the photo is kept on this phone and will be read when you’re back online."
          : "No connection, and this phone refused to keep the photo (storage full or turned off). Try again when you’re online.";
        return;
      }
      if (!ok) {
        status.classList.add("error");
        status.textContent = (body && body.error && body.error.message) || "The photo could not be sent. Try again.";
        if (body?.error?.code === "scanning_disabled") window.location.reload();
        return;
      }
      const codes = body.codes || [];
      if (codes.length === 1) { window.location.assign(resultPath(codes[0])); return; }
      if (codes.length === 0) {
        status.classList.add("error");
        status.textContent = "No barcode found in this photo. Try again closer and in good light, or type the number below.";
        return;
      }
      status.textContent = `${codes.length} codes found: which one?`;
      list.replaceChildren(...codes.map((c) => {
        const item = document.createElement("li");
        const link = document.createElement("a");
        link.href = resultPath(c);
        link.textContent = `${c.format}: ${c.text}${c.uncertain ? " (check the digits)" : ""}`;
        item.append(link);
        return item;
      }));
      list.hidden = false;
    });
  });

  // One file sent with progress, then the page the server names (a backup to restore, a CSV to map,
  // a receipt to review); a preview is shown first where the form has one.
  document.querySelectorAll("input[type=file][data-upload-next]").forEach((input) => {
    input.addEventListener("change", () => {
      const file = input.files && input.files[0];
      if (!file) return;
      const field = input.closest(".field, .card");
      const progress = field.querySelector(".transfer-progress");
      const status = field.querySelector(".transfer-status");
      const preview = field.querySelector(".preview");
      if (preview) { try { preview.src = URL.createObjectURL(file); preview.hidden = false; } catch { /* no preview */ } }
      status.classList.remove("error");
      progress.hidden = false;
      progress.value = 0;
      status.textContent = `Uploading ${file.name}…`;
      const xhr = new XMLHttpRequest();
      xhr.open("POST", input.dataset.uploadNext);
      xhr.setRequestHeader("X-CSRF-Token", csrf());
      xhr.setRequestHeader("X-File-Name", encodeURIComponent(file.name));
      xhr.setRequestHeader("Content-Type", file.type || "application/octet-stream");
      xhr.upload.onprogress = (e) => {
        if (e.lengthComputable) {
          progress.value = (e.loaded / e.total) * 100;
          if (e.loaded === e.total) status.textContent = "Checking the file…";
        }
      };
      xhr.onload = () => {
        let body = null;
        try { body = JSON.parse(xhr.responseText); } catch { body = null; }
        if (xhr.status < 300 && body && body.next) { window.location.assign(body.next); return; }
        progress.hidden = true;
        status.textContent = (body && body.error && body.error.message) || "The upload failed.";
        status.classList.add("error");
        input.value = "";
      };
      xhr.onerror = async () => {
        progress.hidden = true;
        if (input.dataset.offlineQueue !== undefined) {
          // A receipt waits in this browser's queue and is read once it reaches the server.
          const entry = await queue.add("A receipt", null, [file], null, input.dataset.uploadNext);
          status.textContent = entry ? "No connection: the receipt is kept on this phone and will be uploaded and read when you’re back online."
            : "No connection, and this phone refused to keep the photo (storage full or turned off). Try again when you’re online.";
          input.value = "";
          return;
        }
        status.textContent = "No connection. Nothing was changed; try again.";
      };
      xhr.send(file);
    });
  });


  // Photo uploads: each file is sent as its own request with progress; failures keep the page as it is.
  document.querySelectorAll("input[type=file][data-upload]").forEach((input) => {
    input.addEventListener("change", async () => {
      const progress = document.querySelector(".upload-progress");
      const status = document.querySelector(".upload-status");
      let files;
      try { files = await downsizeAll(input.files); } catch (error) { status.textContent = error.message; input.value = ""; return; }
      let failed = 0, already = 0, offline = [];
      for (const [index, file] of files.entries()) {
        status.textContent = `Uploading ${index + 1} of ${files.length}…`;
        progress.hidden = false;
        const ok = await new Promise((resolve) => {
          const xhr = new XMLHttpRequest();
          xhr.open("POST", input.dataset.upload);
          xhr.setRequestHeader("X-CSRF-Token", csrf());
          xhr.setRequestHeader("Content-Type", file.type || "application/octet-stream");
          xhr.upload.onprogress = (e) => { if (e.lengthComputable) progress.value = (e.loaded / e.total) * 100; };
          xhr.onload = () => {
            if (xhr.status >= 300) {
              try { status.textContent = JSON.parse(xhr.responseText).error.message; } catch { status.textContent = "Upload failed."; }
            }
            if (xhr.status === 200) already += 1;
            resolve(xhr.status < 300);
          };
          xhr.onerror = () => { offline.push(file); resolve(true); };
          xhr.send(file);
        });
        if (!ok) failed += 1;
      }
      progress.hidden = true;
      if (offline.length > 0) {
        // No connection: the photos wait in this browser's queue and go up when it returns.
        const itemID = input.dataset.item;
        const title = `${offline.length === 1 ? "A photo" : offline.length + " photos"} for ${document.querySelector("h1")?.textContent || "an item"}`;
        const entry = await queue.add(title, null, offline, itemID);
        status.textContent = entry
          ? "No connection: the photo is kept on this phone and will be uploaded when you’re back online."
          : "No connection, and this phone refused to keep the photo (storage full or turned off). Try again when you’re online.";
        input.value = "";
        return;
      }
      if (failed === 0) window.location.assign(`${location.pathname}?notice=${encodeURIComponent(photosNotice(files.length - already, already))}`);
    });
  });
  // Passkeys (WebAuthn). The server's options are JSON, with base64url text where the browser wants bytes, and the
  // browser's answers go back the same way.
  const b64 = {
    decode: (text) => Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(text.length / 4) * 4, "=")),
                                      (c) => c.charCodeAt(0)),
    encode: (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, ""),
  };
  const passkeysSupported = () => !!(window.PublicKeyCredential && navigator.credentials && window.isSecureContext);
  const postJSON = async (url, body, token) => {
    const response = await fetch(url, { method: "POST", credentials: "same-origin", body: JSON.stringify(body || {}),
      headers: { "Content-Type": "application/json", "Accept": "application/json", "X-CSRF-Token": token || csrf() } });
    const answer = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(answer.error?.message || `The server answered ${response.status}.`);
    return answer;
  };
  const credentialList = (list) => (list || []).map((c) => ({ ...c, id: b64.decode(c.id) }));
  const passkeyMessage = (error) => error?.name === "NotAllowedError" ? "The passkey was not used (cancelled, or it timed out)."
    : error?.name === "InvalidStateError" ? "This passkey is already registered." : (error?.message || "The passkey did not work.");
  // A passkey's answer to a fresh challenge from `optionsURL` (navigator.credentials.get), as the server reads it.
  async function usePasskey(optionsURL, token) {
    const { publicKey } = await postJSON(optionsURL, {}, token);
    const credential = await navigator.credentials.get({ publicKey: { ...publicKey, challenge: b64.decode(publicKey.challenge),
      allowCredentials: credentialList(publicKey.allowCredentials) } });
    const r = credential.response;
    return { id: credential.id, rawId: b64.encode(credential.rawId), type: credential.type, response: {
      clientDataJSON: b64.encode(r.clientDataJSON), authenticatorData: b64.encode(r.authenticatorData), signature: b64.encode(r.signature),
      userHandle: r.userHandle ? b64.encode(r.userHandle) : null } };
  }
  // Settings → Security & Privacy: add a passkey (named), where the browser can make one.
  const passkeyForm = document.querySelector("form[data-passkey-add]");
  if (passkeyForm && passkeysSupported()) {
    passkeyForm.hidden = false;
    document.querySelector("[data-passkey-unsupported]")?.setAttribute("hidden", "");
    passkeyForm.addEventListener("submit", async (event) => {
      event.preventDefault();
      const error = passkeyForm.querySelector("[data-passkey-error]");
      error.hidden = true;
      try {
        const { publicKey } = await postJSON("/settings/passkeys/options");
        const credential = await navigator.credentials.create({ publicKey: { ...publicKey, challenge: b64.decode(publicKey.challenge),
          user: { ...publicKey.user, id: b64.decode(publicKey.user.id) }, excludeCredentials: credentialList(publicKey.excludeCredentials) } });
        await postJSON("/settings/passkeys", { name: passkeyForm.querySelector("[name=name]").value, id: credential.id,
          rawId: b64.encode(credential.rawId), type: credential.type, response: { clientDataJSON: b64.encode(credential.response.clientDataJSON),
            attestationObject: b64.encode(credential.response.attestationObject) } });
        window.location.assign("/settings?notice=" + encodeURIComponent("Passkey added.") + "#security");
      } catch (e) {
        error.textContent = passkeyMessage(e);
        error.hidden = false;
      }
    });
  }
  // The sign-in page: "Sign in with a passkey" (a discoverable one: the browser offers this site's).
  const passkeySignIn = document.querySelector("[data-passkey-signin]");
  if (passkeySignIn && passkeysSupported()) {
    passkeySignIn.hidden = false;
    passkeySignIn.querySelector("button").addEventListener("click", async () => {
      const form = document.querySelector("form[action='/signin']");
      const token = form.querySelector("[name=_csrf]").value, next = form.querySelector("[name=next]")?.value;
      try {
        const answer = await usePasskey("/signin/passkey/options", token);
        const done = await postJSON("/signin/passkey" + (next ? "?next=" + encodeURIComponent(next) : ""), answer, token);
        window.location.assign(done.next || "/");
      } catch (e) {
        let alert = passkeySignIn.parentElement.querySelector(".alert");
        if (!alert) {
          alert = document.createElement("div");
          alert.className = "alert";
          alert.setAttribute("role", "alert");
          passkeySignIn.parentElement.prepend(alert);
        }
        alert.textContent = passkeyMessage(e);
      }
    });
  }

  // The app lock. The server enforces it (AppLockMiddleware); this is its screen. The page counts the person's own
  // activity (typing, tapping, scrolling; shared by this browser's tabs) and tells the server of it at most every
  // tenth of the timeout (AppLock.granularity), so a person busy on a long form is never locked out under it. When
  // the time passes, or the server answers 423, the lock screen covers the page as it is: unlocking (by fetch, with
  // the password or a passkey) takes it away and everything typed is still there. The page's polling does not count.
  const wireUnlock = (root, unlocked) => {
    const form = root.querySelector("form[data-unlock]"), error = root.querySelector("[data-lock-error]");
    const token = form.querySelector("[name=_csrf]").value;
    const fail = (message) => { error.textContent = message; error.hidden = false; };
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      error.hidden = true;
      const button = form.querySelector("button[type=submit]");
      button.disabled = true;
      try {
        const response = await serverFetch("/unlock", { method: "POST", credentials: "same-origin", body: new URLSearchParams(new FormData(form)),
                                                       headers: { "Accept": "application/json" } });
        if (response.ok) { unlocked(); return; }
        fail((await response.json().catch(() => null))?.error?.message || "Nestory could not be unlocked. Try again.");
        form.querySelector("[name=password]").select();
      } catch { fail("No connection to the server. Try again."); } finally { button.disabled = false; }
    });
    const passkey = root.querySelector("[data-unlock-passkey]");
    if (passkey && passkeysSupported()) {
      passkey.hidden = false;
      passkey.addEventListener("click", async () => {
        error.hidden = true;
        try { await postJSON("/unlock/passkey", await usePasskey("/unlock/passkey/options", token), token); unlocked(); } catch (e) { fail(passkeyMessage(e)); }
      });
    }
  };
  // The lock page (a page loaded while locked): unlocked, the same address again.
  const lockPage = document.querySelector("[data-lock-page]");
  if (lockPage) wireUnlock(lockPage, () => window.location.replace(lockPage.querySelector("[name=next]")?.value || window.location.href));
  const lockTemplate = document.getElementById("lock-screen");
  if (lockTemplate) {
    const timeout = Number(lockTemplate.dataset.timeout) * 1000, step = Math.min(15000, timeout / 10);
    const remember = (key, value) => { try { localStorage.setItem(key, String(value)); } catch { /* private mode: this tab only */ } };
    const remembered = (key) => { try { return Number(localStorage.getItem(key)) || 0; } catch { return 0; } };
    let last = Date.now(), reported = Date.now(), overlay = null;  // this page's load was activity on the server
    remember("nestory:active", last);
    const covered = () => document.querySelectorAll("body > .page, body > nav.tabs");
    const hide = () => {
      overlay?.remove();
      overlay = null;
      covered().forEach((el) => { el.inert = false; el.removeAttribute("aria-hidden"); });
      document.body.classList.remove("locked");
      last = reported = Date.now();
      remember("nestory:active", last);
    };
    const show = () => {
      if (overlay) return;
      overlay = document.createElement("div");
      overlay.className = "lock-overlay";
      overlay.append(lockTemplate.content.cloneNode(true));
      covered().forEach((el) => { el.inert = true; el.setAttribute("aria-hidden", "true"); });
      document.body.classList.add("locked");
      document.body.append(overlay);
      wireUnlock(overlay, () => { remember("nestory:unlocked", Date.now()); hide(); queue.replay(); });  // what waited meanwhile
      overlay.querySelector("[name=password]").focus();
    };
    const lockNow = () => {
      show();
      serverFetch("/lock", { method: "POST", credentials: "same-origin", headers: { "Accept": "application/json", "X-CSRF-Token": csrf(), ...background } })
        .catch(() => { /* the server locks by itself */ });
    };
    const idle = () => Date.now() - Math.max(last, remembered("nestory:active"));
    const active = () => {
      if (overlay) return;
      if (idle() >= timeout) { lockNow(); return; }  // back after the time passed (a phone asleep): this touch does not count
      last = Date.now();
      remember("nestory:active", last);
      if (last - reported >= step) {
        reported = last;
        fetch("/session/activity", { method: "POST", credentials: "same-origin", headers: { "X-CSRF-Token": csrf() } }).catch(() => {});
      }
    };
    ["pointerdown", "keydown", "input", "wheel", "touchstart", "scroll"].forEach((type) =>
      document.addEventListener(type, active, { capture: true, passive: true }));
    const check = () => { if (!overlay && idle() >= timeout) lockNow(); };
    setInterval(check, 1000);
    document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible") check(); });
    window.addEventListener("nestory:locked", show);
    // Unlocked in another tab: this one's screen goes too (the session is one).
    window.addEventListener("storage", (event) => { if (event.key === "nestory:unlocked" && overlay) hide(); });
  } else {
    // No lock screen on this page (the lock was turned on elsewhere): the server's lock page takes over.
    window.addEventListener("nestory:locked", () => { if (!lockPage) window.location.reload(); });
  }

  // Value from photos: each chosen photo goes up at once (downsized, without location data) as a photo to value;
  // its id joins the form, which then starts one batch for them all. Nothing is made an item before review.
  document.querySelectorAll("[data-intake-form]").forEach((form) => {
    const input = form.querySelector("[data-intake-upload]"), list = form.querySelector("[data-intake-list]");
    const status = form.querySelector("[data-intake-status]"), submit = form.querySelector("[data-intake-submit]");
    let pending = 0;
    const refresh = () => {
      const count = form.querySelectorAll("input[name=photo]").length;
      submit.disabled = pending > 0 || count === 0;
      submit.textContent = count === 1 ? "Value this photo" : `Value these ${count} photos`;
    };
    input.addEventListener("change", async () => {
      const files = Array.from(input.files || []);
      input.value = "";
      for (const original of files) {
        pending += 1;
        refresh();
        status.textContent = `Sending ${original.name || "a photo"}…`;
        try {
          const file = await downsize(original);
          const response = await fetch(input.dataset.intakeUpload, { method: "POST", credentials: "same-origin",
            headers: { "Content-Type": file.type || "application/octet-stream", "X-CSRF-Token": csrf(), "Idempotency-Key": crypto.randomUUID() },
            body: file });
          const body = await response.json().catch(() => ({}));
          if (!response.ok) throw new Error(body.error?.message || `The server answered ${response.status}.`);
          const hidden = document.createElement("input");
          hidden.type = "hidden"; hidden.name = "photo"; hidden.value = body.id;
          form.appendChild(hidden);
          const item = document.createElement("li");
          const image = document.createElement("img");
          image.src = `${body.url}?size=thumb`; image.alt = ""; image.width = 64; image.height = 64;
          item.appendChild(image);
          list.appendChild(item);
          status.textContent = "";
        } catch (error) {
          status.textContent = error.message;
          reportError("upload", error.message);
        } finally {
          pending -= 1;
          refresh();
        }
      }
    });
  });
})();
