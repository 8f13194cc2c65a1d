"""Issue 19's topology, as a person meets it: two `nestory serve` processes on one PostgreSQL database (the test cluster
scripts/with-postgres.sh starts) and one S3-compatible object store (moto, scripts/s3-test-server.sh), behind nginx
(Debian's). What one server writes, the other reads; a session made on one is valid on the other; a password change
and failed sign-ins count on both; a background job started on one finishes on the other when the first dies, once.
Needs NESTORY_TEST_POSTGRES_URL (make test runs the browser tests through scripts/with-postgres.sh) and nginx."""
import json
import os
import shutil
import signal
import subprocess
import threading
import time
import urllib.request
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from conftest import BINARY, EMAIL, PASSWORD, ROOT, free_port, phone_page, png, scratch, screenshot, sign_in
from playwright.sync_api import expect

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
ANALYSIS_KEY = "sk-two-servers-1234"


class SlowAnalysis(BaseHTTPRequestHandler):
    """An OpenAI-compatible chat-completions endpoint that takes its time, so a job is still running when its server
    is killed. It counts the items it was asked about."""
    asked = []
    delay = 1.5

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        text = " ".join(p.get("text", "") for p in body["messages"][1]["content"])
        name = text.split(": ")[-1].strip() if ": " in text else "Thing"
        SlowAnalysis.asked.append(name)
        time.sleep(SlowAnalysis.delay)
        content = {"brand": "Acme", "product_name": name, "model": "X-1", "barcode": None, "condition": "good", "sizes": None,
                   "category": None, "description": "A test item."}
        data = json.dumps({"id": "c", "object": "chat.completion", "choices": [
            {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": json.dumps(content)}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def wait_healthy(base, process, log):
    for _ in range(300):
        if process.poll() is not None:
            break
        try:
            urllib.request.urlopen(base + "/health", timeout=1)
            return
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"nestory serve did not start: {Path(log).read_text()[-3000:]}")


class Topology:
    def __init__(self):
        url = os.environ.get("NESTORY_TEST_POSTGRES_URL")
        if not url:
            pytest.fail("NESTORY_TEST_POSTGRES_URL is not set: run the browser tests through scripts/with-postgres.sh")
        if not os.path.exists(NGINX):
            pytest.fail("nginx is not installed (scripts/install-deps.sh --test installs it)")
        self.dir = Path(scratch("two-"))
        self.s3 = subprocess.Popen([str(ROOT / "scripts" / "s3-test-server.sh")], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=open(self.dir / "s3.log", "w"), text=True)
        info = json.loads(self.s3.stdout.readline())
        bucket = "two-" + uuid.uuid4().hex[:12]
        urllib.request.urlopen(urllib.request.Request(f"{info['proxy']}/__bucket?name={bucket}", method="POST"))
        self.analysis = ThreadingHTTPServer(("127.0.0.1", free_port()), SlowAnalysis)
        threading.Thread(target=self.analysis.serve_forever, daemon=True).start()
        self.environment = dict(os.environ,
                                NESTORY_DATABASE_URL=url, NESTORY_DATABASE_SCHEMA="two_" + uuid.uuid4().hex[:16],
                                NESTORY_STORAGE_BLOBS=f"s3://{bucket}", NESTORY_STORAGE_S3_ENDPOINT=info["proxy"],
                                NESTORY_STORAGE_S3_PATH_STYLE="true", NESTORY_STORAGE_S3_ACCESS_KEY=info["accessKey"],
                                NESTORY_STORAGE_S3_SECRET_KEY=info["secretKey"], NESTORY_JOBS_LEASE_SECONDS="3",
                                NESTORY_SIGN_IN_ACCOUNT_LIMIT="4", NESTORY_LICENCE_INSTANCE_PRO="true",
                                NESTORY_VALUATION_ANALYSIS_URL=f"http://127.0.0.1:{self.analysis.server_address[1]}/v1",
                                NESTORY_VALUATION_ANALYSIS_MODEL="slow-vision", NESTORY_VALUATION_ANALYSIS_KEY=ANALYSIS_KEY,
                                NESTORY_VALUATION_REQUESTS_PER_MINUTE="0", NESTORY_VALUATION_CONCURRENCY="1")
        self.servers = {}
        for name in ("a", "b"):
            self.start(name)
        self.proxy_port = free_port()
        upstreams = "\n".join(f"    server 127.0.0.1:{port};" for port, _ in self.servers.values())
        (self.dir / "nginx.conf").write_text(f"""
daemon off;
worker_processes 1;
pid {self.dir}/nginx.pid;
error_log {self.dir}/nginx-error.log;
events {{ worker_connections 256; }}
http {{
  access_log off;
  client_body_temp_path {self.dir}/body;
  proxy_temp_path {self.dir}/proxy;
  client_max_body_size 50m;
  upstream nestory {{
{upstreams}
  }}
  server {{
    listen 127.0.0.1:{self.proxy_port};
    location / {{
      proxy_pass http://nestory;
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $remote_addr;
      proxy_next_upstream error timeout;
    }}
  }}
}}
""")
        self.nginx = subprocess.Popen([NGINX, "-p", str(self.dir), "-c", str(self.dir / "nginx.conf")],
                                      stdout=subprocess.DEVNULL, stderr=open(self.dir / "nginx.log", "w"))
        wait_healthy(self.proxy, self.nginx, self.dir / "nginx-error.log")

    def start(self, name):
        port = self.servers[name][0] if name in self.servers else free_port()
        data = self.dir / f"data-{name}"
        log = self.dir / f"serve-{name}.log"
        process = subprocess.Popen([str(BINARY), "serve", "--data", str(data), "--port", str(port)], env=self.environment,
                                   stdout=subprocess.DEVNULL, stderr=open(log, "a"))
        self.servers[name] = (port, process)
        wait_healthy(self.base(name), process, log)

    def base(self, name):
        return f"http://127.0.0.1:{self.servers[name][0]}"

    @property
    def proxy(self):
        return f"http://127.0.0.1:{self.proxy_port}"

    def cli(self, *arguments, stdin=None):
        return subprocess.run([str(BINARY), *arguments, "--data", str(self.dir / "data-cli")], env=self.environment,
                              input=stdin, capture_output=True, text=True, timeout=60)

    def stop(self):
        for _, process in self.servers.values():
            if process.poll() is None:
                os.kill(process.pid, signal.SIGCONT)
                process.terminate()
                process.wait(timeout=30)
        self.nginx.terminate()
        self.nginx.wait(timeout=10)
        self.analysis.shutdown()
        self.s3.stdin.close()
        self.s3.wait(timeout=10)
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture(scope="module")
def topology():
    topology = Topology()
    yield topology
    topology.stop()


def api(page, method, path, body=None):
    return page.evaluate("""async ([method, path, body]) => {
        const token = document.querySelector('meta[name="csrf-token"]')?.content ?? "";
        const answer = await fetch(path, { method, credentials: "same-origin",
            headers: { "Content-Type": "application/json", "X-CSRF-Token": token }, body: body ? JSON.stringify(body) : undefined });
        return { status: answer.status, body: await answer.text() };
    }""", [method, path, body])


def test_what_one_server_writes_the_other_reads_and_a_session_is_valid_on_both(browser, topology):
    context, page = phone_page(browser)
    # First run, through the proxy: the setup makes the household and signs in (on whichever server answered).
    sign_in(page, topology.proxy)
    # Cookies are per host, not per port: the same session goes to each server directly.
    page.goto(topology.base("a") + "/")
    expect(page).to_have_url(topology.base("a") + "/")
    made = api(page, "POST", "/api/v1/items", {"name": "Walnut sideboard", "price": "1200"})
    assert made["status"] == 201, made
    item = json.loads(made["body"])["id"]
    added = page.evaluate("""async ([id, photo]) => {
        const token = document.querySelector('meta[name="csrf-token"]').content;
        const bytes = Uint8Array.from(atob(photo), (c) => c.charCodeAt(0));
        const answer = await fetch(`/api/v1/items/${id}/photos`, { method: "POST", credentials: "same-origin",
            headers: { "Content-Type": "image/png", "X-CSRF-Token": token }, body: bytes });
        return answer.status;
    }""", [item, __import__("base64").b64encode(png(64, 48)).decode()])
    assert added == 201
    # Server B: the item, its photo (from the object store) and the summary, in the page a person sees.
    page.goto(f"{topology.base('b')}/items/{item}")
    expect(page.locator("h1")).to_have_text("Walnut sideboard")
    expect(page.locator(".carousel .slide")).to_have_count(1)
    photo = page.locator(".carousel img").first.get_attribute("src")
    assert page.evaluate("async (src) => (await fetch(src)).status", photo) == 200
    screenshot(page, "19-two-servers-item-on-b")
    page.goto(topology.base("b") + "/")
    expect(page.locator("main")).to_contain_text("1")
    # Through the proxy, requests alternate between the servers: every one answers the same.
    page.goto(topology.proxy + "/")
    expect(page).to_have_url(topology.proxy + "/")
    answers = [api(page, "GET", f"/api/v1/items/{item}") for _ in range(6)]
    assert {answer["status"] for answer in answers} == {200}
    assert {json.loads(answer["body"])["name"] for answer in answers} == {"Walnut sideboard"}
    # A report, made by whichever server's job ran, downloads from both: its PDF is a stored file in the object store.
    page.goto(topology.base("a") + "/reports")
    page.click("a.button:has-text('Generate')")
    page.uncheck("input[name=photos]")
    page.click("button:has-text('Generate PDF')")
    expect(page.get_by_text("Your report is ready.")).to_be_visible(timeout=30_000)
    download = page.locator("a:has-text('Download PDF')").get_attribute("href")
    for name in ("a", "b"):
        page.goto(topology.base(name) + "/reports")
        fetched = page.evaluate("""async (href) => {
            const answer = await fetch(href, { credentials: "same-origin" });
            return [answer.status, answer.headers.get("content-type"), (await answer.text()).slice(0, 5)];
        }""", download)
        assert fetched == [200, "application/pdf", "%PDF-"], (name, fetched)
    context.close()


def test_a_password_change_ends_sessions_on_both_and_failed_sign_ins_count_on_both(browser, topology):
    context, page = phone_page(browser)
    sign_in(page, topology.base("a"))
    page.goto(topology.base("b") + "/")
    expect(page).to_have_url(topology.base("b") + "/")
    changed = topology.cli("user", "password", EMAIL, stdin=PASSWORD + "\n")
    assert changed.returncode == 0, changed.stderr
    for name in ("a", "b"):
        page.goto(topology.base(name) + "/")
        expect(page).to_have_url(topology.base(name) + "/signin")
    # Failed sign-ins alternate between the servers; the account's limit (4) counts them all.
    for attempt in range(4):
        page.goto(topology.base("ab"[attempt % 2]) + "/signin")
        page.fill("#f-email", EMAIL)
        page.fill("#f-password", "not the password")
        page.click("button[type=submit]")
        expect(page.locator("main")).not_to_contain_text("Too many")
    page.goto(topology.base("a") + "/signin")
    page.fill("#f-email", EMAIL)
    page.fill("#f-password", PASSWORD)
    page.click("button[type=submit]")
    expect(page.locator("main")).to_contain_text("Too many")
    screenshot(page, "19-two-servers-limit")
    context.close()


def test_a_job_started_on_one_server_finishes_on_the_other_when_it_dies_and_runs_once(browser, topology):
    context, page = phone_page(browser)
    # The sign-in limit of the test before has a window: sign in with a fresh account.
    added = topology.cli("user", "add", "bob@example.com", "--name", "Bob", "--household", "The Smiths", stdin=PASSWORD + "\n")
    assert added.returncode == 0, added.stderr
    a, b = topology.base("a"), topology.base("b")
    page.goto(a + "/signin")
    page.fill("#f-email", "bob@example.com")
    page.fill("#f-password", PASSWORD)
    page.click("button[type=submit]")
    expect(page).to_have_url(a + "/")
    names = ["Walnut sideboard", "Kettle", "Toaster", "Desk lamp"]
    for name in names[1:]:
        assert api(page, "POST", "/api/v1/items", {"name": name, "price": "40"})["status"] == 201
    # Server B is frozen, so A takes the job; A is killed while the provider is answering for the first item.
    server_b = topology.servers["b"][1]
    os.kill(server_b.pid, signal.SIGSTOP)
    SlowAnalysis.asked.clear()
    page.goto(a + "/valuations")
    page.click("text=Value the items without a value")
    expect(page.locator("main")).to_contain_text("4 items without a value yet")
    page.click("button:has-text('Value 4 items')")
    expect(page.locator(".job-status")).to_be_visible()
    batch = page.url
    for _ in range(100):
        if SlowAnalysis.asked:
            break
        time.sleep(0.1)
    assert SlowAnalysis.asked, "server A did not start the job"
    topology.servers["a"][1].kill()
    topology.servers["a"][1].wait()
    os.kill(server_b.pid, signal.SIGCONT)
    # B finds the job's lease expired, takes it over and finishes it.
    page.goto(batch.replace(a, b))
    expect(page.locator(".job-status")).to_contain_text("Done:", timeout=60000)
    expect(page.locator(".job-status")).to_have_text("Done: 4 to review.")
    screenshot(page, "19-two-servers-job-finished-on-b")
    # Once: only the item with a photo goes to the photo analysis; A died while the provider was answering for it, so
    # B asked again for that one item, and the job's other items were valued once, by B.
    assert SlowAnalysis.asked == ["Walnut sideboard", "Walnut sideboard"], SlowAnalysis.asked
    # A comes back: it does not run the finished job again.
    before = len(SlowAnalysis.asked)
    topology.start("a")
    time.sleep(4)
    assert len(SlowAnalysis.asked) == before
    context.close()
