//! Hand-made functions whose metrics are known: the white paper's worked examples and
//! lizard's counting rules, per language.

use super::*;

/// (name, start, end, cyclomatic, cognitive) of every function, in order.
fn summary(src: &str, lang: Lang) -> Vec<(String, u32, u32, u32, u32)> {
    file(src, lang)
        .into_iter()
        .map(|m| (m.name, m.start_line, m.end_line, m.cyclomatic, m.cognitive))
        .collect()
}

fn one(src: &str, lang: Lang) -> (u32, u32) {
    let all = file(src, lang);
    assert_eq!(all.len(), 1, "{all:?}");
    (all[0].cyclomatic, all[0].cognitive)
}

#[test]
fn white_paper_sum_of_primes() {
    // Campbell 2017, §"Nesting": for +1, for +2, if +3, `continue OUT` +1 = 7.
    let src = "function sumOfPrimes(max) {
  let total = 0;
  OUT: for (let i = 1; i <= max; ++i) {
    for (let j = 2; j < i; ++j) {
      if (i % j == 0) {
        continue OUT;
      }
    }
    total += i;
  }
  return total;
}";
    assert_eq!(one(src, Lang::JavaScript), (4, 7));
}

#[test]
fn white_paper_get_words() {
    // A switch is one increment however many cases it has; cyclomatic counts each case.
    let src = "function getWords(number) {
  switch (number) {
    case 1: return 'one';
    case 2: return 'a couple';
    case 3: return 'a few';
    default: return 'lots';
  }
}";
    assert_eq!(one(src, Lang::JavaScript), (4, 1));
}

#[test]
fn white_paper_my_method_try_catch() {
    // if +1, for +2, while +3, catch +1, if +2 = 9.
    let src = "function myMethod() {
  try {
    if (condition1) {
      for (let i = 0; i < 10; i++) {
        while (condition2) { step(); }
      }
    }
  } catch (e) {
    if (condition2) { recover(); }
  }
}";
    assert_eq!(one(src, Lang::JavaScript).1, 9);
}

#[test]
fn white_paper_lambda_nesting_and_boolean_sequences() {
    let src = "function myMethod2() {
  const r = () => {
    if (condition1) { go(); }
  };
}";
    // The lambda is its own function for cyclomatic (lizard), and nests the `if` in the
    // enclosing method's cognitive score (+2).
    let all = summary(src, Lang::JavaScript);
    assert_eq!(all[0].4, 2);
    assert_eq!(all[1], ("r".into(), 2, 4, 2, 1));
    // `a && b && c || d || e && f`: three sequences, plus the if.
    let src = "function f() { if (a && b && c || d || e && f) { x(); } }";
    assert_eq!(one(src, Lang::JavaScript), (7, 4));
}

#[test]
fn else_if_and_else_are_flat() {
    let src = "fn f(a: u8) -> u8 {
    if a == 1 {
        1
    } else if a == 2 {
        if a > 0 { 2 } else { 3 }
    } else {
        4
    }
}";
    // if +1, else if +1, nested if +2, its else +1, else +1 = 6.
    assert_eq!(one(src, Lang::Rust), (4, 6));
}

#[test]
fn rust_counts_like_lizard() {
    let src = "impl X {
    fn m<'a>(&self, x: &'a str) -> Result<u8, E> where T: Clone {
        let c = '{';
        let v = match x { \"a\" => 1, \"b\" => { 2 } _ => 3 };
        if a && b { foo()?; } else if c { }
        let Some(y) = z else { return Err(e) };
        let f = |q| if q { 1 } else { 2 };
        fn inner() { while x {} }
        Ok(1)
    }
}
trait T { fn d(&self); fn e(&self) { for i in x {} } }";
    let all = summary(src, Lang::Rust);
    let by_name: Vec<_> = all.iter().map(|f| (f.0.as_str(), f.1, f.2, f.3)).collect();
    // lizard 1.24 reports m 10 and inner 2 (and merges `d`'s declaration with `e`'s body,
    // a difference kept: a declaration without a body is not a function).
    assert_eq!(
        by_name,
        [("m", 2, 10, 10), ("inner", 8, 8, 2), ("e", 12, 12, 2)]
    );
}

#[test]
fn python_counts_like_lizard_and_complexipy() {
    let src = "class A:
    def m(self, x):
        if x and y or z:
            return [i for i in x if i]
        def inner():
            while True:
                pass
        return inner

    async def n(self):
        try:
            pass
        except E:
            pass
        finally:
            pass
        # trailing comment
";
    let all = summary(src, Lang::Python);
    // lizard: m 6, inner 2, n 3; complexipy: A::m 8, A::n 1.
    assert_eq!(
        all,
        [
            ("A.m".into(), 2, 8, 6, 8),
            ("A.m.inner".into(), 5, 7, 2, 1),
            ("A.n".into(), 10, 16, 3, 1)
        ]
    );
}

#[test]
fn python_cognitive_matches_complexipy_rules() {
    let cases = [
        ("def c1(a):\n    return [i for i in a if i]\n", 2),
        ("def c2(a):\n    if a:\n        return [i for i in a if i if i]\n", 5),
        ("def c3(a):\n    if a:\n        x = 1 if a else 2\n", 3),
        ("def c4(a):\n    if a:\n        f = lambda: 1 if a else 2\n", 4),
        ("def c5(a):\n    for x in a:\n        pass\n    else:\n        pass\n", 1),
        ("def c7(a):\n    return a and (b or c) and d\n", 2),
        ("def c10(self):\n    return self.c10()\n", 0),
        ("def c11(a):\n    return c11(a - 1) if a else 0\n", 2),
        ("def c12(a):\n    try:\n        if a: pass\n    except A:\n        pass\n    except B:\n        pass\n    else:\n        pass\n", 3),
        ("def c17(a):\n    if a:\n        def inner():\n            if b:\n                pass\n", 3),
        ("def c18(a):\n    return a if b else c if d else e\n", 3),
        ("def m1(n):\n    match n:\n        case 1:\n            if a: pass\n", 3),
        ("def m2(a):\n    if a:\n        try:\n            pass\n        except E:\n            if b: pass\n", 6),
        ("def m3(a):\n    while a:\n        pass\n    else:\n        if b: pass\n", 2),
        ("def m4(a):\n    def g():\n        def h():\n            if a: pass\n", 3),
        ("def m8(a):\n    return a or b and c or d\n", 2),
    ];
    for (src, expected) in cases {
        let all = file(src, Lang::Python);
        assert_eq!(all[0].cognitive, expected, "{src}");
    }
}

#[test]
fn javascript_functions_are_found_like_lizard() {
    let src = "function f(a) {
  if (a && b) { return 1; }
  const g = (x) => x ? 1 : 2;
  const h = function() { return a ?? b; };
  return [1].map(y => { if (y) return 1; });
}
class C {
  method(a) { for (;;) {} }
  get x() { return 1; }
}
const obj = { k(a) { return a || b; }, z: () => 1 };
export default async function() { switch (x) { case 1: break; case 2: break; default: } }";
    let all: Vec<_> = summary(src, Lang::TypeScript)
        .into_iter()
        .map(|f| (f.0, f.1, f.3))
        .collect();
    let expect = [
        ("f", 1, 3),
        ("g", 3, 2),
        ("h", 4, 2),
        ("(anonymous)", 5, 2),
        ("method", 8, 2),
        ("get x", 9, 1),
        ("k", 11, 2),
        ("z", 11, 1),
        ("(anonymous)", 12, 3),
    ];
    let expect: Vec<_> = expect.iter().map(|e| (e.0.to_string(), e.1, e.2)).collect();
    assert_eq!(all, expect);
}

#[test]
fn go_functions_methods_and_literals() {
    let src = "package main
func (r *T) M(a int) int {
\tif a > 0 && b {
\t\treturn 1
\t}
\tf := func(x int) int { if x > 0 { return 1 }; return 0 }
\tswitch a { case 1: case 2: default: }
\treturn f(a)
}
func G[T any](x T) {}
type F func(int) int
";
    let all: Vec<_> = summary(src, Lang::Go)
        .into_iter()
        .map(|f| (f.0, f.1, f.2, f.3))
        .collect();
    let expect = [("M", 2, 9, 5), ("(anonymous)", 6, 6, 2), ("G", 10, 10, 1)];
    let expect: Vec<_> = expect
        .iter()
        .map(|e| (e.0.to_string(), e.1, e.2, e.3))
        .collect();
    assert_eq!(all, expect);
}

#[test]
fn strings_do_not_open_blocks() {
    let src = "fn f() { let s = \"if { while\"; let r = r#\"}\"#; }\nfn g() {}";
    assert_eq!(summary(src, Lang::Rust).len(), 2);
    let src = "function f() { return `${a ? '}' : b}`; }\nfunction g() {}";
    let all = summary(src, Lang::JavaScript);
    // The `}` in the template's string part closes nothing; the `?` inside `${…}` is not
    // counted for cyclomatic (lizard's reading) but is for cognitive.
    assert_eq!((all.len(), all[0].3, all[0].4), (2, 1, 1));
}

#[test]
fn nesting_and_halstead_are_reported() {
    let all = file("fn f() { if a { for x in y { g(x); } } }", Lang::Rust);
    assert_eq!(all[0].max_nesting, 2);
    assert!(all[0].halstead.volume > 0.0);
}

#[test]
fn javascript_default_parameters_are_branches() {
    // lizard: a 2, b 3 (each default is taken or not).
    let src = "function a(p = 1) { return p }\nfunction b(p = 1, q = 2) { return p }";
    let all = summary(src, Lang::JavaScript);
    assert_eq!((all[0].3, all[1].3), (2, 3));
}

/// Any text in any language measures without a panic: generated sources of code-like
/// pieces, multi-byte characters and unterminated literals (a seeded splitmix64, fixed).
#[test]
fn generated_sources_never_panic() {
    const PIECES: [&str; 40] = [
        "fn ",
        "def ",
        "function ",
        "func ",
        "class ",
        "if ",
        "else ",
        "elif ",
        "for ",
        "while ",
        "match ",
        "=> ",
        "&& ",
        "|| ",
        "? ",
        ": ",
        "(",
        ")",
        "{",
        "}",
        "[",
        "]",
        "\n",
        "    ",
        "\"",
        "'",
        "`",
        "${",
        "r#\"",
        "\"\"\"",
        "/*",
        "*/",
        "//",
        "#",
        "é",
        "\u{301}",
        "🦀",
        "日本",
        "0x1é",
        "1.5e",
    ];
    let mut state: u64 = 0x5EED;
    let mut next = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) as usize
    };
    for _ in 0..2000 {
        let len = next() % 60;
        let src: String = (0..len).map(|_| PIECES[next() % PIECES.len()]).collect();
        for lang in Lang::ALL {
            let _ = file(&src, lang);
        }
    }
}

#[test]
fn java_lambdas_nest_and_wildcards_are_not_ternaries() {
    // if +1, && +1, the lambda's if +3 (inside the if and the lambda), else +1, the
    // ternary +2 (inside the else); `List<?>` is a type.
    let src = "class A {
  int f(List<?> xs, boolean a, boolean b) {
    if (a && b) {
      xs.forEach(x -> {
        if (x == null) { }
      });
    } else {
      return a ? 1 : 2;
    }
    return 0;
  }
}";
    assert_eq!(one(src, Lang::Java), (5, 8));
}

#[test]
fn php_elseif_foreach_break_n_and_arrow_functions() {
    // foreach +1, if +2, `break 2` +1 (a jump out of two loops), elseif +1, the arrow
    // function's ternary +2 (nested in `fn`); `?int` is a nullable type.
    let src = "<?php
function f(?int $a, $b) {
    foreach ($a as $x) {
        if ($x) {
            break 2;
        } elseif ($b) {
        }
    }
    $g = fn($y) => $y ? 1 : 2;
    return $g;
}
";
    assert_eq!(one(src, Lang::Php), (5, 7));
}

#[test]
fn ruby_blocks_nest_and_modifiers_count_flat() {
    // The block nests: if +2, && +1; elsif +1, else +1; the modifier `unless` +1.
    let src = "def f(a, b)
  a.each do |x|
    if x && b
      next
    elsif b
      1
    else
      2
    end
  end
  return 1 unless a
end
";
    assert_eq!(one(src, Lang::Ruby), (5, 6));
}

#[test]
fn cpp_lambdas_nest_and_an_else_after_a_statement_counts() {
    // The lambda's ternary +2, for +1, if +2, the `else` after `continue;` +1.
    let src = "int f(std::vector<int>& v) {
  auto g = [&](int x) { return x > 0 ? 1 : 0; };
  for (int x : v) {
    if (x) continue; else return g(x);
  }
  return 0;
}
";
    assert_eq!(one(src, Lang::Cpp), (4, 6));
}
