use super::*;

fn glob(pattern: &str) -> Glob {
    Glob::new(pattern, Dialect::Search).unwrap_or_else(|e| panic!("{pattern}: {e}"))
}

fn check(pattern: &str, yes: &[&str], no: &[&str]) {
    let g = glob(pattern);
    for path in yes {
        assert!(g.matches(path), "{pattern} should match {path}");
    }
    for path in no {
        assert!(!g.matches(path), "{pattern} should not match {path}");
    }
}

#[test]
fn star_stays_within_a_component() {
    check(
        "*.rs",
        &["a.rs", ".rs", ".hidden.rs"],
        &["src/a.rs", "a.rsx", "a.r"],
    );
    check(
        "src/*.rs",
        &["src/a.rs"],
        &["src/x/a.rs", "a.rs", "srcs/a.rs"],
    );
    check(
        "a*b*c",
        &["abc", "aXbYc", "abbc", "a-b-b-c"],
        &["ab", "acb", "abcd"],
    );
    check("*", &["x", "Cargo.toml"], &["a/b"]);
}

#[test]
fn question_mark_and_classes() {
    check("?.txt", &["a.txt", "é.txt"], &["ab.txt", ".txt"]);
    check("[abc].rs", &["a.rs", "c.rs"], &["d.rs", "ab.rs"]);
    check("[a-c][!0-9]", &["ax", "c-"], &["a1", "dx"]);
    check("[^x]", &["y"], &["x"]);
    check("[]]", &["]"], &["a"]);
    check("[a-]", &["a", "-"], &["b"]);
    check("[[:digit:]]*", &["1abc"], &["abc"]);
    check("[[:upper:][:digit:]]", &["A", "7"], &["a"]);
    check("\\[x\\]", &["[x]"], &["x"]);
    check("\\*", &["*"], &["a"]);
}

#[test]
fn globstar_spans_components() {
    check(
        "**/*.rs",
        &["a.rs", "src/a.rs", "src/deep/er/a.rs"],
        &["a.rsx", "src/a.txt"],
    );
    check(
        "src/**/mod.rs",
        &["src/mod.rs", "src/a/mod.rs", "src/a/b/mod.rs"],
        &["mod.rs", "srcx/mod.rs"],
    );
    check("src/**", &["src/a", "src/a/b"], &["src", "other/a"]);
    check("**", &["a", "a/b/c"], &[]);
    check(
        "a/**/b/**/c",
        &["a/b/c", "a/x/b/y/c", "a/b/b/c"],
        &["a/c", "a/b"],
    );
    // `**` inside a component is an ordinary `*`.
    check("a**b", &["ab", "axxb"], &["a/b"]);
}

#[test]
fn braces_expand() {
    check("*.{rs,toml}", &["a.rs", "Cargo.toml"], &["a.md"]);
    check(
        "{src,tests}/**/*.rs",
        &["src/a.rs", "tests/x/y.rs"],
        &["benches/a.rs"],
    );
    check("a{b,{c,d}e}f", &["abf", "acef", "adef"], &["af", "ab"]);
    check("x{,y}", &["x", "xy"], &["xyy"]);
    check("\\{a,b\\}", &["{a,b}"], &["a"]);
    assert_eq!(
        expand_braces("a{1,2}{3,4}").expect("ok"),
        ["a13", "a14", "a23", "a24"]
    );
}

#[test]
fn leading_dot_components_are_dropped() {
    check("./src/*.rs", &["src/a.rs"], &[]);
    check("src/./a.rs", &["src/a.rs"], &[]);
}

#[test]
fn bad_patterns_get_actionable_errors() {
    for (pattern, message) in [
        ("", "empty"),
        ("/etc/*", "relative"),
        ("~/x", "`~`"),
        ("../*", "`..`"),
        ("a/../b", "`..`"),
        ("[abc", "unclosed `[`"),
        ("{a,b", "unclosed `{`"),
        ("a}", "unbalanced `}`"),
        ("src\\main.rs", "separate directories with `/`"),
        ("x\\", "lone"),
        ("[z-a]", "backwards"),
        ("[[:bogus:]]", "unknown character class"),
        ("a\0b", "NUL"),
    ] {
        let err = Glob::new(pattern, Dialect::Search).expect_err(pattern);
        assert!(err.contains(message), "{pattern}: {err}");
    }
    let long = "a".repeat(MAX_PATTERN_BYTES + 1);
    assert!(Glob::new(&long, Dialect::Search).is_err());
    let bomb = "{a,b}".repeat(9);
    let err = Glob::new(&bomb, Dialect::Search).expect_err("too many");
    assert!(err.contains("more than"), "{err}");
}

#[test]
fn gitignore_dialect_keeps_braces_and_backslashes() {
    let g = Glob::new("{a,b}", Dialect::Gitignore).expect("valid");
    assert!(g.matches("{a,b}"));
    assert!(!g.matches("a"));
    let g = Glob::new("\\#notes", Dialect::Gitignore).expect("valid");
    assert!(g.matches("#notes"));
}

#[test]
fn pruning_knows_which_directories_can_hold_matches() {
    let g = glob("src/**/*.rs");
    assert!(g.could_match_below(""));
    assert!(g.could_match_below("src"));
    assert!(g.could_match_below("src/a/b"));
    assert!(!g.could_match_below("target"));
    let g = glob("*.rs");
    assert!(g.could_match_below(""));
    assert!(!g.could_match_below("src"));
    let g = glob("{docs,src}/*.md");
    assert!(g.could_match_below("docs"));
    assert!(!g.could_match_below("docs/x"));
    assert!(!g.could_match_below("other"));
}

#[test]
fn literal_prefixes_let_walks_start_deeper() {
    assert_eq!(
        glob("src/toolsets/**/*.rs").literal_prefix(),
        ["src", "toolsets"]
    );
    assert_eq!(glob("src/*.rs").literal_prefix(), ["src"]);
    assert!(glob("**/*.rs").literal_prefix().is_empty());
    assert!(glob("Cargo.toml").literal_prefix().is_empty());
    assert_eq!(glob("src/{a,b}/x").literal_prefix(), ["src"]);
    assert!(glob("{src,tests}/*.rs").literal_prefix().is_empty());
}

#[test]
fn hostile_patterns_stay_fast() {
    // Many stars against a long near-miss: the single-backtrack matcher stays polynomial.
    let g = glob(&format!("{}b", "a*".repeat(30)));
    let text = "a".repeat(200);
    let start = std::time::Instant::now();
    assert!(!g.matches(&text));
    let g = glob(&"**/".repeat(40));
    let deep = vec!["x"; 60].join("/");
    assert!(g.matches(&deep));
    assert!(start.elapsed() < std::time::Duration::from_secs(1));
}
