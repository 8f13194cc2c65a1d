"""Browser tests: the real `nestory` binary serving a fresh data folder, driven by Debian's Chromium."""
import os
import shutil
import socket
import struct
import subprocess
import tempfile
import time
import urllib.request
import zlib
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

ROOT = Path(__file__).resolve().parents[2]
BINARY = Path(os.environ.get("NESTORY_BIN", ROOT / ".build" / "debug" / "nestory"))
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"


# The folders the tests make (data folders, signing keys) live under one root for the run, removed when it ends.
SCRATCH = Path(tempfile.mkdtemp(prefix="nestory-browser-tests-"))


def scratch(prefix: str) -> str:
    """A new, empty folder under the run's scratch root."""
    return tempfile.mkdtemp(prefix=prefix, dir=SCRATCH)


@pytest.fixture(scope="session", autouse=True)
def remove_scratch():
    yield
    shutil.rmtree(SCRATCH, ignore_errors=True)


EMAIL = "ann@example.com"
PASSWORD = "correct horse battery staple"


def sign_in(page, base):
    """Signs in as the household's owner (creating the household first on a fresh server)."""
    page.goto(base + "/")
    if page.url == base + "/":
        return
    if page.url.endswith("/setup"):
        page.fill("#f-household", "The Smiths")
        page.fill("#f-name", "Ann")
        page.fill("#f-email", EMAIL)
        page.fill("#f-password", PASSWORD)
        page.fill("#f-confirm", PASSWORD)
    else:
        page.fill("#f-email", EMAIL)
        page.fill("#f-password", PASSWORD)
    page.click("button[type=submit]")
    expect(page).to_have_url(base + "/")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(*settings, data=None, port=None, stderr=subprocess.DEVNULL):
    """`nestory serve` on a data folder (a new one by default) with any extra arguments (`--set KEY=VALUE`),
    once it answers /health: (process, base URL)."""
    data = data or scratch("data-")
    port = port or free_port()
    process = subprocess.Popen([str(BINARY), "serve", "--data", data, "--port", str(port), *settings],
                               stdout=subprocess.DEVNULL, stderr=stderr, text=True)
    base = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            urllib.request.urlopen(base + "/health", timeout=1)
            return process, base
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("nestory serve did not start")


@pytest.fixture(scope="module")
def server():
    """A fresh server and data folder for each test file (its first test meets the first-run setup)."""
    process, base = start_server()
    yield base
    process.terminate()
    process.wait(timeout=10)


@pytest.fixture(scope="module")
def pro_server():
    """Like `server`, with Nestory Pro for every household (licence.instancePro): for tests of what Pro unlocks
    (photos in the inventory PDF, CSV export) that are not about the plan itself (test_pro.py is)."""
    process, base = start_server("--set", "licence.instancePro=true")
    yield base
    process.terminate()
    process.wait(timeout=10)


def phone_page(browser, scheme="light", **options):
    """A new context at a phone's size (390 × 844, touch) and its page: (context, page)."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, color_scheme=scheme,
                                  **options)
    return context, context.new_page()


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
                                     args=["--no-sandbox", "--disable-gpu"])
        yield chromium
        chromium.close()


@pytest.fixture()
def phone(browser):
    """A phone-sized page (375 px wide)."""
    context = browser.new_context(viewport={"width": 375, "height": 812}, device_scale_factor=2, is_mobile=True, has_touch=True)
    page = context.new_page()
    yield page
    context.close()


def screenshot(page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def png(width: int, height: int, rgb=(200, 80, 40)) -> bytes:
    """A real PNG made here, so the test needs no fixture files."""
    raw = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
