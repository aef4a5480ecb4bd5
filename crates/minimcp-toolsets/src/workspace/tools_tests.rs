use super::*;
use crate::workspace::testutil::{TempTree, TestLink};
use minimcp::Content;

struct Called {
    output: Result<ToolOutput, String>,
    link: TestLink,
}

/// Calls a tool as the core would: defaults filled in by the schema validator, structured
/// output checked against the tool's outputSchema.
fn call_with(
    ws: &Rc<Workspace>,
    name: &str,
    args: Value,
    mut link: TestLink,
    progress: bool,
) -> Called {
    let all = tools(ws);
    let tool = all.iter().find(|t| t.name() == name).expect("tool exists");
    link.progress = progress;
    let output = link.call(tool, args).map_err(|e| e.to_string());
    Called { output, link }
}

fn call(ws: &Rc<Workspace>, name: &str, args: Value) -> ToolOutput {
    call_with(ws, name, args, TestLink::default(), false)
        .output
        .unwrap_or_else(|e| panic!("{name} failed: {e}"))
}

fn refused(ws: &Rc<Workspace>, name: &str, args: Value) -> String {
    match call_with(ws, name, args, TestLink::default(), false).output {
        Err(message) => message,
        Ok(out) if out.is_error => text(&out).to_string(),
        Ok(out) => panic!("{name}: expected a refusal, got {:?}", out.structured),
    }
}

fn text(out: &ToolOutput) -> &str {
    match &out.content[0] {
        Content::Text { text } => text,
        other => panic!("expected text, got {other:?}"),
    }
}

fn workspace(tree: &TempTree) -> Rc<Workspace> {
    Rc::new(Workspace::open(&tree.path).expect("root"))
}

fn sample() -> TempTree {
    let tree = TempTree::new("tools");
    tree.file(".gitignore", "target/\n")
        .file("Cargo.toml", "[package]\nname = \"demo\"\n")
        .file("src/main.rs", "fn main() {\n    println!(\"Hello\");\n}\n")
        .file(
            "src/lib.rs",
            "pub fn hello() -> &'static str {\n    \"hello\"\n}\n",
        )
        .file("src/util/mod.rs", "// HELLO there\n")
        .file("docs/guide.md", "Say hello.\n")
        .file("target/debug/build.rs", "fn hello() {}\n")
        .file("logo.png", [0x89, b'P', b'N', b'G', 0, 1, 2]);
    tree
}

#[test]
fn search_files_matches_sorted_relative_paths() {
    let tree = sample();
    let ws = workspace(&tree);
    let out = call(&ws, "search_files", json!({"pattern": "**/*.rs"}));
    let s = out.structured.as_ref().expect("structured");
    assert_eq!(
        s["matches"],
        json!(["src/lib.rs", "src/main.rs", "src/util/mod.rs"])
    );
    assert_eq!(
        (
            s["total"].as_u64(),
            s["truncated"].as_bool(),
            s["complete"].as_bool()
        ),
        (Some(3), Some(false), Some(true))
    );
    assert!(text(&out).starts_with("src/lib.rs\nsrc/main.rs\nsrc/util/mod.rs"));
    assert!(text(&out).contains("1 entry skipped by .gitignore rules."));
    let dirs = call(&ws, "search_files", json!({"pattern": "*"}));
    assert_eq!(
        dirs.structured.expect("s")["matches"],
        json!([".gitignore", "Cargo.toml", "docs/", "logo.png", "src/"])
    );
    let within = call(
        &ws,
        "search_files",
        json!({"pattern": "*.rs", "directory": "src"}),
    );
    assert_eq!(
        within.structured.expect("s")["matches"],
        json!(["src/lib.rs", "src/main.rs"])
    );
    let prefixed = call(&ws, "search_files", json!({"pattern": "src/util/*.rs"}));
    assert_eq!(
        prefixed.structured.expect("s")["matches"],
        json!(["src/util/mod.rs"])
    );
    let missing = call(&ws, "search_files", json!({"pattern": "nope/**"}));
    assert!(text(&missing).contains("No paths match"));
}

#[test]
fn search_files_caps_results_with_a_count_of_the_rest() {
    let tree = TempTree::new("tools-cap");
    for i in 0..(MAX_GLOB_RESULTS + 7) {
        tree.file(&format!("f{i:04}.txt"), "");
    }
    let ws = workspace(&tree);
    let out = call(&ws, "search_files", json!({"pattern": "*.txt"}));
    let s = out.structured.as_ref().expect("structured");
    assert_eq!(
        s["matches"].as_array().map(Vec::len),
        Some(MAX_GLOB_RESULTS)
    );
    assert_eq!(
        (s["total"].as_u64(), s["truncated"].as_bool()),
        (Some(MAX_GLOB_RESULTS as u64 + 7), Some(true))
    );
    assert_eq!(s["next_offset"], MAX_GLOB_RESULTS);
    assert!(text(&out).contains("offset=500"), "{}", text(&out));
    let rest = call(
        &ws,
        "search_files",
        json!({"pattern": "*.txt", "offset": 500}),
    );
    let s = rest.structured.as_ref().expect("structured");
    assert_eq!(s["matches"][0], "f0500.txt");
    assert_eq!(s["matches"].as_array().map(Vec::len), Some(7));
    assert!(s.get("next_offset").is_none());
}

#[test]
fn search_files_refuses_bad_patterns_and_directories() {
    let tree = sample();
    let ws = workspace(&tree);
    assert!(refused(&ws, "search_files", json!({"pattern": "../*"})).contains("`..`"));
    assert!(refused(&ws, "search_files", json!({"pattern": "[x"})).contains("unclosed"));
    assert!(refused(
        &ws,
        "search_files",
        json!({"pattern": "*", "directory": "Cargo.toml"})
    )
    .contains("not a directory"));
    assert!(refused(
        &ws,
        "search_files",
        json!({"pattern": "*", "directory": "/etc"})
    )
    .contains("absolute"));
}

#[test]
fn list_directory_shows_kinds_sizes_and_depth() {
    let tree = sample();
    let ws = workspace(&tree);
    let out = call(&ws, "list_directory", json!({}));
    let s = out.structured.as_ref().expect("structured");
    let cargo = &s["entries"][1];
    assert_eq!(
        (&cargo["path"], &cargo["kind"], &cargo["size"]),
        (&json!("Cargo.toml"), &json!("file"), &json!(24))
    );
    assert!(cargo["modified"].as_str().is_some_and(|m| m.ends_with('Z')));
    // Unix only: Windows has no permission bits to show.
    assert!(
        cfg!(not(unix))
            || cargo["permissions"]
                .as_str()
                .is_some_and(|p| p.starts_with("rw"))
    );
    assert_eq!(
        (&s["entries"][2]["path"], &s["entries"][2]["kind"]),
        (&json!("docs"), &json!("directory"))
    );
    assert_eq!(s["total"], 5);
    assert!(text(&out).contains("\ndocs/  ("), "{}", text(&out));
    assert!(text(&out).contains("Cargo.toml  (24 B, "));
    let deep = call(&ws, "list_directory", json!({"path": "src", "depth": 3}));
    let paths: Vec<&str> = deep.structured.as_ref().expect("s")["entries"]
        .as_array()
        .expect("array")
        .iter()
        .map(|e| e["path"].as_str().expect("path"))
        .collect();
    assert_eq!(
        paths,
        ["lib.rs", "main.rs", "util", "util/mod.rs"],
        "relative to the listed directory"
    );
    let empty_tree = TempTree::new("tools-empty");
    assert!(text(&call(&workspace(&empty_tree), "list_directory", json!({}))).contains("is empty"));
    assert!(refused(&ws, "list_directory", json!({"path": "nope"})).contains("does not exist"));
}

#[test]
fn read_file_numbers_lines_and_pages() {
    let tree = TempTree::new("tools-read");
    let body: String = (1..=30).map(|i| format!("line {i}\n")).collect();
    tree.file("a.txt", &body)
        .file("empty.txt", "")
        .file("latin1.txt", b"caf\xe9\n");
    let ws = workspace(&tree);
    let out = call(
        &ws,
        "read_file",
        json!({"path": "a.txt", "offset": 10, "limit": 5}),
    );
    let s = out.structured.as_ref().expect("structured");
    assert_eq!(
        (
            s["start_line"].as_u64(),
            s["end_line"].as_u64(),
            s["total_lines"].as_u64()
        ),
        (Some(10), Some(14), Some(30))
    );
    assert_eq!(s["content"], "line 10\nline 11\nline 12\nline 13\nline 14");
    assert_eq!(s["next_offset"], 15);
    assert!(text(&out).contains("  10\tline 10\n"), "{}", text(&out));
    assert!(text(&out).contains("call read_file with path=\"a.txt\" and offset=15"));
    let all = call(&ws, "read_file", json!({"path": "a.txt"}));
    assert!(all
        .structured
        .as_ref()
        .expect("s")
        .get("next_offset")
        .is_none());
    assert!(
        refused(&ws, "read_file", json!({"path": "a.txt", "offset": 31})).contains("past the end")
    );
    assert!(text(&call(&ws, "read_file", json!({"path": "empty.txt"}))).contains("is empty"));
    let latin = call(&ws, "read_file", json!({"path": "latin1.txt"}));
    assert_eq!(latin.structured.as_ref().expect("s")["lossy"], true);
    assert!(text(&latin).contains("caf\u{fffd}"));
    assert!(refused(&ws, "read_file", json!({"path": "."})).contains("is a directory"));
}

#[test]
fn read_file_returns_binary_as_a_resource_or_refuses_it() {
    let tree = sample();
    tree.file("big.bin", vec![0u8; MAX_BINARY_BYTES as usize + 1]);
    let ws = workspace(&tree);
    let out = call(&ws, "read_file", json!({"path": "logo.png"}));
    assert_eq!(out.structured.as_ref().expect("s")["kind"], "binary");
    match &out.content[1] {
        Content::Resource { resource } => {
            assert_eq!(resource.uri, tree.uri("logo.png"));
            assert_eq!(resource.mime_type.as_deref(), Some("image/png"));
        }
        other => panic!("expected a resource, got {other:?}"),
    }
    assert!(refused(&ws, "read_file", json!({"path": "big.bin"}))
        .contains("binary files are returned up to"));
}

#[test]
fn search_text_finds_lines_literally() {
    let tree = sample();
    let ws = workspace(&tree);
    let out = call(&ws, "search_text", json!({"query": "hello"}));
    let s = out.structured.as_ref().expect("structured");
    let hits: Vec<String> = s["matches"]
        .as_array()
        .expect("array")
        .iter()
        .map(|m| format!("{}:{}", m["path"].as_str().expect("p"), m["line"]))
        .collect();
    assert_eq!(
        hits,
        [
            "docs/guide.md:1",
            "src/lib.rs:1",
            "src/lib.rs:2",
            "src/main.rs:2",
            "src/util/mod.rs:1"
        ]
    );
    assert!(
        text(&out).contains("src/main.rs:2:     println!(\"Hello\");"),
        "{}",
        text(&out)
    );
    assert!(text(&out).contains("1 binary file skipped."));
    let exact = call(
        &ws,
        "search_text",
        json!({"query": "Hello", "case_sensitive": true}),
    );
    assert_eq!(
        exact.structured.expect("s")["matches"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );
    let named = call(
        &ws,
        "search_text",
        json!({"query": "hello", "glob": "mod.rs"}),
    );
    assert_eq!(
        named.structured.expect("s")["matches"][0]["path"],
        "src/util/mod.rs"
    );
    let pathed = call(
        &ws,
        "search_text",
        json!({"query": "hello", "path": "src", "glob": "*.rs"}),
    );
    assert_eq!(pathed.structured.expect("s")["files_searched"], 3);
    let rooted = call(
        &ws,
        "search_text",
        json!({"query": "hello", "glob": "src/*.rs"}),
    );
    assert_eq!(rooted.structured.expect("s")["files_searched"], 2);
    let single = call(
        &ws,
        "search_text",
        json!({"query": "main", "path": "src/main.rs"}),
    );
    assert_eq!(single.structured.expect("s")["matches"][0]["line"], 1);
    let none = call(&ws, "search_text", json!({"query": "h.llo"}));
    assert!(text(&none).contains("No matches"));
}

#[test]
fn search_text_stops_at_max_results() {
    let tree = TempTree::new("tools-max");
    tree.file("a.txt", "x\n".repeat(10)).file("b.txt", "x\n");
    let ws = workspace(&tree);
    let out = call(&ws, "search_text", json!({"query": "x", "max_results": 3}));
    let s = out.structured.as_ref().expect("structured");
    assert_eq!(
        (
            s["matches"].as_array().map(Vec::len),
            s["truncated"].as_bool()
        ),
        (Some(3), Some(true))
    );
    assert!(
        text(&out).contains("stopped at max_results=3"),
        "{}",
        text(&out)
    );
    assert_eq!(s["next_offset"], 3);
    let exact = call(&ws, "search_text", json!({"query": "x", "max_results": 11}));
    assert_eq!(exact.structured.expect("s")["truncated"], false);
}

#[test]
fn long_walks_report_progress_and_can_be_cancelled() {
    let tree = TempTree::new("tools-progress");
    for i in 0..(2 * PROGRESS_ENTRIES + 10) {
        tree.file(
            &format!("d{}/f{i}.txt", i % 10),
            if i % 100 == 0 { "needle\n" } else { "hay\n" },
        );
    }
    let ws = workspace(&tree);
    for (name, args) in [
        ("search_text", json!({"query": "needle"})),
        ("search_files", json!({"pattern": "**"})),
        ("list_directory", json!({"depth": 2})),
    ] {
        let called = call_with(&ws, name, args.clone(), TestLink::default(), true);
        let progress: Vec<f64> = called
            .link
            .notifications
            .iter()
            .filter(|(m, _)| m == "notifications/progress")
            .map(|(_, p)| p["progress"].as_f64().expect("number"))
            .collect();
        assert_eq!(
            progress,
            [PROGRESS_ENTRIES as f64, 2.0 * PROGRESS_ENTRIES as f64],
            "{name}"
        );
        let cancel = TestLink {
            cancel_at: Some(2),
            ..TestLink::default()
        };
        let called = call_with(&ws, name, args, cancel, false);
        assert_eq!(
            called.link.polls, 2,
            "{name}: stops at the first cancelled poll"
        );
        let out = called.output.expect("answered");
        assert!(out.is_error && text(&out).contains("cancelled"), "{name}");
    }
}
