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

/// The state of one function's walk.
struct Walk<'s> {
    /// Open compound statements: their indentation and kind.
    blocks: Vec<(u32, Block)>,
    /// The last compound statement keyword at each indentation, to tell whose `else` it is.
    chain: Vec<(u32, &'s str)>,
    /// Open bracket groups; the first is the logical line itself.
    groups: Vec<Group>,
    score: u32,
    max_nesting: u32,
}

impl<'s> Walk<'s> {
    /// Nested `def`s count one level each; structures count inside the innermost `def`.
    fn nesting(&self) -> u32 {
        let defs = self.blocks.iter().filter(|b| b.1 == Block::Def).count() as u32;
        let after = self
            .blocks
            .iter()
            .rev()
            .take_while(|b| b.1 != Block::Def)
            .filter(|b| b.1 == Block::Nest)
            .count() as u32;
        defs + after + self.groups.iter().map(|g| g.lambdas).sum::<u32>()
    }

    /// A token starting a logical line at `indent`: closes the blocks it dedents out of
    /// and scores a compound statement's header. Returns where to go on when the header
    /// keyword was consumed.
    fn statement(&mut self, tokens: &[Token<'s>], i: usize, indent: u32) -> Option<usize> {
        while self.blocks.last().is_some_and(|b| b.0 >= indent) {
            self.blocks.pop();
        }
        self.groups.clear();
        self.groups.push(Group::default());
        let nesting = self.nesting();
        let k = if tokens[i].is("async") && i + 1 < tokens.len() {
            i + 1
        } else {
            i
        };
        let word = tokens[k].text;
        let keyword = tokens[k].kind == Kind::Keyword
            || (matches!(word, "match" | "case") && super::cyclomatic::soft_keyword(tokens, k));
        if !keyword {
            return None;
        }
        while self.chain.last().is_some_and(|c| c.0 > indent) {
            self.chain.pop();
        }
        let previous = self.chain.last().filter(|c| c.0 == indent).map(|c| c.1);
        let (increment, block) = match word {
            "if" | "for" | "while" | "except" | "match" => (1 + nesting, Block::Nest),
            "elif" => (1, Block::Nest),
            "else" if matches!(previous, Some("if" | "elif")) => (1, Block::Nest),
            "else" | "try" | "finally" | "with" | "class" | "case" => (0, Block::Plain),
            "def" => (0, Block::Def),
            _ => return None,
        };
        self.score += increment;
        self.blocks.push((indent, block));
        self.max_nesting = self.max_nesting.max(self.nesting());
        if self.chain.last().is_some_and(|c| c.0 == indent) {
            self.chain.pop();
        }
        self.chain.push((indent, word));
        // The header's keyword is not an expression to score again, nor a nested `def`'s
        // name a recursive call.
        Some(if word == "def" { k + 2 } else { k + 1 })
    }

    /// A token inside an expression.
    fn expression(&mut self, t: &Token<'_>) {
        if t.kind == Kind::Op {
            match t.text {
                "(" | "[" | "{" => return self.groups.push(Group::default()),
                ")" | "]" | "}" => {
                    if self.groups.len() > 1 {
                        self.groups.pop();
                    }
                    return;
                }
                _ => {}
            }
        }
        // Only three keywords use the nesting, and working it out walks the open blocks:
        // not for every token.
        let nesting = if t.kind == Kind::Keyword && matches!(t.text, "for" | "if" | "lambda") {
            self.nesting()
        } else {
            0
        };
        let group = self.groups.last_mut().expect("never empty");
        match (t.kind, t.text) {
            (Kind::Keyword, "for") => {
                self.score += if group.comprehension { 1 } else { 1 + nesting };
                group.comprehension = true;
                group.reset_booleans();
            }
            (Kind::Keyword, "if") if group.comprehension => {
                self.score += 1;
                group.reset_booleans();
            }
            (Kind::Keyword, "if") => {
                self.score += 1 + nesting + group.ternaries;
                group.ternaries += 1;
                group.reset_booleans();
            }
            (Kind::Keyword, "and") if !group.and_in_segment => {
                self.score += 1;
                group.and_in_segment = true;
            }
            (Kind::Keyword, "or") => {
                self.score += u32::from(!group.has_or);
                group.has_or = true;
                group.and_in_segment = false;
            }
            (Kind::Keyword, "lambda") => {
                group.lambdas += 1;
                group.reset_booleans();
                self.max_nesting = self.max_nesting.max(nesting + 1);
            }
            (Kind::Op, ",") => {
                group.lambdas = 0;
                group.reset_booleans();
            }
            (Kind::Op, ":" | "=" | ";" | ":=" | "+=" | "-=" | "|=" | "&=")
            | (Kind::Keyword, "else" | "return" | "yield" | "assert") => group.reset_booleans(),
            _ => {}
        }
    }
}

/// The cognitive complexity of `f` (a `def`) and the deepest nesting reached in it.
pub(crate) fn python(tokens: &[Token<'_>], f: &Found) -> (u32, u32) {
    let own_name = f.name.rsplit('.').next().unwrap_or("");
    let mut walk = Walk {
        blocks: Vec::new(),
        chain: Vec::new(),
        groups: vec![Group::default()],
        score: 0,
        max_nesting: 0,
    };
    let last = f.last.min(tokens.len().saturating_sub(1));
    let mut i = f.body + 1;
    while i <= last {
        let t = &tokens[i];
        if let Some(indent) = t.indent {
            if let Some(next) = walk.statement(tokens, i, indent) {
                i = next;
                continue;
            }
        }
        walk.expression(t);
        let recursive = t.kind == Kind::Ident
            && t.text == own_name
            && tokens.get(i + 1).is_some_and(|n| n.is("("))
            && !(i > 0 && tokens[i - 1].is("."));
        walk.score += u32::from(recursive);
        i += 1;
    }
    (walk.score, walk.max_nesting)
}
