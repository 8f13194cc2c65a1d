"""Issue 18, the app lock, passkeys and sessions at phone width (390 px) in Chromium: the lock comes after the chosen
time over the page as it is, unlocking with the password keeps what was typed and the save works; a passkey made with
Chromium's virtual authenticator (DevTools protocol) unlocks and signs in; a page loaded while locked gets the server's
lock page and comes back to the same address; "Sign out everywhere else" sends the other browser to sign-in.

The server runs with appLock.secondsPerMinute=5 (a test-only setting), so "1 minute" locks after 5 seconds. Passkeys
need a domain, so the pages are opened at localhost rather than 127.0.0.1. Screenshots go to test-artifacts/screenshots."""
import re

import pytest
from conftest import EMAIL, PASSWORD, SCREENSHOTS, phone_page, screenshot, sign_in, start_server
from playwright.sync_api import expect

LOCK_SECONDS = 5


@pytest.fixture(scope="module")
def lock_server():
    process, base = start_server("--set", f"appLock.secondsPerMinute={LOCK_SECONDS}")
    yield base.replace("127.0.0.1", "localhost")
    process.terminate()
    process.wait(timeout=10)


def virtual_authenticator(context, page):
    """A platform passkey authenticator (resident keys, user verification that always succeeds) for this page."""
    cdp = context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    cdp.send("WebAuthn.addVirtualAuthenticator", {"options": {
        "protocol": "ctap2", "transport": "internal", "hasResidentKey": True, "hasUserVerification": True, "isUserVerified": True}})
    return cdp


def fits(page, width) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width, f"wider than {width} px: {page.url}"


def save(locator, name) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    locator.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


def wait_for_lock(page):
    overlay = page.locator(".lock-overlay")
    expect(overlay).to_be_visible(timeout=(LOCK_SECONDS + 10) * 1000)
    return overlay


def test_lock_unlock_with_password_and_passkey_then_sign_in_with_the_passkey(lock_server, browser):
    base = lock_server
    context, page = phone_page(browser)
    virtual_authenticator(context, page)
    sign_in(page, base)

    # Settings → Security & Privacy, before any lock: its look, light and dark, at 375 px and at 200% text.
    page.goto(base + "/settings#security")
    section = page.locator("#security")
    expect(section.locator("h2")).to_have_text("Security & Privacy")
    expect(section.locator(".sessions li")).to_have_count(1)
    expect(section.locator(".sessions li")).to_contain_text("This device")
    expect(section.locator("form[data-passkey-add]")).to_be_visible()  # the browser can make passkeys here

    # A passkey, named, made by the virtual authenticator.
    section.locator("#f-passkey-name").fill("Test phone")
    section.locator("button:has-text('Add a passkey')").click()
    expect(page.locator(".notice")).to_have_text("Passkey added.")
    expect(page.locator("#security .list").first).to_contain_text("Test phone")
    for scheme in ["light", "dark"]:
        page.emulate_media(color_scheme=scheme)
        save(page.locator("#security"), f"18-security-{scheme}")
    page.emulate_media(color_scheme="light")
    page.set_viewport_size({"width": 375, "height": 812})
    fits(page, 375)
    page.evaluate("document.documentElement.style.fontSize = '200%'")
    fits(page, 375)
    page.evaluate("document.documentElement.style.fontSize = ''")
    page.set_viewport_size({"width": 390, "height": 844})

    # Lock after 1 minute (5 s here).
    page.locator("#security input[name=lock][value='1']").check()
    page.locator("#security form[action^='/settings/lock'] button").click()
    # The save comes back to its section and says so there, in sight, not at the top of a page many screens long.
    notice = page.locator("#security .notice")
    expect(notice).to_contain_text("locks itself after 1 minute")
    expect(notice).to_be_in_viewport()
    save(page.locator("#security"), "18-security-saved")

    # Type into a form and leave it: the lock comes over the page.
    page.goto(base + "/items/new")
    page.fill("#f-name", "Typed before the lock")
    overlay = wait_for_lock(page)
    expect(overlay.locator("h2")).to_have_text("Nestory is locked")
    expect(overlay.locator("[data-unlock-passkey]")).to_be_visible()
    assert page.evaluate("document.querySelector('body > .page').inert") is True
    fits(page, 390)
    for scheme in ["light", "dark"]:
        page.emulate_media(color_scheme=scheme)
        page.screenshot(path=str(SCREENSHOTS / f"18-lock-screen-{scheme}.png"))
    page.emulate_media(color_scheme="light")
    assert page.evaluate("getComputedStyle(document.querySelector('body > .page')).visibility") == "hidden"
    page.evaluate("document.documentElement.style.fontSize = '200%'")
    fits(page, 390)
    page.evaluate("document.documentElement.style.fontSize = ''")
    # The server refuses the locked session too (the page's own request, like any script's).
    status = page.evaluate("fetch('/api/v1/items').then((r) => r.status)")
    assert status == 423

    # A wrong password keeps it locked; the right one takes the screen away, with the form as it was.
    overlay.locator("input[name=password]").fill("not the password")
    overlay.locator("button:has-text('Unlock')").first.click()
    expect(overlay.locator("[data-lock-error]")).to_have_text("That is not your password.")
    overlay.locator("input[name=password]").fill(PASSWORD)
    overlay.locator("button[type=submit]:has-text('Unlock')").click()
    expect(page.locator(".lock-overlay")).to_have_count(0)
    expect(page.locator("#f-name")).to_have_value("Typed before the lock")
    page.click("form button[type=submit].primary")
    expect(page).to_have_url(re.compile(r"/items/[0-9a-f-]{36}"))
    expect(page.locator("h1")).to_have_text("Typed before the lock")

    # Locked again: the passkey unlocks.
    overlay = wait_for_lock(page)
    overlay.locator("[data-unlock-passkey]").click()
    expect(page.locator(".lock-overlay")).to_have_count(0)
    assert page.evaluate("fetch('/api/v1/items').then((r) => r.status)") == 200

    # A page loaded while locked: the server's lock page, and after unlocking the same address.
    wait_for_lock(page)
    response = page.goto(base + "/reports?from=lock")
    assert response.status == 423
    lock_page = page.locator("[data-lock-page]")
    expect(lock_page).to_contain_text("Nestory is locked")
    fits(page, 390)
    screenshot(page, "18-lock-page")
    lock_page.locator("input[name=password]").fill(PASSWORD)
    lock_page.locator("button[type=submit]:has-text('Unlock')").click()
    expect(page).to_have_url(base + "/reports?from=lock")
    expect(page.locator("h1")).to_have_text("Reports")

    # Signed out, the passkey signs in (a discoverable credential: no email typed).
    page.click("form.signout button")
    expect(page).to_have_url(re.compile(r"/signin$"))
    passkey = page.locator("[data-passkey-signin] button")
    expect(passkey).to_be_visible()
    screenshot(page, "18-sign-in-with-passkey")
    passkey.click()
    expect(page).to_have_url(base + "/")
    expect(page.locator("form.signout .who")).to_have_text("The Smiths")
    # The lock is turned off again (the next test shares nothing, but leave it tidy).
    page.goto(base + "/settings#security")
    page.locator("#security input[name=lock][value='0']").check()
    page.locator("#security form[action^='/settings/lock'] button").click()
    expect(page.locator(".notice")).to_have_text("The app no longer locks itself.")
    context.close()


def test_sign_out_everywhere_else_sends_the_other_browser_to_sign_in(server, browser):
    first, page = phone_page(browser)
    other, other_page = phone_page(browser)
    sign_in(page, server)
    sign_in(other_page, server)
    page.goto(server + "/settings#security")
    sessions = page.locator("#security .sessions li")
    expect(sessions).to_have_count(2)
    expect(page.locator("#security .sessions .badge")).to_have_count(1)
    for scheme in ["light", "dark"]:
        page.emulate_media(color_scheme=scheme)
        save(page.locator("#security"), f"18-sessions-{scheme}")
    page.set_viewport_size({"width": 375, "height": 812})
    page.evaluate("document.documentElement.style.fontSize = '200%'")
    fits(page, 375)
    page.evaluate("document.documentElement.style.fontSize = ''")
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("text=Sign out everywhere else")
    expect(page.locator(".notice")).to_have_text("Signed out on 1 other device.")
    expect(page.locator("#security .sessions li")).to_have_count(1)
    other_page.goto(server + "/items/new")
    expect(other_page).to_have_url(re.compile(r"/signin\?next="))
    page.goto(server + "/")
    expect(page).to_have_url(server + "/")
    first.close()
    other.close()
