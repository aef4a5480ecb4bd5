#!/usr/bin/env bash
# Instructions the whole server executes per keep-alive tools/call over HTTP (legacy echo),
# counted by valgrind's callgrind: unlike req/s or CPU time on this shared 2-core VM, the count
# barely moves between runs, so it can tell a 2 % change from noise. It says nothing about the
# kernel's share (thread wakeups and TCP, most of the CPU per call); req/s and CPU per call
# come from ../shared/bench/run-http-peers.sh. A figure, not a test: nothing is asserted.
#
#   benches/http_instructions.sh [BIN...]   # default: target/release/minimcp; several = A/B
#
# Each binary is counted in both eras: legacy (a session, Mcp-Session-Id) and modern
# (2026-07-28: per-request _meta and Mcp-* headers, httpload --modern).
# Needs valgrind and ../shared/bench/httpload (built into $PEERS_DIR/httpload-target, as
# run-http-peers.sh does). Env: N (requests, default 2000), PORT (default 18451),
# ERAS (default "legacy modern"), SERVER_ARGS (appended to the server's command line, such as
# "--log-level info"; its stderr goes to /dev/null).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH="$ROOT/../shared/bench"
N="${N:-2000}"
PORT="${PORT:-18451}"
[ $# -gt 0 ] || { (cd "$ROOT" && cargo build --release --quiet); set -- "$ROOT/target/release/minimcp"; }
command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 2; }
TARGET="${PEERS_DIR:-/tmp/peers}/httpload-target"
HTTPLOAD="$TARGET/release/httpload"
if [ ! -x "$HTTPLOAD" ]; then
  [ -d "$BENCH/httpload" ] || { echo "needs $BENCH/httpload" >&2; exit 2; }
  (cd "$BENCH/httpload" && CARGO_TARGET_DIR="$TARGET" cargo build --release -q)
fi
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
URL="http://127.0.0.1:$PORT/mcp"
for era in ${ERAS:-legacy modern}; do
flags=()
[ "$era" = modern ] && flags=(--modern)
for bin in "$@"; do
  rm -f "$OUT"/cg.*
  valgrind --tool=callgrind --callgrind-out-file="$OUT/cg.out" \
    "$bin" serve --profile conformance --http "127.0.0.1:$PORT" ${SERVER_ARGS:-} 2>/dev/null &
  pid=$!
  for _ in $(seq 200); do (echo >"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break; sleep 0.1; done
  # Warm up (threads, lazy state), then count only the measured requests.
  "$HTTPLOAD" --url "$URL" -n 20 --warmup 0 --quiet --timeout 120 "${flags[@]}" >/dev/null
  sleep 0.5
  callgrind_control -z "$pid" >/dev/null 2>&1
  ok="$("$HTTPLOAD" --url "$URL" -n "$N" --warmup 0 --quiet --timeout 120 "${flags[@]}" |
    grep -o '"ok":[a-z]*')"
  callgrind_control -d "$pid" >/dev/null 2>&1
  sleep 0.5
  kill "$pid"; wait "$pid" 2>/dev/null || true
  total=$(cat "$OUT"/cg.out.* | awk '/^summary:/ {s += $2} END {print s + 0}')
  echo "$bin ${SERVER_ARGS:-}: $((total / N)) instructions per $era tools/call ($N keep-alive requests, $ok)"
done
done
