#!/usr/bin/env bash
# Browser tests: Playwright (from PyPI, in .venv) drives Debian's Chromium against the built binary.
# Never runs `playwright install` (that downloads browsers); it uses /usr/bin/chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/browser-venv.sh
export NESTORY_BIN="${NESTORY_BIN:-$PWD/.build/debug/nestory}"
exec .venv/bin/pytest Tests/Browser -q
