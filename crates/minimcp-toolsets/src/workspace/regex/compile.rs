//! Syntax tree → a Thompson NFA program: one instruction per state, epsilon moves as
//! `Split`/`Jump`. Counted repetitions are expanded, so the program size is checked as it
//! grows and a pattern that would be too big is refused before it is built.

use super::parse::{Assertion, Class, Node, RegexError};

/// One NFA state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Inst {
    /// Consumes this character.
    Char(char),
    /// Consumes any character.
    Any,
    /// Consumes a character of `classes[i]`.
    Class(usize),
    /// Continues at both targets (an epsilon move to each).
    Split(usize, usize),
    Jump(usize),
    /// Continues only where the assertion holds.
    Assert(Assertion),
    Match,
}

/// A compiled program: start at instruction 0.
#[derive(Debug, Clone)]
pub(crate) struct Program {
    pub(crate) insts: Vec<Inst>,
    pub(crate) classes: Vec<Class>,
}

/// Compiles `node` into at most `max_insts` instructions.
pub(crate) fn compile(node: &Node, max_insts: usize) -> Result<Program, RegexError> {
    let mut compiler = Compiler {
        program: Program {
            insts: Vec::new(),
            classes: Vec::new(),
        },
        max_insts,
    };
    compiler.node(node)?;
    compiler.push(Inst::Match)?;
    Ok(compiler.program)
}

struct Compiler {
    program: Program,
    max_insts: usize,
}

impl Compiler {
    fn push(&mut self, inst: Inst) -> Result<usize, RegexError> {
        if self.program.insts.len() >= self.max_insts {
            return Err(RegexError::TooBig(self.max_insts));
        }
        self.program.insts.push(inst);
        Ok(self.program.insts.len() - 1)
    }

    fn here(&self) -> usize {
        self.program.insts.len()
    }

    fn patch(&mut self, at: usize, inst: Inst) {
        self.program.insts[at] = inst;
    }

    fn node(&mut self, node: &Node) -> Result<(), RegexError> {
        match node {
            Node::Empty => {}
            Node::Char(c) => {
                self.push(Inst::Char(*c))?;
            }
            Node::Any => {
                self.push(Inst::Any)?;
            }
            Node::Class(class) => {
                self.program.classes.push(class.clone());
                let index = self.program.classes.len() - 1;
                self.push(Inst::Class(index))?;
            }
            Node::Assert(assertion) => {
                self.push(Inst::Assert(*assertion))?;
            }
            Node::Concat(items) => {
                for item in items {
                    self.node(item)?;
                }
            }
            Node::Alternate(branches) => self.alternate(branches)?,
            Node::Repeat { node, min, max } => self.repeat(node, *min, *max)?,
        }
        Ok(())
    }

    /// `a|b|c`: a chain of splits, each branch jumping to the common end.
    fn alternate(&mut self, branches: &[Node]) -> Result<(), RegexError> {
        let mut jumps = Vec::new();
        for (i, branch) in branches.iter().enumerate() {
            if i + 1 == branches.len() {
                self.node(branch)?;
                break;
            }
            let split = self.push(Inst::Split(0, 0))?;
            self.node(branch)?;
            jumps.push(self.push(Inst::Jump(0))?);
            let next = self.here();
            self.patch(split, Inst::Split(split + 1, next));
        }
        let end = self.here();
        for jump in jumps {
            self.patch(jump, Inst::Jump(end));
        }
        Ok(())
    }

    /// `min` copies, then either a loop (`max` unbounded) or `max - min` nested optional
    /// copies: `x{2,4}` is `xx(x(x)?)?`.
    fn repeat(&mut self, node: &Node, min: u32, max: Option<u32>) -> Result<(), RegexError> {
        for _ in 0..min {
            self.node(node)?;
        }
        match max {
            None => {
                // L: split(body, end); body; jump L
                let split = self.push(Inst::Split(0, 0))?;
                self.node(node)?;
                self.push(Inst::Jump(split))?;
                let end = self.here();
                self.patch(split, Inst::Split(split + 1, end));
            }
            Some(max) => {
                let mut splits = Vec::new();
                for _ in min..max {
                    splits.push(self.push(Inst::Split(0, 0))?);
                    self.node(node)?;
                }
                let end = self.here();
                for split in splits {
                    self.patch(split, Inst::Split(split + 1, end));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse::parse;
    use super::*;

    fn program(pattern: &str) -> Vec<Inst> {
        compile(&parse(pattern).expect("valid").0, 1000)
            .expect("small")
            .insts
    }

    #[test]
    fn shapes() {
        assert_eq!(
            program("ab"),
            [Inst::Char('a'), Inst::Char('b'), Inst::Match]
        );
        assert_eq!(
            program("a|b"),
            [
                Inst::Split(1, 3),
                Inst::Char('a'),
                Inst::Jump(4),
                Inst::Char('b'),
                Inst::Match
            ]
        );
        assert_eq!(
            program("a*"),
            [
                Inst::Split(1, 3),
                Inst::Char('a'),
                Inst::Jump(0),
                Inst::Match
            ]
        );
        assert_eq!(
            program("a{1,2}"),
            [
                Inst::Char('a'),
                Inst::Split(2, 3),
                Inst::Char('a'),
                Inst::Match
            ]
        );
    }

    #[test]
    fn size_is_bounded_while_expanding() {
        let (node, _) = parse("((a{1000}){1000}){1000}").expect("valid syntax");
        assert_eq!(
            compile(&node, 5000).map(|_| ()),
            Err(RegexError::TooBig(5000))
        );
    }
}
