#!/usr/bin/env bash
# The release artifacts, built from the committed tree (HEAD, not the working tree) so that
# anyone can rebuild them bit for bit and compare:
#
#   minimcp-<version>-x86_64-linux        static (glibc, +crt-static), the pinned toolchain
#   minimcp-<version>-aarch64-linux       static, Debian's rustc-web with -Zbuild-std
#   minimcp-<version>-x86_64-windows.exe  x86_64-win7-windows-gnu (runs on Windows 7 and later,
#                                         and under Wine 8, which lacks bcryptprimitives.dll
#                                         that x86_64-pc-windows-gnu needs), same toolchain
#   SHA256SUMS                            `sha256sum -c SHA256SUMS` checks them
#   BUILDINFO                             the commit and every toolchain's version
#
# Usage: .ci/release.sh OUT_DIR. Needs what .ci/cross.sh installs (Debian 12: rustc-web,
# cargo-web, rust-web-src, gcc-mingw-w64-x86-64, gcc-aarch64-linux-gnu). The build directory
# is a fresh temporary one each run; every path that could reach a binary (the checkout,
# the registry, Debian's std sources) is mapped to a fixed name, and the Windows linker
# writes no timestamp, so two runs anywhere on this machine kind give the same SHA256SUMS
# (not compared in CI, which builds once: docs/platforms.md says how to check it).
set -euo pipefail

out=${1:?usage: .ci/release.sh OUT_DIR}
repo=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)

for tool in /usr/bin/cargo /usr/bin/rustc x86_64-w64-mingw32-gcc aarch64-linux-gnu-gcc; do
  command -v "$tool" >/dev/null || { echo "release.sh: $tool is missing: run .ci/cross.sh's install step" >&2; exit 1; }
done
[ -d /usr/lib/rustlib/src/rust/library ] || { echo "release.sh: rust-web-src is missing" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone --quiet --no-hardlinks "$repo" "$work/minimcp"
cd "$work/minimcp"
commit=$(git rev-parse HEAD)
version=$(cargo metadata --locked --no-deps --format-version 1 |
  python3 -c 'import json, sys; print(next(p for p in json.load(sys.stdin)["packages"] if p["name"] == "minimcp-cli")["version"])')
cargo_home=${CARGO_HOME:-$HOME/.cargo}
remap="--remap-path-prefix=$work/minimcp=/minimcp --remap-path-prefix=$cargo_home/registry/src=/registry --remap-path-prefix=/usr/lib/rustlib/src/rust=/rust"

# Nothing from the caller's environment may change the bytes.
clean=(env -u RUSTFLAGS -u CARGO_ENCODED_RUSTFLAGS -u CARGO_BUILD_RUSTFLAGS -u CARGO_TARGET_DIR
  -u MINIMCP_HOT_TEXT -u RUSTC -u RUSTC_WRAPPER -u CARGO_BUILD_TARGET)

# The three builds run at once, each in its own target directory: a release build spends most
# of its time in LTO and one codegen unit, on one core, so together they take about the time of
# the longest. Each logs to its own file, shown if it fails.
build() { # name, then the command
  local name=$1
  shift
  "$@" >"$work/$name.log" 2>&1 || { echo "release.sh: the $name build failed:" >&2; cat "$work/$name.log" >&2; return 1; }
}

# x86_64 Linux: the pinned (rustup) toolchain, glibc linked in.
build x86_64-linux "${clean[@]}" RUSTFLAGS="$remap -C target-feature=+crt-static" \
  cargo build --release --locked --quiet -p minimcp-cli --target x86_64-unknown-linux-gnu --target-dir "$work/target-x86_64" &
x86_64=$!

# The others: Debian's toolchain builds the standard library for the target itself.
debian=("${clean[@]}" PATH="/usr/bin:$PATH" RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1)
build aarch64-linux "${debian[@]}" RUSTFLAGS="$remap -C target-feature=+crt-static" \
  CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc \
  /usr/bin/cargo build --release --locked --quiet -p minimcp-cli -Zbuild-std=std,panic_abort \
  --target aarch64-unknown-linux-gnu --target-dir "$work/target-aarch64" &
aarch64=$!

build x86_64-windows "${debian[@]}" RUSTFLAGS="$remap -C link-arg=-Wl,--no-insert-timestamp" \
  CARGO_TARGET_X86_64_WIN7_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc \
  /usr/bin/cargo build --release --locked --quiet -p minimcp-cli -Zbuild-std=std,panic_abort \
  --target x86_64-win7-windows-gnu --target-dir "$work/target-windows" &
windows=$!

failed=0
for job in "$x86_64" "$aarch64" "$windows"; do wait "$job" || failed=1; done
[ "$failed" = 0 ] || exit 1
cp "$work/target-x86_64/x86_64-unknown-linux-gnu/release/minimcp" "$out/minimcp-$version-x86_64-linux"
cp "$work/target-aarch64/aarch64-unknown-linux-gnu/release/minimcp" "$out/minimcp-$version-aarch64-linux"
cp "$work/target-windows/x86_64-win7-windows-gnu/release/minimcp.exe" "$out/minimcp-$version-x86_64-windows.exe"

cd "$out"
sha256sum "minimcp-$version-x86_64-linux" "minimcp-$version-aarch64-linux" \
  "minimcp-$version-x86_64-windows.exe" >SHA256SUMS
{
  echo "commit $commit"
  echo "x86_64-linux: $(rustc -V) ($(cargo -V)), RUSTFLAGS=-C target-feature=+crt-static + path remaps"
  echo "aarch64-linux, x86_64-windows: $(/usr/bin/rustc -V) (Debian rustc-web, -Zbuild-std)"
  echo "linkers: $(gcc --version | head -1); $(aarch64-linux-gnu-gcc --version | head -1); $(x86_64-w64-mingw32-gcc --version | head -1)"
} >BUILDINFO
cat SHA256SUMS
