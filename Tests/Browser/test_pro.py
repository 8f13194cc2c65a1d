"""Issue 18, Free and Pro at phone width: the item limit's prompt keeps what was typed, Settings → Account & Pro
shows the plan and the paywall copy, a licence key issued by the vendor's tool (nestory-licence) is installed by
the owner, and the same form then saves. Screenshots go to test-artifacts/screenshots."""
import subprocess
from pathlib import Path

from conftest import BINARY, phone_page, scratch, screenshot, sign_in, start_server
from playwright.sync_api import expect

TOOL = BINARY.parent / "nestory-licence"


def tool(*arguments) -> str:
    return subprocess.run([str(TOOL), *arguments], check=True, capture_output=True, text=True).stdout.strip()


def add_items(page, count: int) -> None:
    page.evaluate("""async (count) => {
        const token = document.querySelector('meta[name="csrf-token"]').content;
        for (let i = 0; i < count; i++) {
            const response = await fetch("/api/v1/items", { method: "POST", credentials: "same-origin",
                headers: { "Content-Type": "application/json", "X-CSRF-Token": token }, body: JSON.stringify({ name: "Box " + i }) });
            if (!response.ok) throw new Error(await response.text());
        }
    }""", count)


def test_free_limit_then_licence(browser):
    folder = Path(scratch("licence-"))
    signing = folder / "vendor.key"
    public = tool("keygen", "--id", "browser-1", "--out", str(signing))
    process, base = start_server("--set", f"licence.publicKeys={public}")
    try:
        context, page = phone_page(browser)
        sign_in(page, base)
        add_items(page, 100)

        # The 101st item: the form comes back with the limit and everything typed.
        page.goto(base + "/items/new")
        page.fill("#f-name", "Grandfather clock")
        page.fill("#f-brand", "Howard Miller")
        page.click("button:has-text('Add item')")
        expect(page.locator(".alert[role=alert]").first).to_contain_text("Nestory Free keeps up to 100 items")
        expect(page.locator("#f-name")).to_have_value("Grandfather clock")
        expect(page.locator("#f-brand")).to_have_value("Howard Miller")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        screenshot(page, "18-pro-limit")

        # Settings → Account & Pro on Free.
        page.goto(base + "/settings#pro")
        pro = page.locator("#pro")
        expect(pro).to_contain_text("Nestory Free")
        expect(pro).to_contain_text("100 of 100 items")
        expect(pro).to_contain_text("It’s a one-time licence — no subscription, no ads.")
        household = pro.locator("#f-licence-hint code").inner_text()
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        screenshot(page, "18-pro-free")

        # A key for another household is refused with the reason, and stays in the box.
        other = tool("issue", "--key", str(signing), "--licensee", "Someone else", "--household", "00000000-0000-4000-8000-000000000000")
        page.fill("#f-licence", other)
        pro.locator("button:has-text('Install licence')").click()
        expect(page.locator("#f-licence-error")).to_contain_text("another household")
        expect(page.locator("#f-licence")).to_have_value(other)

        key = tool("issue", "--key", str(signing), "--licensee", "The Smiths", "--household", household, "--expires", "2099-12-31")
        page.fill("#f-licence", key)
        page.locator("#pro button:has-text('Install licence')").click()
        expect(page.locator(".notice")).to_contain_text("Nestory Pro is active, licensed to The Smiths.")
        expect(page.locator("#pro")).to_contain_text("Active")
        expect(page.locator("#pro")).to_contain_text("The Smiths")
        screenshot(page, "18-pro-active")
        context.close()

        # Dark, and the item saves now.
        context, page = phone_page(browser, scheme="dark")
        sign_in(page, base)
        page.goto(base + "/settings#pro")
        screenshot(page, "18-pro-active-dark")
        page.goto(base + "/items/new")
        page.fill("#f-name", "Grandfather clock")
        page.click("button:has-text('Add item')")
        expect(page.locator(".notice")).to_contain_text("Item added.")
        context.close()
    finally:
        process.terminate()
        process.wait(timeout=10)
