"""Issue 17 at phone width: an item's Value card (the offline estimate with its formula, a value entered by hand,
the item's earlier values) and the household's valuation history by day. Screenshots go to
test-artifacts/screenshots."""
from conftest import phone_page, screenshot, sign_in
from playwright.sync_api import expect


def add_item(page, body) -> str:
    return page.evaluate("""async (body) => {
        const token = document.querySelector('meta[name="csrf-token"]').content;
        const response = await fetch("/api/v1/items", { method: "POST", credentials: "same-origin",
            headers: { "Content-Type": "application/json", "X-CSRF-Token": token }, body: JSON.stringify(body) });
        if (!response.ok) throw new Error(await response.text());
        return (await response.json()).id;
    }""", body)


def test_value_card_estimate_enter_and_history(server, browser):
    for scheme in ["light", "dark"]:
        context, page = phone_page(browser, scheme=scheme)
        sign_in(page, server)
        categories = page.evaluate("""async () => (await (await fetch("/api/v1/categories")).json()).items""")
        electronics = next(c["id"] for c in categories if c["name"] == "Electronics")
        item = add_item(page, {"name": f"Television ({scheme})", "price": "1200", "purchaseDate": "2021-06-01",
                               "categoryID": electronics, "condition": "good"})
        page.goto(f"{server}/items/{item}")
        card = page.locator("#value")
        expect(card).to_contain_text("No value yet")
        card.get_by_role("button", name="Estimate offline").click()
        expect(page.locator(".notice")).to_contain_text("Estimated offline. Actual cash value:")
        expect(card.locator(".formula")).to_contain_text("1,200")
        expect(card).to_contain_text("Offline estimate (depreciation)")
        card.scroll_into_view_if_needed()
        screenshot(page, f"17-offline-estimate-{scheme}")

        # A value entered by hand: a mistake is shown beside what was typed, then it is kept and leads.
        card.locator("summary:has-text('Enter a value')").click()
        card.locator("#f-replacementCost").fill("14OO")
        card.locator("#f-note").fill("Quote from the shop")
        card.get_by_role("button", name="Save value").click()
        expect(page.locator("#value .field.invalid")).to_have_count(1)
        expect(page.locator("#f-note")).to_have_value("Quote from the shop")
        page.locator("#f-replacementCost").fill("1,400")
        page.locator("#f-actualCashValue").fill("700")
        page.get_by_role("button", name="Save value").click()
        expect(page.locator(".notice")).to_contain_text("Value saved. The purchase price is unchanged.")
        expect(page.locator("#value")).to_contain_text("$1,400.00")
        expect(page.locator("#value")).to_contain_text("Earlier values (1)")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        page.locator("#value").scroll_into_view_if_needed()
        screenshot(page, f"17-value-card-{scheme}")

        page.locator("#value a:has-text('Valuation history')").click()
        expect(page.locator("h1")).to_have_text("Valuation history")
        expect(page.locator("main .list li").first).to_contain_text("value")
        screenshot(page, f"17-valuation-history-{scheme}")

        # The depreciation table the estimate uses, readable at phone width and at large text.
        page.goto(server + "/settings/valuation/depreciation")
        expect(page.locator("h1")).to_have_text("Depreciation table")
        expect(page.locator("main")).to_contain_text("Nestory’s own factors")
        page.evaluate("document.documentElement.style.fontSize = '200%'")
        assert page.evaluate("document.documentElement.scrollWidth") <= 391
        page.evaluate("document.documentElement.style.fontSize = ''")
        screenshot(page, f"17-depreciation-{scheme}")
        context.close()
