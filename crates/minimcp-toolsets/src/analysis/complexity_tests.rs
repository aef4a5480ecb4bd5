use super::*;
use crate::workspace::testutil::{TempTree, TestLink};
use minimcp::Content;

fn call(tool: &Tool, args: Value) -> ToolOutput {
    TestLink::default()
        .call(tool, args)
        .unwrap_or_else(|e| panic!("failed: {e}"))
}

fn reads() -> usize {
    READS.with(|r| r.get())
}

fn names(out: &ToolOutput) -> Vec<String> {
    let s = out.structured.as_ref().expect("structured");
    s["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap().to_string())
        .collect()
}

/// A later page comes from the cache (no file is read again), and a
/// changed, added or removed file is picked up.
#[test]
fn a_later_page_reads_no_file_and_a_change_is_picked_up() {
    let tree = TempTree::new("analysis-cache");
    for i in 0..5 {
        let mut src = String::new();
        for j in 0..100 {
            src.push_str(&format!(
                "fn f{i}_{j}(a: u8) -> u8 {{ if a > {j} {{ 1 }} else {{ 0 }} }}\n"
            ));
        }
        tree.file(&format!("src/m{i}.rs"), src);
    }
    let ws = Rc::new(Workspace::open(&tree.path).unwrap());
    let analyses = Rc::new(Analyses::default());
    let tool = tool(&ws, &analyses);

    let before = reads();
    let first = call(&tool, json!({"offset": 0}));
    assert_eq!(reads() - before, 5, "the first page reads every file");
    let next = first.structured.as_ref().unwrap()["next_offset"].as_u64();
    let next = next.expect("more than one page") as usize;

    let before = reads();
    let second = call(&tool, json!({"offset": next, "format": "json"}));
    assert_eq!(reads(), before, "a later page reads no file");
    assert_eq!(names(&second)[0], format!("f{}_{}", next / 100, next % 100));
    // Other thresholds and formats use the same analysis.
    call(&tool, json!({"format": "markdown", "max_cyclomatic": 1}));
    assert_eq!(reads(), before);
    // Another exclude is another analysis.
    call(&tool, json!({"exclude": ["m4.rs"]}));
    assert_eq!(reads() - before, 4);

    // A changed file: the analysis is made again, with the new function.
    std::fs::write(tree.path.join("src/m0.rs"), "fn changed() {}\n").unwrap();
    let before = reads();
    let after = call(&tool, json!({}));
    assert_eq!(reads() - before, 5);
    assert_eq!(names(&after)[0], "changed");
    assert_eq!(after.structured.as_ref().unwrap()["total_functions"], 401);
    // A new file in a directory that was walked.
    tree.file("src/new.py", "def added():\n    pass\n");
    let again = call(&tool, json!({}));
    assert_eq!(again.structured.as_ref().unwrap()["total_functions"], 402);
    // A removed file.
    std::fs::remove_file(tree.path.join("src/m1.rs")).unwrap();
    let again = call(&tool, json!({}));
    assert_eq!(again.structured.as_ref().unwrap()["total_functions"], 302);
    // A `.gitignore` above the analyzed directory.
    let src = call(&tool, json!({"project_path": "src"}));
    assert_eq!(src.structured.as_ref().unwrap()["total_functions"], 302);
    tree.file(".gitignore", "m2.rs\n");
    let src = call(&tool, json!({"project_path": "src"}));
    assert_eq!(src.structured.as_ref().unwrap()["total_functions"], 202);
}
#[test]
fn text_only_clients_see_the_summary_violations_ranking_and_paging() {
    let tree = TempTree::new("analysis-text");
    tree.file(
        "a.py",
        "def tangled(a, b, c):\n    if a and b:\n        return 1\n    elif c or a:\n        return 2\n    return 3\n\ndef simple():\n    pass\n",
    );
    let ws = Rc::new(Workspace::open(&tree.path).unwrap());
    let tool = tool(&ws, &Rc::new(Analyses::default()));
    let out = call(&tool, json!({"max_cyclomatic": 2}));
    let Content::Text { text } = &out.content[0] else {
        panic!("text")
    };
    assert!(
        text.starts_with("1 file, 2 functions; 1 violation"),
        "{text}"
    );
    assert!(
        text.contains("| `a.py` | 1 | `tangled` | cyclomatic | 5 | 2 |"),
        "{text}"
    );
    assert!(text.contains("## Top files"), "{text}");
    assert!(text.contains("`simple`"), "{text}");
}
