#!/usr/bin/env python3
"""Lines of Rust that each feature combination compiles, tests left out.

Builds the library and binary once per combination (`cargo build --no-default-features
--features X`), reads the dep-info files cargo writes beside them (the exact list of source
files that build compiled; the binary's own are main.rs and its modules under src/), and counts their lines without `#[cfg(test)]` items as .ci/lines.py does (the
per-layer table in docs/reading-the-code.md); the `*_tests.rs` files a non-test build never reads are not in
the list at all. Code under `#[cfg(feature = ...)]` inside a compiled file is counted.

    python3 benches/feature-lines.py            # none, each feature alone, all
    python3 benches/feature-lines.py --files    # and the files of the no-features build
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


def compiled_files(flags):
    """The src/ files rustc read for the lib and for the bin built with `flags`."""
    out = cargo("build", "--quiet", "--lib", "--bins", "--message-format=json", *flags)
    files = {"lib": set(), "bin": set()}
    for line in out.splitlines():
        msg = json.loads(line)
        if msg.get("reason") != "compiler-artifact" or msg["target"]["name"] != "minimcp":
            continue
        kind = "lib" if "lib" in msg["target"]["kind"] else "bin"
        for artifact in msg["filenames"]:
            dep_info = re.sub(r"(\.rlib|\.rmeta|\.so|\.a)?$", "", artifact) + ".d"
            if not os.path.exists(dep_info):
                continue
            with open(dep_info) as f:
                first = f.readline()  # "target: dep dep ..."
            for dep in first.split(":", 1)[1].split():
                if dep.endswith(".rs") and "/src/" in dep and dep.startswith(ROOT):
                    files[kind].add(os.path.relpath(dep, ROOT))
    # Cargo's dep-info of the binary lists the library's files too: keep its own.
    files["bin"] -= files["lib"]
    return {kind: sorted(names) for kind, names in files.items()}


def non_test_lines(path):
    """Lines of `path` outside `#[cfg(test)]` items, counted as .ci/lines.py counts them."""
    return LINES.count(os.path.join(ROOT, path))


def main():
    meta = json.loads(cargo("metadata", "--no-deps", "--format-version", "1"))
    features = sorted(k for k in meta["packages"][0]["features"] if k != "default")
    combos = [("none", ["--no-default-features"])]
    combos += [(f, ["--no-default-features", "--features", f]) for f in features]
    combos += [("all", ["--all-features"])]
    print(f"{'build':<12} {'files':>5} {'library':>8} {'binary':>7} {'total':>7}")
    for name, flags in combos:
        files = compiled_files(flags)
        lib = sum(non_test_lines(f) for f in files["lib"])
        bin_ = sum(non_test_lines(f) for f in files["bin"])
        count = len(files["lib"]) + len(files["bin"])
        print(f"{name:<12} {count:>5} {lib:>8} {bin_:>7} {lib + bin_:>7}")
        if name == "none" and "--files" in sys.argv:
            for f in files["lib"] + files["bin"]:
                print(f"    {non_test_lines(f):>6}  {f}")


if __name__ == "__main__":
    main()
