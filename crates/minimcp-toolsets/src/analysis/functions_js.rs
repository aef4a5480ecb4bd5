//! Where JavaScript and TypeScript functions start and end: declarations, function
//! expressions, arrow functions, methods and accessors, and TypeScript's type annotations
//! (return types, generic parameters, overload signatures without a body).

use super::{body_brace, ident, matching, op};
use crate::analysis::lexer::{Kind, Token};

/// Words before a method name in a class body or object literal.
const MODIFIERS: &[&str] = &[
    "static",
    "async",
    "get",
    "set",
    "public",
    "private",
    "protected",
    "readonly",
    "override",
    "abstract",
    "*",
    "declare",
];

/// Reserved words that are followed by `(` where they start a statement or expression, so
/// they never name a method there.
const STATEMENT_WORDS: &[&str] = &[
    "if",
    "for",
    "while",
    "switch",
    "catch",
    "with",
    "function",
    "return",
    "typeof",
    "void",
    "await",
    "yield",
    "new",
    "super",
    "import",
    "in",
    "of",
    "instanceof",
    "throw",
    "case",
];

/// JavaScript/TypeScript: `function [name](…) {`, `(…) => …`, `x => …`, and methods
/// `name(…) {` / `name(…): T {` / `[key](…) {` at the start of a class member or object
/// property. `ts`: TypeScript, where `): () => T` is a return type and `if(…): T {` a method.
pub(super) fn js_head(tokens: &[Token<'_>], i: usize, ts: bool) -> Option<(String, usize, usize)> {
    let t = &tokens[i];
    if t.is("function") {
        let mut j = i + 1;
        if op(tokens, j, "*") {
            j += 1;
        }
        let name = match ident(tokens, j) {
            Some(name) => {
                j += 1;
                name.to_string()
            }
            None => assigned_name(tokens, i),
        };
        if op(tokens, j, "<") {
            j = angle_end(tokens, j)? + 1;
        }
        if !op(tokens, j, "(") {
            return None;
        }
        let body = after_params(tokens, matching(tokens, j) + 1, &["=>", "="])?;
        return Some((name, i, body));
    }
    if t.is("=>") {
        // The parameters: `x` or a parenthesized list (possibly with a return type).
        let first = arrow_params(tokens, i)?;
        // JavaScript has no types: `c ? f() : () => x` is an arrow after a ternary's `:`.
        if ts && function_type(tokens, first) {
            return None;
        }
        let mut start = first;
        if start > 0 && tokens[start - 1].is("async") {
            start -= 1;
        }
        let name = assigned_name(tokens, start);
        return Some((name, first, i + 1));
    }
    if t.is("[") {
        return computed_member(tokens, i);
    }
    // A member's name: a name, a reserved word other than those that start a statement
    // with `(` (`delete(v) {…}`, ajv's `else()`), a number or a quoted key (`1(a) {…}`).
    // In TypeScript a return type tells a method from a statement: ajv's
    // `if(condition: Code): CodeGen {…}` (`case (x): {` stays a case).
    let named = match t.kind {
        Kind::Ident | Kind::Number => true,
        Kind::Keyword if ts && t.text != "case" && op(tokens, i + 1, "(") => {
            !STATEMENT_WORDS.contains(&t.text) || op(tokens, matching(tokens, i + 1) + 1, ":")
        }
        Kind::Keyword => !STATEMENT_WORDS.contains(&t.text),
        Kind::Str => t.text.starts_with(['"', '\'']),
        Kind::Op => false,
    };
    if !named {
        return None;
    }
    // A generic method's type parameters: `name<T = unknown>(…)`.
    let mut open = i + 1;
    if op(tokens, open, "<") {
        open = angle_end(tokens, open)? + 1;
    }
    if !op(tokens, open, "(") {
        return None;
    }
    if !member_start(tokens, i) {
        return None;
    }
    let body = method_body(tokens, open)?;
    let name = match tokens[i.saturating_sub(1)].text {
        accessor @ ("get" | "set") if i > 0 => format!("{accessor} {}", t.text),
        _ => t.text.trim_matches(['"', '\'']).to_string(),
    };
    // A method named `if` starts at its parameters: the name is not a decision of its own.
    let first = if STATEMENT_WORDS.contains(&t.text) {
        open
    } else {
        i
    };
    Some((name, first, body))
}

/// True when the member name at `i` (after any modifiers) starts a class member or object
/// property: after `{ } ; ,`, or on a new line: without semicolons a class member follows
/// the previous one's last token (`readonly a: true` ⏎ `constructor() {}`), and a call
/// followed by a block on one statement is not valid code.
fn member_start(tokens: &[Token<'_>], i: usize) -> bool {
    let mut k = i;
    while k > 0 && MODIFIERS.contains(&tokens[k - 1].text) && tokens[k - 1].kind != Kind::Str {
        k -= 1;
    }
    k == 0 || {
        let p = &tokens[k - 1];
        (p.kind == Kind::Op && matches!(p.text, "{" | "}" | ";" | ","))
            || (p.line < tokens[k].line && !p.is(".") && !p.is("?."))
    }
}

/// The body `{` of a method whose parameters open at `open`: right after the `)` or after
/// a return type.
fn method_body(tokens: &[Token<'_>], open: usize) -> Option<usize> {
    let close = matching(tokens, open);
    match tokens.get(close + 1) {
        Some(n) if n.is("{") => Some(close + 1),
        Some(n) if n.is(":") => return_type_end(tokens, close + 2),
        _ => None,
    }
}

/// A method with a computed name, `[Symbol.iterator]() {…}` or `get [key]() {…}`, whose
/// `[` is at `i`. The key is an expression evaluated by the code around the class or
/// object (its decisions count there), so the function starts at its parameters.
fn computed_member(tokens: &[Token<'_>], i: usize) -> Option<(String, usize, usize)> {
    let close = matching(tokens, i);
    if !op(tokens, close + 1, "(") || !member_start(tokens, i) {
        return None;
    }
    let body = method_body(tokens, close + 1)?;
    let key: String = tokens[i..=close].iter().map(|t| t.text).collect();
    let name = if key.chars().count() <= 64 {
        key
    } else {
        "[…]".to_string()
    };
    Some((name, close + 1, body))
}

/// The body `{` after a function's `)` at `from`: through a TypeScript return type when
/// `:` follows, else as [`body_brace`].
fn after_params(tokens: &[Token<'_>], from: usize, stop: &[&str]) -> Option<usize> {
    if op(tokens, from, ":") {
        return return_type_end(tokens, from + 1);
    }
    body_brace(tokens, from, stop)
}

/// The body `{` after a TypeScript return type starting at `from`, or `None` when the type
/// ends without a body (an overload signature, an interface member). A `{` where a type is
/// expected (after `:`, `&`, `|`, `<`, `,`, `=>`, `(`) is an object type, skipped whole;
/// after a complete type it opens the body. A new line starting a new statement or member
/// after a complete type ends a signature that has no `;` (`f(a: string): void` ⏎
/// `f(a: any) {…}`).
fn return_type_end(tokens: &[Token<'_>], from: usize) -> Option<usize> {
    let mut i = from;
    while let Some(t) = tokens.get(i) {
        let prev = &tokens[i - 1];
        let complete =
            prev.kind != Kind::Op || matches!(prev.text, ")" | "]" | "}" | ">" | ">>" | ">>>");
        if t.kind == Kind::Op {
            match t.text {
                "{" if complete && i > from => return Some(i),
                "{" | "(" | "[" => i = matching(tokens, i),
                "<" => i = angle_end(tokens, i)?,
                ";" | "}" | ")" | "]" | "=" | "," => return None,
                _ => {}
            }
        } else if (complete && t.line > prev.line && i > from)
            || (t.kind == Kind::Keyword
                && matches!(
                    t.text,
                    "export" | "function" | "const" | "let" | "var" | "class" | "return"
                ))
        {
            return None;
        }
        i += 1;
    }
    None
}

/// TypeScript: true when the arrow whose parameters start at `first` is a function type,
/// not a function: a parameter's annotation (`(work: () => void)`, the `:` inside a
/// parenthesized list), a return type (`): (a: A) => B {`) or a type alias
/// (`type F = (a: A) => B`).
fn function_type(tokens: &[Token<'_>], first: usize) -> bool {
    if first < 2 {
        return false;
    }
    if tokens[first - 1].is("=") {
        let mut j = first - 2;
        if tokens[j].is(">") {
            // `type F<T> = …`: back over the type parameters.
            let mut depth = 0;
            while j > 0 {
                match tokens[j].text {
                    ">" => depth += 1,
                    "<" => depth -= 1,
                    _ => {}
                }
                if depth == 0 {
                    break;
                }
                j -= 1;
            }
            j = j.saturating_sub(1);
        }
        return j > 0 && tokens[j].kind == Kind::Ident && tokens[j - 1].text == "type";
    }
    if !tokens[first - 1].is(":") {
        return false;
    }
    // A return type: `m(): (data: T) => string {…}`.
    if tokens[first - 2].is(")") {
        return true;
    }
    // `name:` or `name?:` right after `(` or `,` (not the `:` of a ternary `c ? a : () => b`).
    let mut n = first - 2;
    if tokens[n].is("?") && n > 0 {
        n -= 1;
    }
    let param = tokens[n].kind == Kind::Ident
        && n > 0
        && (tokens[n - 1].is("(")
            || tokens[n - 1].is(",")
            || MODIFIERS.contains(&tokens[n - 1].text));
    if !param {
        return false;
    }
    // The innermost bracket around the annotation: `(` is a parameter list.
    let mut depth = 0i32;
    let mut j = first - 1;
    while j > 0 && first - j < 4096 {
        j -= 1;
        let t = &tokens[j];
        if t.kind != Kind::Op {
            continue;
        }
        match t.text {
            ")" | "]" | "}" => depth += 1,
            "(" | "[" | "{" if depth > 0 => depth -= 1,
            "(" => return true,
            "[" | "{" => return false,
            _ => {}
        }
    }
    false
}

/// The first token of an arrow function's parameters, given the index of its `=>`.
fn arrow_params(tokens: &[Token<'_>], arrow: usize) -> Option<usize> {
    let before = arrow.checked_sub(1)?;
    let prev = &tokens[before];
    // `x =>`, but not the return type of `(a): T =>`.
    let typed = before >= 2 && tokens[before - 1].is(":") && tokens[before - 2].is(")");
    if prev.kind == Kind::Ident && !typed {
        return Some(before);
    }
    // `(…) =>` or `(…): T =>`: walk back to the `(` that opens the parameters.
    let mut depth = 0i32;
    let mut j = before;
    loop {
        let t = &tokens[j];
        if t.kind == Kind::Op {
            match t.text {
                ")" | "]" | "}" | ">" => depth += 1,
                ">>" => depth += 2,
                ">>>" => depth += 3,
                "(" | "[" | "{" | "<" => {
                    depth -= 1;
                    if depth == 0 && t.text == "(" {
                        // A return type annotation `(…): T`: keep going back if the
                        // token before this `(` group is `:` preceded by `)`.
                        return Some(j);
                    }
                }
                _ => {}
            }
        }
        if depth < 0 {
            return None;
        }
        j = j.checked_sub(1)?;
        if before - j > 4096 {
            return None;
        }
    }
}

/// The end of a `<…>` type-parameter or type-argument list starting at `open`, skipping
/// bracketed parts (`Promise<{ a: B }>`, `Map<K, (v: V) => void>`); `None` at a `;`, an
/// unmatched closing bracket, or after 256 tokens (a `<` that was a comparison).
fn angle_end(tokens: &[Token<'_>], open: usize) -> Option<usize> {
    let mut depth = 0;
    let mut i = open;
    while let Some(t) = tokens.get(i) {
        if i - open > 256 {
            return None;
        }
        match t.text {
            "<" => depth += 1,
            ">" => depth -= 1,
            ">>" => depth -= 2,
            ">>>" => depth -= 3,
            "(" | "{" | "[" if t.kind == Kind::Op => i = matching(tokens, i),
            ";" | ")" | "}" | "]" if t.kind == Kind::Op => return None,
            _ => {}
        }
        if depth <= 0 {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// The name a function expression gets from `name = …`, `name: …` or `name(…`
/// (lizard's convention), else `(anonymous)`.
fn assigned_name(tokens: &[Token<'_>], start: usize) -> String {
    if start >= 2 && tokens[start - 1].is("=") {
        if let Some(name) = annotated_name(tokens, start - 1) {
            return name.to_string();
        }
    }
    if start >= 2 && matches!(tokens[start - 1].text, "=" | ":") {
        let t = &tokens[start - 2];
        if matches!(t.kind, Kind::Ident | Kind::Str) {
            return t.text.trim_matches(|c| c == '"' || c == '\'').to_string();
        }
    }
    "(anonymous)".to_string()
}

/// TypeScript: `name` in `const name: Type = …`, given the `=`; the annotation is read back
/// over balanced brackets to the `:` after a name (so the type is never taken for the name).
fn annotated_name<'s>(tokens: &[Token<'s>], eq: usize) -> Option<&'s str> {
    let mut depth = 0i32;
    let mut j = eq;
    while j > 0 && eq - j < 64 {
        j -= 1;
        let t = &tokens[j];
        if t.kind != Kind::Op {
            continue;
        }
        match t.text {
            ")" | "]" | "}" | ">" => depth += 1,
            ">>" => depth += 2,
            "(" | "[" | "{" | "<" => depth -= 1,
            ":" if depth == 0 => {
                let name = ident(tokens, j.checked_sub(1)?)?;
                let before = j.checked_sub(2).map(|b| &tokens[b]);
                let declared = before.is_none_or(|b| {
                    matches!(
                        b.text,
                        "const"
                            | "let"
                            | "var"
                            | "readonly"
                            | "static"
                            | "private"
                            | "public"
                            | "protected"
                            | "declare"
                            | "export"
                            | "{"
                            | "}"
                            | ";"
                    ) || b.line < tokens[j - 1].line
                });
                return declared.then_some(name);
            }
            ";" | "=" | "=>" if depth == 0 => return None,
            _ => {}
        }
        if depth < 0 {
            return None;
        }
    }
    None
}

/// The last token of an arrow function's expression body starting at `from`: before the
/// first `,`, `;` or unmatched closing bracket at depth 0.
pub(super) fn expression_end(tokens: &[Token<'_>], from: usize) -> usize {
    let mut i = from;
    while i < tokens.len() {
        let t = &tokens[i];
        if t.line > tokens[i - 1].line {
            // lizard ends an expression body with its line (brackets aside); an arrow
            // whose body starts on the next line is empty to it. Kept for comparability.
            return (i - 1).max(from.min(i - 1));
        }
        if t.kind == Kind::Op {
            match t.text {
                "(" | "[" | "{" => {
                    i = matching(tokens, i) + 1;
                    continue;
                }
                ")" | "]" | "}" | "," | ";" => return i.saturating_sub(1).max(from),
                _ => {}
            }
        }
        i += 1;
    }
    tokens.len().saturating_sub(1)
}
