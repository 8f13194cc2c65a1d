#!/usr/bin/env bash
# Requests per second of the JSON item list with one `nestory serve` and with two behind nginx, both on one PostgreSQL
# database (run through scripts/with-postgres.sh: make bench-scaling), and what each request costs in CPU: the servers'
# and PostgreSQL's (utime + stime from /proc over the wrk run, divided by the requests). On this 2-core machine the two
# servers, PostgreSQL, nginx and wrk share the cores: the per-request costs are what docs/scaling.md scales from.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${NESTORY_TEST_POSTGRES_URL:?run through scripts/with-postgres.sh}"
BIN="${BIN:-./.build/release/nestory}"
ITEMS="${ITEMS:-1000}"
SECONDS_EACH="${WRK_SECONDS:-10}"
DIR=$(mktemp -d /tmp/nestory-scaling.XXXXXX)
export NESTORY_DATABASE_URL="$NESTORY_TEST_POSTGRES_URL" NESTORY_DATABASE_SCHEMA="scaling_$$" NESTORY_API_TOKEN_REQUESTS_PER_MINUTE=1000000
export NESTORY_LICENCE_INSTANCE_PRO=true NESTORY_LOG_LEVEL=warning
PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$DIR"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_up() { for _ in $(seq 300); do curl -sf "$1/health" >/dev/null && return 0; sleep 0.1; done; echo "$1 did not start" >&2; exit 1; }
serve() {  # name port
  "$BIN" serve --data "$DIR/data-$1" --port "$2" >"$DIR/serve-$1.log" 2>&1 &
  PIDS+=($!)
  wait_up "http://127.0.0.1:$2"
}
cpu() {  # pids... -> clock ticks used so far
  local total=0
  for pid in "$@"; do
    [ -r "/proc/$pid/stat" ] || continue
    total=$((total + $(awk '{print $14 + $15}' "/proc/$pid/stat")))
  done
  echo "$total"
}

echo "correct horse battery" | "$BIN" user add bench@example.com --household Bench --data "$DIR/data-cli" >/dev/null
TOKEN=$("$BIN" token create bench@example.com --name bench --scope write --data "$DIR/data-cli" 2>/dev/null)
PA=$(free_port); serve a "$PA"
# wrk signs in as a browser does (a session cookie), and for the rows marked "API token" sends the bearer token instead:
# each of those requests also counts against the token's budget, one statement in PostgreSQL shared by every server.
JAR="$DIR/cookies"
curl -s -c "$JAR" -b "$JAR" "http://127.0.0.1:$PA/signin" >/dev/null
CSRF=$(awk '$6 == "nestory_csrf" {print $7}' "$JAR")
curl -s -c "$JAR" -b "$JAR" -o /dev/null --data-urlencode "email=bench@example.com" --data-urlencode "password=correct horse battery" \
  --data-urlencode "_csrf=$CSRF" "http://127.0.0.1:$PA/signin"
SESSION=$(awk '$6 == "nestory_session" {print $7}' "$JAR")
[ -n "$SESSION" ] || { echo "sign-in failed" >&2; exit 1; }
python3 - "$PA" "$TOKEN" "$ITEMS" <<'PY'
import json, sys, urllib.request
port, token, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
words = ["Walnut", "Oak", "Sony", "Canon", "Linen", "Copper", "Glass", "Leather", "Wool", "Steel"]
things = ["table", "chair", "camera", "lamp", "kettle", "rug", "speaker", "desk", "vase", "clock"]
for i in range(count):
    body = json.dumps({"name": f"{words[i % 10]} {things[(i // 10) % 10]} {i}", "price": str(10 + i % 990)}).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}/api/v1/items", data=body, method="POST",
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    urllib.request.urlopen(request).read()
PY
NGINX_PIDS=""
run_wrk() {  # label base path pids...  (AUTH: the header wrk sends, the session cookie unless set)
  local label=$1 base=$2 path=$3; shift 3
  local auth=${AUTH:-"Cookie: nestory_session=$SESSION"}
  local before_n before_pg after_n after_pg before_x after_x
  before_n=$(cpu "$@"); before_pg=$(cpu $(pgrep -x postgres)); before_x=$(cpu $NGINX_PIDS)
  wrk -t2 -c50 -d"${SECONDS_EACH}s" --latency -H "$auth" "$base$path" >"$DIR/wrk.out"
  after_n=$(cpu "$@"); after_pg=$(cpu $(pgrep -x postgres)); after_x=$(cpu $NGINX_PIDS)
  local rps requests p50 p99 errors
  rps=$(awk '/Requests\/sec/ {print $2}' "$DIR/wrk.out")
  requests=$(awk '/requests in/ {print $1}' "$DIR/wrk.out")
  p50=$(awk '$1 == "50%" {print $2}' "$DIR/wrk.out"); p99=$(awk '$1 == "99%" {print $2}' "$DIR/wrk.out")
  errors=$(grep -E "Non-2xx|Socket errors" "$DIR/wrk.out" | tr -s ' ' | tr '\n' ' ' || true)
  local tick; tick=$(getconf CLK_TCK)
  per() { awk -v a="$1" -v b="$2" -v t="$tick" -v n="$requests" 'BEGIN { printf "%.0f", (b - a) * 1000000 / t / n }'; }
  printf "| %-40s | %-16s | %9s | %7s | %7s | %9.0f | %9.0f | %9.0f | %s\n" "$label" "$path" "$rps" "$p50" "$p99" \
    "$(per "$before_n" "$after_n")" "$(per "$before_pg" "$after_pg")" "$(per "$before_x" "$after_x")" "$errors"
}
echo
echo "PostgreSQL $(psql --version 2>/dev/null | awk '{print $3}'), $ITEMS items in one household, wrk -t2 -c50 -d${SECONDS_EACH}s, $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
printf "| %-40s | %-16s | %9s | %7s | %7s | %9s | %9s | %9s |\n" "servers" "request" "req/s" "p50" "p99" "µs CPU/req, nestory" "PostgreSQL" "nginx"
printf "|%s|%s|%s|%s|%s|%s|%s|%s|\n" "------------------------------------------" "------------------" "-----------" "---------" "---------" "-----------" "-----------" "-----------"
A=${PIDS[0]}
for round in 1 2; do
  run_wrk "one server (round $round)" "http://127.0.0.1:$PA" "/api/v1/items" "$A"
  run_wrk "one server (round $round)" "http://127.0.0.1:$PA" "/api/v1/summary" "$A"
  AUTH="Authorization: Bearer $TOKEN" run_wrk "one server, API token (round $round)" "http://127.0.0.1:$PA" "/api/v1/items" "$A"
done
PB=$(free_port); serve b "$PB"; B=${PIDS[1]}
PN=$(free_port)
mkdir -p "$DIR/nginx"
cat >"$DIR/nginx/nginx.conf" <<NGINX
daemon off;
worker_processes 1;
pid $DIR/nginx/nginx.pid;
error_log $DIR/nginx/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $DIR/nginx/body;
  proxy_temp_path $DIR/nginx/proxy;
  upstream nestory { server 127.0.0.1:$PA; server 127.0.0.1:$PB; keepalive 64; }
  server {
    listen 127.0.0.1:$PN;
    location / { proxy_pass http://nestory; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_set_header Host \$http_host; }
  }
}
NGINX
/usr/sbin/nginx -p "$DIR/nginx" -c "$DIR/nginx/nginx.conf" &
NGINX_MASTER=$!
PIDS+=("$NGINX_MASTER")
wait_up "http://127.0.0.1:$PN"
NGINX_PIDS="$NGINX_MASTER $(pgrep -P "$NGINX_MASTER" | tr '\n' ' ')"
for round in 1 2; do
  run_wrk "two servers behind nginx (round $round)" "http://127.0.0.1:$PN" "/api/v1/items" "$A" "$B"
  run_wrk "two servers behind nginx (round $round)" "http://127.0.0.1:$PN" "/api/v1/summary" "$A" "$B"
  AUTH="Authorization: Bearer $TOKEN" run_wrk "two servers, API token (round $round)" "http://127.0.0.1:$PN" "/api/v1/items" "$A" "$B"
done
