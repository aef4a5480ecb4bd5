#!/usr/bin/env python3
"""Which `crate::` paths the toolsets use that are not the library's public API.

A toolset should be buildable from the outside: it may name what the crate root re-exports
(`pub use`, `pub mod`, `pub fn` in src/lib.rs) and the toolsets' own modules
(`crate::toolsets::…`), nothing else, in its tests too (a handler's unit test builds its
`Context` with the public `TestClient`). This lists every other `crate::` path under
src/toolsets/, split into code the binary runs and test code (`*_tests.rs`, `testutil.rs`,
and whatever follows a `#[cfg(test)]` line), and exits 1 when either list is not empty.

    python3 benches/toolset-paths.py
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def public_names():
    """The names src/lib.rs makes public at the crate root."""
    text = open(os.path.join(ROOT, "src/lib.rs")).read()
    names = set(re.findall(r"^pub (?:mod|fn|struct|enum|type|const) (\w+)", text, re.M))
    for group in re.findall(r"^pub use [\w:]*?(\{[^}]*\}|\w+);", text, re.M | re.S):
        names.update(re.findall(r"(?:\b\w+\s+as\s+)?(\w+)\s*(?:,|\}|$)", group.strip("{}") + ","))
    return names


def paths(text):
    """(line, path) of every `crate::` path in `text`; a `crate::{a, b::c}` group gives each."""
    found = []
    for m in re.finditer(r"crate::(\{[^}]*\}|[\w:]+)", text):
        line = text.count("\n", 0, m.start()) + 1
        body = m.group(1)
        items = [i.strip() for i in body.strip("{}").split(",")] if body.startswith("{") else [body]
        found += [(line, i) for i in items if i]
    return found


def main():
    public = public_names() | {"toolsets"}
    runtime, tests = [], []
    for dirpath, _, files in os.walk(os.path.join(ROOT, "src/toolsets")):
        for name in sorted(files):
            if not name.endswith(".rs"):
                continue
            path = os.path.join(dirpath, name)
            text = open(path).read()
            test_from = text.find("#[cfg(test)]\nmod ")
            is_test_file = name.endswith("_tests.rs") or name == "testutil.rs"
            for line, item in paths(text):
                first = item.split("::")[0]
                if first in public:
                    continue
                in_test = is_test_file or (test_from >= 0 and line > text.count("\n", 0, test_from))
                entry = f"{os.path.relpath(path, ROOT)}:{line}: crate::{item}"
                (tests if in_test else runtime).append(entry)
    print(f"not public API, in code the binary runs: {len(runtime)}")
    for e in runtime:
        print("  " + e)
    print(f"not public API, in test code: {len(tests)}")
    for e in tests:
        print("  " + e)
    return 1 if runtime or tests else 0


if __name__ == "__main__":
    sys.exit(main())
