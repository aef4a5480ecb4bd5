#!/usr/bin/env bash
# The library's files a stdio `tools/call echo` runs code from, counted by valgrind's
# callgrind on a debug build (nothing inlined, so each function keeps its file): the
# instructions per file for N calls minus those for none (start-up, the handshake and exit),
# divided by N, for every file of the library crates (`minimcp` and `minimcp-base`).
# Helpers that `crates/minimcp/src/README.md` says need not be read first (the schema validator, the
# models, logging) are in the list too: it is what runs, not what to read. A figure, not a
# test: nothing is asserted.
#
#   benches/stdio_path_files.sh [BIN...]   # default: target/debug/minimcp; several = A/B
#
# Needs valgrind (callgrind_annotate). Env: N (calls, default 20).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
N="${N:-20}"
[ $# -gt 0 ] || { (cd "$ROOT" && cargo build --quiet); set -- "$ROOT/target/debug/minimcp"; }
command -v callgrind_annotate >/dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 2; }
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
input() {
  echo '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"count","version":"1"}}}'
  echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  for ((i = 1; i <= $1; i++)); do
    echo '{"jsonrpc":"2.0","id":'"$i"',"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}'
  done
}
per_file() { # BIN CALLS -> "CRATE/src/FILE instructions" lines (the binary's: "src/FILE"), sorted
  input "$2" >"$OUT/in"
  valgrind --tool=callgrind --callgrind-out-file="$OUT/cg" "$1" serve --profile conformance \
    <"$OUT/in" >/dev/null 2>&1
  # Each line: instructions, (percent), file:function. The project's files are the ones
  # outside the toolchain's and cargo's sources; their path is cut to start at the crate's
  # folder under crates/ (or at src/ for the binary's). minimcp/src/lib.rs is left out: it holds no code a call runs, and callgrind files under it
  # generic code of other crates instantiated in this one.
  callgrind_annotate --threshold=100 "$OUT/cg" 2>/dev/null | awk '
    $1 ~ /^[0-9,]+$/ {
      for (i = 2; i <= NF; i++) if ($i ~ /\/src\/.*\.rs/ && $i !~ /^\/rustc?\// && $i !~ /\/\.cargo\//) {
        n = $1; gsub(",", "", n); split($i, part, ":"); f = part[1]; sub(/>$/, "", f)
        if (f ~ /\/crates\/[^\/]+\/src\//) sub(/^.*\/crates\//, "", f); else sub(/^.*\/src\//, "src/", f)
        sum[f] += n; break
      }
    }
    END { for (f in sum) print f, sum[f] }' | sort
}
for bin in "$@"; do
  per_file "$bin" 0 >"$OUT/none"
  per_file "$bin" "$N" >"$OUT/calls"
  join -a2 -e0 -o 0,1.2,2.2 "$OUT/none" "$OUT/calls" | awk -v n="$N" '
    $1 ~ /^minimcp(-base)?\/src\// && $1 != "minimcp/src/lib.rs" \
      && $3 - $2 >= n { printf "  %-28s %8d\n", $1, ($3 - $2) / n }' >"$OUT/files"
  echo "$bin: $(wc -l <"$OUT/files") library files run code per stdio tools/call ($N calls), instructions per call (debug build):"
  cat "$OUT/files"
done
