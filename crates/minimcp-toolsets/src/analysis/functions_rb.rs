//! Where Ruby methods start and end: `def name … end`, `def self.name`, `def obj.name`,
//! operator methods (`def ==(other)`, `def []=(k, v)`), setters (`def name=(v)`) and
//! endless methods (`def name(a) = expr`, to the end of the line). A method ends at the
//! `end` that matches its `def`, counting the keywords that open a block of their own:
//! `class`, `module`, `def`, `begin`, `case`, `do`, `for`, and `if`, `unless`, `while`,
//! `until` where they start a statement (`x if y` is a modifier, with no `end`; the `do`
//! of `while c do` is the loop's). Blocks (`do … end`, `{ … }`) belong to the method
//! around them, as in lizard.

use super::{op, Found, NONE};
use crate::analysis::lexer::{Kind, Token};

/// What an open block is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Block {
    /// A method: its index in the list of functions.
    Def(usize),
    /// A `{ … }` block or hash literal, closed by `}`.
    Brace,
    /// Any other keyword block, closed by `end`.
    Other,
}

/// True when the keyword at `i` (`if`, `unless`, `while`, `until`) starts a statement (an
/// `if … end` block) rather than modifying one (`return x if y`): it is first on its line,
/// or follows an operator or opening bracket, or a keyword after which a value is expected.
pub(crate) fn starts_statement(tokens: &[Token<'_>], i: usize) -> bool {
    let Some(prev) = i.checked_sub(1).map(|p| &tokens[p]) else {
        return true;
    };
    if prev.line < tokens[i].line {
        return true;
    }
    match prev.kind {
        Kind::Op => !matches!(prev.text, ")" | "]" | "}"),
        Kind::Keyword => !matches!(
            prev.text,
            "end" | "return" | "break" | "next" | "redo" | "retry" | "yield" | "super" | "defined?"
        ),
        _ => false,
    }
}

/// The block opened by the keyword or bracket at `i`, if any; `looping` is set while a
/// `while`/`until`/`for` head is read (its `do` opens nothing).
pub(crate) fn opens(tokens: &[Token<'_>], i: usize, looping: &mut bool) -> bool {
    let t = &tokens[i];
    if *looping && (t.line > tokens[i - 1].line || t.is(";")) {
        *looping = false;
    }
    match (t.kind, t.text) {
        (Kind::Keyword, "class" | "module" | "begin" | "case" | "def") => true,
        (Kind::Keyword, "for") => {
            *looping = true;
            true
        }
        (Kind::Keyword, "while" | "until") if starts_statement(tokens, i) => {
            *looping = true;
            true
        }
        (Kind::Keyword, "if" | "unless") => starts_statement(tokens, i),
        (Kind::Keyword, "do") => !std::mem::take(looping),
        _ => false,
    }
}

/// The methods of a Ruby file.
pub(super) fn ruby(tokens: &[Token<'_>]) -> Vec<Found> {
    let mut out: Vec<Found> = Vec::new();
    let mut blocks: Vec<Block> = Vec::new();
    let mut looping = false;
    let mut i = 0;
    while i < tokens.len() {
        let t = &tokens[i];
        if t.kind == Kind::Op {
            match t.text {
                "{" => blocks.push(Block::Brace),
                "}" => {
                    // Keyword blocks left open inside braces close with them.
                    while let Some(b) = blocks.pop() {
                        if b == Block::Brace {
                            break;
                        }
                    }
                }
                _ => {}
            }
            i += 1;
            continue;
        }
        if t.is("end") {
            if let Some(Block::Def(f)) = blocks.pop() {
                out[f].last = i;
                out[f].end_line = t.line;
            }
            i += 1;
            continue;
        }
        if t.is("def") {
            if let Some((found, endless)) = method(tokens, i) {
                let next = found.body;
                out.push(found);
                if !endless {
                    blocks.push(Block::Def(out.len() - 1));
                }
                i = next;
                continue;
            }
        }
        if i > 0 && opens(tokens, i, &mut looping) {
            blocks.push(Block::Other);
        }
        i += 1;
    }
    let last = tokens.len().saturating_sub(1);
    for f in out.iter_mut().filter(|f| f.last == NONE as usize) {
        f.last = last;
        f.end_line = tokens.get(last).map_or(f.start_line, |t| t.line);
    }
    out
}

/// The method whose `def` is at `i`, its body starting after the name and parameters, and
/// whether it is endless (`def f(x) = …`, ended here at its line's end).
fn method(tokens: &[Token<'_>], i: usize) -> Option<(Found, bool)> {
    let line = tokens[i].line;
    let mut j = i + 1;
    let mut name = String::new();
    // `self.`, `obj.`, `Const::` before the name.
    while tokens
        .get(j + 1)
        .is_some_and(|t| (t.is(".") || t.is("::")) && !t.spaced && t.line == line)
        && tokens.get(j).is_some_and(|t| t.kind != Kind::Op)
    {
        name.push_str(tokens[j].text);
        name.push_str(tokens[j + 1].text);
        j += 2;
    }
    let t = tokens.get(j).filter(|t| t.line == line)?;
    name.push_str(t.text);
    j += 1;
    if t.kind == Kind::Op {
        // `[]`, `[]=`, `+@`, `==`: the operator's tokens up to the parameters.
        while let Some(n) = tokens.get(j) {
            if n.line != line || n.is("(") || n.spaced || n.kind != Kind::Op {
                break;
            }
            name.push_str(n.text);
            j += 1;
        }
    } else if op(tokens, j, "=") && !tokens[j].spaced && op(tokens, j + 1, "(") {
        // A setter, `def name=(v)`.
        name.push('=');
        j += 1;
    }
    let endless = if op(tokens, j, "(") {
        j = super::matching(tokens, j) + 1;
        op(tokens, j, "=")
    } else if op(tokens, j, "=") {
        true
    } else {
        // Parameters without brackets run to the end of the line.
        while tokens.get(j).is_some_and(|t| t.line == line && !t.is(";")) {
            j += 1;
        }
        false
    };
    let (last, body) = if endless {
        let mut k = j;
        while tokens.get(k + 1).is_some_and(|t| t.line == tokens[k].line) {
            k += 1;
        }
        (k, j)
    } else {
        (NONE as usize, j.min(tokens.len().saturating_sub(1)))
    };
    let found = Found {
        name,
        start_line: line,
        end_line: tokens.get(last).map_or(line, |t| t.line),
        first: i,
        last,
        body,
        parent: None,
        expression: endless,
    };
    Some((found, endless))
}
