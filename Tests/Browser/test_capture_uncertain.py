"""An uncertain barcode read, end to end at phone width: a photo of a UPC-E with number system 1 (zxing reads it,
zbar cannot, so nothing independent confirms the digits) goes to the result page asking to check the digits; the
item form shows once they match."""
import re
import struct
import zlib

from conftest import screenshot, sign_in
from playwright.sync_api import expect

L = ["0001101", "0011001", "0010011", "0111101", "0100011", "0110001", "0101111", "0111011", "0110111", "0001011"]
G = ["".join("1" if b == "0" else "0" for b in code)[::-1] for code in L]
UPCE_PARITY = ["EEEOOO", "EEOEOO", "EEOOEO", "EEOOOE", "EOEEOO", "EOOEEO", "EOOOEE", "EOEOEO", "EOEOOE", "EOOEOE"]


def upce_code(number_system: str, six: str) -> str:
    """A UPC-E with its check digit (that of the UPC-A it stands for; last digit 5-9: manufacturer 5 digits)."""
    assert six[5] in "56789"
    upca = number_system + six[:5] + "0000" + six[5]
    total = sum(int(d) * (3 if i % 2 == 0 else 1) for i, d in enumerate(reversed(upca)))
    return number_system + six + str((10 - total % 10) % 10)


def upce_modules(code: str) -> str:
    parity = UPCE_PARITY[int(code[7])]
    bits = "101"
    for i, d in enumerate(code[1:7]):
        even = (parity[i] == "E") != (code[0] == "1")
        bits += (G if even else L)[int(d)]
    return bits + "010101"


def write_png(path, modules: str, module=4, quiet=12, bar_height=140):
    width = (len(modules) + 2 * quiet) * module
    height = bar_height + 2 * quiet * module
    row = bytearray()
    for bit in "0" * quiet + modules + "0" * quiet:
        row += (b"\x00" if bit == "1" else b"\xff") * module
    blank = b"\xff" * width
    raw = b"".join(b"\x00" + (bytes(row) if quiet * module <= y < quiet * module + bar_height else blank) for y in range(height))

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def test_an_uncertain_read_asks_to_check_the_digits(server, browser, tmp_path):
    code = upce_code("1", "234565")
    photo = tmp_path / "upce.png"
    write_png(photo, upce_modules(code))
    context = browser.new_context(viewport={"width": 375, "height": 812}, device_scale_factor=2, is_mobile=True, has_touch=True)
    page = context.new_page()
    sign_in(page, server)
    page.goto(server + "/capture")
    expect(page.locator("[data-scanner]")).to_have_attribute("data-state", re.compile("^(denied|unavailable)$"), timeout=10000)

    # The API says so.
    answer = page.evaluate("""async (bytes) => {
        const blob = new Blob([new Uint8Array(bytes)], { type: 'image/png' });
        const csrf = document.querySelector('meta[name=csrf-token]')?.content || '';
        const r = await fetch('/api/v1/barcodes/decode', { method: 'POST', body: blob, credentials: 'same-origin',
                                                           headers: { 'Content-Type': 'image/png', 'X-CSRF-Token': csrf } });
        return await r.json();
    }""", list(photo.read_bytes()))
    assert [c["text"] for c in answer["codes"]] == [code], answer
    assert answer["codes"][0]["uncertain"] is True and answer["codes"][0]["confidence"] != "high", answer

    # The photo goes to the result page, which asks to compare the digits before anything is saved.
    with page.expect_navigation():
        page.set_input_files("#scan-photo", str(photo))
    expect(page).to_have_url(re.compile(rf"/capture/barcode/{code}\?check=1$"))
    card = page.locator("[data-check-digits]")
    expect(card).to_be_visible()
    expect(card.locator(".digits")).to_have_text(code)
    expect(page.locator("form.item-form")).to_have_count(0)
    # Phone width: the card fits (no sideways scrolling).
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    screenshot(page, "32-scan-check-digits")
    page.emulate_media(color_scheme="dark")
    expect(card).to_be_visible()
    screenshot(page, "32-scan-check-digits-dark")
    page.emulate_media(color_scheme="light")

    # A correction goes to that code's result; "They match" to the form for the digits read.
    page.fill("#f-fix", "4006381333931")
    page.click("[data-check-digits] button:has-text('Look up')")
    expect(page).to_have_url(server + "/capture/barcode/4006381333931")
    page.go_back()
    page.click("[data-digits-match]")
    expect(page).to_have_url(server + f"/capture/barcode/{code}")
    expect(page.locator("[data-check-digits]")).to_have_count(0)
    expect(page.locator("form.item-form input[name=barcode]")).to_have_value(code)
    context.close()
