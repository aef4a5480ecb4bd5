use super::*;
use crate::analysis::lexer::lex;
use crate::analysis::measure::measured;

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

#[test]
fn typescript_members_without_semicolons_and_generic_methods() {
    // A constructor after a field with no `;`, and a method with type parameters.
    let src = "class P {\n  readonly ajv: true\n  constructor(a: A) { if (a) {} }\n  compile<T = unknown>(s: S): V<T> { return s && t }\n}";
    assert_eq!(
        measured(src, Lang::TypeScript),
        [("constructor".into(), 3, 2), ("compile".into(), 4, 2)]
    );
}

#[test]
fn overload_signatures_without_semicolons_have_no_body() {
    // The signatures end at the line break; an object return type is a type, not a body.
    let src = "export function when(p: P): Promise<void> & { cancel(): void }\nexport function when(p: P, e: E): D\nexport function when(p: any, e?: any): any {\n  if (e) {}\n}";
    assert_eq!(measured(src, Lang::TypeScript), [("when".into(), 3, 2)]);
    let src = "class C {\n  m(a: string): void\n  m(a: any) { return a || b }\n}";
    assert_eq!(measured(src, Lang::TypeScript), [("m".into(), 3, 2)]);
}

#[test]
fn an_annotated_constant_is_named_by_its_name_not_its_type() {
    let src = "const shared: MetaSchema = (root) => {\n  return root ? 1 : 2\n}";
    assert_eq!(measured(src, Lang::TypeScript), [("shared".into(), 1, 2)]);
}

#[test]
fn rust_signatures_with_associated_type_bindings_have_bodies() {
    let src = "impl X {\n    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {\n        if a {}\n    }\n    fn extend<T>(&mut self, iter: T)\n    where\n        T: IntoIterator<Item = (String, Value)>,\n    {\n        for x in iter {}\n    }\n}";
    assert_eq!(
        measured(src, Lang::Rust),
        [("from_iter".into(), 2, 2), ("extend".into(), 5, 3)]
    );
}

#[test]
fn typescript_return_types_with_nested_generics_and_typed_arrows() {
    // `>>` closes two type-argument lists; `(a, b): number =>` starts at its parameters.
    let src = "class O {\n  fetchNextPage(\n    o?: F,\n  ): Promise<R<TData, TError>> {\n    return a || b\n  }\n}\nconst sort = (\n  a: M,\n  b: M,\n): number => {\n  return a ? 1 : 2\n}";
    assert_eq!(
        measured(src, Lang::TypeScript),
        [("fetchNextPage".into(), 2, 2), ("sort".into(), 8, 2)]
    );
}

#[test]
fn function_types_are_not_functions() {
    // A parameter's function type, a type alias; a ternary's arrow and an object's stay.
    let src = "type F<T> = (a: T) => void\nfunction run(work: () => void, n?: (x: number) => string) {\n  return f(c ? a : () => 1, { k: (x) => x })\n}";
    assert_eq!(
        measured(src, Lang::TypeScript),
        [
            ("run".into(), 2, 2),
            // Named as lizard names it, after the word before `:`.
            ("a".into(), 3, 1),
            ("k".into(), 3, 1)
        ]
    );
}

#[test]
fn a_function_return_type_does_not_swallow_the_body() {
    let src = "class A {\n  private m<T>(s: S): (data: T) => string {\n    f(s.d || {})\n    if (!s.x) throw e\n    return s.x\n  }\n}";
    assert_eq!(measured(src, Lang::TypeScript), [("m".into(), 2, 3)]);
}

#[test]
fn members_named_by_reserved_words_numbers_and_quoted_keys() {
    // mobx's `delete(value)`, ajv's code generator `else(…)`, mobx's error table `1(…)`.
    let src = "class S {\n  delete(v: T) { if (v) {} }\n  else(x: X): G { return x }\n}\nconst e = {\n  1(a, k) { return a || k },\n  'q'(b) {},\n}";
    assert_eq!(
        measured(src, Lang::TypeScript),
        [
            ("delete".into(), 2, 2),
            ("else".into(), 3, 1),
            ("1".into(), 6, 2),
            ("q".into(), 7, 1)
        ]
    );
}

#[test]
fn computed_member_names_are_methods_that_start_at_their_parameters() {
    // ESLint's `[[…]](node) {…}` rule handlers, immer's `[Symbol.iterator]()`, mobx's
    // `get [Symbol.toStringTag]()`: the key belongs to the code around, the method to itself.
    let src = "function create(c) {\n  return {\n    [[\n      \"A\",\n      \"B\"\n    ]](node) {\n      if (node) {}\n    },\n    [k ? a : b](x) { return x || y },\n  }\n}\nclass S {\n  *[Symbol.iterator]() { yield 1 }\n  get [Symbol.toStringTag]() { return \"S\" }\n}";
    assert_eq!(
        measured(src, Lang::JavaScript),
        [
            ("create".into(), 1, 2),
            ("[[\"A\",\"B\"]]".into(), 6, 2),
            ("[k?a:b]".into(), 9, 2),
            ("[Symbol.iterator]".into(), 13, 1),
            ("[Symbol.toStringTag]".into(), 14, 1)
        ]
    );
}

#[test]
fn typescript_methods_named_like_statements_have_return_types() {
    // ajv's code generator: `if(…): CodeGen {…}`; a `case (x): {` stays a case.
    let src = "class G {\n  if(c: Code, t?: Block): G {\n    return t ? this : c\n  }\n  for(i: I): G { return this }\n  m(x) {\n    switch (x) {\n      case (1): { return 2 }\n    }\n  }\n}";
    assert_eq!(
        measured(src, Lang::TypeScript),
        [
            ("if".into(), 2, 2),
            ("for".into(), 5, 1),
            ("m".into(), 6, 2)
        ]
    );
}

#[test]
fn javascript_arrows_after_a_ternary_colon_are_functions() {
    // npm's `ls`: `c ? f({…}) : () => true`; JavaScript has no return types to confuse it with.
    let src = "function g(c) {\n  return c ? f({\n    a,\n  }) : () => true\n}";
    assert_eq!(
        measured(src, Lang::JavaScript),
        [("g".into(), 1, 2), ("(anonymous)".into(), 4, 1)]
    );
}

#[test]
fn typescript_type_level_question_marks_are_not_decisions() {
    // Mapped types' `]?:`, optional tuple members, conditional types in a signature.
    let src = "function toHash<T extends string>(arr: T[]): {[K in T]?: true} {\n  const h: {[K in T]?: true} = {}\n  return h\n}\nfunction fin<D>(d: D, t: [a?, b?]): D extends Draft<infer T> ? T : never {\n  return d ? d : t\n}";
    assert_eq!(
        measured(src, Lang::TypeScript),
        [("toHash".into(), 1, 1), ("fin".into(), 5, 2)]
    );
}

#[test]
fn go_results_over_several_lines_keep_the_body() {
    // go/format's `parse`: named results, one of them a func type, one per line.
    let src = "func parse(src []byte) (\n\tfile *File,\n\tadj func(src []byte) []byte,\n\terr error,\n) {\n\tif err != nil {\n\t}\n\treturn\n}\n";
    assert_eq!(measured(src, Lang::Go), [("parse".into(), 1, 2)]);
}
