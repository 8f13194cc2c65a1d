"""Settings → Your data in a real browser: import a spreadsheet, export a backup, restore it."""
import re
import zipfile

from conftest import screenshot, sign_in
from playwright.sync_api import expect

def test_import_spreadsheet_export_and_restore(server, phone, tmp_path):
    page = phone
    sign_in(page, server)
    page.goto(server + "/settings")
    page.click("text=Export or import data")
    expect(page.locator("h1")).to_have_text("Your data")
    screenshot(page, "20-your-data")

    # A spreadsheet with a bad row: every problem is listed with its line, nothing is imported.
    bad = tmp_path / "bad.csv"
    bad.write_text("Name;Price;Purchased\nGood lamp;12,50;2024-01-02\nBroken;abc;2024-02-30\n", encoding="utf-8")
    with page.expect_navigation():
        page.set_input_files("#upload-csv", str(bad))
    expect(page).to_have_url(re.compile(r"/settings/data/csv/"))
    page.click("button:has-text('Import')")
    alert = page.locator(".alert")
    expect(alert).to_contain_text("nothing was imported")
    expect(alert).to_contain_text("Line 3 (Price)")
    expect(alert).to_contain_text("Line 3 (Purchased)")
    screenshot(page, "21-csv-errors")

    # A good one, with a column the guess cannot place: mapped by hand in the preview.
    good = tmp_path / "home.csv"
    good.write_text('\ufeffTitle,Cost,Stored in,Notes\n"Sofa ""Bella""","1,299.00",Sunroom,"grey,\nthree seats"\n'
                    "Espresso machine,349.99,Kitchen,\n", encoding="utf-8")
    page.goto(server + "/settings/data")
    with page.expect_navigation():
        page.set_input_files("#upload-csv", str(good))
    expect(page.locator("table.preview")).to_contain_text("Espresso machine")
    page.select_option("#map-name", label="Title")
    page.select_option("#map-room", label="Stored in")
    screenshot(page, "22-csv-mapping")
    page.click("button:has-text('Import 2 items')")
    expect(page.locator(".notice")).to_contain_text("Imported 2 items")
    expect(page.get_by_text("New rooms: Sunroom")).to_be_visible()
    page.click("text=Go to the inventory")
    expect(page.get_by_text('Sofa "Bella"')).to_be_visible()

    # Export: a backup is written in the background, then offered for download.
    page.goto(server + "/settings/data")
    page.click("button:has-text('Create backup')")
    download_link = page.locator("a:has-text('Download')").first
    expect(download_link).to_be_visible(timeout=30000)
    screenshot(page, "23-backup-ready")
    with page.expect_download() as info:
        download_link.click()
    archive = tmp_path / "backup.zip"
    info.value.save_as(archive)
    with zipfile.ZipFile(archive) as z:
        names = z.namelist()
        assert "manifest.json" in names and "data/items.jsonl" in names
        assert z.testzip() is None
        items = z.read("data/items.jsonl").decode()
        assert "Espresso machine" in items

    # A file that is not a backup is refused where it was chosen, and nothing changes.
    fake = tmp_path / "fake.zip"
    fake.write_bytes(b"PK\x03\x04 not really a zip")
    page.set_input_files("#upload-archive", str(fake))
    status = page.locator(".transfer-status").first
    expect(status).to_contain_text("not a readable ZIP")
    screenshot(page, "24-restore-refused")

    # Add an item after the backup, then restore the backup with Replace: the item goes away.
    page.goto(server + "/items/new")
    page.fill("#f-name", "Added after the backup")
    page.click("button[type=submit]")
    expect(page.locator("h1")).to_have_text("Added after the backup")
    page.goto(server + "/settings/data")
    with page.expect_navigation():
        page.set_input_files("#upload-archive", str(archive))
    expect(page.locator(".notice")).to_contain_text("The archive is sound")
    # As a person does: a tap on the choice (its label). Checking the small radio itself was flaky in CI, where
    # the fixed tab bar or the label was reported on top of it.
    page.locator("label.choice", has=page.locator("input[value=replace]")).click()
    expect(page.locator("input[value=replace]")).to_be_checked()
    screenshot(page, "25-restore-confirm")
    page.click("button:has-text('Restore')")
    expect(page.locator("h1")).to_have_text("Backup restored")
    expect(page.locator("table.summary-table")).to_contain_text("Items")
    screenshot(page, "26-restored")
    page.goto(server + "/?q=Added+after")
    expect(page.get_by_text("Added after the backup")).to_have_count(0)
    page.goto(server + "/?q=Espresso")
    expect(page.get_by_text("Espresso machine")).to_be_visible()
