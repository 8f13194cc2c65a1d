"""Issue 18, reminders at phone width: the bell's count and the reminders list, Settings → Notifications, and the
calendar feed read by a real calendar parser (Python's icalendar). Screenshots go to test-artifacts/screenshots."""
import datetime
import re
import urllib.request

import icalendar
from conftest import screenshot, sign_in
from playwright.sync_api import expect

LONG_NAME = "Kühlschrank « Grand Cru » 冷蔵庫, with ice maker; stainless steel, 2 doors 🧊 and a very long model name"


def add_items(page, items) -> None:
    """Adds items through the JSON API from the signed-in page: (name, days until the warranty ends or None)."""
    today = datetime.date.today()
    body = [{"name": name, "warrantyExpiry": (today + datetime.timedelta(days=days)).isoformat() if days is not None else None}
            for name, days in items]
    page.evaluate("""async (items) => {
        const token = document.querySelector('meta[name="csrf-token"]').content;
        for (const item of items) {
            const response = await fetch("/api/v1/items", { method: "POST", credentials: "same-origin",
                headers: { "Content-Type": "application/json", "X-CSRF-Token": token }, body: JSON.stringify(item) });
            if (!response.ok) throw new Error(await response.text());
        }
    }""", body)


def test_reminders_bell_list_settings_and_calendar_feed(server, phone):
    page = phone
    sign_in(page, server)
    add_items(page, [("Television", 20), ("Kettle", 0), (LONG_NAME, 6), ("Fridge", 90), ("Sofa", None)])
    page.goto(server + "/")
    bell = page.locator("header.bar a.bell")
    expect(bell).to_have_attribute("aria-label", "Reminders: 4")  # three warranties and the nudge
    expect(bell.locator(".count")).to_have_text("4")
    bell.click()
    expect(page).to_have_url(server + "/reminders")
    expect(page.locator("h1")).to_have_text("Reminders")
    expect(page.locator(".nudge")).to_contain_text("5 items still need a photo")
    rows = page.locator("section.card .list li")
    expect(rows).to_have_count(3)
    expect(rows.nth(0)).to_contain_text("Kettle")
    expect(rows.nth(0)).to_contain_text("Warranty ends today")
    expect(rows.nth(1)).to_contain_text("Warranty ends in 6 days")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    screenshot(page, "18-reminders")
    page.click("text=Show them")
    expect(page).to_have_url(server + "/?filter=photo#browse")

    # Settings → Notifications: turn the nudge off; the count follows.
    page.goto(server + "/settings#notifications")
    section = page.locator("#notifications")
    section.locator("input[name=nudge]").uncheck()
    section.locator("button:has-text('Save')").first.click()
    expect(page.locator(".notice")).to_have_text("Notifications saved.")
    expect(page.locator("header.bar a.bell")).to_have_attribute("aria-label", "Reminders: 3")

    # The calendar address, made here and read by a calendar parser.
    page.click("text=Make a calendar address")
    address = page.locator("#f-calendar").input_value()
    assert address.startswith(server + "/calendar/") and address.endswith(".ics"), address
    with urllib.request.urlopen(address, timeout=10) as response:
        assert response.headers["Content-Type"] == "text/calendar; charset=utf-8"
        raw = response.read()
    assert all(len(line) <= 75 for line in raw.split(b"\r\n")), "a line longer than 75 octets"
    calendar = icalendar.Calendar.from_ical(raw)
    assert calendar["VERSION"] == "2.0" and str(calendar["PRODID"]).startswith("-//Nestory//")
    events = {str(e["SUMMARY"]): e for e in calendar.walk("VEVENT")}
    assert set(events) == {f"Warranty ends: {name}" for name in ["Television", "Kettle", LONG_NAME, "Fridge"]}
    long_event = events[f"Warranty ends: {LONG_NAME}"]
    assert long_event.decoded("DTSTART") == datetime.date.today() + datetime.timedelta(days=6)  # an all-day date
    assert long_event.decoded("DTEND") == datetime.date.today() + datetime.timedelta(days=7)
    assert str(long_event["UID"]).startswith("warranty-") and long_event.get("DTSTAMP") is not None
    alarms = long_event.walk("VALARM")
    assert [str(a["ACTION"]) for a in alarms] == ["DISPLAY"] * 3
    assert sorted(a.decoded("TRIGGER") for a in alarms) == [datetime.timedelta(days=-30), datetime.timedelta(days=-7),
                                                             datetime.timedelta(hours=9)]
    assert str(long_event["URL"]).startswith(server + "/items/")

    page.evaluate("document.documentElement.style.fontSize = '200%'")
    page.locator("#notifications").scroll_into_view_if_needed()
    assert page.evaluate("document.documentElement.scrollWidth") <= 375 + 1
    screenshot(page, "18-settings-notifications-200")
    page.evaluate("document.documentElement.style.fontSize = ''")

    # A new address: the old one stops working.
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#notifications button:has-text('New address')")
    expect(page.locator(".notice")).to_contain_text("the old one no longer works")
    assert page.locator("#f-calendar").input_value() != address
    try:
        urllib.request.urlopen(address, timeout=10)
        raise AssertionError("the old calendar address still answers")
    except urllib.error.HTTPError as error:
        assert error.code == 404

    # The owner's webhook: an address inside the network is refused, with what was typed kept.
    page.fill("#f-webhook-url", "http://127.0.0.1:9/hook")
    page.click("text=Save webhook")
    expect(page.locator("#f-webhook-url-error")).to_contain_text("inside this server")
    expect(page.locator("#f-webhook-url")).to_have_value("http://127.0.0.1:9/hook")
    page.locator("#notifications").screenshot(path=str(__import__("conftest").SCREENSHOTS / "18-settings-notifications.png"))


def test_storage_summary_and_about_at_phone_width(server, phone):
    page = phone
    sign_in(page, server)
    page.goto(server + "/settings")
    expect(page.locator("#data").locator("text=/used, \\d+ photos?/")).to_be_visible()
    expect(page.locator("nav.settings-index a[href='#data']")).to_contain_text(re.compile(r"used, \d+ photos?"))
    about = page.locator("#about")
    expect(about).to_contain_text("Nothing leaves the server unless the household turned it on.")
    about.locator("summary").click()
    expect(about).to_contain_text("GRDB.swift")
    about.screenshot(path=str(__import__("conftest").SCREENSHOTS / "18-settings-about.png"))
    page.goto(server + "/settings/data")
    storage = page.locator("#storage")
    expect(storage.locator("dl")).to_have_attribute("aria-label", "What this household keeps on the server")
    expect(storage.locator("dd").nth(1)).to_have_text("0 photos · 0 KB")
    page.evaluate("document.documentElement.style.fontSize = '200%'")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375 + 1
    storage.screenshot(path=str(__import__("conftest").SCREENSHOTS / "18-storage-200.png"))


def test_a_tip_closes_at_once_and_stays_closed(server, phone):
    page = phone
    sign_in(page, server)
    page.goto(server + "/reports")
    tip = page.locator("[data-tip=reports]")
    expect(tip).to_contain_text("Most insurers accept a PDF inventory with photos and values.")
    tip.screenshot(path=str(__import__("conftest").SCREENSHOTS / "18-tip-reports.png"))
    tip.locator("button:has-text('Got it')").click()
    expect(page.locator("[data-tip=reports]")).to_have_count(0)
    expect(page).to_have_url(server + "/reports")  # no page load
    page.wait_for_timeout(300)
    page.reload()
    expect(page.locator("h2:has-text('Full Inventory Report')")).to_be_visible()
    expect(page.locator("[data-tip=reports]")).to_have_count(0)
    page.goto(server + "/capture/photo")
    expect(page.locator("[data-tip=first-capture]")).to_contain_text("Start by taking photos of your most valuable items")
