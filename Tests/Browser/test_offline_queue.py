"""The offline queue (issue 16): a capture made without a connection is kept in the browser, shown with its
status, and uploaded exactly once when the connection returns; a refused one says why and offers Retry."""
import re

from conftest import phone_page, png, screenshot, sign_in
from playwright.sync_api import expect


def items_named(page, name):
    return page.evaluate("""async (name) => (await (await fetch('/api/v1/items?q=' + encodeURIComponent(name))).json())
        .items.filter(i => i.name === name).length""", name)


def test_quick_add_offline_is_kept_then_uploaded_once_online(server, browser, tmp_path):
    context, page = phone_page(browser)
    sign_in(page, server)
    page.goto(server + "/items/quick")
    photo = tmp_path / "shed.png"
    photo.write_bytes(png(50, 40, (120, 90, 30)))
    context.set_offline(True)
    page.set_input_files("#f-photo", str(photo))
    page.fill("#f-name", "Garden shed ladder")
    page.click("button[type=submit]")
    expect(page.locator(".upload-status")).to_contain_text("kept on this phone")
    queued = page.locator("[data-queue] .queued")
    expect(queued).to_have_count(1)
    expect(queued.locator(".queue-state")).to_have_text("Waiting for a connection")
    expect(page.locator("#f-name")).to_have_value("")  # ready for the next one
    screenshot(page, "16-08-queue-waiting")
    # Back online: the page sends it by itself, once.
    context.set_offline(False)
    expect(queued.locator(".queue-state")).to_have_text("Uploaded", timeout=10000)
    link = queued.get_by_role("link", name="Open")
    page.goto(server + link.get_attribute("href"))
    expect(page.locator("h1")).to_have_text("Garden shed ladder")
    expect(page.locator(".carousel .slide")).to_have_count(1)
    assert items_named(page, "Garden shed ladder") == 1
    # Opening the app again does not send it again.
    page.goto(server + "/")
    page.wait_for_timeout(500)
    assert items_named(page, "Garden shed ladder") == 1
    context.close()


def test_a_capture_the_server_refuses_says_why_and_keeps_the_form(server, browser):
    context, page = phone_page(browser)
    sign_in(page, server)
    page.goto(server + "/items/quick")
    page.fill("#f-name", "Clock")
    page.fill("#f-price", "12.345")
    page.click("button[type=submit]")
    expect(page.locator(".upload-status")).to_contain_text("decimal places")
    expect(page.locator("#f-name")).to_have_value("Clock")
    expect(page.locator("[data-queue]")).to_be_hidden()  # nothing left waiting
    context.close()


def test_a_photo_added_to_an_item_offline_waits_and_goes_up_once(server, browser, tmp_path):
    context, page = phone_page(browser)
    sign_in(page, server)
    page.goto(server + "/items/new")
    page.fill("#f-name", "Attic trunk")
    page.click("button[type=submit]")
    expect(page.locator("h1")).to_have_text("Attic trunk")
    item = page.url.split("?")[0]
    photo = tmp_path / "trunk.png"
    photo.write_bytes(png(30, 30, (10, 120, 60)))
    context.set_offline(True)
    page.set_input_files("#photo-upload", str(photo))
    expect(page.locator(".upload-status")).to_contain_text("kept on this phone")
    expect(page.locator("[data-queue] .queue-state")).to_have_text("Waiting for a connection")
    expect(page.locator("[data-queue] .name")).to_have_text("A photo for Attic trunk")
    context.set_offline(False)
    expect(page.locator("[data-queue] .queue-state")).to_have_text("Uploaded", timeout=10000)
    page.goto(item)
    expect(page.locator(".carousel .slide")).to_have_count(1)
    context.close()


def test_a_large_photo_is_downsized_in_the_browser_and_a_small_one_goes_as_it_is(server, browser, tmp_path):
    context, page = phone_page(browser)
    sign_in(page, server)
    for name, size, expected in [("Big print", (3000, 1500), ("image/jpeg", 2560)), ("Small print", (300, 200), ("image/png", 300))]:
        photo = tmp_path / f"{name}.png"
        photo.write_bytes(png(*size, (200, 40, 90)))
        page.goto(server + "/items/quick")
        page.set_input_files("#f-photo", str(photo))
        page.fill("#f-name", name)
        page.click("button[type=submit]")
        expect(page.locator("h1")).to_have_text(name)
        item = page.url.split("/items/")[1].split("?")[0]
        stored = page.evaluate("""async (id) => {
            const item = await (await fetch('/api/v1/items/' + id)).json();
            const photo = item.photos[0];
            const url = new URL(photo.url, location.href);
            url.searchParams.set('size', 'original');
            const bytes = await (await fetch(url)).blob();
            const bitmap = await createImageBitmap(bytes);
            return [photo.contentType, bitmap.width, bytes.size];
        }""", item)
        assert (stored[0], stored[1]) == expected, (name, stored)
        if name == "Small print":
            assert stored[2] == len(photo.read_bytes())  # byte for byte
    context.close()


def test_a_cut_response_during_the_upload_still_makes_the_item_once(server, browser):
    """The server makes the item but its answer never reaches the phone: the queue keeps the capture and sends
    it again with the same Idempotency-Key, and the server answers as before instead of making a second one."""
    # Without the service worker: requests that pass through it are not seen by page.route (Playwright).
    context, page = phone_page(browser, service_workers="block")
    sign_in(page, server)
    page.goto(server + "/items/quick")
    cut = {"count": 0, "keys": []}

    def cut_first(route):
        cut["keys"].append(route.request.headers.get("idempotency-key"))
        if cut["count"] == 0:
            cut["count"] += 1
            route.fetch()  # the server receives it and makes the item...
            route.abort("connectionreset")  # ...and the answer is lost on the way back
        else:
            route.continue_()
    page.route("**/api/v1/items", cut_first)
    page.fill("#f-name", "Basement dehumidifier")
    page.click("button[type=submit]")
    expect(page.locator(".upload-status")).to_contain_text("kept on this phone")  # the answer never came
    expect(page.locator("[data-queue] .queue-state")).to_have_text("Waiting for a connection")
    assert items_named(page, "Basement dehumidifier") == 1  # made, though the phone never heard
    page.evaluate("window.dispatchEvent(new Event('online'))")  # the connection is back
    expect(page.locator("[data-queue] .queue-state")).to_have_text("Uploaded", timeout=10000)
    assert items_named(page, "Basement dehumidifier") == 1
    assert len(cut["keys"]) == 2 and cut["keys"][0] == cut["keys"][1] and cut["keys"][0]
    context.close()


def test_a_receipt_photographed_offline_is_read_once_back_online(server, browser, tmp_path):
    context, page = phone_page(browser)
    sign_in(page, server)
    page.goto(server + "/capture/receipt")
    receipt = tmp_path / "receipt.png"
    receipt.write_bytes(png(120, 300, (250, 250, 250)))
    before = page.evaluate("async () => (await (await fetch('/receipts')).text()).split('receipt-row').length")
    context.set_offline(True)
    page.set_input_files("#receipt-photo", str(receipt))
    page.get_by_role("button", name="Use this photo").click()
    expect(page.locator(".transfer-status")).to_contain_text("kept on this phone")
    expect(page.locator("[data-queue] .name")).to_have_text("A receipt")
    context.set_offline(False)
    expect(page.locator("[data-queue] .queue-state")).to_have_text("Uploaded", timeout=10000)
    link = page.locator("[data-queue] .queued").get_by_role("link", name="Open").get_attribute("href")
    assert re.match(r"^/receipts/[0-9a-f-]{36}$", link), link
    after = page.evaluate("async () => (await (await fetch('/receipts')).text()).split('receipt-row').length")
    assert after == before + 1
    context.close()


def test_a_barcode_photo_taken_offline_is_read_once_back_online(server, browser, tmp_path):
    from test_capture import CODE, write_png
    context, page = phone_page(browser)
    sign_in(page, server)
    page.goto(server + "/capture")
    photo = tmp_path / "barcode.png"
    write_png(photo)
    context.set_offline(True)
    page.set_input_files("#scan-photo", str(photo))
    expect(page.locator(".photo-status")).to_contain_text("kept on this phone")
    context.set_offline(False)
    queued = page.locator("[data-queue] .queued")
    expect(queued.locator(".queue-state")).to_have_text("Uploaded", timeout=10000)
    expect(queued.locator(".name")).to_have_text(f"Barcode {CODE}")
    queued.get_by_role("link", name="Open").click()
    expect(page).to_have_url(re.compile(rf"/capture/barcode/{CODE}$"))
    context.close()
