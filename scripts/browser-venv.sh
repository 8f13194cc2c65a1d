#!/usr/bin/env bash
# Playwright and pytest in .venv (from PyPI), for the browser tests and the capture benchmark. Never runs
# `playwright install` (that downloads browsers): everything drives Debian's /usr/bin/chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then python3 -m venv .venv; fi
if ! .venv/bin/python -c "import playwright, pytest, openapi_spec_validator, icalendar" 2>/dev/null; then
  .venv/bin/pip install -q --disable-pip-version-check playwright pytest openapi-spec-validator icalendar
fi
