"""What a person does with the Inventory tab, in a real browser at phone width."""
import re

from conftest import EMAIL, PASSWORD, png, screenshot, sign_in
from playwright.sync_api import expect


def test_first_run_add_items_browse_edit_delete(server, phone, tmp_path):
    page = phone
    # First run: the app asks for the owner and the household.
    page.goto(server + "/")
    expect(page).to_have_url(re.compile(r"/setup$"))
    screenshot(page, "01-setup")
    page.fill("#f-household", "The Smiths")
    page.select_option("#f-currency", "USD")
    page.fill("#f-name", "Ann")
    page.fill("#f-email", EMAIL)
    page.fill("#f-password", PASSWORD)
    page.fill("#f-confirm", "not the same")
    page.click("button[type=submit]")
    expect(page.locator(".error").first).to_contain_text("not the same")
    page.fill("#f-password", PASSWORD)
    page.fill("#f-confirm", PASSWORD)
    page.click("button[type=submit]")
    expect(page).to_have_url(server + "/")
    expect(page.get_by_text("Add your first item")).to_be_visible()
    screenshot(page, "02-inventory-empty")

    # Add an item with a validation error first, then correctly.
    page.click("a[aria-label='Add item']")
    page.fill("#f-name", "Fender Stratocaster")
    page.fill("#f-price", "12.345")
    page.click("button[type=submit]")
    expect(page.locator("#f-price-error")).to_contain_text("decimal places")
    page.fill("#f-price", "1,299.99")
    page.select_option("#f-roomID", label="Living Room")
    page.select_option("#f-categoryID", label="Musical Instruments")
    page.fill("#f-serialNumber", "US21001234")
    page.fill("#f-purchaseDate", "2021-06-01")
    page.click("button[type=submit]")
    expect(page.locator("h1")).to_have_text("Fender Stratocaster")
    expect(page.get_by_text("$1,299.99")).to_be_visible()

    # Add a photo from the "gallery".
    photo = tmp_path / "guitar.png"
    photo.write_bytes(png(64, 48))
    with page.expect_navigation():
        page.set_input_files("#photo-upload", str(photo))
    expect(page.locator(".notice")).to_have_text("Photo added.")
    expect(page.locator(".carousel img")).to_have_count(1)
    assert page.locator(".carousel img").evaluate("img => img.naturalWidth") == 64
    screenshot(page, "03-item-detail")
    # The same picture again is not a second photo, and the page says so.
    with page.expect_navigation():
        page.set_input_files("#photo-upload", str(photo))
    expect(page.locator(".notice")).to_have_text("That photo is already on this item.")
    expect(page.locator(".carousel img")).to_have_count(1)

    # A second, undocumented item.
    page.goto(server + "/items/new")
    page.fill("#f-name", "Old lamp")
    page.click("button[type=submit]")
    expect(page.locator("h1")).to_have_text("Old lamp")

    # The inventory: summary, charts, chips, search, sort, grid.
    page.goto(server + "/")
    expect(page.locator(".summary .big").first).to_have_text("2 items")
    expect(page.locator("#documentation .big")).to_have_text("50%")
    expect(page.locator("#documentation .sub")).to_have_text("Documented: photo + value + category + room")
    expect(page.locator("svg[aria-labelledby='donut-title donut-desc']")).to_be_visible()
    screenshot(page, "04-inventory")
    page.click("#documentation summary")
    expect(page.get_by_text("What counts as documented?")).to_be_visible()
    for chip, shown, hidden in [("Needs photo", "Old lamp", "Fender Stratocaster"), ("Needs value", "Old lamp", "Fender Stratocaster"),
                                ("Needs receipt", "Old lamp", None), ("High value", "Fender Stratocaster", "Old lamp")]:
        page.click(f".chips >> text={chip}")
        expect(page.locator(".items")).to_contain_text(shown)
        if hidden:
            expect(page.locator(".items")).not_to_contain_text(hidden)
    page.click(".chips >> text=All items")
    page.fill("#q", "strat")
    page.press("#q", "Enter")
    expect(page).to_have_url(re.compile(r"q=strat"))
    expect(page.locator(".items .item")).to_have_count(1)
    page.go_back()
    expect(page.locator(".items .item")).to_have_count(2)
    page.select_option("#sort", "value")
    expect(page).to_have_url(re.compile(r"sort=value"))
    expect(page.locator(".items .item").first).to_contain_text("Fender")
    page.click("text=Grid")
    expect(page.locator(".items.grid")).to_be_visible()
    page.reload()
    expect(page.locator(".items.grid")).to_be_visible()  # the URL keeps the state
    screenshot(page, "05-inventory-grid")

    # Edit, then delete with confirmation.
    page.click("text=Old lamp")
    page.click("text=Edit")
    page.fill("#f-name", "Brass lamp")
    page.click("button[type=submit]")
    expect(page.locator("h1")).to_have_text("Brass lamp")
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("text=Delete item")
    expect(page.get_by_role("status").first).to_have_text("“Brass lamp” deleted.")
    # The notice is said once: the address loses it, and reloading the page does not say it again.
    expect(page).to_have_url(re.compile(r"/$"))
    page.reload()
    expect(page.locator("#main > .notice[role=status]")).to_have_count(0)
    expect(page.locator(".items .item")).to_have_count(1)

    # Sign out and back in.
    page.click("text=Sign out")
    expect(page).to_have_url(re.compile(r"/signin$"))
    screenshot(page, "06-signin")
    sign_in(page, server)
    expect(page.locator(".summary .big").first).to_have_text("1 item")


def test_layout_has_no_horizontal_scroll_and_big_tap_targets(server, phone):
    page = phone
    sign_in(page, server)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 375, f"page is {width}px wide at 375px"
    small = page.evaluate("""() => [...document.querySelectorAll('a, button, input, select')]
        .filter(e => e.offsetParent !== null && !e.closest('.legend') && !e.closest('details p') && !e.closest('.breakdown'))
        .map(e => [e.textContent.trim() || e.name || e.id, e.getBoundingClientRect().height])
        .filter(([, h]) => h < 44)""")
    assert small == [], f"tap targets under 44px: {small}"


def test_dark_mode_and_large_text_stay_readable(server, browser):
    context = browser.new_context(viewport={"width": 375, "height": 812}, color_scheme="dark", device_scale_factor=2)
    page = context.new_page()
    sign_in(page, server)
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    text = page.evaluate("getComputedStyle(document.querySelector('h1')).color")
    assert background == "rgb(11, 15, 20)" and text == "rgb(229, 231, 235)", (background, text)
    screenshot(page, "07-inventory-dark")
    # Text scaled to 200% (browser zoom of the root font size) still fits the phone's width.
    page.evaluate("document.documentElement.style.fontSize = '200%'")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 375 + 1, f"page is {width}px wide with large text"
    context.close()


def test_quick_add_photo_first(server, phone, tmp_path):
    page = phone
    sign_in(page, server)
    page.click("text=Quick add")
    photo = tmp_path / "vase.png"
    photo.write_bytes(png(40, 60, (30, 90, 200)))
    page.set_input_files("#f-photo", str(photo))
    expect(page.locator(".photo-pick .preview")).to_be_visible()
    page.fill("#f-name", "Blue vase")
    page.select_option("#f-roomID", label="Dining Room")
    page.select_option("#f-categoryID", label="Art & Decor")
    page.fill("#f-purchaseDate", "2024-03-05")  # the spec's quick form: optional value and date
    page.click("button[type=submit]")
    expect(page.locator("h1")).to_have_text("Blue vase")
    expect(page.locator(".carousel img")).to_have_count(1)
    expect(page.locator(".pills")).to_contain_text("Dining Room")
    expect(page.locator("main")).to_contain_text("Mar 5, 2024")  # as the browser's language writes it
    screenshot(page, "08-quick-add-result")


def test_right_to_left_words_read_right_to_left(server, phone):
    """A name or a note in Persian reads from the right, where its first word stands; English stays as it was."""
    page = phone
    sign_in(page, server)
    page.goto(server + "/items/new")
    page.fill("#f-name", "مبل راحتی IKEA")
    page.fill("#f-notes", "خرید از فروشگاه IKEA")
    page.click("button[type=submit]")
    expect(page.locator("h1")).to_have_text("مبل راحتی IKEA")
    screenshot(page, "09-item-right-to-left")
    where = """([selector, word]) => {
        const element = [...document.querySelectorAll(selector)].find(e => e.textContent.includes(word));
        const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            const at = node.data.indexOf(word);
            if (at < 0) continue;
            const range = document.createRange();
            range.setStart(node, at); range.setEnd(node, at + word.length);
            return range.getBoundingClientRect().left;
        }
        return null;
    }"""
    # The first word stands to the right of the English one after it, in the title and in the notes.
    assert page.evaluate(where, ["h1", "مبل"]) > page.evaluate(where, ["h1", "IKEA"])
    assert page.evaluate(where, ["dd", "خرید"]) > page.evaluate(where, ["dd", "IKEA"])
    # An English name with the same words in it is left to right as before.
    page.goto(server + "/items/new")
    page.fill("#f-name", "IKEA مبل")
    page.click("button[type=submit]")
    expect(page.locator("h1")).to_have_text("IKEA مبل")
    assert page.evaluate(where, ["h1", "IKEA"]) < page.evaluate(where, ["h1", "مبل"])
