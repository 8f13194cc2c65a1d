"""Capture tab, barcode mode, in a real browser: live scanning with Chromium's fake camera fed a video
of a barcode, the photo fallback, and a camera that is not allowed."""
import os
import re
import struct
import zlib

from conftest import screenshot, sign_in
from playwright.sync_api import expect

L = ["0001101", "0011001", "0010011", "0111101", "0100011", "0110001", "0101111", "0111011", "0110111", "0001011"]
R = ["".join("1" if b == "0" else "0" for b in code) for code in L]
G = [code[::-1] for code in R]
PARITY = ["LLLLLL", "LLGLGG", "LLGGLG", "LLGGGL", "LGLLGG", "LGGLLG", "LGGGLG", "LGLGLG", "LGLGGL", "LGGLGL"]
CODE = "4006381333931"


def ean13_modules(text: str) -> str:
    d = [int(c) for c in text]
    bits = "101"
    for i in range(1, 7):
        bits += (L if PARITY[d[0]][i - 1] == "L" else G)[d[i]]
    bits += "01010"
    for i in range(7, 13):
        bits += R[d[i]]
    return bits + "101"


def barcode_gray(width: int, height: int, module: int) -> list:
    """Rows of grey values: white paper, the barcode centred in the scan area (middle 40% of the height)."""
    bits = ean13_modules(CODE)
    left = (width - len(bits) * module) // 2
    row = [255] * width
    for i, bit in enumerate(bits):
        if bit == "1":
            for x in range(module):
                row[left + i * module + x] = 0
    top, bottom = int(height * 0.36), int(height * 0.64)
    return [row if top <= y < bottom else [255] * width for y in range(height)]


def write_y4m(path, width=640, height=480, frames=10):
    rows = barcode_gray(width, height, 4)
    luma = bytes(v for row in rows for v in row)
    chroma = bytes([128]) * (width // 2 * height // 2)
    with open(path, "wb") as f:
        f.write(f"YUV4MPEG2 W{width} H{height} F10:1 Ip A1:1 C420jpeg\n".encode())
        for _ in range(frames):
            f.write(b"FRAME\n" + luma + chroma + chroma)


def write_png(path, width=520, height=200):
    rows = barcode_gray(width, height, 3)
    raw = b"".join(b"\x00" + bytes(row) for row in rows)
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def phone_context(chromium):
    return chromium.new_context(viewport={"width": 375, "height": 812}, device_scale_factor=2, is_mobile=True, has_touch=True)


def test_live_scan_with_the_camera(server, browser, tmp_path):
    video = tmp_path / "barcode.y4m"
    write_y4m(video)
    # A second Chromium with a fake camera that films the barcode, launched by the session's Playwright.
    chromium = browser.browser_type.launch(executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
                                           args=["--no-sandbox", "--disable-gpu", "--use-fake-device-for-media-stream",
                                                 "--use-fake-ui-for-media-stream", f"--use-file-for-fake-video-capture={video}"])
    context = phone_context(chromium)
    page = context.new_page()
    sign_in(page, server)
    page.click("nav.tabs >> text=Capture")
    expect(page).to_have_url(re.compile(r"/capture/barcode/4006381333931$"), timeout=20000)
    expect(page.locator(".scan-result .code")).to_contain_text(CODE)
    expect(page.get_by_text("No match")).to_be_visible()
    screenshot(page, "30-scan-result")
    page.fill("#f-name", "Highlighter")
    page.select_option("#f-roomID", label="Office")
    page.fill("#f-price", "2.49")
    page.click("button:has-text('Save item')")
    expect(page.locator("h1")).to_have_text("Highlighter")
    expect(page.get_by_text(CODE)).to_be_visible()
    # Scanning it again finds the item just made.
    page.goto(server + "/capture")
    expect(page).to_have_url(re.compile(r"/capture/barcode/"), timeout=20000)
    expect(page.get_by_text("You already have an item with this code")).to_be_visible()
    context.close()
    chromium.close()


def test_photo_fallback_and_typing(server, browser, tmp_path):
    # No camera permission: the page says so and offers the photo and the typed code.
    context = phone_context(browser)
    page = context.new_page()
    sign_in(page, server)
    page.goto(server + "/capture")
    # (No camera here, or none allowed: a state of its own, whose actions include the photo.)
    expect(page.locator("[data-scanner]")).to_have_attribute("data-state", re.compile("^(denied|unavailable)$"), timeout=10000)
    expect(page.locator("[data-scanner] .scan-state:visible label[for=scan-photo]")).to_be_visible()
    screenshot(page, "31-capture-no-camera")

    # A photo that is not a barcode, then one that is.
    plain = tmp_path / "plain.png"
    with open(plain, "wb") as f:
        f.write(b"not an image at all")
    page.set_input_files("#scan-photo", str(plain))
    expect(page.locator(".photo-status")).to_contain_text("not an image")
    photo = tmp_path / "barcode.png"
    write_png(photo)
    with page.expect_navigation():
        page.set_input_files("#scan-photo", str(photo))
    expect(page.locator(".scan-result .code")).to_contain_text(CODE)

    # A mistyped code is caught by its check digit; the right one goes to the result.
    page.goto(server + "/capture")
    page.fill("#f-code", "4006381333932")
    page.click("button:has-text('Look up')")
    expect(page.locator("#f-code-error")).to_contain_text("not a valid product code")
    expect(page.locator("#f-code")).to_have_value("4006381333932")
    expect(page.locator("#f-code")).to_be_focused()
    page.fill("#f-code", "4006381333931")
    page.click("button:has-text('Look up')")
    expect(page).to_have_url(server + "/capture/barcode/4006381333931")
    context.close()
