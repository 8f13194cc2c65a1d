#!/usr/bin/env bash
# Web benchmark on the 100,000-item demo household (release build): server time of the inventory page,
# a search page and the JSON list (p50/p95 over N requests on loopback), wrk at 50 connections on the
# JSON list, and the server's idle memory. Reuses bench-data/store-100000 from `make bench-store`.
set -euo pipefail
cd "$(dirname "$0")/.."
ITEMS="${1:-100000}"
DATA="${BENCH_DATA:-./bench-data/store-$ITEMS}"
BIN="${BIN:-./.build/release/nestory}"
PORT="${PORT:-18080}"
N="${N:-200}"
[ -f "$DATA/nestory.sqlite" ] || "$BIN" demo --data "$DATA" --items "$ITEMS" --seed 1 >/dev/null
HOUSEHOLD=$(sqlite3 "$DATA/nestory.sqlite" "SELECT h.id FROM household h JOIN item_stats s ON s.household_id = h.id ORDER BY s.items DESC LIMIT 1")
EMAIL="bench@example.com"
PASSWORD="benchmark password"
if ! sqlite3 "$DATA/nestory.sqlite" "SELECT 1 FROM user WHERE email = '$EMAIL'" | grep -q 1; then
  echo "$PASSWORD" | "$BIN" user add "$EMAIL" --household "$HOUSEHOLD" --data "$DATA" >/dev/null
fi
# Cold start: from starting the process to the first answered /health (polled every 10 ms), with the page cache warm
# (a server restarted on a machine that has been serving).
cat "$DATA/nestory.sqlite" >/dev/null
START=$(date +%s%N)
"$BIN" serve --data "$DATA" --port "$PORT" >/dev/null 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null' EXIT
for _ in $(seq 3000); do curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && break; sleep 0.01; done
echo "cold start to the first answered request: $(( ($(date +%s%N) - START) / 1000000 )) ms ($(du -sh "$DATA/nestory.sqlite" | cut -f1) database)"
sleep 1
echo "idle memory (RSS): $(awk '/VmRSS/ {printf "%.1f MB", $2/1024}' /proc/$SERVER/status)"
JAR=$(mktemp)
curl -s -c "$JAR" -b "$JAR" "http://127.0.0.1:$PORT/signin" >/dev/null
CSRF=$(awk '$6 == "nestory_csrf" {print $7}' "$JAR")
curl -s -c "$JAR" -b "$JAR" -o /dev/null --data-urlencode "email=$EMAIL" --data-urlencode "password=$PASSWORD" \
  --data-urlencode "_csrf=$CSRF" "http://127.0.0.1:$PORT/signin"
SESSION=$(awk '$6 == "nestory_session" {print $7}' "$JAR")
[ -n "$SESSION" ] || { echo "sign-in failed" >&2; exit 1; }

measure() {  # name path
  local times
  times=$(for _ in $(seq "$N"); do
    curl -s -o /dev/null -w '%{time_total}\n' -H "Cookie: nestory_session=$SESSION" "http://127.0.0.1:$PORT$2"
  done | sort -n)
  local p50 p95
  p50=$(echo "$times" | awk -v n="$N" 'NR == int(n * 0.50 + 0.5) {printf "%.1f", $1 * 1000}')
  p95=$(echo "$times" | awk -v n="$N" 'NR == int(n * 0.95 + 0.5) {printf "%.1f", $1 * 1000}')
  printf "| %-40s | %8s | %8s |\n" "$1" "$p50" "$p95"
}
echo
echo "Request time on loopback (curl time_total, includes the client), $N requests each:"
printf "| %-40s | %8s | %8s |\n" "request" "p50 ms" "p95 ms"
printf "|%s|%s|%s|\n" "------------------------------------------" "----------" "----------"
measure "/health (reference)" "/health"
measure "inventory page (/)" "/"
measure "inventory page, needs photo, value sort" "/?filter=photo&sort=value"
measure "search page (/?q=sony)" "/?q=sony"
measure "JSON list (/api/v1/items)" "/api/v1/items"
echo
# Throughput of the JSON list beside /health on the same server in the same run (alternated: health, list, list,
# health), and the ratio of their means.
rps() {  # path
  wrk -t2 -c50 -d"${WRK_SECONDS:-10}"s --latency -H "Cookie: nestory_session=$SESSION" "http://127.0.0.1:$PORT$1" > /tmp/nestory-wrk.$$
  grep -E "Non-2xx|Socket errors" /tmp/nestory-wrk.$$ >&2 || true
  awk '/Requests\/sec/ {print $2}' /tmp/nestory-wrk.$$
}
# The list's answers are kept while the items are unchanged (ItemPageCache), so the same request again is a lookup.
# For the cost of a list made afresh, each wrk thread also walks its own half of the first 2,000 pages (cursors
# collected first) in turn: 1,000 pages of about 30 KB per thread, far more than the 8 MB kept, so none is kept
# by the time the thread comes back to it.
PAGES=/tmp/nestory-pages.$$.lua
python3 - "$PORT" "$SESSION" > "$PAGES" <<'PY'
import json, sys, urllib.parse, urllib.request
port, session = sys.argv[1], sys.argv[2]
cursor, paths = None, []
while len(paths) < 2000:
    path = "/api/v1/items" + ("?after=" + urllib.parse.quote(cursor, safe="") if cursor else "")
    paths.append(path)
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers={"Cookie": f"nestory_session={session}"})
    next_cursor = json.load(urllib.request.urlopen(request)).get("nextCursor")
    if not next_cursor or next_cursor == cursor:
        break
    cursor = next_cursor
print("paths = {" + ",".join(json.dumps(p) for p in paths) + "}")
print("local threads = 0")
print("function setup(thread) thread:set('first', threads); threads = threads + 1 end")
print("function init(args) i = first end")
print("function request() i = (i + 2) % #paths; return wrk.format(nil, paths[i + 1]) end")
PY
rps_script() {  # script
  wrk -t2 -c50 -d"${WRK_SECONDS:-10}"s --latency -s "$1" -H "Cookie: nestory_session=$SESSION" "http://127.0.0.1:$PORT" > /tmp/nestory-wrk.$$
  grep -E "Non-2xx|Socket errors" /tmp/nestory-wrk.$$ >&2 || true
  awk '/Requests\/sec/ {print $2}' /tmp/nestory-wrk.$$
}
H1=$(rps /health); L1=$(rps /api/v1/items); F1=$(rps_script "$PAGES"); F2=$(rps_script "$PAGES"); L2=$(rps /api/v1/items); H2=$(rps /health)
rm -f /tmp/nestory-wrk.$$ "$PAGES"
echo "wrk, 50 connections, 2 threads, ${WRK_SECONDS:-10} s each (alternated):"
printf "| %-44s | %10s | %10s | %8s |\n" "request" "req/s" "req/s" "/ health"
printf "|%s|%s|%s|%s|\n" "----------------------------------------------" "------------" "------------" "----------"
ratio() { awk -v a="$1" -v b="$2" -v c="$H1" -v d="$H2" 'BEGIN {printf "%.2fx", (a + b) / (c + d)}'; }
printf "| %-44s | %10s | %10s | %8s |\n" "/health" "$H1" "$H2" ""
printf "| %-44s | %10s | %10s | %8s |\n" "JSON list, the same request (kept answer)" "$L1" "$L2" "$(ratio "$L1" "$L2")"
printf "| %-44s | %10s | %10s | %8s |\n" "JSON list, 2,000 pages in turn (made afresh)" "$F1" "$F2" "$(ratio "$F1" "$F2")"
echo "JSON list / health: $(ratio "$L1" "$L2") (target >= 0.5x)"
echo "memory after load (RSS): $(awk '/VmRSS/ {printf "%.1f MB", $2/1024}' /proc/$SERVER/status)"
