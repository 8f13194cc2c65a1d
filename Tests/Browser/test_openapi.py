"""The served OpenAPI document is a valid OpenAPI 3.1 description, and what the API answers fits it."""
import json
import urllib.request

from jsonschema import Draft202012Validator
from openapi_spec_validator import validate

from conftest import sign_in


def test_openapi_document_is_valid_and_describes_the_item_list(server, browser):
    spec = json.load(urllib.request.urlopen(server + "/api/v1/openapi.json", timeout=10))
    validate(spec)  # raises on anything that is not a valid OpenAPI 3.1 document

    context = browser.new_context()
    page = context.new_page()
    sign_in(page, server)
    csrf = page.get_attribute('meta[name="csrf-token"]', "content")
    created = page.request.post(server + "/api/v1/items", headers={"X-CSRF-Token": csrf, "Content-Type": "application/json"},
                                data=json.dumps({"name": 'Mixer "Pro" \\ 5\n🏠', "brand": "KitchenAid", "price": "449.99",
                                                 "purchaseDate": "2023-03-04", "warrantyExpiry": "2026-03-04", "barcode": "0012345678905",
                                                 "conditionNotes": "scratch", "tags": ["gift"], "notes": "note"}))
    assert created.status == 201, created.text()
    listed = page.request.get(server + "/api/v1/items")
    assert listed.status == 200
    body = listed.json()

    components = spec["components"]
    list_schema = spec["paths"]["/items"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    Draft202012Validator({**list_schema, "components": components}).validate(body)
    described = set(components["schemas"]["Item"]["properties"])
    assert body["items"], "the list is empty"
    for item in body["items"]:
        assert set(item) <= described, f"keys the description does not have: {set(item) - described}"
    item_schema = {"$ref": "#/components/schemas/Item", "components": components}
    Draft202012Validator(item_schema).validate(created.json())
    context.close()
