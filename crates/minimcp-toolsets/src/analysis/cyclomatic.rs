//! Cyclomatic complexity (McCabe), counted the way lizard counts it so the numbers can be
//! checked against it: 1 per function, plus 1 per decision token the function owns (tokens
//! of functions nested in it count for those). The decision tokens per language:
//!
//! - Rust: `if`, `for`, `while`, `where`, `&&`, `||`, `?`, each `match` arm after the
//!   first, and the `else` of a `let … else`.
//! - Go: `if`, `for`, `case`, `&&`, `||`.
//! - JavaScript/TypeScript: `if`, `for`, `while`, `catch`, `case`, `&&`, `||`, `??` (and
//!   their assignment forms), and the ternary `?` (not TypeScript's optional `name?`).
//! - Python: `if`, `elif`, `for`, `while`, `except`, `finally`, `and`, `or` (so
//!   comprehension clauses count) and each `case` of a `match`.
//!
//! Java, C, C++, PHP and Ruby: `decisions.rs`.

use super::functions::{Functions, NONE};
use super::lang::Lang;
use super::lexer::{Kind, Token};

/// Adds each decision token's 1 to the function that owns it; `counts` starts at zero
/// (the base 1 is added by the caller).
pub(crate) fn count(tokens: &[Token<'_>], lang: Lang, found: &Functions, counts: &mut [u32]) {
    if matches!(
        lang,
        Lang::Java | Lang::C | Lang::Cpp | Lang::Php | Lang::Ruby
    ) {
        return super::decisions::count(tokens, lang, found, counts);
    }
    let owner = &found.owner[..];
    // Rust: for each open `{`, whether it is a match body and whether an arm was seen.
    let mut braces: Vec<(bool, bool)> = Vec::new();
    let mut match_at: Option<u32> = None;
    let mut parens = 0u32;
    if lang == Lang::Go {
        // Go's decisions depend on the token alone: a loop of its own, without the choice
        // of language per token.
        for (t, &f) in tokens.iter().zip(owner) {
            if f != NONE
                && matches!(
                    (t.kind, t.text),
                    (Kind::Keyword, "if" | "for" | "case") | (Kind::Op, "&&" | "||")
                )
            {
                counts[f as usize] += 1;
            }
        }
        return;
    }
    for (i, t) in tokens.iter().enumerate() {
        let decision = match lang {
            Lang::Rust => {
                match (t.kind, t.text) {
                    (Kind::Op, "(" | "[") => parens += 1,
                    (Kind::Op, ")" | "]") => parens = parens.saturating_sub(1),
                    (Kind::Keyword, "match") => match_at = Some(parens),
                    (Kind::Op, "{") => {
                        let is_match = match_at == Some(parens);
                        if is_match {
                            match_at = None;
                        }
                        braces.push((is_match, false));
                    }
                    (Kind::Op, "}") => {
                        braces.pop();
                    }
                    _ => {}
                }
                match (t.kind, t.text) {
                    (Kind::Keyword, "if" | "for" | "while" | "where") => true,
                    (Kind::Op, "&&" | "||" | "?") => true,
                    (Kind::Op, "=>") => match braces.last_mut() {
                        Some((true, seen)) => std::mem::replace(seen, true),
                        _ => false,
                    },
                    // `let … else`: an `else` that does not follow an `if`'s block.
                    (Kind::Keyword, "else") => i > 0 && tokens[i - 1].text != "}",
                    _ => false,
                }
            }
            // Counted above.
            Lang::Go | Lang::Java | Lang::C | Lang::Cpp | Lang::Php | Lang::Ruby => false,
            // lizard reads a template literal as one string: decisions inside `${…}` are
            // not counted (a difference from reading the code, kept for comparability).
            Lang::JavaScript | Lang::TypeScript if t.templated => false,
            Lang::JavaScript | Lang::TypeScript => match (t.kind, t.text) {
                (Kind::Keyword, "if" | "for" | "while" | "catch" | "case") => true,
                (Kind::Op, "&&" | "||" | "??" | "&&=" | "||=" | "??=") => true,
                (Kind::Op, "?") => !optional_marker(tokens, i),
                _ => false,
            },
            Lang::Python => match (t.kind, t.text) {
                (
                    Kind::Keyword,
                    "if" | "elif" | "for" | "while" | "except" | "finally" | "and" | "or",
                ) => true,
                (Kind::Ident, "case") => soft_keyword(tokens, i),
                _ => false,
            },
        };
        if decision {
            let f = owner[i];
            if f != NONE {
                counts[f as usize] += 1;
            }
        }
    }
}

/// JavaScript/TypeScript: a `?` that is not a ternary. TypeScript's optional marker written
/// right after a name (`name?`; lizard's tokenizer reads it the same way), a `?` no
/// expression follows (`{[K in T]?: V}`, `[a?, b?]`), and a conditional type's `?`
/// (`): T extends U ? X : Y {`): types are not decisions.
pub(crate) fn optional_marker(tokens: &[Token<'_>], i: usize) -> bool {
    let t = &tokens[i];
    let after_name = i > 0
        && !t.spaced
        && matches!(
            tokens[i - 1].kind,
            Kind::Ident | Kind::Keyword | Kind::Number
        );
    let no_operand = tokens
        .get(i + 1)
        .is_some_and(|n| n.kind == Kind::Op && matches!(n.text, ":" | "," | ")" | "]"));
    after_name || no_operand || conditional_type(tokens, i)
}

/// TypeScript: true when the `?` at `i` follows `extends` at the same bracket depth within
/// the same clause (`A extends B ? X : Y`); in an expression `extends` only names a class's
/// base, which a `?` after it at that depth cannot follow.
fn conditional_type(tokens: &[Token<'_>], i: usize) -> bool {
    let mut depth = 0u32;
    for t in tokens[i.saturating_sub(48)..i].iter().rev() {
        match (t.kind, t.text) {
            (Kind::Op, ")" | "]" | "}" | ">") => depth += 1,
            (Kind::Op, ">>") => depth += 2,
            (Kind::Op, "(" | "[" | "{" | "<") => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return false,
            },
            (Kind::Keyword, "extends") if depth == 0 => return true,
            (Kind::Op, ";" | "," | "=" | "?" | ":" | "=>" | "&&" | "||" | "??") if depth == 0 => {
                return false
            }
            _ => {}
        }
    }
    false
}

/// Python: `match`/`case` at the start of a line used as a keyword, not as a name
/// (`case = 1`, `match.group()`, `case(x)` are names).
pub(crate) fn soft_keyword(tokens: &[Token<'_>], i: usize) -> bool {
    if tokens[i].indent.is_none() {
        return false;
    }
    let Some(next) = tokens.get(i + 1) else {
        return false;
    };
    if next.kind == Kind::Op {
        match next.text {
            "=" | "." | ":" | "," | "+=" | "-=" | "*=" | "/=" | "%=" | "//=" | "**=" | "&="
            | "|=" | "^=" | "<<=" | ">>=" | ":=" | ")" | "]" | "}" => return false,
            "(" | "[" => {
                // A pattern is followed by the `:` that opens the case, a call is not.
                let close = super::functions::matching(tokens, i + 1);
                return tokens[close + 1..]
                    .iter()
                    .take_while(|t| t.indent.is_none())
                    .any(|t| t.text == ":");
            }
            _ => {}
        }
    }
    true
}
