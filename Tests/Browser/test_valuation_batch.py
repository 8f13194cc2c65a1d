"""Issue 17 at phone width, end to end with providers that speak the real wire formats on 127.0.0.1 (nothing reaches the
internet): the owner sets photo analysis (an OpenAI-compatible chat-completions endpoint) and market search (Tavily's
POST /search) in Settings; a batch of 5 items with photos runs with one item refused by the model; the failed one is
retried; a proposal is recalculated with an edited name and saved; the item's page then shows the market value with
its sources. Screenshots go to test-artifacts/screenshots."""
import base64
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from conftest import free_port, phone_page, png, screenshot, sign_in, start_server
from playwright.sync_api import expect

ANALYSIS_KEY = "sk-browser-test-1234"
SEARCH_KEY = "tvly-browser-test-5678"


class FakeProviders(BaseHTTPRequestHandler):
    refusals_left = {"Mystery box": 1}
    searches = []

    def log_message(self, *args):
        pass

    def answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path == "/v1/chat/completions":
            if self.headers.get("Authorization") != f"Bearer {ANALYSIS_KEY}":
                return self.answer(401, {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error", "code": "invalid_api_key"}})
            parts = body["messages"][1]["content"]
            assert body["response_format"]["type"] == "json_schema" and body["response_format"]["json_schema"]["strict"] is True
            assert any(p.get("type") == "image_url" and p["image_url"]["url"].startswith("data:image/jpeg;base64,") for p in parts)
            text = " ".join(p.get("text", "") for p in parts)
            name = text.split(": ")[-1].strip() if ": " in text else "Thing"
            if self.refusals_left.get(name, 0) > 0:
                self.refusals_left[name] -= 1
                return self.answer(200, {"id": "c1", "object": "chat.completion", "choices": [
                    {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": None, "refusal": "I can't identify this item."}}]})
            content = {"brand": "Acme", "product_name": name, "model": "X-100", "barcode": None, "condition": "good",
                       "sizes": None, "category": None, "description": "A test item."}
            return self.answer(200, {"id": "c2", "object": "chat.completion", "choices": [
                {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": json.dumps(content)}}]})
        if self.path == "/search":
            if self.headers.get("Authorization") != f"Bearer {SEARCH_KEY}":
                return self.answer(401, {"detail": {"error": "Unauthorized: missing or invalid API key."}})
            query = body["query"]
            self.searches.append(query)
            used = " used " in f" {query} "
            prices = ["$40.00", "$45.00", "$50.00", "$55.00"] if used else ["$90.00", "$95.00", "$100.00"]
            results = [{"title": f"{query} listing {i}", "url": f"https://shop.example/{'used' if used else 'new'}/{i}",
                        "content": f"{'Used, good condition' if used else 'Brand new, sealed'}. Price {price}. Free returns.", "score": 0.9}
                       for i, price in enumerate(prices)]
            return self.answer(200, {"query": query, "results": results, "response_time": 0.05})
        self.answer(404, {"error": "not found"})


def add_item_with_photo(page, name) -> str:
    return page.evaluate("""async ([name, photo]) => {
        const token = document.querySelector('meta[name="csrf-token"]').content;
        const made = await fetch("/api/v1/items", { method: "POST", credentials: "same-origin",
            headers: { "Content-Type": "application/json", "X-CSRF-Token": token }, body: JSON.stringify({ name, price: "60" }) });
        if (!made.ok) throw new Error(await made.text());
        const id = (await made.json()).id;
        const bytes = Uint8Array.from(atob(photo), (c) => c.charCodeAt(0));
        const added = await fetch(`/api/v1/items/${id}/photos`, { method: "POST", credentials: "same-origin",
            headers: { "Content-Type": "image/png", "X-CSRF-Token": token }, body: bytes });
        if (!added.ok) throw new Error(await added.text());
        return id;
    }""", [name, base64.b64encode(png(64, 48)).decode()])


def wait_until_done(page):
    expect(page.locator(".job-status")).to_contain_text("Done:", timeout=30000)


def test_batch_with_providers_retry_review_and_save(browser, tmp_path):
    fake_port = free_port()
    fake = ThreadingHTTPServer(("127.0.0.1", fake_port), FakeProviders)
    threading.Thread(target=fake.serve_forever, daemon=True).start()
    # The fake analysis endpoint is on this machine: the operator allows a household's own endpoint there.
    process, base = start_server("--set", f"valuation.searchURL=http://127.0.0.1:{fake_port}", "--set", "valuation.requestsPerMinute=0",
                                 "--set", "valuation.allowPrivateEndpoints=true")
    try:
        context, page = phone_page(browser)
        sign_in(page, base)
        names = ["Kettle", "Toaster", "Mystery box", "Desk lamp", "Blender"]
        ids = {name: add_item_with_photo(page, name) for name in names}

        # Settings → Valuation: the local endpoints, keys shown only by their last four characters.
        page.goto(base + "/settings#valuation")
        section = page.locator("#valuation")
        section.locator("#f-analysisBaseURL").fill(f"http://127.0.0.1:{fake_port}/v1")
        section.locator("#f-analysisModel").fill("fake-vision")
        section.locator("#f-analysisKey").fill(ANALYSIS_KEY)
        section.locator("#f-searchKey").fill(SEARCH_KEY)
        section.locator("button:has-text('Save')").click()
        expect(page.locator(".notice")).to_contain_text("Valuation providers saved.")
        assert ANALYSIS_KEY not in page.content() and SEARCH_KEY not in page.content()
        expect(page.locator("#f-analysisKey")).to_have_attribute("placeholder", "Set, ending in …1234")
        screenshot(page, "17-settings-valuation")

        # A batch of the five items without a value: four proposals, one refused by the model.
        page.goto(base + "/valuations")
        page.click("text=Value the items without a value")
        expect(page.locator("main")).to_contain_text("5 items without a value yet")
        page.click("button:has-text('Value 5 items')")
        wait_until_done(page)
        expect(page.locator(".job-status")).to_contain_text("Done: 4 to review, 1 failed.")
        failed = page.locator(f"#item-{ids['Mystery box']}")
        expect(failed).to_contain_text("declined")
        expect(page.locator(".batch-item form")).to_have_count(4)
        kettle = page.locator(f"#item-{ids['Kettle']}")
        expect(kettle).to_contain_text("Market search")
        expect(kettle.locator(f"#f-acv-{ids['Kettle']}")).to_have_value("47.50")  # the median of 40, 45, 50, 55
        expect(kettle.locator(f"#f-rcv-{ids['Kettle']}")).to_have_value("95.00")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        screenshot(page, "17-batch-review")

        first_batch = page.url.split("#")[0].split("?")[0]
        # Retry the failed one: the model answers this time.
        page.click("button:has-text('Retry the 1 failed')")
        expect(page.locator(".notice")).to_contain_text("Trying the failed items again.")
        wait_until_done(page)
        mystery = page.locator(f"#item-{ids['Mystery box']}")
        expect(mystery.locator("form")).to_have_count(1)

        # Review: a new name, recalculated (searched again with it), then saved.
        mystery.locator(f"#f-product-{ids['Mystery box']}").fill("Vintage tin box")
        mystery.locator("button:has-text('Recalculate')").click()
        expect(page.locator(".notice")).to_contain_text("Recalculated with the fields as edited.")
        assert any("Vintage tin box" in query for query in FakeProviders.searches)
        page.locator(f"#item-{ids['Mystery box']} button:has-text('Save')").click()
        expect(page.locator(".notice")).to_contain_text("Saved to the item’s values.")
        expect(page.locator(f"#item-{ids['Mystery box']}")).to_contain_text("Saved")

        # Back on the first batch, the other four kept as proposed at once: each saved with the proposal's own figures.
        page.goto(first_batch)
        page.click("button:has-text('Save all 4 as proposed')")
        expect(page.locator(".notice")).to_contain_text("Saved 4 values to the items’ histories.")
        expect(page.locator(".job-status")).to_have_text("Done: 0 to review, 4 saved, 1 failed.")
        # The failed one was tried again elsewhere: this page says where, and offers no second retry of it.
        expect(page.locator(f"#item-{ids['Mystery box']}")).to_contain_text("Tried again in another batch")
        expect(page.locator("button:has-text('Retry the')")).to_have_count(0)
        expect(page.locator(".batch-item form")).to_have_count(0)
        expect(page.locator(f"#item-{ids['Kettle']}")).to_contain_text("Saved")
        screenshot(page, "17-batch-saved-all")

        page.goto(f"{base}/items/{ids['Mystery box']}")
        value = page.locator("#value")
        expect(value).to_contain_text("Market search")
        expect(value).to_contain_text("$47.50")
        expect(page.locator(".brand")).to_contain_text("Acme")
        screenshot(page, "17-item-market-value")

        # From photos alone: two photos of things not yet in the inventory; nothing is made until a proposal is saved.
        photo_files = []
        for index, colour in enumerate([(30, 120, 200), (200, 200, 40)]):
            path = tmp_path / f"new-{index}.png"
            path.write_bytes(png(80, 60, colour))
            photo_files.append(str(path))
        page.goto(base + "/valuations")
        page.click("text=Value new things from photos")
        page.set_input_files("#f-intake", photo_files)
        expect(page.locator("[data-intake-list] li")).to_have_count(2)
        page.click("button:has-text('Value these 2 photos')")
        wait_until_done(page)
        cards = page.locator(".batch-item form")
        expect(cards).to_have_count(2)
        before = page.evaluate("""async () => (await (await fetch("/api/v1/summary")).json()).itemCount""")
        first = page.locator(".batch-item").first
        first.locator("input[name=productName]").fill("Blue enamel jug")
        first.locator("button:has-text('Add to inventory')").click()
        expect(page.locator(".notice")).to_contain_text("“Blue enamel jug” added to your inventory.")
        assert page.evaluate("""async () => (await (await fetch("/api/v1/summary")).json()).itemCount""") == before + 1
        screenshot(page, "17-photos-alone")
        batch_url = page.url.split("#")[0].split("?")[0]
        dark, dark_page = phone_page(browser, scheme="dark")
        sign_in(dark_page, base)
        dark_page.goto(batch_url)
        expect(dark_page.locator(".batch-item")).to_have_count(2)
        expect(dark_page.locator(".job-status")).to_have_text("Done: 1 to review, 1 saved.")
        screenshot(dark_page, "17-photos-alone-dark")
        dark.close()
        page.locator(".batch-item a:has-text('Open it')").click()
        expect(page.locator("h1")).to_have_text("Blue enamel jug")
        expect(page.locator(".carousel .slide")).to_have_count(1)
        expect(page.locator("#value")).to_contain_text("Market search")
        context.close()
    finally:
        process.terminate()
        process.wait(timeout=10)
        fake.shutdown()
