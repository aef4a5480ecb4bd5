#!/usr/bin/env bash
# Benchmark (not a test): how edit_file's time grows with the file, up to the 4 MiB write
# limit, on the inputs that once made it quadratic. Each case is one `minimcp call
# edit_file` process (start, handshake, the call), timed whole; BEFORE, when given, is
# another build run on the same files in the same run, for a side-by-side table.
#
#   benches/edit_scale.sh                                  # this checkout's release build
#   BEFORE=/tmp/main/target/release/minimcp benches/edit_scale.sh
#   SIZES="50000 100000" TIMEOUT=60 benches/edit_scale.sh
#
# Cases, each at every size (lines; the last is the 4 MiB limit):
#   many      "x\n" repeated, old_text "x": occurs on every line, refused with the count
#   loose     the same file, old_text " x": not exact, matches every line whitespace-ignored
#   near      distinct lines, old_text found nowhere: the closest-text search
#   fallback  distinct indented lines, two of them sent without indentation: applied
#   edits100  distinct lines, 100 exact edits in one call: applied
# A call still running after TIMEOUT seconds (default 120) is stopped and shown as "> N s".
set -euo pipefail

SIZES=${SIZES:-"50000 100000 200000 2097152"}
TIMEOUT=${TIMEOUT:-120}
cd "$(dirname "$0")/.."
if [ -z "${AFTER:-}" ]; then
    cargo build --release --quiet
    AFTER=$PWD/target/release/minimcp
fi
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/minimcp-edit-scale-XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT

# make CASE LINES: writes $SCRATCH/f.txt and prints the edit_file arguments.
make() {
    python3 - "$1" "$2" "$SCRATCH/f.txt" <<'EOF'
import json, sys
case, n, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
edits = None
if case in ("many", "loose"):
    # n lines of "x" (2,097,152 of them are exactly 4 MiB).
    text = "x\n" * n
    edits = [{"old_text": "x" if case == "many" else " x", "new_text": "y"}]
else:
    width = len(str(n))
    # Distinct lines of the same width, as many as fit in n * 2 bytes (the 4 MiB limit at
    # the largest size).
    indent = "    " if case == "fallback" else ""
    count = max(2, (n * 2) // (width + 8 + len(indent)))
    text = "".join(f"{indent}line {i:0{width}d};\n" for i in range(count))
    if case == "near":
        edits = [{"old_text": "no such text anywhere", "new_text": "y"}]
    elif case == "fallback":
        a, b = count - 2, count - 1
        edits = [{"old_text": f"line {a:0{width}d};\nline {b:0{width}d};",
                  "new_text": f"line {a:0{width}d};\nchanged {b};"}]
    else:
        step = max(1, count // 100)
        edits = [{"old_text": f"line {i:0{width}d};\n", "new_text": f"edited {i};\n"}
                 for i in range(0, count, step)][:100]
open(path, "w").write(text)
print(json.dumps({"path": "f.txt", "edits": edits}))
EOF
}

# run BIN ARGS: "seconds|first words of the answer", or "> TIMEOUT s".
run() {
    local start end out
    start=$(date +%s%N)
    if out=$(timeout "$TIMEOUT" "$1" call --root "$SCRATCH" --toolsets workspace,edit --text edit_file "$2" 2>&1); then :; fi
    end=$(date +%s%N)
    if [ $(( (end - start) / 1000000000 )) -ge "$TIMEOUT" ]; then
        echo "> $TIMEOUT s|(stopped)"
        return
    fi
    printf '%.2f s|%s\n' "$(echo "($end - $start) / 1000000000" | bc -l)" \
        "$(echo "$out" | head -c 140 | tr '\n|' '  ')"
}

echo "| case | lines | bytes | before | after | answer (after) |"
echo "|---|---:|---:|---:|---:|---|"
for case in many loose near fallback edits100; do
    for n in $SIZES; do
        args=$(make "$case" "$n")
        bytes=$(stat -c %s "$SCRATCH/f.txt")
        lines=$(wc -l < "$SCRATCH/f.txt")
        cp "$SCRATCH/f.txt" "$SCRATCH/orig"
        before="-"
        if [ -n "${BEFORE:-}" ]; then
            before=$(run "$BEFORE" "$args" | cut -d'|' -f1)
            cp "$SCRATCH/orig" "$SCRATCH/f.txt"
        fi
        IFS='|' read -r after answer <<<"$(run "$AFTER" "$args")"
        echo "| $case | $lines | $bytes | $before | $after | ${answer} |"
    done
done
