#!/usr/bin/env bash
# Real MCP clients against minimcp over stdio.
#
#   tests/clients/run.sh            # from anywhere; builds target/release/minimcp if needed
#
# Installs, pinned, into a scratch directory (never into the project):
#   - the official Python SDK `mcp` 1.30.0 and 2.3.0 (one venv each),
#   - the official TypeScript SDK @modelcontextprotocol/sdk 1.32.2 and the MCP Inspector CLI
#     @modelcontextprotocol/inspector-cli 1.0.3 (npm install --prefix),
# then spawns the binary and runs:
#   1. python_client.py with each mcp version against `serve --profile conformance --page-size 2`:
#      every protocol version the SDK can offer (2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25,
#      and with mcp 2.x the stateless 2026-07-28; plus 2024-10-07, which minimcp does not speak,
#      to check its counter-offer), each exercising handshake, ping, every listing
#      followed through nextCursor, tools/call, resources list/read/templates/subscribe,
#      prompts, completion, logging, progress, and sampling + elicitation round trips;
#   2. ts_client.mjs, the same against the TypeScript SDK (2024-10-07 ... 2025-11-25);
#   3. both clients in --generic mode against the default profile, and in --roots mode against
#      the default profile started without --root: the client's roots/list answer (this
#      directory) is what is served, read by absolute path and by RFC 8089 file URI;
#   4. the Inspector CLI: tools/list and a tools/call of `echo`; and every output schema compiled
#      with Ajv 8.17.1 and 6.12.6 as the Inspector compiles them (any warning fails);
#   5. the Python (both versions, 2026-07-28 included with mcp 2.x) and TypeScript clients of
#      1. and 2. again over Streamable HTTP, against one `serve --http 127.0.0.1:0` process;
#   6. the Python clients of 1. (both versions) once more over Streamable HTTP on a Unix socket,
#      against one `serve --http unix:PATH` process (the SDK's transport given an httpx client
#      with `uds=PATH`), checking the socket's mode 0600 first, and failing on any traceback
#      the client prints (mcp 2.x printed an asyncio InvalidStateError on exit);
#   7. both clients in --edit mode against `serve --root SCRATCH --toolsets workspace,edit`:
#      write_file, read_file's sha256, edit_file with expected_sha256, read back, a stale hash
#      refused with isError and the disk untouched, a dry run with the reference names.
# Each client prints a check x version table. The last line is "clients: N passed, M failed".
# Exit status 0 only if every check passed. If a package cannot be installed (no network to
# the registries and nothing cached) it prints a NO NETWORK banner and exits 1: CI must never
# pass without having run the clients.
#
# Environment: MINIMCP_BIN (default: target/release/minimcp, built here);
# MINIMCP_CLIENTS_HOME (the scratch install, default ${TMPDIR:-/tmp}/minimcp-test-clients;
# reused while the pins match).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
SCRATCH="${MINIMCP_CLIENTS_HOME:-${TMPDIR:-/tmp}/minimcp-test-clients}"
PY_MCP_PINS=(1.30.0 2.3.0)
TS_SDK_PIN=1.32.2
INSPECTOR_CLI_PIN=1.0.3
# The validators the MCP Inspector compiles output schemas with: Ajv 8 (Inspector 1.x/2.x) and
# Ajv 6 (its 0.x line), installed side by side (`ajv6` is an npm alias).
AJV_PIN=8.17.1
AJV6_PIN=6.12.6
START=$(date +%s)

banner() {
  echo "" >&2
  echo "################################################################" >&2
  echo "clients: $*" >&2
  echo "################################################################" >&2
}
no_network() {
  banner "NO NETWORK: could not install $1. The real-client tests did NOT run. ($2)"
  exit 1
}

# ---------- the binary ----------
if [ -z "${MINIMCP_BIN:-}" ]; then
  echo "clients: building the release binary ..." >&2
  (cd "$ROOT" && cargo build --release --quiet) || { banner "FAILED: cargo build --release"; exit 1; }
  MINIMCP_BIN="$ROOT/target/release/minimcp"
fi
[ -x "$MINIMCP_BIN" ] || { banner "FAILED: no executable at $MINIMCP_BIN"; exit 1; }

# ---------- installs (reused while the pins match) ----------
mkdir -p "$SCRATCH"
for pin in "${PY_MCP_PINS[@]}"; do
  venv="$SCRATCH/py-mcp-$pin"
  if ! "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('mcp') != '$pin')" 2>/dev/null; then
    echo "clients: installing mcp==$pin into $venv ..." >&2
    rm -rf "$venv"
    python3 -m venv "$venv" || { banner "FAILED: python3 -m venv (is python3-venv installed?)"; exit 1; }
    if ! "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "mcp==$pin" > "$SCRATCH/pip-$pin.log" 2>&1; then
      rm -rf "$venv"
      no_network "mcp==$pin with pip" "$(tail -1 "$SCRATCH/pip-$pin.log")"
    fi
  fi
done

TS="$SCRATCH/ts"
installed() { node -p "require('$TS/node_modules/$1/package.json').version" 2>/dev/null || true; }
if [ "$(installed @modelcontextprotocol/sdk)" != "$TS_SDK_PIN" ] \
  || [ "$(installed @modelcontextprotocol/inspector-cli)" != "$INSPECTOR_CLI_PIN" ] \
  || [ "$(installed ajv)" != "$AJV_PIN" ] || [ "$(installed ajv6)" != "$AJV6_PIN" ]; then
  echo "clients: installing @modelcontextprotocol/sdk@$TS_SDK_PIN and inspector-cli@$INSPECTOR_CLI_PIN into $TS ..." >&2
  command -v npm > /dev/null || { banner "FAILED: npm not found (install Node.js and npm)"; exit 1; }
  rm -rf "$TS"
  mkdir -p "$TS"
  echo '{"name":"minimcp-test-clients","private":true,"type":"module"}' > "$TS/package.json"
  if ! npm install --prefix "$TS" --no-audit --no-fund --loglevel=error \
    "@modelcontextprotocol/sdk@$TS_SDK_PIN" "@modelcontextprotocol/inspector-cli@$INSPECTOR_CLI_PIN" \
    "ajv@$AJV_PIN" "ajv6@npm:ajv@$AJV6_PIN" \
    > "$SCRATCH/npm.log" 2>&1; then
    rm -rf "$TS"
    no_network "@modelcontextprotocol/sdk@$TS_SDK_PIN and @modelcontextprotocol/inspector-cli@$INSPECTOR_CLI_PIN with npm" \
      "$(grep -m1 -i 'error' "$SCRATCH/npm.log" || tail -1 "$SCRATCH/npm.log")"
  fi
fi
# ESM resolves packages next to the importing file: run the client from the install.
cp "$HERE/ts_client.mjs" "$HERE/ajv_check.mjs" "$TS/"

# ---------- runs ----------
FIXTURES=("$MINIMCP_BIN" serve --profile conformance --page-size 2)
# The default profile serves a directory: this one (a handful of files), so a page size of 2
# still yields a few pages rather than one per two files of the whole repository.
DEFAULT=("$MINIMCP_BIN" serve --root "$HERE" --page-size 2)
TOTAL_PASSED=0 TOTAL_FAILED=0
SUMMARY=()

# Runs one client command, shows its output, adds its "N passed, M failed" to the totals.
run() {
  local name="$1"
  shift
  local out rc t0=$SECONDS
  echo "" >&2
  echo "clients: $name ..." >&2
  set +e
  out="$("$@" 2>&1)"
  rc=$?
  set -e
  echo "$out"
  local counts passed failed
  counts="$(echo "$out" | grep -E '[0-9]+ passed, [0-9]+ failed$' | tail -1)"
  passed="$(echo "$counts" | sed -nE 's/.*\b([0-9]+) passed.*/\1/p')"
  failed="$(echo "$counts" | sed -nE 's/.*\b([0-9]+) failed.*/\1/p')"
  if [ -z "$counts" ]; then passed=0 failed=1; fi # crashed before its summary
  if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
  # With NO_TRACEBACK=1 a Python traceback anywhere in the output (an asyncio callback's
  # included, which does not change the exit status) is one more failure.
  if [ -n "${NO_TRACEBACK:-}" ] && grep -q -E 'Traceback \(most recent call last\)|^Exception in callback' <<<"$out"; then
    echo "FAIL the client printed a traceback (above)"
    failed=$((failed + 1))
  fi
  TOTAL_PASSED=$((TOTAL_PASSED + passed))
  TOTAL_FAILED=$((TOTAL_FAILED + failed))
  local status=PASS
  [ "$failed" -eq 0 ] || status=FAIL
  SUMMARY+=("$(printf '%-4s %-58s %4s passed %3s failed %4ss' "$status" "$name" "$passed" "$failed" $((SECONDS - t0)))")
}

for pin in "${PY_MCP_PINS[@]}"; do
  run "python mcp $pin, conformance profile" "$SCRATCH/py-mcp-$pin/bin/python" "$HERE/python_client.py" -- "${FIXTURES[@]}"
done
run "typescript sdk $TS_SDK_PIN, conformance profile" bash -c 'cd "$0" && node ts_client.mjs -- "${@}"' "$TS" "${FIXTURES[@]}"
run "python mcp ${PY_MCP_PINS[-1]}, default profile (generic)" \
  "$SCRATCH/py-mcp-${PY_MCP_PINS[-1]}/bin/python" "$HERE/python_client.py" --generic -- "${DEFAULT[@]}"
run "typescript sdk $TS_SDK_PIN, default profile (generic)" bash -c 'cd "$0" && node ts_client.mjs --generic -- "${@}"' "$TS" "${DEFAULT[@]}"
# No --root: the roots are the client's. Handshake versions only (roots/list is a request).
ROOTS_SERVER=("$MINIMCP_BIN" serve --page-size 2)
HANDSHAKE_VERSIONS=2024-11-05,2025-03-26,2025-06-18,2025-11-25
run "python mcp ${PY_MCP_PINS[-1]}, client roots + absolute paths" \
  "$SCRATCH/py-mcp-${PY_MCP_PINS[-1]}/bin/python" "$HERE/python_client.py" --roots "$HERE" --versions "$HANDSHAKE_VERSIONS" -- "${ROOTS_SERVER[@]}"
run "typescript sdk $TS_SDK_PIN, client roots + absolute paths" bash -c 'cd "$0" && node ts_client.mjs --roots "$1" --versions "$2" -- "${@:3}"' "$TS" "$HERE" "$HANDSHAKE_VERSIONS" "${ROOTS_SERVER[@]}"

# The edit toolset, end to end: each client edits a file in a scratch root of its own, at every
# version it speaks (mcp 2.x includes 2026-07-28, where each call stands alone).
EDIT_ROOT="$(mktemp -d "${TMPDIR:-/tmp}/minimcp-clients-edit.XXXXXX")"
for pin in "${PY_MCP_PINS[@]}"; do
  mkdir -p "$EDIT_ROOT/py-$pin"
  run "python mcp $pin, edit toolset" "$SCRATCH/py-mcp-$pin/bin/python" "$HERE/python_client.py" \
    --edit "$EDIT_ROOT/py-$pin" -- "$MINIMCP_BIN" serve --root "$EDIT_ROOT/py-$pin" --toolsets workspace,edit
done
mkdir -p "$EDIT_ROOT/ts"
run "typescript sdk $TS_SDK_PIN, edit toolset" bash -c 'cd "$0" && node ts_client.mjs --edit "$1" -- "${@:2}"' \
  "$TS" "$EDIT_ROOT/ts" "$MINIMCP_BIN" serve --root "$EDIT_ROOT/ts" --toolsets workspace,edit
rm -rf "$EDIT_ROOT"

# The same clients over Streamable HTTP: one `serve --http` process, every version on it.
HTTP_LOG="$(mktemp "${TMPDIR:-/tmp}/minimcp-clients-http.XXXXXX")"
"${FIXTURES[@]}" --http 127.0.0.1:0 2> "$HTTP_LOG" &
HTTP_PID=$!
trap 'kill "$HTTP_PID" 2>/dev/null || true; rm -f "$HTTP_LOG"' EXIT
HTTP_URL=""
for _ in $(seq 50); do
  HTTP_URL="$(sed -n 's|.*listening on \(http://127.0.0.1:[0-9]*/mcp\).*|\1|p' "$HTTP_LOG" | head -1)"
  [ -n "$HTTP_URL" ] && break
  sleep 0.1
done
[ -n "$HTTP_URL" ] || { banner "FAILED: serve --http did not start: $(cat "$HTTP_LOG")"; exit 1; }
for pin in "${PY_MCP_PINS[@]}"; do
  run "python mcp $pin, conformance profile, HTTP" "$SCRATCH/py-mcp-$pin/bin/python" "$HERE/python_client.py" -- "$HTTP_URL"
done
run "typescript sdk $TS_SDK_PIN, conformance profile, HTTP" bash -c 'cd "$0" && node ts_client.mjs -- "${@}"' "$TS" "$HTTP_URL"
kill "$HTTP_PID" 2>/dev/null || true

# And over a Unix socket: `serve --http unix:PATH`, the same Python checks (all eras). The
# server is stopped by a signal, which leaves the socket file behind: removed here.
UNIX_DIR="$(mktemp -d "${TMPDIR:-/tmp}/minimcp-clients-unix.XXXXXX")"
UNIX_SOCK="$UNIX_DIR/m.sock"
"${FIXTURES[@]}" --http "unix:$UNIX_SOCK" 2> "$UNIX_DIR/log" &
UNIX_PID=$!
trap 'kill "$HTTP_PID" "$UNIX_PID" 2>/dev/null || true; rm -f "$HTTP_LOG"; rm -rf "$UNIX_DIR"' EXIT
for _ in $(seq 50); do
  grep -q 'listening on unix:' "$UNIX_DIR/log" && break
  sleep 0.1
done
grep -q 'listening on unix:' "$UNIX_DIR/log" || { banner "FAILED: serve --http unix: did not start: $(cat "$UNIX_DIR/log")"; exit 1; }
unix_mode() {
  local mode
  mode="$(stat -c %a "$UNIX_SOCK")"
  if [ -S "$UNIX_SOCK" ] && [ "$mode" = 600 ]; then
    echo "PASS socket mode 600"; echo "unix socket: 1 passed, 0 failed"
  else
    echo "FAIL socket mode $mode"; echo "unix socket: 0 passed, 1 failed"; return 1
  fi
}
run "unix socket file, mode 0600" unix_mode
# mcp 2.x's exit used to print an asyncio InvalidStateError traceback here (anyio reads a Unix
# socket with a callback that fails when the read is cancelled in the event-loop turn the socket
# turns readable: the session's event stream ending just as the client closed it after DELETE).
# The server now leaves that stream to the client for a second: no traceback, or it fails.
for pin in "${PY_MCP_PINS[@]}"; do
  NO_TRACEBACK=1 run "python mcp $pin, conformance profile, HTTP, unix socket" "$SCRATCH/py-mcp-$pin/bin/python" "$HERE/python_client.py" -- "unix:$UNIX_SOCK"
done
kill "$UNIX_PID" 2>/dev/null || true

# The Inspector CLI 1.0.3 decides between ../package.json and ../../package.json by looking
# relative to the working directory but imports relative to its own file, so it only starts from
# a directory whose parent holds a package.json (modelcontextprotocol/inspector#1503): run it
# from its own build directory.
inspector_check() {
  local build="$TS/node_modules/@modelcontextprotocol/inspector-cli/build"
  local listed called
  # The CLI shows one page of tools/list (it does not follow nextCursor): default page size.
  local server=("$MINIMCP_BIN" serve --profile conformance)
  listed="$(cd "$build" && node index.js "${server[@]}" --method tools/list)"
  called="$(cd "$build" && node index.js "${server[@]}" --method tools/call --tool-name echo --tool-arg 'text=hi inspector')"
  python3 - "$listed" "$called" << 'EOF'
import json, sys
listed, called = json.loads(sys.argv[1]), json.loads(sys.argv[2])
names = [t["name"] for t in listed["tools"]]
checks = {
    "tools/list: every fixture tool, each described": len(names) == len(set(names)) >= 15
        and {"echo", "test_simple_text", "test_sampling", "json_schema_2020_12_tool"} <= set(names)
        and all(t.get("description") for t in listed["tools"]),
    "tools/call echo": called == {"content": [{"type": "text", "text": "hi inspector"}]},
}
for name, ok in checks.items():
    print(f"{'PASS' if ok else 'FAIL'} {name}")
print(f"MCP Inspector CLI: {sum(checks.values())} passed, {len(checks) - sum(checks.values())} failed")
sys.exit(0 if all(checks.values()) else 1)
EOF
}
run "inspector-cli $INSPECTOR_CLI_PIN, conformance profile" inspector_check

# Every output schema compiled as the Inspector compiles it (tests/output_schemas.rs holds the
# same rules in cargo test): list_templates' list of types drew a strict-mode warning.
ajv_check() {
  local lists
  lists="$(mktemp -d)"
  "$MINIMCP_BIN" call tools/list --json --page-size 1000 --toolsets workspace,templates,analysis,edit > "$lists/workspace.json"
  "$MINIMCP_BIN" call tools/list --json --page-size 1000 --profile transcripts > "$lists/transcripts.json"
  (cd "$TS" && node ajv_check.mjs "$lists/workspace.json" "$lists/transcripts.json")
  local rc=$?
  rm -rf "$lists"
  return $rc
}
run "ajv $AJV_PIN and $AJV6_PIN (the Inspector's), every output schema" ajv_check

echo ""
echo "Real MCP clients against $MINIMCP_BIN ($(( $(date +%s) - START )) s):"
printf '%s\n' "${SUMMARY[@]}"
if [ "$TOTAL_FAILED" -ne 0 ]; then
  banner "FAILED: $TOTAL_FAILED check(s) failed (see the tables above)"
fi
echo "clients: $TOTAL_PASSED passed, $TOTAL_FAILED failed"
[ "$TOTAL_FAILED" -eq 0 ]
