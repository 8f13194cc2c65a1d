#!/usr/bin/env bash
# Installs the Debian packages Nestory needs to build, run and test, if any are missing.
# Safe to run again: it only calls apt-get when something is missing.
set -euo pipefail

# Build and run: SQLite (GRDB), zlib (backup archives), libvips (images), libdeflate and libpng (PNGs read for
# barcodes), zbar and zxing-cpp (barcodes), tesseract + English data (OCR), cairo + pango (report PDFs) with
# fonts: DejaVu, Droid Sans Fallback for CJK names and Noto Color Emoji for emoji in names (boxes without it);
# python3-venv for RapidOCR (receipts, scripts/install-ocr.sh) and tcmalloc, preloaded into its worker (a third of
# glibc's peak memory there; the worker runs without it, heavier).
RUNTIME_PACKAGES=(libsqlite3-dev zlib1g-dev pkg-config libvips-dev libpng-dev libdeflate-dev libzbar-dev libzxing-dev libtesseract-dev libleptonica-dev tesseract-ocr-eng
  libcairo2-dev libpango1.0-dev fonts-dejavu-core fonts-droid-fallback fonts-noto-color-emoji python3-venv libtcmalloc-minimal4)
# Tests and benchmarks: the sqlite3 shell, the reference tools measured beside Nestory (zip and unzip for
# bench-backup), poppler-utils (pdftotext, pdfimages, pdftoppm check the PDFs), python3-venv (browser
# tests, WeasyPrint for bench-reports; also a runtime package), postgresql (the store conformance suite runs on a
# throwaway cluster, scripts/with-postgres.sh), nginx-light (the proxy in front of two servers, test_two_servers.py).
TEST_PACKAGES=(sqlite3 zip unzip libvips-tools zbar-tools qrencode time chromium fonts-dejavu-core wrk curl poppler-utils python3-venv postgresql nginx-light)

want=("${RUNTIME_PACKAGES[@]}")
if [ "${1:-}" = "--test" ]; then want+=("${TEST_PACKAGES[@]}"); fi

missing=()
for pkg in "${want[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing missing packages: ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null; then SUDO="sudo"; else
      echo "Please install as root: apt-get install ${missing[*]}" >&2; exit 1
    fi
  fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The generated barcode corpus's Python venv (numpy, Pillow, qrcode from PyPI) for the barcode tests.
if [ "${1:-}" = "--test" ]; then "$(dirname "$0")/barcode-corpus.sh" --venv-only; fi
# The local S3-compatible server (moto from PyPI, in .venv-s3) the object-storage tests start.
if [ "${1:-}" = "--test" ]; then "$(dirname "$0")/s3-test-server.sh" --venv-only; fi

if ! command -v swift >/dev/null; then
  if [ -x /opt/swift/usr/bin/swift ]; then
    echo "Swift is at /opt/swift/usr/bin; add it to PATH." >&2
  else
    echo "Swift 6.2 or newer is needed (https://swift.org/install)." >&2
  fi
  exit 1
fi
