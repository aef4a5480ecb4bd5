//! Cognitive complexity for Python, with blocks read from indentation. The rules are the
//! white paper's, in the form complexipy (the reference the cross-check uses) applies them
//! to Python's syntax:
//!
//! - +1 plus nesting: `if`, `for`, `while`, `except`, `match`, a conditional expression
//!   (`a if c else b`; one chained in another's `else` is one level deeper), the first
//!   `for` of a comprehension;
//! - +1 flat: `elif`, the `else` of an `if`, further `for`/`if` clauses of a comprehension,
//!   each boolean-operator group (Python's precedence: `a or b and c` is one `or` group
//!   and one `and` group), each direct recursive call `name(…)`;
//! - no increment: `try`, `finally`, `with`, the `else` of a loop or `try`, `case`;
//! - nesting +1 inside the blocks of `if`/`elif`/`else` (of an `if`), `for`, `while`,
//!   `except`, `match`, and inside `lambda`. A nested `def` starts its body at one level
//!   more than the `def` enclosing it, whatever the structures around it.

// Each match arm is one token kind's rule; a nested `if` keeps the rule in one place
// rather than splitting it between a guard and a fallthrough arm.
#![allow(clippy::collapsible_match)]

use super::functions::Found;
use super::lexer::{Kind, Token};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Block {
    Nest,
    Def,
    Plain,
}

/// One bracket group (or the logical line itself) being read.
#[derive(Default)]
struct Group {
    comprehension: bool,
    ternaries: u32,
    has_or: bool,
    and_in_segment: bool,
    /// Lambdas opened in this group (each adds a level until the group or an item ends).
    lambdas: u32,
}

impl Group {
    fn reset_booleans(&mut self) {
        self.has_or = false;
        self.and_in_segment = false;
    }
}

/// The cognitive complexity of `f` (a `def`) and the deepest nesting reached in it.
pub(crate) fn python(tokens: &[Token<'_>], f: &Found) -> (u32, u32) {
    let own_name = f.name.rsplit('.').next().unwrap_or("");
    let mut blocks: Vec<(u32, Block)> = Vec::new();
    // The last compound statement keyword at each indentation, to tell whose `else` it is.
    let mut chain: Vec<(u32, &str)> = Vec::new();
    let mut groups: Vec<Group> = vec![Group::default()];
    let mut score = 0u32;
    let mut max_nesting = 0u32;
    let nesting_of = |blocks: &[(u32, Block)], groups: &[Group]| -> u32 {
        let defs = blocks.iter().filter(|b| b.1 == Block::Def).count() as u32;
        let after = blocks
            .iter()
            .rev()
            .take_while(|b| b.1 != Block::Def)
            .filter(|b| b.1 == Block::Nest)
            .count() as u32;
        defs + after + groups.iter().map(|g| g.lambdas).sum::<u32>()
    };
    let last = f.last.min(tokens.len().saturating_sub(1));
    let mut i = f.body + 1;
    while i <= last {
        let t = &tokens[i];
        if let Some(indent) = t.indent {
            while blocks.last().is_some_and(|b| b.0 >= indent) {
                blocks.pop();
            }
            groups.clear();
            groups.push(Group::default());
            let nesting = nesting_of(&blocks, &groups);
            let mut k = i;
            if t.is("async") && tokens.get(i + 1).is_some() {
                k = i + 1;
            }
            let word = tokens[k].text;
            let keyword = tokens[k].kind == Kind::Keyword
                || (matches!(word, "match" | "case") && super::cyclomatic::soft_keyword(tokens, k));
            while chain.last().is_some_and(|c| c.0 > indent) {
                chain.pop();
            }
            let previous = chain.last().filter(|c| c.0 == indent).map(|c| c.1);
            let block = if !keyword {
                None
            } else {
                match word {
                    "if" | "for" | "while" | "except" | "match" => {
                        score += 1 + nesting;
                        Some(Block::Nest)
                    }
                    "elif" => {
                        score += 1;
                        Some(Block::Nest)
                    }
                    "else" if matches!(previous, Some("if" | "elif")) => {
                        score += 1;
                        Some(Block::Nest)
                    }
                    "else" | "try" | "finally" | "with" | "class" | "case" => Some(Block::Plain),
                    "def" => Some(Block::Def),
                    _ => None,
                }
            };
            if let Some(block) = block {
                blocks.push((indent, block));
                max_nesting = max_nesting.max(nesting_of(&blocks, &groups));
                if chain.last().is_some_and(|c| c.0 == indent) {
                    chain.pop();
                }
                chain.push((indent, word));
                // The header's own words are not expressions to score again.
                i = k + 1;
                if word == "def" {
                    // Skip the name so it is not taken for a recursive call.
                    i += 1;
                }
                continue;
            }
        }
        let nesting = nesting_of(&blocks, &groups);
        let group = groups.last_mut().expect("never empty");
        match (t.kind, t.text) {
            (Kind::Op, "(" | "[" | "{") => groups.push(Group::default()),
            (Kind::Op, ")" | "]" | "}") => {
                if groups.len() > 1 {
                    groups.pop();
                }
            }
            (Kind::Keyword, "for") => {
                score += if group.comprehension { 1 } else { 1 + nesting };
                group.comprehension = true;
                group.reset_booleans();
            }
            (Kind::Keyword, "if") => {
                if group.comprehension {
                    score += 1;
                } else {
                    score += 1 + nesting + group.ternaries;
                    group.ternaries += 1;
                }
                group.reset_booleans();
            }
            (Kind::Keyword, "and") => {
                if !group.and_in_segment {
                    score += 1;
                    group.and_in_segment = true;
                }
            }
            (Kind::Keyword, "or") => {
                if !group.has_or {
                    score += 1;
                    group.has_or = true;
                }
                group.and_in_segment = false;
            }
            (Kind::Keyword, "lambda") => {
                group.lambdas += 1;
                group.reset_booleans();
                max_nesting = max_nesting.max(nesting + 1);
            }
            (Kind::Op, ",") => {
                group.lambdas = 0;
                group.reset_booleans();
            }
            (Kind::Op, ":" | "=" | ";" | ":=" | "+=" | "-=" | "|=" | "&=")
            | (Kind::Keyword, "else" | "return" | "yield" | "assert" | "in" | "await") => {
                if !(t.text == "in" || t.text == "await") {
                    group.reset_booleans();
                }
            }
            (Kind::Ident, name) if name == own_name => {
                let call = tokens.get(i + 1).is_some_and(|n| n.is("("));
                let attribute = i > 0 && tokens[i - 1].is(".");
                if call && !attribute {
                    score += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    (score, max_nesting)
}
