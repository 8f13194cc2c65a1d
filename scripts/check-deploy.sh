#!/usr/bin/env bash
# Checks the systemd units in deploy/ with systemd-analyze verify (syntax, known options, the binary they start),
# against the built binary: the units name /usr/local/bin/nestory, which a test machine need not have.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN="${NESTORY_BIN:-$PWD/.build/debug/nestory}"
if ! command -v systemd-analyze >/dev/null; then
  echo "systemd-analyze is missing (Debian's systemd package)" >&2; exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
units=(nestory.service nestory-backup.service nestory-backup.timer)
for unit in "${units[@]}"; do sed "s|/usr/local/bin/nestory|$BIN|" "deploy/$unit" > "$work/$unit"; done
passed=0 failed=0
for unit in "${units[@]}"; do
  # verify prints problems and exits non-zero on errors; warnings about this machine not running systemd are not ours.
  if ! out=$(systemd-analyze verify "$work/$unit" 2>&1); then
    echo "$out" >&2; failed=$((failed + 1)); continue
  fi
  problems=$(echo "$out" | grep -v -e "^$" -e "Failed to connect to bus" -e "System has not been booted with systemd" || true)
  if echo "$problems" | grep -q "nestory"; then
    echo "$problems" >&2; failed=$((failed + 1)); continue
  fi
  passed=$((passed + 1))
done
# The backup unit runs as the server's user, by name, so that it can read the server's data folder.
for unit in nestory.service nestory-backup.service; do
  grep -qx "User=nestory" "deploy/$unit" || { echo "deploy/$unit: no User=nestory (the two units must share the dynamic user)" >&2; failed=$((failed + 1)); }
done
# Its hardening is the server's, line for line (from NoNewPrivileges= to the end of [Service]).
hardening() { sed -n '/^NoNewPrivileges=/,/^$/p' "deploy/$1" | grep -v '^$'; }
if [ "$(hardening nestory.service)" != "$(hardening nestory-backup.service)" ]; then
  echo "deploy/nestory-backup.service: its hardening differs from nestory.service's" >&2; failed=$((failed + 1))
fi
echo "deploy/: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
