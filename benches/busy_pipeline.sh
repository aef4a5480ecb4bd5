#!/usr/bin/env bash
# A client pipelines tool calls whose handler checks for cancellation
# (the workspace `search_files` walk over 300 files, which checks for cancellation every 250
# entries; about 0.3 ms) as fast as the pipe takes them.
# Prints how many calls were answered and how many refused with -32003 ("overloaded").
# A figure, not a test: nothing is asserted about time.
#
#   benches/busy_pipeline.sh [BIN] [CALLS]     # defaults: target/release/minimcp, 20000
#
# Run it against two binaries side by side to compare (e.g. main's and this branch's).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="${1:-$ROOT/target/release/minimcp}"
CALLS="${2:-20000}"
if [ "$BIN" = "$ROOT/target/release/minimcp" ]; then
  (cd "$ROOT" && cargo build --release --quiet)
fi
TREE="$(mktemp -d)"
trap 'rm -rf "$TREE"' EXIT
for d in a b c; do mkdir -p "$TREE/$d"; for i in $(seq 100); do : > "$TREE/$d/f$i.rs"; done; done
python3 - "$BIN" "$CALLS" "$TREE" <<'EOF'
import json, subprocess, sys, threading, time
bin_, calls, root = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def start():
    return subprocess.Popen([bin_, "serve", "--profile", "workspace", "--root", root],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
init = [{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
         "capabilities": {}, "clientInfo": {"name": "busy", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"}]
def call(i):
    return {"jsonrpc": "2.0", "id": i, "method": "tools/call",
            "params": {"name": "search_files", "arguments": {"pattern": "**/*.md"}}}
def lines(msgs):
    return b"".join(json.dumps(m).encode() + b"\n" for m in msgs)

# One call at a time: how long the handler takes.
p = start()
p.stdin.write(lines(init)); p.stdin.flush(); p.stdout.readline()
t = time.perf_counter()
for i in range(1, 201):
    p.stdin.write(lines([call(i)])); p.stdin.flush(); p.stdout.readline()
per_call_ms = (time.perf_counter() - t) / 200 * 1000
p.stdin.close(); p.wait()

# Pipelined: everything written at once by another thread.
p = start()
def feed():
    p.stdin.write(lines(init) + lines(call(i) for i in range(1, calls + 1)))
    p.stdin.close()
threading.Thread(target=feed, daemon=True).start()
answered = refused = other = 0
t = time.perf_counter()
for raw in p.stdout:
    m = json.loads(raw)
    if m.get("id") == 0:
        continue
    if "result" in m:
        answered += 1
    elif m.get("error", {}).get("code") == -32003:
        refused += 1
    else:
        other += 1
elapsed = time.perf_counter() - t
p.wait()
print(f"{bin_}: one call at a time {per_call_ms:.3f} ms/call; pipelined {calls} calls: "
      f"{answered} answered, {refused} refused (-32003), {other} other errors, "
      f"{answered / elapsed:.0f} answers/s")
EOF
