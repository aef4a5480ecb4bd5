//! Where C, C++ and Java functions start and end. As lizard reads them, so the numbers can
//! be compared: a function is a name (C++: qualified `A<T>::f`, `operator==`, `~A`) with a
//! parameter list and a body, found where declarations are (file scope, namespaces, class,
//! struct, interface and enum bodies, `extern "C" {…}`), never inside a function: C++
//! lambdas and local classes belong to the function around them, and so do Java lambdas.
//! Java's anonymous classes (`new T() {…}`) and local classes are declarations again, so
//! their methods are functions. Between the parameters and the body may come what C, C++
//! and Java put there: `const`, `noexcept(…)`, `override`, `-> T`, an initializer list
//! (`: a(x), b{y}`), `[[attributes]]`, one macro (`f() MAYBE_UNUSED {`), old-style C
//! parameter declarations, `throws E`. A declaration without a body (`;`, `= 0`,
//! `= default`) is not a function.

use super::{matching, op, Found, NONE};
use crate::analysis::lang::Lang;
use crate::analysis::lexer::{Kind, Token};

/// What an open `{` is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Scope {
    /// Where declarations are: functions are found inside.
    Declarations,
    /// A function's body, or any other block, initializer or lambda.
    Code,
}

/// The functions of a C, C++ or Java file.
pub(super) fn c_family(tokens: &[Token<'_>], lang: Lang) -> Vec<Found> {
    let java = lang == Lang::Java;
    let mut out: Vec<Found> = Vec::new();
    let mut scopes: Vec<Scope> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    let mut closer = vec![0u32; tokens.len()];
    let mut statement = 0usize;
    let mut last_paren = 0usize;
    let mut pending: Option<usize> = None;
    for i in 0..tokens.len() {
        let t = &tokens[i];
        if t.kind == Kind::Op {
            match t.text {
                "{" => {
                    let scope = if pending == Some(i) {
                        pending = None;
                        Scope::Code
                    } else if (java || !scopes.contains(&Scope::Code))
                        && declares(tokens, statement, i, java, last_paren)
                        || (java
                            && scopes.last() != Some(&Scope::Code)
                            && enum_constant(tokens, statement, i))
                    {
                        Scope::Declarations
                    } else {
                        Scope::Code
                    };
                    scopes.push(scope);
                    open.push(i);
                    statement = i + 1;
                    continue;
                }
                "}" => {
                    scopes.pop();
                    if let Some(o) = open.pop() {
                        closer[o] = i as u32;
                    }
                    statement = i + 1;
                    continue;
                }
                "(" | "[" => open.push(i),
                ")" | "]" => {
                    if let Some(o) = open.pop() {
                        closer[o] = i as u32;
                        last_paren = o;
                    }
                }
                ";" => statement = i + 1,
                _ => {}
            }
        }
        if pending.is_some() || scopes.last() == Some(&Scope::Code) {
            continue;
        }
        if let Some((name, first, body)) = head(tokens, i, lang) {
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

/// True when the `{` at `brace` opens declarations: a namespace, class, struct, union or
/// enum body or `extern "C" {` (Java: a class, interface, enum or record body, or an
/// anonymous class's `new T(…) {`). `statement` is where the statement before it starts.
fn declares(
    tokens: &[Token<'_>],
    statement: usize,
    brace: usize,
    java: bool,
    paren: usize,
) -> bool {
    let head = &tokens[statement.min(brace)..brace];
    if java {
        if brace > 0 && tokens[brace - 1].is(")") && after_new(tokens, paren) {
            return true;
        }
        return head.iter().any(|t| {
            matches!(
                (t.kind, t.text),
                (Kind::Keyword, "class" | "interface" | "enum") | (Kind::Ident, "record")
            )
        });
    }
    // `struct s x = {` is an initializer; `template <typename = void> struct X {` is not.
    head.iter()
        .rposition(|t| {
            t.kind == Kind::Keyword
                && matches!(
                    t.text,
                    "class" | "struct" | "union" | "enum" | "namespace" | "extern"
                )
        })
        .is_some_and(|k| !head[k..].iter().any(|t| t.is("=")))
}

/// Java: true when the `{` at `brace` opens an enum constant's class body (`A {`,
/// `B(1) {`, `, C {`), where a declaration is expected.
fn enum_constant(tokens: &[Token<'_>], statement: usize, brace: usize) -> bool {
    let mut j = statement.min(brace);
    while j < brace && (tokens[j].is(",") || tokens[j].is("@")) {
        // An annotation on the constant: `@Deprecated A {`.
        j += if tokens[j].is("@") { 2 } else { 1 };
    }
    if j >= brace || tokens[j].kind != Kind::Ident {
        return false;
    }
    j += 1;
    if op(tokens, j, "(") {
        j = matching(tokens, j) + 1;
    }
    j == brace
}

/// Java: true when the `(` at `paren` follows `new Type` (`new a.B<C>(…)`, `outer.new B()`).
fn after_new(tokens: &[Token<'_>], paren: usize) -> bool {
    let mut j = paren;
    let mut depth = 0i32;
    while j > 0 && paren - j < 64 {
        j -= 1;
        let t = &tokens[j];
        match (t.kind, t.text) {
            (Kind::Op, ">") => depth += 1,
            (Kind::Op, ">>") => depth += 2,
            (Kind::Op, "<") => depth -= 1,
            (Kind::Keyword, "new") => return depth == 0,
            // `outer.new Inner()`: after a `.`, `new` is lexed as a member's name.
            (Kind::Ident, "new") if j > 0 && tokens[j - 1].is(".") => return depth == 0,
            (Kind::Ident, _) | (Kind::Op, "." | "," | "?") => {}
            (Kind::Keyword, "extends" | "super") if depth > 0 => {}
            _ if depth > 0 => {}
            _ => return false,
        }
    }
    false
}

/// A function whose name starts at `i`: its name, first token and body `{`.
fn head(tokens: &[Token<'_>], i: usize, lang: Lang) -> Option<(String, usize, usize)> {
    let t = &tokens[i];
    let java = lang == Lang::Java;
    let (mut name, mut first, open) = match t.kind {
        Kind::Ident => {
            let mut open = i + 1;
            if !java && op(tokens, open, "<") && !op(tokens, i.wrapping_sub(1), "~") {
                // A specialization's arguments: `f<int>(…)`.
                open = angle_end(tokens, open)? + 1;
            }
            if !op(tokens, open, "(") {
                return None;
            }
            let before = i.checked_sub(1).map(|p| &tokens[p]);
            if before.is_some_and(|p| p.is(".") || p.is("->") || p.is("new")) {
                return None;
            }
            if java && before.is_some_and(|p| p.kind == Kind::Ident && p.text == "record") {
                return None;
            }
            let name: String = tokens[i..open].iter().map(|t| t.text).collect();
            // `~Name`: a destructor.
            if before.is_some_and(|p| p.is("~")) {
                (["~", name.as_str()].concat(), i - 1, open)
            } else {
                (name, i, open)
            }
        }
        Kind::Keyword if t.text == "operator" && lang == Lang::Cpp => {
            // `operator==`, `operator()`, `operator new[]`, `operator bool`.
            let mut open = i + 1;
            if op(tokens, open, "(") && op(tokens, open + 1, ")") {
                open += 2;
            }
            while tokens.get(open).is_some_and(|t| !t.is("(") && !t.is(";")) && open - i < 6 {
                open += 1;
            }
            if !op(tokens, open, "(") {
                return None;
            }
            let symbol: String = tokens[i + 1..open].iter().map(|t| t.text).collect();
            let spaced = tokens[i + 1].kind != Kind::Op;
            let name = if spaced {
                format!("operator {symbol}")
            } else {
                format!("operator{symbol}")
            };
            (name, i, open)
        }
        _ => return None,
    };
    if !java {
        // A qualified name: `A::f`, `ns::A<T>::~A`, `A::operator=`.
        while first >= 2 && tokens[first - 1].is("::") {
            let mut q = first - 2;
            if tokens[q].is(">") {
                q = angle_start(tokens, q)?.checked_sub(1)?;
            }
            if tokens[q].kind != Kind::Ident {
                break;
            }
            let qualifier: String = tokens[q..first].iter().map(|t| t.text).collect();
            name = qualifier + &name;
            first = q;
        }
    }
    let body = tail(tokens, matching(tokens, open) + 1, lang)?;
    Some((name, first, body))
}

/// What a parameter list may be followed by before the body (see the module's comment):
/// the index of the body's `{`, or `None` for a declaration, a call or anything else.
fn tail(tokens: &[Token<'_>], from: usize, lang: Lang) -> Option<usize> {
    let java = lang == Lang::Java;
    let mut j = from;
    while j < from + 512 {
        let t = tokens.get(j)?;
        let next_is = |s: &str| op(tokens, j + 1, s);
        match (t.kind, t.text) {
            (Kind::Op, "{") => return Some(j),
            (Kind::Keyword, directive) if directive.starts_with('#') => j += 1,
            (Kind::Op, "[") if next_is("[") || java => j = matching(tokens, j) + 1,
            (Kind::Op, "&" | "&&") if !java => j += 1,
            (Kind::Op, "->") if !java => j = until_body(tokens, j + 1)?,
            (Kind::Op, ":") if !java => j = initializers(tokens, j + 1)?,
            (Kind::Keyword, "throws") if java => j = until_body(tokens, j + 1)?,
            (Kind::Keyword, "requires") => j = until_body(tokens, j + 1)?,
            (Kind::Keyword | Kind::Ident, word) if suffix(word) => {
                j += 1;
                if op(tokens, j, "(") && takes_arguments(word) {
                    j = matching(tokens, j) + 1;
                }
            }
            (Kind::Keyword | Kind::Ident, _) if !java => {
                // One macro before the body, or old-style parameter declarations.
                if next_is("{") {
                    return Some(j + 1);
                }
                j = declaration_end(tokens, j)? + 1;
                if !tokens
                    .get(j)
                    .is_some_and(|t| t.is("{") || t.kind != Kind::Op)
                {
                    return None;
                }
            }
            _ => return None,
        }
    }
    None
}

/// Words that may follow a parameter list.
fn suffix(word: &str) -> bool {
    matches!(
        word,
        "const"
            | "volatile"
            | "override"
            | "final"
            | "mutable"
            | "noexcept"
            | "throw"
            | "try"
            | "__attribute__"
            | "__declspec"
            | "alignas"
    )
}

/// Suffix words that take a parenthesized argument.
fn takes_arguments(word: &str) -> bool {
    matches!(
        word,
        "noexcept" | "throw" | "__attribute__" | "__declspec" | "alignas"
    )
}

/// An old-style C parameter declaration from `from` (`char *s;`, `int a[];`): its `;`.
fn declaration_end(tokens: &[Token<'_>], from: usize) -> Option<usize> {
    let mut j = from;
    while let Some(t) = tokens.get(j) {
        match (t.kind, t.text) {
            (Kind::Op, ";") => return Some(j),
            (Kind::Op, "*" | "," | "&") | (Kind::Ident | Kind::Keyword | Kind::Number, _) => {}
            (Kind::Op, "[") => j = matching(tokens, j),
            _ => return None,
        }
        j += 1;
        if j - from > 64 {
            return None;
        }
    }
    None
}

/// From `from`, the `{` that opens the body after a trailing return type, a `requires`
/// clause or a `throws` list, skipping brackets; `None` at a `;` or `=` first.
fn until_body(tokens: &[Token<'_>], from: usize) -> Option<usize> {
    let mut j = from;
    while let Some(t) = tokens.get(j) {
        if t.kind == Kind::Op {
            match t.text {
                "{" => return Some(j),
                "(" | "[" => j = matching(tokens, j),
                ";" | "=" | "}" | ")" => return None,
                _ => {}
            }
        }
        j += 1;
        if j - from > 256 {
            return None;
        }
    }
    None
}

/// A constructor's initializer list from `from` (after its `:`): `a(x), B<T>{y}, c(z)…`,
/// up to the body's `{`.
fn initializers(tokens: &[Token<'_>], from: usize) -> Option<usize> {
    let mut j = from;
    loop {
        // The member or base: a name, maybe qualified or with template arguments.
        while tokens
            .get(j)
            .is_some_and(|t| t.kind == Kind::Keyword && t.text.starts_with('#'))
        {
            j += 1;
        }
        let start = j;
        while let Some(t) = tokens.get(j) {
            match (t.kind, t.text) {
                (Kind::Ident, _) | (Kind::Op, "::") => j += 1,
                (Kind::Op, "<") => j = angle_end(tokens, j)? + 1,
                _ => break,
            }
        }
        if j == start || !(op(tokens, j, "(") || op(tokens, j, "{")) {
            return None;
        }
        j = matching(tokens, j) + 1;
        if op(tokens, j, "...") {
            j += 1;
        }
        while tokens
            .get(j)
            .is_some_and(|t| t.kind == Kind::Keyword && t.text.starts_with('#'))
        {
            j += 1;
        }
        match tokens.get(j) {
            Some(t) if t.is(",") => j += 1,
            Some(t) if t.is("{") => return Some(j),
            _ => return None,
        }
    }
}

/// The `>` closing the `<` at `open` (template arguments), or `None` at a `;`, `{` or
/// after 128 tokens (a `<` that compares).
fn angle_end(tokens: &[Token<'_>], open: usize) -> Option<usize> {
    let mut depth = 0i32;
    let mut j = open;
    while let Some(t) = tokens.get(j) {
        if j - open > 128 {
            return None;
        }
        match t.text {
            "<" => depth += 1,
            ">" => depth -= 1,
            ">>" => depth -= 2,
            "(" | "[" if t.kind == Kind::Op => j = matching(tokens, j),
            ";" | "{" | "}" | ")" if t.kind == Kind::Op => return None,
            _ => {}
        }
        if depth <= 0 {
            return Some(j);
        }
        j += 1;
    }
    None
}

/// The `<` that the `>` at `close` closes, walking back.
fn angle_start(tokens: &[Token<'_>], close: usize) -> Option<usize> {
    let mut depth = 0i32;
    let mut j = close;
    loop {
        match tokens[j].text {
            ">" => depth += 1,
            ">>" => depth += 2,
            "<" => depth -= 1,
            ";" | "{" | "}" => return None,
            _ => {}
        }
        if depth <= 0 {
            return Some(j);
        }
        if close - j > 128 {
            return None;
        }
        j = j.checked_sub(1)?;
    }
}
