"""What a screen reader and a person with weaker sight need, on every page of a household with real-looking data, at
phone width in light and dark: each field labelled, each control named, images described, one heading, the
language, no id twice, and text that stands out from what is behind it (WCAG's 4.5:1, 3:1 for large text)."""
import os
import subprocess

import pytest

from conftest import BINARY, EMAIL, PASSWORD, phone_page, scratch, screenshot, sign_in, start_server

PAGES = ["/", "/?view=grid", "/items/new", "/items/quick", "/rooms", "/categories", "/capture", "/capture/photo",
         "/capture/barcode", "/capture/receipt", "/receipts", "/reminders", "/reports", "/reports/inventory", "/reports/loss",
         "/settings", "/settings/data", "/valuations", "/valuations/batches/new", "/settings/valuation/depreciation"]

# Everything is measured in the page, as the browser drew it. Text inside aria-hidden decorations (an item's initial
# where it has no photo) is left out: it is not read, and says nothing the name beside it does not.
AUDIT = r"""() => {
  const problems = [];
  const visible = el => { const r = el.getBoundingClientRect(), s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none'; };
  const describe = el => el.outerHTML.slice(0, 100);
  const nameOf = el => {
    if (el.getAttribute('aria-label')) return el.getAttribute('aria-label').trim();
    const by = el.getAttribute('aria-labelledby');
    if (by) return by.split(/\s+/).map(id => (document.getElementById(id) || {}).textContent || '').join(' ').trim();
    if (el.labels && el.labels.length) return [...el.labels].map(l => l.textContent).join(' ').trim();
    const text = (el.innerText || el.textContent || '').trim();
    if (text) return text;
    const inner = [...el.querySelectorAll('img[alt], [aria-label]')].map(i => i.getAttribute('alt') || i.getAttribute('aria-label')).join(' ').trim();
    return inner || el.getAttribute('title') || ((el.type === 'submit' || el.type === 'button') ? el.value : '') || '';
  };
  for (const el of document.querySelectorAll('input:not([type=hidden]), select, textarea'))
    if ((visible(el) || el.type === 'file') && !nameOf(el)) problems.push('field without a label: ' + describe(el));
  for (const el of document.querySelectorAll('a[href], button, [role=button], summary'))
    if (visible(el) && !nameOf(el)) problems.push('control without a name: ' + describe(el));
  for (const el of document.querySelectorAll('img:not([alt])')) problems.push('image without alt: ' + describe(el));
  const ids = {};
  for (const el of document.querySelectorAll('[id]')) ids[el.id] = (ids[el.id] || 0) + 1;
  for (const [id, count] of Object.entries(ids)) if (count > 1) problems.push(`id ${id} ${count} times`);
  if (!document.documentElement.lang) problems.push('no lang');
  if (!document.title.trim()) problems.push('no title');
  const headings = [...document.querySelectorAll('h1')].filter(visible).length;
  if (headings !== 1) problems.push(`${headings} h1`);
  const rgba = c => { const m = c.match(/rgba?\(([^)]+)\)/); if (!m) return null;
    const p = m[1].split(/[ ,\/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
  const luminance = c => { const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
  // The colour behind an element: its own and its ancestors' backgrounds, blended; null over a picture or gradient.
  const behind = el => { const layers = [];
    for (let e = el; e; e = e.parentElement) { const s = getComputedStyle(e);
      if (s.backgroundImage !== 'none') return null;
      const c = rgba(s.backgroundColor); if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; } }
    let base = [255, 255, 255];
    for (const c of layers.reverse()) base = base.map((v, i) => c[i] * c[3] + v * (1 - c[3]));
    return base; };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const reported = new Set();
  while (walker.nextNode()) {
    const node = walker.currentNode, el = node.parentElement;
    if (!node.textContent.trim() || !el || !visible(el) || el.closest('[aria-hidden=true]')) continue;
    const s = getComputedStyle(el), fg = rgba(s.color), bg = behind(el);
    if (!fg || !bg || parseFloat(s.opacity) === 0) continue;
    const text = fg.slice(0, 3).map((v, i) => v * fg[3] + bg[i] * (1 - fg[3]));
    const [a, b] = [luminance(text), luminance(bg)], ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    const size = parseFloat(s.fontSize), large = size >= 24 || (parseInt(s.fontWeight) >= 700 && size >= 18.66);
    const key = el.className + ratio.toFixed(2);
    if (ratio < (large ? 3 : 4.5) && !reported.has(key)) {
      reported.add(key);
      problems.push(`contrast ${ratio.toFixed(2)}: "${node.textContent.trim().slice(0, 30)}" in ${describe(el)}`);
    }
  }
  return problems;
}"""


@pytest.fixture(scope="module")
def demo_server():
    """A demo household of 40 items (some undocumented, so the documentation nudge is due and the bell has a count)."""
    data = scratch("data-")
    subprocess.run([str(BINARY), "demo", "--data", data, "--items", "40", "--owner", EMAIL], check=True,
                   env={**os.environ, "NESTORY_PASSWORD": PASSWORD}, stdout=subprocess.DEVNULL)
    process, base = start_server(data=data)
    yield base
    process.terminate()
    process.wait(timeout=10)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_page_is_labelled_named_and_readable(demo_server, browser, scheme):
    context, page = phone_page(browser, scheme)
    sign_in(page, demo_server)
    item = page.locator(".items .item a").first.get_attribute("href")
    assert page.locator(".bell .count").count() == 1, "the demo household has a reminder due, so the bell's count is checked"
    problems = {}
    for path in PAGES + [item, item + "/edit"]:
        page.goto(demo_server + path)
        found = page.evaluate(AUDIT)
        if found:
            problems[path] = found
    page.goto(demo_server + "/")
    screenshot(page, f"a11y-inventory-{scheme}")
    context.close()
    assert problems == {}, problems


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_pages_before_signing_in_are_labelled_named_and_readable(server, demo_server, browser, scheme):
    """The first-run setup (a fresh server) and the sign-in page, with and without a refused attempt."""
    problems = {}
    context, page = phone_page(browser, scheme)
    page.goto(server + "/")
    assert page.url.endswith("/setup"), page.url
    problems["/setup"] = page.evaluate(AUDIT)
    page.goto(demo_server + "/signin")
    problems["/signin"] = page.evaluate(AUDIT)
    page.fill("#f-email", EMAIL)
    page.fill("#f-password", "not the password at all")
    with page.expect_navigation():
        page.click("button[type=submit]")
    assert page.locator("[role=alert]").count() > 0, "the refused sign-in says so"
    problems["/signin (refused)"] = page.evaluate(AUDIT)
    context.close()
    assert {path: found for path, found in problems.items() if found} == {}
