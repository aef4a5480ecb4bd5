//! `search_text` end to end: the real binary, run as `minimcp call search_text ARGS --root
//! DIR` on generated trees. Regular expressions, a pathological pattern, context lines, and
//! paging through thousands of matches with every page inside the result budget.

use std::process::Command;

use serde_json::{json, Value};

mod common;

use common::scratch::Scratch;

/// The default `--max-result-bytes`.
const BUDGET: usize = 80_000;

/// The tool result of one `minimcp call search_text`, and its size as the budget counts it
/// (the larger of the text and the compact structured JSON).
fn search(tree: &Scratch, args: Value) -> (Value, usize) {
    let out = Command::new(common::minimcp())
        .args(["call", "search_text", &args.to_string(), "--root"])
        .arg(tree.path())
        .output()
        .expect("runs");
    let result: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    let text: usize = result["content"]
        .as_array()
        .expect("content")
        .iter()
        .filter_map(|c| c["text"].as_str())
        .map(str::len)
        .sum();
    let structured = result
        .get("structuredContent")
        .map_or(0, |s| s.to_string().len());
    (result, text.max(structured))
}

fn lines(result: &Value) -> Vec<String> {
    result["structuredContent"]["matches"]
        .as_array()
        .expect("matches")
        .iter()
        .map(|m| format!("{}:{}", m["path"].as_str().expect("path"), m["line"]))
        .collect()
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().expect("text")
}

#[test]
fn regular_expressions_search_the_tree() {
    let tree = Scratch::new("regex");
    tree.file("src/a.rs", "fn alpha() {}\n// TODO: beta\nlet x = 10;\n")
        .file("src/b.rs", "pub fn beta(x: u8) {}\n")
        .file("README.md", "Call alpha() then beta().\n");
    let (result, _) = search(&tree, json!({"query": "^(pub )?fn \\w+\\(", "regex": true}));
    assert_eq!(lines(&result), ["src/a.rs:1", "src/b.rs:1"]);
    let (result, _) = search(&tree, json!({"query": "\\b\\d{2}\\b", "regex": true}));
    assert_eq!(lines(&result), ["src/a.rs:3"]);
    let (result, _) = search(
        &tree,
        json!({"query": "todo|readme", "regex": true, "context": 1}),
    );
    assert_eq!(lines(&result), ["src/a.rs:2"]);
    assert_eq!(
        result["structuredContent"]["matches"][0]["before"],
        json!(["fn alpha() {}"])
    );
    let (result, _) = search(&tree, json!({"query": "(?<=x)y", "regex": true}));
    assert_eq!(result["isError"], true);
    assert!(text(&result).contains("not supported"), "{}", text(&result));
    let (result, _) = search(&tree, json!({"query": "alpha.*beta"}));
    assert!(lines(&result).is_empty());
    assert!(
        text(&result).contains("set `regex: true`"),
        "{}",
        text(&result)
    );
}

#[test]
fn a_pathological_pattern_on_a_long_line_answers() {
    // A backtracking engine takes exponential time on (a*)*b against a run of `a`; this one
    // does at most (line length × NFA states) steps. The test asserts the answer, not a
    // time: the bound is by construction.
    let tree = Scratch::new("patho");
    tree.file("long.txt", format!("{}\n", "a".repeat(2 << 20)));
    for pattern in ["(a*)*b", "(a|a)*b", "(a+)+$x"] {
        let (result, _) = search(&tree, json!({"query": pattern, "regex": true}));
        assert!(lines(&result).is_empty(), "{pattern}");
        assert_eq!(result["structuredContent"]["complete"], true, "{pattern}");
    }
}

#[test]
fn thousands_of_matches_page_within_the_budget() {
    let tree = Scratch::new("pages");
    // Long lines with characters JSON escapes, so the budget binds before max_results.
    let line = format!("needle \"{}\"\n", "é\\".repeat(150));
    for d in 0..20 {
        for f in 0..10 {
            tree.file(&format!("d{d:02}/f{f}.txt"), line.repeat(15));
        }
    }
    let mut seen = Vec::new();
    let mut offset = 0;
    let mut largest = 0;
    loop {
        let (result, size) = search(
            &tree,
            json!({"query": "needle", "max_results": 1000, "offset": offset}),
        );
        assert_ne!(result["isError"], true, "{}", text(&result));
        assert!(size <= BUDGET, "a page of {size} bytes");
        largest = largest.max(size);
        let page = lines(&result);
        assert!(!page.is_empty());
        seen.extend(page);
        match result["structuredContent"].get("next_offset") {
            Some(next) => offset = next.as_u64().expect("number"),
            None => break,
        }
    }
    assert_eq!(seen.len(), 20 * 10 * 15);
    let unique: std::collections::BTreeSet<_> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len(), "no match twice");
    // With default arguments the first page is the largest.
    let (_, default_size) = search(&tree, json!({"query": "needle"}));
    eprintln!("largest page: {largest} bytes; default arguments: {default_size} bytes");
    assert!(default_size <= BUDGET);
}
