#!/usr/bin/env bash
# Runs a command beside a throwaway PostgreSQL cluster: initdb into a temporary folder, started on a free
# loopback port with password (SCRAM) sign-in, a database made for the tests, and stopped and removed when the
# command ends however it ends. The command sees the cluster as NESTORY_TEST_POSTGRES_URL and, so that the
# PostgreSQL half of the store conformance suite cannot be skipped by accident, NESTORY_REQUIRE_POSTGRES=1.
#   scripts/with-postgres.sh swift test --skip-build
# Needs Debian's postgresql (scripts/install-deps.sh --test installs it). initdb refuses root, so as root the
# server runs as the `postgres` user.
set -euo pipefail

BIN=""
for dir in /usr/lib/postgresql/*/bin; do [ -x "$dir/initdb" ] && BIN="$dir"; done
if [ -z "$BIN" ]; then
  echo "with-postgres: PostgreSQL is not installed (scripts/install-deps.sh --test installs it)." >&2
  exit 1
fi

AS=()
if [ "$(id -u)" -eq 0 ]; then AS=(runuser -u postgres --); fi
DIR="$(mktemp -d /tmp/nestory-pg.XXXXXX)"
chmod 755 "$DIR"
if [ ${#AS[@]} -gt 0 ]; then chown postgres "$DIR"; fi

# A free port: ask the kernel for one, then let go of it.
PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
PASSWORD="$(head -c 18 /dev/urandom | base64 | tr -dc 'A-Za-z0-9')"

stop() {
  "${AS[@]}" "$BIN/pg_ctl" -D "$DIR/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap stop EXIT

printf '%s\n' "$PASSWORD" > "$DIR/pwfile"
if [ ${#AS[@]} -gt 0 ]; then chown postgres "$DIR/pwfile"; fi
"${AS[@]}" "$BIN/initdb" -D "$DIR/data" -U nestory --pwfile="$DIR/pwfile" --auth=scram-sha-256 \
  --encoding=UTF8 --locale=C.UTF-8 >"$DIR/initdb.log" 2>&1 || { cat "$DIR/initdb.log" >&2; exit 1; }
rm -f "$DIR/pwfile"
# Loopback only, no Unix socket folder outside ours; fsync off: a test cluster needs no durability. Tests migrate many
# fresh schemas at once (each migration a transaction that locks every object it makes): room for their locks.
"${AS[@]}" "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -t 60 \
  -o "-h 127.0.0.1 -p $PORT -k $DIR -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200 -c max_locks_per_transaction=512" \
  start >/dev/null || { cat "$DIR/server.log" >&2; exit 1; }
PGPASSWORD="$PASSWORD" "$BIN/createdb" -h 127.0.0.1 -p "$PORT" -U nestory nestory_test

export NESTORY_TEST_POSTGRES_URL="postgres://nestory:$PASSWORD@127.0.0.1:$PORT/nestory_test?sslmode=disable"
export NESTORY_REQUIRE_POSTGRES=1
echo "with-postgres: PostgreSQL $("$BIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$PORT" >&2
"$@"
