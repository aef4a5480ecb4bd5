//! `minimcp analyze` and `minimcp churn` through the real binary, on git repositories the
//! tests create: limits and exit statuses, the baseline, `--diff`, every format, and SARIF
//! fingerprints that survive lines inserted above a function. (The SARIF schema itself is
//! checked by tests/analysis_formats.sh, which installs its validators.)

use std::path::Path;
use std::process::Command;

use serde_json::Value;

mod common;

use common::git;
use common::scratch::Scratch;

/// Cyclomatic 4 (three `if`s), cognitive 3.
const BRANCHY: &str =
    "def branchy(x):\n    if x == 1:\n        return 1\n    if x == 2:\n        return 2\n    if x == 3:\n        return 3\n    return 0\n";

/// Cyclomatic 5, cognitive 4.
const WORSE: &str = "def branchy(x):\n    if x == 1:\n        return 1\n    if x == 2:\n        return 2\n    if x == 3:\n        return 3\n    if x == 4:\n        return 4\n    return 0\n";

/// Cyclomatic 4 (`for`, `if`, `and`): another file's function.
const TANGLED: &str =
    "def tangled(items):\n    for i in items:\n        if i and i > 2:\n            return i\n    return None\n";

const SIMPLE: &str = "def simple():\n    return 1\n";

/// A repository with `a.py` (simple, branchy) and `b.py` (tangled), committed once; `None`
/// (the test skips, visibly) when git is missing.
fn repository(name: &str) -> Option<Scratch> {
    let dir = Scratch::new(name);
    if !git(&dir, &["init", "-q"]) {
        eprintln!("skipped: git is not available");
        return None;
    }
    write(&dir, "a.py", &format!("{SIMPLE}\n{BRANCHY}"));
    write(&dir, "b.py", TANGLED);
    assert!(commit(&dir, "one"));
    Some(dir)
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).expect("write");
}

fn commit(dir: &Path, message: &str) -> bool {
    git(dir, &["add", "."]) && git(dir, &["commit", "-qm", message])
}

/// Exit status, stdout, stderr of `minimcp ARGS` in `dir`.
fn minimcp(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(common::minimcp())
        .current_dir(dir)
        .args(args)
        .output()
        .expect("the binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `minimcp analyze --format json ARGS`: its exit status and report.
fn analyze_json(dir: &Path, args: &[&str]) -> (i32, Value) {
    let mut all = vec!["analyze", "--format", "json"];
    all.extend_from_slice(args);
    let (code, out, err) = minimcp(dir, &all);
    let report = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out} {err}"));
    (code, report)
}

/// The (function, metric, baseline state) of each violation that fails.
fn failing(report: &Value) -> Vec<(String, String, String)> {
    report["violations"]
        .as_array()
        .expect("violations")
        .iter()
        .filter(|v| v["fails"] == true)
        .map(|v| {
            (
                v["function"].as_str().unwrap_or("").to_string(),
                v["metric"].as_str().unwrap_or("").to_string(),
                v["baseline"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

#[test]
fn limits_set_the_exit_status() {
    let Some(dir) = repository("limits") else {
        return;
    };
    // Without a limit nothing fails, whatever the default thresholds report.
    let (code, report) = analyze_json(&dir, &[]);
    assert_eq!(code, 0);
    assert_eq!(report["functions"].as_array().map(Vec::len), Some(3));
    let (code, report) = analyze_json(&dir, &["--max-cyclomatic", "3"]);
    assert_eq!(code, 1, "{report}");
    let mut names: Vec<_> = failing(&report).into_iter().map(|f| f.0).collect();
    names.sort();
    assert_eq!(names, ["branchy", "tangled"]);
    assert_eq!(analyze_json(&dir, &["--max-cyclomatic", "4"]).0, 0);
    let (code, report) = analyze_json(&dir, &["--max-cognitive", "3"]);
    assert_eq!(code, 1);
    assert_eq!(
        failing(&report),
        [("tangled".into(), "cognitive".into(), String::new())]
    );
    // A path and an exclude narrow what is judged.
    assert_eq!(analyze_json(&dir, &["a.py", "--max-cognitive", "3"]).0, 0);
    assert_eq!(
        analyze_json(&dir, &["--exclude", "b.py", "--max-cognitive", "3"]).0,
        0
    );
    // Usage errors: status 2 and a message, nothing on stdout.
    for args in [
        &["analyze", "--max-cyclomatic", "0"][..],
        &["analyze", "--format", "xml"],
        &["analyze", "missing.py"],
        &["analyze", "--baseline", "missing.json"],
        &["analyze", "--diff", "--output=x"],
        &["analyze", "--diff", "no-such-revision"],
    ] {
        let (code, out, err) = minimcp(&dir, args);
        assert_eq!(code, 2, "{args:?}: {out} {err}");
        assert!(err.starts_with("minimcp: "), "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}: {out}");
    }
}

#[test]
fn a_baseline_fails_only_new_or_worse_functions() {
    let Some(dir) = repository("baseline") else {
        return;
    };
    let baseline = dir.join("baseline.json");
    let path = baseline.to_str().expect("utf-8");
    // Writing records the present, passes and says so in one line.
    let (code, out, err) = minimcp(
        &dir,
        &["analyze", "--max-cyclomatic", "3", "--write-baseline", path],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(out.contains("2 functions over the limits"), "{out}");
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(&baseline).expect("written"))
            .expect("the baseline is JSON");
    let mut held: Vec<_> = written["functions"]
        .as_array()
        .expect("functions")
        .iter()
        .map(|f| f["function"].as_str().unwrap_or("").to_string())
        .collect();
    held.sort();
    assert_eq!(held, ["branchy", "tangled"]);

    // Read back: unchanged functions pass, also with lines inserted above them.
    let gate = ["--max-cyclomatic", "3", "--baseline", path];
    let (code, report) = analyze_json(&dir, &gate);
    assert_eq!(code, 0, "{report}");
    assert!(report["violations"]
        .as_array()
        .expect("violations")
        .iter()
        .all(|v| v["baseline"] == "unchanged"));
    write(
        &dir,
        "a.py",
        &format!("# a comment\n\n\n{SIMPLE}\n\n{BRANCHY}"),
    );
    assert_eq!(analyze_json(&dir, &gate).0, 0);

    // Worse than the baseline: fails, as "worse"; the other one still passes.
    write(&dir, "a.py", &format!("{SIMPLE}\n{WORSE}"));
    let (code, report) = analyze_json(&dir, &gate);
    assert_eq!(code, 1);
    assert_eq!(
        failing(&report),
        [("branchy".into(), "cyclomatic".into(), "worse".into())]
    );

    // A new function over the limit fails as "new".
    write(&dir, "a.py", &format!("{SIMPLE}\n{BRANCHY}"));
    write(&dir, "c.py", &BRANCHY.replace("def branchy", "def fresh"));
    let (code, report) = analyze_json(&dir, &gate);
    assert_eq!(code, 1);
    assert_eq!(
        failing(&report),
        [("fresh".into(), "cyclomatic".into(), "new".into())]
    );
}

#[test]
fn diff_judges_only_the_functions_touched_since_a_revision() {
    let Some(dir) = repository("diff") else {
        return;
    };
    // Commit two changes only branchy (one line inside it).
    write(
        &dir,
        "a.py",
        &format!("{SIMPLE}\n{}", BRANCHY.replace("return 0", "return -1")),
    );
    assert!(commit(&dir, "two"));
    let (code, report) = analyze_json(&dir, &["--max-cyclomatic", "3", "--diff", "HEAD~1"]);
    assert_eq!(code, 1);
    let names: Vec<_> = report["functions"]
        .as_array()
        .expect("functions")
        .iter()
        .map(|f| f["name"].as_str().unwrap_or("").to_string())
        .collect();
    assert_eq!(names, ["branchy"], "{report}");
    assert_eq!(failing(&report).len(), 1);
    // Against HEAD nothing is touched: nothing is judged, so it passes.
    let (code, report) = analyze_json(&dir, &["--max-cyclomatic", "3", "--diff", "HEAD"]);
    assert_eq!(code, 0);
    assert_eq!(report["functions"], serde_json::json!([]));
    // An uncommitted change in the working tree counts: only tangled now.
    write(&dir, "b.py", &TANGLED.replace("return None", "return 0"));
    let (code, report) = analyze_json(&dir, &["--max-cyclomatic", "3", "--diff", "HEAD"]);
    assert_eq!(code, 1);
    assert_eq!(
        failing(&report),
        [("tangled".into(), "cyclomatic".into(), String::new())]
    );
    // A file whose name git quotes in its diff (non-ASCII, a quote): still judged.
    assert!(commit(&dir, "three"));
    let odd = "ünï \"q\".py";
    write(&dir, odd, TANGLED);
    assert!(commit(&dir, "four"));
    write(&dir, odd, &TANGLED.replace("return None", "return 1"));
    let (code, report) = analyze_json(&dir, &["--max-cyclomatic", "3", "--diff", "HEAD"]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(
        failing(&report),
        [("tangled".into(), "cyclomatic".into(), String::new())]
    );
}

/// The SARIF log of `dir` with a cyclomatic limit of 3.
fn sarif(dir: &Path) -> Value {
    let (code, out, err) = minimcp(
        dir,
        &["analyze", "--format", "sarif", "--max-cyclomatic", "3"],
    );
    assert_eq!(code, 1, "{err}");
    serde_json::from_str(&out).expect("SARIF is JSON")
}

#[test]
fn every_format_parses() {
    let Some(dir) = repository("formats") else {
        return;
    };
    let (code, out, err) = minimcp(&dir, &["analyze", "--format", "csv"]);
    assert_eq!(code, 0);
    // Not a terminal: stderr stays silent (no progress line).
    assert_eq!(err, "");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "file,function,language,start_line,end_line,lines,cyclomatic,cognitive,max_nesting,halstead_volume,halstead_difficulty,halstead_effort");
    assert_eq!(lines.len(), 4);
    // branchy: lines 4 to 11, cyclomatic 4, cognitive 3, nesting 1.
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("a.py,branchy,python,4,11,8,4,3,1,")),
        "{out}"
    );

    let (code, out, _) = minimcp(
        &dir,
        &["analyze", "--format", "markdown", "--max-cyclomatic", "3"],
    );
    assert_eq!(code, 1);
    assert!(out.starts_with("# Complexity report"), "{out}");
    assert!(
        out.contains("`branchy`") && out.contains("2 failing."),
        "{out}"
    );

    let log = sarif(&dir);
    assert_eq!(log["version"], "2.1.0");
    let run = &log["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().expect("rules");
    for rule in rules {
        for field in ["id", "shortDescription", "fullDescription", "help"] {
            assert!(rule.get(field).is_some(), "{field}: {rule}");
        }
    }
    let results = run["results"].as_array().expect("results");
    assert_eq!(results.len(), 2);
    for result in results {
        let rule = result["ruleIndex"].as_u64().expect("ruleIndex") as usize;
        assert_eq!(result["ruleId"], rules[rule]["id"]);
        assert_eq!(result["level"], "error");
        let place = &result["locations"][0]["physicalLocation"];
        let uri = place["artifactLocation"]["uri"].as_str().expect("uri");
        assert!(
            uri == "a.py" || uri == "b.py",
            "relative to the root: {uri}"
        );
        assert_eq!(place["artifactLocation"]["uriBaseId"], "%SRCROOT%");
        assert!(place["region"]["startLine"].as_u64() >= Some(1));
        assert!(place["region"]["endLine"].as_u64() >= place["region"]["startLine"].as_u64());
    }
    // No absolute path of this machine, no guessed home page.
    assert!(
        run["originalUriBaseIds"]["%SRCROOT%"].get("uri").is_none(),
        "{run}"
    );
    assert!(!log.to_string().contains(&*dir.to_string_lossy()));
    assert!(run["tool"]["driver"].get("informationUri").is_none());
}

#[test]
fn a_fingerprint_survives_lines_inserted_above_its_function() {
    let Some(dir) = repository("fingerprint") else {
        return;
    };
    let branchy = |log: &Value| {
        log["runs"][0]["results"]
            .as_array()
            .expect("results")
            .iter()
            .find(|r| r["locations"][0]["logicalLocations"][0]["name"] == "branchy")
            .cloned()
            .expect("branchy is reported")
    };
    let before = branchy(&sarif(&dir));
    write(
        &dir,
        "a.py",
        &format!("import os\n\n\ndef other():\n    return os.sep\n\n{SIMPLE}\n{BRANCHY}"),
    );
    let after = branchy(&sarif(&dir));
    let line = |r: &Value| r["locations"][0]["physicalLocation"]["region"]["startLine"].as_u64();
    assert_eq!(
        line(&after),
        line(&before).map(|l| l + 6),
        "the lines moved"
    );
    assert_eq!(after["partialFingerprints"], before["partialFingerprints"]);
    // Another function's fingerprint differs.
    let tangled = sarif(&dir)["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|r| r["locations"][0]["logicalLocations"][0]["name"] == "tangled")
        .cloned()
        .expect("tangled");
    assert_ne!(
        tangled["partialFingerprints"],
        before["partialFingerprints"]
    );
}

#[test]
fn churn_reports_the_whole_history() {
    let Some(dir) = repository("churn") else {
        return;
    };
    write(&dir, "b.py", &format!("{TANGLED}\n{SIMPLE}"));
    assert!(commit(&dir, "two"));
    let (code, out, err) = minimcp(&dir, &["churn", "--format", "csv", "--days", "30"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with("file,commits,additions,deletions"),
        "{out}"
    );
    assert!(lines.iter().any(|l| l.starts_with("b.py,2,")), "{out}");
    assert!(lines.iter().any(|l| l.starts_with("a.py,1,")), "{out}");
    let (code, out, _) = minimcp(&dir, &["churn", "--format", "json", "b.py"]);
    assert_eq!(code, 0);
    let report: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(
        report["files"].as_array().map(Vec::len),
        Some(1),
        "{report}"
    );
    // Not a repository: status 2 and the reason.
    let plain = Scratch::new("churn-plain");
    let (code, _, err) = minimcp(&plain, &["churn"]);
    assert_eq!(code, 2);
    assert!(err.contains("git repository"), "{err}");
}

#[test]
fn a_terminal_gets_a_progress_line() {
    let Some(dir) = repository("progress") else {
        return;
    };
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("SKIPPED: no `script` (util-linux) to give the binary a terminal");
        return;
    }
    // stdout to a file, stderr (and stdin) a terminal.
    let report = dir.join("report.json");
    let command = format!(
        "{} analyze --format json > {}",
        common::minimcp(),
        report.display()
    );
    let shown = Command::new("script")
        .current_dir(&dir)
        .args(["-qec", &command, "/dev/null"])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("script");
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(
        text.contains("minimcp: 2/2 files") && text.contains("/s)"),
        "files done / total and the rate: {text:?}"
    );
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("report")).expect("JSON");
    assert_eq!(written["functions"].as_array().map(Vec::len), Some(3));
}
