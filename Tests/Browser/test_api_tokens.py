"""Settings → API tokens (issue 20): a token made in the browser is shown once, works as a bearer token for the API, and
stops at once when revoked. The section is checked on a phone, light and dark; screenshots go to test-artifacts/screenshots."""
import json
import urllib.error
import urllib.request

from playwright.sync_api import expect

from conftest import SCREENSHOTS, phone_page, sign_in


def api_status(base, token, path="/api/v1/summary"):
    request = urllib.request.Request(base + path, headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def test_a_token_made_in_settings_works_until_revoked(server, browser):
    for scheme in ("light", "dark"):
        context, page = phone_page(browser, scheme=scheme)
        sign_in(page, server)
        page.goto(server + "/settings#tokens")
        section = page.locator("#tokens")
        expect(section.get_by_role("heading", name="API tokens")).to_be_visible()
        # A name is asked for: the form comes back with the message and what was chosen.
        section.get_by_role("button", name="Make a token").click()
        expect(page.locator("#tokens")).to_contain_text("Give the token a name")
        page.locator("#f-token-name").fill(f"Home Assistant {scheme}")
        page.locator("#tokens").get_by_label("Read only").check()
        page.locator("#tokens").get_by_role("button", name="Make a token").click()
        shown = page.locator("[data-token]")
        expect(shown).to_be_visible()
        token = shown.inner_text().strip()
        assert token.startswith("nst_")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, "the section is wider than the phone"
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.locator("#tokens").screenshot(path=str(SCREENSHOTS / f"api-tokens-{scheme}.png"))

        status, body = api_status(server, token)
        assert status == 200 and "itemCount" in body, body
        # Read-only: a write is refused with the scope's code.
        request = urllib.request.Request(server + "/api/v1/items", data=b'{"name":"x"}', method="POST",
                                         headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
        try:
            urllib.request.urlopen(request, timeout=10)
            raise AssertionError("a read-only token wrote")
        except urllib.error.HTTPError as error:
            assert error.code == 403 and json.load(error)["error"]["code"] == "insufficient_scope"

        # Shown once: the list has its name and last use, never the token.
        page.goto(server + "/settings#tokens")
        expect(page.locator("#tokens")).to_contain_text(f"Home Assistant {scheme}")
        expect(page.locator("#tokens")).to_contain_text("last used")
        assert token not in page.content()
        page.once("dialog", lambda dialog: dialog.accept())
        page.locator("#tokens li", has_text=f"Home Assistant {scheme}").get_by_role("button", name="Revoke").click()
        expect(page.locator("#tokens")).not_to_contain_text(f"Home Assistant {scheme}")
        status, body = api_status(server, token)
        assert status == 401 and body["error"]["code"] == "invalid_token", body
        context.close()
