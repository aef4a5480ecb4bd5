//! Finding the lines of a text that match a query, for `search_text`: a literal string
//! (case-sensitive or ASCII case-insensitive, both searched in the file's own bytes, never a
//! lowered copy) or a regular expression (see [`super::regex`], which also serves literal
//! queries that fold non-ASCII case).
//!
//! Every kind works the same way: a fast scan finds a candidate position, the line around
//! it is checked (for literals the candidate is already a match), and the scan resumes after
//! that line, so each matching line is reported once and non-matching text is only scanned.

use std::borrow::Cow;

use super::regex::{plain_text, Exhausted, Regex, RegexError};

/// One query, compiled.
#[derive(Debug)]
pub(crate) enum Matcher {
    /// A literal, searched byte for byte.
    Exact(Literal),
    /// An ASCII literal, case-insensitive: compared with ASCII folding in place.
    AsciiFold(Literal),
    /// A regular expression (or a literal with non-ASCII case folding), and literals one
    /// of which every match contains, when there are such: lines are found by scanning for
    /// them (each with where it next occurs, reset per text).
    Regex(Box<Regex>, Vec<(Literal, Next)>),
}

/// A literal needle and which of its bytes the scan looks for first.
#[derive(Debug)]
pub(crate) struct Literal {
    needle: Vec<u8>,
    /// Index of the rarest-looking byte of the needle.
    rare: usize,
}

/// Where a matching line is in the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Line {
    /// 1-based line number.
    pub(crate) number: usize,
    /// Byte range of the line, without its terminator (`\n` or `\r\n`).
    pub(crate) start: usize,
    pub(crate) end: usize,
}

impl Matcher {
    /// A literal search for `query` (not empty).
    pub(crate) fn literal(query: &str, case_sensitive: bool) -> Result<Matcher, RegexError> {
        let literal = || Literal::new(query.as_bytes());
        Ok(match (case_sensitive, query.is_ascii()) {
            (true, _) => Matcher::Exact(literal()),
            (false, true) => Matcher::AsciiFold(literal()),
            (false, false) => Matcher::with_regex(Regex::literal(query)?),
        })
    }

    /// A regular-expression search; a pattern without operators is searched as the
    /// literal it spells (the faster scan, the same lines).
    pub(crate) fn regex(pattern: &str, case_sensitive: bool) -> Result<Matcher, RegexError> {
        if let Some((text, fold)) = plain_text(pattern) {
            return Matcher::literal(&text, case_sensitive && !fold);
        }
        Ok(Matcher::with_regex(Regex::new(pattern, !case_sensitive)?))
    }

    fn with_regex(regex: Regex) -> Matcher {
        let required = regex
            .required()
            .iter()
            .map(|text| (Literal::new(text.as_bytes()), Next::Unknown))
            .collect();
        Matcher::Regex(Box::new(regex), required)
    }

    /// Calls `found` for each matching line of `bytes`, in order, until it returns false.
    /// The bytes need not be UTF-8: literals are found byte for byte, and a regular
    /// expression sees each candidate line decoded on its own (invalid sequences as U+FFFD),
    /// so a file is never validated or copied whole. Regular expressions spend `budget`
    /// (see [`Regex::matches_from`]); `Err` when it ran out before the end.
    pub(crate) fn each_line(
        &mut self,
        bytes: &[u8],
        budget: &mut u64,
        mut found: impl FnMut(Line) -> bool,
    ) -> Result<(), Exhausted> {
        let (mut from, mut number, mut counted_to) = (0, 1, 0);
        if let Matcher::Regex(_, required) = self {
            for (_, next) in required.iter_mut() {
                *next = Next::Unknown;
            }
        }
        while from < bytes.len() {
            let candidate = match self {
                Matcher::Exact(literal) => literal.find(bytes, from, false),
                Matcher::AsciiFold(literal) => literal.find(bytes, from, true),
                Matcher::Regex(regex, required) if required.is_empty() => {
                    regex.candidate(bytes, from)
                }
                Matcher::Regex(regex, required) => {
                    find_any(required, bytes, from, regex.folds_case())
                }
            };
            let Some(at) = candidate else {
                return Ok(());
            };
            let start = bytes[from..at]
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(from, |i| from + i + 1);
            let next = find_byte(&bytes[at..], b'\n', false).map_or(bytes.len(), |i| at + i);
            let end = if next > start && bytes[next - 1] == b'\r' {
                next - 1
            } else {
                next
            };
            let matched = match self {
                Matcher::Regex(regex, required) => {
                    let line = String::from_utf8_lossy(&bytes[start..end]);
                    // A match starts no earlier than a first-byte candidate, which falls on a
                    // character start; it may start before the required text, and in a line
                    // with invalid bytes the offsets shift: then the whole line is examined.
                    let skip = match &line {
                        Cow::Borrowed(_) if required.is_empty() => at.min(end) - start,
                        _ => 0,
                    };
                    regex.matches_from(&line, skip, budget)?
                }
                _ => true,
            };
            if matched {
                number += count_newlines(&bytes[counted_to..start]);
                counted_to = start;
                if !found(Line { number, start, end }) {
                    return Ok(());
                }
            }
            from = next + 1;
        }
        Ok(())
    }
}

/// Where a literal next occurs in the text being searched.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Next {
    /// Not looked for yet in this text.
    Unknown,
    /// At this offset (valid while the search has not passed it).
    At(usize),
    /// Nowhere after the last offset looked from.
    Never,
}

/// The first offset at or after `from` where one of the literals occurs. Each literal's next
/// occurrence is remembered, so a text is scanned about once per literal, not once per
/// candidate.
fn find_any(
    literals: &mut [(Literal, Next)],
    bytes: &[u8],
    from: usize,
    fold: bool,
) -> Option<usize> {
    let mut best: Option<usize> = None;
    for (literal, next) in literals.iter_mut() {
        let at = match *next {
            Next::Never => None,
            Next::At(at) if at >= from => Some(at),
            _ => {
                let found = literal.find(bytes, from, fold);
                *next = found.map_or(Next::Never, Next::At);
                found
            }
        };
        best = match (best, at) {
            (Some(b), Some(a)) => Some(b.min(a)),
            (b, a) => b.or(a),
        };
    }
    best
}

/// Bytes roughly ordered from common to rare in source code and prose; the scan looks for
/// the needle byte that comes latest here (bytes not listed count as rarest).
const COMMON_BYTES: &[u8] =
    b" etaoinsrlcdhu\npmfgybw.,;()=_:\"'/-vk\tx0123456789{}<>ETAOINSRLCDHUPMFGYBWVKXjqJQzZ";

impl Literal {
    fn new(needle: &[u8]) -> Literal {
        let rank = |b: u8| {
            let b = b.to_ascii_lowercase();
            COMMON_BYTES
                .iter()
                .position(|&c| c == b)
                .unwrap_or(COMMON_BYTES.len())
        };
        let rare = (0..needle.len())
            .max_by_key(|&i| rank(needle[i]))
            .unwrap_or(0);
        Literal {
            needle: needle.to_vec(),
            rare,
        }
    }

    /// The first occurrence of the needle at or after `from`.
    fn find(&self, hay: &[u8], from: usize, fold: bool) -> Option<usize> {
        let n = self.needle.len();
        let byte = self.needle[self.rare];
        // Only letters have another case; folding anything else would find other bytes.
        let fold_byte = fold && byte.is_ascii_alphabetic();
        let mut at = from + self.rare;
        while at + (n - self.rare) <= hay.len() {
            let hit = at + find_byte(&hay[at..hay.len() - (n - self.rare - 1)], byte, fold_byte)?;
            let start = hit - self.rare;
            let window = &hay[start..start + n];
            let equal = if fold {
                window.eq_ignore_ascii_case(&self.needle)
            } else {
                window == self.needle.as_slice()
            };
            if equal {
                return Some(start);
            }
            at = hit + 1;
        }
        None
    }
}

/// Eight copies of a byte in a word.
const fn splat(b: u8) -> u64 {
    (b as u64) * 0x0101_0101_0101_0101
}

/// True when some byte of `word` is zero (the classic bit trick: exact for "any").
fn has_zero(word: u64) -> bool {
    word.wrapping_sub(splat(1)) & !word & splat(0x80) != 0
}

/// The index of the first `byte` in `hay` (with `fold`, of either ASCII case of the letter
/// `byte`), eight bytes at a time.
fn find_byte(hay: &[u8], byte: u8, fold: bool) -> Option<usize> {
    // Setting bit 0x20 maps `A` to `a` and no other byte to a lowercase letter.
    let (mask, want) = if fold {
        (splat(0x20), byte.to_ascii_lowercase())
    } else {
        (0, byte)
    };
    let is = |b: u8| b | mask as u8 == want;
    let target = splat(want);
    let mut chunks = hay.chunks_exact(8);
    let mut offset = 0;
    for chunk in &mut chunks {
        let mut word = [0; 8];
        word.copy_from_slice(chunk);
        if has_zero((u64::from_le_bytes(word) | mask) ^ target) {
            return chunk.iter().position(|&b| is(b)).map(|i| offset + i);
        }
        offset += 8;
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| is(b))
        .map(|i| offset + i)
}

fn count_newlines(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b == b'\n').count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hits(matcher: &mut Matcher, text: &str) -> Vec<(usize, String)> {
        let mut out = Vec::new();
        let mut budget = u64::MAX;
        matcher
            .each_line(text.as_bytes(), &mut budget, |line| {
                out.push((line.number, text[line.start..line.end].to_string()));
                true
            })
            .expect("unlimited budget");
        out
    }

    fn literal(query: &str, case_sensitive: bool, text: &str) -> Vec<(usize, String)> {
        hits(
            &mut Matcher::literal(query, case_sensitive).expect("short"),
            text,
        )
    }

    fn regex(pattern: &str, text: &str) -> Vec<(usize, String)> {
        hits(&mut Matcher::regex(pattern, true).expect("valid"), text)
    }

    #[test]
    fn literal_search_reports_each_line_once() {
        let text = "fn main() {\n    main(); main();\n}\nMAIN\n";
        assert_eq!(
            literal("main", true, text),
            [(1, "fn main() {".into()), (2, "    main(); main();".into())]
        );
        assert_eq!(literal("main", false, text).len(), 3);
        assert_eq!(
            literal("MAIN", false, text).last(),
            Some(&(4, "MAIN".to_string()))
        );
        assert!(
            literal("a.*b", true, "axxb\n").is_empty(),
            "literal, not regex"
        );
        assert_eq!(literal("x", true, "a\r\nx\r\n"), [(2, "x".into())]);
        assert_eq!(
            literal("end", true, "no newline at the end"),
            [(1, "no newline at the end".into())]
        );
        assert_eq!(literal("a\nb", true, "a\nb\n"), [(1, "a".into())]);
    }

    #[test]
    fn ascii_folding_touches_letters_only() {
        // `@` | 0x20 is a backquote: non-letters must match exactly.
        assert!(literal("@", false, "`\n").is_empty());
        assert_eq!(literal("[X]", false, "{x}\n[x]\n"), [(2, "[x]".into())]);
        assert_eq!(literal("Zz", false, "zZ\nzz\n").len(), 2);
    }

    #[test]
    fn the_word_scan_finds_every_position() {
        let hay: Vec<u8> = (0..100u8).map(|i| b'a' + i % 7).collect();
        for fold in [false, true] {
            for byte in [b'a', b'g', b'c', b'z'] {
                for start in 0..20 {
                    let expected = hay[start..].iter().position(|&b| b == byte);
                    assert_eq!(find_byte(&hay[start..], byte, fold), expected);
                }
            }
        }
        assert_eq!(find_byte(b"xxxxxxxxxxxxA", b'a', true), Some(12));
        assert_eq!(find_byte(b"xxxxxxxxxxxxA", b'a', false), None);
    }

    #[test]
    fn unicode_queries_fold_with_simple_case_mapping() {
        let text = "Grüße\nGRÜSSE\ngrüße\n";
        let lines = |q| {
            literal(q, false, text)
                .iter()
                .map(|h| h.0)
                .collect::<Vec<_>>()
        };
        assert_eq!(lines("grüße"), [1, 3]);
        assert_eq!(lines("GRÜ"), [1, 2, 3]);
        assert_eq!(literal("Grü", true, text).len(), 1);
        assert_eq!(literal("a.b", false, "aéb\na.b\n"), [(2, "a.b".into())]);
    }

    #[test]
    fn regexes_see_whole_lines() {
        let text = "let x = 1;\r\nfn main() {}\n  fn helper()\nend";
        assert_eq!(regex("^fn \\w+", text), [(2, "fn main() {}".into())]);
        assert_eq!(regex("\\)$", text), [(3, "  fn helper()".into())]);
        assert_eq!(regex(";$", text), [(1, "let x = 1;".into())]);
        assert_eq!(regex("^$", "a\n\nb\n"), [(2, String::new())]);
        assert_eq!(
            regex("^", "a\nb\n").len(),
            2,
            "no line after the last newline"
        );
        assert!(regex("x", "").is_empty());
    }

    #[test]
    fn scanning_ahead_finds_the_lines_running_every_line_finds() {
        // The engine itself is checked against Python's `re` (regex::tests); here, that the
        // scans for first bytes and required texts skip no matching line.
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut text = String::new();
        let words = [
            "fn", "impl", "TODO", "todo", "FIXME", "x", "ab", " ", "\t", "é", "\n", "\r\n", "_1",
        ];
        for _ in 0..4000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            text.push_str(words[(seed % words.len() as u64) as usize]);
        }
        let patterns = [
            "TODO|FIXME",
            "(fn|impl)\\s+\\w+",
            "\\bab\\b",
            "^\\s*fn",
            "x$",
            "(ab)+x",
            "é+",
            "todo|\\d",
            "[A-Z]{2,}",
            "fn.*impl",
            "^$",
            "_1\\b|ab",
        ];
        for pattern in patterns {
            for case_sensitive in [true, false] {
                let mut matcher = Matcher::regex(pattern, case_sensitive).expect("valid");
                let mut found = Vec::new();
                let mut budget = u64::MAX;
                matcher
                    .each_line(text.as_bytes(), &mut budget, |line| {
                        found.push(line.number);
                        true
                    })
                    .expect("budget");
                let mut re = Regex::new(pattern, !case_sensitive).expect("valid");
                let expected: Vec<usize> = text
                    .lines()
                    .enumerate()
                    .filter(|(_, line)| re.is_match(line))
                    .map(|(i, _)| i + 1)
                    .collect();
                assert_eq!(
                    found, expected,
                    "{pattern} (case-sensitive: {case_sensitive})"
                );
            }
        }
    }

    #[test]
    fn the_caller_can_stop_early() {
        let mut seen = 0;
        let mut budget = u64::MAX;
        Matcher::literal("x", true)
            .expect("short")
            .each_line(b"x\nx\nx\n", &mut budget, |_| {
                seen += 1;
                seen < 2
            })
            .expect("budget");
        assert_eq!(seen, 2);
    }
}
