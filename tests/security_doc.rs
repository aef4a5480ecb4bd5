//! SECURITY.md names, for each guarantee, the tests that prove it. This keeps the page
//! honest: every test name it cites must exist as a function in `src/`, `crates/` or `tests/`, so a
//! renamed or deleted test fails here instead of leaving a guarantee unproved on paper.

use std::fs;
use std::path::Path;

/// Every `name` in backticks in the page that looks like a test function (snake case with
/// at least three words), and the file names it cites.
fn cited(page: &str) -> (Vec<String>, Vec<String>) {
    let mut tests = Vec::new();
    let mut files = Vec::new();
    for (i, part) in page.split('`').enumerate() {
        if i % 2 == 0 {
            continue; // outside backticks
        }
        let name = part.trim_end_matches('*');
        if name.contains('/') && !name.contains(' ') && !name.ends_with('/') {
            files.push(name.to_string());
        } else if name.split('_').count() >= 3
            && name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
            && !name.ends_with('_')
        {
            tests.push(name.to_string());
        }
    }
    (tests, files)
}

fn sources(dir: &Path, out: &mut String) {
    for entry in fs::read_dir(dir).expect("readable source tree").flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push_str(&fs::read_to_string(&path).unwrap_or_default());
        }
    }
}

#[test]
fn every_test_and_file_security_md_cites_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let page = fs::read_to_string(root.join("SECURITY.md")).expect("SECURITY.md exists");
    let (tests, files) = cited(&page);
    assert!(tests.len() >= 30, "the page cites its tests: {tests:?}");
    let mut code = String::new();
    for dir in ["src", "crates", "tests"] {
        sources(&root.join(dir), &mut code);
    }
    let missing: Vec<_> = tests
        .iter()
        .filter(|t| !code.contains(&format!("fn {t}(")))
        .collect();
    assert!(
        missing.is_empty(),
        "SECURITY.md cites tests that do not exist: {missing:?}"
    );
    let absent: Vec<_> = files
        .iter()
        .filter(|f| !root.join(f.split(' ').next().unwrap_or(f)).exists())
        .collect();
    assert!(
        absent.is_empty(),
        "SECURITY.md cites files that do not exist: {absent:?}"
    );
}
