#!/usr/bin/env bash
# The local S3-compatible server the object-storage tests start (scripts/s3_test_server.py: moto in server mode
# from PyPI, on 127.0.0.1, behind a fault-injecting proxy). Makes its venv (.venv-s3) when missing.
# Usage: scripts/s3-test-server.sh            (prints one JSON line, runs until stdin closes)
#        scripts/s3-test-server.sh --venv-only
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.venv-s3
if ! "$VENV/bin/python" -c "import moto.server, boto3, flask" 2>/dev/null; then
  # Three test modules may start it at once: one makes the venv, the others wait for it.
  exec 9>"/tmp/nestory-venv-s3-$(id -u).lock"
  flock 9
  if ! "$VENV/bin/python" -c "import moto.server, boto3, flask" 2>/dev/null; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q --disable-pip-version-check "moto[server]>=5.1,<6"
  fi
  flock -u 9
fi
if [ "${1:-}" = "--venv-only" ]; then exit 0; fi
exec "$VENV/bin/python" scripts/s3_test_server.py
