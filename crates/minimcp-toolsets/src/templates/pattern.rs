//! The `pattern` of a template parameter, matched by the workspace's linear-time regular
//! expressions ([`crate::workspace::regex`]); the same text is published as the
//! JSON Schema `pattern` of the parameter, and the two subsets agree on what the manifest uses.
//!
//! Two rules of our own on top: a pattern is anchored `^…$` (a value matches entirely), and
//! a value with a line terminator never matches. Template parameters are one-line values, and
//! in ECMA-262 `.` does not match a line terminator, where the workspace engine's `.` (which
//! only ever sees one line) matches anything.

use crate::workspace::limits::MAX_REGEX_STEPS;
use crate::workspace::regex::Regex;

/// A compiled, anchored pattern.
#[derive(Debug)]
pub(crate) struct Pattern {
    regex: Regex,
}

impl Pattern {
    /// Compiles `^…$`; the error says what is wrong with it.
    pub(crate) fn compile(source: &str) -> Result<Pattern, String> {
        if !(source.starts_with('^') && source.ends_with('$')) {
            return Err(format!("pattern {source:?} must be anchored with ^…$"));
        }
        let regex = Regex::new(source, false).map_err(|e| format!("pattern {source:?}: {e}"))?;
        Ok(Pattern { regex })
    }

    /// True when all of `value` matches. Values are bounded (see `params`), so the step
    /// budget is never the limit; running out of it counts as no match.
    pub(crate) fn is_match(&mut self, value: &str) -> bool {
        if value.contains(['\n', '\r', '\u{2028}', '\u{2029}']) {
            return false;
        }
        let mut budget = MAX_REGEX_STEPS;
        self.regex
            .matches_from(value, 0, &mut budget)
            .unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifier_like_names() {
        let mut p = Pattern::compile("^[A-Za-z][A-Za-z0-9_-]{0,63}$").expect("valid");
        for ok in ["a", "my-app", "My_App2"] {
            assert!(p.is_match(ok), "{ok}");
        }
        for bad in ["", "1app", "my app", "app!", "-x", &"a".repeat(65)] {
            assert!(!p.is_match(bad), "{bad}");
        }
    }

    #[test]
    fn versions_and_quantifiers() {
        let mut p = Pattern::compile(r"^\d+\.\d+(\.\d+)?$").expect("groups are ECMA too");
        assert!(p.is_match("1.75") && p.is_match("1.75.0") && !p.is_match("1"));
        let mut p = Pattern::compile(r"^\d+\.\d+\.?\d*$").expect("valid");
        assert!(p.is_match("1.75") && p.is_match("1.75.0") && !p.is_match("1"));
        let mut p = Pattern::compile("^a.c[-x]?$").expect("valid");
        assert!(p.is_match("abc") && p.is_match("a c-") && !p.is_match("ac"));
        assert!(
            !p.is_match("a\rc") && !p.is_match("a\nc"),
            "no line terminators"
        );
    }

    #[test]
    fn unanchored_or_malformed_patterns_are_refused() {
        for bad in ["abc", "^abc", "abc$", "^[a$", "^(a$", r"^(?<=a)b$"] {
            assert!(Pattern::compile(bad).is_err(), "{bad}");
        }
    }
}
