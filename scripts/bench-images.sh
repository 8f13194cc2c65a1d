#!/usr/bin/env bash
# Upload-to-thumbnail benchmark: Nestory's imaging (release build) beside vipsthumbnail, on a
# 12-megapixel JPEG and HEIC made here with libvips. Prints a table; copy it into BENCHMARKS.md.
#
#   scripts/bench-images.sh            # 30 timed runs per case
#   RUNS=60 scripts/bench-images.sh
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS="${RUNS:-30}"
DATA="bench-data/images"
SWIFT="${SWIFT:-swift}"
command -v "$SWIFT" >/dev/null || SWIFT=/opt/swift/usr/bin/swift
for tool in vips vipsthumbnail; do
  command -v "$tool" >/dev/null || { echo "$tool is missing: make test-deps (libvips-tools)" >&2; exit 1; }
done

echo "Building bench-imaging (release)..." >&2
if ! "$SWIFT" build -c release --product bench-imaging > /tmp/bench-images-build.log 2>&1; then
  grep -v "prohibited flag" /tmp/bench-images-build.log >&2
  exit 1
fi
BIN="$("$SWIFT" build -c release --show-bin-path)/bench-imaging"

mkdir -p "$DATA"
JPEG="$DATA/photo-12mp.jpg"
HEIC="$DATA/photo-12mp.heic"
if [ ! -f "$JPEG" ] || [ ! -f "$HEIC" ]; then
  echo "Making a 4000x3000 test photo (once; kept in $DATA)..." >&2
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  # A photo-like image, neither flat colour (compresses unrealistically well) nor pure noise
  # (unrealistically badly): smooth light and dark regions (noise enlarged 100x), mid-scale
  # texture (enlarged 4x), soft colour variation, and fine sensor grain. About 4 MB at Q92, like a
  # 12-megapixel phone JPEG.
  noise() { vips gaussnoise "$tmp/$1.v" "$2" "$3" --sigma "$4" --mean 0; }
  noise shapes 40 30 45 && vips resize "$tmp/shapes.v" "$tmp/shapes-big.v" 100 --kernel cubic
  noise texture 1000 750 20 && vips resize "$tmp/texture.v" "$tmp/texture-big.v" 4 --kernel cubic
  for c in 0 1 2; do noise "colour$c" 40 30 25; noise "grain$c" 4000 3000 3; done
  vips bandjoin "$tmp/colour0.v $tmp/colour1.v $tmp/colour2.v" "$tmp/colour.v"
  vips resize "$tmp/colour.v" "$tmp/colour-big.v" 100 --kernel cubic
  vips bandjoin "$tmp/grain0.v $tmp/grain1.v $tmp/grain2.v" "$tmp/grain.v"
  vips add "$tmp/shapes-big.v" "$tmp/texture-big.v" "$tmp/light.v"
  vips add "$tmp/light.v" "$tmp/colour-big.v" "$tmp/scene.v"
  vips add "$tmp/scene.v" "$tmp/grain.v" "$tmp/sum.v"
  vips linear "$tmp/sum.v" "$tmp/photo.v" 1 128 --uchar
  vips copy "$tmp/photo.v" "$JPEG[Q=92]"
  echo "Encoding the HEIC (x265, slow on 2 cores)..." >&2
  vips copy "$tmp/photo.v" "$HEIC[Q=50]"
fi

echo "" >&2
echo "Date: $(date -u +%Y-%m-%d\ %H:%M\ UTC)   Host: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "libvips $(pkg-config --modversion vips)   runs per case: $RUNS (+3 warm-up)"
for f in "$JPEG" "$HEIC"; do
  echo "$(basename "$f"): $(vipsheader "$f" | cut -d: -f2-), $(du -k "$f" | cut -f1) KB"
done
echo ""
"$BIN" --runs "$RUNS" "$JPEG" "$HEIC"
