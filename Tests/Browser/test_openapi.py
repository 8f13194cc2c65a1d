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


def test_a_job_answers_in_the_documented_shape(server, browser):
    spec = json.load(urllib.request.urlopen(server + "/api/v1/openapi.json", timeout=10))
    context = browser.new_context()
    page = context.new_page()
    sign_in(page, server)
    csrf = page.get_attribute('meta[name="csrf-token"]', "content")
    started = page.request.post(server + "/settings/data/export", form={"_csrf": csrf}, max_redirects=0)
    assert started.status == 303
    job_id = started.headers["location"].split("export=")[1]
    schema = {**spec["paths"]["/jobs/{jobID}"]["get"]["responses"]["200"]["content"]["application/json"]["schema"],
              "components": spec["components"]}
    for _ in range(600):
        job = page.request.get(server + f"/api/v1/jobs/{job_id}").json()
        Draft202012Validator(schema).validate(job)
        if job["state"] not in ("queued", "running"):
            break
        page.wait_for_timeout(50)
    assert job["state"] == "succeeded" and job["kind"] == "backup" and job["links"]["download"].endswith("/download"), job
    cancelled = page.request.post(server + f"/api/v1/jobs/{job_id}/cancel", headers={"X-CSRF-Token": csrf})
    assert cancelled.status == 200 and cancelled.json()["state"] == "succeeded"  # a finished job is left as it is
    Draft202012Validator(schema).validate(cancelled.json())
