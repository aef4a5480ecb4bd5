//! The analysis tools through the real binary (`minimcp call`): complexity of a tree the
//! test writes, and churn of a git repository the test creates.

use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};

mod common;

use common::git;
use common::scratch::Scratch;

fn call(root: &Path, tool: &str, args: Value) -> Value {
    call_with(root, tool, args, &[])
}

fn call_with(root: &Path, tool: &str, args: Value, flags: &[&str]) -> Value {
    let out = Command::new(common::minimcp())
        .args(["call", tool, &args.to_string(), "--root"])
        .arg(root)
        .args(flags)
        .output()
        .expect("the binary runs");
    serde_json::from_slice(&out.stdout).expect("a JSON result")
}

#[test]
fn complexity_lists_every_function_with_its_metrics() {
    let dir = Scratch::new("cx");
    std::fs::write(
        dir.join("a.py"),
        "def f(a):\n    if a and b:\n        return 1\n    return 2\n\ndef g():\n    pass\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("b.rs"),
        "fn h(x: u8) -> u8 { match x { 0 => 1, 1 => 2, _ => 3 } }\n",
    )
    .unwrap();
    let result = call(&dir, "analyze_complexity", json!({"max_cyclomatic": 2}));
    let s = &result["structuredContent"];
    assert_eq!(s["summary"]["files"], 2, "{result}");
    assert_eq!(s["summary"]["functions"], 3);
    let f = &s["functions"][0];
    assert_eq!(
        (f["file"].as_str(), f["name"].as_str()),
        (Some("a.py"), Some("f"))
    );
    assert_eq!(
        (f["start_line"].as_u64(), f["end_line"].as_u64()),
        (Some(1), Some(4))
    );
    assert_eq!(
        (f["cyclomatic"].as_u64(), f["cognitive"].as_u64()),
        (Some(3), Some(2))
    );
    // f (3) and h (3) are above max_cyclomatic 2.
    assert_eq!(s["violation_count"], 2);
    assert_eq!(s["top_files"][0]["rank"], 1);

    let md = call(&dir, "analyze_complexity", json!({"format": "markdown"}));
    assert!(md["content"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("# Complexity report"));
    let sarif = call(
        &dir,
        "analyze_complexity",
        json!({"format": "sarif", "max_cyclomatic": 2}),
    );
    assert_eq!(sarif["structuredContent"]["sarif"]["version"], "2.1.0");
    assert_eq!(
        sarif["structuredContent"]["sarif"]["runs"][0]["results"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );
    let bad = call(&dir, "analyze_complexity", json!({"project_path": "../x"}));
    assert_eq!(bad["isError"], true);
}

#[test]
fn complexity_pages_within_the_result_budget() {
    let dir = Scratch::new("pages");
    let mut src = String::new();
    for i in 0..200 {
        src.push_str(&format!(
            "fn f{i}(a: u8) -> u8 {{ if a > {i} {{ 1 }} else {{ 0 }} }}\n"
        ));
    }
    std::fs::write(dir.join("many.rs"), src).unwrap();
    let budget = ["--max-result-bytes", "8000"];
    let (mut names, mut offset, mut pages) = (Vec::new(), 0, 0);
    loop {
        let result = call_with(
            &dir,
            "analyze_complexity",
            json!({"offset": offset}),
            &budget,
        );
        assert_ne!(result["isError"], true, "{result}");
        let s = &result["structuredContent"];
        assert!(s.to_string().len() <= 8000);
        for f in s["functions"].as_array().unwrap() {
            names.push(f["name"].as_str().unwrap().to_string());
        }
        pages += 1;
        match s["next_offset"].as_u64() {
            Some(next) => offset = next,
            None => break,
        }
    }
    assert!(pages > 1);
    let expected: Vec<String> = (0..200).map(|i| format!("f{i}")).collect();
    assert_eq!(names, expected);
}

#[test]
fn churn_counts_commits_lines_and_authors() {
    let dir = Scratch::new("churn");
    if !git(&dir, &["init", "-q"]) {
        eprintln!("skipped: git is not available");
        return;
    }
    std::fs::write(dir.join("a.py"), "def f(a):\n    if a:\n        return 1\n").unwrap();
    assert!(git(&dir, &["add", "."]) && git(&dir, &["commit", "-qm", "one"]));
    std::fs::write(
        dir.join("a.py"),
        "def f(a):\n    if a or b:\n        return 1\n    return 0\n",
    )
    .unwrap();
    std::fs::write(dir.join("notes.txt"), "x\n").unwrap();
    assert!(git(&dir, &["add", "."]) && git(&dir, &["commit", "-qm", "two"]));
    let result = call(&dir, "analyze_code_churn", json!({"period_days": 7}));
    let s = &result["structuredContent"];
    assert_eq!(s["total_commits"], 2, "{result}");
    assert_eq!(s["total_authors"], 1);
    let a = &s["files"][0];
    assert_eq!(a["file"], "a.py");
    assert_eq!(
        (
            a["commits"].as_u64(),
            a["additions"].as_u64(),
            a["deletions"].as_u64()
        ),
        (Some(2), Some(5), Some(1))
    );
    assert_eq!(a["authors"], json!(["Ann"]));
    // a.py: churn 6 × cyclomatic 3.
    assert_eq!(s["hotspots"][0]["score"], 18);
    let csv = call(&dir, "analyze_code_churn", json!({"format": "csv"}));
    assert!(csv["content"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("file,commits,"));

    let plain = Scratch::new("plain");
    let result = call(&plain, "analyze_code_churn", json!({}));
    assert_eq!(result["isError"], true);
    assert!(
        result["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("not inside a git repository"),
        "{result}"
    );
}

/// An offset past the end, in any format, is a page with nothing on it,
/// not a slice out of range (the SARIF page panicked and answered -32603).
#[test]
fn an_offset_past_the_end_is_an_empty_page_in_every_format() {
    let empty = Scratch::new("cx-empty");
    let full = Scratch::new("cx-offset");
    std::fs::write(
        full.join("a.py"),
        "def f(a):\n    if a:\n        return 1\n",
    )
    .unwrap();
    for dir in [&empty, &full] {
        for format in ["json", "markdown", "sarif"] {
            for offset in [json!(5), json!(u64::MAX), json!(1e308)] {
                let args = json!({"project_path": ".", "format": format, "offset": offset, "max_cyclomatic": 1});
                let result = call(dir, "analyze_complexity", args.clone());
                assert_eq!(result["isError"], json!(null), "{args}: {result}");
                let page = &result["structuredContent"];
                assert_eq!(page["next_offset"], json!(null), "{args}: {result}");
                let notes = page["notes"].to_string();
                assert!(notes.contains("is past the end"), "{args}: {notes}");
                if format == "sarif" {
                    assert_eq!(page["sarif"]["runs"][0]["results"], json!([]), "{args}");
                }
            }
        }
    }
}

/// A file, several paths, `exclude`, and a path outside the roots.
#[test]
fn complexity_takes_a_file_several_paths_and_excludes() {
    let dir = Scratch::new("paths");
    std::fs::create_dir_all(dir.join("src/gen")).unwrap();
    std::fs::create_dir_all(dir.join("tests")).unwrap();
    std::fs::write(dir.join("src/main.rs"), "fn main() { if a { b() } }\n").unwrap();
    std::fs::write(dir.join("src/gen/out.rs"), "fn generated() {}\n").unwrap();
    std::fs::write(dir.join("src/util.py"), "def u(x):\n    return x\n").unwrap();
    std::fs::write(dir.join("tests/t.rs"), "fn t() {}\n").unwrap();
    let names = |result: &Value| -> Vec<String> {
        assert_ne!(result["isError"], true, "{result}");
        result["structuredContent"]["functions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                format!(
                    "{}:{}",
                    f["file"].as_str().unwrap(),
                    f["name"].as_str().unwrap()
                )
            })
            .collect()
    };
    // One file, by project_path (as models call it today) and by paths.
    let one = call(
        &dir,
        "analyze_complexity",
        json!({"project_path": "src/main.rs"}),
    );
    assert_eq!(names(&one), ["src/main.rs:main"]);
    assert_eq!(one["structuredContent"]["project_path"], "src/main.rs");
    let one = call(
        &dir,
        "analyze_complexity",
        json!({"paths": ["src/main.rs"]}),
    );
    assert_eq!(names(&one), ["src/main.rs:main"]);
    // Several paths, overlapping: each file once.
    let several = call(
        &dir,
        "analyze_complexity",
        json!({"paths": ["tests", "src/util.py", "tests/t.rs"]}),
    );
    assert_eq!(names(&several), ["tests/t.rs:t", "src/util.py:u"]);
    // Exclude by name (any component) and by path.
    let excluded = call(
        &dir,
        "analyze_complexity",
        json!({"exclude": ["tests", "src/gen/**"]}),
    );
    assert_eq!(names(&excluded), ["src/main.rs:main", "src/util.py:u"]);
    let by_name = call(
        &dir,
        "analyze_complexity",
        json!({"exclude": ["*.py", "gen"]}),
    );
    assert_eq!(names(&by_name), ["src/main.rs:main", "tests/t.rs:t"]);
    // Refused: outside the roots, denied, both spellings at once, a bad glob.
    for args in [
        json!({"paths": ["src", "../elsewhere"]}),
        json!({"paths": ["/etc/passwd"]}),
        json!({"project_path": "/etc"}),
        json!({"project_path": "src", "paths": ["tests"]}),
        json!({"exclude": ["[z-a"]}),
    ] {
        let refused = call(&dir, "analyze_complexity", args.clone());
        assert_eq!(refused["isError"], true, "{args}: {refused}");
    }
}

#[test]
fn churn_takes_a_file_several_paths_and_excludes() {
    let dir = Scratch::new("churn-paths");
    if !git(&dir, &["init", "-q"]) {
        eprintln!("skipped: git is not available");
        return;
    }
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::create_dir_all(dir.join("docs")).unwrap();
    std::fs::write(
        dir.join("src/a.py"),
        "def f(a):\n    if a:\n        return 1\n",
    )
    .unwrap();
    std::fs::write(dir.join("src/b.py"), "def g():\n    pass\n").unwrap();
    std::fs::write(dir.join("docs/x.md"), "x\n").unwrap();
    std::fs::write(dir.join("top.txt"), "t\n").unwrap();
    let files = |result: &Value| -> Vec<String> {
        assert_ne!(result["isError"], true, "{result}");
        let mut all: Vec<String> = result["structuredContent"]["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["file"].as_str().unwrap().to_string())
            .collect();
        all.sort();
        all
    };
    std::fs::write(dir.join("src/.env"), "TOKEN=1\n").unwrap();
    assert!(git(&dir, &["add", "."]) && git(&dir, &["commit", "-qm", "one"]));
    // The deny list hides a secret's history as it hides the file.
    let all = call(&dir, "analyze_code_churn", json!({}));
    assert_eq!(
        files(&all),
        ["docs/x.md", "src/a.py", "src/b.py", "top.txt"]
    );
    let one = call(
        &dir,
        "analyze_code_churn",
        json!({"project_path": "src/a.py"}),
    );
    assert_eq!(files(&one), ["src/a.py"]);
    assert_eq!(
        one["structuredContent"]["hotspots"][0]["file"], "src/a.py",
        "{one}"
    );
    let several = call(
        &dir,
        "analyze_code_churn",
        json!({"paths": ["src/b.py", "docs"]}),
    );
    assert_eq!(files(&several), ["docs/x.md", "src/b.py"]);
    let excluded = call(
        &dir,
        "analyze_code_churn",
        json!({"exclude": ["docs", "*.txt"]}),
    );
    assert_eq!(files(&excluded), ["src/a.py", "src/b.py"]);
    for args in [
        json!({"paths": ["src", "../elsewhere"]}),
        json!({"project_path": "/etc"}),
    ] {
        let refused = call(&dir, "analyze_code_churn", args.clone());
        assert_eq!(refused["isError"], true, "{args}: {refused}");
    }
}

/// A cancellation during `git log` is honoured at once, not when git
/// exits. git is found through PATH, so a fake `git` that sleeps makes it slow for sure.
#[cfg(unix)]
#[test]
fn a_cancellation_during_git_log_is_honoured_at_once() {
    use std::io::{BufRead, BufReader, Write};
    use std::os::unix::fs::PermissionsExt;
    use std::process::Stdio;
    use std::sync::mpsc;
    use std::time::{Duration, Instant};

    let dir = Scratch::new("cancel");
    let bin = Scratch::new("cancel-bin");
    let fake = bin.join("git");
    std::fs::write(
        &fake,
        "#!/bin/sh\ncase \"$*\" in\n  *rev-parse*) echo 0123456789abcdef0123456789abcdef01234567 ;;\n  *) exec sleep 30 ;;\nesac\n",
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut child = Command::new(common::minimcp())
        .args(["serve", "--root"])
        .arg(&dir)
        .env("PATH", path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary runs");
    let mut input = child.stdin.take().unwrap();
    let output = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel::<Value>();
    std::thread::spawn(move || {
        for line in BufReader::new(output).lines().map_while(Result::ok) {
            if let Ok(message) = serde_json::from_str(&line) {
                if tx.send(message).is_err() {
                    break;
                }
            }
        }
    });
    let mut send = |message: Value| {
        writeln!(input, "{message}").unwrap();
        input.flush().unwrap();
    };
    let answer = |id: u64, within: Duration| -> Option<Value> {
        let end = Instant::now() + within;
        while let Some(left) = end.checked_duration_since(Instant::now()) {
            match rx.recv_timeout(left) {
                Ok(m) if m["id"] == id => return Some(m),
                Ok(m) => assert_ne!(m["id"], 2, "the cancelled call was answered: {m}"),
                Err(_) => return None,
            }
        }
        None
    };
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"}}}),
    );
    assert!(answer(1, Duration::from_secs(10)).is_some());
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "analyze_code_churn", "arguments": {}}}));
    // Let the call reach `git log` (the fake sleeps 30 s there).
    std::thread::sleep(Duration::from_millis(500));
    let start = Instant::now();
    send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 2, "reason": "test"}}),
    );
    send(json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}));
    let pong = answer(3, Duration::from_secs(20));
    let elapsed = start.elapsed();
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        pong.is_some(),
        "no answer to the ping after the cancellation"
    );
    eprintln!("cancellation to the next answer: {elapsed:?}");
    // 100 ms is the aim; a loaded test machine gets slack, far below git's 30 s.
    assert!(elapsed < Duration::from_secs(2), "{elapsed:?}");
}

/// A client that passes the model only the text content. With the
/// default format (json), the text alone carries the summary, the violations, the
/// ranking, the page's functions and the paging hint, for both tools, within the budget.
#[test]
fn the_text_alone_carries_what_a_model_needs() {
    let dir = Scratch::new("text-only");
    let mut src = String::from("def tangled(a, b, c):\n    if a and b:\n        return 1\n    elif c or a:\n        return 2\n    return 3\n\n");
    for i in 0..120 {
        src.push_str(&format!("def plain_{i}(x):\n    return x\n\n"));
    }
    std::fs::write(dir.join("a.py"), src).unwrap();
    let text = |result: &Value| -> String {
        assert_ne!(result["isError"], true, "{result}");
        result["content"][0]["text"].as_str().unwrap().to_string()
    };
    let budget = ["--max-result-bytes", "12000"];
    let first = call_with(
        &dir,
        "analyze_complexity",
        json!({"max_cyclomatic": 2}),
        &budget,
    );
    let t = text(&first);
    assert!(t.len() <= 12000, "{}", t.len());
    assert!(
        t.starts_with("1 file, 121 functions; 1 violation (cyclomatic > 2"),
        "{t}"
    );
    // The summary, the violation, the ranking and this page's functions.
    assert!(t.contains("| cyclomatic | 1.0 | 1.0 | 5.0 |"), "{t}");
    assert!(
        t.contains("| `a.py` | 1 | `tangled` | cyclomatic | 5 | 2 |"),
        "{t}"
    );
    assert!(
        t.contains("## Top files") && t.contains("| 1 | `a.py` |"),
        "{t}"
    );
    assert!(t.contains("| `a.py` | 1-6 | `tangled` | 5 |"), "{t}");
    assert!(t.contains("`plain_0`"), "{t}");
    // The paging hint, and the next page from it.
    let next = first["structuredContent"]["next_offset"].as_u64().unwrap();
    assert!(t.contains(&format!("call again with offset {next}")), "{t}");
    let second = call_with(
        &dir,
        "analyze_complexity",
        json!({"max_cyclomatic": 2, "offset": next}),
        &budget,
    );
    let t2 = text(&second);
    assert!(t2.contains(&format!("`plain_{}`", next - 1)), "{t2}");
    assert!(!t2.contains("`plain_0`"), "{t2}");

    if !git(&dir, &["init", "-q"]) {
        eprintln!("skipped the churn half: git is not available");
        return;
    }
    assert!(git(&dir, &["add", "."]) && git(&dir, &["commit", "-qm", "one"]));
    let churn = call(&dir, "analyze_code_churn", json!({}));
    let t = text(&churn);
    assert!(t.starts_with("1 commit by 1 author touched 1 file"), "{t}");
    assert!(t.contains("| `a.py` | 1 |"), "{t}");
    assert!(
        t.contains("## Hotspots") && t.contains("| `a.py` | 367 | 125 |"),
        "{t}"
    );
}

#[test]
fn a_long_call_at_a_terminal_shows_progress_on_stderr_and_a_pipe_stays_quiet() {
    // 1,200 files: the walk reports progress every 1,000 entries.
    let root = Scratch::new("progress");
    for d in 0..12 {
        let dir = root.join(format!("d{d}"));
        std::fs::create_dir_all(&dir).expect("dir");
        for f in 0..100 {
            std::fs::write(dir.join(format!("f{f}.py")), "def f(x):\n    return x\n")
                .expect("file");
        }
    }
    let bin = common::minimcp();
    let root_arg = root.to_str().expect("utf-8 path");
    let piped = Command::new(bin)
        .args(["call", "analyze_complexity", "{}", "--root", root_arg])
        .output()
        .expect("run");
    assert!(piped.status.success());
    assert!(
        !String::from_utf8_lossy(&piped.stderr).contains("entries examined"),
        "a pipe gets no progress line"
    );
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("SKIPPED: no `script` (util-linux) to give the binary a terminal");
        return;
    }
    let command = format!("{bin} call analyze_complexity '{{}}' --root {root_arg} --json");
    let shown = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("script");
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(
        text.contains("minimcp: 1000 entries examined"),
        "a terminal gets the progress line: {text:?}"
    );
    assert!(text.contains("/s)"), "with its rate: {text:?}");
}
