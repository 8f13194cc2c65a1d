#!/usr/bin/env bash
# Issue 17's benchmark: a valuation batch of ITEMS items (default 200) with photos, against local providers that
# speak OpenAI's and Tavily's wire formats with LATENCY seconds per call (default 1-3), under a rate limit of RATE
# calls a minute per provider (default 120). Prints the batch's time beside the ideal the rate limit sets, and the
# server's memory. Release build; nothing leaves 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."
data=$(mktemp -d)
port=${PORT:-18097}
fake=${FAKE_PORT:-18098}
rate=${RATE:-120}
width=${WIDTH:-8}
trap 'kill $server 2>/dev/null || true; rm -rf "$data"' EXIT
NESTORY_PASSWORD=bench-password-1 ./.build/release/nestory demo --data "$data" --items "${ITEMS:-200}" >/dev/null
./.build/release/nestory serve --data "$data" --port "$port" --set "valuation.searchURL=http://127.0.0.1:$fake" \
  --set "valuation.requestsPerMinute=$rate" --set "valuation.concurrency=$width" --set licence.instancePro=true >/dev/null 2>&1 &
server=$!
for _ in $(seq 100); do curl -fs "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.1; done
python3 scripts/bench-valuation.py "http://127.0.0.1:$port" "$fake" "$server" "$rate" "$width" "${LATENCY:-1-3}"
