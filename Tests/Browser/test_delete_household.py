"""Settings → Your data → Delete this household, in a real browser: refused without the household's name, then done."""
from playwright.sync_api import expect

from conftest import PASSWORD, phone_page, screenshot, sign_in


def test_the_owner_deletes_the_household_and_is_told_what_went(server, browser):
    context, page = phone_page(browser)
    sign_in(page, server)  # a fresh server: this sets up The Smiths
    page.goto(server + "/items/quick")
    page.fill("#f-name", "Grandfather clock")
    with page.expect_navigation():
        page.locator("form button[type=submit]").first.click()

    page.goto(server + "/settings/data")
    expect(page.locator("#delete")).to_contain_text("Deletes The Smiths and everything in it")
    # The name mistyped: refused, with the message beside the field, and nothing deleted.
    delete(page, "The Smith")
    expect(page.locator("#delete")).to_contain_text("Type the household’s name, “The Smiths”, to delete it.")
    expect(page.locator("#f-delete-name")).to_have_value("The Smith")
    page.locator("#delete").scroll_into_view_if_needed()
    page.locator("#delete").screenshot(path=screenshot_path("delete-household-refused"))
    page.goto(server + "/")
    expect(page.get_by_text("Grandfather clock")).to_be_visible()

    page.goto(server + "/settings/data")
    # The service worker keeps the pages opened, to show them offline.
    page.wait_for_function("navigator.serviceWorker.controller !== null")
    page.goto(server + "/")
    wait_until(page, "async () => await caches.has('nestory-pages')")
    page.goto(server + "/settings/data")
    delete(page, "The Smiths")
    expect(page.locator("h2")).to_have_text("The Smiths was deleted")
    expect(page.locator("main")).to_contain_text("You are signed out.")
    screenshot(page, "delete-household-done")
    # This device forgets them with the household (Clear-Site-Data), and the offline queue with them (the app's shell,
    # which holds nothing of the household, is kept again as the page registers the worker anew).
    wait_until(page, "async () => !(await caches.has('nestory-pages'))")
    # No account is left on this server: signing in leads to setting Nestory up again.
    with page.expect_navigation():
        page.click("text=Sign in")
    expect(page).to_have_url(server + "/setup")
    context.close()

    dark_context, dark = phone_page(browser, scheme="dark")
    sign_in(dark, server)  # sets up a new household on the empty server
    dark.goto(server + "/settings/data")
    dark.locator("#delete").scroll_into_view_if_needed()
    dark.locator("#delete").screenshot(path=screenshot_path("delete-household-dark"))
    dark_context.close()


def delete(page, typed_name: str) -> None:
    """Fills in the delete form with a name and the owner's password, and sends it."""
    page.fill("#f-delete-name", typed_name)
    page.fill("#f-delete-password", PASSWORD)
    with page.expect_navigation():
        page.locator("#delete button.danger").click()


def screenshot_path(name: str) -> str:
    from conftest import SCREENSHOTS
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return str(SCREENSHOTS / f"{name}.png")


def wait_until(page, script: str, seconds: float = 10) -> None:
    """Evaluates an async check (a promise's value, which wait_for_function does not wait for) until it is true."""
    for _ in range(int(seconds * 10)):
        if page.evaluate(script):
            return
        page.wait_for_timeout(100)
    raise AssertionError(f"never true: {script}: caches {page.evaluate('async () => await caches.keys()')}")
