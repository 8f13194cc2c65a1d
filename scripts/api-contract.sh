#!/usr/bin/env bash
# The API against its own document (issue 20): schemathesis (from PyPI, in .venv) runs the served
# /api/v1/openapi.json against a fresh server with a demo household and a read-write API token.
# Bounded and repeatable: a fixed seed, at most API_CONTRACT_EXAMPLES examples per operation and a
# time budget of API_CONTRACT_SECONDS. Fails on any 5xx and any answer outside the document; prints its figures.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/browser-venv.sh
if ! .venv/bin/python -c "import schemathesis" 2>/dev/null; then
  .venv/bin/pip install -q --disable-pip-version-check "schemathesis>=4,<5"
fi
BIN="${NESTORY_BIN:-$PWD/.build/debug/nestory}"
SEED="${API_CONTRACT_SEED:-20}"
EXAMPLES="${API_CONTRACT_EXAMPLES:-25}"
SECONDS_BUDGET="${API_CONTRACT_SECONDS:-150}"
DATA="$(mktemp -d)"
PORT="$(.venv/bin/python -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
cleanup() { [ -n "${SERVER:-}" ] && kill "$SERVER" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$DATA"; }
trap cleanup EXIT

NESTORY_PASSWORD="contract test passphrase" "$BIN" demo --data "$DATA" --items 40 --owner contract@example.com >/dev/null
TOKEN="$("$BIN" token create contract@example.com --name schemathesis --scope write --data "$DATA" 2>/dev/null)"
# Pro (licence.instancePro) so the Free limits do not answer 402 to a generated item; a generous token budget.
NESTORY_LICENCE_INSTANCE_PRO=true "$BIN" serve --data "$DATA" --port "$PORT" --set api.tokenRequestsPerMinute=100000 \
  >"$DATA/server.log" 2>&1 &
SERVER=$!
.venv/bin/python - "$PORT" <<'PY'
import sys, time, urllib.request
for _ in range(100):
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/health", timeout=1); break
    except Exception:
        time.sleep(0.1)
PY

set +e
# Run from the temporary folder: schemathesis keeps a .schemathesis cache in its working directory.
ST="$PWD/.venv/bin/st"
cd "$DATA"
"$ST" run "http://127.0.0.1:$PORT/api/v1/openapi.json" \
  --header "Authorization: Bearer $TOKEN" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
  --generation-database none --seed "$SEED" --max-examples "$EXAMPLES" --max-time "$SECONDS_BUDGET" --workers 1 --no-shrink \
  --phases examples,coverage,fuzzing --request-timeout 20 --report junit --report-dir "$DATA/report"
STATUS=$?
set -e
if grep -q '"level":"error"\|request failed' "$DATA/server.log"; then
  echo "The server logged errors:"; grep '"level":"error"\|request failed' "$DATA/server.log" | head -20
fi
exit $STATUS
