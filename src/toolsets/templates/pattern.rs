//! The `pattern` of a template parameter: the small subset of regular expressions the
//! manifest uses, matched here (no regex crate). The same text is published as the JSON
//! Schema `pattern` of the parameter, so it must mean the same in ECMA-262.
//!
//! Supported: `^…$` anchors around the whole pattern (required: a value matches entirely),
//! literal characters, `\.` `\-` `\+` and other escaped punctuation, `.`, classes `[a-z0-9_-]`
//! (ranges, no negation), `\d`, and the quantifiers `?`, `*`, `+`, `{n}`, `{m,n}`. No
//! groups or alternation. Patterns are ours (the manifest), not the client's; a unit test
//! compiles every one, and values are bounded, so backtracking stays small.

/// One element of a pattern.
#[derive(Debug, Clone, PartialEq)]
enum Atom {
    Any,
    Char(char),
    Class(Vec<(char, char)>),
}

impl Atom {
    fn matches(&self, c: char) -> bool {
        match self {
            // ECMA-262: `.` matches anything but a line terminator.
            Atom::Any => !matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}'),
            Atom::Char(x) => *x == c,
            Atom::Class(ranges) => ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi),
        }
    }
}

/// A compiled pattern: atoms with their repetition bounds.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Pattern {
    items: Vec<(Atom, usize, usize)>,
}

impl Pattern {
    /// Compiles `^…$`; the error says what is outside the subset.
    pub(crate) fn compile(source: &str) -> Result<Pattern, String> {
        let body = source
            .strip_prefix('^')
            .and_then(|s| s.strip_suffix('$'))
            .ok_or_else(|| format!("pattern {source:?} must be anchored with ^…$"))?;
        let mut chars = body.chars().peekable();
        let mut items = Vec::new();
        while let Some(c) = chars.next() {
            let atom = match c {
                '.' => Atom::Any,
                '\\' => escape(chars.next(), source)?,
                '[' => {
                    let mut ranges = Vec::new();
                    loop {
                        let c = chars
                            .next()
                            .ok_or_else(|| format!("unclosed [ in {source:?}"))?;
                        let lo = match c {
                            ']' => break,
                            '^' if ranges.is_empty() => {
                                return Err(format!(
                                    "negated classes are not supported: {source:?}"
                                ))
                            }
                            '\\' => match escape(chars.next(), source)? {
                                Atom::Char(c) => c,
                                Atom::Class(mut digits) => {
                                    ranges.append(&mut digits);
                                    continue;
                                }
                                Atom::Any => unreachable!("escape never yields Any"),
                            },
                            c => c,
                        };
                        if chars.peek() == Some(&'-') {
                            chars.next();
                            match chars.peek() {
                                Some(']') | None => {
                                    ranges.push((lo, lo));
                                    ranges.push(('-', '-'));
                                }
                                Some(&hi) => {
                                    chars.next();
                                    ranges.push((lo, hi));
                                }
                            }
                        } else {
                            ranges.push((lo, lo));
                        }
                    }
                    Atom::Class(ranges)
                }
                '(' | ')' | '|' | '*' | '+' | '?' | '{' | '}' | '^' | '$' => {
                    return Err(format!("{c:?} is not supported here in {source:?}"))
                }
                c => Atom::Char(c),
            };
            let (min, max) = match chars.peek() {
                Some('?') => (0, 1),
                Some('*') => (0, usize::MAX),
                Some('+') => (1, usize::MAX),
                Some('{') => {
                    chars.next();
                    let mut spec = String::new();
                    for c in chars.by_ref() {
                        if c == '}' {
                            break;
                        }
                        spec.push(c);
                    }
                    let bad = || format!("bad repetition {{{spec}}} in {source:?}");
                    let (lo, hi) = match spec.split_once(',') {
                        Some((lo, hi)) => (
                            lo.parse().map_err(|_| bad())?,
                            hi.parse().map_err(|_| bad())?,
                        ),
                        None => {
                            let n = spec.parse().map_err(|_| bad())?;
                            (n, n)
                        }
                    };
                    items.push((atom, lo, hi));
                    continue;
                }
                _ => (1, 1),
            };
            if (min, max) != (1, 1) {
                chars.next();
            }
            items.push((atom, min, max));
        }
        Ok(Pattern { items })
    }

    /// True when all of `value` matches.
    pub(crate) fn is_match(&self, value: &str) -> bool {
        let chars: Vec<char> = value.chars().collect();
        match_from(&self.items, &chars)
    }
}

fn escape(c: Option<char>, source: &str) -> Result<Atom, String> {
    match c {
        Some('d') => Ok(Atom::Class(vec![('0', '9')])),
        Some(c) if c.is_ascii_punctuation() => Ok(Atom::Char(c)),
        _ => Err(format!("unsupported escape in {source:?}")),
    }
}

/// Greedy with backtracking.
fn match_from(items: &[(Atom, usize, usize)], input: &[char]) -> bool {
    let Some(((atom, min, max), rest)) = items.split_first() else {
        return input.is_empty();
    };
    let most = input
        .iter()
        .take(*max)
        .take_while(|&&c| atom.matches(c))
        .count();
    (*min..=most).rev().any(|n| match_from(rest, &input[n..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifier_like_names() {
        let p = Pattern::compile("^[A-Za-z][A-Za-z0-9_-]{0,63}$").expect("valid");
        for ok in ["a", "my-app", "My_App2"] {
            assert!(p.is_match(ok), "{ok}");
        }
        for bad in ["", "1app", "my app", "app!", "-x", &"a".repeat(65)] {
            assert!(!p.is_match(bad), "{bad}");
        }
    }

    #[test]
    fn versions_and_quantifiers() {
        let p = Pattern::compile(r"^\d+\.\d+(\.\d+)?$");
        assert!(p.is_err(), "groups are outside the subset");
        let p = Pattern::compile(r"^\d+\.\d+\.?\d*$").expect("valid");
        assert!(p.is_match("1.75") && p.is_match("1.75.0") && !p.is_match("1"));
        let p = Pattern::compile("^a.c[-x]?$").expect("valid");
        assert!(p.is_match("abc") && p.is_match("a c-") && !p.is_match("ac"));
        assert!(
            !p.is_match("a\rc") && !p.is_match("a\nc"),
            "no line terminators"
        );
    }

    #[test]
    fn unsupported_syntax_is_refused() {
        for bad in ["abc", "^a|b$", "^[^a]$", "^[a$", r"^\w$", "^a{x}$"] {
            assert!(Pattern::compile(bad).is_err(), "{bad}");
        }
    }
}
