//! Exemptions written in the source: a comment that lets one function go over a limit.
//!
//! Three spellings are read, so that a team can switch tools without editing code:
//! - `minimcp: allow cyclomatic=25 cognitive=40 -- generated parser`: the function's limit
//!   becomes the number given, for each metric named; the reason after `--` is required.
//! - `# noqa: complexipy` and `# complexipy: ignore` (complexipy's): cognitive complexity,
//!   any value (complexipy measures nothing else).
//! - `#lizard forgives` (lizard's, also `// #lizard forgives the complexity`): both
//!   metrics, any value.
//!
//! A marker counts only in a comment, and only at the comment's start (after the comment's
//! own punctuation: `#`, `//`, `/*`, `*`, `!`): `x = "# noqa: complexipy"` and `# see
//! minimcp: allow` are not exemptions. Comments are found without knowing any language's
//! comment syntax: the lexer returns its tokens as slices of the source and drops comments,
//! so what lies between two tokens is whitespace and comments only. A language opts in by
//! having its lexer keep that rule (every token's text a slice of the source, nothing but
//! whitespace and comments left out); a new language gets exemptions with no change here.
//!
//! A comment belongs to the function it sits directly above (only blank, comment, decorator
//! `@…` and attribute `#[…]` lines between) or else to the innermost function whose lines
//! hold it (its head line or its body). One that belongs to no function is reported.

use super::lang::Lang;
use super::lexer;

/// The largest limit an exemption may name (a typo such as `25000` is refused).
const MAX_ALLOWED: u32 = 100_000;

/// One exemption comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exemption {
    /// The 1-based line of the comment.
    pub line: u32,
    /// What it exempts.
    pub kind: Kind,
    /// The comment from its marker to the end of its line, for reports.
    pub text: String,
}

/// What an exemption comment says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// `minimcp: allow METRIC=N … -- REASON`: the function's limit for each metric named.
    Allow {
        /// The cyclomatic limit it grants, when it names one.
        cyclomatic: Option<u32>,
        /// The cognitive limit it grants, when it names one.
        cognitive: Option<u32>,
        /// What follows `--`.
        reason: String,
    },
    /// `noqa: complexipy` or `complexipy: ignore`: cognitive complexity, any value.
    Complexipy,
    /// `#lizard forgives`: both metrics, any value.
    Lizard,
    /// A `minimcp: allow` comment that does not parse; the text says what is wrong. It
    /// exempts nothing.
    Malformed(String),
}

impl Kind {
    /// The limit this exemption grants for `metric` (`cyclomatic` or `cognitive`):
    /// `Some(u32::MAX)` for any value, `None` when it does not touch the metric.
    pub fn allows(&self, cognitive: bool) -> Option<u32> {
        match self {
            Kind::Allow {
                cyclomatic: cy,
                cognitive: co,
                ..
            } => {
                if cognitive {
                    *co
                } else {
                    *cy
                }
            }
            Kind::Complexipy if cognitive => Some(u32::MAX),
            Kind::Complexipy | Kind::Malformed(_) => None,
            Kind::Lizard => Some(u32::MAX),
        }
    }
}

/// True when `src` may hold an exemption: a cheap test that spares lexing a file twice.
pub(crate) fn may_hold(src: &str) -> bool {
    src.contains("minimcp:") || src.contains("complexipy") || src.contains("lizard forgive")
}

/// Every exemption comment of `src`, each with the index in `spans` (first and last line of
/// each function, in any order) of the function it belongs to.
pub(crate) fn find(src: &str, lang: Lang, spans: &[(u32, u32)]) -> Vec<(Exemption, Option<usize>)> {
    let lines: Vec<&str> = src.split('\n').collect();
    comments(src, lang)
        .into_iter()
        .filter_map(|(line, text)| parse(text).map(|kind| (line, kind, text)))
        .map(|(line, kind, text)| {
            let owner = owner(&lines, spans, line);
            let exemption = Exemption {
                line,
                kind,
                text: text.trim_end().to_string(),
            };
            (exemption, owner)
        })
        .collect()
}

/// Each place in a comment where a line's comment text starts (after the comment's own
/// punctuation and spaces), with its 1-based line: the text from there to the end of the
/// line, a closing `*/` left off.
fn comments(src: &str, lang: Lang) -> Vec<(u32, &str)> {
    let base = src.as_ptr() as usize;
    let mut gaps = Vec::new();
    let mut at = 0;
    for token in lexer::lex(src, lang) {
        // A token's text is a slice of `src`; anything else (none today) is skipped.
        let start = (token.text.as_ptr() as usize).wrapping_sub(base);
        if start > src.len() || start < at {
            continue;
        }
        gaps.push(at..start);
        at = start + token.text.len();
    }
    gaps.push(at.min(src.len())..src.len());
    let mut out = Vec::new();
    let (mut line, mut counted) = (1u32, 0);
    for gap in gaps {
        let text = &src[gap.clone()];
        if !may_hold(text) {
            continue;
        }
        let mut offset = gap.start;
        for piece in text.split_inclusive('\n') {
            line += src[counted..offset].bytes().filter(|&b| b == b'\n').count() as u32;
            counted = offset;
            let body = piece.trim_start_matches(|c: char| {
                matches!(c, ' ' | '\t' | '#' | '/' | '*' | '!' | '\r')
            });
            // Something must have opened the comment on this line, or the gap continues a
            // block comment's line: `/*` ⏎ `minimcp: allow …` counts too.
            let body = body.trim_end_matches(['\n', '\r']);
            let body = body.strip_suffix("*/").unwrap_or(body).trim_end();
            if !body.is_empty() {
                out.push((line, body));
            }
            offset += piece.len();
        }
    }
    out
}

/// The exemption a comment's text states, if it is one.
fn parse(text: &str) -> Option<Kind> {
    if let Some(rest) = text.strip_prefix("minimcp:") {
        let rest = rest.trim_start().strip_prefix("allow")?;
        if !rest.is_empty() && !rest.starts_with([' ', '\t']) {
            return None;
        }
        return Some(allow(rest));
    }
    if let Some(rest) = text.strip_prefix("noqa:") {
        return rest
            .trim_start()
            .starts_with("complexipy")
            .then_some(Kind::Complexipy);
    }
    if text.starts_with("complexipy: ignore") {
        return Some(Kind::Complexipy);
    }
    let rest = text.strip_prefix("lizard forgive")?;
    // `#lizard forgive global` is about code outside functions, which is not measured.
    let rest = rest.strip_prefix('s').unwrap_or(rest);
    (!rest.trim_start().starts_with("global")).then_some(Kind::Lizard)
}

/// `METRIC=N [METRIC=N] -- REASON` after `minimcp: allow`.
fn allow(rest: &str) -> Kind {
    let Some((limits, reason)) = rest.split_once("--") else {
        return Kind::Malformed(
            "no reason: write one after `--` (minimcp: allow cyclomatic=25 -- generated parser)"
                .into(),
        );
    };
    let reason = reason.trim();
    if reason.is_empty() {
        return Kind::Malformed("the reason after `--` is empty".into());
    }
    let (mut cyclomatic, mut cognitive) = (None, None);
    for word in limits.split([' ', '\t', ',']).filter(|w| !w.is_empty()) {
        let Some((metric, value)) = word.split_once('=') else {
            return Kind::Malformed(format!(
                "`{word}` is not METRIC=N (cyclomatic=25 or cognitive=40)"
            ));
        };
        let value = match value.parse::<u32>() {
            Ok(n) if (1..=MAX_ALLOWED).contains(&n) => n,
            _ => {
                return Kind::Malformed(format!(
                    "`{word}`: the limit must be a whole number from 1 to {MAX_ALLOWED}"
                ))
            }
        };
        let slot = match metric {
            "cyclomatic" => &mut cyclomatic,
            "cognitive" => &mut cognitive,
            other => {
                return Kind::Malformed(format!(
                    "unknown metric `{other}`: use cyclomatic or cognitive"
                ))
            }
        };
        if slot.replace(value).is_some() {
            return Kind::Malformed(format!("`{metric}` is named twice"));
        }
    }
    if cyclomatic.is_none() && cognitive.is_none() {
        return Kind::Malformed("name a limit: cyclomatic=N or cognitive=N".into());
    }
    Kind::Allow {
        cyclomatic,
        cognitive,
        reason: reason.to_string(),
    }
}

/// The function a comment on `line` belongs to (see the module documentation).
fn owner(lines: &[&str], spans: &[(u32, u32)], line: u32) -> Option<usize> {
    let between_is_preamble = |start: u32| {
        (line + 1..start).all(|n| {
            let text = lines.get(n as usize - 1).map_or("", |l| l.trim());
            text.is_empty() || text.starts_with(['#', '/', '*', '@'])
        })
    };
    let above = spans
        .iter()
        .enumerate()
        .filter(|(_, &(start, _))| start > line && between_is_preamble(start))
        .min_by_key(|(_, &(start, end))| (start, std::cmp::Reverse(end)))
        .map(|(i, _)| i);
    above.or_else(|| {
        spans
            .iter()
            .enumerate()
            .filter(|(_, &(start, end))| start <= line && line <= end)
            .min_by_key(|(_, &(start, end))| (end - start, std::cmp::Reverse(start)))
            .map(|(i, _)| i)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(src: &str, lang: Lang, spans: &[(u32, u32)]) -> Vec<(u32, Kind, Option<usize>)> {
        find(src, lang, spans)
            .into_iter()
            .map(|(e, owner)| (e.line, e.kind, owner))
            .collect()
    }

    fn allow(cy: Option<u32>, co: Option<u32>, reason: &str) -> Kind {
        Kind::Allow {
            cyclomatic: cy,
            cognitive: co,
            reason: reason.into(),
        }
    }

    #[test]
    fn each_spelling_in_comments_of_each_language() {
        let py = "x = 1\n\n# minimcp: allow cyclomatic=25 -- generated parser\n@cache\ndef f(a):  # noqa: complexipy\n    # #lizard forgives\n    return a\n";
        assert_eq!(
            found(py, Lang::Python, &[(5, 7)]),
            [
                (3, allow(Some(25), None, "generated parser"), Some(0)),
                (5, Kind::Complexipy, Some(0)),
                (6, Kind::Lizard, Some(0)),
            ]
        );
        let rs = "/// Parses.\n// minimcp: allow cognitive=40, cyclomatic=30 -- a table */\n#[inline]\nfn f() {\n    /* #lizard forgives the complexity */\n}\n";
        assert_eq!(
            found(rs, Lang::Rust, &[(4, 6)]),
            [
                (2, allow(Some(30), Some(40), "a table"), Some(0)),
                (5, Kind::Lizard, Some(0)),
            ]
        );
        let go =
            "func f() {\n\t/*\n\t * minimcp: allow cyclomatic=12 -- switch on opcodes\n\t */\n}\n";
        assert_eq!(
            found(go, Lang::Go, &[(1, 5)]),
            [(3, allow(Some(12), None, "switch on opcodes"), Some(0))]
        );
    }

    #[test]
    fn strings_and_prose_are_not_exemptions() {
        let py = "s = \"# noqa: complexipy\"\nt = '''\n# minimcp: allow cyclomatic=3 -- x\n'''\n# see minimcp: allow cyclomatic=3 -- x\n# complexipy is fine\n# minimcp: the server\n";
        assert_eq!(found(py, Lang::Python, &[(1, 7)]), []);
        let js = "const s = `// #lizard forgives`;\nconst r = /#lizard forgives/;\n";
        assert_eq!(found(js, Lang::JavaScript, &[(1, 2)]), []);
        assert_eq!(found("# lizard forgive global\n", Lang::Python, &[]), []);
    }

    #[test]
    fn malformed_allows_are_reported_and_exempt_nothing() {
        for (comment, why) in [
            ("minimcp: allow cyclomatic=25", "no reason"),
            ("minimcp: allow cyclomatic=25 --  ", "empty"),
            ("minimcp: allow -- why", "name a limit"),
            ("minimcp: allow cyclomatic -- why", "METRIC=N"),
            ("minimcp: allow cyclomatic=0 -- why", "whole number"),
            ("minimcp: allow cyclomatic=x -- why", "whole number"),
            ("minimcp: allow cyclomatic=999999 -- why", "whole number"),
            ("minimcp: allow nesting=3 -- why", "unknown metric"),
            ("minimcp: allow cognitive=3 cognitive=4 -- why", "twice"),
        ] {
            let src = format!("def f():\n    # {comment}\n    return 1\n");
            let got = found(&src, Lang::Python, &[(1, 3)]);
            match &got[..] {
                [(2, Kind::Malformed(message), Some(0))] => {
                    assert!(message.contains(why), "{comment}: {message}")
                }
                other => panic!("{comment}: {other:?}"),
            }
            assert_eq!(got[0].1.allows(false), None);
        }
    }

    #[test]
    fn a_comment_belongs_to_the_function_below_or_around_it() {
        let src = "def outer():\n    # #lizard forgives\n    x = 1\n    # minimcp: allow cognitive=9 -- inner\n\n    def inner():\n        return 2\n    return inner\n\n\n# noqa: complexipy\nx = 3\n";
        let spans = [(1, 8), (6, 7)];
        assert_eq!(
            found(src, Lang::Python, &spans),
            [
                (2, Kind::Lizard, Some(0)),
                (4, allow(None, Some(9), "inner"), Some(1)),
                (11, Kind::Complexipy, None),
            ]
        );
        assert_eq!(Kind::Complexipy.allows(true), Some(u32::MAX));
        assert_eq!(Kind::Complexipy.allows(false), None);
        assert_eq!(Kind::Lizard.allows(false), Some(u32::MAX));
    }
}
