#!/usr/bin/env bash
# minimcp's whole analysis (every metric: cyclomatic, cognitive, Halstead, lines) against the
# other analyzers, side by side on the same files, one core each, interleaved, medians.
#
#   bash benches/analysis-peers.sh        prints a markdown table on stdout (progress on stderr)
#
#   ROUNDS=n        rounds (default 3); each round runs every tool once on every corpus, in turn
#   LANGS="..."     corpora to time (default: python rust javascript typescript go java c cpp
#                   php ruby)
#   SCRATCH=dir     where tools and corpora go (default $TMPDIR/minimcp-analysis-peers); kept
#                   between runs, never in the repository
#   SKIP_RCA=1      do not build rust-code-analysis-cli (a cargo install takes minutes)
#   CPU=n           the core every command is pinned to (default 0)
#   BIN=path        a minimcp binary to time instead of this checkout's release build
#
# The peers, installed into SCRATCH at run time (never a Cargo dependency):
#   lizard 1.24.3 (PyPI; cyclomatic, every language here), `-t 1` (one thread)
#   complexipy 8.3.0 (PyPI; Python cognitive complexity only, written in Rust); its cache
#     directory is removed before every run so that no run reuses another's results
#   rust-code-analysis-cli 0.0.25 (crates.io; `cargo install`), `-j 1`: Rust, Python, JavaScript,
#     TypeScript (no Go)
#   gocyclo v0.6.0 (`go install`: needs the Go module proxy; skipped, saying so, without it)
# The corpora, each holding only its language's files:
#   python      the installed python3's standard library (sysconfig's stdlib) without its
#               test directories and site-packages
#   rust        pinned crates from crates.io (cargo fetch): syn, regex-automata, regex-syntax,
#               serde_json, hashbrown, nom, toml_edit, memchr
#   javascript  pinned npm packages: lodash, express and its dependencies (no *.min.js)
#   typescript  hand-written TypeScript shipped by rxjs (src/) and ajv (lib/)
#   go          part of the Go 1.19 standard library (Debian's golang-1.19-src, unpacked)
#   java, c, cpp, php, ruby  the cross-check's corpora (tests/analysis/debian-corpora.sh:
#               pinned Debian source-carrying packages; the JDK's java.util, java.lang,
#               java.time, java.net.http and javac; libxcrypt and part of the X server;
#               googletest and DPF; Monolog, Doctrine DBAL, PHPUnit, Composer, Laravel;
#               rack, thor, i18n, addressable, kramdown, RuboCop)
#
# Every command runs under `taskset -c $CPU`, timed from outside: wall time, CPU time (user +
# sys, from wait4's rusage; on a loaded machine the steadier figure) and peak RSS. Files/s and MB/s are computed
# from the median CPU time (and wall time) over the rounds and the corpus's file count and
# bytes, whatever each tool chose to analyze of them. minimcp runs as `minimcp analyze
# --format json` (every function's row, all metrics) and, on Python, as the MCP tool through
# `minimcp call analyze_complexity` (a whole session; the tool computes every function and
# returns the first page); benches/analysis_pages.py then times each page after the first in
# one session. Nothing is asserted; the numbers are printed.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
ROUNDS=${ROUNDS:-3}
LANGS=${LANGS:-python rust javascript typescript go java c cpp php ruby}
SCRATCH=${SCRATCH:-${TMPDIR:-/tmp}/minimcp-analysis-peers}
CPU=${CPU:-0}
mkdir -p "$SCRATCH"
SCRATCH=$(cd "$SCRATCH" && pwd)
CORPUS=$SCRATCH/corpus
RESULTS=$SCRATCH/results.tsv
say() { echo "analysis-peers: $*" >&2; }
fail() { echo "analysis-peers: $*" >&2; exit 1; }

# --- tools -------------------------------------------------------------------------------
if [ ! -x "$SCRATCH/venv/bin/lizard" ] || [ ! -x "$SCRATCH/venv/bin/complexipy" ]; then
  python3 -m venv "$SCRATCH/venv"
  "$SCRATCH/venv/bin/pip" install -q lizard==1.24.3 complexipy==8.3.0
fi
LIZARD=$SCRATCH/venv/bin/lizard
COMPLEXIPY=$SCRATCH/venv/bin/complexipy

RCA=$SCRATCH/rca/bin/rust-code-analysis-cli
if [ ! -x "$RCA" ] && [ "${SKIP_RCA:-0}" != 1 ]; then
  say "building rust-code-analysis-cli 0.0.25 (minutes)"
  CARGO_TARGET_DIR=$SCRATCH/rca-target cargo install --quiet --locked \
    rust-code-analysis-cli --version 0.0.25 --root "$SCRATCH/rca" >&2 \
    || say "rust-code-analysis-cli: cargo install failed; skipped"
fi
[ -x "$RCA" ] || RCA=

# Go: the toolchain on PATH, else Debian's golang-1.19 packages unpacked without installing.
GO=$(command -v go || true)
if [ -z "$GO" ] && [ ! -x "$SCRATCH/go-root/usr/lib/go-1.19/bin/go" ]; then
  mkdir -p "$SCRATCH/deb"
  (cd "$SCRATCH/deb" && apt-get download golang-1.19-go golang-1.19-src >/dev/null 2>&1) \
    && for deb in "$SCRATCH"/deb/golang-1.19-*.deb; do dpkg -x "$deb" "$SCRATCH/go-root"; done \
    || say "Go: apt-get download golang-1.19-go golang-1.19-src failed; no Go corpus"
fi
if [ -z "$GO" ] && [ -x "$SCRATCH/go-root/usr/lib/go-1.19/bin/go" ]; then
  export GOROOT=$SCRATCH/go-root/usr/lib/go-1.19
  GO=$GOROOT/bin/go
fi
GOCYCLO=$SCRATCH/bin/gocyclo
if [ -n "$GO" ] && [ ! -x "$GOCYCLO" ]; then
  GOPATH=$SCRATCH/gopath GOBIN=$SCRATCH/bin GOFLAGS=-modcacherw \
    "$GO" install github.com/fzipp/gocyclo/cmd/gocyclo@v0.6.0 >/dev/null 2>&1 \
    || say "gocyclo: go install failed (no Go module proxy here?); skipped"
fi
[ -x "$GOCYCLO" ] || GOCYCLO=

if [ -z "${BIN:-}" ]; then
  cargo build --release --quiet
  BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release/minimcp
fi

# --- corpora -----------------------------------------------------------------------------
mkdir -p "$CORPUS"
# copy_tree SRC DEST NAME_GLOB [find's exclusions...]: the files matching NAME_GLOB, with
# their directories, and nothing else.
copy_tree() {
  local src=$1 dest=$2 glob=$3; shift 3
  mkdir -p "$dest"
  (cd "$src" && find . "$@" -name "$glob" -type f -print0) \
    | (cd "$src" && xargs -0 -r tar -cf - --no-recursion) | tar -C "$dest" -xf -
}
if [ ! -d "$CORPUS/python" ]; then
  pylib=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')
  copy_tree "$pylib" "$CORPUS/python" '*.py' \
    \( -name site-packages -o -name dist-packages -o -name test -o -name tests \
       -o -name idle_test -o -name __pycache__ \) -prune -o
fi
if [ ! -d "$CORPUS/rust" ]; then
  crates="syn@2.0.87 regex-automata@0.4.9 regex-syntax@0.8.5 serde_json@1.0.133 hashbrown@0.15.2 nom@7.1.3 toml_edit@0.22.22 memchr@2.7.4"
  mkdir -p "$SCRATCH/crates/src"
  {
    printf '[package]\nname = "corpus"\nversion = "0.0.0"\nedition = "2021"\n[dependencies]\n'
    for c in $crates; do printf '%s = "=%s"\n' "${c%@*}" "${c#*@}"; done
  } > "$SCRATCH/crates/Cargo.toml"
  : > "$SCRATCH/crates/src/lib.rs"
  if (cd "$SCRATCH/crates" && cargo fetch --quiet); then
    for c in $crates; do
      dir=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/"${c%@*}-${c#*@}" | head -1)
      copy_tree "$dir" "$CORPUS/rust/${c%@*}-${c#*@}" '*.rs'
    done
  else
    say "cargo fetch failed; no Rust corpus"
  fi
fi
if [ ! -d "$CORPUS/javascript" ] || [ ! -d "$CORPUS/typescript" ]; then
  mkdir -p "$SCRATCH/npm"
  (cd "$SCRATCH/npm" && npm install --silent --no-audit --no-fund --ignore-scripts \
    lodash@4.17.21 express@4.21.2 rxjs@7.8.1 ajv@8.17.1 >/dev/null 2>&1) || say "npm install failed"
  nm=$SCRATCH/npm/node_modules
  if [ -d "$nm/express" ]; then
    copy_tree "$nm" "$CORPUS/javascript" '*.js' \( -path ./rxjs -o -path ./ajv \) -prune -o \
      -not -name '*.min.js'
  fi
  if [ -d "$nm/rxjs/src" ] && [ -d "$nm/ajv/lib" ]; then
    copy_tree "$nm/rxjs/src" "$CORPUS/typescript/rxjs" '*.ts'
    copy_tree "$nm/ajv/lib" "$CORPUS/typescript/ajv" '*.ts'
  fi
fi
if [ ! -d "$CORPUS/go" ] && [ -n "$GO" ]; then
  goroot=$("$GO" env GOROOT)
  for pkg in bufio bytes encoding fmt go net/http sort strconv strings regexp text; do
    copy_tree "$goroot/src/$pkg" "$CORPUS/go/$pkg" '*.go' -name testdata -prune -o
  done
fi
# The five languages lizard reads besides the first five: the cross-check's corpora.
DL=$SCRATCH/downloads
source "$ROOT/tests/analysis/debian-corpora.sh"
for lang in $LANGS; do
  case $lang in java | c | cpp | php | ruby) "fetch_$lang" ;; esac
done

# --- runs --------------------------------------------------------------------------------
# tools_for LANG: the tools that read LANG, as "name" words.
tools_for() {
  local t="minimcp lizard"
  [ "$1" = python ] && t="$t complexipy minimcp-call"
  [ -n "$RCA" ] && [ "$1" != go ] && t="$t rca"
  [ -n "$GOCYCLO" ] && [ "$1" = go ] && t="$t gocyclo"
  echo "$t"
}
lizard_lang() { case $1 in c) echo cpp ;; *) echo "$1" ;; esac; }  # lizard reads C as C++
# run LANG TOOL ROUND: one timed run, appended to RESULTS.
run() {
  local lang=$1 tool=$2 dir=$CORPUS/$1 out=$SCRATCH/out.$1.$2 cmd
  case $tool in
    minimcp) cmd=("$BIN" analyze --format json) ;;
    minimcp-call) cmd=("$BIN" call analyze_complexity '{"format":"json"}' --root "$dir") ;;
    lizard) cmd=("$LIZARD" -t 1 -l "$(lizard_lang "$lang")" .) ;;
    complexipy) rm -rf "$dir/.complexipy_cache"
      cmd=("$COMPLEXIPY" . --output-format json --output "$SCRATCH/complexipy.json") ;;
    rca) cmd=("$RCA" -m -O json -j 1 -p "$dir") ;;  # it reads nothing of `-p .`
    gocyclo) cmd=("$GOCYCLO" .) ;;
  esac
  read -r wall user sys rss < <(cd "$dir" && RAYON_NUM_THREADS=1 \
    python3 "$SCRATCH/timed.py" "$out" taskset -c "$CPU" "${cmd[@]}")
  # What it printed, as a check that it read the files (then dropped: rust-code-analysis
  # writes hundreds of MB).
  local printed; printed=$(stat -c %s "$out"); : > "$out"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$lang" "$tool" "$3" "$wall" "$user" "$sys" "$rss" \
    "$printed" >> "$RESULTS"
}

# timed.py OUT CMD...: runs CMD under /usr/bin/time with stdout to OUT; prints wall, user and
# system seconds from wait4's rusage (microseconds: /usr/bin/time rounds to 10 ms, too coarse
# for runs of a few tens of milliseconds; its own share is under a millisecond) and the peak
# RSS in KiB that /usr/bin/time reports (a child forked from Python would count Python's).
cat > "$SCRATCH/timed.py" <<'PY'
import os, subprocess, sys, time
out_path = sys.argv[1]
with open(out_path, "wb") as out, open(out_path + ".err", "wb") as err:
    t0 = time.perf_counter()
    child = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", out_path + ".rss"]
                             + sys.argv[2:], stdout=out, stderr=err)
    _, _, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - t0
with open(out_path + ".rss") as rss:
    peak = rss.read().split()[-1]
print(f"{wall:.6f} {usage.ru_utime:.6f} {usage.ru_stime:.6f} {peak}")
PY

stats=$SCRATCH/corpora.tsv
: > "$stats"
for lang in $LANGS; do
  [ -d "$CORPUS/$lang" ] || { say "$lang: no corpus; skipped"; continue; }
  files=$(find "$CORPUS/$lang" -type f ! -path '*/.complexipy_cache/*' | wc -l)
  bytes=$(find "$CORPUS/$lang" -type f ! -path '*/.complexipy_cache/*' -printf '%s\n' | awk '{s+=$1} END {print s}')
  printf '%s\t%s\t%s\n' "$lang" "$files" "$bytes" >> "$stats"
  # The page cache warm for every tool alike.
  find "$CORPUS/$lang" -type f -print0 | xargs -0 cat > /dev/null
done

: > "$RESULTS"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for round in $(seq "$ROUNDS"); do
  while read -r lang _ _; do
    for tool in $(tools_for "$lang"); do
      say "round $round/$ROUNDS: $lang, $tool"
      run "$lang" "$tool" "$round"
    done
  done < "$stats"
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

pages=$(python3 benches/analysis_pages.py --bin "$BIN" "$CORPUS/python" 2>&1 || true)

# --- table -------------------------------------------------------------------------------
versions="lizard $("$LIZARD" --version 2>/dev/null | head -1), complexipy $("$SCRATCH/venv/bin/pip" show complexipy 2>/dev/null | sed -n 's/^Version: //p')"
[ -n "$RCA" ] && versions="$versions, rust-code-analysis-cli $("$RCA" --version 2>/dev/null | awk '{print $NF}')"
[ -n "$GOCYCLO" ] && versions="$versions, gocyclo v0.6.0" || versions="$versions; gocyclo not installed (skipped)"
[ -z "$RCA" ] && versions="$versions; rust-code-analysis-cli not installed (skipped)"
commit=$(git rev-parse --short HEAD 2>/dev/null || echo '?')
python3 - "$RESULTS" "$stats" "$commit" "$ROUNDS" "$load_before" "$load_after" "$versions" "$pages" <<'PY'
import statistics, sys, datetime, os
results, stats, commit, rounds, load_before, load_after, versions, pages = sys.argv[1:]
corpora = {}
for line in open(stats):
    lang, files, size = line.split("\t")
    corpora[lang] = (int(files), int(size))
runs = {}
for line in open(results):
    lang, tool, _, wall, user, sys_, rss, printed = line.rstrip("\n").split("\t")
    runs.setdefault((lang, tool), []).append(
        (float(wall), float(user) + float(sys_), int(rss), int(printed)))
names = {"minimcp": "**minimcp** `analyze --format json`",
         "minimcp-call": "**minimcp** `call analyze_complexity` (MCP, one session)",
         "lizard": "lizard `-t 1`", "complexipy": "complexipy (cognitive only)",
         "rca": "rust-code-analysis-cli `-m -j 1`", "gocyclo": "gocyclo"}
print(f"Measured {datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC on {commit}, "
      f"{os.cpu_count()} cores, load average {load_before} before and {load_after} after; "
      f"medians of {rounds} interleaved rounds, every command pinned to one core; {versions}.")
print()
print("| language (files, MB) | tool | CPU s | files/s (CPU) | MB/s (CPU) | wall s | files/s (wall) | peak RSS MiB | minimcp's speed-up (CPU / wall) |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
for lang, (files, size) in corpora.items():
    mm = runs.get((lang, "minimcp"))
    for (l, tool), rs in runs.items():
        if l != lang:
            continue
        wall = statistics.median(r[0] for r in rs)
        cpu = statistics.median(r[1] for r in rs)
        rss = max(r[2] for r in rs) / 1024
        ratio = "—"
        name = names.get(tool, tool)
        if min(r[3] for r in rs) == 0 and tool != "complexipy":  # complexipy writes a file
            name += " (printed nothing: check it)"
        if mm and tool not in ("minimcp", "minimcp-call"):
            mwall = statistics.median(r[0] for r in mm)
            mcpu = statistics.median(r[1] for r in mm)
            ratio = f"{cpu / mcpu:.1f}× / {wall / mwall:.1f}×"
        print(f"| {lang} ({files:,}, {size / 1e6:.1f}) | {name} | {cpu:.3f} | "
              f"{files / cpu:,.0f} | {size / 1e6 / cpu:.1f} | {wall:.3f} | {files / wall:,.0f} | "
              f"{rss:.1f} | {ratio} |")
print()
print("Each page after the first, one stdio session (`benches/analysis_pages.py`, Python corpus, "
      "`format: json`):")
print()
print("```")
print(pages.strip())
print("```")
PY
