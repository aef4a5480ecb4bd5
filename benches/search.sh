#!/usr/bin/env bash
# Benchmark (not a test): search_text against ripgrep and grep, on one thread, measured
# interleaved in one run (A B C A B C ...) so drift in the machine's speed hits every
# command alike. Prints median wall and CPU times and the ratios to minimcp.
#
#   benches/search.sh                         # the generated 50,000-file tree
#   REAL_TREE=/tmp/babel benches/search.sh    # and a real source tree (>= 20,000 files)
#   RUNS=15 FILES=50000 REAL_QUERY=getBindingIdentifiers benches/search.sh
#   GEN_TREE=/tmp/gen RG=/usr/bin/rg benches/search.sh   # reuse a generated tree, a ripgrep
#
# Three queries per tree: a literal, the same case-insensitive, and a regular expression
# (GEN_REGEX, REAL_REGEX; ripgrep and grep -E get the same pattern). Two minimcp figures each:
#   - "in session": one tools/call search_text inside a running `minimcp --root TREE`
#     session, driven over stdio (how a client uses the server: the session, its handshake
#     and its one-time list_changed baseline walk come before the timed calls). CPU time is
#     the server process's own (utime + stime from /proc) over the call.
#   - "call": the whole `minimcp call search_text ...` process: start, in-process handshake,
#     the baseline walk a session takes when it becomes ready, then the search.
# References: `rg -j1` (one thread, the target), `rg` (all threads), `grep -r`. ripgrep is
# run with --hidden and without .git, because minimcp searches dotfiles (except .git);
# grep without .git. Both trees are checked to give the same matching lines first.
#
# ripgrep is installed into a scratch directory (Debian's package, unpacked without root;
# else `cargo install ripgrep --root`), unless RG names one. Python 3 drives the session.
set -euo pipefail

FILES=${FILES:-50000}
RUNS=${RUNS:-9}
GEN_QUERY=${GEN_QUERY:-Needle_In_Haystack}
REAL_QUERY=${REAL_QUERY:-getBindingIdentifiers}
GEN_REGEX=${GEN_REGEX:-'Needle_\w+'}
REAL_REGEX=${REAL_REGEX:-'(function|class)\s+[A-Z]\w*Visitor'}
cd "$(dirname "$0")/.."
cargo build --release --quiet
BIN=$PWD/target/release/minimcp

SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/minimcp-search-bench-XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT

if [ -z "${RG:-}" ]; then
    if (cd "$SCRATCH" && apt-get download ripgrep >/dev/null 2>&1); then
        dpkg-deb -x "$SCRATCH"/ripgrep_*.deb "$SCRATCH/rg-pkg"
        RG=$SCRATCH/rg-pkg/usr/bin/rg
    else
        echo "installing ripgrep with cargo into $SCRATCH ..." >&2
        cargo install --quiet ripgrep --root "$SCRATCH/rg-cargo"
        RG=$SCRATCH/rg-cargo/bin/rg
    fi
fi
echo "ripgrep: $("$RG" --version | sed -n 1p)"

# The tree of benches/workspace.sh (benches/gen_tree.sh); GEN_TREE names an existing copy
# to reuse instead.
GEN=${GEN_TREE:-$SCRATCH/tree}
[ -n "${GEN_TREE:-}" ] || benches/gen_tree.sh "$GEN" "$FILES"

TREES=("$GEN" "$GEN_QUERY" "$GEN_REGEX")
if [ -n "${REAL_TREE:-}" ]; then
    TREES+=("$REAL_TREE" "$REAL_QUERY" "$REAL_REGEX")
else
    echo "REAL_TREE not set: only the generated tree is measured." >&2
fi

python3 - "$BIN" "$RG" "$RUNS" "${TREES[@]}" <<'PY'
import json, os, statistics, subprocess, sys, time

BIN, RG, RUNS = sys.argv[1], sys.argv[2], int(sys.argv[3])
TREES = list(zip(sys.argv[4::3], sys.argv[5::3], sys.argv[6::3]))
TICK = os.sysconf("SC_CLK_TCK")


def cpu_of(pid):
    """utime + stime of a process, in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


class Session:
    """A running `minimcp --root TREE`, after its handshake and first walk."""

    def __init__(self, root):
        self.proc = subprocess.Popen([BIN, "--root", root], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True, bufsize=1)
        self.next_id = 0
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "bench", "version": "1"}})
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        self.request("tools/list", {})

    def request(self, method, params):
        self.next_id += 1
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.next_id,
                                          "method": method, "params": params}) + "\n")
        while True:
            message = json.loads(self.proc.stdout.readline())
            if message.get("id") == self.next_id:
                return message

    def search(self, args):
        return self.request("tools/call", {"name": "search_text", "arguments": args})

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def run_process(argv):
    """Wall and CPU seconds of one process (its output discarded)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime


def count_lines(argv):
    out = subprocess.run(argv, capture_output=True, text=True).stdout
    return len([l for l in out.splitlines() if l])


for root, query, regex in TREES:
    files = int(subprocess.run([RG, "--files", "--hidden", "-g", "!.git", root],
                               capture_output=True, text=True).stdout.count("\n"))
    print(f"\n== {root} ({files} files by rg --files --hidden), query {query!r}, "
          f"{RUNS} interleaved runs, {os.cpu_count()} CPUs")
    session = Session(root)
    cases = [("literal", query, False, False), ("case-insensitive", query.lower(), True, False),
             ("regex", regex, False, True)]
    for label, q, insensitive, is_regex in cases:
        args = {"query": q, "case_sensitive": not insensitive, "max_results": 1000,
                "regex": is_regex}
        rg_flags = ["--hidden", "-g", "!.git"] + ([] if is_regex else ["-F"]) + (["-i"] if insensitive else [])
        grep_flags = ["-r", "-E" if is_regex else "-F", "--exclude-dir=.git"] + (["-i"] if insensitive else [])
        # Sanity: the same matching lines, or the timings compare different work.
        answer = session.search(args)["result"]["structuredContent"]
        mine = len(answer["matches"])
        theirs = count_lines([RG, "-j1", *rg_flags, q, root])
        grep_count = count_lines(["grep", *grep_flags, q, root])
        assert not answer["truncated"], "raise max_results: the page did not hold every match"
        print(f"{label} {q!r}: matching lines: minimcp {mine}, rg {theirs}, grep {grep_count}")
        if mine != theirs:
            print("  WARNING: minimcp and rg disagree; the timings below compare different work")

        def in_session():
            before_cpu, start = cpu_of(session.proc.pid), time.perf_counter()
            session.search(args)
            return time.perf_counter() - start, cpu_of(session.proc.pid) - before_cpu

        commands = [
            ("minimcp search_text, in session", in_session),
            ("minimcp call search_text (process)",
             lambda: run_process([BIN, "call", "search_text", json.dumps(args), "--root", root])),
            ("rg -j1", lambda: run_process([RG, "-j1", *rg_flags, q, root])),
            ("rg (all threads)", lambda: run_process([RG, *rg_flags, q, root])),
            ("grep " + " ".join(grep_flags[:2]), lambda: run_process(["grep", *grep_flags, q, root])),
        ]
        times = {name: ([], []) for name, _ in commands}
        for name, command in commands:  # warm-up: page cache and session caches
            command()
        for _ in range(RUNS):
            for name, command in commands:
                wall, cpu = command()
                times[name][0].append(wall)
                times[name][1].append(cpu)
        base_wall = statistics.median(times[commands[0][0]][0])
        base_cpu = statistics.median(times[commands[0][0]][1])
        print(f"  {'command':38} {'wall ms':>8} {'cpu ms':>8} {'wall ratio':>11} {'cpu ratio':>10}")
        for name, _ in commands:
            wall = statistics.median(times[name][0])
            cpu = statistics.median(times[name][1])
            print(f"  {name:38} {wall * 1000:8.0f} {cpu * 1000:8.0f} "
                  f"{base_wall / wall:10.2f}x {base_cpu / max(cpu, 1e-9):9.2f}x")
        print("  (ratio = minimcp in session / command: below 1 means minimcp is faster)")
    session.close()
PY
