#!/usr/bin/env bash
# Backup and restore benchmark: `nestory backup` and `nestory restore` (release build) on a household
# of ITEMS items and PHOTOS distinct photos of KB kilobytes, beside `zip -0 -r` and `unzip` of the
# same stored files in the same run. Wall time, MB/s and peak memory (GNU time); prints a table.
#
#   scripts/bench-backup.sh                    # 5,000 items, 10,000 photos of 256 KB (2.5 GB)
#   KB=2048 scripts/bench-backup.sh            # the realistic 2 MB photos (20 GB; needs ~100 GB free)
#   SCRATCH=.build-bench scripts/bench-backup.sh  # build in another folder (while debug builds run)
set -euo pipefail
cd "$(dirname "$0")/.."

ITEMS="${ITEMS:-5000}"
PHOTOS="${PHOTOS:-10000}"
KB="${KB:-256}"
DATA="bench-data/backup-${ITEMS}-${PHOTOS}-${KB}"
SWIFT="${SWIFT:-swift}"
command -v "$SWIFT" >/dev/null || SWIFT=/opt/swift/usr/bin/swift
for tool in zip unzip /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "$tool is missing: make test-deps" >&2; exit 1; }
done

echo "Building nestory and bench-backup (release)..." >&2
for product in nestory bench-backup; do
  if ! "$SWIFT" build -c release ${SCRATCH:+--scratch-path "$SCRATCH"} --product "$product" > /tmp/bench-backup-build.log 2>&1; then
    grep -v "prohibited flag" /tmp/bench-backup-build.log >&2
    exit 1
  fi
done
BIN="$("$SWIFT" build -c release ${SCRATCH:+--scratch-path "$SCRATCH"} --show-bin-path)"

if [ ! -f "$DATA/nestory.sqlite" ]; then
  echo "Seeding $ITEMS items and $PHOTOS photos of $KB KB (once; kept in $DATA)..." >&2
  rm -rf "$DATA"
  "$BIN/bench-backup" "$DATA" "$ITEMS" "$PHOTOS" "$KB" >&2
fi

WORK="bench-data/backup-work"
rm -rf "$WORK" && mkdir -p "$WORK"
trap 'rm -rf "$WORK"' EXIT
BYTES=$(du -sb "$DATA/blobs" | cut -f1)

# run NAME COMMAND...: wall seconds and peak RSS (MB) of one command, into $WORK/NAME.
run() {
  local name="$1"; shift
  sync
  /usr/bin/time -f "%e %M" -o "$WORK/$name.time" "$@" > "$WORK/$name.out" 2>&1 || { cat "$WORK/$name.out" >&2; exit 1; }
}
secs() { cut -d' ' -f1 "$WORK/$1.time"; }
mb() { awk '{printf "%.0f", $2/1024}' "$WORK/$1.time"; }

echo "Timing (each once, page cache warm for all)..." >&2
cat "$DATA"/blobs/*/*/* > /dev/null   # warm the cache for every contender alike
run nestory-backup "$BIN/nestory" backup --data "$DATA" "$WORK/nestory.zip"
run zip sh -c 'cd "$1" && zip -0 -r -q "$2" blobs nestory.sqlite' sh "$DATA" "$PWD/$WORK/reference.zip"
run nestory-restore "$BIN/nestory" restore --data "$WORK/restored" "$WORK/nestory.zip"
run unzip unzip -q "$WORK/reference.zip" -d "$WORK/unzipped"

rate() { awk -v b="$BYTES" -v s="$1" 'BEGIN { printf "%.0f", b / 1048576 / s }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
B=$(secs nestory-backup); Z=$(secs zip); R=$(secs nestory-restore); U=$(secs unzip)
echo
echo "Backup and restore: $ITEMS items, $PHOTOS photos of $KB KB ($((BYTES / 1048576)) MB of files), $(date -u +%Y-%m-%d), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
printf "| %-34s | %8s | %8s | %12s | %-24s |\n" "Operation" "Time (s)" "MB/s" "Peak RSS MB" "Speed vs reference"
printf "|%s|%s|%s|%s|%s|\n" "------------------------------------" "----------" "----------" "--------------" "--------------------------"
printf "| %-34s | %8s | %8s | %12s | %-24s |\n" "nestory backup" "$B" "$(rate "$B")" "$(mb nestory-backup)" "$(ratio "$Z" "$B")× zip -0 (target ≥ 0.7)"
printf "| %-34s | %8s | %8s | %12s | %-24s |\n" "zip -0 -r (reference)" "$Z" "$(rate "$Z")" "$(mb zip)" "1.00"
printf "| %-34s | %8s | %8s | %12s | %-24s |\n" "nestory restore (checked, fsynced)" "$R" "$(rate "$R")" "$(mb nestory-restore)" "$(ratio "$U" "$R")× unzip"
printf "| %-34s | %8s | %8s | %12s | %-24s |\n" "unzip (reference)" "$U" "$(rate "$U")" "$(mb unzip)" "1.00"
echo
echo "Archive: $(du -m "$WORK/nestory.zip" | cut -f1) MB (reference $(du -m "$WORK/reference.zip" | cut -f1) MB)"
