#!/usr/bin/env bash
# The edit benchmark from real changes, whole: every hunk of this repository's history and of
# the release pairs below, in every variant, through minimcp's edit_file and the reference
# filesystem server's, judged against git's files (tests/edit_bench.rs; benches/README.md,
# "Edits from real changes", has the rules and the table).
#
#   benches/edit-bench.sh [BINARY]     # default: target/release/minimcp, built here
#
# Downloads, each pinned by version and SHA-256 and checked before use, into $SCRATCH
# (default ${TMPDIR:-/tmp}/minimcp-edit-bench; reused while the hashes match):
#   PyPI sdists   jsonschema 4.17.3 -> 4.23.0 (Python, YAML workflows, Markdown)
#                 psutil 5.9.5 -> 5.9.8       (Python, C, a tab-indented Makefile)
#   npm tarballs  node-gyp 9.4.1 -> 10.2.0    (gyp's Python, Markdown lists)
#                 execa 6.1.0 -> 8.0.1        (tab-indented JavaScript, Markdown)
#                 tslib 1.14.1 -> 2.6.2       (CRLF files)
#   the reference @modelcontextprotocol/server-filesystem 2026.8.31 (npm, its tarball's
#   integrity pinned; its dependencies follow its own ranges), run with node.
# A registry that cannot be reached, or a hash that does not match, fails the run.
# Exit status 1 when minimcp leaves a wrong file (or apply_patch and git apply disagree);
# the reference server's wrong files are reported, not failed on.
#
# Environment: REFERENCE=0 leaves the reference server out (a quicker run against a build
# under work); MINIMCP_EDIT_BENCH_REPORT=FILE keeps the report with examples of wrong files.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SCRATCH=${SCRATCH:-${TMPDIR:-/tmp}/minimcp-edit-bench}
REFERENCE=${REFERENCE:-1}
REF_PIN=2026.8.31
REF_INTEGRITY=sha512-kKaFkyAh6oipvc9+EAbJ552JafnMnOq5nzmzWkp1jJdBhTAAGpmIpWihUG1+rfNhmEFM98gUZDdCHCDD4v6a7Q==
START=$(date +%s)
fail() { echo "edit-bench: $*" >&2; exit 1; }

BIN=${1:-}
if [ -z "$BIN" ]; then
  cargo build --release --locked --quiet
  BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release/minimcp
fi
[ -x "$BIN" ] || fail "no executable at $BIN"
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
command -v git >/dev/null || fail "git is needed: it is the oracle"

mkdir -p "$SCRATCH/downloads" "$SCRATCH/corpora"
DL=$SCRATCH/downloads

# check FILE SHA256: the file is there and has that hash.
check() { [ -s "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]; }

# pypi NAME VERSION SHA256: the sdist, by pip (which checks the hash itself).
pypi() {
  local file=$DL/$1-$2.tar.gz
  check "$file" "$3" && return
  local req; req=$(mktemp)
  echo "$1==$2 --hash=sha256:$3" >"$req"
  python3 -m pip download --quiet --disable-pip-version-check --no-deps --no-binary :all: \
    --require-hashes -r "$req" -d "$DL" >"$DL/pip.log" 2>&1 ||
    { tail -n 5 "$DL/pip.log" >&2; fail "pip download $1==$2 failed (PyPI unreachable, or the hash changed)"; }
  rm -f "$req"
  check "$file" "$3" || fail "$file does not have the pinned SHA-256 $3"
}

# npm_tgz NAME VERSION SHA256: the tarball, by npm pack.
npm_tgz() {
  local file=$DL/$1-$2.tgz
  check "$file" "$3" && return
  (cd "$DL" && npm pack --silent "$1@$2" >/dev/null 2>"$DL/npm.log") ||
    { tail -n 5 "$DL/npm.log" >&2; fail "npm pack $1@$2 failed (npm registry unreachable?)"; }
  check "$file" "$3" || fail "$file does not have the pinned SHA-256 $3"
}

# pair NAME OLD.tar.gz NEW.tar.gz: the release pair NAME/a and NAME/b, unpacked.
pair() {
  local dest=$SCRATCH/corpora/$1
  [ -f "$dest/.done" ] && return
  rm -rf "$dest" && mkdir -p "$dest/a" "$dest/b"
  tar xzf "$2" -C "$dest/a" --strip-components=1
  tar xzf "$3" -C "$dest/b" --strip-components=1
  touch "$dest/.done"
}

pypi jsonschema 4.17.3 0f864437ab8b6076ba6707453ef8f98a6a0d512a80e93f8abdb676f737ecb60d
pypi jsonschema 4.23.0 d71497fef26351a33265337fa77ffeb82423f3ea21283cd9467bb03999266bc4
pypi psutil 5.9.5 5410638e4df39c54d957fc51ce03048acd8e6d60abc0f5107af51e5fb566eb3c
pypi psutil 5.9.8 6be126e3225486dff286a8fb9a06246a5253f4c7c53b475ea5f5ac934e64194c
npm_tgz node-gyp 9.4.1 106676e44211018bfa8cb69246b9206a764b4178c770495699030b4ebec0b422
npm_tgz node-gyp 10.2.0 3c1859006cf54f0c90ce77b73c00c6e8efbd5fa26c5afb067d47bd02fba145ed
npm_tgz execa 6.1.0 aeaf03c817daf2e098484106dc5b968a5a7308888962db54821d34caf6dbde32
npm_tgz execa 8.0.1 851aaca081914d7d0ee0ca4e00c9aacf7bf891e61688db1877323ac6620045ec
npm_tgz tslib 1.14.1 733b312e29ef6488eb668db728bcd0dee92f087872001a06c8594999c06d91fb
npm_tgz tslib 2.6.2 6001e6acf1472b79a2a5044f852f282781270511b45a900850bbceac1ba8d9e2
pair pypi-jsonschema-4.17.3-4.23.0 "$DL/jsonschema-4.17.3.tar.gz" "$DL/jsonschema-4.23.0.tar.gz"
pair pypi-psutil-5.9.5-5.9.8 "$DL/psutil-5.9.5.tar.gz" "$DL/psutil-5.9.8.tar.gz"
pair npm-node-gyp-9.4.1-10.2.0 "$DL/node-gyp-9.4.1.tgz" "$DL/node-gyp-10.2.0.tgz"
pair npm-execa-6.1.0-8.0.1 "$DL/execa-6.1.0.tgz" "$DL/execa-8.0.1.tgz"
pair npm-tslib-1.14.1-2.6.2 "$DL/tslib-1.14.1.tgz" "$DL/tslib-2.6.2.tgz"

ref_cmd=
if [ "$REFERENCE" != 0 ]; then
  ref=$SCRATCH/reference
  lock_integrity() {
    node -e 'const l = require(process.argv[1]); const p = l.packages["node_modules/@modelcontextprotocol/server-filesystem"]; console.log(p ? p.version + " " + p.integrity : "")' \
      "$ref/package-lock.json" 2>/dev/null || true
  }
  if [ "$(lock_integrity)" != "$REF_PIN $REF_INTEGRITY" ]; then
    rm -rf "$ref" && mkdir -p "$ref" && echo '{"private": true}' >"$ref/package.json"
    (cd "$ref" && npm install --silent --no-audit --no-fund --save-exact \
      "@modelcontextprotocol/server-filesystem@$REF_PIN" >"$ref/npm.log" 2>&1) ||
      { tail -n 5 "$ref/npm.log" >&2; fail "npm install @modelcontextprotocol/server-filesystem@$REF_PIN failed (npm registry unreachable?)"; }
    [ "$(lock_integrity)" = "$REF_PIN $REF_INTEGRITY" ] ||
      fail "@modelcontextprotocol/server-filesystem@$REF_PIN does not have the pinned integrity"
  fi
  ref_cmd="node $ref/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"
fi
echo "edit-bench: corpora and tools ready in $(($(date +%s) - START)) s; running $BIN" >&2

MINIMCP_EDIT_BENCH_BINARY=$BIN MINIMCP_EDIT_BENCH_HUNKS=all MINIMCP_REQUIRE_CORPORA=1 \
  MINIMCP_EDIT_BENCH_CORPORA=$SCRATCH/corpora MINIMCP_EDIT_BENCH_REFERENCE=$ref_cmd \
  cargo test --locked --quiet --test edit_bench -- --nocapture
echo "edit-bench: $(($(date +%s) - START)) s in all" >&2
