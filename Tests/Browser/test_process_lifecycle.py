"""The real binary's lifecycle with background jobs: killed mid-report (SIGKILL) and restarted, the job is
run again or marked interrupted, never left "running"; stopped with SIGTERM, a running job is drained."""
import http.cookiejar
import json
import os
import re
import signal
import subprocess
import time
import urllib.parse
import urllib.request

from conftest import BINARY, EMAIL, PASSWORD, free_port, scratch, start_server

ITEMS = 3000


def start(data, port, *settings):
    """`nestory serve` on the data folder, with any `--set` settings; its stderr (the log) is kept."""
    # Pro: the reports these tests interrupt have photos, which Free leaves out.
    return start_server("--set", "licence.instancePro=true", *settings, data=data, port=port, stderr=subprocess.PIPE)


class Client:
    def __init__(self, base):
        self.base = base
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        self.opener.addheaders = [("Origin", base)]
        self.csrf = None

    def get(self, path):
        with self.opener.open(self.base + path, timeout=30) as response:
            return response.geturl(), response.read().decode()

    def post(self, path, form):
        form = dict(form, _csrf=self.csrf or self.cookie("nestory_csrf"))
        data = urllib.parse.urlencode(form).encode()
        with self.opener.open(self.base + path, data=data, timeout=30) as response:
            return response.geturl(), response.read().decode()

    def cookie(self, name):
        jar = self.opener.handlers[[type(h) for h in self.opener.handlers].index(urllib.request.HTTPCookieProcessor)].cookiejar
        return next((c.value for c in jar if c.name == name), "")

    def sign_in(self):
        self.get("/signin")
        url, body = self.post("/signin", {"email": EMAIL, "password": PASSWORD})
        assert url == self.base + "/", url
        self.csrf = re.search(r'<meta name="csrf-token" content="([^"]+)"', body).group(1)

    def job(self, job_id):
        _, body = self.get(f"/api/v1/jobs/{job_id}")
        return json.loads(body)


def household_with_items():
    data = scratch("lifecycle-")
    subprocess.run([str(BINARY), "demo", "--data", data, "--items", str(ITEMS), "--owner", EMAIL],
                   env=dict(os.environ, NESTORY_PASSWORD=PASSWORD), check=True, stdout=subprocess.DEVNULL)
    return data


def start_report(client):
    url, _ = client.post("/reports/inventory", {"group": "room", "photos": "1", "undocumented": "1"})
    return url.rsplit("/", 1)[-1]


def wait_for(client, job_id, states, seconds=120):
    deadline = time.time() + seconds
    while time.time() < deadline:
        job = client.job(job_id)
        if job["state"] in states:
            return job
        time.sleep(0.05)
    raise AssertionError(f"job still {job['state']} after {seconds} s")


def test_a_report_killed_mid_render_is_run_again_after_a_restart():
    data = household_with_items()
    port = free_port()
    # An hour's lease: the restarted server must take the job back as its own earlier life's (same host, a process
    # that is gone), not merely once the killed one's lease has passed.
    lease = ("--set", "jobs.leaseSeconds=3600")
    process, base = start(data, port, *lease)
    client = Client(base)
    client.sign_in()
    job_id = start_report(client)
    running = wait_for(client, job_id, {"running", "succeeded"})
    assert running["state"] == "running", "the report finished before it could be killed: make it larger"
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=10)

    process, base = start(data, port, *lease)
    try:
        client = Client(base)
        client.sign_in()
        done = wait_for(client, job_id, {"succeeded", "failed", "interrupted"})
        assert done["state"] == "succeeded", done
        assert done["attempts"] == 2, done
        assert done["links"]["download"].startswith("/reports/")
        with client.opener.open(base + done["links"]["download"], timeout=60) as pdf:
            assert pdf.read(5) == b"%PDF-"
    finally:
        process.terminate()
        process.wait(timeout=60)


def test_sigterm_drains_a_running_report_and_exits_cleanly():
    data = household_with_items()
    process, base = start(data, free_port())
    client = Client(base)
    client.sign_in()
    job_id = start_report(client)
    assert wait_for(client, job_id, {"running", "succeeded"})["state"] == "running"
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=60) == 0
    # Read the job's row directly: the server is gone.
    row = subprocess.run(["sqlite3", os.path.join(data, "nestory.sqlite"),
                          f"SELECT state, done, total FROM job WHERE id = '{job_id}'"], capture_output=True, text=True, check=True)
    state = row.stdout.strip().split("|")[0]
    assert state in ("succeeded", "queued"), row.stdout  # drained to the end, or put back for the next start


def test_idle_connections_are_closed_and_never_stop_health():
    import resource
    import socket
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))
    data = scratch("idle-")
    process, base = start(data, free_port(), "--set", "http.idleTimeoutSeconds=2")
    port = int(base.rsplit(":", 1)[1])
    idle = []
    try:
        started = time.time()
        for _ in range(2000):  # connections that send nothing, and half-sent requests
            connection = socket.create_connection(("127.0.0.1", port), timeout=5)
            if len(idle) % 2:
                connection.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
            idle.append(connection)
        with urllib.request.urlopen(base + "/health", timeout=5) as response:
            assert response.status == 200
        # After the idle timeout the server has closed them: a read sees the end of the stream.
        time.sleep(max(0, 4.5 - (time.time() - started)))
        probe = idle[0]
        probe.settimeout(5)
        assert probe.recv(1) == b"", "an idle connection was still open after the timeout"
        half_sent = idle[1]
        half_sent.settimeout(5)
        while chunk := half_sent.recv(4096):  # an error response may come first; then the server closes it
            pass
        assert chunk == b""
        with urllib.request.urlopen(base + "/health", timeout=5) as response:
            assert response.status == 200
    finally:
        for connection in idle:
            connection.close()
        process.terminate()
        process.wait(timeout=30)


def test_metrics_access_log_and_readiness_of_the_running_server():
    data = scratch("ops-")
    process, base = start(data, free_port())
    try:
        with urllib.request.urlopen(base + "/health/ready", timeout=30) as response:
            ready = json.loads(response.read())
        assert ready["status"] == "ready", ready
        assert {check["name"] for check in ready["checks"]} >= {"database", "disk", "imaging", "ocr"}
        with urllib.request.urlopen(base + "/metrics", timeout=10) as response:  # from this machine: allowed by default
            metrics = response.read().decode()
        assert 'http_route="/health/ready"' in metrics and "nestory_jobs_running" in metrics
        # The process's own series, as every Prometheus client exports them, and the data folder's free space.
        for series in ("process_resident_memory_bytes", "process_cpu_seconds_total", "process_open_fds", "nestory_data_free_bytes"):
            assert f"\n{series} " in metrics, series
    finally:
        process.terminate()
        assert process.wait(timeout=30) == 0
    log = process.stderr.read()
    assert "settings" in log and "metrics.token=(none)" in log
    assert "path=/health/ready" in log and "status=200" in log and "request_id=" in log and "client=127.0.0.1" in log
