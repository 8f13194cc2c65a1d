#!/usr/bin/env bash
# Barcode accuracy: Nestory's reader beside zbarimg on a folder of labelled photos (ZXing's blackbox layout).
# Usage: scripts/bench-barcodes.sh [DIR]   (default ../shared/datasets/barcodes-zxing-dev, relative to the repo)
# Extra arguments after DIR go to the benchmark (--verbose lists every miss and wrong read).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"

DEFAULT_DATA=../shared/datasets/barcodes-zxing-dev
DATA="${1:-$DEFAULT_DATA}"
shift || true
if [ ! -d "$DATA" ]; then
  echo "No dataset folder at $DATA (pass DATA=DIR to make bench-barcodes)." >&2
  exit 1
fi
if ! command -v zbarimg >/dev/null; then
  echo "zbarimg is missing (Debian package zbar-tools; run make test-deps): measuring Nestory alone." >&2
fi

swift build -c release --product bench-barcodes >&2
swift build -c release --product nestory-zxing >&2
./.build/release/bench-barcodes "$DATA" "$@"
