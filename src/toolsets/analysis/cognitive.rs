//! Cognitive complexity (G. Ann Campbell, SonarSource, "Cognitive Complexity", 2017) for the
//! brace languages, from tokens. Per function, over its whole body (structures in nested
//! functions and closures count for it too, one level deeper, as the paper says):
//!
//! - +1, plus the current nesting: `if`, `switch`/`match`/`select`, `for`, `while`, `loop`,
//!   `do … while` (once), `catch`, the ternary `?:`;
//! - +1 flat: `else if`, `else`, each sequence of like boolean operators (`a && b && c` is
//!   one, `a && b || c` two), `break`/`continue` to a label, `goto`, each direct recursive
//!   call;
//! - nesting +1 inside the bodies of the structures above (except the flat ones' own
//!   increments) and inside nested functions and closures.
//!
//! Python has its own walker (`cognitive_py.rs`): its blocks are indentation.

// Each match arm is one token kind's rule; a nested `if` keeps the rule in one place
// rather than splitting it between a guard and a fallthrough arm.
#![allow(clippy::collapsible_match)]

use std::collections::{HashMap, HashSet};

use super::functions::{matching, Found};
use super::lang::Lang;
use super::lexer::{Kind, Token};

/// The cognitive complexity of `f` and the deepest nesting reached in it.
pub(crate) fn braced(tokens: &[Token<'_>], lang: Lang, list: &[Found], index: usize) -> (u32, u32) {
    let f = &list[index];
    if f.expression {
        return expression(tokens, lang, f);
    }
    let own_name = f.name.rsplit(['.', ' ']).next().unwrap_or("");
    // Braces that open a nesting level, and the closing `}` of `do` bodies.
    let mut nests: HashSet<usize> = HashSet::new();
    let mut do_ends: HashSet<usize> = HashSet::new();
    // Expression-bodied functions nested here: nesting +1 until their last token.
    let mut lambdas: Vec<usize> = Vec::new();
    let mut nested_bodies: HashSet<usize> = HashSet::new();
    let mut expression_bodies: HashMap<usize, usize> = HashMap::new();
    for g in list[index + 1..].iter().take_while(|g| g.first <= f.last) {
        if g.expression {
            expression_bodies.insert(g.body, g.last);
        } else {
            nested_bodies.insert(g.body);
        }
    }
    let mut stack: Vec<bool> = Vec::new();
    let mut nesting = 0u32;
    let mut max_nesting = 0u32;
    let mut score = 0u32;
    // Boolean-operator sequences: the last operator seen at each bracket level.
    let mut bools: Vec<Option<&str>> = vec![None];
    let mut i = f.body;
    while i <= f.last && i < tokens.len() {
        let t = &tokens[i];
        while lambdas.last().is_some_and(|&end| i > end) {
            lambdas.pop();
            nesting -= 1;
        }
        match (t.kind, t.text) {
            (Kind::Op, "{") => {
                let nest = i != f.body
                    && (nests.contains(&i)
                        || nested_bodies.contains(&i)
                        || (lang == Lang::Rust
                            && i > 0
                            && matches!(tokens[i - 1].text, "|" | "||")));
                stack.push(nest);
                if nest {
                    nesting += 1;
                    max_nesting = max_nesting.max(nesting);
                }
                bools.push(None);
            }
            (Kind::Op, "}") => {
                if stack.pop() == Some(true) {
                    nesting -= 1;
                }
                bools.pop();
                if bools.is_empty() {
                    bools.push(None);
                }
            }
            (Kind::Op, "(" | "[") => bools.push(None),
            (Kind::Op, ")" | "]") => {
                bools.pop();
                if bools.is_empty() {
                    bools.push(None);
                }
            }
            (Kind::Op, "&&" | "||") => {
                let last = bools.last_mut().expect("never empty");
                if *last != Some(t.text) {
                    score += 1;
                    *last = Some(t.text);
                }
            }
            (Kind::Op, ";" | "," | "=" | "?" | ":" | "=>") | (Kind::Keyword, _) => {
                *bools.last_mut().expect("never empty") = None;
            }
            _ => {}
        }
        match (t.kind, t.text) {
            (Kind::Keyword, "if") => {
                let else_if = i > 0 && tokens[i - 1].is("else");
                score += if else_if { 1 } else { 1 + nesting };
                if let Some(b) = structure_body(tokens, lang, i) {
                    nests.insert(b);
                }
            }
            (Kind::Keyword, "else") if !tokens.get(i + 1).is_some_and(|n| n.is("if")) => {
                // Rust's `let … else` is not a branch of an `if`.
                if i > 0 && tokens[i - 1].text == "}" {
                    score += 1;
                    if tokens.get(i + 1).is_some_and(|n| n.is("{")) {
                        nests.insert(i + 1);
                    }
                }
            }
            (Kind::Keyword, "while") if i > 0 && do_ends.contains(&(i - 1)) => {}
            (Kind::Keyword, "for" | "while" | "switch" | "catch" | "loop" | "match") => {
                score += 1 + nesting;
                if let Some(b) = structure_body(tokens, lang, i) {
                    nests.insert(b);
                }
            }
            (Kind::Keyword, "select") if lang == Lang::Go => {
                score += 1 + nesting;
                if let Some(b) = structure_body(tokens, lang, i) {
                    nests.insert(b);
                }
            }
            (Kind::Keyword, "do") if lang.is_js() => {
                score += 1 + nesting;
                if tokens.get(i + 1).is_some_and(|n| n.is("{")) {
                    nests.insert(i + 1);
                    do_ends.insert(matching(tokens, i + 1));
                }
            }
            (Kind::Op, "?") if lang.is_js() && !super::cyclomatic::optional_marker(tokens, i) => {
                score += 1 + nesting;
            }
            (Kind::Keyword, "break" | "continue") => {
                if let Some(n) = tokens.get(i + 1) {
                    let labelled = n.kind == Kind::Ident
                        && (lang != Lang::Rust || n.text.starts_with('\''))
                        && n.line == t.line;
                    if labelled {
                        score += 1;
                    }
                }
            }
            (Kind::Keyword, "goto") => score += 1,
            (Kind::Ident, name) if name == own_name && i > f.body => {
                if recursive_call(tokens, i) {
                    score += 1;
                }
            }
            _ => {}
        }
        if let Some(&last) = expression_bodies.get(&i) {
            lambdas.push(last);
            nesting += 1;
            max_nesting = max_nesting.max(nesting);
        }
        i += 1;
    }
    (score, max_nesting)
}

/// An expression-bodied arrow function: only its booleans, ternaries and recursion.
fn expression(tokens: &[Token<'_>], lang: Lang, f: &Found) -> (u32, u32) {
    let mut score = 0;
    let mut last: Option<&str> = None;
    for i in f.body..=f.last.min(tokens.len() - 1) {
        let t = &tokens[i];
        match (t.kind, t.text) {
            (Kind::Op, "&&" | "||") => {
                if last != Some(t.text) {
                    score += 1;
                    last = Some(t.text);
                }
            }
            (Kind::Op, "?") if !super::cyclomatic::optional_marker(tokens, i) => {
                score += 1;
                last = None;
            }
            (Kind::Op, "(" | ")" | ",") => last = None,
            _ => {}
        }
    }
    let _ = lang;
    (score, 0)
}

/// The `{` that opens the body of the structure whose keyword is at `at`: for
/// JavaScript/TypeScript after its parenthesized head (none for a single-statement body);
/// for Rust and Go the first `{` outside brackets.
fn structure_body(tokens: &[Token<'_>], lang: Lang, at: usize) -> Option<usize> {
    let mut i = at + 1;
    if lang.is_js() {
        if tokens.get(i).is_some_and(|t| t.is("(")) {
            i = matching(tokens, i) + 1;
        }
        return tokens.get(i).filter(|t| t.is("{")).map(|_| i);
    }
    while let Some(t) = tokens.get(i) {
        if t.kind == Kind::Op {
            match t.text {
                "{" => return Some(i),
                "(" | "[" => i = matching(tokens, i),
                "}" | ";" if lang == Lang::Rust => return None,
                "}" => return None,
                _ => {}
            }
        }
        i += 1;
    }
    None
}

/// True when the name at `i` is called directly: `name(`, `self.name(`, `this.name(`,
/// `Self::name(`.
fn recursive_call(tokens: &[Token<'_>], i: usize) -> bool {
    if !tokens.get(i + 1).is_some_and(|t| t.is("(")) {
        return false;
    }
    match i.checked_sub(1).map(|p| &tokens[p]) {
        Some(p) if p.is(".") || p.is("::") => {
            i >= 2 && matches!(tokens[i - 2].text, "self" | "this" | "Self")
        }
        Some(p) if p.is("fn") || p.is("func") || p.is("function") => false,
        _ => true,
    }
}
