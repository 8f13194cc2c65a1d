#!/usr/bin/env bash
# Makes the web app's PNG icons from Sources/NestoryWeb/Assets/icon.svg with libvips (Debian's libvips-tools),
# for phones that want bitmaps (home screen, splash, Apple touch icon). Run after changing the SVG; the
# PNGs are committed so a build needs no image tools. The maskable icon puts the same picture on a full
# square of the theme colour, inside the 80% safe circle that launchers may crop to.
set -euo pipefail
cd "$(dirname "$0")/../Sources/NestoryWeb/Assets"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for size in 192 512; do
  vips thumbnail icon.svg "icon-$size.png" "$size" --height "$size"
done
vips thumbnail icon.svg apple-touch-icon.png 180 --height 180
# Maskable: the icon at 80% on a full-bleed square of the theme colour.
sed -e 's/rx="112"/rx="0"/' icon.svg > "$work/square.svg"
sed -e 's/<svg xmlns="http:\/\/www.w3.org\/2000\/svg" viewBox="0 0 512 512">/<svg xmlns="http:\/\/www.w3.org\/2000\/svg" viewBox="-64 -64 640 640"><rect x="-64" y="-64" width="640" height="640" fill="#0f766e"\/>/' \
  "$work/square.svg" > "$work/maskable.svg"
vips thumbnail "$work/maskable.svg" icon-maskable-512.png 512 --height 512
for f in icon-192.png icon-512.png apple-touch-icon.png icon-maskable-512.png; do
  vips copy "$f" "$work/$f[strip]" && mv "$work/$f" "$f"
done
ls -l icon-*.png apple-touch-icon.png
