#!/usr/bin/env bash
# The generated barcode corpus (scripts/barcode_corpus.py): makes its Python venv (.venv-barcodes: numpy,
# Pillow and qrcode from PyPI) when missing, then runs the generator with the arguments given.
# Usage: scripts/barcode-corpus.sh --out DIR [--count N] [--seed S] ...   (--venv-only: just make the venv)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.venv-barcodes
if ! "$VENV/bin/python" -c "import numpy, PIL, qrcode" 2>/dev/null; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check "numpy>=1.24,<3" "pillow>=10,<14" "qrcode>=7.4,<9"
fi
if [ "${1:-}" = "--venv-only" ]; then exit 0; fi
exec "$VENV/bin/python" scripts/barcode_corpus.py "$@"
