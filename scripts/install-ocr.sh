#!/usr/bin/env bash
# Installs RapidOCR (PaddleOCR's PP-OCRv4 models on ONNX Runtime, from PyPI; the models ship inside the wheel,
# nothing is downloaded at run time) into .venv-ocr (or the folder given), if it is not there yet, and writes its
# models with the same arithmetic in fewer steps into the venv's nestory-models folder (scripts/rapidocr-models.py,
# with onnx from PyPI; the same text in about 0.73× the time). Receipts are then read with it (BENCHMARKS.md, Receipts: it reads
# this data far better than tesseract, in under 2 s p50 with two cores and under 400 MiB per worker).
# Without it (no network, or NESTORY_OCR_ENGINE=tesseract) the server reads receipts with tesseract; without the
# rewritten models, with the packaged ones.
set -uo pipefail
cd "$(dirname "$0")/.."
VENV="${1:-.venv-ocr}"
PACKAGE=rapidocr-onnxruntime==1.4.4
ONNX=onnx==1.23.2
if ! { [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "import rapidocr_onnxruntime" 2>/dev/null; }; then
  echo "Installing $PACKAGE into $VENV (receipt OCR)"
  if ! { [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"; } ||
     ! "$VENV/bin/pip" install -q --disable-pip-version-check "$PACKAGE"; then
    echo "RapidOCR could not be installed; receipts will be read with tesseract." >&2
    rm -rf "$VENV"
    exit 0
  fi
fi
# Quick when the folder is current (the script compares its manifest with the packaged models before rewriting).
if ! "$VENV/bin/python" -c "import onnx" 2>/dev/null &&
   ! "$VENV/bin/pip" install -q --disable-pip-version-check "$ONNX"; then
  echo "onnx could not be installed; RapidOCR will read with its packaged models (slower, same text)." >&2
  exit 0
fi
if ! "$VENV/bin/python" scripts/rapidocr-models.py "$VENV/nestory-models"; then
  echo "RapidOCR's models could not be rewritten; it will read with its packaged models (slower, same text)." >&2
fi
exit 0
