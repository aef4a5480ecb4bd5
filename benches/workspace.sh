#!/usr/bin/env bash
# Benchmark (not a test): times the workspace toolset's search_text and search_files on a
# generated tree of ~50,000 files, against grep -rF and find on the same tree.
#
#   benches/workspace.sh            # 50,000 files, best of 3 runs
#   FILES=10000 RUNS=5 benches/workspace.sh
#
# minimcp is timed as `minimcp call ...`: process start, in-process handshake, the walk and
# the search, JSON output. It also sorts, honours .gitignore (none here), checks every
# symbolic link and opens each file through the sandbox, which grep and find do not.
set -euo pipefail

FILES=${FILES:-50000}
RUNS=${RUNS:-3}
cd "$(dirname "$0")/.."
cargo build --release --quiet
BIN=$PWD/target/release/minimcp

TREE=$(mktemp -d "${TMPDIR:-/tmp}/minimcp-bench-XXXXXX")
trap 'rm -rf "$TREE"' EXIT

benches/gen_tree.sh "$TREE" "$FILES"

# Best wall-clock time of $RUNS runs of a command, in milliseconds.
best_ms() {
    local best=""
    for _ in $(seq "$RUNS"); do
        local start end ms
        start=$(date +%s%N)
        "$@" >/dev/null
        end=$(date +%s%N)
        ms=$(( (end - start) / 1000000 ))
        if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
    done
    echo "$best"
}

call() { "$BIN" call "$1" "$2" --root "$TREE"; }

# Sanity: both sides must find the same things, or the timings mean nothing.
mcp_hits=$(call search_text '{"query":"Needle_In_Haystack","case_sensitive":true}' | grep -c '"line":')
grep_hits=$(grep -rF Needle_In_Haystack "$TREE" | wc -l)
mcp_rs=$(call search_files '{"pattern":"**/*.rs"}' | sed -n 's/.*"total": \([0-9]*\).*/\1/p')
find_rs=$(find "$TREE" -type f -name '*.rs' | wc -l)
echo "matching lines: minimcp $mcp_hits, grep $grep_hits; .rs files: minimcp $mcp_rs, find $find_rs"

# The fixed cost of every `minimcp call`: process start, the in-process handshake, and the
# walk the core's list_changed baseline takes when the session becomes ready.
t0=$(best_ms "$BIN" call tools/list --root "$TREE")
r0=$(best_ms "$BIN" --version)
t1=$(best_ms call search_text '{"query":"Needle_In_Haystack","case_sensitive":true}')
r1=$(best_ms grep -rF Needle_In_Haystack "$TREE")
t2=$(best_ms call search_text '{"query":"needle_in_haystack"}')
r2=$(best_ms grep -rFi needle_in_haystack "$TREE")
t3=$(best_ms call search_files '{"pattern":"**/*.rs"}')
r3=$(best_ms find "$TREE" -type f -name '*.rs')
t4=$(best_ms call search_files '{"pattern":"pkg7/**/file1.*"}')
r4=$(best_ms find "$TREE/pkg7" -type f -name 'file1.*')

echo
echo "files: $(find "$TREE" -type f | wc -l), best of $RUNS runs, $(nproc 2>/dev/null || echo '?') CPUs"
printf '%-52s %12s %12s\n' "operation" "minimcp ms" "reference ms"
printf '%-52s %12s %12s\n' "session start: call tools/list | minimcp --version" "$t0" "$r0"
printf '%-52s %12s %12s\n' "search_text case-sensitive  | grep -rF" "$t1" "$r1"
printf '%-52s %12s %12s\n' "search_text case-insensitive | grep -rFi" "$t2" "$r2"
printf '%-52s %12s %12s\n' "search_files **/*.rs        | find -name '*.rs'" "$t3" "$r3"
printf '%-52s %12s %12s\n' "search_files pkg7/**/file1.* | find pkg7 -name" "$t4" "$r4"
