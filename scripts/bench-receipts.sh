#!/usr/bin/env bash
# Receipt field accuracy: vendor, address, date and total read from each image (OCR + extraction)
# and from the dataset's perfect text (extraction alone), with seconds per receipt and peak memory.
#   scripts/bench-receipts.sh [DATA_DIR] [extra options for nestory-receipts-bench]
# DATA_DIR defaults to ../shared/datasets/receipts-sroie-dev (a folder of NAME.jpg, NAME.json, NAME.ocr.txt).
# Options: --workers N, --threads N (RapidOCR threads per worker; default the cores shared among the workers), --psm 3|4|6|11, --upscale WIDTH (0: never), --otsu, --deskew, --luminance (grey by
#          luminance rather than the darkest channel), --threshold 0|1|2 (tesseract's own binarisation),
#          --normalize (flatten the background), --sharpen (unsharp mask after enlarging),
#          --engine tesseract|rapidocr --python VENV/bin/python (default: RapidOCR from .venv-ocr when
#          scripts/install-ocr.sh installed it, as the server does; else tesseract),
#          --cache DIR (OCR output saved per image and configuration, and read back on later runs with the
#          same configuration, so extraction changes re-score in seconds; never for reported numbers), --limit N,
#          --misses FILE (every wrong field, for reading), --readings FILE (every image field with its confidence and
#          whether it is right, one line each, to compare engines),
#          --part working|held-out (only that part of the stores: the store's first word hashed, a quarter held out;
#          every run prints both parts and the vendor's mean per store),
#          --no-reread (with RapidOCR, do not read the doubtful header lines again with tesseract, as the server does;
#          the second readings are cached in CACHE/tesseract-lines by line box).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"

DEFAULT_DATA=../shared/datasets/receipts-sroie-dev
DATA="${1:-$DEFAULT_DATA}"
shift || true
# The Makefile's DATA also names the server's data folder (default ./nestory-data): that is not receipts.
case "$DATA" in
  ./nestory-data|nestory-data|./nestory-data/) DATA="$DEFAULT_DATA" ;;
esac
if [ ! -d "$DATA" ]; then
  echo "No receipts folder at $DATA (pass DATA=DIR to make bench-receipts)." >&2
  exit 1
fi

swift build -c release --product nestory-receipts-bench >&2
# The server's engine: RapidOCR when scripts/install-ocr.sh put it in .venv-ocr (--engine tesseract for the other).
ENGINE=()
case " $* " in
  *" --engine "*) ;;
  *) if [ -x .venv-ocr/bin/python ]; then ENGINE=(--engine rapidocr --python .venv-ocr/bin/python); fi ;;
esac
./.build/release/nestory-receipts-bench "$DATA" "${ENGINE[@]}" "$@"
