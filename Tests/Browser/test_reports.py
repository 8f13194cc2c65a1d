"""The Reports tab in a real browser: the inventory PDF with options and progress, the loss-list flow,
the export history and the CSV export. PDFs are checked with pdftotext."""
import csv
import io
import re
import subprocess

from conftest import screenshot
from playwright.sync_api import expect

EMAIL = "ann@example.com"
PASSWORD = "correct horse battery staple"


def signed_in(page, base):
    page.goto(base + "/")
    if page.url.endswith("/setup"):
        page.fill("#f-household", "The Smiths")
        page.select_option("#f-currency", "USD")
        page.fill("#f-name", "Ann")
        page.fill("#f-email", EMAIL)
        page.fill("#f-password", PASSWORD)
        page.fill("#f-confirm", PASSWORD)
        page.click("button[type=submit]")
    elif "/signin" in page.url:
        page.fill("#f-email", EMAIL)
        page.fill("#f-password", PASSWORD)
        page.click("button[type=submit]")
    expect(page).to_have_url(base + "/")


def add_item(page, base, **fields):
    token = page.locator('meta[name="csrf-token"]').get_attribute("content")
    response = page.request.post(base + "/api/v1/items", data=fields, headers={"X-CSRF-Token": token})
    assert response.ok, response.text()
    return response.json()["id"]


def pdf_text(path) -> str:
    return subprocess.run(["pdftotext", "-layout", str(path), "-"], check=True, capture_output=True, text=True).stdout


def test_inventory_report_loss_list_history_and_csv(pro_server, phone, tmp_path):
    server = pro_server
    page = phone
    signed_in(page, server)
    add_item(page, server, name="Café Sofa €", price="1234.56", brand="Möbel")
    add_item(page, server, name="日本の花瓶", price="80.10")
    zebra = add_item(page, server, name="Zebra Lamp", price="19.99", serialNumber="ZL-0001", quantity=2)

    # Reports tab → Full Inventory Report → options sheet → progress → download.
    page.click("nav.tabs >> text=Reports")
    expect(page).to_have_url(server + "/reports")
    expect(page.get_by_text("Create inventory summaries and loss lists for insurance.")).to_be_visible()
    screenshot(page, "20-reports")
    page.click("a.button:has-text('Generate')")
    page.check("input[name=group][value=category]")
    page.uncheck("input[name=photos]")
    screenshot(page, "21-inventory-options")
    page.click("button:has-text('Generate PDF')")
    expect(page.get_by_text("Your report is ready.")).to_be_visible(timeout=30_000)
    with page.expect_download() as info:
        page.click("text=Download PDF")
    pdf = tmp_path / "inventory.pdf"
    info.value.save_as(pdf)
    assert info.value.suggested_filename.startswith("nestory-inventory-")
    text = pdf_text(pdf)
    for name in ["Café Sofa €", "日本の花瓶", "Zebra Lamp", "Möbel"]:
        assert name in text
    assert "Grouped by category" in text

    # "Add to loss list" on an item pre-selects it; search adds another; confirm shows count and total.
    page.goto(f"{server}/items/{zebra}")
    page.click("text=Add to loss list")
    expect(page.locator(f"input[name=item][value='{zebra}']")).to_be_checked()
    page.fill("#q", "Sofa")
    page.click("button:has-text('Search')")
    page.check("label.pick:has-text('Café Sofa') input")
    expect(page.locator("[data-selected-count]")).to_have_text("2")
    screenshot(page, "22-loss-select")
    page.click("button:has-text('Continue')")
    expect(page.locator("[data-loss-count]")).to_have_text("2")
    expect(page.locator("[data-loss-total]")).to_have_text("$1,274.54")
    page.fill("#f-incidentDate", "2026-01-15")
    page.select_option("#f-type", "theft")
    page.fill("#f-description", "Break-in while we were away.")
    page.fill("#f-policyNumber", "HO-778899")
    screenshot(page, "23-loss-confirm")
    page.click("button:has-text('Generate PDF')")
    expect(page.get_by_text("Your report is ready.")).to_be_visible(timeout=30_000)
    with page.expect_download() as info:
        page.click("text=Download PDF")
    loss = tmp_path / "loss.pdf"
    info.value.save_as(loss)
    text = pdf_text(loss)
    assert "Theft" in text and "HO-778899" in text and "2026-01-15" in text
    assert "Zebra Lamp" in text and "Café Sofa €" in text and "日本の花瓶" not in text
    assert "$1,274.54" in text

    # The history lists both; delete one.
    page.goto(server + "/reports")
    expect(page.locator(".history .report")).to_have_count(2)
    expect(page.locator(".history")).to_contain_text("Loss List")
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator(".history .report").first.locator("button:has-text('Delete')").click()
    expect(page.get_by_text("Report deleted.")).to_be_visible()
    expect(page.locator(".history .report")).to_have_count(1)

    # CSV export opens in a CSV parser with exact amounts and the Unicode intact.
    with page.expect_download() as info:
        page.click("text=Download CSV")
    raw = (tmp_path / "inventory.csv")
    info.value.save_as(raw)
    rows = list(csv.DictReader(io.StringIO(raw.read_bytes().decode("utf-8-sig"))))
    by_name = {row["name"]: row for row in rows}
    assert by_name["Café Sofa €"]["unit_price"] == "1234.56"
    assert by_name["Zebra Lamp"]["total_value"] == "39.98"
    assert "日本の花瓶" in by_name
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", by_name["Zebra Lamp"]["created_at"])
