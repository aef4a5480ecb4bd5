#!/usr/bin/env bash
# Instructions the server executes per stdio `tools/call echo` (2025-11-25 session), counted
# by valgrind's callgrind: the count for N calls minus the count for none (start-up, the
# handshake and exit), divided by N. Repeatable to a fraction of a percent, so it can show a
# small change that req/s on this shared VM cannot (throughput: `cargo bench`). A figure,
# not a test: nothing is asserted.
#
#   benches/stdio_instructions.sh [BIN...]   # default: target/release/minimcp; several = A/B
#
# Needs valgrind. Env: N (calls, default 5000), SERVER_ARGS (appended to the server's command
# line, such as "--log-level info"; its stderr goes to /dev/null).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
N="${N:-5000}"
[ $# -gt 0 ] || { (cd "$ROOT" && cargo build --release --quiet); set -- "$ROOT/target/release/minimcp"; }
command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 2; }
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
input() {
  echo '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"count","version":"1"}}}'
  echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  for ((i = 1; i <= $1; i++)); do
    echo '{"jsonrpc":"2.0","id":'"$i"',"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}'
  done
}
count() { # BIN CALLS -> total instructions
  input "$2" >"$OUT/in"
  # shellcheck disable=SC2086 # SERVER_ARGS is a list of words
  valgrind --tool=callgrind --callgrind-out-file="$OUT/cg" "$1" serve --profile conformance ${SERVER_ARGS:-} \
    <"$OUT/in" 2>/dev/null | grep -c '"result"' >"$OUT/answers" || true
  [ "$(cat "$OUT/answers")" -eq $(($2 + 1)) ] || { echo "$1: $(cat "$OUT/answers") answers for $(($2 + 1)) requests" >&2; exit 1; }
  awk '/^(summary|totals):/ {print $2; exit}' "$OUT/cg"
}
for bin in "$@"; do
  none=$(count "$bin" 0)
  all=$(count "$bin" "$N")
  echo "$bin ${SERVER_ARGS:-}: $(((all - none) / N)) instructions per stdio tools/call ($N calls)"
done
