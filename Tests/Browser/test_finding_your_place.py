"""Issue 23 at phone width: keeping your place in the list, photos on the item page and the add form, quick
actions on a row, confirmations and notices, and large text on every page. Screenshots go to
test-artifacts/screenshots (light and dark)."""
import re

import pytest

from conftest import SCREENSHOTS, phone_page, png, screenshot, sign_in
from playwright.sync_api import expect

ITEMS = 130  # more than three pages of 40


@pytest.fixture(scope="module")
def server(pro_server):
    """This file lists 130 items, past Free's 100: its server has Pro (the plan itself is test_pro.py's subject)."""
    return pro_server


def add_items(page, count: int) -> None:
    """Adds items through the JSON API, as a script would, from the signed-in page."""
    page.evaluate("""async (count) => {
        const token = document.querySelector('meta[name="csrf-token"]').content;
        for (let i = 0; i < count; i++) {
            const body = { name: `Thing ${String(i).padStart(3, "0")}`, price: i % 3 === 0 ? null : String(10 + i) };
            const response = await fetch("/api/v1/items", { method: "POST", credentials: "same-origin",
                headers: { "Content-Type": "application/json", "X-CSRF-Token": token }, body: JSON.stringify(body) });
            if (!response.ok) throw new Error(await response.text());
        }
    }""", count)


def browse_top(page) -> float:
    return page.evaluate("document.querySelector('#browse').getBoundingClientRect().top")


def test_a_chip_sort_or_view_change_keeps_the_list_in_view(server, phone):
    page = phone
    sign_in(page, server)
    add_items(page, ITEMS)
    page.goto(server + "/")
    assert page.evaluate("window.scrollY") == 0
    # The charts fill the first screen; after a chip the list is what the user sees, not the donut.
    page.click(".chips >> text=Needs value")
    expect(page).to_have_url(re.compile(r"filter=value#browse$"))
    assert 0 <= browse_top(page) < 40, browse_top(page)
    expect(page.locator(".items .item").first).to_be_in_viewport()
    page.select_option("#sort", "value")
    expect(page).to_have_url(re.compile(r"sort=value.*#browse$"))
    assert 0 <= browse_top(page) < 40
    page.click(".toggle >> text=Grid")
    expect(page.locator(".items.grid")).to_be_visible()
    assert 0 <= browse_top(page) < 40
    screenshot(page, "23-01-chip-keeps-list-in-view")


def test_back_from_an_item_deep_in_the_list_restores_rows_and_position(server, phone):
    page = phone
    sign_in(page, server)
    page.goto(server + "/")
    # Scroll until infinite scroll has loaded three pages (120 rows).
    for _ in range(40):
        if page.locator(".items .item").count() >= 120:
            break
        page.mouse.wheel(0, 4000)
        page.wait_for_timeout(150)
    loaded = page.locator(".items .item").count()
    assert loaded >= 120, loaded
    row = page.locator(".items .item").nth(100)
    row.scroll_into_view_if_needed()
    name = row.locator(".name").text_content()
    y = page.evaluate("window.scrollY")
    assert y > 5000, y
    row.locator("a").click()
    expect(page.locator("h1")).to_have_text(name)
    page.go_back()
    expect(page.locator(".items .item")).to_have_count(loaded)
    page.wait_for_timeout(200)
    assert abs(page.evaluate("window.scrollY") - y) < 5, (page.evaluate("window.scrollY"), y)
    expect(page.locator(".items .item").nth(100)).to_be_in_viewport()
    # A fresh visit starts at the top with the first page, as before.
    page.goto(server + "/")
    expect(page.locator(".items .item")).to_have_count(40)
    assert page.evaluate("window.scrollY") == 0


def test_a_rows_quick_actions_from_its_menu_button_and_a_long_press(server, phone):
    page = phone
    sign_in(page, server)
    page.goto(server + "/?q=Thing+005")
    row = page.locator(".items .item").first
    row.locator("[data-item-menu]").click()
    menu = page.get_by_role("menu")
    expect(menu).to_be_visible()
    expect(menu.get_by_role("menuitem")).to_have_text(["Edit", "Add photo", "Add receipt", "Add to loss list"])
    expect(row.locator("[data-item-menu]")).to_have_attribute("aria-expanded", "true")
    screenshot(page, "23-02-row-menu")
    page.keyboard.press("Escape")
    expect(menu).to_have_count(0)
    # A long press on the row opens the same menu instead of opening the item.
    row.locator("a").dispatch_event("touchstart")
    page.wait_for_timeout(700)
    row.locator("a").dispatch_event("touchend")
    expect(page.get_by_role("menu")).to_be_visible()
    expect(page).to_have_url(re.compile(r"q=Thing"))
    page.get_by_role("menuitem", name="Add to loss list").click()
    expect(page).to_have_url(re.compile(r"/reports/loss\?item="))


def test_photos_on_the_add_form_carousel_controls_reorder_and_remove(server, phone, tmp_path):
    page = phone
    sign_in(page, server)
    red, blue = tmp_path / "red.png", tmp_path / "blue.png"
    red.write_bytes(png(90, 60, (220, 30, 30)))
    blue.write_bytes(png(60, 90, (30, 30, 220)))
    page.goto(server + "/items/new")
    page.fill("#f-name", "Camera")
    page.set_input_files("#f-photos", [str(red), str(blue)])
    expect(page.locator(".previews img")).to_have_count(2)
    # A mistake first: the form comes back with its error and the photos still chosen.
    page.fill("#f-price", "12.345")
    page.click("button[type=submit]")
    expect(page.locator("#f-price-error")).to_contain_text("decimal places")
    expect(page.locator(".previews img")).to_have_count(2)
    page.fill("#f-price", "450")
    page.click("button[type=submit]")
    expect(page.locator("h1")).to_have_text("Camera")
    expect(page.locator(".notice")).to_have_text("Item added with 2 photos.")
    expect(page.locator(".carousel .slide")).to_have_count(2)
    first = lambda: page.locator(".carousel .slide img").first.evaluate("img => img.naturalWidth")  # noqa: E731
    assert first() == 90  # the first chosen is the main photo

    # The carousel: arrows, dots and the count, and the arrow keys.
    count = page.locator(".carousel-count")
    expect(count).to_have_text("1 of 2")
    expect(page.get_by_role("button", name="Previous photo")).to_be_disabled()
    page.get_by_role("button", name="Next photo").click()
    expect(count).to_have_text("2 of 2")
    expect(page.get_by_role("button", name="Show photo 2")).to_have_attribute("aria-current", "true")
    page.locator(".carousel").focus()
    page.keyboard.press("ArrowLeft")
    expect(count).to_have_text("1 of 2")
    expect(page.get_by_role("link", name="Open photo 1 of 2 full size")).to_have_attribute("href", re.compile(r"/files/[0-9a-f]{64}\?size=display"))
    screenshot(page, "23-03-carousel")

    # Reorder: photo 2 earlier makes it the main photo.
    page.click("text=Manage photos (2)")
    page.get_by_role("button", name="Move photo 2 earlier").click()
    expect(page.locator(".notice")).to_have_text("Photo moved earlier.")
    assert first() == 60
    # Remove, confirmed; cancelling keeps it.
    page.click("text=Manage photos (2)")
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.get_by_role("button", name="Remove photo 1").click()
    expect(page.locator(".carousel .slide")).to_have_count(2)
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Remove photo 1").click()
    expect(page.locator(".notice")).to_have_text("Photo removed.")
    expect(page.locator(".carousel .slide")).to_have_count(1)
    expect(page.locator(".carousel-controls")).to_have_count(0)


def test_deleting_a_room_asks_first_and_says_what_happened(server, phone):
    page = phone
    sign_in(page, server)
    page.goto(server + "/rooms")
    # Renaming and moving say what they did too.
    bath = page.locator(".place").filter(has=page.locator("input[value='Bathroom']"))
    bath.locator("input[name=name]").fill("Bath & laundry")
    bath.get_by_role("button", name="Save").click()
    expect(page.locator(".notice")).to_have_text("Saved “Bath & laundry”.")
    page.get_by_role("button", name="Move Bath & laundry up").click()
    expect(page.locator(".notice")).to_have_text("Moved up.")
    row = page.locator(".place").filter(has=page.locator("input[value='Garage']"))
    messages = []
    page.once("dialog", lambda dialog: (messages.append(dialog.message), dialog.dismiss()))
    row.get_by_role("button", name="Delete").click()
    assert messages and messages[0].startswith("Delete Garage?"), messages
    expect(page.locator(".place input[value='Garage']")).to_have_count(1)  # cancelled: still there
    page.once("dialog", lambda dialog: dialog.accept())
    row.get_by_role("button", name="Delete").click()
    expect(page.locator(".notice")).to_contain_text("Room deleted")
    expect(page.locator(".place input[value='Garage']")).to_have_count(0)


def test_settings_opens_with_an_index_and_a_refused_form_opens_at_its_section(server, phone):
    page = phone
    sign_in(page, server)
    page.goto(server + "/settings")
    index = page.locator("nav.settings-index")
    expect(index).to_be_in_viewport()
    expect(index.locator("a[href='#members']")).to_contain_text("Members")
    for scheme in ["light", "dark"]:
        page.emulate_media(color_scheme=scheme)
        page.screenshot(path=str(SCREENSHOTS / f"23-settings-index-{scheme}.png"))
    page.emulate_media(color_scheme="light")
    # A row takes you to its section, many screens down.
    index.locator("a[href='#members']").click()
    members = page.locator("#members")
    expect(members.locator("h2")).to_be_in_viewport()
    assert page.evaluate("window.scrollY") > 1000
    # A refused form comes back at its section with its error in sight, what was typed kept.
    members.locator("#f-member-email").fill("not an address")
    members.locator("#f-member-password").fill("long enough password")
    with page.expect_navigation():
        members.get_by_role("button", name="Add member").click()
    expect(page.locator("#members .error").first).to_be_in_viewport()
    expect(page.locator("#f-member-email")).to_have_value("not an address")
    page.screenshot(path=str(SCREENSHOTS / "23-settings-refused-at-its-section.png"))  # what the phone shows


PAGES = ["/", "/?view=grid", "/items/new", "/items/quick", "/rooms", "/categories", "/capture", "/capture/photo", "/capture/barcode",
         "/capture/receipt", "/receipts", "/reports", "/reports/inventory", "/reports/loss", "/settings", "/settings/data"]


def test_no_page_scrolls_sideways_at_200_percent_text(server, browser):
    for scheme in ["light", "dark"]:
        context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=1, is_mobile=True,
                                      has_touch=True, color_scheme=scheme)
        page = context.new_page()
        sign_in(page, server)
        item = page.locator(".items .item a").first.get_attribute("href")
        too_wide = []
        for path in PAGES + [item, item + "/edit"]:
            page.goto(server + path)
            page.evaluate("document.documentElement.style.fontSize = '200%'")
            width = page.evaluate("document.documentElement.scrollWidth")
            if width > 391:
                too_wide.append((path, width))
            # No word of the title is broken in the middle, and no tab label is cut.
            assert page.evaluate("""() => { const h = document.querySelector('h1'); const range = document.createRange();
                range.selectNodeContents(h); return range.getClientRects().length <= h.textContent.trim().split(/\\s+/).length; }"""), path
            cut = page.evaluate("""() => [...document.querySelectorAll('.tab span')].filter(s => {
                const label = s.getBoundingClientRect(), tab = s.closest('.tab').getBoundingClientRect();
                return label.left < tab.left - 1 || label.right > tab.right + 1; }).map(s => s.textContent)""")
            assert cut == [], (path, cut)
            if path in ["/", "/items/new"] or path == item:
                name = "root" if path == "/" else "item" if path == item else path.strip("/").replace("/", "-")
                screenshot(page, f"23-04-large-text-{name}-{scheme}")
            page.evaluate("document.documentElement.style.fontSize = ''")
            if path in ["/", item]:
                screenshot(page, f"23-05-{'inventory' if path == '/' else 'item'}-{scheme}")
        assert too_wide == [], f"pages wider than the phone at 200% text ({scheme}): {too_wide}"
        context.close()


def test_a_chosen_theme_applies_from_the_first_paint_whatever_the_device_says(server, browser):
    for chosen, device, background in [("dark", "light", "rgb(11, 15, 20)"), ("light", "dark", "rgb(246, 247, 249)")]:
        context, page = phone_page(browser, scheme=device)
        sign_in(page, server)
        page.goto(server + "/settings")
        page.check(f"input[name=theme][value={chosen}]")
        page.locator("form[action^='/settings/theme'] button").click()
        expect(page.locator(".notice")).to_contain_text("Theme:")
        # No flash: the colour is right when the document is parsed, before any script runs.
        page.goto(server + "/", wait_until="domcontentloaded")
        assert page.evaluate("getComputedStyle(document.body).backgroundColor") == background
        assert page.evaluate("document.documentElement.dataset.theme") == chosen
        screenshot(page, f"18-01-theme-{chosen}-on-a-{device}-device")
        page.goto(server + "/settings")
        page.check("input[name=theme][value=system]")
        page.locator("form[action^='/settings/theme'] button").click()
        context.close()
