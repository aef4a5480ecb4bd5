#!/usr/bin/env bash
# analyze_complexity's throughput against lizard's, side by side on the same real tree, one
# thread each, interleaved (minimcp, lizard, minimcp, lizard, …) so that machine load
# affects both alike. Target: at least 20× lizard's files/s. Also times this repository, and each page after the first
# (benches/analysis_pages.py: one session, so the analysis cache is what is timed).
#   Usage: benches/analysis.sh            TREE=dir (default: every Python installation
#          under ~/.pyenv/versions, ≥ 20,000 .py files)  ROUNDS=n (default 2)
# Python files only: the one language every tree here has plenty of, and lizard's Python
# reader is its most used. Nothing is asserted on time; the numbers are printed.
set -euo pipefail
cd "$(dirname "$0")/.."
TREE=${TREE:-$HOME/.pyenv/versions}
ROUNDS=${ROUNDS:-2}
SCRATCH=${SCRATCH:-${TMPDIR:-/tmp}/minimcp-analysis-bench}
mkdir -p "$SCRATCH"
if [ ! -x "$SCRATCH/venv/bin/lizard" ]; then
  python3 -m venv "$SCRATCH/venv"
  "$SCRATCH/venv/bin/pip" install -q lizard==1.24.3
fi
cargo build --release --quiet
BIN=$PWD/target/release/minimcp

files=$(find "$TREE" -name '*.py' -type f | wc -l)
bytes=$(find "$TREE" -name '*.py' -type f -printf '%s\n' | awk '{s+=$1} END {print s}')
echo "tree: $TREE: $files .py files, $((bytes / 1048576)) MiB"
[ "$files" -ge 20000 ] || echo "warning: fewer than 20,000 files; the target is stated for ≥ 20,000" >&2

# Both tools read the same files: warm the page cache first so neither pays for the disk.
find "$TREE" -name '*.py' -type f -print0 | xargs -0 cat > /dev/null

now() { date +%s.%N; }
mm_total=0; lz_total=0
for round in $(seq "$ROUNDS"); do
  t0=$(now)
  "$BIN" call analyze_complexity '{"toolchain":"python","format":"markdown","top_files":0}' \
    --root "$TREE" > "$SCRATCH/minimcp.out" 2>/dev/null || true
  t1=$(now)
  "$SCRATCH/venv/bin/lizard" -t 1 -l python "$TREE" > "$SCRATCH/lizard.out" 2>/dev/null || true
  t2=$(now)
  mm=$(echo "$t1 - $t0" | bc -l); lz=$(echo "$t2 - $t1" | bc -l)
  printf 'round %s: minimcp %.2f s, lizard %.2f s\n' "$round" "$mm" "$lz"
  mm_total=$(echo "$mm_total + $mm" | bc -l); lz_total=$(echo "$lz_total + $lz" | bc -l)
done
analyzed=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["structuredContent"]["summary"]["files"])' "$SCRATCH/minimcp.out")
complete=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["structuredContent"]["complete"])' "$SCRATCH/minimcp.out")
mm=$(echo "$mm_total / $ROUNDS" | bc -l); lz=$(echo "$lz_total / $ROUNDS" | bc -l)
printf 'minimcp: %s files analyzed (complete: %s), %.2f s: %.0f files/s, %.1f MB/s\n' \
  "$analyzed" "$complete" "$mm" "$(echo "$analyzed / $mm" | bc -l)" "$(echo "$bytes * $analyzed / $files / 1000000 / $mm" | bc -l)"
printf 'lizard:  %s files, %.2f s: %.0f files/s, %.2f MB/s\n' \
  "$files" "$lz" "$(echo "$files / $lz" | bc -l)" "$(echo "$bytes / 1000000 / $lz" | bc -l)"
printf 'ratio: minimcp is %.1fx lizard (target ≥ 20x)\n' "$(echo "$lz / $mm" | bc -l)"

t0=$(now)
"$BIN" call analyze_complexity '{"format":"markdown"}' --root . > "$SCRATCH/self.out" 2>/dev/null
t1=$(now)
printf 'this repository: %.3f s (%s)\n' "$(echo "$t1 - $t0" | bc -l)" \
  "$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["structuredContent"]["summary"]; print(s["files"], "files,", s["functions"], "functions")' "$SCRATCH/self.out")"

# The time of each page after the first, within one session (the analysis cache): on the
# same tree, Python only, and on this repository.
python3 benches/analysis_pages.py --bin "$BIN" --args '{"toolchain":"python"}' "$TREE"
python3 benches/analysis_pages.py --bin "$BIN" .
