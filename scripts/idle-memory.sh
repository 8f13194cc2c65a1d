#!/usr/bin/env bash
# Idle memory of `nestory serve`: starts it on an empty data folder, waits, and prints VmRSS, the
# private part, and RSS per mapped file (shared libraries), largest first. Linux only (/proc).
#   scripts/idle-memory.sh [BINARY] [SECONDS]     (default .build/debug/nestory, 3 s)
set -euo pipefail
BIN=${1:-.build/debug/nestory}
WAIT=${2:-3}
# Written-back files only: pages of a just-copied binary would count as dirty.
sync
DATA=$(mktemp -d)
PORT=$(( 20000 + RANDOM % 20000 ))
"$BIN" serve --data "$DATA" --host 127.0.0.1 --port "$PORT" >"$DATA/log" 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null; rm -rf "$DATA"' EXIT
sleep "$WAIT"
kill -0 $PID 2>/dev/null || { echo "the server exited:"; cat "$DATA/log"; exit 1; }
grep -E '^(VmRSS|RssAnon|RssFile|RssShmem)' /proc/$PID/status
# Private_Dirty is memory only this process can have (heap, stacks, relocated data); Private_Clean
# depends on whether another process happens to map the same library files at the time.
awk '/^Private_Clean:/ { c = $2 } /^Private_Dirty:/ { d = $2 } END { printf "Private_Dirty:\t%d kB\nPrivate_Clean:\t%d kB\n", d, c }' /proc/$PID/smaps_rollup
echo "mapped files: $(grep -c '\.so' /proc/$PID/maps | tr -d ' ') .so mappings, $(awk '$6 ~ /\.so/ {print $6}' /proc/$PID/maps | sort -u | wc -l) libraries"
# Per mapping file: RSS and private kB (anonymous mappings grouped as [anon]).
awk '
  /^[0-9a-f]+-[0-9a-f]+ / { name = (NF >= 6 ? $6 : "[anon]"); next }
  /^Rss:/ { rss[name] += $2 }
  /^Private_(Clean|Dirty):/ { priv[name] += $2 }
  END { for (n in rss) if (rss[n] > 0) printf "%8d kB rss %8d kB private  %s\n", rss[n], priv[n], n }
' /proc/$PID/smaps | sort -rn | head -${TOP:-25}
