#!/usr/bin/env bash
# Installs RapidOCR (PaddleOCR's PP-OCRv4 models on ONNX Runtime, from PyPI; the models ship inside the wheel,
# nothing is downloaded at run time) into .venv-ocr (or the folder given), if it is not there yet. Receipts are then read with it
# (BENCHMARKS.md, Receipts: it reads this data far better than tesseract, at about 2.2 s p50 with two cores and under 400 MiB per worker).
# Without it (no network, or NESTORY_OCR_ENGINE=tesseract) the server reads receipts with tesseract.
set -uo pipefail
cd "$(dirname "$0")/.."
VENV="${1:-.venv-ocr}"
PACKAGE=rapidocr-onnxruntime==1.4.4
if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "import rapidocr_onnxruntime" 2>/dev/null; then exit 0; fi
echo "Installing $PACKAGE into $VENV (receipt OCR)"
if ! { [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"; } ||
   ! "$VENV/bin/pip" install -q --disable-pip-version-check "$PACKAGE"; then
  echo "RapidOCR could not be installed; receipts will be read with tesseract." >&2
  rm -rf "$VENV"
fi
exit 0
