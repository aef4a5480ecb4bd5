//! Finds the functions in a token stream: where each starts and ends, its name, and which
//! tokens belong to it rather than to a function nested inside it.
//!
//! What counts as a function follows lizard, so the per-function numbers can be compared:
//! Rust `fn` items (closures belong to their enclosing function), Go declarations, methods
//! and function literals, JavaScript/TypeScript declarations, function expressions, arrow
//! functions (with a block or an expression body), methods and accessors, and Python `def`s
//! (lambdas belong to their enclosing function). A declaration without a body (a trait
//! method, an interface member, an overload) is not a function. C, C++ and Java
//! (`functions_c.rs`), PHP (`functions_php.rs`) and Ruby (`functions_rb.rs`) have finders of
//! their own.

use super::lang::Lang;
use super::lexer::{Kind, Token};

#[path = "functions_c.rs"]
mod c;
#[path = "functions_js.rs"]
mod js;
#[path = "functions_php.rs"]
mod php;
#[path = "functions_rb.rs"]
pub(crate) mod rb;
use js::{expression_end, js_head};

/// Marks a token that belongs to no function.
pub(crate) const NONE: u32 = u32::MAX;

/// One function found in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    /// The name: bare for brace languages (as lizard reports it), dotted with the
    /// enclosing classes and functions for Python (`Class.method`, `outer.inner`).
    pub(crate) name: String,
    pub(crate) start_line: u32,
    pub(crate) end_line: u32,
    /// Tokens from the head (`fn`, `def`, the name or the parameters) to the end of the body.
    pub(crate) first: usize,
    pub(crate) last: usize,
    /// The token that opens the body (`{`, `=>`, or Python's `:`).
    pub(crate) body: usize,
    /// The function this one is nested in.
    pub(crate) parent: Option<usize>,
    /// True when the body is a single expression (an arrow function without braces).
    pub(crate) expression: bool,
}

/// The functions of a file and, for every token, the index of the innermost function that
/// owns it ([`NONE`] outside functions).
#[derive(Debug, Default)]
pub(crate) struct Functions {
    pub(crate) list: Vec<Found>,
    pub(crate) owner: Vec<u32>,
}

/// Finds the functions in `tokens`.
#[inline(always)]
pub(crate) fn find(tokens: &[Token<'_>], lang: Lang) -> Functions {
    let mut list = match lang {
        Lang::Python => python(tokens),
        Lang::Java | Lang::C | Lang::Cpp => c::c_family(tokens, lang),
        Lang::Php => php::php(tokens),
        Lang::Ruby => rb::ruby(tokens),
        _ => braced(tokens, lang),
    };
    // Parents first: a function starts before the functions nested in it.
    list.sort_by_key(|f| (f.first, std::cmp::Reverse(f.last)));
    let mut owner = vec![NONE; tokens.len()];
    let mut open: Vec<usize> = Vec::new();
    for index in 0..list.len() {
        while open
            .last()
            .is_some_and(|&p| list[p].last < list[index].first)
        {
            open.pop();
        }
        list[index].parent = open.last().copied();
        open.push(index);
    }
    // Outer functions first, so inner ones overwrite their own ranges.
    for (index, f) in list.iter().enumerate() {
        for slot in &mut owner[f.first..=f.last.min(tokens.len().saturating_sub(1))] {
            *slot = index as u32;
        }
    }
    Functions { list, owner }
}

/// The index of the token closing the bracket opened at `open`, or the last token.
pub(crate) fn matching(tokens: &[Token<'_>], open: usize) -> usize {
    let mut depth = 0i32;
    for (i, t) in tokens.iter().enumerate().skip(open) {
        if t.kind != Kind::Op {
            continue;
        }
        match t.text {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => {
                depth -= 1;
                if depth <= 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    tokens.len().saturating_sub(1)
}

fn op(tokens: &[Token<'_>], i: usize, s: &str) -> bool {
    tokens
        .get(i)
        .is_some_and(|t| t.kind == Kind::Op && t.text == s)
}

fn ident<'s>(tokens: &[Token<'s>], i: usize) -> Option<&'s str> {
    tokens
        .get(i)
        .filter(|t| t.kind == Kind::Ident)
        .map(|t| t.text)
}

// ---- Rust, Go, JavaScript, TypeScript -----------------------------------------------------

fn braced(tokens: &[Token<'_>], lang: Lang) -> Vec<Found> {
    let mut out = Vec::new();
    let mut depth = 0u32;
    // The bracket each closing one closes, found in this one pass: what [`matching`] would
    // find for a body's `{`, without walking every body again (once per enclosing function).
    let mut open: Vec<usize> = Vec::new();
    // 0 for "not closed" (no closing bracket is token 0): a zeroed vector is allocated
    // zeroed, where any other value is written token by token.
    let mut closer = vec![0u32; tokens.len()];
    for i in 0..tokens.len() {
        let t = &tokens[i];
        if t.kind == Kind::Op {
            match t.text {
                "{" => {
                    depth += 1;
                    open.push(i);
                }
                "}" => {
                    depth = depth.saturating_sub(1);
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
        }
        let head = match lang {
            Lang::Rust => rust_head(tokens, i),
            Lang::Go => go_head(tokens, i, depth),
            _ => js_head(tokens, i, lang == Lang::TypeScript),
        };
        if let Some((name, first, body)) = head {
            let expression = !op(tokens, body, "{");
            // A `{` body's end is filled in after the pass.
            let last = if expression {
                expression_end(tokens, body)
            } else {
                NONE as usize
            };
            out.push(Found {
                name,
                start_line: tokens[first].line,
                end_line: tokens.get(last).map_or(0, |t| t.line),
                first,
                last,
                body,
                parent: None,
                expression,
            });
        }
    }
    // A bracket never closed runs to the last token, as in `matching`.
    for f in out.iter_mut().filter(|f| !f.expression) {
        f.last = match closer[f.body] {
            0 => tokens.len().saturating_sub(1),
            close => close as usize,
        };
        f.end_line = tokens[f.last].line;
    }
    out
}

/// From `from`, the index of the `{` that opens a body, scanning over balanced brackets;
/// `None` at a `;` (a declaration without a body) or any of `stop` at bracket depth 0.
fn body_brace(tokens: &[Token<'_>], from: usize, stop: &[&str]) -> Option<usize> {
    let mut i = from;
    while i < tokens.len() {
        let t = &tokens[i];
        if t.kind == Kind::Op {
            match t.text {
                "{" => return Some(i),
                "(" | "[" => i = matching(tokens, i),
                ";" | "}" | ")" | "]" => return None,
                s if stop.contains(&s) => return None,
                _ => {}
            }
        }
        i += 1;
    }
    None
}

/// `fn name<…>(…) -> T where … {`
fn rust_head(tokens: &[Token<'_>], i: usize) -> Option<(String, usize, usize)> {
    if !tokens[i].is("fn") {
        return None;
    }
    let name = ident(tokens, i + 1)?;
    // No stop at `=`: it occurs in a signature's generics and bounds (`<Item = T>`).
    let body = body_brace(tokens, i + 2, &[])?;
    Some((name.to_string(), i, body))
}

/// `func name(…) T {`, `func (r T) name(…) T {`, and literals `func(…) T {` (named
/// `(anonymous)`). The body `{` must be on the line where the signature ends (Go's
/// semicolon insertion guarantees it), which tells a literal from a function type.
fn go_head(tokens: &[Token<'_>], i: usize, depth: u32) -> Option<(String, usize, usize)> {
    if !tokens[i].is("func") {
        return None;
    }
    let mut j = i + 1;
    let receiver_end = matching(tokens, j);
    let method = depth == 0
        && op(tokens, j, "(")
        && ident(tokens, receiver_end + 1).is_some()
        && (op(tokens, receiver_end + 2, "(") || op(tokens, receiver_end + 2, "["));
    let name = if method {
        // A method: skip the receiver.
        j = receiver_end + 2;
        tokens[receiver_end + 1].text.to_string()
    } else if let Some(name) = ident(tokens, j) {
        j += 1;
        name.to_string()
    } else {
        "(anonymous)".to_string()
    };
    if op(tokens, j, "[") {
        j = matching(tokens, j) + 1;
    }
    if !op(tokens, j, "(") {
        return None;
    }
    let mut k = matching(tokens, j);
    let mut line = tokens[k].line;
    k += 1;
    while let Some(t) = tokens.get(k) {
        if t.line != line {
            return None;
        }
        match (t.kind, t.text) {
            (Kind::Op, "{") => return Some((name, i, k)),
            // Results over several lines (`) (` ⏎ `err error,` ⏎ `) {`): the body's `{`
            // follows the line of their `)`.
            (Kind::Op, "(" | "[") => {
                k = matching(tokens, k);
                line = tokens[k].line;
            }
            (Kind::Keyword, "interface" | "struct") if op(tokens, k + 1, "{") => {
                k = matching(tokens, k + 1);
            }
            (Kind::Op, ")" | "," | ";" | "=" | "}" | "]") => return None,
            _ => {}
        }
        k += 1;
    }
    None
}

// ---- Python -------------------------------------------------------------------------------

fn python(tokens: &[Token<'_>]) -> Vec<Found> {
    let mut out: Vec<Found> = Vec::new();
    // Open `class`/`def` scopes: (indent, name, index into `out` for functions).
    let mut scopes: Vec<(u32, String, Option<usize>)> = Vec::new();
    for i in 0..tokens.len() {
        let t = &tokens[i];
        let Some(indent) = t.indent else { continue };
        while let Some((scope_indent, _, func)) = scopes.last() {
            if *scope_indent < indent {
                break;
            }
            if let Some(f) = func {
                close_python(&mut out[*f], tokens, i);
            }
            scopes.pop();
        }
        let mut j = i;
        if tokens[j].is("async") {
            j += 1;
        }
        let (is_def, is_class) = (tokens[j].is("def"), tokens[j].is("class"));
        if !is_def && !is_class {
            continue;
        }
        let Some(name) = ident(tokens, j + 1) else {
            continue;
        };
        let qualified = match scopes.last() {
            // Not `format!`: its machinery cost more than the rest of finding the function.
            Some((_, outer, _)) => [outer.as_str(), ".", name].concat(),
            None => name.to_string(),
        };
        let func = if is_def {
            let body = python_colon(tokens, j + 2);
            out.push(Found {
                name: qualified.clone(),
                start_line: t.line,
                end_line: t.line,
                first: i,
                last: i,
                body,
                parent: None,
                expression: false,
            });
            Some(out.len() - 1)
        } else {
            None
        };
        scopes.push((indent, qualified, func));
    }
    for (_, _, func) in scopes {
        if let Some(f) = func {
            close_python(&mut out[f], tokens, tokens.len());
        }
    }
    out
}

/// The `:` ending a `def` header, skipping the bracketed parameters and annotations.
fn python_colon(tokens: &[Token<'_>], from: usize) -> usize {
    let mut i = from;
    while i < tokens.len() {
        let t = &tokens[i];
        if t.kind == Kind::Op {
            match t.text {
                "(" | "[" | "{" => i = matching(tokens, i),
                ":" => return i,
                _ => {}
            }
        }
        i += 1;
    }
    tokens.len().saturating_sub(1)
}

/// Ends a Python function just before token `end` (the next line at its indentation or less).
fn close_python(f: &mut Found, tokens: &[Token<'_>], end: usize) {
    f.last = end.saturating_sub(1).max(f.first);
    f.end_line = tokens[f.last].line;
}

#[cfg(test)]
#[path = "functions_tests.rs"]
mod tests;
