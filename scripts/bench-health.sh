#!/usr/bin/env bash
# /health latency while the server is busy: wrk on /health for 20 s, first idle, then while a full inventory
# report of the benchmark household renders and a backup of it is restored (merged) through the web app.
# Uses bench-data/store-$ITEMS from `make bench-store` (release build). Prints p50/p99 for both.
set -euo pipefail
cd "$(dirname "$0")/.."
ITEMS="${1:-100000}"
DATA="${BENCH_DATA:-./bench-data/store-$ITEMS}"
BIN="${BIN:-./.build/release/nestory}"
PORT="${PORT:-18090}"
[ -f "$DATA/nestory.sqlite" ] || "$BIN" demo --data "$DATA" --items "$ITEMS" --seed 1 >/dev/null
HOUSEHOLD=$(sqlite3 "$DATA/nestory.sqlite" "SELECT h.id FROM household h JOIN item_stats s ON s.household_id = h.id ORDER BY s.items DESC LIMIT 1")
EMAIL="health-bench@example.com"
PASSWORD="benchmark password"
if ! sqlite3 "$DATA/nestory.sqlite" "SELECT 1 FROM user WHERE email = '$EMAIL'" | grep -q 1; then
  echo "$PASSWORD" | "$BIN" user add "$EMAIL" --household "$HOUSEHOLD" --role owner --data "$DATA" >/dev/null
fi
ARCHIVE=$(mktemp --suffix=.zip)
"$BIN" backup --household "$HOUSEHOLD" --data "$DATA" "$ARCHIVE" >/dev/null
echo "archive: $(du -h "$ARCHIVE" | cut -f1) for $ITEMS items"
# Jobs left by an earlier run would start with the server and spoil the idle measurement.
sqlite3 "$DATA/nestory.sqlite" "DELETE FROM job" 2>/dev/null || true
"$BIN" serve --data "$DATA" --port "$PORT" >/dev/null 2>&1 &
SERVER=$!
JAR=$(mktemp)
trap 'kill $SERVER 2>/dev/null; rm -f "$ARCHIVE" "$JAR"' EXIT
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && break; sleep 0.1; done
BASE="http://127.0.0.1:$PORT"
curl -s -c "$JAR" -b "$JAR" "$BASE/signin" >/dev/null
CSRF=$(awk '$6 == "nestory_csrf" {print $7}' "$JAR")
curl -s -c "$JAR" -b "$JAR" -o /dev/null --data-urlencode "email=$EMAIL" --data-urlencode "password=$PASSWORD" --data-urlencode "_csrf=$CSRF" "$BASE/signin"
PAGE_CSRF=$(curl -s -b "$JAR" "$BASE/" | sed -n 's/.*<meta name="csrf-token" content="\([^"]*\)".*/\1/p' | head -1)

health() {  # label
  wrk -t1 -c4 -d20s --latency "$BASE/health" | awk -v label="$1" '/Requests\/sec/ {rps=$2} $1 == "50%" {p50=$2} $1 == "99%" {p99=$2} END {printf "| %-40s | %8s | %8s | %8s |\n", label, p50, p99, rps}'
}
echo
printf "| %-40s | %8s | %8s | %8s |\n" "/health (wrk, 4 connections, 20 s)" "p50" "p99" "req/s"
printf "|%s|%s|%s|%s|\n" "------------------------------------------" "----------" "----------" "----------"
health "idle"
# The archive is uploaded (and checked) first; then a full inventory report and the merge restore start
# together while /health is measured.
NEXT=$(curl -s -b "$JAR" -H "Origin: $BASE" -H "X-CSRF-Token: $PAGE_CSRF" -H "X-File-Name: bench.zip" --data-binary @"$ARCHIVE" \
  "$BASE/settings/data/restore" | sed -n 's/.*"next":"\([^"]*\)".*/\1/p')
[ -n "$NEXT" ] || { echo "the archive upload failed" >&2; exit 1; }
curl -s -b "$JAR" -o /dev/null -H "Origin: $BASE" --data-urlencode "_csrf=$PAGE_CSRF" --data "group=room&undocumented=1" "$BASE/reports/inventory"
START=$(date +%s.%N)
curl -s -b "$JAR" -o /dev/null -H "Origin: $BASE" --data-urlencode "_csrf=$PAGE_CSRF" --data "mode=merge" "$BASE$NEXT" &
RESTORE=$!
sleep 1
health "while a report renders and a restore runs"
wait $RESTORE || true
echo "the restore request (merge of $ITEMS items) returned after $(awk -v a="$START" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}') s"
for _ in $(seq 600); do  # let the report finish (at most 5 minutes), so no job is left for the next run
  [ "$(sqlite3 "$DATA/nestory.sqlite" "SELECT COUNT(*) FROM job WHERE state IN ('queued', 'running')")" = 0 ] && break
  sleep 0.5
done
echo "the report: $(sqlite3 "$DATA/nestory.sqlite" "SELECT state || ', ' || done || ' items, ' || ((finished_at - started_at) / 1000.0) || ' s' FROM job WHERE kind = 'report' ORDER BY created_at DESC LIMIT 1")"
