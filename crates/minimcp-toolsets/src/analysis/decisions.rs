//! Cyclomatic decisions of Java, C, C++, PHP and Ruby: lizard's decision tokens for each,
//! less the tokens lizard counts that decide nothing (types that look like operators), plus
//! the decisions lizard misses (see `crates/minimcp-toolsets/README.md`, "Differences kept").
//!
//! - Java: `if for while catch case && ||` and the ternary `?` (not a wildcard's `<?>`).
//! - C and C++: `if for while catch case && || ?`, C++'s `and`/`or`, and the preprocessor's
//!   `#if #ifdef #ifndef #elif` inside a function (lizard counts `#if #ifdef #elif`); not
//!   C++'s rvalue references (`auto&& x`, `T&& x = …`, `static_cast<T&&>`).
//! - PHP: `if elseif for foreach while catch case && ||`, the ternary `?` (not `?:`, `??`,
//!   nor a nullable type's `?int`), and each arm of a `match` but `default`.
//! - Ruby: `if elsif unless until while for rescue ensure when and or && || ||= &&=` and
//!   the ternary `?`.
//!
//! In C, C++, Java and PHP the decisions count from the body's `{` on, as lizard counts
//! them: a signature's `noexcept(a && b)` or `?int` decides nothing at run time.

use super::functions::{matching, Functions, NONE};
use super::lang::Lang;
use super::lexer::{Kind, Token};

/// Adds each decision token's 1 to the function that owns it (the newer languages).
pub(crate) fn count(tokens: &[Token<'_>], lang: Lang, found: &Functions, counts: &mut [u32]) {
    for (i, t) in tokens.iter().enumerate() {
        let f = found.owner[i];
        if f == NONE || !matches!(t.kind, Kind::Op | Kind::Keyword) {
            continue;
        }
        if lang != Lang::Ruby && i <= found.list[f as usize].body {
            continue;
        }
        counts[f as usize] += match lang {
            Lang::Java => u32::from(java(tokens, i)),
            Lang::C | Lang::Cpp => u32::from(c(tokens, i, lang)),
            Lang::Php => php(tokens, i),
            _ => u32::from(ruby(t)),
        };
    }
}

fn java(tokens: &[Token<'_>], i: usize) -> bool {
    match (tokens[i].kind, tokens[i].text) {
        (Kind::Keyword, "if" | "for" | "while" | "catch" | "case") => true,
        (Kind::Op, "&&" | "||") => true,
        (Kind::Op, "?") => !wildcard(tokens, i),
        _ => false,
    }
}

/// Java: the `?` of a type argument (`List<? extends T>`, `Map<?, ?>`), not a ternary.
pub(crate) fn wildcard(tokens: &[Token<'_>], i: usize) -> bool {
    tokens.get(i + 1).is_some_and(|n| {
        matches!(
            (n.kind, n.text),
            (Kind::Keyword, "extends") | (Kind::Op, ">" | ">>" | ">>>" | "," | "&")
        ) || (n.kind == Kind::Ident && n.text == "super")
    })
}

fn c(tokens: &[Token<'_>], i: usize, lang: Lang) -> bool {
    let t = &tokens[i];
    match (t.kind, t.text) {
        (Kind::Keyword, "if" | "for" | "while" | "case" | "catch") => true,
        (Kind::Keyword, "and" | "or") => true,
        (Kind::Op, "||" | "?") => true,
        (Kind::Op, "&&") => lang == Lang::C || !rvalue_reference(tokens, i),
        (Kind::Keyword, directive) if directive.starts_with('#') => matches!(
            directive[1..].trim_start(),
            "if" | "ifdef" | "ifndef" | "elif" | "elifdef" | "elifndef"
        ),
        _ => false,
    }
}

/// C++: the `&&` at `i` makes a type (`auto&& x`, `T&& x = y`, `T&& x{y}`, `<T&&>`,
/// `(T&&)`, `T&&...`), not a conjunction.
fn rvalue_reference(tokens: &[Token<'_>], i: usize) -> bool {
    let next = tokens.get(i + 1);
    if next.is_some_and(|n| n.kind == Kind::Op && matches!(n.text, ">" | ">>" | ")" | "," | "..."))
    {
        return true;
    }
    let typed = i > 0
        && tokens[i - 1].kind == Kind::Keyword
        && matches!(
            tokens[i - 1].text,
            "auto"
                | "int"
                | "char"
                | "bool"
                | "double"
                | "float"
                | "long"
                | "short"
                | "unsigned"
                | "signed"
                | "void"
                | "const"
                | "volatile"
        );
    typed
        || (next.is_some_and(|n| n.kind == Kind::Ident)
            && tokens
                .get(i + 2)
                .is_some_and(|a| a.kind == Kind::Op && matches!(a.text, "=" | "{")))
}

/// PHP: the decisions of the token at `i` (a `match` counts its arms).
fn php(tokens: &[Token<'_>], i: usize) -> u32 {
    let t = &tokens[i];
    match (t.kind, t.text) {
        (Kind::Keyword, "if" | "elseif" | "for" | "foreach" | "while" | "catch" | "case") => 1,
        (Kind::Op, "&&" | "||") => 1,
        (Kind::Op, "?") => {
            u32::from(!nullable(tokens, i) && !tokens.get(i + 1).is_some_and(|n| n.is(":")))
        }
        (Kind::Keyword, "match") if tokens.get(i + 1).is_some_and(|n| n.is("(")) => {
            match_arms(tokens, matching(tokens, i + 1) + 1)
        }
        _ => 0,
    }
}

/// PHP: the `?` of a nullable type (`?int $a`, `): ?Foo`, `private ?Bar $b`).
pub(crate) fn nullable(tokens: &[Token<'_>], i: usize) -> bool {
    let typed = tokens
        .get(i + 1)
        .is_some_and(|n| matches!(n.kind, Kind::Ident | Kind::Keyword) || n.is("\\"));
    let Some(prev) = i.checked_sub(1).map(|p| &tokens[p]) else {
        return false;
    };
    typed
        && (prev.is("(")
            || prev.is(",")
            || (prev.is(":") && i >= 2 && tokens[i - 2].is(")"))
            || (prev.kind == Kind::Keyword
                && matches!(
                    prev.text,
                    "public" | "private" | "protected" | "static" | "readonly" | "var" | "const"
                )))
}

/// PHP: the arms of the `match` body whose `{` is at `open`, `default` left out.
fn match_arms(tokens: &[Token<'_>], open: usize) -> u32 {
    if !tokens.get(open).is_some_and(|t| t.is("{")) {
        return 0;
    }
    let close = matching(tokens, open);
    let (mut arms, mut arm_start, mut i) = (0, open + 1, open + 1);
    while i < close {
        let t = &tokens[i];
        match t.text {
            "(" | "[" | "{" if t.kind == Kind::Op => i = matching(tokens, i),
            "=>" if t.kind == Kind::Op => arms += u32::from(!tokens[arm_start].is("default")),
            "," if t.kind == Kind::Op => arm_start = i + 1,
            _ => {}
        }
        i += 1;
    }
    arms
}

fn ruby(t: &Token<'_>) -> bool {
    matches!(
        (t.kind, t.text),
        (
            Kind::Keyword,
            "if" | "elsif"
                | "unless"
                | "until"
                | "while"
                | "for"
                | "rescue"
                | "ensure"
                | "when"
                | "and"
                | "or",
        ) | (Kind::Op, "&&" | "||" | "||=" | "&&=" | "?")
    )
}
