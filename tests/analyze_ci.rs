//! `minimcp analyze` as a CI owner meets it, through the real binary on repositories the
//! tests create: the default summary in a pipe, a baseline regression shown `old → new`,
//! limits only from the user (so no result without one), `.minimcp.toml` and its errors,
//! exemptions in the source and stale ones, the GitLab and Checkstyle reports, `--report`,
//! paths outside the working directory, and a reader that closes the pipe early. (The
//! formats against their published schema or a real consumer: tests/analysis_formats.sh.)

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

mod common;

use common::git;
use common::scratch::Scratch;

/// Cyclomatic 4 (three `if`s), cognitive 3.
const BRANCHY: &str =
    "def branchy(x):\n    if x == 1:\n        return 1\n    if x == 2:\n        return 2\n    if x == 3:\n        return 3\n    return 0\n";

/// Cyclomatic 6, cognitive 5.
const WORSE: &str = "def branchy(x):\n    if x == 1:\n        return 1\n    if x == 2:\n        return 2\n    if x == 3:\n        return 3\n    if x == 4:\n        return 4\n    if x == 5:\n        return 5\n    return 0\n";

const SIMPLE: &str = "def simple():\n    return 1\n";

/// A repository with `a.py` (simple, branchy), committed; `None` without git.
fn repository(name: &str) -> Option<Scratch> {
    let dir = Scratch::new(name);
    if !git(&dir, &["init", "-q"]) {
        eprintln!("skipped: git is not available");
        return None;
    }
    write(&dir, "a.py", &format!("{SIMPLE}\n{BRANCHY}"));
    assert!(git(&dir, &["add", "."]) && git(&dir, &["commit", "-qm", "one"]));
    Some(dir)
}

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
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

fn json(dir: &Path, args: &[&str]) -> (i32, Value) {
    let mut all = vec!["analyze", "--format", "json"];
    all.extend_from_slice(args);
    let (code, out, err) = minimcp(dir, &all);
    (
        code,
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out} {err}")),
    )
}

#[test]
fn the_default_is_a_short_summary_with_failures_first() {
    let Some(dir) = repository("summary") else {
        return;
    };
    write(&dir, "b.py", &WORSE.replace("branchy", "worse"));
    let (code, out, err) = minimcp(&dir, &["analyze", "--max-cyclomatic", "5"]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(err, "", "a pipe gets no progress line");
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with("minimcp analyze: 2 files, 3 functions in ."),
        "{out}"
    );
    assert_eq!(lines[1], "limits: cyclomatic 5 (from the command line)");
    assert!(
        out.contains("failing:\n  b.py:1: worse: cyclomatic 6 (limit 5)\n"),
        "{out}"
    );
    assert!(out.ends_with("FAILED: 1 function over a limit.\n"), "{out}");
    assert!(out.len() < 400, "short: {out}");
    // Without a limit nothing fails, and the summary says how to set one.
    let (code, out, _) = minimcp(&dir, &["analyze"]);
    assert_eq!(code, 0);
    assert!(out.contains("limits: none set, so nothing fails"), "{out}");
    assert!(
        out.contains("the largest: cyclomatic 6 (b.py:1 worse)"),
        "{out}"
    );
    assert!(out.ends_with("passed.\n"), "{out}");
}

#[test]
fn a_baseline_regression_is_shown_old_to_new() {
    let Some(dir) = repository("regression") else {
        return;
    };
    let baseline = dir.join("base.json");
    let path = baseline.to_str().expect("utf-8");
    let (code, out, _) = minimcp(
        &dir,
        &["analyze", "--max-cyclomatic", "3", "--write-baseline", path],
    );
    assert_eq!((code, out.lines().count()), (0, 1), "{out}");
    write(&dir, "a.py", &format!("{SIMPLE}\n{WORSE}"));
    write(&dir, "c.py", &BRANCHY.replace("branchy", "fresh"));
    // The limits come from the baseline when nothing else sets them.
    let (code, out, _) = minimcp(&dir, &["analyze", "--baseline", path]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("limits: cyclomatic 3 (from the baseline "),
        "{out}"
    );
    let failing = out.split("failing:\n").nth(1).expect("failing list");
    let mut failing: Vec<&str> = failing
        .lines()
        .take_while(|l| l.starts_with("  "))
        .collect();
    failing.sort();
    assert_eq!(
        failing,
        [
            "  a.py:4: branchy: cyclomatic 4 → 6 (limit 3, worse than the baseline)",
            "  c.py:1: fresh: cyclomatic 4 (limit 3, new)",
        ],
        "{out}"
    );
    let (_, report) = json(&dir, &["--baseline", path]);
    let worse = report["violations"]
        .as_array()
        .expect("violations")
        .iter()
        .find(|v| v["function"] == "branchy")
        .cloned()
        .expect("branchy");
    assert_eq!(
        (worse["old"].as_u64(), worse["value"].as_u64()),
        (Some(4), Some(6))
    );
}

#[test]
fn a_diff_shows_the_revisions_value() {
    let Some(dir) = repository("diff-old") else {
        return;
    };
    write(&dir, "a.py", &format!("{SIMPLE}\n{WORSE}"));
    let (code, out, _) = minimcp(
        &dir,
        &["analyze", "--max-cyclomatic", "3", "--diff", "HEAD"],
    );
    assert_eq!(code, 1);
    assert!(
        out.contains("  a.py:4: branchy: cyclomatic 4 → 6 (limit 3)\n"),
        "{out}"
    );
    assert!(
        out.contains("diff: only the 1 function changed since HEAD are judged"),
        "{out}"
    );
}

#[test]
fn sarif_holds_results_only_for_limits_someone_set() {
    let Some(dir) = repository("sarif-levels") else {
        return;
    };
    let results = |args: &[&str]| -> Vec<Value> {
        let mut all = vec!["analyze", "--format", "sarif"];
        all.extend_from_slice(args);
        let (_, out, err) = minimcp(&dir, &all);
        let log: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {err}"));
        log["runs"][0]["results"]
            .as_array()
            .cloned()
            .expect("results")
    };
    assert_eq!(results(&[]), Vec::<Value>::new(), "no limit, no result");
    let base = dir.join("b.json");
    let path = base.to_str().expect("utf-8");
    minimcp(
        &dir,
        &["analyze", "--max-cyclomatic", "3", "--write-baseline", path],
    );
    let held = results(&["--max-cyclomatic", "3", "--baseline", path]);
    assert_eq!(held.len(), 1);
    assert_eq!(held[0]["level"], "note");
    assert_eq!(held[0]["suppressions"][0]["kind"], "external");
    assert_eq!(held[0]["baselineState"], "unchanged");
    let failing = results(&["--max-cyclomatic", "3"]);
    assert_eq!(failing[0]["level"], "error");
    assert!(failing[0].get("suppressions").is_none());
}

#[test]
fn the_configuration_sets_limits_excludes_and_overrides_and_flags_win() {
    let Some(dir) = repository("config") else {
        return;
    };
    write(&dir, "gen/table.py", &WORSE.replace("branchy", "table"));
    write(&dir, "vendor/x.py", &WORSE.replace("branchy", "vendored"));
    write(
        &dir,
        ".minimcp.toml",
        "[analyze]\nmax-cyclomatic = 3\nexclude = [\"vendor\"]\n\n[[analyze.override]]\npaths = [\"gen/**\"]\nmax-cyclomatic = 10\n",
    );
    let (code, report) = json(&dir, &[]);
    assert_eq!(code, 1);
    let failing: Vec<&str> = report["violations"]
        .as_array()
        .expect("violations")
        .iter()
        .map(|v| v["function"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(failing, ["branchy"], "{report}");
    assert_eq!(report["thresholds"]["source"], "config");
    // From a subdirectory the repository's file still applies (and its paths are the
    // repository's).
    let (code, out, _) = minimcp(&dir.join("gen"), &["analyze"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("(from ../.minimcp.toml, 1 path override)"),
        "{out}"
    );
    // A flag wins over the file, overrides included, for the metric it names; the file
    // still sets the others.
    assert_eq!(json(&dir, &["--max-cyclomatic", "6"]).0, 0);
    assert_eq!(json(&dir, &["--max-cyclomatic", "5"]).0, 1);
    write(
        &dir,
        ".minimcp.toml",
        "[analyze]\nmax-cyclomatic = 3\nmax-cognitive = 4\nexclude = [\"vendor\"]\n",
    );
    let (code, report) = json(&dir, &["--max-cyclomatic", "6"]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(report["thresholds"]["max_cognitive"], 4);
    assert_eq!(report["thresholds"]["source"], "flags and config");
    // A mistake names the file, the line and the key, and stops the run.
    write(
        &dir,
        ".minimcp.toml",
        "[analyze]\nmax-cyclomatic = 3\nmax_cognitive = 9\n",
    );
    let (code, out, err) = minimcp(&dir, &["analyze"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(
        err.starts_with("minimcp: .minimcp.toml:3: unknown key `max_cognitive` in [analyze] (did you mean `max-cognitive`?)"),
        "{err}"
    );
    // --config names another file.
    write(&dir, "other.toml", "[analyze]\nmax-cognitive = 1\n");
    let (code, out, _) = minimcp(&dir, &["analyze", "--config", "other.toml"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("(from other.toml)"), "{out}");
}

#[test]
fn exemptions_in_the_source_and_stale_ones() {
    let Some(dir) = repository("exempt") else {
        return;
    };
    let allowed = format!(
        "# minimcp: allow cyclomatic=6 -- a dispatch table\n{}",
        WORSE.replace("branchy", "allowed")
    );
    let outgrown = format!(
        "# minimcp: allow cyclomatic=5 -- was smaller\n{}",
        WORSE.replace("branchy", "outgrown")
    );
    let noqa = WORSE
        .replace("branchy", "noqa")
        .replace("(x):", "(x):  # noqa: complexipy");
    let lizard = WORSE
        .replace("branchy", "forgiven")
        .replace("    return 0", "    # #lizard forgives\n    return 0");
    let stale = format!("# minimcp: allow cyclomatic=9 -- no longer needed\n{SIMPLE}");
    let broken = "def broken():\n    # minimcp: allow cyclomatic=9\n    return 1\n";
    write(
        &dir,
        "e.py",
        &[
            allowed,
            outgrown,
            noqa,
            lizard,
            stale,
            broken.into(),
            "# #lizard forgives\n".into(),
        ]
        .join("\n"),
    );
    let (code, report) = json(
        &dir,
        &["--max-cyclomatic", "3", "--max-cognitive", "3", "e.py"],
    );
    assert_eq!(code, 1, "{report}");
    let rows: Vec<(String, String, String)> = report["violations"]
        .as_array()
        .expect("violations")
        .iter()
        .map(|v| {
            (
                v["function"].as_str().unwrap_or("").into(),
                v["metric"].as_str().unwrap_or("").into(),
                v["state"].as_str().unwrap_or("").into(),
            )
        })
        .collect();
    let state = |name: &str, metric: &str| {
        rows.iter()
            .find(|r| r.0 == name && r.1 == metric)
            .map(|r| r.2.as_str())
            .unwrap_or("none")
    };
    assert_eq!(state("allowed", "cyclomatic"), "exempted");
    assert_eq!(
        state("allowed", "cognitive"),
        "fails",
        "it names one metric"
    );
    assert_eq!(state("outgrown", "cyclomatic"), "fails");
    assert_eq!(state("noqa", "cognitive"), "exempted");
    assert_eq!(
        state("noqa", "cyclomatic"),
        "fails",
        "complexipy's is cognitive only"
    );
    assert_eq!(state("forgiven", "cyclomatic"), "exempted");
    assert_eq!(state("forgiven", "cognitive"), "exempted");
    let stale: Vec<String> = report["stale_exemptions"]
        .as_array()
        .expect("stale")
        .iter()
        .map(|s| format!("{}: {}", s["line"], s["why"].as_str().unwrap_or("")))
        .collect();
    assert_eq!(stale.len(), 3, "{stale:?}");
    assert!(
        stale
            .iter()
            .any(|s| s.contains("not needed: cyclomatic 1 is within the limit 3")),
        "{stale:?}"
    );
    assert!(
        stale.iter().any(|s| s.contains("ignored: no reason")),
        "{stale:?}"
    );
    assert!(
        stale.iter().any(|s| s.contains("belongs to no function")),
        "{stale:?}"
    );
    let (_, out, _) = minimcp(&dir, &["analyze", "--max-cyclomatic", "3", "e.py"]);
    assert!(out.contains("exempted in the source:\n"), "{out}");
    assert!(
        out.contains("stale exemptions (remove or fix them):\n"),
        "{out}"
    );
    assert!(
        out.contains("outgrown: cyclomatic 6 (limit 3, above its exemption of 5)"),
        "{out}"
    );
}

#[test]
fn gitlab_and_checkstyle_reports_beside_the_summary() {
    let Some(dir) = repository("ci-formats") else {
        return;
    };
    write(&dir, "q&<\"x\".py", &WORSE.replace("branchy", "odd"));
    let (code, out, err) = minimcp(
        &dir,
        &[
            "analyze",
            "--max-cyclomatic",
            "3",
            "--report",
            "gitlab=gl.json",
            "--report=checkstyle=cs.xml",
            "--report",
            "sarif=c.sarif",
        ],
    );
    assert_eq!(code, 1, "{err}");
    assert!(
        out.starts_with("minimcp analyze: "),
        "the summary on stdout: {out}"
    );
    let issues: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("gl.json")).expect("gl.json"))
            .expect("JSON");
    let issues = issues.as_array().expect("an array");
    assert_eq!(issues.len(), 2);
    for issue in issues {
        assert_eq!(issue["type"], "issue");
        assert_eq!(issue["severity"], "major");
        assert_eq!(issue["categories"], serde_json::json!(["Complexity"]));
        assert!(issue["location"]["lines"]["begin"].as_u64() >= Some(1));
        assert_eq!(issue["fingerprint"].as_str().map(str::len), Some(64));
    }
    let xml = std::fs::read_to_string(dir.join("cs.xml")).expect("cs.xml");
    assert!(
        xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<checkstyle"),
        "{xml}"
    );
    assert!(
        xml.contains("<file name=\"q&amp;&lt;&quot;x&quot;.py\">"),
        "{xml}"
    );
    assert_eq!(xml.matches("severity=\"error\"").count(), 2, "{xml}");
    assert!(dir.join("c.sarif").exists());
}

#[test]
fn any_path_a_person_names_is_read() {
    let Some(dir) = repository("outside") else {
        return;
    };
    let me = dir.join("me");
    std::fs::create_dir_all(&me).expect("mkdir");
    let (code, report) = json(&me, &["..", "--max-cyclomatic", "3"]);
    assert_eq!(code, 1, "{report}");
    let files: Vec<&str> = report["functions"]
        .as_array()
        .expect("functions")
        .iter()
        .map(|f| f["file"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(files, ["../a.py", "../a.py"], "{report}");
    let absolute = dir.join("a.py");
    let (code, out, err) = minimcp(&me, &["analyze", absolute.to_str().expect("utf-8")]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("1 file, 2 functions"), "{out}");
    let (code, _, err) = minimcp(&me, &["analyze", "../missing"]);
    assert_eq!(code, 2);
    assert!(err.starts_with("minimcp: cannot read ../missing"), "{err}");
}

#[test]
fn a_closed_pipe_ends_quietly_with_the_gates_status() {
    let Some(dir) = repository("pipe") else {
        return;
    };
    // Enough functions that the report outgrows a pipe's buffer.
    let many: String = (0..3000)
        .map(|i| WORSE.replace("branchy", &format!("f{i}")))
        .collect();
    write(&dir, "many.py", &many);
    for (args, status) in [
        (&["--max-cyclomatic", "3"][..], 1),
        (&["--max-cyclomatic", "30"][..], 0),
    ] {
        let mut child = Command::new(common::minimcp())
            .current_dir(&dir)
            .args(["analyze", "--format", "json"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        let mut first = [0u8; 16];
        child
            .stdout
            .as_mut()
            .expect("stdout")
            .read_exact(&mut first)
            .expect("read");
        drop(child.stdout.take());
        let out = child.wait_with_output().expect("wait");
        assert_eq!(out.status.code(), Some(status), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "quietly");
    }
}
