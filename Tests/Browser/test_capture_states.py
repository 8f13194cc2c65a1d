"""The capture screen's camera states (issue 16, scan-ux-spec.md) at phone width, light and dark: each state
its own panel with its own actions, and scanning turned off by the owner, also while someone is scanning."""
import os
import re

import pytest
from conftest import phone_page, screenshot, sign_in, start_server
from playwright.sync_api import expect


@pytest.fixture(scope="module")
def camera_browser(browser):
    """Chromium with a fake camera (a test pattern, no barcode) that pages may be allowed to use; launched by
    the session's Playwright (a second one cannot run beside it)."""
    chromium = browser.browser_type.launch(executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
                                           args=["--no-sandbox", "--disable-gpu", "--use-fake-device-for-media-stream"])
    yield chromium
    chromium.close()


def phone(browser, scheme="light", allow_camera=False, script=None):
    context, page = phone_page(browser, scheme=scheme, permissions=["camera"] if allow_camera else [])
    if script:
        context.add_init_script(script)
    return context, page


def scanner(page):
    return page.locator("[data-scanner]")


def test_ready_with_a_camera_then_turned_off_while_scanning(server, camera_browser):
    context, page = phone(camera_browser, allow_camera=True)
    sign_in(page, server)
    page.goto(server + "/capture")
    expect(scanner(page)).to_have_attribute("data-state", "ready", timeout=10000)
    expect(page.locator(".scan-status")).to_have_text("Point the camera at the barcode, inside the frame.")
    expect(page.locator("video")).to_be_visible()
    screenshot(page, "16-01-capture-ready")
    # The owner turns scanning off in another tab: the scanner's next frame says so, the camera stops.
    settings = context.new_page()
    settings.goto(server + "/settings")
    settings.uncheck("input[name=scanning]")
    settings.locator("form[action^='/settings/scanning'] button").click()
    expect(settings.locator(".notice")).to_have_text("Barcode scanning is off.")
    expect(scanner(page)).to_have_attribute("data-state", "disabled", timeout=10000)
    expect(page.get_by_role("heading", name="Scanning is turned off")).to_be_visible()
    expect(page.get_by_role("link", name="Quick add with a photo")).to_be_visible()
    assert page.evaluate("document.querySelector('video').srcObject?.getTracks().some(t => t.readyState === 'live') ?? false") is False
    # A fresh visit shows the turned-off screen straight away, and the scan API refuses.
    page.goto(server + "/capture")
    expect(page.locator(".scanner.disabled")).to_be_visible()
    expect(page.locator("video")).to_have_count(0)
    expect(page.get_by_role("link", name="Import from a spreadsheet")).to_be_visible()
    status = page.evaluate("""async () => (await fetch('/api/v1/barcodes/decode', { method: 'POST', body: new Blob(['x']),
        headers: { 'X-CSRF-Token': document.querySelector('meta[name=csrf-token]').content } })).status""")
    assert status == 403
    screenshot(page, "16-02-capture-disabled")
    settings.goto(server + "/settings")
    settings.check("input[name=scanning]")
    settings.locator("form[action^='/settings/scanning'] button").click()
    expect(settings.locator(".notice")).to_have_text("Barcode scanning is on.")
    context.close()


def test_permission_denied_shows_steps_retry_and_gallery(server, camera_browser):
    for scheme in ["light", "dark"]:
        context, page = phone(camera_browser, scheme=scheme)  # the camera exists, but this site may not use it
        sign_in(page, server)
        page.goto(server + "/capture")
        expect(scanner(page)).to_have_attribute("data-state", "denied", timeout=10000)
        panel = page.locator("[data-state-panel=denied]")
        expect(panel.get_by_role("heading", name="Camera access is turned off for this site")).to_be_visible()
        expect(panel.locator(".permission-steps .yours h4")).to_have_text("Chrome (Android, computer) and Edge")
        expect(panel.get_by_text("Continue with gallery")).to_be_visible()
        screenshot(page, f"16-03-capture-denied-{scheme}")
        # Allowed afterwards (as after changing the site setting), Retry starts the camera.
        context.grant_permissions(["camera"])
        panel.get_by_role("button", name="Retry").click()
        expect(scanner(page)).to_have_attribute("data-state", "ready", timeout=10000)
        context.close()


@pytest.mark.parametrize("error, reason", [("NotFoundError", "No camera was found"), ("NotReadableError", "busy")])
def test_camera_unavailable_explains_and_offers_retry_and_a_photo(server, camera_browser, error, reason):
    fail = f"""navigator.mediaDevices.getUserMedia = () => Promise.reject(new DOMException("no", "{error}"));"""
    context, page = phone(camera_browser, allow_camera=True, script=fail)
    sign_in(page, server)
    page.goto(server + "/capture")
    expect(scanner(page)).to_have_attribute("data-state", "unavailable", timeout=10000)
    panel = page.locator("[data-state-panel=unavailable]")
    expect(panel.locator(".scan-reason")).to_contain_text(reason)
    expect(panel.get_by_role("button", name="Retry")).to_be_visible()
    expect(panel.get_by_text("Use a photo instead")).to_be_visible()
    expect(page.locator(".viewfinder")).to_be_hidden()
    screenshot(page, f"16-04-capture-unavailable-{error}")
    context.close()


def test_not_a_secure_page_says_why_and_offers_a_photo(server, camera_browser):
    # A phone reaching the server by its address over plain http: the browser withholds the camera.
    insecure = "Object.defineProperty(window, 'isSecureContext', { get: () => false });"
    context, page = phone(camera_browser, allow_camera=True, script=insecure)
    sign_in(page, server)
    page.goto(server + "/capture")
    expect(scanner(page)).to_have_attribute("data-state", "insecure", timeout=10000)
    expect(page.get_by_role("heading", name="The camera needs a secure (https) address")).to_be_visible()
    expect(page.locator("[data-state-panel=insecure] label[for=scan-photo]")).to_be_visible()
    screenshot(page, "16-05-capture-insecure")
    context.close()


def test_initializing_shows_a_skeleton_until_the_camera_answers(server, camera_browser):
    # The camera answers only when the test says so: until then, the skeleton.
    slow = """navigator.mediaDevices.getUserMedia = () => new Promise((resolve, reject) => {
        window.cameraAnswers = () => reject(new DOMException("no", "NotFoundError")); });"""
    context, page = phone(camera_browser, allow_camera=True, script=slow)
    sign_in(page, server)
    page.goto(server + "/capture")
    expect(scanner(page)).to_have_attribute("data-state", "initializing")
    expect(page.locator(".skeleton")).to_be_visible()
    expect(page.locator(".scan-status")).to_have_text("Starting the camera…")
    screenshot(page, "16-06-capture-initializing")
    page.evaluate("window.cameraAnswers()")
    expect(scanner(page)).to_have_attribute("data-state", "unavailable")
    expect(page.locator(".skeleton")).to_be_hidden()
    context.close()


def test_the_operator_setting_turns_scanning_off_for_everyone(tmp_path, browser):
    process, base = start_server("--set", "capture.scanning=false")
    try:
        context, page = phone(browser)
        sign_in(page, base)
        page.goto(base + "/capture")
        expect(page.locator(".scanner.disabled")).to_be_visible()
        page.goto(base + "/settings")
        expect(page.get_by_text(re.compile("Turned off for everyone by whoever runs this server"))).to_be_visible()
        expect(page.locator("input[name=scanning]")).to_have_count(0)
        context.close()
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_photo_item_mode_takes_a_picture_shows_it_with_retake_then_saves(server, camera_browser):
    context, page = phone(camera_browser, allow_camera=True)
    sign_in(page, server)
    page.goto(server + "/capture")
    page.get_by_role("link", name="Photo item").click()
    expect(page).to_have_url(re.compile(r"/capture/photo$"))
    camera = page.locator("[data-photo-camera]")
    expect(camera).to_have_attribute("data-state", "ready", timeout=10000)
    screenshot(page, "16-09-photo-item-ready")
    page.get_by_role("button", name="Take the photo").click()
    # The frame is encoded as a JPEG in the page first: seconds on a loaded machine (a clean-clone run once showed the
    # camera still framing after 5 s, its status unchanged, so the shutter's work was still under way).
    expect(page.locator(".photo-pick .preview")).to_be_visible(timeout=20000)
    expect(camera).to_be_hidden()
    retake = page.get_by_role("button", name="Retake")
    expect(retake).to_be_visible()
    retake.click()  # not that one: the camera again, nothing chosen
    expect(camera).to_have_attribute("data-state", "ready", timeout=10000)
    assert page.evaluate("document.querySelector('#f-photo').files.length") == 0
    page.get_by_role("button", name="Take the photo").click()
    expect(page.locator(".photo-pick .preview")).to_be_visible(timeout=20000)  # attached before Save is pressed
    page.fill("#f-name", "Standing desk")
    page.select_option("#f-roomID", label="Office")
    screenshot(page, "16-10-photo-item-preview")
    page.click("button[type=submit].primary:has-text('Save')")  # not the tip's Got it
    expect(page.locator("h1")).to_have_text("Standing desk")
    expect(page.locator(".carousel .slide")).to_have_count(1)
    # The recent-captures strip of every mode has it first; a tap opens it.
    for mode in ["/capture/photo", "/capture/receipt", "/capture"]:
        page.goto(server + mode)
        first = page.locator(".recent-strip li").first
        expect(first.locator(".name")).to_have_text("Standing desk")
    screenshot(page, "16-12-recent-captures")
    first.locator("a").click()
    expect(page.locator("h1")).to_have_text("Standing desk")
    context.close()


def test_photo_item_mode_without_camera_permission_offers_the_gallery(server, camera_browser):
    context, page = phone(camera_browser)
    sign_in(page, server)
    page.goto(server + "/capture/photo")
    expect(page.locator("[data-photo-camera]")).to_have_attribute("data-state", "denied", timeout=10000)
    gallery = page.locator("[data-photo-camera] [data-state-panel=denied] label[for=f-photo]")
    expect(gallery).to_have_text("Continue with gallery")
    context.close()


def test_receipt_mode_shows_the_picture_to_check_then_reads_it(server, camera_browser):
    context, page = phone(camera_browser, allow_camera=True)
    sign_in(page, server)
    page.goto(server + "/capture/receipt")
    camera = page.locator("[data-receipt-camera]")
    expect(camera).to_have_attribute("data-state", "ready", timeout=10000)
    expect(page.locator(".receipt-guide")).to_be_visible()
    screenshot(page, "16-11-receipt-camera")
    page.get_by_role("button", name="Take the photo of the receipt").click()
    expect(page.locator(".taken-preview")).to_be_visible(timeout=20000)  # encoding the frame: seconds under load
    page.get_by_role("button", name="Retake").click()
    expect(camera).to_have_attribute("data-state", "ready", timeout=10000)
    expect(page.locator(".taken")).to_be_hidden()
    page.get_by_role("button", name="Take the photo of the receipt").click()
    page.get_by_role("button", name="Use this photo").click()
    expect(page).to_have_url(re.compile(r"/receipts/[0-9a-f-]{36}"), timeout=15000)
    context.close()


def test_every_camera_state_in_dark_mode(server, camera_browser):
    """Screenshots of the states in dark mode (the light ones are taken by the tests above), each checked to
    show its own panel."""
    cases = [("ready", None), ("unavailable", """navigator.mediaDevices.getUserMedia = () => Promise.reject(new DOMException("no", "NotFoundError"));"""),
             ("insecure", "Object.defineProperty(window, 'isSecureContext', { get: () => false });"),
             ("initializing", "navigator.mediaDevices.getUserMedia = () => new Promise(() => {});")]
    for state, script in cases:
        context, page = phone(camera_browser, scheme="dark", allow_camera=True, script=script)
        sign_in(page, server)
        for path in ["/capture", "/capture/photo"]:
            page.goto(server + path)
            card = page.locator("[data-scanner], [data-photo-camera]").first
            expect(card).to_have_attribute("data-state", state, timeout=10000)
            if state != "initializing":
                expect(card.locator(f"[data-state-panel={state}]").first).to_be_visible()
            visible_others = card.locator(f"[data-state-panel]:not([data-state-panel={state}]):visible")
            expect(visible_others).to_have_count(0)
            if path == "/capture/photo":
                expect(page.get_by_role("button", name="Retake")).to_be_hidden()
            screenshot(page, f"16-13-{path.strip('/').replace('/', '-')}-{state}-dark")
        context.close()
