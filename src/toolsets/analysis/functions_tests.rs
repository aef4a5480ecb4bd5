use super::*;
use crate::toolsets::analysis::lexer::lex;

fn names(src: &str, lang: Lang) -> Vec<(String, Option<usize>)> {
    let tokens = lex(src, lang);
    find(&tokens, lang)
        .list
        .into_iter()
        .map(|f| (f.name, f.parent))
        .collect()
}

#[test]
fn nested_functions_know_their_parent() {
    let src = "fn a() { fn b() { fn c() {} } }";
    assert_eq!(
        names(src, Lang::Rust),
        [
            ("a".into(), None),
            ("b".into(), Some(0)),
            ("c".into(), Some(1))
        ]
    );
}

#[test]
fn declarations_without_bodies_are_not_functions() {
    assert!(names(
        "trait T { fn a(&self); type F = fn(u8) -> u8; }",
        Lang::Rust
    )
    .is_empty());
    assert!(names(
        "interface I { m(a: string): void; }\nfunction o(a: number): void;",
        Lang::TypeScript
    )
    .is_empty());
    assert!(names("type F func(int) int\nvar g func()\n", Lang::Go).is_empty());
}

#[test]
fn python_names_are_qualified_and_ends_follow_indentation() {
    let src = "class A:\n    @property\n    def p(self):\n        return 1\n\n    x = 2\ndef top(a): return a\n";
    let tokens = lex(src, Lang::Python);
    let found = find(&tokens, Lang::Python).list;
    let got: Vec<_> = found
        .iter()
        .map(|f| (f.name.as_str(), f.start_line, f.end_line))
        .collect();
    assert_eq!(got, [("A.p", 3, 4), ("top", 7, 7)]);
}
