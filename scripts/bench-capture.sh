#!/usr/bin/env bash
# SC-001 of the scan spec: time from opening Capture to an interactive screen, p95 over 40 opens (release
# build, a demo household, headless Chromium with a fake camera at phone width), beside the inventory page.
set -euo pipefail
cd "$(dirname "$0")/.."
data=$(mktemp -d)
port=${PORT:-18099}
trap 'kill $server 2>/dev/null || true; rm -rf "$data"' EXIT
NESTORY_PASSWORD=bench-password-1 ./.build/release/nestory demo --data "$data" --items "${ITEMS:-1000}" >/dev/null
./.build/release/nestory serve --data "$data" --port "$port" >/dev/null 2>&1 &
server=$!
for _ in $(seq 100); do curl -fs "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.1; done
.venv/bin/python scripts/bench-capture.py "http://127.0.0.1:$port" demo@example.com bench-password-1
