//! Running a program over one line: a Thompson simulation that keeps, at each position, the
//! set of NFA states alive there (each state at most once). Each character costs at most
//! one step per state, so a line of `n` characters costs at most `n × states` steps whatever
//! the pattern: there is no backtracking to explode. Only "does the line match" is asked,
//! so no capture positions are tracked and the first state to reach `Match` ends the run.

use super::compile::{Inst, Program};
use super::parse::Assertion;

/// A set of instruction indexes with O(1) insert, membership and clear (the classic sparse
/// set), so clearing between positions costs nothing.
#[derive(Debug, Default)]
struct StateSet {
    dense: Vec<usize>,
    sparse: Vec<usize>,
}

impl StateSet {
    fn with_capacity(n: usize) -> StateSet {
        StateSet {
            dense: Vec::with_capacity(n),
            sparse: vec![0; n],
        }
    }

    /// Inserts `pc`; false when it was already there.
    fn insert(&mut self, pc: usize) -> bool {
        let slot = self.sparse[pc];
        if slot < self.dense.len() && self.dense[slot] == pc {
            return false;
        }
        self.sparse[pc] = self.dense.len();
        self.dense.push(pc);
        true
    }

    fn clear(&mut self) {
        self.dense.clear();
    }
}

/// The reusable memory of a run.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    current: StateSet,
    next: StateSet,
    stack: Vec<usize>,
}

/// The work budget ran out: the run stopped without an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Exhausted;

/// A character and its simple case variants (itself when it has none).
#[derive(Debug, Clone, Copy)]
struct Folded {
    c: char,
    lower: char,
    upper: char,
}

/// The one-character lower- and uppercase forms of `c` (`c` itself where the mapping is
/// not a single character). ASCII letters pair only with ASCII letters: the three
/// characters whose case partner is ASCII (the Kelvin sign, dotless `ı`, long `ſ`) keep
/// their own, so a scan for the ASCII letters of a pattern, folded, finds every match.
pub(crate) fn case_variants(c: char) -> (char, char) {
    if c.is_ascii() {
        return (c.to_ascii_lowercase(), c.to_ascii_uppercase());
    }
    let keep = |v: Option<char>| v.filter(|v| !v.is_ascii()).unwrap_or(c);
    (
        keep(single(c.to_lowercase())),
        keep(single(c.to_uppercase())),
    )
}

/// The only item of `items`, if there is exactly one.
fn single(mut items: impl Iterator<Item = char>) -> Option<char> {
    let first = items.next()?;
    items.next().is_none().then_some(first)
}

fn is_word(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A compiled program ready to run.
#[derive(Debug)]
pub(crate) struct Machine {
    program: Program,
    fold: bool,
    scratch: Scratch,
}

impl Machine {
    pub(crate) fn new(program: Program, fold: bool) -> Machine {
        let n = program.insts.len();
        Machine {
            program,
            fold,
            scratch: Scratch {
                current: StateSet::with_capacity(n),
                next: StateSet::with_capacity(n),
                stack: Vec::with_capacity(n),
            },
        }
    }

    pub(crate) fn folds_case(&self) -> bool {
        self.fold
    }

    #[cfg(test)]
    pub(crate) fn program(&self) -> &Program {
        &self.program
    }

    /// True when some match lies in `line` (no line terminator) and starts at or after byte
    /// `start` (a character boundary; the character before it still counts for `\b`).
    /// Each character examined costs `1 + live states` from `budget`.
    pub(crate) fn matches_from(
        &mut self,
        line: &str,
        start: usize,
        first: Option<&[bool; 256]>,
        budget: &mut u64,
    ) -> Result<bool, Exhausted> {
        let Machine {
            program,
            fold,
            scratch:
                Scratch {
                    current,
                    next,
                    stack,
                },
        } = self;
        current.clear();
        let bytes = line.as_bytes();
        let mut pos = start;
        let mut prev = line[..pos].chars().next_back();
        loop {
            if current.dense.is_empty() {
                if let Some(first) = first {
                    // No thread alive: a match can only start at a byte of the first set.
                    match bytes[pos..].iter().position(|&b| first[usize::from(b)]) {
                        Some(skip) if skip > 0 => {
                            pos += skip;
                            prev = line[..pos].chars().next_back();
                        }
                        Some(_) => {}
                        None => return Ok(false),
                    }
                }
            }
            let here = line[pos..].chars().next();
            // The unanchored search: a new thread starts at every position.
            if add(program, current, stack, 0, prev, here) {
                return Ok(true);
            }
            let Some(c) = here else {
                return Ok(false);
            };
            let cost = 1 + current.dense.len() as u64;
            if *budget < cost {
                return Err(Exhausted);
            }
            *budget -= cost;
            let folded = fold.then(|| {
                let (lower, upper) = case_variants(c);
                Folded { c, lower, upper }
            });
            let after = pos + c.len_utf8();
            let following = line[after..].chars().next();
            next.clear();
            for i in 0..current.dense.len() {
                let pc = current.dense[i];
                if consumes(program, pc, c, folded)
                    && add(program, next, stack, pc + 1, Some(c), following)
                {
                    return Ok(true);
                }
            }
            std::mem::swap(current, next);
            pos = after;
            prev = Some(c);
        }
    }
}

/// True when the state `pc` consumes `c` (or, folding case, one of its variants).
fn consumes(program: &Program, pc: usize, c: char, folded: Option<Folded>) -> bool {
    let test = |f: &dyn Fn(char) -> bool| match folded {
        None => f(c),
        Some(v) => f(v.c) || f(v.lower) || f(v.upper),
    };
    match &program.insts[pc] {
        Inst::Char(x) => test(&|c| c == *x),
        Inst::Any => true,
        Inst::Class(i) => {
            // Folding applies to the set before it is negated: `[^a]` excludes `A` too.
            let class = &program.classes[*i];
            test(&|c| class.in_ranges(c)) != class.negated
        }
        _ => false,
    }
}

/// Adds `pc` and every state reachable from it by epsilon moves valid between `prev` and
/// `next` to `set`; true when `Match` is among them.
fn add(
    program: &Program,
    set: &mut StateSet,
    stack: &mut Vec<usize>,
    pc: usize,
    prev: Option<char>,
    next: Option<char>,
) -> bool {
    stack.clear();
    stack.push(pc);
    while let Some(pc) = stack.pop() {
        if !set.insert(pc) {
            continue;
        }
        match &program.insts[pc] {
            Inst::Match => return true,
            Inst::Jump(to) => stack.push(*to),
            Inst::Split(a, b) => {
                stack.push(*b);
                stack.push(*a);
            }
            Inst::Assert(assertion) => {
                let holds = match assertion {
                    Assertion::LineStart => prev.is_none(),
                    Assertion::LineEnd => next.is_none(),
                    Assertion::WordBoundary => is_word(prev) != is_word(next),
                    Assertion::NotWordBoundary => is_word(prev) == is_word(next),
                };
                if holds {
                    stack.push(pc + 1);
                }
            }
            Inst::Char(_) | Inst::Any | Inst::Class(_) => {}
        }
    }
    false
}
