#!/usr/bin/env bash
# Checks deploy/nestory.service with systemd-analyze verify (syntax, known options, the binary it starts),
# against the built binary: the unit names /usr/local/bin/nestory, which a test machine need not have.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN="${NESTORY_BIN:-$PWD/.build/debug/nestory}"
if ! command -v systemd-analyze >/dev/null; then
  echo "systemd-analyze is missing (Debian's systemd package)" >&2; exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sed "s|/usr/local/bin/nestory|$BIN|" deploy/nestory.service > "$work/nestory.service"
# verify prints problems and exits non-zero on errors; warnings about this machine not running systemd are not ours.
if ! out=$(systemd-analyze verify "$work/nestory.service" 2>&1); then
  echo "$out" >&2; echo "deploy/nestory.service: 0 passed, 1 failed"; exit 1
fi
problems=$(echo "$out" | grep -v -e "^$" -e "Failed to connect to bus" -e "System has not been booted with systemd" || true)
if echo "$problems" | grep -q "nestory.service"; then
  echo "$problems" >&2; echo "deploy/nestory.service: 0 passed, 1 failed"; exit 1
fi
echo "deploy/nestory.service: 1 passed, 0 failed"
