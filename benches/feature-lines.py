#!/usr/bin/env python3
"""Lines of Rust that each crate of the workspace compiles, tests left out, per feature.

Builds each crate (`cargo build -p CRATE --message-format=json`, the toolsets once per
feature alone and once with all, the binary with none and with all), reads the dep-info file
cargo writes beside each artifact (the exact list of source files that build compiled), keeps
the crate's own files, and counts their lines without `#[cfg(test)]` items as .ci/lines.py
does (the per-crate table in docs/reading-the-code.md); the `*_tests.rs` files a non-test
build never reads are not in the list at all. Code under `#[cfg(feature = ...)]` inside a
compiled file is counted. The `minimcp` row is the library crate as a vendor builds it.

    python3 benches/feature-lines.py            # every crate, each toolset alone, all
    python3 benches/feature-lines.py --files    # and the files of the library crate
"""
import importlib.util
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# One definition of a non-test line: the code-size table's (.ci/lines.py).
_spec = importlib.util.spec_from_file_location("lines", os.path.join(ROOT, ".ci", "lines.py"))
LINES = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(LINES)


def cargo(*args):
    return subprocess.run(["cargo", *args], cwd=ROOT, check=True, capture_output=True, text=True).stdout


def compiled_files(crate, flags):
    """The files of `crate` (under its own folder) rustc read for it, built with `flags`."""
    meta = json.loads(cargo("metadata", "--no-deps", "--format-version", "1"))
    package = next(p for p in meta["packages"] if p["name"] == crate)
    manifest = package["manifest_path"]
    # The library target, or the binary's (asking for a target a package lacks is an error).
    kinds = {k for t in package["targets"] for k in t["kind"]}
    targets = [f for k, f in (("lib", "--lib"), ("bin", "--bins")) if k in kinds]
    out = cargo("build", "--quiet", "--locked", "-p", crate, *targets, "--message-format=json", *flags)
    src = os.path.join(os.path.dirname(manifest), "src") + os.sep
    files = set()
    for line in out.splitlines():
        msg = json.loads(line)
        if msg.get("reason") != "compiler-artifact" or msg.get("manifest_path") != manifest:
            continue
        if not {"lib", "bin"} & set(msg["target"]["kind"]):
            continue
        for artifact in msg["filenames"]:
            dep_info = re.sub(r"(\.rlib|\.rmeta|\.so|\.a)?$", "", artifact) + ".d"
            if not os.path.exists(dep_info):
                continue
            with open(dep_info) as f:
                first = f.readline()  # "target: dep dep ..."
            for dep in first.split(":", 1)[1].split():
                if dep.endswith(".rs") and dep.startswith(src):
                    files.add(os.path.relpath(dep, ROOT))
    return sorted(files)


def non_test_lines(path):
    """Lines of `path` outside `#[cfg(test)]` items, counted as .ci/lines.py counts them."""
    return LINES.count(os.path.join(ROOT, path))


def main():
    meta = json.loads(cargo("metadata", "--no-deps", "--format-version", "1"))
    toolsets = next(p for p in meta["packages"] if p["name"] == "minimcp-toolsets")
    features = sorted(k for k in toolsets["features"] if k != "default")
    builds = [("minimcp", "minimcp", ["--no-default-features"])]
    builds += [("minimcp-base", "minimcp-base", []), ("minimcp-http", "minimcp-http", [])]
    builds += [(f"toolsets: {f}", "minimcp-toolsets", ["--no-default-features", "--features", f]) for f in features]
    builds += [("toolsets: all", "minimcp-toolsets", ["--all-features"])]
    builds += [("binary: none", "minimcp-cli", ["--no-default-features"]), ("binary: all", "minimcp-cli", ["--all-features"])]
    print(f"{'build':<22} {'files':>5} {'lines':>7}")
    for name, crate, flags in builds:
        files = compiled_files(crate, flags)
        lines = sum(non_test_lines(f) for f in files)
        print(f"{name:<22} {len(files):>5} {lines:>7}")
        if name == "minimcp" and "--files" in sys.argv:
            for f in files:
                print(f"    {non_test_lines(f):>6}  {f}")


if __name__ == "__main__":
    main()
