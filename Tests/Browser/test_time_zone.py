"""Times on pages (a session's sign-in, a token made, a report generated) are on the reader's clock, not the server's."""
import re
from datetime import datetime
from zoneinfo import ZoneInfo

from playwright.sync_api import expect

from conftest import phone_page, screenshot, sign_in


def test_the_household_is_set_up_on_the_browsers_clock_and_the_owner_can_move_it(server, browser):
    # The first test of the file meets the first-run setup: from a browser in Kolkata, the household is in Kolkata (Chromium
    # names it Asia/Calcutta, the older name of the same zone).
    context, page = phone_page(browser, timezone_id="Asia/Kolkata")
    sign_in(page, server)
    page.goto(server + "/settings")
    zone = page.locator("#f-household-timezone")
    assert zone.input_value() in ("Asia/Calcutta", "Asia/Kolkata"), zone.input_value()
    expect(page.locator("#f-household-timezone-hint")).not_to_contain_text("This browser is in")
    # Its days are Kolkata's: the date pickers end on today there.
    today_there = datetime.now(ZoneInfo("Asia/Kolkata")).date().isoformat()
    page.goto(server + "/items/quick")
    assert page.locator("#f-purchaseDate").get_attribute("max") == today_there

    # The owner moves the household to New York; the page says where this browser is, and the days follow New York.
    page.goto(server + "/settings")
    page.locator("#f-household-timezone").select_option("America/New_York")
    with page.expect_navigation():
        page.locator("form[action^='/settings/household'] button[type=submit]").click()
    expect(page.locator("#f-household-timezone")).to_have_value("America/New_York")
    expect(page.locator("#f-household-timezone-hint")).to_contain_text("This browser is in Asia/")
    page.locator("#f-household-timezone").scroll_into_view_if_needed()
    screenshot(page, "time-zone-settings")
    page.goto(server + "/items/quick")
    assert page.locator("#f-purchaseDate").get_attribute("max") == datetime.now(ZoneInfo("America/New_York")).date().isoformat()
    context.close()


def test_times_are_shown_in_the_browsers_time_zone(server, browser):
    # Kolkata is 5 h 30 min from UTC (the test server's clock), so the hour and the minutes both differ from the server's.
    for zone in ["Asia/Kolkata", "America/New_York"]:
        context, page = phone_page(browser, timezone_id=zone)
        sign_in(page, server)
        page.goto(server + "/settings")
        text = page.locator("main").inner_text()
        found = re.search(r"Signed in (\w{3} \d{1,2}, \d{4}) at (\d{1,2}):(\d{2})\s?([AP]M)", text)
        assert found, text[:2000]
        local = datetime.now(ZoneInfo(zone))
        hour = int(found.group(2)) % 12 + (12 if found.group(4) == "PM" else 0)
        shown = hour * 60 + int(found.group(3))
        now = local.hour * 60 + local.minute
        assert min(abs(shown - now), 1440 - abs(shown - now)) <= 2, (zone, found.group(0), local.isoformat())
        context.close()
