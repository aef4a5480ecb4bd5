#!/usr/bin/env bash
# What the templates toolset answers, checked against each protocol version's own JSON schema
# (../shared/spec/<version>/schema.json) by an independent validator (Python `jsonschema`):
# tools/list, resources/list, resources/templates/list, resources/read, completion/complete
# and every templates tool (successes, isError results with the spec's codes, paged results),
# at 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25 and 2026-07-28. Each answer is validated
# by its method's `…Result` definition. Exits non-zero on any violation.
#
#   tests/templates_wire_schema.sh     # from anywhere
#
# `jsonschema` comes from the system Python if present, else it is pip-installed into a
# scratch directory (PyPI only). Environment: MINIMCP_SHARED (default ../shared beside the
# project), MINIMCP_BIN (default target/release/minimcp, built here).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SHARED="${MINIMCP_SHARED:-$ROOT/../shared}"
[ -d "$SHARED/spec" ] || { echo "templates_wire_schema: FAILED: no $SHARED/spec (set MINIMCP_SHARED)" >&2; exit 1; }

if [ -z "${MINIMCP_BIN:-}" ]; then
  (cd "$ROOT" && cargo build --release --quiet)
  MINIMCP_BIN="$ROOT/target/release/minimcp"
fi

. "$ROOT/tests/lib/jsonschema.sh"
ensure_jsonschema templates_wire_schema

exec python3 - "$MINIMCP_BIN" "$SHARED/spec" <<'PYTHON'
import json, subprocess, sys
import jsonschema

binary, spec = sys.argv[1], sys.argv[2]
VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]
TEMPLATE = "template://{category}/{toolchain}/{variant}"
CALLS = [
    ("tools/list", {}, "ListToolsResult"),
    ("resources/list", {}, "ListResourcesResult"),
    ("resources/templates/list", {}, "ListResourceTemplatesResult"),
    ("resources/read", {"uri": "template://readme/deno/service"}, "ReadResourceResult"),
    ("completion/complete", {"ref": {"type": "ref/resource", "uri": TEMPLATE},
                             "argument": {"name": "variant", "value": ""},
                             "context": {"arguments": {"category": "makefile"}}}, "CompleteResult"),
]
TOOLS = [
    ("list_templates", {}),
    ("list_templates", {"toolchain": "go", "category": "readme", "offset": 1}),
    ("search_templates", {"query": "docker typescript"}),
    ("validate_template", {"resource_uri": "template://makefile/rust/cli", "parameters": {"port": 1}}),
    ("generate_template", {"resource_uri": "template://makefile/rust/cli", "parameters": {"project_name": "t"}}),
    ("generate_template", {"resource_uri": "template://makefile/rust/cli", "parameters": {"project_name": "1"}}),
    ("generate_template", {"resource_uri": "template://nope/rust/cli"}),
    ("generate_template", {"resource_uri": "nope"}),
    ("scaffold_project", {"toolchain": "python", "templates": ["makefile", "readme/gui"], "parameters": {"project_name": "p"}}),
]
CALLS += [("tools/call", {"name": n, "arguments": a}, "CallToolResult") for n, a in TOOLS]

failures = checked = 0
for version in VERSIONS:
    schema = json.load(open(f"{spec}/{version}/schema.json"))
    key = "$defs" if "$defs" in schema else "definitions"
    cls = jsonschema.validators.validator_for(schema)
    for method, params, definition in CALLS:
        if method == "completion/complete" and version == "2024-11-05":
            params = dict(params)
            params.pop("context")  # context arrives in 2025-06-18
        out = subprocess.run([binary, "call", method, json.dumps(params), "--toolsets", "templates",
                              "--protocol", version], capture_output=True, text=True)
        label = f"{version} {method} {json.dumps(params)[:80]}"
        try:
            result = json.loads(out.stdout)
        except ValueError:
            print(f"FAIL {label}: no JSON answer: {out.stderr[:300]}")
            failures += 1
            continue
        validator = cls({"$ref": f"#/{key}/{definition}", key: schema[key]})
        errors = sorted(validator.iter_errors(result), key=lambda e: list(e.path))
        checked += 1
        if errors:
            failures += 1
            print(f"FAIL {label}: {errors[0].message[:300]} at {list(errors[0].path)}")
print(f"templates_wire_schema: {checked} answers checked, {failures} failures")
sys.exit(1 if failures else 0)
PYTHON
