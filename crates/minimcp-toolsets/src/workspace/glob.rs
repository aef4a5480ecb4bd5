//! Glob patterns over `/`-separated relative paths, for `search_files`, the `glob` filter of
//! `search_text`, and `.gitignore` rules.
//!
//! Syntax: `*` (any run of characters within one component), `?` (one character), `[...]`
//! (a class: ranges `a-z`, negation `[!...]` or `[^...]`, `[:alpha:]`-style names), `**` as a
//! whole component (any number of components, including none; a trailing `/**` needs at
//! least one), `{a,b}` alternatives (nestable; off for `.gitignore`, where braces are
//! literal), and `\` to escape the next character. `*` and `?` also match a leading `.`.
//!
//! Matching is a small NFA over components (segment index × component index), so no
//! pattern can make it exponential; within a component, `*` uses the classic single
//! backtrack point, which is linear in practice and quadratic at worst.

use super::braces::expand_braces;
use super::limits::MAX_PATTERN_BYTES;

/// A compiled glob: one or more alternatives (from braces), each a list of segments.
#[derive(Debug, Clone)]
pub(crate) struct Glob {
    alternatives: Vec<Vec<Segment>>,
}

#[derive(Debug, Clone, PartialEq)]
enum Segment {
    /// `**`: zero or more components.
    Globstar,
    /// A component without metacharacters, compared directly.
    Literal(String),
    /// A component with metacharacters.
    Pattern(Vec<Token>),
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Char(char),
    Star,
    Question,
    Class {
        negated: bool,
        items: Vec<ClassItem>,
    },
}

#[derive(Debug, Clone, PartialEq)]
enum ClassItem {
    Range(char, char),
    Named(Named),
}

/// POSIX character class names, as `.gitignore` (fnmatch) allows them.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Named {
    Alpha,
    Digit,
    Alnum,
    Upper,
    Lower,
    Space,
    Xdigit,
    Punct,
}

impl Named {
    fn parse(name: &str) -> Result<Named, String> {
        Ok(match name {
            "alpha" => Named::Alpha,
            "digit" => Named::Digit,
            "alnum" => Named::Alnum,
            "upper" => Named::Upper,
            "lower" => Named::Lower,
            "space" => Named::Space,
            "xdigit" => Named::Xdigit,
            "punct" => Named::Punct,
            _ => return Err(format!("unknown character class `[:{name}:]`")),
        })
    }

    fn contains(self, c: char) -> bool {
        match self {
            Named::Alpha => c.is_alphabetic(),
            Named::Digit => c.is_ascii_digit(),
            Named::Alnum => c.is_alphanumeric(),
            Named::Upper => c.is_uppercase(),
            Named::Lower => c.is_lowercase(),
            Named::Space => c.is_whitespace(),
            Named::Xdigit => c.is_ascii_hexdigit(),
            Named::Punct => c.is_ascii_punctuation(),
        }
    }
}

/// Which dialect to parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// Tool arguments: braces expand, `\` may only escape a metacharacter (so a
    /// Windows-style `src\*.rs` is refused instead of silently matching nothing), and `..`
    /// or absolute patterns are refused.
    Search,
    /// `.gitignore`: braces are literal, `\` escapes anything.
    Gitignore,
}

impl Glob {
    /// Compiles `pattern`; the error says what to fix.
    pub(crate) fn new(pattern: &str, dialect: Dialect) -> Result<Glob, String> {
        if pattern.len() > MAX_PATTERN_BYTES {
            return Err(format!(
                "the pattern is {} bytes long; the limit is {MAX_PATTERN_BYTES}",
                pattern.len()
            ));
        }
        if pattern.contains('\0') {
            return Err("the pattern contains a NUL byte".into());
        }
        let expanded = match dialect {
            Dialect::Search => expand_braces(pattern)?,
            Dialect::Gitignore => vec![pattern.to_string()],
        };
        let mut alternatives = Vec::with_capacity(expanded.len());
        for alternative in &expanded {
            alternatives.push(compile(alternative, dialect)?);
        }
        Ok(Glob { alternatives })
    }

    /// True when the relative path `path` matches.
    pub(crate) fn matches(&self, path: &str) -> bool {
        self.matches_path(&PathInfo::new(path))
    }

    /// [`matches`](Self::matches) for a path already taken apart, so one path checked
    /// against many globs (the `.gitignore` rules in force) is taken apart once.
    pub(crate) fn matches_path(&self, path: &PathInfo<'_>) -> bool {
        self.alternatives
            .iter()
            .any(|segments| matches_alternative(segments, path))
    }

    /// True when some path below the directory `dir` could match (used to prune walks).
    pub(crate) fn could_match_below(&self, dir: &str) -> bool {
        let components: Vec<&str> = dir.split('/').filter(|c| !c.is_empty()).collect();
        self.alternatives.iter().any(|segments| {
            let states = run(segments, &components);
            states[..segments.len()].iter().any(|&s| s)
        })
    }

    /// The leading components every alternative spells out literally (excluding the last
    /// segment), where a walk can start instead of the top.
    pub(crate) fn literal_prefix(&self) -> Vec<String> {
        let mut prefix: Option<Vec<String>> = None;
        for segments in &self.alternatives {
            let literals: Vec<String> = segments[..segments.len().saturating_sub(1)]
                .iter()
                .map_while(|s| match s {
                    Segment::Literal(text) => Some(text.clone()),
                    _ => None,
                })
                .collect();
            prefix = Some(match prefix {
                None => literals,
                Some(p) => p
                    .into_iter()
                    .zip(literals)
                    .take_while(|(a, b)| a == b)
                    .map(|(a, _)| a)
                    .collect(),
            });
        }
        prefix.unwrap_or_default()
    }
}

/// A relative path and the facts about it that rule most globs out at once.
#[derive(Debug)]
pub(crate) struct PathInfo<'a> {
    path: &'a str,
    /// The first non-empty component (`""` when there is none).
    first: &'a str,
    /// The last non-empty component (`""` when there is none).
    last: &'a str,
    /// Non-empty components.
    count: usize,
}

impl PathInfo<'_> {
    pub(crate) fn new(path: &str) -> PathInfo<'_> {
        let mut components = path.split('/').filter(|c| !c.is_empty());
        let first = components.next().unwrap_or("");
        let (mut last, mut count) = (first, usize::from(!first.is_empty()));
        for component in components {
            last = component;
            count += 1;
        }
        PathInfo {
            path,
            first,
            last,
            count,
        }
    }
}

/// True when `path` matches one alternative. Every walked entry is checked against every
/// `.gitignore` rule in force, so the common shapes are answered before the NFA runs: a
/// single-component pattern against a single name, and patterns whose first component or
/// component count already rule the path out.
fn matches_alternative(segments: &[Segment], path: &PathInfo<'_>) -> bool {
    match segments {
        [Segment::Literal(text)] => return path.count == 1 && text == path.first,
        [Segment::Pattern(tokens)] => {
            return path.count == 1 && match_component(tokens, path.first)
        }
        _ => {}
    }
    if let Some(Segment::Literal(text)) = segments.first() {
        if text != path.first {
            return false;
        }
    }
    // The last component must match the last segment, whatever comes between.
    let last_fits = match segments.last() {
        Some(Segment::Literal(text)) => path.count > 0 && text == path.last,
        Some(Segment::Pattern(tokens)) => path.count > 0 && match_component(tokens, path.last),
        _ => true,
    };
    if !last_fits || path.count != segments.len() && !segments.contains(&Segment::Globstar) {
        return false;
    }
    let components: Vec<&str> = path.path.split('/').filter(|c| !c.is_empty()).collect();
    run(segments, &components).get(segments.len()) == Some(&true)
}

/// The NFA states reachable after consuming `components`: `states[i]` is true when the first
/// `i` segments can have matched exactly these components.
fn run(segments: &[Segment], components: &[&str]) -> Vec<bool> {
    let mut states = vec![false; segments.len() + 1];
    states[0] = true;
    close(segments, &mut states);
    for component in components {
        let mut next = vec![false; segments.len() + 1];
        for (i, segment) in segments.iter().enumerate() {
            if !states[i] {
                continue;
            }
            match segment {
                Segment::Globstar => next[i] = true,
                Segment::Literal(text) if text == component => next[i + 1] = true,
                Segment::Pattern(tokens) if match_component(tokens, component) => {
                    next[i + 1] = true
                }
                _ => {}
            }
        }
        close(segments, &mut next);
        if !next.iter().any(|&s| s) {
            return next;
        }
        states = next;
    }
    states
}

/// A globstar may match no components: its state implies the next one.
fn close(segments: &[Segment], states: &mut [bool]) {
    for i in 0..segments.len() {
        if states[i] && segments[i] == Segment::Globstar {
            states[i + 1] = true;
        }
    }
}

/// Matches one component against tokens; `*` keeps one backtrack point.
fn match_component(tokens: &[Token], text: &str) -> bool {
    // Leading and trailing literal characters each consume exactly one character at their
    // end of the text, so they can be compared first: `*.pem` against most names fails at
    // the last character, `id_rsa*` at the first (every walked name meets the deny list).
    let mut ends = text.chars();
    for token in tokens {
        match token {
            Token::Char(c) if ends.next() == Some(*c) => {}
            Token::Char(_) => return false,
            _ => break,
        }
    }
    let mut ends = text.chars().rev();
    for token in tokens.iter().rev() {
        match token {
            Token::Char(c) if ends.next() == Some(*c) => {}
            Token::Char(_) => return false,
            _ => break,
        }
    }
    let (mut t, mut s) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    loop {
        if t < tokens.len() {
            if matches!(tokens[t], Token::Star) {
                star = Some((t + 1, s));
                t += 1;
                continue;
            }
            if let Some(c) = text[s..].chars().next() {
                if tokens[t].matches(c) {
                    t += 1;
                    s += c.len_utf8();
                    continue;
                }
            }
        } else if s == text.len() {
            return true;
        }
        match star {
            Some((resume, from)) if from < text.len() => {
                let next = from + text[from..].chars().next().map_or(1, char::len_utf8);
                star = Some((resume, next));
                t = resume;
                s = next;
            }
            _ => return false,
        }
    }
}

impl Token {
    fn matches(&self, c: char) -> bool {
        match self {
            Token::Char(expected) => *expected == c,
            Token::Question => true,
            Token::Star => false,
            Token::Class { negated, items } => {
                let hit = items.iter().any(|item| match item {
                    ClassItem::Range(lo, hi) => (*lo..=*hi).contains(&c),
                    ClassItem::Named(named) => named.contains(c),
                });
                hit != *negated
            }
        }
    }
}

/// Compiles one brace-free alternative into segments.
fn compile(pattern: &str, dialect: Dialect) -> Result<Vec<Segment>, String> {
    if dialect == Dialect::Search {
        if pattern.starts_with('/') {
            return Err(
                "the pattern must be relative (no leading `/`), such as \"src/**/*.rs\"".into(),
            );
        }
        if pattern.starts_with('~') {
            return Err(
                "the pattern must be relative to the directory searched; `~` is refused".into(),
            );
        }
    }
    let mut segments = Vec::new();
    for part in pattern.split('/') {
        match part {
            "" | "." => continue,
            ".." if dialect == Dialect::Search => {
                return Err(
                    "`..` is refused in patterns: matches stay inside the directory searched"
                        .into(),
                )
            }
            "**" => {
                if segments.last() != Some(&Segment::Globstar) {
                    segments.push(Segment::Globstar);
                }
            }
            _ => {
                let tokens = tokenize(part, dialect)?;
                let literal: String = tokens
                    .iter()
                    .map_while(|t| match t {
                        Token::Char(c) => Some(*c),
                        _ => None,
                    })
                    .collect();
                segments.push(if literal.chars().count() == tokens.len() {
                    Segment::Literal(literal)
                } else {
                    Segment::Pattern(tokens)
                });
            }
        }
    }
    if segments.is_empty() {
        return Err("the pattern is empty; try \"**/*\" for every file".into());
    }
    // A trailing `/**` means "everything inside", not the directory itself: one component,
    // then any number.
    if segments.len() > 1 && segments.last() == Some(&Segment::Globstar) {
        segments.insert(segments.len() - 1, Segment::Pattern(vec![Token::Star]));
    }
    Ok(segments)
}

/// Characters `\` may escape in the search dialect.
const ESCAPABLE: &str = "*?[]{}\\,!^-";

fn tokenize(part: &str, dialect: Dialect) -> Result<Vec<Token>, String> {
    let mut tokens = Vec::new();
    let mut chars = part.chars().peekable();
    while let Some(c) = chars.next() {
        let token = match c {
            '\\' => Token::Char(escaped(chars.next(), dialect)?),
            '*' => {
                // `**` inside a component is an ordinary `*`.
                while chars.peek() == Some(&'*') {
                    chars.next();
                }
                if matches!(tokens.last(), Some(Token::Star)) {
                    continue;
                }
                Token::Star
            }
            '?' => Token::Question,
            '[' => class(&mut chars, dialect)?,
            c => Token::Char(c),
        };
        tokens.push(token);
    }
    Ok(tokens)
}

fn escaped(next: Option<char>, dialect: Dialect) -> Result<char, String> {
    match next {
        None => Err("the pattern ends with a lone `\\`".into()),
        Some(c) if dialect == Dialect::Search && !ESCAPABLE.contains(c) => Err(format!(
            "`\\{c}`: a backslash only escapes a glob character here; separate directories with `/`"
        )),
        Some(c) => Ok(c),
    }
}

fn class(
    chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
    dialect: Dialect,
) -> Result<Token, String> {
    let negated = matches!(chars.peek(), Some('!' | '^'));
    if negated {
        chars.next();
    }
    let mut items = Vec::new();
    let mut first = true;
    loop {
        let c = chars
            .next()
            .ok_or("unclosed `[` in the pattern; escape it as `\\[` to match a bracket")?;
        let lo = match c {
            ']' if !first => break,
            '[' if chars.peek() == Some(&':') => {
                chars.next();
                let name: String = chars.by_ref().take_while(|&c| c != ':').collect();
                if chars.next() != Some(']') {
                    return Err(format!("malformed character class name `[:{name}`"));
                }
                items.push(ClassItem::Named(Named::parse(&name)?));
                first = false;
                continue;
            }
            '\\' => escaped(chars.next(), dialect)?,
            c => c,
        };
        first = false;
        if chars.peek() == Some(&'-') {
            let mut lookahead = chars.clone();
            lookahead.next();
            if let Some(hi) = lookahead.next().filter(|&h| h != ']') {
                chars.next();
                chars.next();
                let hi = if hi == '\\' {
                    escaped(chars.next(), dialect)?
                } else {
                    hi
                };
                if hi < lo {
                    return Err(format!("the range `{lo}-{hi}` is backwards"));
                }
                items.push(ClassItem::Range(lo, hi));
                continue;
            }
        }
        items.push(ClassItem::Range(lo, lo));
    }
    Ok(Token::Class { negated, items })
}

#[cfg(test)]
#[path = "glob_tests.rs"]
mod tests;
