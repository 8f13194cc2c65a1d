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
      const body = { name: data.name, roomID: data.roomID || null, categoryID: data.categoryID || null, price: data.price || null,
                     purchaseDate: data.purchaseDate || null };
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
