use super::*;
use crate::analysis::measure::measured;

fn texts(src: &str, lang: Lang) -> Vec<&str> {
    lex(src, lang).into_iter().map(|t| t.text).collect()
}

fn code(src: &str, lang: Lang) -> Vec<&str> {
    lex(src, lang)
        .into_iter()
        .filter(|t| t.kind != Kind::Str)
        .map(|t| t.text)
        .collect()
}

#[test]
fn braces_in_strings_and_comments_are_not_code() {
    let src = "fn f() { let s = \"{ if }\"; // if {\n /* { /* nested */ if */ }";
    assert_eq!(
        code(src, Lang::Rust),
        ["fn", "f", "(", ")", "{", "let", "s", "=", ";", "}"]
    );
}

#[test]
fn rust_raw_strings_chars_and_lifetimes() {
    let src = r###"let a = r#"say "}" now"#; let c = '{'; fn g<'a>(x: &'a str) {} let e = '\''; b"x{"; 'outer: loop {}"###;
    let toks = lex(src, Lang::Rust);
    let strs: Vec<_> = toks
        .iter()
        .filter(|t| t.kind == Kind::Str)
        .map(|t| t.text)
        .collect();
    assert_eq!(strs, [r##"r#"say "}" now"#"##, "'{'", r"'\''", "b\"x{\""]);
    let idents: Vec<_> = toks
        .iter()
        .filter(|t| t.text.starts_with('\'') && t.kind == Kind::Ident)
        .map(|t| t.text)
        .collect();
    assert_eq!(idents, ["'a", "'a", "'outer"]);
    assert_eq!(toks.iter().filter(|t| t.text == "{").count(), 2);
}

#[test]
fn rust_strings_span_lines_and_keep_line_numbers() {
    let toks = lex("let s = \"a\nb\";\nx", Lang::Rust);
    assert_eq!(toks.last().map(|t| (t.text, t.line)), Some(("x", 3)));
}

#[test]
fn python_strings_comments_and_indentation() {
    let src = "def f(a,\n      b):\n    s = '''if {\n'''  # if\n    return rb'\\'' + f\"{x}\"\n";
    let toks = lex(src, Lang::Python);
    let starts: Vec<_> = toks
        .iter()
        .filter_map(|t| t.indent.map(|i| (t.text, i)))
        .collect();
    assert_eq!(starts, [("def", 0), ("s", 4), ("return", 4)]);
    assert_eq!(
        code(src, Lang::Python)
            .iter()
            .filter(|t| **t == "if")
            .count(),
        0
    );
    assert_eq!(toks.iter().filter(|t| t.kind == Kind::Str).count(), 3);
}

#[test]
fn javascript_templates_are_code_inside_dollar_braces() {
    let src = "let s = `a ${ x ? `in ${y}` : '}' } b`; if (c) {}";
    let toks = code(src, Lang::JavaScript);
    assert_eq!(
        toks,
        ["let", "s", "=", "x", "?", "y", ":", ";", "if", "(", "c", ")", "{", "}"]
    );
}

#[test]
fn javascript_regex_literals_versus_division() {
    assert_eq!(
        code("x = /[/{]+/g.test(s); y = a / b / c;", Lang::JavaScript),
        ["x", "=", ".", "test", "(", "s", ")", ";", "y", "=", "a", "/", "b", "/", "c", ";"]
    );
}

#[test]
fn go_raw_strings_and_runes() {
    let src = "s := `{\n}`; r := '{'; t := \"}\"";
    assert_eq!(
        code(src, Lang::Go),
        ["s", ":=", ";", "r", ":=", ";", "t", ":="]
    );
}

#[test]
fn operators_take_the_longest_match() {
    assert_eq!(
        texts("a ?? b?.c === d && e || f => g", Lang::TypeScript),
        ["a", "??", "b", "?.", "c", "===", "d", "&&", "e", "||", "f", "=>", "g"]
    );
}

#[test]
fn hostile_input_never_panics() {
    for src in [
        "\"unterminated",
        "r#\"x",
        "'",
        "`${",
        "/* x",
        "é'ü",
        "\\",
        "r#",
        "'\\",
        "b'",
    ] {
        for lang in Lang::ALL {
            let _ = lex(src, lang);
        }
    }
}

#[test]
fn reserved_words_after_a_dot_are_property_names() {
    // ajv's code generator calls `gen.if(…)`; a promise has `.catch(…)`.
    let src = "function f(gen, p) {\n  gen.if(a).for(b)\n  p?.catch(c)\n  if (d) {}\n}";
    assert_eq!(measured(src, Lang::JavaScript), [("f".into(), 1, 2)]);
    assert_eq!(measured(src, Lang::TypeScript), [("f".into(), 1, 2)]);
}

#[test]
fn block_comments_end_at_the_first_close_that_is_not_an_open() {
    // A `*` right after a `/` inside the comment belongs to that `/*`: `/*/` closes nothing.
    for (body, expected) in [
        ("a /* x /*/ y */ b", &["a", "b"][..]),
        ("a /*/ b */ c", &["a", "c"]),
        ("a /**/ b /***/ c", &["a", "b", "c"]),
        ("a /* x //*/ b", &["a"]),
        ("a /* b", &["a"]),
        ("a /* b *", &["a"]),
        ("a /* b **/ c", &["a", "c"]),
    ] {
        for lang in [Lang::JavaScript, Lang::Go, Lang::Java, Lang::C, Lang::Cpp] {
            assert_eq!(code(body, lang), expected, "{lang:?}: {body}");
        }
        let php = format!("<?php {body}");
        assert_eq!(code(&php, Lang::Php), expected, "PHP: {body}");
    }
    // Lines inside a comment still count, over and past the eight bytes read at once.
    let src = "a /**\n * Docblock line one.\n * Two\n\n **/ b\n/*\n*/c";
    let lines: Vec<_> = lex(src, Lang::Java)
        .iter()
        .map(|t| (t.text, t.line))
        .collect();
    assert_eq!(lines, [("a", 1), ("b", 5), ("c", 7)]);
}

#[test]
fn php_operators_take_the_longest_match_on_their_short_paths() {
    let src = "<?php $a->b?->c::d => $e = $f == $g === $h . $i .= $j ... $k .5 .. =>= ->> :: =";
    assert_eq!(
        texts(src, Lang::Php),
        [
            "$a", "->", "b", "?->", "c", "::", "d", "=>", "$e", "=", "$f", "==", "$g", "===", "$h",
            ".", "$i", ".=", "$j", "...", "$k", ".5", "..", "=>", "=", "->", ">", "::", "="
        ]
    );
}
