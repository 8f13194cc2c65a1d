"""Times on pages (a session's sign-in, a token made, a report generated) are on the reader's clock, not the server's."""
import re
from datetime import datetime
from zoneinfo import ZoneInfo

from conftest import phone_page, sign_in


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
