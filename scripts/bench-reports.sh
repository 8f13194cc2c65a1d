#!/usr/bin/env bash
# Reports benchmark: the full inventory PDF of a household whose every item has its own JPEG photo,
# with and without photos (release build): wall time, peak memory (/usr/bin/time), pages per second;
# beside it, in the same run, WeasyPrint (from PyPI, in its own venv under bench-data/) rendering the
# same report content as HTML. Prints a table; copy it into BENCHMARKS.md.
#
#   scripts/bench-reports.sh            # 5,000 items
#   ITEMS=1000 scripts/bench-reports.sh
set -euo pipefail
cd "$(dirname "$0")/.."

ITEMS="${ITEMS:-5000}"
DATA="bench-data/reports-$ITEMS"
OUT="bench-data/reports-out"
SWIFT="${SWIFT:-swift}"
command -v "$SWIFT" >/dev/null || SWIFT=/opt/swift/usr/bin/swift
for tool in vips pdfinfo pdfimages; do
  command -v "$tool" >/dev/null || { echo "$tool is missing: make test-deps (libvips-tools, poppler-utils)" >&2; exit 1; }
done

echo "Building nestory and bench-reports (release)..." >&2
for product in nestory bench-reports; do
  if ! "$SWIFT" build -c release --product "$product" > /tmp/bench-reports-build.log 2>&1; then
    grep -v "prohibited flag" /tmp/bench-reports-build.log >&2
    exit 1
  fi
done
BIN="$("$SWIFT" build -c release --show-bin-path)"

VENV=bench-data/weasyprint-venv
if ! "$VENV/bin/python" -c "import weasyprint" 2>/dev/null; then
  echo "Installing WeasyPrint into $VENV (once)..." >&2
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check weasyprint
fi
WEASY_VERSION="$("$VENV/bin/python" -c 'import weasyprint; print(weasyprint.__version__)')"

mkdir -p "$OUT"
if [ ! -f "$DATA/nestory.sqlite" ]; then
  echo "Making $ITEMS items with a photo each in $DATA (once)..." >&2
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  photos=()
  # Eight photo-like 1024x768 JPEGs (smooth colour fields and texture), about 100 KB each at Q85.
  for i in 0 1 2 3 4 5 6 7; do
    for c in 0 1 2; do
      vips gaussnoise "$tmp/n$c.v" 16 12 --sigma 70 --mean $((90 + 20 * c + 5 * i))
      vips resize "$tmp/n$c.v" "$tmp/b$c.v" 64 --kernel cubic
    done
    vips gaussnoise "$tmp/grain.v" 1024 768 --sigma 6 --mean 0
    vips bandjoin "$tmp/b0.v $tmp/b1.v $tmp/b2.v" "$tmp/rgb.v"
    vips add "$tmp/rgb.v" "$tmp/grain.v" "$tmp/photo.v"
    vips cast "$tmp/photo.v" "$tmp/photo$i.jpg[Q=85]" uchar
    photos+=("$tmp/photo$i.jpg")
  done
  /usr/bin/time -f "seed: %e s" "$BIN/bench-reports" seed --data "$DATA" --items "$ITEMS" --photos "${photos[@]}"
fi

measure() {  # measure NAME COMMAND... → NAME seconds peak_kb
  local name="$1"; shift
  /usr/bin/time -f "%e %M" -o "$OUT/$name.time" "$@" > /dev/null 2> "$OUT/$name.log" || { cat "$OUT/$name.log" >&2; exit 1; }
  cat "$OUT/$name.time"
}

"$BIN/bench-reports" html --data "$DATA" --out "$OUT/reference-photos.html" --photos > /dev/null
"$BIN/bench-reports" html --data "$DATA" --out "$OUT/reference-plain.html" > /dev/null

declare -A secs mem pages size jpegs
run_case() {  # case renderer command...
  local key="$1-$2"; shift 2
  read -r s m < <(measure "$key" "$@")
  secs[$key]=$s; mem[$key]=$m
  pages[$key]=$(pdfinfo "$OUT/$key.pdf" | awk '/^Pages:/ {print $2}')
  size[$key]=$(stat -c %s "$OUT/$key.pdf")
  jpegs[$key]=$(pdfimages -list "$OUT/$key.pdf" | awk 'NR > 2 && $9 == "jpeg"' | wc -l)
}

echo "Rendering (one run each; WeasyPrint takes a while)..." >&2
run_case photos nestory "$BIN/nestory" report inventory --data "$DATA" --out "$OUT/photos-nestory.pdf" --photos --undocumented --quiet
run_case photos weasyprint "$VENV/bin/weasyprint" "$OUT/reference-photos.html" "$OUT/photos-weasyprint.pdf"
run_case plain nestory "$BIN/nestory" report inventory --data "$DATA" --out "$OUT/plain-nestory.pdf" --undocumented --quiet
run_case plain weasyprint "$VENV/bin/weasyprint" "$OUT/reference-plain.html" "$OUT/plain-weasyprint.pdf"

echo
echo "Full inventory PDF: $ITEMS items, one distinct JPEG photo each (1024x768), grouped by room; WeasyPrint $WEASY_VERSION on the same content"
echo "load before the run: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
echo
printf "| %-14s | %-10s | %8s | %8s | %6s | %8s | %7s | %11s | %14s |\n" "report" "renderer" "seconds" "peak MB" "pages" "pages/s" "PDF MB" "JPEGs as-is" "vs WeasyPrint"
printf "|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n" "----------------" "------------" "----------" "----------" "--------" "----------" "---------" "-------------" "----------------"
for c in photos plain; do
  for r in nestory weasyprint; do
    k="$c-$r"
    ratio="-"
    if [ "$r" = nestory ]; then ratio=$(awk -v a="${secs[$c-weasyprint]}" -v b="${secs[$k]}" 'BEGIN { printf "%.1f× faster", a / (b > 0 ? b : 0.01) }'); fi
    printf "| %-14s | %-10s | %8.2f | %8.0f | %6d | %8.1f | %7.1f | %11s | %14s |\n" \
      "$([ $c = photos ] && echo "with photos" || echo "without photos")" "$r" "${secs[$k]}" "$(awk -v m="${mem[$k]}" 'BEGIN { print m / 1024 }')" \
      "${pages[$k]}" "$(awk -v p="${pages[$k]}" -v s="${secs[$k]}" 'BEGIN { print p / (s > 0 ? s : 0.01) }')" \
      "$(awk -v b="${size[$k]}" 'BEGIN { print b / 1e6 }')" "${jpegs[$k]}" "$ratio"
  done
done
echo
ok() { awk -v v="$1" -v t="$2" 'BEGIN { exit !(v <= t) }' && echo yes || echo NO; }
echo "Targets (with photos): ≤ 20 s: $(ok "${secs[photos-nestory]}" 20); ≤ 300 MB: $(ok "$((mem[photos-nestory] / 1024))" 300); ≥ 5× faster than the reference: $(awk -v a="${secs[photos-weasyprint]}" -v b="${secs[photos-nestory]}" 'BEGIN { print (a / b >= 5) ? "yes" : "NO" }')"
