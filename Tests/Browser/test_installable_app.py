"""The app on a phone (issue 16): installable (a manifest with icons, a favicon and touch icon) and opening
without a connection to the server through its service worker, showing the pages it last saw; signing out
forgets them."""
import json
import re
import urllib.request

from conftest import phone_page, screenshot, sign_in, start_server
from playwright.sync_api import expect


def test_the_manifest_and_icons_make_it_installable(server, phone):
    manifest = json.loads(urllib.request.urlopen(server + "/manifest.webmanifest").read())
    assert manifest["name"] == "Nestory" and manifest["display"] == "standalone" and manifest["start_url"] == "/"
    assert manifest["theme_color"] == "#0f766e"
    sizes = {(icon["sizes"], icon["purpose"]) for icon in manifest["icons"]}
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= sizes
    for icon in manifest["icons"]:
        reply = urllib.request.urlopen(server + icon["src"])
        assert reply.headers["Content-Type"] == "image/png"
        body = reply.read()
        assert body[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = int.from_bytes(body[16:20], "big"), int.from_bytes(body[20:24], "big")
        assert f"{width}x{height}" == icon["sizes"]
    assert urllib.request.urlopen(server + "/favicon.ico").headers["Content-Type"] == "image/png"
    page = phone
    page.goto(server + "/signin")
    assert page.locator("link[rel=manifest]").get_attribute("href") == "/manifest.webmanifest"
    touch = page.locator("link[rel=apple-touch-icon]").get_attribute("href")
    assert urllib.request.urlopen(server + touch).status == 200


def test_without_a_connection_the_app_shows_what_it_last_saw(browser):
    process, base = start_server()
    try:
        context, page = phone_page(browser)
        sign_in(page, base)
        page.evaluate("navigator.serviceWorker.ready.then(() => true)")
        page.reload()  # now the worker controls the page
        assert page.evaluate("!!navigator.serviceWorker.controller")
        page.goto(base + "/items/new")
        page.fill("#f-name", "Grandfather clock")
        page.click("button[type=submit]")
        expect(page.locator("h1")).to_have_text("Grandfather clock")
        item = page.url.split("?")[0]
        page.goto(base + "/")
        expect(page.locator(".items")).to_contain_text("Grandfather clock")
        # The server goes away (a basement with no signal looks the same to the phone).
        process.terminate()
        process.wait(timeout=10)
        page.goto(item)
        expect(page.locator("h1")).to_have_text("Grandfather clock")
        page.goto(base + "/")
        expect(page.locator(".items")).to_contain_text("Grandfather clock")
        expect(page.locator("link[rel=stylesheet]")).to_have_count(1)
        assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(246, 247, 249)"  # the cached stylesheet
        page.goto(base + "/reports/inventory")  # never opened: the offline page, in the app's style
        expect(page.locator("h1")).to_have_text("You’re offline")
        screenshot(page, "16-07-offline-page")
        process = None
        context.close()
    finally:
        if process:
            process.terminate()
            process.wait(timeout=10)


def test_signing_out_forgets_the_kept_pages(server, phone):
    page = phone
    sign_in(page, server)
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.reload()
    page.goto(server + "/reports")
    assert page.evaluate("caches.has('nestory-pages')")
    page.click("text=Sign out")
    expect(page).to_have_url(re.compile(r"/signin$"))
    assert page.evaluate("caches.has('nestory-pages')") is False
