//! `.gitignore` rules, so walks leave out what git leaves out (`target/`, `node_modules/`).
//!
//! Supported, as git documents them: blank lines and `#` comments; `\#` and `\!` for
//! literal leading characters; trailing spaces trimmed unless escaped; `!` negation (last
//! matching rule wins, and a deeper `.gitignore` overrides a shallower one); a trailing `/`
//! for directories only; a `/` at the start or in the middle anchors the pattern to the
//! `.gitignore`'s directory, otherwise it matches a name at any depth; `*`, `?`, `[...]` and
//! `**` (`**/x`, `x/**`, `a/**/b`). As in git, nothing inside an ignored directory can be
//! re-included: walks do not enter ignored directories at all.
//!
//! This file matches rules; the walk reads the `.gitignore` files (see
//! `walk.rs`'s `IgnoreStack`), and the sandbox's deny list is rules of the same syntax.

use super::glob::{Dialect, Glob, PathInfo};
use super::names::fold;

/// One rule of a `.gitignore` file.
#[derive(Debug)]
struct Rule {
    glob: Glob,
    negated: bool,
    dir_only: bool,
    /// Matched against the path below the `.gitignore`'s directory; otherwise against the
    /// last component only.
    anchored: bool,
}

/// The rules of one `.gitignore` file.
#[derive(Debug, Default)]
pub(crate) struct Rules {
    rules: Vec<Rule>,
    /// Letter case is ignored (the deny list: see [`Rules::parse_folded`]).
    fold: bool,
}

impl Rules {
    /// Parses the text of a `.gitignore` file; lines that are not valid patterns are skipped
    /// (git ignores them too).
    pub(crate) fn parse(text: &str) -> Rules {
        let rules = text.lines().filter_map(parse_line).collect();
        Rules { rules, fold: false }
    }

    /// Parses rules that match whatever the letter case of the pattern and the path (the
    /// deny list: a case-insensitive volume opens `.env` for `.ENV`, and refusing `.ENV` on
    /// a volume where it is another file hides nothing a user meant to serve).
    pub(crate) fn parse_folded(text: &str) -> Rules {
        Rules {
            fold: true,
            ..Rules::parse(&fold(text))
        }
    }

    /// `Some(true)` when the last matching rule ignores `path` (relative to this file's
    /// directory), `Some(false)` when it re-includes it, `None` when no rule matches.
    pub(crate) fn decide(&self, path: &str, is_dir: bool) -> Option<bool> {
        let folded = if self.fold { fold(path) } else { path.into() };
        let path = folded.as_ref();
        let name = path.rsplit('/').next().unwrap_or(path);
        let (whole, name) = (PathInfo::new(path), PathInfo::new(name));
        self.rules
            .iter()
            .rev()
            .find(|rule| {
                (is_dir || !rule.dir_only)
                    && rule
                        .glob
                        .matches_path(if rule.anchored { &whole } else { &name })
            })
            .map(|rule| !rule.negated)
    }

    /// True when there are no rules.
    pub(crate) fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }
}

fn parse_line(line: &str) -> Option<Rule> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    let line = trim_unescaped_trailing_spaces(line);
    let (negated, line) = match line.strip_prefix('!') {
        Some(rest) => (true, rest),
        None => (false, line),
    };
    let (dir_only, line) = match line.strip_suffix('/') {
        Some(rest) => (true, rest),
        None => (false, line),
    };
    let anchored = line.contains('/');
    let line = line.strip_prefix('/').unwrap_or(line);
    if line.is_empty() {
        return None;
    }
    let glob = Glob::new(line, Dialect::Gitignore).ok()?;
    Some(Rule {
        glob,
        negated,
        dir_only,
        anchored,
    })
}

fn trim_unescaped_trailing_spaces(line: &str) -> &str {
    let mut end = line.len();
    while line[..end].ends_with(' ') {
        let before = &line[..end - 1];
        let backslashes = before.len() - before.trim_end_matches('\\').len();
        if backslashes % 2 == 1 {
            break;
        }
        end -= 1;
    }
    &line[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ignored(text: &str, path: &str, is_dir: bool) -> bool {
        Rules::parse(text).decide(path, is_dir) == Some(true)
    }

    #[test]
    fn names_match_at_any_depth_unless_anchored() {
        assert!(ignored("target", "target", true));
        assert!(ignored("target", "crates/x/target", true));
        assert!(ignored("*.log", "a/b/c.log", false));
        assert!(ignored("/target", "target", true));
        assert!(!ignored("/target", "crates/target", true));
        assert!(ignored("doc/frotz", "doc/frotz", false));
        assert!(!ignored("doc/frotz", "a/doc/frotz", false));
    }

    #[test]
    fn directory_only_rules_skip_files() {
        assert!(ignored("build/", "build", true));
        assert!(!ignored("build/", "build", false));
        assert!(ignored("node_modules/", "web/node_modules", true));
    }

    #[test]
    fn double_stars() {
        assert!(ignored("**/foo", "foo", false));
        assert!(ignored("**/foo", "a/b/foo", false));
        assert!(ignored("abc/**", "abc/x/y", false));
        assert!(!ignored("abc/**", "abc", true));
        assert!(ignored("a/**/b", "a/b", false));
        assert!(ignored("a/**/b", "a/x/y/b", false));
    }

    #[test]
    fn negation_and_order() {
        let text = "*.log\n!keep.log\n";
        assert!(ignored(text, "x.log", false));
        assert_eq!(Rules::parse(text).decide("keep.log", false), Some(false));
        // The last matching rule wins.
        assert!(ignored("!keep.log\n*.log\n", "keep.log", false));
    }

    #[test]
    fn comments_escapes_and_spaces() {
        let text = "# comment\n\n\\#hash\n\\!bang\ntrailing   \nkept\\ \n";
        assert!(ignored(text, "#hash", false));
        assert!(ignored(text, "!bang", false));
        assert!(ignored(text, "trailing", false));
        assert!(ignored(text, "kept ", false));
        assert!(!ignored(text, "# comment", false));
        assert!(Rules::parse("# only\n\n  \n/\n!\n")
            .decide("x", false)
            .is_none());
    }

    #[test]
    fn folded_rules_ignore_letter_case_on_both_sides() {
        let deny = Rules::parse_folded(".env\n*.PEM\nsecret[A-Z].txt\n!KEEP.env\n");
        for denied in [
            ".env",
            ".ENV",
            "dir/.Env",
            "a.pem",
            "KEY.PEM",
            "secretx.txt",
            "SECRETQ.TXT",
        ] {
            assert_eq!(deny.decide(denied, false), Some(true), "{denied}");
        }
        assert_eq!(deny.decide("keep.ENV", false), Some(false));
        assert_eq!(deny.decide("env", false), None);
        assert!(
            !ignored(".env", ".ENV", false),
            "gitignore rules keep their case"
        );
    }

    #[test]
    fn crlf_files_work() {
        assert!(ignored("target/\r\n*.o\r\n", "target", true));
        assert!(ignored("target/\r\n*.o\r\n", "x.o", false));
    }
}
