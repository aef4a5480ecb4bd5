//! Pattern text → syntax tree, for the documented subset only: anything outside it is an
//! error that names the construct and its position, never a silent reinterpretation.

use thiserror::Error;

use crate::workspace::limits::{MAX_REGEX_NESTING, MAX_REGEX_REPEAT};

/// A zero-width test at a position of the line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Assertion {
    /// `^`: the start of the line.
    LineStart,
    /// `$`: the end of the line.
    LineEnd,
    /// `\b`: a word character on exactly one side.
    WordBoundary,
    /// `\B`: not a word boundary.
    NotWordBoundary,
}

/// A set of characters: sorted ranges, possibly negated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Class {
    pub(crate) ranges: Vec<(char, char)>,
    pub(crate) negated: bool,
}

impl Class {
    /// True when `c` is in the set.
    #[cfg(test)]
    fn contains(&self, c: char) -> bool {
        self.in_ranges(c) != self.negated
    }

    /// True when `c` is in the ranges, before any negation.
    pub(crate) fn in_ranges(&self, c: char) -> bool {
        self.ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi)
    }
}

/// The syntax tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Node {
    /// Matches the empty string.
    Empty,
    Char(char),
    /// `.`: any character (lines never contain a newline).
    Any,
    Class(Class),
    Assert(Assertion),
    Concat(Vec<Node>),
    Alternate(Vec<Node>),
    /// `min` to `max` (unbounded when `None`) repetitions.
    Repeat {
        node: Box<Node>,
        min: u32,
        max: Option<u32>,
    },
}

/// Why a pattern was refused. Positions are 0-based character offsets into the pattern.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub(crate) enum RegexError {
    #[error("unbalanced `)` at position {0}: escape it as `\\)` to match a parenthesis")]
    UnopenedGroup(usize),
    #[error("unclosed `(`: add the missing `)` or escape it as `\\(`")]
    UnclosedGroup,
    #[error("unclosed `[` at position {0}: add the missing `]` or escape it as `\\[`")]
    UnclosedClass(usize),
    #[error(
        "`{0}` at position {1} has nothing to repeat: escape it as `\\{0}` to match it literally"
    )]
    NothingToRepeat(char, usize),
    #[error("a second repetition operator at position {0}: wrap the repeated part in a group, e.g. `(a{{2}}){{3}}`")]
    MultipleRepeat(usize),
    #[error("`{0}` at position {1} is not supported; the subset has literals, `.`, classes `[...]`, `\\d \\w \\s \\b` (and `\\D \\W \\S \\B`), `^ $`, groups, `|`, `? * + {{m,n}}`")]
    Unsupported(String, usize),
    #[error("the repetition bound {0} is above the limit of {MAX_REGEX_REPEAT}")]
    RepeatTooLarge(u64),
    #[error("the repetition `{{{0},{1}}}` has its minimum above its maximum")]
    RepeatReversed(u32, u32),
    #[error("the class range `{0}-{1}` is reversed: write the smaller character first")]
    RangeReversed(char, char),
    #[error("a pattern may not end with a lone `\\`; write `\\\\` to match a backslash")]
    TrailingBackslash,
    #[error("groups nest deeper than {MAX_REGEX_NESTING} levels")]
    TooDeep,
    #[error(
        "the pattern compiles to more than {0} states: shorten it or lower its repetition counts"
    )]
    TooBig(usize),
}

/// Parses `pattern`. A leading `(?i)` is returned as a flag rather than a node.
pub(crate) fn parse(pattern: &str) -> Result<(Node, bool), RegexError> {
    let (pattern, insensitive) = match pattern.strip_prefix("(?i)") {
        Some(rest) => (rest, true),
        None => (pattern, false),
    };
    let mut parser = Parser {
        chars: pattern.chars().collect(),
        pos: 0,
        depth: 0,
    };
    let node = parser.alternation()?;
    match parser.peek() {
        None => Ok((node, insensitive)),
        Some(_) => Err(RegexError::UnopenedGroup(parser.pos)),
    }
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
    depth: usize,
}

fn digit() -> Class {
    Class {
        ranges: vec![('0', '9')],
        negated: false,
    }
}

fn word() -> Class {
    Class {
        ranges: vec![('0', '9'), ('A', 'Z'), ('_', '_'), ('a', 'z')],
        negated: false,
    }
}

fn space() -> Class {
    Class {
        ranges: vec![('\t', '\r'), (' ', ' ')],
        negated: false,
    }
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn looking_at(&self, text: &str) -> bool {
        (self.pos..)
            .zip(text.chars())
            .all(|(at, c)| self.chars.get(at) == Some(&c))
    }

    fn alternation(&mut self) -> Result<Node, RegexError> {
        let mut branches = vec![self.concat()?];
        while self.peek() == Some('|') {
            self.pos += 1;
            branches.push(self.concat()?);
        }
        Ok(if branches.len() == 1 {
            branches.pop().unwrap_or(Node::Empty)
        } else {
            Node::Alternate(branches)
        })
    }

    fn concat(&mut self) -> Result<Node, RegexError> {
        let mut items = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let atom = self.atom()?;
            items.push(self.quantified(atom)?);
        }
        Ok(match items.len() {
            0 => Node::Empty,
            1 => items.pop().unwrap_or(Node::Empty),
            _ => Node::Concat(items),
        })
    }

    fn atom(&mut self) -> Result<Node, RegexError> {
        let at = self.pos;
        let c = self.peek().ok_or(RegexError::UnclosedGroup)?;
        self.pos += 1;
        Ok(match c {
            '(' => {
                if self.looking_at("?:") {
                    self.pos += 2;
                } else if self.peek() == Some('?') {
                    let what: String = self.chars[at..(at + 3).min(self.chars.len())]
                        .iter()
                        .collect();
                    return Err(RegexError::Unsupported(what, at));
                }
                self.depth += 1;
                if self.depth > MAX_REGEX_NESTING {
                    return Err(RegexError::TooDeep);
                }
                let inner = self.alternation()?;
                self.depth -= 1;
                if self.peek() != Some(')') {
                    return Err(RegexError::UnclosedGroup);
                }
                self.pos += 1;
                // A group may be repeated whatever it holds; a bare assertion may not.
                match inner {
                    Node::Assert(_) => Node::Concat(vec![inner]),
                    inner => inner,
                }
            }
            '[' => Node::Class(self.class(at)?),
            '.' => Node::Any,
            '^' => Node::Assert(Assertion::LineStart),
            '$' => Node::Assert(Assertion::LineEnd),
            '\\' => self.escape(at)?,
            '*' | '+' | '?' => return Err(RegexError::NothingToRepeat(c, at)),
            '{' if self.repetition_at(at).is_some() => {
                return Err(RegexError::NothingToRepeat(c, at))
            }
            c => Node::Char(c),
        })
    }

    /// The bounds of a `{m}`, `{m,}` or `{m,n}` starting at `at`, and where it ends; `None`
    /// when the text there is not one (then `{` is a literal, as in most engines).
    fn repetition_at(&self, at: usize) -> Option<(u64, Option<u64>, usize)> {
        let mut i = at + 1;
        let number = |i: &mut usize| {
            let start = *i;
            let mut value: u64 = 0;
            while let Some(d) = self.chars.get(*i).and_then(|c| c.to_digit(10)) {
                value = value.saturating_mul(10).saturating_add(u64::from(d));
                *i += 1;
            }
            (*i > start).then_some(value)
        };
        let min = number(&mut i)?;
        let max = match self.chars.get(i) {
            Some('}') => Some(min),
            Some(',') => {
                i += 1;
                number(&mut i)
            }
            _ => return None,
        };
        (self.chars.get(i) == Some(&'}')).then_some((min, max, i + 1))
    }

    fn quantified(&mut self, atom: Node) -> Result<Node, RegexError> {
        let Some(c) = self.peek() else {
            return Ok(atom);
        };
        let at = self.pos;
        let (min, max) = match c {
            '*' => {
                self.pos += 1;
                (0, None)
            }
            '+' => {
                self.pos += 1;
                (1, None)
            }
            '?' => {
                self.pos += 1;
                (0, Some(1))
            }
            '{' => match self.repetition_at(at) {
                Some((min, max, end)) => {
                    self.pos = end;
                    let bound = |n: u64| {
                        if n > u64::from(MAX_REGEX_REPEAT) {
                            Err(RegexError::RepeatTooLarge(n))
                        } else {
                            Ok(n as u32)
                        }
                    };
                    let (min, max) = (bound(min)?, max.map(bound).transpose()?);
                    if let Some(max) = max.filter(|&max| max < min) {
                        return Err(RegexError::RepeatReversed(min, max));
                    }
                    (min, max)
                }
                None => return Ok(atom),
            },
            _ => return Ok(atom),
        };
        if matches!(atom, Node::Assert(_)) {
            return Err(RegexError::NothingToRepeat(c, at));
        }
        // A lazy `?` after a quantifier changes which match is found, not whether a line
        // matches, so it is accepted and has no effect.
        if self.peek() == Some('?') {
            self.pos += 1;
        }
        if matches!(self.peek(), Some('*' | '+' | '?')) || self.repetition_at(self.pos).is_some() {
            return Err(RegexError::MultipleRepeat(self.pos));
        }
        Ok(Node::Repeat {
            node: Box::new(atom),
            min,
            max,
        })
    }

    /// The node for `\x` (the backslash at `at` is consumed).
    fn escape(&mut self, at: usize) -> Result<Node, RegexError> {
        let c = self.peek().ok_or(RegexError::TrailingBackslash)?;
        self.pos += 1;
        if let Some(class) = self.class_escape(c) {
            return Ok(Node::Class(class));
        }
        Ok(match c {
            'b' => Node::Assert(Assertion::WordBoundary),
            'B' => Node::Assert(Assertion::NotWordBoundary),
            c => Node::Char(self.literal_escape(c, at)?),
        })
    }

    /// `\d \w \s` and their negations.
    fn class_escape(&self, c: char) -> Option<Class> {
        let (class, negated) = match c {
            'd' => (digit(), false),
            'D' => (digit(), true),
            'w' => (word(), false),
            'W' => (word(), true),
            's' => (space(), false),
            'S' => (space(), true),
            _ => return None,
        };
        Some(Class { negated, ..class })
    }

    /// The character `\c` stands for: `\n \t \r \f \v \0`, or any ASCII punctuation as itself.
    fn literal_escape(&self, c: char, at: usize) -> Result<char, RegexError> {
        Ok(match c {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            'f' => '\x0c',
            'v' => '\x0b',
            c if c.is_ascii_punctuation() || c == ' ' => c,
            c => return Err(RegexError::Unsupported(format!("\\{c}"), at)),
        })
    }

    /// A class `[...]`; the `[` at `at` is consumed.
    fn class(&mut self, at: usize) -> Result<Class, RegexError> {
        let mut class = Class {
            ranges: Vec::new(),
            negated: false,
        };
        if self.peek() == Some('^') {
            class.negated = true;
            self.pos += 1;
        }
        let mut first = true;
        loop {
            let c = self.peek().ok_or(RegexError::UnclosedClass(at))?;
            let item_at = self.pos;
            self.pos += 1;
            if c == ']' && !first {
                break;
            }
            first = false;
            if c == '[' && self.peek() == Some(':') {
                return Err(RegexError::Unsupported("[:".into(), item_at));
            }
            let lo = if c == '\\' {
                let e = self.peek().ok_or(RegexError::UnclosedClass(at))?;
                self.pos += 1;
                if let Some(inner) = self.class_escape(e) {
                    add_class(&mut class.ranges, &inner);
                    continue;
                }
                self.literal_escape(e, item_at)?
            } else {
                c
            };
            // A range `lo-hi`, unless the `-` is last (then it is a literal).
            if self.peek() == Some('-') && !matches!(self.chars.get(self.pos + 1), Some(']') | None)
            {
                self.pos += 1;
                let h = self.peek().ok_or(RegexError::UnclosedClass(at))?;
                let h_at = self.pos;
                self.pos += 1;
                let hi = if h == '\\' {
                    let e = self.peek().ok_or(RegexError::UnclosedClass(at))?;
                    self.pos += 1;
                    if self.class_escape(e).is_some() {
                        return Err(RegexError::Unsupported(format!("-\\{e}"), h_at));
                    }
                    self.literal_escape(e, h_at)?
                } else {
                    h
                };
                if hi < lo {
                    return Err(RegexError::RangeReversed(lo, hi));
                }
                class.ranges.push((lo, hi));
            } else {
                class.ranges.push((lo, lo));
            }
        }
        Ok(class)
    }
}

/// Adds `inner` (possibly negated, like `\D`) to a class being built.
fn add_class(ranges: &mut Vec<(char, char)>, inner: &Class) {
    if !inner.negated {
        ranges.extend_from_slice(&inner.ranges);
        return;
    }
    // The complement of sorted, disjoint ranges.
    let mut sorted = inner.ranges.clone();
    sorted.sort_unstable();
    let mut next = '\0';
    for (lo, hi) in sorted {
        if lo > next {
            ranges.push((next, prev_char(lo)));
        }
        next = next_char(hi);
    }
    ranges.push((next, char::MAX));
}

fn prev_char(c: char) -> char {
    match c {
        '\u{E000}' => '\u{D7FF}',
        c => char::from_u32(c as u32 - 1).unwrap_or(c),
    }
}

fn next_char(c: char) -> char {
    match c {
        '\u{D7FF}' => '\u{E000}',
        c => char::from_u32(c as u32 + 1).unwrap_or(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(pattern: &str) -> Node {
        parse(pattern).expect("valid").0
    }

    fn err(pattern: &str) -> RegexError {
        parse(pattern).expect_err("invalid")
    }

    #[test]
    fn atoms_and_structure() {
        assert_eq!(ok("a"), Node::Char('a'));
        assert_eq!(ok(""), Node::Empty);
        assert_eq!(
            ok("a|b"),
            Node::Alternate(vec![Node::Char('a'), Node::Char('b')])
        );
        assert_eq!(
            ok("(?:ab)"),
            Node::Concat(vec![Node::Char('a'), Node::Char('b')])
        );
        assert_eq!(ok("\\."), Node::Char('.'));
        assert_eq!(ok("."), Node::Any);
        assert!(matches!(ok("^a$"), Node::Concat(v) if v.len() == 3));
        assert_eq!(parse("(?i)x").expect("valid"), (Node::Char('x'), true));
    }

    #[test]
    fn repetitions() {
        let rep = |min, max| Node::Repeat {
            node: Box::new(Node::Char('a')),
            min,
            max,
        };
        assert_eq!(ok("a*"), rep(0, None));
        assert_eq!(ok("a+?"), rep(1, None));
        assert_eq!(ok("a{2}"), rep(2, Some(2)));
        assert_eq!(ok("a{2,}"), rep(2, None));
        assert_eq!(ok("a{2,5}"), rep(2, Some(5)));
        // Not a repetition: literal braces.
        assert_eq!(
            ok("a{x"),
            Node::Concat(vec![Node::Char('a'), Node::Char('{'), Node::Char('x')])
        );
        assert_eq!(err("a{5,2}"), RegexError::RepeatReversed(5, 2));
        assert_eq!(err("a{100000}"), RegexError::RepeatTooLarge(100_000));
        assert_eq!(
            err("a{99999999999999999999999}"),
            RegexError::RepeatTooLarge(u64::MAX)
        );
        assert_eq!(err("*a"), RegexError::NothingToRepeat('*', 0));
        assert_eq!(err("a**"), RegexError::MultipleRepeat(2));
        assert_eq!(err("^*"), RegexError::NothingToRepeat('*', 1));
    }

    #[test]
    fn classes() {
        let class = |p: &str| match ok(p) {
            Node::Class(c) => c,
            other => panic!("not a class: {other:?}"),
        };
        let c = class("[a-c_]");
        assert!(c.contains('b') && c.contains('_') && !c.contains('d'));
        let c = class("[^0-9]");
        assert!(!c.contains('5') && c.contains('x'));
        let c = class("[]a-]");
        assert!(c.contains(']') && c.contains('-') && c.contains('a'));
        let c = class("[\\d\\]]");
        assert!(c.contains('7') && c.contains(']'));
        let c = class("[\\W]");
        assert!(c.contains(' ') && !c.contains('a') && c.contains('é'));
        assert!(class("\\s").contains('\t'));
        assert_eq!(err("[abc"), RegexError::UnclosedClass(0));
        assert_eq!(err("[z-a]"), RegexError::RangeReversed('z', 'a'));
        assert!(matches!(err("[[:alpha:]]"), RegexError::Unsupported(..)));
    }

    #[test]
    fn refusals_name_the_construct() {
        assert_eq!(err("(a"), RegexError::UnclosedGroup);
        assert_eq!(err("a)"), RegexError::UnopenedGroup(1));
        assert!(matches!(err("(?=a)"), RegexError::Unsupported(s, 0) if s == "(?="));
        assert!(matches!(err("\\1"), RegexError::Unsupported(s, 0) if s == "\\1"));
        assert!(matches!(err("\\p{L}"), RegexError::Unsupported(..)));
        assert_eq!(err("a\\"), RegexError::TrailingBackslash);
        assert_eq!(err(&"(".repeat(200)), RegexError::TooDeep);
        assert!(err("\\q").to_string().contains("not supported"));
    }
}
