"""The valuation batch benchmark (scripts/bench-valuation.sh): signs in to a running server, gives every item a
photo, sets the providers to a local fake with a latency per call, values every item in one batch, and prints the
time beside the ideal the rate limit sets, the fake's observed peak rate, and the server's peak memory."""
import http.cookiejar
import json
import random
import re
import struct
import sys
import threading
import time
import urllib.parse
import urllib.request
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

base, fake_port, pid, rate, width, latency = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
low, high = (float(x) for x in latency.split("-"))
random.seed(7)
calls = {"analysis": [], "search": []}
lock = threading.Lock()


class Fake(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        kind = "analysis" if self.path.endswith("/chat/completions") else "search"
        with lock:
            calls[kind].append(time.monotonic())
        time.sleep(random.uniform(low, high))
        if kind == "analysis":
            content = {"brand": "Acme", "product_name": "Thing", "model": None, "barcode": None, "condition": "good",
                       "sizes": None, "category": None, "description": None}
            answer = {"choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": json.dumps(content)}}]}
        else:
            used = " used " in f" {body['query']} "
            answer = {"query": body["query"], "results": [
                {"title": f"listing {i}", "url": f"https://shop.example/{i}", "content": f"{'Used' if used else 'New'}. ${p}.00", "score": 0.9}
                for i, p in enumerate([40, 45, 50, 55, 60] if used else [90, 95, 100])]}
        data = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


fake = ThreadingHTTPServer(("127.0.0.1", fake_port), Fake)
threading.Thread(target=fake.serve_forever, daemon=True).start()

jar = http.cookiejar.CookieJar()
opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
csrf = {"token": ""}


def request(method, path, data=None, content_type=None, headers=None):
    req = urllib.request.Request(base + path, data=data, method=method, headers=headers or {})
    if content_type:
        req.add_header("Content-Type", content_type)
    if method != "GET" and csrf["token"]:
        req.add_header("X-CSRF-Token", csrf["token"])
    with opener.open(req, timeout=120) as response:
        body = response.read().decode()
        request.last_url = response.geturl()
    found = re.search(r'name="csrf-token" content="([^"]+)"', body)
    if found:
        csrf["token"] = found.group(1)
    return body


def form(path, fields):
    request("POST", path, urllib.parse.urlencode(fields).encode(), "application/x-www-form-urlencoded")


request("GET", "/signin")
cookie_csrf = next(c.value for c in jar if c.name == "nestory_csrf")
form("/signin", {"email": "demo@example.com", "password": "bench-password-1", "_csrf": cookie_csrf})
request("GET", "/")


def png(seed):
    raw = b"".join(b"\x00" + bytes([(seed * 37) % 256, 80, 40]) * 64 for _ in range(48))
    chunk = lambda kind, body: struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 64, 48, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


items, after = [], None
while True:
    page = json.loads(request("GET", "/api/v1/items?limit=200" + (f"&after={after}" if after else "")))
    items += [item["id"] for item in page["items"]]
    after = page.get("nextCursor")
    if not after:
        break
for index, item in enumerate(items):
    request("POST", f"/api/v1/items/{item}/photos", png(index), "image/png")
form("/settings/valuation", {"analysisBaseURL": f"http://127.0.0.1:{fake_port}/v1", "analysisModel": "fake", "analysisKey": "sk-bench-0000",
                             "searchKey": "tvly-bench-0000", "searchCountry": "", "_csrf": csrf["token"]})

started = time.monotonic()
request("POST", "/valuations/batches", urllib.parse.urlencode({"missing": "1", "_csrf": csrf["token"]}).encode(), "application/x-www-form-urlencoded")
job_id = request.last_url.rstrip("/").split("/")[-1]
peak_rss = 0
while True:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                peak_rss = int(line.split()[1]) // 1024
    job = json.loads(request("GET", f"/api/v1/jobs/{job_id}"))
    if job["state"] not in ("queued", "running"):
        break
    time.sleep(0.25)
elapsed = time.monotonic() - started
assert job["state"] == "succeeded", job


def peak_per_minute(times):
    times = sorted(times)
    best, j = 0, 0
    for i, t in enumerate(times):
        while times[j] < t - 60:
            j += 1
        best = max(best, i - j + 1)
    return best


ideal = max(len(calls["analysis"]), len(calls["search"])) / (rate / 60)
print()
print(f"Valuation batch: {len(items)} items with a photo, width {width}, fake providers at {latency} s per call, "
      f"{rate} calls/min per provider")
print(f"{'measure':<44}{'value':>12}")
print(f"{'analysis calls / search calls':<44}{len(calls['analysis']):>6} / {len(calls['search']):<4}")
print(f"{'ideal time set by the rate limit (s)':<44}{ideal:>12.1f}")
print(f"{'measured time (s)':<44}{elapsed:>12.1f}")
print(f"{'measured / ideal':<44}{elapsed / ideal:>12.2f}")
print(f"{'peak calls in any minute (analysis, search)':<44}{peak_per_minute(calls['analysis']):>6}, {peak_per_minute(calls['search']):<4}")
print(f"{'server peak memory (VmHWM, MB)':<44}{peak_rss:>12}")
fake.shutdown()
