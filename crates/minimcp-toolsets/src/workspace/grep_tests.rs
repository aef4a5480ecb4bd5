use super::*;
use crate::workspace::scan::{lines_after, lines_before};
use crate::workspace::testutil::{TempTree, TestLink};
use minimcp::Content;

/// Calls `search_text` as the core would: defaults filled in by the schema validator,
/// structured output checked against the output schema, the given result budget.
fn search_with_budget(tree: &TempTree, args: Value, budget: usize) -> Result<ToolOutput, String> {
    let ws = Rc::new(Workspace::open(&tree.path).expect("root"));
    let client = &mut TestLink {
        result_budget: budget,
        ..TestLink::default()
    };
    client.call(&tool(&ws), args).map_err(|e| e.to_string())
}

fn search(tree: &TempTree, args: Value) -> ToolOutput {
    search_with_budget(tree, args, minimcp::Limits::default().max_result_bytes).expect("answers")
}

fn text(out: &ToolOutput) -> &str {
    match &out.content[0] {
        Content::Text { text } => text,
        other => panic!("expected text, got {other:?}"),
    }
}

fn hits(out: &ToolOutput) -> Vec<String> {
    out.structured.as_ref().expect("structured")["matches"]
        .as_array()
        .expect("array")
        .iter()
        .map(|m| format!("{}:{}", m["path"].as_str().expect("path"), m["line"]))
        .collect()
}

fn code() -> TempTree {
    let tree = TempTree::new("grep");
    tree.file(
        "src/main.rs",
        "use std::io;\n\nfn main() {\n    let x = parse(\"42\");\n    println!(\"{x}\");\n}\n",
    )
    .file(
        "src/parse.rs",
        "// TODO: errors\npub fn parse(s: &str) -> u32 {\n    s.parse().unwrap_or(0)\n}\n",
    )
    .file("notes.txt", "FIXME later\nfn is not code here\n");
    tree
}

#[test]
fn regex_mode_finds_patterns() {
    let tree = code();
    let out = search(&tree, json!({"query": "^(pub )?fn \\w+\\(", "regex": true}));
    assert_eq!(hits(&out), ["src/main.rs:3", "src/parse.rs:2"]);
    let out = search(
        &tree,
        json!({"query": "TODO|FIXME", "regex": true, "case_sensitive": true}),
    );
    assert_eq!(hits(&out), ["notes.txt:1", "src/parse.rs:1"]);
    let out = search(&tree, json!({"query": "\"\\d+\"", "regex": true}));
    assert_eq!(hits(&out), ["src/main.rs:4"]);
    assert_eq!(out.structured.as_ref().expect("s")["regex"], true);
}

#[test]
fn an_unsupported_regex_is_an_actionable_error() {
    let tree = code();
    for (pattern, says) in [
        ("(?=x)", "`(?=` at position 0 is not supported"),
        ("a{1,99999}", "above the limit of 1000"),
        ("(x{1000}){1000}", "more than 10000 states"),
        ("fn(", "unclosed `(`"),
    ] {
        let error = search_with_budget(&tree, json!({"query": pattern, "regex": true}), 80_000)
            .expect_err("refused");
        assert!(error.contains(says), "{pattern}: {error}");
        assert!(
            error.contains("not a supported regular expression"),
            "{error}"
        );
    }
}

#[test]
fn a_pathological_regex_answers() {
    // (a*)*b takes exponential time in a backtracking engine; here it is linear in the
    // line, so a megabyte of `a` is one quick pass. No timing assertion: the bound is by
    // construction (see regex::tests::pathological_patterns_cost_linear_work).
    let tree = TempTree::new("grep-patho");
    tree.file("a.txt", format!("{}\n", "a".repeat(1 << 20)));
    let out = search(&tree, json!({"query": "(a*)*b", "regex": true}));
    assert!(hits(&out).is_empty());
    assert_eq!(out.structured.as_ref().expect("s")["complete"], true);
    let out = search(&tree, json!({"query": "(a|aa)+$", "regex": true}));
    assert_eq!(hits(&out), ["a.txt:1"]);
}

#[test]
fn context_lines_come_with_each_match() {
    let tree = code();
    let out = search(
        &tree,
        json!({"query": "let x", "path": "src/main.rs", "context": 1}),
    );
    let m = &out.structured.as_ref().expect("s")["matches"][0];
    assert_eq!(m["before"], json!(["fn main() {"]));
    assert_eq!(m["after"], json!(["    println!(\"{x}\");"]));
    assert_eq!(
        text(&out).lines().take(3).collect::<Vec<_>>(),
        [
            "src/main.rs-3- fn main() {",
            "src/main.rs:4:     let x = parse(\"42\");",
            "src/main.rs-5-     println!(\"{x}\");"
        ]
    );
    let out = search(
        &tree,
        json!({"query": "use", "path": "src/main.rs", "before": 3, "after": 0}),
    );
    let m = &out.structured.as_ref().expect("s")["matches"][0];
    assert_eq!((&m["before"], m.get("after")), (&json!([]), None));
    let plain = search(&tree, json!({"query": "use"}));
    assert!(plain.structured.as_ref().expect("s")["matches"][0]
        .get("before")
        .is_none());
}

#[test]
fn pages_follow_each_other_without_gaps() {
    let tree = TempTree::new("grep-pages");
    for f in 0..5 {
        tree.file(&format!("f{f}.txt"), "hit\nmiss\nhit\n".repeat(7));
    }
    let all = search(&tree, json!({"query": "hit", "max_results": 1000}));
    let everything = hits(&all);
    assert_eq!(everything.len(), 70);
    let mut paged = Vec::new();
    let mut offset = 0;
    loop {
        let out = search(
            &tree,
            json!({"query": "hit", "max_results": 9, "offset": offset}),
        );
        paged.extend(hits(&out));
        let s = out.structured.as_ref().expect("s");
        // A full page is not an incomplete walk: the rest is more to come, not missing.
        assert_eq!(s["complete"], true, "{s}");
        assert_eq!(s["truncated"], s.get("next_offset").is_some(), "{s}");
        match s.get("next_offset") {
            Some(next) => offset = next.as_u64().expect("number") as usize,
            None => break,
        }
        assert!(text(&out).contains(&format!("offset={offset}")));
    }
    assert_eq!(paged, everything);
    let past = search(&tree, json!({"query": "hit", "offset": 500}));
    assert!(
        text(&past).contains("past the last match (70 in all)"),
        "{}",
        text(&past)
    );
}

#[test]
fn thousands_of_matches_stay_within_the_budget() {
    let tree = TempTree::new("grep-budget");
    let long = format!("needle {}\n", "é\"".repeat(400));
    for f in 0..20 {
        tree.file(&format!("d/f{f}.txt"), long.repeat(200));
    }
    for budget in [80_000, 20_000, 4_000, 2_000] {
        let out = search_with_budget(
            &tree,
            json!({"query": "needle", "max_results": 1000, "context": 10}),
            budget,
        )
        .expect("answers");
        let s = out.structured.as_ref().expect("s");
        let shown = s["matches"].as_array().map_or(0, Vec::len);
        assert!(shown >= 1, "at least one match per page");
        assert_eq!(s["next_offset"], shown, "budget {budget}");
        assert!(text(&out).contains("result size budget"));
    }
}

#[test]
fn literal_queries_that_look_like_regexes_say_so() {
    let tree = code();
    let out = search(&tree, json!({"query": "fn.*parse"}));
    assert!(hits(&out).is_empty());
    assert!(text(&out).contains("set `regex: true`"), "{}", text(&out));
    let out = search(&tree, json!({"query": "fn.*parse", "regex": true}));
    assert_eq!(hits(&out), ["src/parse.rs:2"]);
    assert!(!text(&out).contains("regex: true"));
    let out = search(&tree, json!({"query": "parse("}));
    assert!(!text(&out).contains("regex: true"), "{}", text(&out));
}

#[test]
fn context_lines_stop_at_the_edges() {
    let text: &[u8] = b"one\ntwo\r\nthree\nfour\n";
    let three = 9;
    let all = |lines: Vec<&[u8]>| lines.concat();
    assert_eq!(all(lines_before(text, three, 5).collect()), b"onetwo");
    assert_eq!(all(lines_after(text, three + 5, 5).collect()), b"four");
    assert_eq!(lines_before(text, 0, 2).count(), 0);
    assert_eq!(all(lines_after(b"a\nb", 1, 3).collect()), b"b");
    assert_eq!(lines_after(b"a", 1, 3).count(), 0);
    assert_eq!(lines_after(b"a\n\nc", 1, 1).collect::<Vec<_>>(), [b""]);
}

#[test]
fn invalid_utf8_is_shown_replaced_and_still_searched() {
    let tree = TempTree::new("grep-lossy");
    tree.file("latin1.txt", b"caf\xe9 needle\nplain\n");
    let out = search(&tree, json!({"query": "needle"}));
    assert_eq!(
        out.structured.as_ref().expect("s")["matches"][0]["text"],
        "caf\u{fffd} needle"
    );
    let out = search(&tree, json!({"query": "f.\\s", "regex": true}));
    assert_eq!(hits(&out), ["latin1.txt:1"]);
}

#[test]
fn regex_looking_queries_are_spotted() {
    for query in ["fn.*main", "\\bword", "foo|bar", "^use ", "end;$", "(a|b)"] {
        assert!(looks_like_regex(query).is_some(), "{query}");
    }
    for query in ["main()", "a.b", "price: $5", "[x]", "C++", "ends with \\$"] {
        assert_eq!(looks_like_regex(query), None, "{query}");
    }
}

#[test]
fn large_files_are_searched_past_the_first_read_and_binaries_are_skipped() {
    let tree = TempTree::new("grep-large");
    // The match sits past the first read of a text file; a binary file holds the same text.
    let mut text_file = "filler line\n".repeat(20_000);
    text_file.push_str("needle at the end\n");
    tree.file("big.txt", &text_file);
    let mut binary = vec![0u8; 16];
    binary.extend_from_slice(text_file.as_bytes());
    tree.file("big.bin", &binary);
    let out = search(&tree, json!({"query": "needle"}));
    let found = hits(&out);
    assert_eq!(found.len(), 1, "{}", text(&out));
    assert!(text(&out).contains("big.txt"), "{}", text(&out));
    assert!(text(&out).contains("1 binary file"), "{}", text(&out));
}
