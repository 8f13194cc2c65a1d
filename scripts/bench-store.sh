#!/usr/bin/env bash
# Store benchmark: builds a demo household of N items (timed, with peak memory), then times the
# list/search/summary queries beside the same SQL run bare. Needs a release build (make bench-store).
set -euo pipefail
cd "$(dirname "$0")/.."
ITEMS="${1:-100000}"
DATA="${BENCH_DATA:-./bench-data/store-$ITEMS}"
BIN=./.build/release

rm -rf "$DATA"
echo "== nestory demo --items $ITEMS (release build)"
/usr/bin/time -f "demo: %e s wall, %M KB peak memory" "$BIN/nestory" demo --data "$DATA" --items "$ITEMS" --seed 1 2>&1 | grep -v "items$" || true
du -sh "$DATA" | awk '{print "data folder: " $1}'
echo
"$BIN/nestory-bench" store --data "$DATA" --runs "${RUNS:-60}"
