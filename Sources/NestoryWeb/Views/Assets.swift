import Foundation
import HTTPTypes
import Hummingbird

/// The stylesheet and script, compiled into the binary so `nestory serve` needs no files beside it.
enum Assets {
    static let version = "10"

    static let css = #"""
    :root { --bg:#f6f7f9; --card:#fff; --text:#111827; --muted:#6b7280; --line:#e5e7eb; --accent:#0f766e; --accent-text:#fff;
      --ok:#15803d; --warn:#b45309; --danger:#b91c1c; --radius:14px; color-scheme: light dark;
      font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; font-size: 100%; }
    @media (prefers-color-scheme: dark) { :root { --bg:#0b0f14; --card:#151b23; --text:#e5e7eb; --muted:#9ca3af; --line:#263040;
      --accent:#2dd4bf; --accent-text:#042f2e; --ok:#4ade80; --warn:#fbbf24; --danger:#f87171; } }
    * { box-sizing: border-box; }
    body { margin:0; background:var(--bg); color:var(--text); line-height:1.45; }
    a { color:var(--accent); }
    .page { max-width: 1100px; margin: 0 auto; padding: 0 16px calc(88px + env(safe-area-inset-bottom)); }
    .bar { display:flex; align-items:center; justify-content:space-between; gap:12px; padding:16px 0 8px; }
    .bar h1 { font-size:1.75rem; margin:0; overflow-wrap:anywhere; }
    .card { background:var(--card); border:1px solid var(--line); border-radius:var(--radius); padding:16px; margin:12px 0; }
    .narrow { max-width: 440px; margin: 24px auto; }
    .lead { font-size:1.05rem; }
    .muted { color:var(--muted); }
    .visually-hidden { position:absolute !important; width:1px; height:1px; overflow:hidden; clip:rect(0 0 0 0); white-space:nowrap; }
    button, .button { display:inline-flex; align-items:center; justify-content:center; min-height:44px; min-width:44px; padding:0 16px;
      border-radius:10px; border:1px solid var(--line); background:var(--card); color:var(--text); font:inherit; text-decoration:none; cursor:pointer; }
    .primary { background:var(--accent); color:var(--accent-text); border-color:var(--accent); font-weight:600; }
    .danger { color:var(--danger); border-color:var(--danger); background:transparent; }
    .small { min-height:36px; padding:0 10px; }
    .wide { width:100%; }
    .icon { font-size:1.6rem; width:44px; padding:0; }
    button.link { border:0; background:none; color:var(--accent); min-height:44px; padding:0 4px; }
    .field { margin:0 0 14px; }
    .field label { display:block; font-weight:600; margin-bottom:4px; }
    input, select, textarea { width:100%; min-height:44px; padding:10px 12px; border:1px solid var(--line); border-radius:10px;
      background:var(--bg); color:var(--text); font:inherit; }
    .invalid input, .invalid select { border-color:var(--danger); }
    .error { color:var(--danger); margin:4px 0 0; }
    .hint { color:var(--muted); margin:4px 0 0; font-size:.9rem; }
    .alert { border:1px solid var(--danger); color:var(--danger); border-radius:10px; padding:10px 12px; margin-bottom:12px; }
    .notice { border:1px solid var(--ok); color:var(--ok); border-radius:10px; padding:10px 12px; margin:8px 0; overflow-wrap:anywhere; }
    .two { display:grid; grid-template-columns:1fr 1fr; gap:12px; }
    .form-actions { display:flex; gap:12px; justify-content:flex-end; }
    .tabs { position:fixed; bottom:0; left:0; right:0; display:flex; background:var(--card); border-top:1px solid var(--line);
      padding-bottom:env(safe-area-inset-bottom); z-index:10; }
    .tab { flex:1; display:flex; flex-direction:column; align-items:center; gap:2px; padding:8px 0; min-height:56px; color:var(--muted);
      text-decoration:none; font-size:.75rem; }
    .tab svg { width:24px; height:24px; fill:none; stroke:currentColor; stroke-width:1.8; }
    .tab.active { color:var(--accent); font-weight:600; }
    .signout { display:flex; gap:8px; align-items:center; justify-content:flex-end; color:var(--muted); margin:24px 0; }
    .summary { display:grid; align-items:start; grid-auto-flow:column; grid-auto-columns:minmax(220px, 1fr); gap:12px; overflow-x:auto; scroll-snap-type:x mandatory; }
    .summary .card { margin:0; scroll-snap-align:start; }
    .stat summary { list-style:none; cursor:pointer; display:flex; flex-direction:column; min-height:44px; }
    .stat summary::-webkit-details-marker { display:none; }
    .big { font-size:1.5rem; font-weight:700; }
    .sub { color:var(--muted); font-size:.9rem; }
    .improve { display:block; margin:10px 0; font-weight:600; }
    .charts { display:grid; gap:12px; grid-template-columns:1fr; }
    .chart { margin:0; }
    .chart figcaption { font-weight:600; margin-top:8px; }
    .donut svg { width:180px; height:180px; display:block; margin:0 auto; color:var(--text); }
    .donut-total { font-size:4px; font-weight:700; fill:currentColor; }
    .legend { list-style:none; padding:0; margin:8px 0 0; }
    .legend li { display:flex; gap:8px; align-items:center; padding:2px 0; }
    .legend .value { margin-left:auto; color:var(--muted); }
    .swatch { width:12px; height:12px; border-radius:3px; background:var(--c); flex:none; }
    .bars svg { width:100%; height:auto; color:var(--text); }
    .bar { fill:var(--accent); }
    .bar-label, .bar-value { font-size:12px; fill:currentColor; }
    .search { display:flex; flex-wrap:wrap; gap:8px; margin:16px 0 8px; }
    .search input { flex:1 1 12rem; min-width:0; }
    .search select { width:auto; flex:1 1 auto; }
    .chips { display:flex; gap:8px; overflow-x:auto; padding:4px 0; }
    .chip { white-space:nowrap; border:1px solid var(--line); border-radius:999px; padding:0 14px; min-height:44px; display:inline-flex;
      align-items:center; text-decoration:none; color:var(--text); background:var(--card); }
    .chip.on { background:var(--accent); color:var(--accent-text); border-color:var(--accent); }
    .toolbar { display:flex; justify-content:space-between; align-items:center; margin:8px 0; }
    .toggle { display:inline-flex; border:1px solid var(--line); border-radius:10px; overflow:hidden; }
    .toggle a { padding:0 14px; min-height:44px; display:inline-flex; align-items:center; text-decoration:none; color:var(--text); }
    .toggle a.on { background:var(--accent); color:var(--accent-text); }
    .items { list-style:none; padding:0; margin:0; }
    .items.list .item a { display:grid; grid-template-columns:56px 1fr; grid-template-rows:auto auto; gap:2px 12px; padding:10px 0;
      border-bottom:1px solid var(--line); text-decoration:none; color:var(--text); min-height:44px; }
    .items.list .thumb { grid-row:1 / span 2; }
    .items.list .badges { grid-column:2; }
    .items.grid { display:grid; grid-template-columns:repeat(auto-fill, minmax(150px, 1fr)); gap:12px; }
    .items.grid .item a { display:flex; flex-direction:column; gap:6px; background:var(--card); border:1px solid var(--line);
      border-radius:var(--radius); padding:8px; text-decoration:none; color:var(--text); height:100%; }
    .items.grid .thumb { width:100%; height:auto; aspect-ratio:1; }
    .thumb { width:56px; height:56px; border-radius:10px; overflow:hidden; background:var(--line); display:block; }
    .thumb img { width:100%; height:100%; object-fit:cover; display:block; }
    .placeholder { width:100%; height:100%; display:flex; align-items:center; justify-content:center; font-weight:700; font-size:1.4rem;
      color:#fff; background:var(--c); }
    .placeholder.big { width:120px; height:120px; border-radius:20px; font-size:3rem; }
    .text { display:flex; flex-direction:column; min-width:0; }
    .name { font-weight:600; overflow-wrap:anywhere; }
    .badges { display:flex; gap:4px; flex-wrap:wrap; }
    .badge { font-size:.75rem; border-radius:999px; padding:1px 8px; border:1px solid; }
    .badge.ok { color:var(--ok); }
    .badge.missing { color:var(--warn); }
    .more { margin:16px auto; display:flex; width:100%; }
    .empty { text-align:center; padding:32px 8px; }
    .carousel { display:flex; overflow-x:auto; scroll-snap-type:x mandatory; gap:8px; border-radius:var(--radius); }
    .carousel img { width:100%; max-height:60vh; object-fit:contain; scroll-snap-align:center; flex:none; background:var(--line); border-radius:var(--radius); }
    .carousel.empty { flex-direction:column; align-items:center; padding:24px; background:var(--card); border:1px dashed var(--line); }
    .pills { display:flex; gap:8px; flex-wrap:wrap; }
    .pill { border-radius:999px; padding:4px 12px; background:color-mix(in srgb, var(--c, var(--accent)) 18%, transparent); color:var(--text); text-decoration:none; }
    .pill.missing { border:1px dashed var(--warn); color:var(--warn); background:none; }
    .facts { display:grid; grid-template-columns:max-content 1fr; gap:6px 16px; margin:12px 0 0; }
    .facts dt { color:var(--muted); }
    .facts dd { margin:0; overflow-wrap:anywhere; }
    .mono { font-family: ui-monospace, monospace; }
    .notes { white-space:pre-wrap; }
    .tag { margin-right:6px; }
    .list { list-style:none; padding:0; margin:0; }
    .row { display:flex; justify-content:space-between; align-items:center; gap:12px; padding:8px 0; border-bottom:1px solid var(--line); }
    .quick-actions { position:sticky; bottom:calc(64px + env(safe-area-inset-bottom)); display:grid; grid-template-columns:repeat(3, 1fr); gap:6px;
      background:var(--bg); padding:8px 0; }
    .quick-actions .button { padding:0 6px; font-size:.85rem; text-align:center; }
    .upload-progress { width:100%; }
    .transfer-progress, .job-progress { width:100%; }
    .exports .row { align-items:center; }
    .exports .job { min-width: 40%; text-align:right; }
    .mapping { display:grid; grid-template-columns:repeat(auto-fill, minmax(220px, 1fr)); gap:0 12px; }
    .table-wrap { overflow-x:auto; margin:8px 0 16px; }
    .table-wrap table { border-collapse:collapse; width:100%; font-size:.9rem; }
    .table-wrap th, .table-wrap td { text-align:left; padding:6px 8px; border-bottom:1px solid var(--line); vertical-align:top; white-space:pre-line; }
    .table-wrap caption { text-align:left; padding:4px 0; }
    .choices { border:0; padding:0; margin:0 0 16px; }
    .choices legend { font-weight:600; margin-bottom:8px; }
    .choice { display:flex; gap:10px; align-items:flex-start; border:1px solid var(--line); border-radius:10px; padding:10px 12px; margin-bottom:8px; }
    .choice input { width:auto; min-height:0; margin-top:4px; }
    ul.facts { list-style:none; padding:0; grid-template-columns:minmax(0, 1fr); gap:4px; }
    ul.facts li { overflow-wrap:anywhere; }
    .modes { margin:0 0 12px; }
    .review { display:grid; gap:12px; grid-template-columns:1fr; }
    @media (min-width: 800px) { .review { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); align-items:start; } }
    .receipt-image { margin:0; background:var(--card); border:1px solid var(--line); border-radius:12px; padding:8px; }
    .receipt-image img { width:100%; height:auto; max-height:70vh; object-fit:contain; display:block; }
    .raw-text pre { white-space:pre-wrap; font-size:.85rem; max-height:40vh; overflow:auto; }
    .receipt-row { display:flex; gap:12px; align-items:center; text-decoration:none; color:inherit; }
    .receipt-row img { border-radius:8px; object-fit:cover; }
    .viewfinder { position:relative; background:#000; border-radius:12px; overflow:hidden; aspect-ratio:4 / 3; }
    .viewfinder video { width:100%; height:100%; object-fit:cover; display:block; }
    .scan-area { position:absolute; left:10%; top:30%; width:80%; height:40%; border:3px solid #fff; border-radius:10px; box-shadow:0 0 0 999px rgba(0,0,0,.35); }
    .scanner.unavailable .viewfinder { display:none; }
    .scanner.found .scan-area { border-color:var(--ok); }
    .scan-status { font-weight:600; }
    .scan-result .code { font-family:ui-monospace, monospace; color:var(--muted); margin:0 0 8px; }
    .notices { padding-left:18px; }
    .type-code { display:flex; gap:8px; align-items:flex-end; flex-wrap:wrap; }
    .type-code .field { flex:1 1 12rem; margin:0; }
    .actions { display:flex; gap:8px; }
    .photo-pick { display:flex; flex-direction:column; align-items:center; justify-content:center; min-height:180px; border:2px dashed var(--line);
      border-radius:var(--radius); margin-bottom:14px; cursor:pointer; color:var(--accent); font-weight:600; overflow:hidden; }
    .photo-pick .preview { width:100%; max-height:50vh; object-fit:contain; }
    .place-form { display:grid; grid-template-columns:auto 1fr auto; gap:6px; align-items:center; padding:8px 0; border-bottom:1px solid var(--line); }
    .place-form input[name=name] { grid-column: span 2; }
    .place-form input[type=color] { width:44px; padding:2px; }
    .place-form .count { grid-column: 1 / -1; }
    button[disabled] { opacity:.4; cursor:default; }
    .report-cards { display:grid; gap:12px; grid-template-columns:1fr; }
    .report-cards .card { margin:0; display:flex; flex-direction:column; gap:8px; align-items:flex-start; }
    .report-cards h2, .card h2 { margin:0 0 4px; font-size:1.15rem; }
    .tip { border-left:3px solid var(--accent); padding:4px 10px; margin:4px 0; font-size:.9rem; }
    .stats { display:flex; gap:16px; flex-wrap:wrap; }
    fieldset.field { border:0; padding:0; }
    fieldset.field legend { font-weight:600; margin-bottom:4px; padding:0; }
    .choice { display:flex; align-items:center; gap:10px; min-height:44px; }
    .choice input, .pick input { width:22px; min-height:22px; height:22px; flex:none; }
    .picks li { border-bottom:1px solid var(--line); }
    .pick { display:flex; align-items:center; gap:12px; padding:8px 0; min-height:44px; cursor:pointer; }
    .history .row { flex-wrap:wrap; }
    .history .actions form { margin:0; }
    .sticky { position:sticky; bottom:calc(64px + env(safe-area-inset-bottom)); background:var(--card); padding:8px 0; }
    .job-progress { width:100%; height:16px; }
    @media (min-width: 760px) {
      .page { padding-left: 236px; padding-bottom: 32px; }
      .tabs { top:0; right:auto; width:220px; flex-direction:column; border-top:0; border-right:1px solid var(--line); padding:16px 8px; gap:4px; }
      .tab { flex:none; flex-direction:row; gap:12px; padding:10px 12px; font-size:1rem; border-radius:10px; }
      .tab.active { background:color-mix(in srgb, var(--accent) 14%, transparent); }
      .charts { grid-template-columns:1fr 1fr; }
      .summary { grid-auto-flow:row; grid-template-columns:repeat(3, 1fr); }
      .quick-actions { bottom:0; }
      .sticky { bottom:0; }
      .report-cards { grid-template-columns:repeat(3, 1fr); }
      .signed-out .page { padding-left:16px; }
    }
    """#

    static let js = #"""
    "use strict";
    (() => {
      const csrf = () => document.querySelector('meta[name="csrf-token"]')?.content || "";
      // Confirm destructive actions.
      document.addEventListener("submit", (event) => {
        const message = event.target.dataset?.confirm;
        if (message && !window.confirm(message)) event.preventDefault();
      });
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
      // Quick add: photo first; the item and its photo are saved through the API, then its page opens.
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
        });
        form.addEventListener("submit", async (event) => {
          event.preventDefault();
          const data = Object.fromEntries(new FormData(form));
          const headers = { "Content-Type": "application/json", "X-CSRF-Token": data._csrf };
          status.textContent = "Saving…";
          const body = { name: data.name, roomID: data.roomID || null, categoryID: data.categoryID || null, price: data.price || null };
          const created = await fetch("/api/v1/items", { method: "POST", headers, body: JSON.stringify(body), credentials: "same-origin" });
          const result = await created.json().catch(() => ({}));
          if (!created.ok) { status.textContent = result.error?.message || "Could not save. Nothing was lost; try again."; return; }
          if (file.files?.length) {
            status.textContent = "Uploading the photo…";
            const photo = file.files[0];
            const uploaded = await fetch(`/api/v1/items/${result.id}/photos`, { method: "POST", body: photo, credentials: "same-origin",
              headers: { "X-CSRF-Token": data._csrf, "Content-Type": photo.type || "application/octet-stream" } });
            if (!uploaded.ok) {
              const problem = await uploaded.json().catch(() => ({}));
              alert((problem.error?.message || "The photo could not be added.") + " The item was saved; add the photo from its page.");
              window.location.href = `/items/${result.id}?notice=added`;
              return;
            }
          }
          window.location.href = `/items/${result.id}?notice=added`;
        });
      });
      // Report progress: poll the job; when it has finished (or failed) the page shows the result.
      const job = document.querySelector("[data-job]");
      if (job) {
        const status = job.querySelector(".job-status"), bar = job.querySelector(".job-progress");
        const poll = async () => {
          const response = await fetch(job.dataset.job, { credentials: "same-origin" }).catch(() => null);
          const state = response && response.ok ? await response.json().catch(() => null) : null;
          if (state && (state.state === "finished" || state.state === "failed")) { window.location.reload(); return; }
          if (state && state.total > 0) {
            bar.value = Math.floor((state.done * 100) / state.total);
            status.textContent = `Rendering ${state.done} of ${state.total} items…`;
          }
          setTimeout(poll, 400);
        };
        setTimeout(poll, 250);
      }
      // Loss list: keep the "selected" count current while ticking items.
      document.querySelectorAll("form.loss-select").forEach((form) => {
        const count = form.querySelector("[data-selected-count]");
        form.addEventListener("change", (event) => {
          if (event.target.name !== "item") return;
          count.textContent = form.querySelectorAll("input[name=item]:checked, input[type=hidden][name=item]").length;
        });
      });
      // Photo uploads: each file is sent as its own request with progress; failures keep the page as it is.
      // Barcode scanning: frames from the camera's scan area go to the server a few times a second
      // until two agree (or one is read with high confidence); then the result page.
      const scanner = document.querySelector("[data-scanner]");
      if (scanner) {
        const video = scanner.querySelector("video");
        const status = scanner.querySelector(".scan-status");
        const canvas = document.createElement("canvas");
        const area = { x: 0.1, y: 0.3, w: 0.8, h: 0.4 };  // as .scan-area in the CSS
        let last = null, agreeing = 0, stream = null, done = false;
        const unavailable = (message) => { scanner.classList.add("unavailable"); status.textContent = message; };
        const finish = (code) => {
          done = true;
          scanner.classList.add("found");
          status.textContent = `Found ${code}`;
          if (stream) stream.getTracks().forEach((t) => t.stop());
          window.location.assign("/capture/barcode/" + encodeURIComponent(code));
        };
        const frame = async () => {
          if (done) return;
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
                  if (agreeing >= 2 || code.confidence === "high") { finish(code.text); return; }
                  status.textContent = `Reading ${code.text}… hold still`;
                }
              }
            } catch { status.textContent = "No connection to the server; retrying…"; }
          }
          setTimeout(frame, 250);
        };
        (async () => {
          if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
            unavailable("This browser shows no camera here: take a photo of the barcode, or type the code.");
            return;
          }
          try {
            stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: { ideal: "environment" }, width: { ideal: 1280 } }, audio: false });
          } catch (error) {
            unavailable(error && error.name === "NotAllowedError"
              ? "The camera is not allowed for this site: take a photo of the barcode instead, or type the code."
              : "No camera was found: take a photo of the barcode instead, or type the code.");
            return;
          }
          video.srcObject = stream;
          try { await video.play(); } catch { /* autoplay needs muted, which it is */ }
          status.textContent = "Point the camera at the barcode, inside the frame.";
          frame();
        })();
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
          let body = null, ok = false;
          try {
            const response = await fetch("/api/v1/barcodes/decode", { method: "POST", body: file, credentials: "same-origin",
              headers: { "X-CSRF-Token": csrf(), "Content-Type": file.type || "application/octet-stream" } });
            ok = response.ok;
            body = await response.json();
          } catch { body = null; }
          input.value = "";
          if (!ok) {
            status.classList.add("error");
            status.textContent = (body && body.error && body.error.message) || "The photo could not be sent. Try again.";
            return;
          }
          const codes = body.codes || [];
          if (codes.length === 1) { window.location.assign("/capture/barcode/" + encodeURIComponent(codes[0].text)); return; }
          if (codes.length === 0) {
            status.classList.add("error");
            status.textContent = "No barcode found in this photo. Try again closer and in good light, or type the number below.";
            return;
          }
          status.textContent = `${codes.length} codes found: which one?`;
          list.replaceChildren(...codes.map((c) => {
            const item = document.createElement("li");
            const link = document.createElement("a");
            link.href = "/capture/barcode/" + encodeURIComponent(c.text);
            link.textContent = `${c.format}: ${c.text}`;
            item.append(link);
            return item;
          }));
          list.hidden = false;
        });
      });

      // A receipt being read: the review page reloads once the reading is done.
      const receiptPoll = document.querySelector("[data-receipt-poll]");
      if (receiptPoll) {
        const poll = async () => {
          let state = null;
          try { state = await (await fetch(receiptPoll.dataset.receiptPoll, { credentials: "same-origin" })).json(); } catch { state = null; }
          if (state && state.state !== "reading") { window.location.reload(); return; }
          setTimeout(poll, 600);
        };
        setTimeout(poll, 400);
      }

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
          xhr.onerror = () => { progress.hidden = true; status.textContent = "No connection. Nothing was changed; try again."; };
          xhr.send(file);
        });
      });

      // Backups being written: poll until each is ready to download.
      document.querySelectorAll("li.export[data-export-job]").forEach((row) => {
        const url = row.dataset.exportJob;
        if (!url) return;
        const job = row.querySelector(".job");
        const poll = async () => {
          let state = null;
          try { state = await (await fetch(url, { credentials: "same-origin" })).json(); } catch { state = null; }
          if (state && state.state === "running") {
            const percent = state.total > 0 ? Math.floor((state.done / state.total) * 100) : 0;
            const bar = job.querySelector("progress");
            if (bar) bar.value = percent;
            const label = job.querySelector(".job-status");
            if (label) label.textContent = `Writing… ${percent}%`;
            setTimeout(poll, 700);
          } else if (state && state.state === "finished") {
            const link = document.createElement("a");
            link.className = "button primary small";
            link.href = state.download;
            link.setAttribute("download", "");
            link.textContent = `Download (${(state.bytes / 1048576).toFixed(1)} MB)`;
            job.replaceChildren(link);
          } else {
            const message = document.createElement("span");
            message.className = "error";
            message.textContent = (state && state.message) || "The backup failed.";
            job.replaceChildren(message);
          }
        };
        setTimeout(poll, 300);
      });

      document.querySelectorAll("input[type=file][data-upload]").forEach((input) => {
        input.addEventListener("change", async () => {
          const progress = document.querySelector(".upload-progress");
          const status = document.querySelector(".upload-status");
          const files = Array.from(input.files || []);
          let failed = 0;
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
                resolve(xhr.status < 300);
              };
              xhr.onerror = () => { status.textContent = "No connection. Nothing was lost; try again."; resolve(false); };
              xhr.send(file);
            });
            if (!ok) failed += 1;
          }
          progress.hidden = true;
          if (failed === 0) window.location.reload();
        });
      });
    })();
    """#
}

/// Serves the assets with long caching (the URL carries the version).
struct AssetsController {
    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("assets/app.css") { _, _ in Self.response(Assets.css, type: "text/css; charset=utf-8") }
        router.get("assets/app.js") { _, _ in Self.response(Assets.js, type: "text/javascript; charset=utf-8") }
    }

    static func response(_ text: String, type: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.cacheControl] = "public, max-age=31536000, immutable"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
