//! Where PHP functions start and end, as lizard reads them: `function name(…) {` at file
//! scope, in a class, trait, interface or enum body, or in a block outside any function
//! (`if (!function_exists('f')) { function f() {…} }`), and closures outside any function
//! (named after the variable they are assigned to, as lizard names them, or
//! `(anonymous)`). Inside a function nothing else is a function: its closures, arrow
//! functions (`fn($x) => …`) and anonymous classes belong to it. An abstract or interface
//! method (`;` instead of a body) is not a function.

use super::{matching, op, Found, NONE};
use crate::analysis::lexer::{Kind, Token};

/// The functions of a PHP file.
pub(super) fn php(tokens: &[Token<'_>]) -> Vec<Found> {
    let mut out: Vec<Found> = Vec::new();
    // For each open `{`: whether it is a function's body.
    let mut bodies: Vec<bool> = Vec::new();
    let mut inside = 0usize;
    let mut open: Vec<usize> = Vec::new();
    let mut closer = vec![0u32; tokens.len()];
    let mut pending: Option<usize> = None;
    for i in 0..tokens.len() {
        let t = &tokens[i];
        if t.kind == Kind::Op {
            match t.text {
                "{" => {
                    let body = pending == Some(i);
                    if body {
                        pending = None;
                        inside += 1;
                    }
                    bodies.push(body);
                    open.push(i);
                }
                "}" => {
                    if bodies.pop() == Some(true) {
                        inside -= 1;
                    }
                    if let Some(o) = open.pop() {
                        closer[o] = i as u32;
                    }
                }
                "(" | "[" => open.push(i),
                ")" | "]" => {
                    if let Some(o) = open.pop() {
                        closer[o] = i as u32;
                    }
                }
                _ => {}
            }
            continue;
        }
        if inside > 0 || pending.is_some() || !t.is("function") {
            continue;
        }
        if let Some((name, first, body)) = head(tokens, i) {
            pending = Some(body);
            out.push(Found {
                name,
                start_line: tokens[first].line,
                end_line: 0,
                first,
                last: NONE as usize,
                body,
                parent: None,
                expression: false,
            });
        }
    }
    for f in &mut out {
        f.last = match closer[f.body] {
            0 => tokens.len().saturating_sub(1),
            close => close as usize,
        };
        f.end_line = tokens[f.last].line;
    }
    out
}

/// `function [&]name(…) [: T] {` or a closure `function [&](…) [use (…)] [: T] {`,
/// with `function` at `i`: the name, the first token and the body's `{`.
fn head(tokens: &[Token<'_>], i: usize) -> Option<(String, usize, usize)> {
    let mut j = i + 1;
    if op(tokens, j, "&") {
        j += 1;
    }
    let named = tokens
        .get(j)
        .is_some_and(|t| matches!(t.kind, Kind::Ident | Kind::Keyword))
        && op(tokens, j + 1, "(");
    let (name, first, open) = if named {
        (tokens[j].text.to_string(), j, j + 1)
    } else if op(tokens, j, "(") {
        (assigned(tokens, i), i, j)
    } else {
        return None;
    };
    let mut k = matching(tokens, open) + 1;
    if tokens.get(k).is_some_and(|t| t.is("use")) && op(tokens, k + 1, "(") {
        k = matching(tokens, k + 1) + 1;
    }
    if op(tokens, k, ":") {
        // A return type: names, `?`, `|`, `&`, `\`, `static`, `(…)` of DNF types.
        k += 1;
        while let Some(t) = tokens.get(k) {
            match (t.kind, t.text) {
                (Kind::Op, "{" | ";" | "=>") => break,
                (Kind::Op, "(") => k = matching(tokens, k),
                (Kind::Ident | Kind::Keyword, _) | (Kind::Op, "?" | "|" | "&" | "\\") => {}
                _ => return None,
            }
            k += 1;
        }
    }
    op(tokens, k, "{").then_some((name, first, k))
}

/// A closure's name: the variable or property it is assigned to (`$f = function`,
/// `static $f = static function`), else `(anonymous)`.
fn assigned(tokens: &[Token<'_>], function: usize) -> String {
    let mut j = function;
    if j > 0 && tokens[j - 1].is("static") {
        j -= 1;
    }
    if j >= 2 && tokens[j - 1].is("=") && tokens[j - 2].kind == Kind::Ident {
        return tokens[j - 2].text.to_string();
    }
    "(anonymous)".to_string()
}
