#!/usr/bin/env bash
# Browser tests: Playwright (from PyPI, in .venv) drives Debian's Chromium against the built binary.
# Never runs `playwright install` (that downloads browsers); it uses /usr/bin/chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then python3 -m venv .venv; fi
if ! .venv/bin/python -c "import playwright, pytest, openapi_spec_validator" 2>/dev/null; then
  .venv/bin/pip install -q --disable-pip-version-check playwright pytest openapi-spec-validator
fi
export NESTORY_BIN="${NESTORY_BIN:-$PWD/.build/debug/nestory}"
exec .venv/bin/pytest Tests/Browser -q
