#!/usr/bin/env bash
# Regenerates benches/hot-text/hot-text.ld, the list of functions benches/hot-text/build.rs links first in release builds
# (see benches/hot-text/build.rs for why). Not a benchmark: a maintenance tool, run after changes that move
# the startup or request path to other functions; benches/idle-rss.sh shows whether it is
# due (the idle RSS creeps back up as new hot code lands outside the section).
#
#   benches/hot-text/regenerate.sh            # rewrites benches/hot-text/hot-text.ld; review the diff, then rebuild
#   KEEP=1 PORT=8479 HTTPLOAD=/path/httpload benches/hot-text/regenerate.sh   # keep the profiles
#
# Each scenario runs the release binary under valgrind's callgrind, which records every
# instruction executed; the functions holding them are the hot set. Scenarios, in order
# (earlier ones first in the section, so the HTTP path packs tightest):
#   1. serve --http --profile conformance: 2025-11-25 handshake, tools/call echo, DELETE
#   2. the same in the 2026-07-28 era (no handshake, per-request _meta)
#   3. stdio --profile conformance: initialize, tools/call echo
#   4. HTTP again, 400 calls over 8 connections: what contention runs (a mutex's slow path
#      that one quiet request may or may not take, and then faults in a window of its own)
#   5. stdio again, 2,000 pipelined calls: the batched reads and writes of a busy session
#   6. stdio, the default workspace profile over a scratch root: initialize, tools/list
# HTTP requests come from httpload (../shared/bench/httpload, built into a scratch
# directory unless HTTPLOAD names a binary). Needs valgrind and python3.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind)" >&2; exit 1; }
PORT=${PORT:-8479}
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/minimcp-hot-text-XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$SCRATCH"' EXIT

cargo build --release --quiet
BIN=${CARGO_TARGET_DIR:-$PWD/target}/release/minimcp
if [ -z "${HTTPLOAD:-}" ]; then
  [ -d ../shared/bench/httpload ] || { echo "../shared/bench/httpload is absent: set HTTPLOAD" >&2; exit 1; }
  cargo build --release --quiet --manifest-path ../shared/bench/httpload/Cargo.toml \
    --target-dir "$SCRATCH/httpload"
  HTTPLOAD=$SCRATCH/httpload/release/httpload
fi

grind() { # OUT ARGS...: run the server under callgrind
  local out=$1; shift
  exec valgrind --quiet --tool=callgrind --dump-instr=yes --callgrind-out-file="$SCRATCH/$out" "$BIN" "$@"
}

http_scenario() { # OUT [httpload options]
  if (echo >/dev/tcp/127.0.0.1/$PORT) 2>/dev/null; then
    echo "port $PORT is taken: the profile would be some other server's (set PORT)" >&2
    exit 1
  fi
  # exec: $! must be valgrind itself, for callgrind_control.
  (exec 2>/dev/null; grind "$1" serve --profile conformance --http 127.0.0.1:$PORT) &
  local pid=$!
  for _ in $(seq 200); do (echo >/dev/tcp/127.0.0.1/$PORT) 2>/dev/null && break; sleep 0.05; done
  shift
  "$HTTPLOAD" load --url http://127.0.0.1:$PORT/mcp --warmup 0 --quiet "$@" >/dev/null ||
    { kill $pid; echo "httpload failed against the server under valgrind" >&2; exit 1; }
  # Killed, the server would leave no profile: callgrind is asked for one first.
  callgrind_control -d $pid >/dev/null 2>&1 || true
  sleep 0.5
  kill $pid 2>/dev/null || true
  wait $pid 2>/dev/null || true
}

init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"hot-text","version":"0"}}}'
ready='{"jsonrpc":"2.0","method":"notifications/initialized"}'
http_scenario http-legacy -n 1
http_scenario http-modern -n 1 --modern
http_scenario http-busy -n 400 -c 8
printf '%s\n' "$init" "$ready" '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}' |
  (grind stdio-conformance --profile conformance >/dev/null)
{
  printf '%s\n' "$init" "$ready"
  for i in $(seq 3 2000); do
    printf '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}\n' "$i"
  done
} | (grind stdio-busy --profile conformance >/dev/null)
mkdir "$SCRATCH/root" && echo hello >"$SCRATCH/root/a.txt"
printf '%s\n' "$init" "$ready" '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' |
  (grind stdio-workspace --root "$SCRATCH/root" >/dev/null)

nm --defined-only -S "$BIN" >"$SCRATCH/nm"
python3 - "$SCRATCH" >"$SCRATCH/hot-text.ld" <<'PY'
import bisect, collections, glob, os, re, sys
scratch = sys.argv[1]
# Functions by start address; aliases (functions LLVM merged) share one, and only one of
# them names the input section, so every alias gets a line.
funcs = collections.defaultdict(list)
for line in open(os.path.join(scratch, "nm")):
    f = line.split()
    if len(f) == 4 and f[2] in "tTwW" and int(f[1], 16) > 0:
        funcs[(int(f[0], 16), int(f[1], 16))].append(f[3])
starts = sorted(funcs)
keys = [s[0] for s in starts]

def executed(profile):
    """Instruction addresses callgrind saw in the minimcp binary (its own addresses, as nm)."""
    names, current, last, hits = {}, None, 0, set()
    for line in open(profile):
        m = re.match(r"(c?ob)=\((\d+)\)\s*(.*)", line)
        if m:
            if m.group(3):
                names[m.group(2)] = m.group(3)
            if m.group(1) == "ob":
                current = names.get(m.group(2), "")
            continue
        tok = line.split(" ", 1)[0].strip()
        if tok.startswith("0x"):
            last = int(tok, 16)
        elif tok[:1] in "+-" and tok[1:].isdigit():
            last += int(tok)
        elif tok != "*":
            continue
        if current and current.endswith("/minimcp"):
            hits.add(last)
    return hits

def pattern(symbol):
    """A glob that survives a rebuild: hashes and LLVM's clone suffixes become `*`."""
    symbol = re.sub(r"\.(llvm\.)?\d+$", "", symbol)
    if symbol.startswith("_ZN"):  # legacy mangling: ...17h<16 hex>E
        return re.sub(r"17h[0-9a-f]{16}E$", "17h*", symbol)
    if symbol.startswith("_R"):  # v0: crate disambiguators and back-references
        return re.sub(r"(Cs|B)[0-9A-Za-z]*_", r"\1*_", symbol) + "*"
    return symbol

order, modules, unmatched = [], [], 0
for name in ["http-legacy", "http-modern", "stdio-conformance", "http-busy", "stdio-busy",
             "stdio-workspace"]:
    profiles = glob.glob(os.path.join(scratch, name + "*"))
    hits = set().union(*(executed(p) for p in profiles)) if profiles else set()
    if not hits:
        sys.exit(f"hot-text: no profile for {name}")
    for a in sorted(hits):
        i = bisect.bisect_right(keys, a) - 1
        if i < 0 or a >= starts[i][0] + starts[i][1]:
            unmatched += 1
            continue
        for symbol in funcs[starts[i]]:
            p = pattern(symbol)
            if p not in order:
                order.append(p)
            # The library crates' modules on the request path (minimcp, minimcp_base,
            # minimcp_http; not the toolsets: the workspace ones are large and only their
            # registration runs at startup).
            m = re.match(r"_ZN(\d+)(minimcp(?:_base|_http)?)(\d+)", symbol)
            if m and int(m.group(1)) == len(m.group(2)) and name != "stdio-workspace":
                module = (m.group(2), symbol[m.end() : m.end() + int(m.group(3))])
                if module not in modules:
                    modules.append(module)
print("/* Generated by benches/hot-text/regenerate.sh: the functions startup and first requests run,")
print("   linked first and together (see build.rs). Regenerate, do not edit. */")
# Named .text, so that tools which know only one code section (valgrind) still see it all;
# the rest of the functions follow in the linker's usual order.
print("SECTIONS {\n  .text : {")
print("    *(.text)")  # the C start-up files' code (_start and its helpers) run first
for p in order:
    # LLVM names the section of a #[cold] function .text.unlikely.<symbol>: growing a
    # vector or a hash table is cold, and still runs at startup.
    print(f"    *(.text.{p} .text.unlikely.{p})")
# Then everything else of those modules, and the trait impls and generic instances over their
# types: a function added to the request path after this list was made lands here, next to
# the hot code, instead of anywhere in .text, so the layout decays slowly between runs.
for crate, module in modules:
    for p in (f"_ZN{len(crate)}{crate}{len(module)}{module}*", f"_ZN*$LT${crate}..{module}..*"):
        print(f"    *(.text.{p} .text.unlikely.{p})")
print("  }\n}\nINSERT AFTER .init;")
print(f"hot-text: {len(order)} functions, {len(modules)} modules, {unmatched} addresses outside any function", file=sys.stderr)
PY
mv "$SCRATCH/hot-text.ld" benches/hot-text/hot-text.ld
echo "wrote benches/hot-text/hot-text.ld; rebuild with cargo build --release and check benches/idle-rss.sh" >&2
