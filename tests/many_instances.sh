#!/usr/bin/env bash
# Three minimcp instances behind nginx, driven by the official Python SDK.
#
#   tests/many_instances.sh         # from anywhere; builds target/release/minimcp if needed
#
# Installs nginx if missing (Debian: apt-get install nginx-light, else nginx) and `mcp` 2.3.0
# into a scratch venv (shared with tests/clients/run.sh); starts three instances
#   minimcp serve --http 127.0.0.1:PORT --profile conformance --page-size 2
#     --state-key-file KEY --session-route-header X-Mcp-Route --access-log --instance-id X
# and nginx with tests/nginx/minimcp.conf (ports filled in), all on loopback, then runs
# tests/nginx/driver.py: 2026-07-28 and legacy sessions, paging, calls, an elicitation
# retry answered by another instance, a listen stream, an instance killed mid-run.
# Every process it started is stopped on exit. It fails loudly (exit 1) when nginx or the
# SDK cannot be installed: CI must never pass without having run it.
#
# Environment: MINIMCP_BIN (default: target/release/minimcp, built here);
# MINIMCP_CLIENTS_HOME (the SDK venv's scratch, default ${TMPDIR:-/tmp}/minimcp-test-clients).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
CLIENTS="${MINIMCP_CLIENTS_HOME:-${TMPDIR:-/tmp}/minimcp-test-clients}"
PY_MCP_PIN=2.3.0

fail() {
  echo "" >&2
  echo "################################################################" >&2
  echo "many_instances: FAILED: $*" >&2
  echo "################################################################" >&2
  exit 1
}

# ---------- tools ----------
if ! command -v nginx > /dev/null && [ ! -x /usr/sbin/nginx ]; then
  echo "many_instances: installing nginx ..." >&2
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get install -y nginx-light > /dev/null 2>&1 \
    || $sudo apt-get install -y nginx > /dev/null 2>&1 \
    || { $sudo apt-get update > /dev/null 2>&1 && $sudo apt-get install -y nginx-light > /dev/null 2>&1; } \
    || fail "nginx is not installed and apt-get could not install it (nginx-light or nginx)"
fi
NGINX="$(command -v nginx || echo /usr/sbin/nginx)"
[ -x "$NGINX" ] || fail "no nginx executable after installing"

venv="$CLIENTS/py-mcp-$PY_MCP_PIN"
if ! "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('mcp') != '$PY_MCP_PIN')" 2>/dev/null; then
  echo "many_instances: installing mcp==$PY_MCP_PIN into $venv ..." >&2
  rm -rf "$venv"
  mkdir -p "$CLIENTS"
  python3 -m venv "$venv" || fail "python3 -m venv (is python3-venv installed?)"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "mcp==$PY_MCP_PIN" \
    > "$CLIENTS/pip-$PY_MCP_PIN.log" 2>&1 || { rm -rf "$venv"; fail "pip install mcp==$PY_MCP_PIN: $(tail -1 "$CLIENTS/pip-$PY_MCP_PIN.log")"; }
fi

if [ -z "${MINIMCP_BIN:-}" ]; then
  (cd "$ROOT" && cargo build --release --quiet) || fail "cargo build --release"
  MINIMCP_BIN="$ROOT/target/release/minimcp"
fi
[ -x "$MINIMCP_BIN" ] || fail "no executable at $MINIMCP_BIN"

# ---------- processes ----------
SCRATCH="$(mktemp -d "${TMPDIR:-/tmp}/minimcp-many.XXXXXX")"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2> /dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2> /dev/null || true; done
  rm -rf "$SCRATCH"
}
trap cleanup EXIT

# A free loopback port: bind port 0 and read what the OS chose.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

wait_http() { # URL: until it answers 200
  for _ in $(seq 100); do
    python3 - "$1" << 'PY' && return 0
import sys, urllib.request
try:
    sys.exit(0 if urllib.request.urlopen(sys.argv[1], timeout=1).status == 200 else 1)
except Exception:
    sys.exit(1)
PY
    sleep 0.1
  done
  return 1
}

head -c 32 /dev/urandom | base64 > "$SCRATCH/state.key"
INSTANCE_ARGS=()
declare -A PORT
for name in a b c; do
  PORT[$name]=$(free_port)
  "$MINIMCP_BIN" serve --http "127.0.0.1:${PORT[$name]}" --profile conformance --page-size 2 \
    --state-key-file "$SCRATCH/state.key" --session-route-header X-Mcp-Route \
    --access-log --instance-id "$name" < /dev/null > /dev/null 2> "$SCRATCH/$name.log" &
  PIDS+=($!)
  INSTANCE_ARGS+=(--instance "$name:$!:$SCRATCH/$name.log")
done
for name in a b c; do
  wait_http "http://127.0.0.1:${PORT[$name]}/healthz" || fail "instance $name did not start: $(cat "$SCRATCH/$name.log")"
done

NGINX_PORT=$(free_port)
mkdir -p "$SCRATCH/nginx/logs" "$SCRATCH/nginx/tmp"
sed -e "s/@PORT_A@/${PORT[a]}/" -e "s/@PORT_B@/${PORT[b]}/" -e "s/@PORT_C@/${PORT[c]}/" \
  -e "s/@NGINX_PORT@/$NGINX_PORT/" "$HERE/nginx/minimcp.conf" > "$SCRATCH/nginx/nginx.conf"
"$NGINX" -p "$SCRATCH/nginx" -c "$SCRATCH/nginx/nginx.conf" -e "$SCRATCH/nginx/logs/error.log" \
  -g 'daemon off;' 2> "$SCRATCH/nginx/stderr" &
PIDS+=($!)
wait_http "http://127.0.0.1:$NGINX_PORT/healthz" \
  || fail "nginx did not start: $(cat "$SCRATCH/nginx/stderr" "$SCRATCH/nginx/logs/error.log" 2> /dev/null)"
echo "many_instances: nginx $("$NGINX" -v 2>&1 | sed 's/.*\///') on :$NGINX_PORT -> instances a:${PORT[a]} b:${PORT[b]} c:${PORT[c]}"

# ---------- the run ----------
if ! "$venv/bin/python" "$HERE/nginx/driver.py" --url "http://127.0.0.1:$NGINX_PORT/mcp" "${INSTANCE_ARGS[@]}"; then
  for name in a b c; do echo "--- instance $name (last lines)" >&2; tail -n 15 "$SCRATCH/$name.log" >&2; done
  echo "--- nginx error.log" >&2; tail -n 20 "$SCRATCH/nginx/logs/error.log" >&2 || true
  fail "the driver reported a failure"
fi
for name in a b c; do
  echo "many_instances: instance $name answered $(grep -c ' access: ' "$SCRATCH/$name.log") requests"
done
echo "many_instances: passed"
