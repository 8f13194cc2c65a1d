#!/usr/bin/env bash
# Barcode robustness: Nestory's reader beside zbarimg on a generated corpus (scripts/barcode_corpus.py) of N
# random valid codes, every format under every degradation; decoded % and wrong % per format and degradation.
# The pictures go to build/tmp/barcode-corpus/ (never committed), made once per seed and count.
# Usage: scripts/bench-barcodes-stress.sh [N] [SEED]   (extra arguments after SEED go to bench-barcodes)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
N="${1:-3900}"
SEED="${2:-1}"
shift 2 || shift $# || true
DIR="build/tmp/barcode-corpus/seed-$SEED-n-$N"
if [ ! -f "$DIR/manifest.jsonl" ]; then
  echo "Generating $N pictures (seed $SEED) in $DIR..." >&2
  rm -rf "$DIR"
  ./scripts/barcode-corpus.sh --out "$DIR" --count "$N" --seed "$SEED"
fi
if ! command -v zbarimg >/dev/null; then
  echo "zbarimg is missing (Debian package zbar-tools; run make test-deps): measuring Nestory alone." >&2
fi
swift build -c release --product bench-barcodes >&2
swift build -c release --product nestory-zxing >&2
./.build/release/bench-barcodes "$DIR" --manifest "$@"
