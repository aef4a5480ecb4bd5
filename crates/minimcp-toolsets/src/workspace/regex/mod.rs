//! The regular expressions of `search_text`: a documented subset, matched line by line in
//! time linear in the line's length (a Thompson NFA simulation, no backtracking), so a
//! pattern written by a model cannot stall the single thread that serves the session.
//!
//! The subset: literals; `.`; classes `[abc]`, `[a-z]`, `[^...]`; `\d \w \s` and
//! `\D \W \S` (ASCII: digits, letters/digits/underscore, whitespace); `\b \B`; `^ $` (start
//! and end of the line); groups `(...)` and `(?:...)`; alternation `|`; `? * +`, `{m}`,
//! `{m,}`, `{m,n}` (a trailing lazy `?` is accepted and changes nothing, since only
//! whether a line matches is reported); escapes `\n \t \r \f \v` and `\` before any
//! punctuation; a leading `(?i)` for case-insensitive. A `{` that does not start a valid
//! repetition is a literal. Case-insensitive matching uses simple (one-character) case
//! folding, in which ASCII letters pair only with ASCII letters. Lookaround, backreferences, `\p{..}` and POSIX classes are refused with an
//! error naming them.
//!
//! Bounds: [`MAX_REGEX_NESTING`], [`MAX_REGEX_REPEAT`] and [`MAX_REGEX_STATES`] when
//! compiling; the caller's step budget (see [`MAX_REGEX_STEPS`]) when matching.
//!
//! [`MAX_REGEX_NESTING`]: super::limits::MAX_REGEX_NESTING
//! [`MAX_REGEX_REPEAT`]: super::limits::MAX_REGEX_REPEAT
//! [`MAX_REGEX_STATES`]: super::limits::MAX_REGEX_STATES
//! [`MAX_REGEX_STEPS`]: super::limits::MAX_REGEX_STEPS

mod compile;
mod exec;
mod parse;

use compile::{compile, Inst, Program};
pub(crate) use exec::Exhausted;
use exec::{case_variants, Machine};
pub(crate) use parse::RegexError;
use parse::{parse, Node};

use super::limits::MAX_REGEX_STATES;

/// A compiled pattern.
#[derive(Debug)]
pub(crate) struct Regex {
    machine: Machine,
    /// The bytes a match can start with, when that set is narrow enough to be worth
    /// skipping ahead to.
    first: Option<Box<[bool; 256]>>,
    /// Texts one of which every match contains (see [`Regex::required`]).
    required: Vec<String>,
}

impl Regex {
    /// Compiles `pattern`; `case_insensitive` (or a leading `(?i)`) folds case.
    pub(crate) fn new(pattern: &str, case_insensitive: bool) -> Result<Regex, RegexError> {
        Regex::with_limit(pattern, case_insensitive, MAX_REGEX_STATES)
    }

    /// A case-insensitive search for the literal `text` (how literal queries with
    /// non-ASCII letters fold case).
    pub(crate) fn literal(text: &str) -> Result<Regex, RegexError> {
        let node = Node::Concat(text.chars().map(Node::Char).collect());
        Regex::from_node(node, true, MAX_REGEX_STATES)
    }

    fn with_limit(
        pattern: &str,
        case_insensitive: bool,
        max_states: usize,
    ) -> Result<Regex, RegexError> {
        let (node, flag) = parse(pattern)?;
        Regex::from_node(trim_dot_stars(node), case_insensitive || flag, max_states)
    }

    fn from_node(node: Node, fold: bool, max_states: usize) -> Result<Regex, RegexError> {
        let program = compile(&node, max_states)?;
        let first = first_bytes(&program, fold);
        // Folded, only ASCII text can be looked for byte by byte.
        let required = required_texts(&node)
            .filter(|texts| !fold || texts.iter().all(|t| t.is_ascii()))
            .unwrap_or_default();
        Ok(Regex {
            machine: Machine::new(program, fold),
            first,
            required,
        })
    }

    /// True when the pattern folds case.
    pub(crate) fn folds_case(&self) -> bool {
        self.machine.folds_case()
    }

    /// Texts one of which every match contains (case-folded when the pattern folds case,
    /// and then ASCII); empty when there are none to go by. A line with none of them cannot
    /// match, so a scan for them can stand in for running the NFA on every line.
    pub(crate) fn required(&self) -> &[String] {
        &self.required
    }

    /// The first byte at or after `from` where a match could start (`from` itself when
    /// that cannot be narrowed down); `None` when no match can start in the rest of `text`.
    pub(crate) fn candidate(&self, text: &[u8], from: usize) -> Option<usize> {
        match &self.first {
            None => (from <= text.len()).then_some(from),
            Some(set) => text[from..]
                .iter()
                .position(|&b| set[usize::from(b)])
                .map(|i| from + i),
        }
    }

    /// True when `line` (without its terminator) has a match starting at or after byte
    /// `start`, which must be a character boundary. Costs at most `1 + states` steps of
    /// `budget` per character.
    pub(crate) fn matches_from(
        &mut self,
        line: &str,
        start: usize,
        budget: &mut u64,
    ) -> Result<bool, Exhausted> {
        self.machine
            .matches_from(line, start, self.first.as_deref(), budget)
    }

    /// True when `line` has a match (with an unlimited budget; for tests).
    #[cfg(test)]
    pub(crate) fn is_match(&mut self, line: &str) -> bool {
        let mut budget = u64::MAX;
        self.matches_from(line, 0, &mut budget)
            .expect("unlimited budget")
    }
}

/// The text a pattern stands for when it has no operators at all (`foo\.rs`), and whether
/// a leading `(?i)` asked for case folding: such a pattern is searched as a literal.
pub(crate) fn plain_text(pattern: &str) -> Option<(String, bool)> {
    let (node, fold) = parse(pattern).ok()?;
    let text = match trim_dot_stars(node) {
        Node::Char(c) => c.to_string(),
        Node::Concat(items) => items
            .iter()
            .map(|item| match item {
                Node::Char(c) => Some(*c),
                _ => None,
            })
            .collect::<Option<String>>()?,
        _ => return None,
    };
    // A line never holds a newline, so `a\nb` matches nothing as a regex; not so as text.
    (!text.is_empty() && !text.contains('\n')).then_some((text, fold))
}

/// At most this many texts are scanned for (`a|b|c|...`); more alternatives run the NFA.
const MAX_REQUIRED_TEXTS: usize = 8;

/// Texts one of which every match of `node` contains: the longest run of literal characters
/// of a sequence, the union over the branches of an alternation, what a repetition of at
/// least once repeats. `None` when some match need contain no literal text.
fn required_texts(node: &Node) -> Option<Vec<String>> {
    let texts = match node {
        Node::Char(c) => vec![c.to_string()],
        Node::Concat(items) => {
            let mut best = String::new();
            let mut run = String::new();
            for item in items.iter().chain([&Node::Empty]) {
                match item {
                    Node::Char(c) => run.push(*c),
                    _ if run.len() > best.len() => best = std::mem::take(&mut run),
                    _ => run.clear(),
                }
            }
            if best.is_empty() {
                // No run of literals: a single item that requires texts will do.
                return items.iter().find_map(required_texts);
            }
            vec![best]
        }
        Node::Alternate(branches) => {
            let mut all = Vec::new();
            for branch in branches {
                all.extend(required_texts(branch)?);
            }
            all
        }
        Node::Repeat { node, min, .. } if *min >= 1 => required_texts(node)?,
        _ => return None,
    };
    // A newline can never be inside a line: no scan for it (the NFA answers no anyway).
    let usable = texts.len() <= MAX_REQUIRED_TEXTS
        && texts.iter().all(|t| !t.is_empty() && !t.contains('\n'));
    usable.then_some(texts)
}

/// Drops a leading and a trailing `.*`: whether a line matches does not depend on them (`.`
/// matches every character of a line), and without them most patterns get a narrow first
/// byte set.
fn trim_dot_stars(node: Node) -> Node {
    let dot_star =
        |n: &Node| matches!(n, Node::Repeat { node, min: 0, max: None } if **node == Node::Any);
    match node {
        Node::Concat(mut items) => {
            while items.len() > 1 && dot_star(&items[0]) {
                items.remove(0);
            }
            while items.len() > 1 && items.last().is_some_and(dot_star) {
                items.pop();
            }
            Node::Concat(items)
        }
        other => other,
    }
}

/// The set of bytes a match can start with, or `None` when a match can be empty or start
/// with any character. Assertions are looked through (a superset is still correct).
fn first_bytes(program: &Program, fold: bool) -> Option<Box<[bool; 256]>> {
    let mut set = Box::new([false; 256]);
    let mut seen = vec![false; program.insts.len()];
    let mut stack = vec![0];
    let add = |set: &mut [bool; 256], c: char| {
        let mut buf = [0; 4];
        set[usize::from(c.encode_utf8(&mut buf).as_bytes()[0])] = true;
    };
    // A class reaching past ASCII may match any multi-byte character (ASCII letters fold
    // only with ASCII letters, see `case_variants`).
    let mut all_non_ascii = false;
    while let Some(pc) = stack.pop() {
        if std::mem::replace(&mut seen[pc], true) {
            continue;
        }
        match &program.insts[pc] {
            Inst::Match | Inst::Any => return None,
            Inst::Jump(to) => stack.push(*to),
            Inst::Split(a, b) => stack.extend([*a, *b]),
            Inst::Assert(_) => stack.push(pc + 1),
            Inst::Char(c) => {
                add(&mut set, *c);
                if fold {
                    let (lower, upper) = case_variants(*c);
                    add(&mut set, lower);
                    add(&mut set, upper);
                }
            }
            Inst::Class(i) => {
                let class = &program.classes[*i];
                if class.negated {
                    return None;
                }
                for &(lo, hi) in &class.ranges {
                    if hi as u32 >= 0x80 {
                        all_non_ascii = true;
                    }
                    for b in (lo as u32).min(0x80)..(hi as u32 + 1).min(0x80) {
                        let c = char::from(b as u8);
                        add(&mut set, c);
                        if fold {
                            set[usize::from(c.to_ascii_lowercase() as u8)] = true;
                            set[usize::from(c.to_ascii_uppercase() as u8)] = true;
                        }
                    }
                }
            }
        }
    }
    if all_non_ascii {
        set[0xC0..].fill(true);
    }
    Some(set)
}

#[cfg(test)]
mod tests;
