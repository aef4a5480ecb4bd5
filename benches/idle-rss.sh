#!/usr/bin/env bash
# Idle RSS and startup of `serve --http`, as the performance targets define them: httpload's
# `startup` (spawn -> listening -> handshake -> first verified tools/call; idle RSS is the server's
# VmRSS right after that first reply), in both protocol eras. A figure, not a test.
#
#   benches/idle-rss.sh [BIN...]     # default: target/release/minimcp; several = A/B
#
# Env: REPS (spawns per figure, default 5), PORT (default 8473), HTTPLOAD (else built from
# ../shared/bench/httpload into $PEERS_DIR/httpload-target, as run-http-peers.sh does),
# MAX_KIB (exit 1 if a median idle RSS is above it; the target is 3072). The same
# binary measures within about 150 KiB from run to run (see benches/README.md, "Idle memory").
# Also prints where the resident pages are (/proc/PID/smaps of one more idle server): mapped
# code is most of it, and benches/hot-text/hot-text.ld decides how much of the binary's code that is.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REPS=${REPS:-5}
PORT=${PORT:-8473}
[ $# -gt 0 ] || { (cd "$ROOT" && cargo build --release --quiet); set -- "$ROOT/target/release/minimcp"; }
HTTPLOAD=${HTTPLOAD:-${PEERS_DIR:-/tmp/peers}/httpload-target/release/httpload}
if [ ! -x "$HTTPLOAD" ]; then
  [ -d "$ROOT/../shared/bench/httpload" ] || { echo "needs ../shared/bench/httpload or HTTPLOAD" >&2; exit 2; }
  (cd "$ROOT/../shared/bench/httpload" &&
    CARGO_TARGET_DIR="${PEERS_DIR:-/tmp/peers}/httpload-target" cargo build --release -q)
fi
URL=http://127.0.0.1:$PORT/mcp
over=0
for bin in "$@"; do
  for era in legacy modern; do
    flag=(); [ $era = modern ] && flag=(--modern)
    printf '%-40s %-7s ' "$bin" "$era"
    "$HTTPLOAD" startup --url "$URL" -r "$REPS" "${flag[@]}" -- \
      "$bin" serve --profile conformance --http "127.0.0.1:$PORT" 2>/dev/null |
      python3 -c 'import json,sys; d=json.load(sys.stdin)
print("idle RSS %6.0f KiB  listen %4.1f ms  first reply %4.1f ms  ok=%s" % (d["idle_rss_kib"], d["listen_ms"], d["first_response_ms"], d["ok"]))
sys.exit(0 if d["ok"] and d["idle_rss_kib"] <= float(sys.argv[1]) else 1)' "${MAX_KIB:-inf}" || over=1
  done
  # Where the pages are: one more server, one call, its smaps by mapped file.
  "$bin" serve --profile conformance --http "127.0.0.1:$PORT" 2>/dev/null &
  pid=$!
  trap 'kill $pid 2>/dev/null || true' EXIT
  for _ in $(seq 200); do (echo >"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break; sleep 0.01; done
  "$HTTPLOAD" load --url "$URL" -n 1 --warmup 0 --quiet >/dev/null
  python3 - "$pid" <<'PY'
import collections, sys
rss, name = collections.Counter(), None
for line in open(f"/proc/{sys.argv[1]}/smaps"):
    f = line.split()
    if not f[0].endswith(":"):
        name = f[5].rsplit("/", 1)[-1] if len(f) > 5 else "[anon]"
    elif f[0] == "Rss:":
        rss[name] += int(f[1])
print("    " + ", ".join(f"{n} {k}" for n, k in rss.most_common() if k) + f"; total {sum(rss.values())} KiB")
PY
  kill $pid
  wait $pid 2>/dev/null || true
done
[ $over = 0 ] || { echo "idle RSS above MAX_KIB=${MAX_KIB:-} (or a failed startup)" >&2; exit 1; }
