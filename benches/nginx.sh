#!/usr/bin/env bash
# 2026-07-28 (stateless) tools/call of `echo` through nginx, with one and with three
# minimcp instances behind it (tests/nginx/minimcp.conf), driven by wrk (Debian's `wrk`,
# installed if missing) with keep-alive connections. Prints req/s, latency, and CPU per
# request: the instances' (utime+stime from /proc/PID/stat) and nginx's worker's.
# A figure, not a test: nothing is asserted. On a 2-core machine the ratio between the two
# rows says more about the balancer sharing the cores than about scaling.
#
#   benches/nginx.sh [BIN] [SECONDS] [CONNECTIONS]   # defaults: target/release/minimcp, 5, 16
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="${1:-$ROOT/target/release/minimcp}"
SECS="${2:-5}"
CONNS="${3:-16}"
if [ "$BIN" = "$ROOT/target/release/minimcp" ]; then
  (cd "$ROOT" && cargo build --release --quiet)
fi
command -v wrk > /dev/null || apt-get install -y wrk > /dev/null 2>&1 || { echo "nginx.sh: cannot install wrk" >&2; exit 1; }
NGINX="$(command -v nginx || echo /usr/sbin/nginx)"
[ -x "$NGINX" ] || apt-get install -y nginx-light > /dev/null 2>&1 || { echo "nginx.sh: cannot install nginx" >&2; exit 1; }
NGINX="$(command -v nginx || echo /usr/sbin/nginx)"

SCRATCH="$(mktemp -d "${TMPDIR:-/tmp}/minimcp-nginx-bench.XXXXXX")"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2> /dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2> /dev/null || true; done
  rm -rf "$SCRATCH"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
ticks() { # PIDS...: their utime+stime, in clock ticks
  local sum=0
  for pid in "$@"; do
    # Fields 14 and 15, counted after the ")" that ends the command name.
    set -- $(sed 's/.*) //' "/proc/$pid/stat")
    sum=$((sum + ${12} + ${13}))
  done
  echo "$sum"
}
HZ=$(getconf CLK_TCK)
head -c 32 /dev/urandom | base64 > "$SCRATCH/state.key"

cat > "$SCRATCH/call.lua" << 'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2026-07-28"
wrk.headers["Mcp-Method"] = "tools/call"
wrk.headers["Mcp-Name"] = "echo"
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'
LUA

run() { # N: instances behind nginx (0: one instance, no nginx)
  local n=$1 ports=() pids=()
  for i in $(seq "$(( n > 0 ? n : 1 ))"); do
    local port; port=$(free_port)
    "$BIN" serve --http "127.0.0.1:$port" --profile conformance --state-key-file "$SCRATCH/state.key" \
      --max-connections 256 < /dev/null > /dev/null 2> "$SCRATCH/instance-$n-$i.log" &
    PIDS+=($!); pids+=($!); ports+=("$port")
  done
  local nport; nport=$(free_port)
  local dir="$SCRATCH/nginx-$n"
  mkdir -p "$dir/logs" "$dir/tmp"
  if [ "$n" = 0 ]; then
    sleep 0.3
    measure 0 "${ports[0]}" "$$" "${pids[@]}"
    kill "${pids[0]}"; wait "${pids[0]}" 2> /dev/null || true
    return
  fi
  sed -e "s/@PORT_A@/${ports[0]}/" -e "s/@PORT_B@/${ports[1]:-}/" -e "s/@PORT_C@/${ports[2]:-}/" \
    -e "s/@NGINX_PORT@/$nport/" "$ROOT/tests/nginx/minimcp.conf" \
    | { if [ "$n" = 1 ]; then grep -v '127.0.0.1: max_fails'; else cat; fi; } > "$dir/nginx.conf"
  "$NGINX" -p "$dir" -c "$dir/nginx.conf" -e "$dir/logs/error.log" -g 'daemon off;' 2> "$dir/stderr" &
  local master=$!
  PIDS+=($master)
  for _ in $(seq 100); do
    curl -sf "http://127.0.0.1:$nport/healthz" > /dev/null 2>&1 && break
    sleep 0.1
  done
  measure "$n" "$nport" "$(pgrep -P "$master" | head -1)" "${pids[@]}"
  for pid in "$master" "${pids[@]}"; do kill "$pid" 2> /dev/null || true; wait "$pid" 2> /dev/null || true; done
}

measure() { # N PORT NGINX_WORKER INSTANCE_PIDS...
  local n=$1 nport=$2 worker=$3 dir="$SCRATCH/nginx-$1"
  shift 3
  local pids=("$@")
  # Warm up connections, then measure.
  wrk -t 2 -c "$CONNS" -d 1s -s "$SCRATCH/call.lua" "http://127.0.0.1:$nport/mcp" > /dev/null
  local before nbefore; before=$(ticks "${pids[@]}"); nbefore=$(ticks "$worker")
  wrk -t 2 -c "$CONNS" -d "${SECS}s" --latency -s "$SCRATCH/call.lua" "http://127.0.0.1:$nport/mcp" > "$dir/wrk.out"
  local after nafter; after=$(ticks "${pids[@]}"); nafter=$(ticks "$worker")
  [ "$n" = 0 ] && nafter=$nbefore  # no nginx: the "worker" was this shell
  local requests; requests=$(awk '/requests in/ {print $1}' "$dir/wrk.out")
  local rps p50 p99 errors
  rps=$(awk '/Requests\/sec/ {print $2}' "$dir/wrk.out")
  p50=$(awk '$1=="50%" {print $2}' "$dir/wrk.out")
  p99=$(awk '$1=="99%" {print $2}' "$dir/wrk.out")
  errors=$(awk '/Non-2xx/ {print $NF}' "$dir/wrk.out")
  python3 - "$n" "$rps" "$p50" "$p99" "$requests" "$((after - before))" "$((nafter - nbefore))" "$HZ" "${errors:-0}" << 'PY'
import sys
n, rps, p50, p99, reqs, ticks, nticks, hz, errors = sys.argv[1:]
reqs = int(reqs)
us = lambda t: int(t) / int(hz) * 1e6 / max(reqs, 1)
print(f"| {n if n != '0' else '1, direct (no nginx)'} | {float(rps):,.0f} | {p50} | {p99} | {us(ticks):.0f} µs | {f'{us(nticks):.0f} µs' if n != '0' else '—'} | {errors} |")
PY
}

echo "nginx $("$NGINX" -v 2>&1 | sed 's/.*\///'), wrk -t 2 -c $CONNS -d ${SECS}s, 2026-07-28 tools/call echo, $(nproc) cores"
echo "| instances | req/s | p50 | p99 | instances' CPU per request | nginx's CPU per request | non-2xx |"
echo "|---|---|---|---|---|---|---|"
run 0
run 1
run 3
