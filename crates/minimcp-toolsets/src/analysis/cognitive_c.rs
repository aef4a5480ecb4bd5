//! The brace walker's rules for Java, C, C++ and PHP: which `?` is a ternary (not Java's
//! wildcard `<?>`, PHP's nullable `?int` or `?:`), and which bodies are lambdas and closures
//! that nest what they hold like nested functions: Java's `x -> {…}` and `x -> expr` (not a
//! switch rule's `case A -> …`), C++'s `[…](…) mutable -> T {…}`, PHP's
//! `function (…) use (…) {…}` and `fn($x) => expr`.

use crate::analysis::decisions::{nullable, wildcard};
use crate::analysis::functions::matching;
use crate::analysis::lang::Lang;
use crate::analysis::lexer::{Kind, Token};

/// Languages whose structures have a parenthesized head (`if (…) {`).
pub(super) fn paren_heads(lang: Lang) -> bool {
    matches!(
        lang,
        Lang::JavaScript | Lang::TypeScript | Lang::Java | Lang::C | Lang::Cpp | Lang::Php
    )
}

/// True when the `?` at `i` is a ternary operator.
#[inline(always)]
pub(super) fn ternary(tokens: &[Token<'_>], lang: Lang, i: usize) -> bool {
    match lang {
        Lang::JavaScript | Lang::TypeScript => {
            !crate::analysis::cyclomatic::optional_marker(tokens, i)
        }
        Lang::Java => !wildcard(tokens, i),
        Lang::C | Lang::Cpp => true,
        Lang::Php => !nullable(tokens, i) && !tokens.get(i + 1).is_some_and(|n| n.is(":")),
        _ => false,
    }
}

/// True when an `else` after a statement without braces is an `if`'s branch (Rust's
/// `let … else` is not; the first five languages keep the reading they were checked with).
pub(super) fn braceless_else(lang: Lang) -> bool {
    matches!(lang, Lang::Java | Lang::C | Lang::Cpp | Lang::Php)
}

/// True when the `{` at `brace` opens a lambda's or closure's body.
pub(super) fn closure_body(tokens: &[Token<'_>], lang: Lang, brace: usize) -> bool {
    let Some(prev) = brace.checked_sub(1) else {
        return false;
    };
    match lang {
        Lang::Java => tokens[prev].is("->") && !switch_rule(tokens, prev),
        Lang::Cpp => cpp_lambda(tokens, prev),
        Lang::Php => php_closure(tokens, prev),
        _ => false,
    }
}

/// The last token of what the token at `i` nests: the expression lambda starting there
/// (Java's `->` without a `{`, PHP's `fn`), or a ternary's branches (`c ? a : b`: a
/// ternary nested in them is one level deeper, as the white paper nests it).
#[inline(always)]
pub(super) fn expression_lambda(tokens: &[Token<'_>], lang: Lang, i: usize) -> Option<usize> {
    if !matches!(lang, Lang::Java | Lang::Php | Lang::C | Lang::Cpp) {
        return None;
    }
    let t = &tokens[i];
    if t.is("?") && ternary(tokens, lang, i) {
        return Some(expression_end(tokens, i + 1));
    }
    if lang == Lang::Java && t.is("->") && !tokens.get(i + 1).is_some_and(|n| n.is("{")) {
        return (!switch_rule(tokens, i)).then(|| expression_end(tokens, i + 1));
    }
    if lang == Lang::Php && t.is("fn") {
        let arrow = (i + 1..tokens.len().min(i + 64)).find(|&j| tokens[j].is("=>"))?;
        return Some(expression_end(tokens, arrow + 1));
    }
    None
}

/// Java: true when the `->` at `arrow` ends a switch rule's labels (`case A, B ->`).
fn switch_rule(tokens: &[Token<'_>], arrow: usize) -> bool {
    let mut depth = 0u32;
    let mut j = arrow;
    while j > 0 && arrow - j < 64 {
        j -= 1;
        let t = &tokens[j];
        match (t.kind, t.text) {
            (Kind::Op, ")" | "]" | "}") if t.text != "}" || depth > 0 => depth += 1,
            (Kind::Op, "(" | "[") if depth > 0 => depth -= 1,
            (Kind::Keyword, "case" | "default") if depth == 0 => return true,
            (Kind::Op, ";" | "{" | "}" | "(" | "[" | "->") if depth == 0 => return false,
            _ => {}
        }
    }
    false
}

/// The last token of an expression from `from`: before the first `,` or `;` or unmatched
/// closing bracket.
fn expression_end(tokens: &[Token<'_>], from: usize) -> usize {
    let mut j = from;
    while let Some(t) = tokens.get(j) {
        if t.kind == Kind::Op {
            match t.text {
                "(" | "[" | "{" => j = matching(tokens, j),
                "," | ";" | ")" | "]" | "}" => return j.saturating_sub(1).max(from),
                _ => {}
            }
        }
        j += 1;
    }
    tokens.len().saturating_sub(1)
}

/// The `(` that the `)` at `close` closes, walking back (at most 512 tokens).
fn opener(tokens: &[Token<'_>], close: usize) -> Option<usize> {
    let mut depth = 0u32;
    let mut j = close;
    loop {
        let t = &tokens[j];
        if t.kind == Kind::Op {
            match t.text {
                ")" | "]" => depth += 1,
                "(" | "[" => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(j);
                    }
                }
                "{" | "}" | ";" => return None,
                _ => {}
            }
        }
        if close - j > 512 {
            return None;
        }
        j = j.checked_sub(1)?;
    }
}

/// C++: the token before a `{` (at `prev`) ends a lambda's head: `[…] {`, `[…](…) {`,
/// with `mutable`, `constexpr`, `noexcept` or `-> T` before the body.
fn cpp_lambda(tokens: &[Token<'_>], prev: usize) -> bool {
    let mut j = prev;
    // A trailing return type: back to its `->`.
    if let Some(arrow) = (prev.saturating_sub(12)..=prev)
        .rev()
        .find(|&k| tokens[k].is("->"))
    {
        if !tokens[arrow..=prev]
            .iter()
            .any(|t| t.is(";") || t.is("{") || t.is("}"))
        {
            j = arrow.saturating_sub(1);
        }
    }
    while j > 0
        && matches!(
            tokens[j].text,
            "mutable" | "constexpr" | "noexcept" | "consteval"
        )
    {
        j -= 1;
    }
    if tokens[j].is("]") {
        return true;
    }
    if !tokens[j].is(")") {
        return false;
    }
    opener(tokens, j).is_some_and(|o| o > 0 && tokens[o - 1].is("]"))
}

/// PHP: the token before a `{` (at `prev`) ends a closure's or function's head:
/// `function (…) use (…): T {`.
fn php_closure(tokens: &[Token<'_>], prev: usize) -> bool {
    let mut j = prev;
    // A return type: back to its `:` after the `)`.
    if !tokens[j].is(")") {
        match (j.saturating_sub(8)..j).rev().find(|&k| tokens[k].is(":")) {
            Some(colon) if colon > 0 && tokens[colon - 1].is(")") => j = colon - 1,
            _ => return false,
        }
    }
    let Some(mut open) = opener(tokens, j) else {
        return false;
    };
    if open >= 2 && tokens[open - 1].is("use") && tokens[open - 2].is(")") {
        match opener(tokens, open - 2) {
            Some(o) => open = o,
            None => return false,
        }
    }
    let mut k = open;
    while k > 0 && (tokens[k - 1].is("&") || tokens[k - 1].kind == Kind::Ident) && open - k < 2 {
        k -= 1;
    }
    k > 0 && tokens[k - 1].is("function")
}
