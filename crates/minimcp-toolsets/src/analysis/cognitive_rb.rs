//! Cognitive complexity for Ruby, whose blocks end with `end`. The white paper's rules in
//! Ruby's words:
//!
//! - +1 plus the nesting: `if`, `unless`, `while`, `until`, `for`, `case`, `rescue`, the
//!   ternary `?`; also as modifiers (`x if y`, `x rescue y`), which nest nothing;
//! - +1 flat: `elsif`, the `else` of an `if` or `unless`, each sequence of like boolean
//!   operators (`&&`, `||`, `and`, `or`), each direct recursive call `name(…)`;
//! - no increment: `begin`, `ensure`, `when`, `then`, the `else` of a `case` or `begin`;
//! - nesting +1 inside the bodies of the structures above and of blocks (`do … end`,
//!   `{ |x| … }`, lambdas), which are closures.

use super::functions::rb::starts_statement;
use super::functions::Found;
use super::lexer::{Kind, Token};

/// An open block: its keyword (`{` for braces) and whether it nests its body.
struct Open<'s> {
    word: &'s str,
    nests: bool,
}

/// Opens a block, one level deeper when it nests its body.
fn push<'s>(
    open: &mut Vec<Open<'s>>,
    nesting: &mut u32,
    max: &mut u32,
    word: &'s str,
    nests: bool,
) {
    if nests {
        *nesting += 1;
        *max = (*max).max(*nesting);
    }
    open.push(Open { word, nests });
}

/// The cognitive complexity of `f` (a `def`) and the deepest nesting reached in it.
pub(crate) fn ruby(tokens: &[Token<'_>], f: &Found) -> (u32, u32) {
    let own_name = f.name.rsplit('.').next().unwrap_or("");
    let last = f.last.min(tokens.len().saturating_sub(1));
    let mut open: Vec<Open<'_>> = Vec::new();
    let (mut score, mut max_nesting, mut nesting) = (0u32, 0u32, 0u32);
    let mut looping = false;
    // The last boolean operator of the current expression, per bracket level.
    let mut booleans: Vec<Option<&str>> = vec![None];
    for i in f.body..=last {
        let t = &tokens[i];
        let prev = i.checked_sub(1).map(|p| &tokens[p]);
        if prev.is_some_and(|p| p.line < t.line) {
            // A new line is a new statement (unless the last one ended in an operator).
            if prev.is_some_and(|p| p.kind != Kind::Op || matches!(p.text, ")" | "]" | "}")) {
                looping = false;
                if let Some(b) = booleans.last_mut() {
                    *b = None;
                }
            }
        }
        match (t.kind, t.text) {
            (Kind::Keyword, word @ ("if" | "unless" | "while" | "until")) => {
                score += 1 + nesting;
                if starts_statement(tokens, i) {
                    looping = matches!(word, "while" | "until");
                    push(&mut open, &mut nesting, &mut max_nesting, word, true);
                }
            }
            (Kind::Keyword, word @ ("for" | "case")) => {
                score += 1 + nesting;
                looping = word == "for";
                push(&mut open, &mut nesting, &mut max_nesting, word, true);
            }
            (Kind::Keyword, "rescue") => score += 1 + nesting,
            (Kind::Keyword, word @ ("begin" | "class" | "module" | "def")) => push(
                &mut open,
                &mut nesting,
                &mut max_nesting,
                word,
                word == "def",
            ),
            (Kind::Keyword, "do") => {
                // A loop's `do` (`while x do`) opens nothing: the loop's `end` closes both.
                let block = !std::mem::take(&mut looping);
                if block {
                    push(&mut open, &mut nesting, &mut max_nesting, "do", true);
                }
            }
            (Kind::Keyword, "elsif") => score += 1,
            (Kind::Keyword, "else") => {
                score += u32::from(
                    open.last()
                        .is_some_and(|o| matches!(o.word, "if" | "unless")),
                );
            }
            (Kind::Keyword, "end") => {
                let closed = open.pop();
                nesting -= u32::from(closed.is_some_and(|o| o.nests));
            }
            (Kind::Op, "{") => {
                // A block after a call (`x.each { |y| … }`, `-> { … }`), not a hash literal.
                let block = prev.is_some_and(|p| p.kind == Kind::Ident || p.is(")") || p.is("->"));
                push(&mut open, &mut nesting, &mut max_nesting, "{", block);
                booleans.push(None);
            }
            (Kind::Op, "}") => {
                while let Some(o) = open.pop() {
                    if o.nests {
                        nesting -= 1;
                    }
                    if o.word == "{" {
                        break;
                    }
                }
                booleans.pop();
                if booleans.is_empty() {
                    booleans.push(None);
                }
            }
            (Kind::Op, "(" | "[") => booleans.push(None),
            (Kind::Op, ")" | "]") => {
                booleans.pop();
                if booleans.is_empty() {
                    booleans.push(None);
                }
            }
            (Kind::Op, "?") => score += 1 + nesting,
            (Kind::Op, "&&" | "||") | (Kind::Keyword, "and" | "or") => {
                let op = if t.text == "and" {
                    "&&"
                } else if t.text == "or" {
                    "||"
                } else {
                    t.text
                };
                let last = booleans.last_mut().expect("never empty");
                if *last != Some(op) {
                    score += 1;
                    *last = Some(op);
                }
            }
            (Kind::Op, ";" | "," | "=" | ":" | "=>") | (Kind::Keyword, _) => {
                if let Some(b) = booleans.last_mut() {
                    *b = None;
                }
            }
            (Kind::Ident, name) if name == own_name && i > f.body => {
                let call = tokens.get(i + 1).is_some_and(|n| n.is("(") && !n.spaced);
                let member =
                    prev.is_some_and(|p| p.is(".")) && !(i >= 2 && tokens[i - 2].text == "self");
                score += u32::from(call && !member);
            }
            _ => {}
        }
    }
    (score, max_nesting)
}
