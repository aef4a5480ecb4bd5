//! The lines a git diff touched, for `minimcp analyze --diff REV`: each file's new-side
//! line ranges from `git diff --unified=0`, and the functions of a file as it was at REV
//! (for reports that show a value `old → new`).

use std::collections::BTreeMap;
use std::path::Path;

use super::git;
use super::lang::Lang;
use super::measure;

/// The lines of each file under `root` that differ from git revision `rev` (added or
/// changed lines of the working tree, and the line after each pure deletion), from
/// `git diff --unified=0 REV`; files keyed by their path relative to `root`.
pub fn changed_lines(root: &Path, rev: &str) -> Result<BTreeMap<String, Vec<(u32, u32)>>, String> {
    if rev.is_empty() || rev.starts_with('-') || rev.contains(['\0', '\n']) {
        return Err(format!(
            "--diff wants a git revision such as origin/main or HEAD~3, not {rev:?}"
        ));
    }
    let diff = git::diff_zero_context(root, rev).map_err(|e| match e {
        git::GitError::Failed(message) => message,
        other => other.to_string(),
    })?;
    Ok(parse_diff(&diff))
}

/// The functions of `file` (relative to `root`) as it was at git revision `rev`: name,
/// cyclomatic and cognitive complexity, in source order; empty when it did not exist there
/// or cannot be read (the old values only inform a report).
pub fn functions_at(root: &Path, rev: &str, file: &str) -> Vec<(String, u32, u32)> {
    let Some(lang) = Lang::of_path(file) else {
        return Vec::new();
    };
    let Ok(Some(bytes)) = git::show(root, rev, file) else {
        return Vec::new();
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return Vec::new();
    };
    measure::file(&text, lang)
        .into_iter()
        .map(|m| (m.name, m.cyclomatic, m.cognitive))
        .collect()
}

/// The new-side line ranges of a `--unified=0` diff, by file (`+++ b/PATH`).
fn parse_diff(diff: &str) -> BTreeMap<String, Vec<(u32, u32)>> {
    let mut out: BTreeMap<String, Vec<(u32, u32)>> = BTreeMap::new();
    let mut file: Option<String> = None;
    // Lines of the current hunk's body still to come, old side and new side: a line there
    // is the file's text whatever it looks like (an added line `++ x` prints as `+++ x`,
    // which once was taken for the next file's header and dropped the file's later hunks).
    let mut left = (0u32, 0u32);
    for line in diff.lines() {
        if left != (0, 0) {
            match line.as_bytes().first() {
                Some(b'-') => left.0 = left.0.saturating_sub(1),
                Some(b'+') => left.1 = left.1.saturating_sub(1),
                // `\ No newline at end of file` belongs to the line before it.
                Some(b'\\') => {}
                _ => left = (left.0.saturating_sub(1), left.1.saturating_sub(1)),
            }
            continue;
        }
        if let Some(path) = line.strip_prefix("+++ ") {
            // A name with a space ends with a tab (for patch(1)); one git quotes is in quotes.
            let path = path.strip_suffix('\t').unwrap_or(path);
            file = unquote(path).strip_prefix("b/").map(str::to_string);
        } else if let Some(hunk) = line.strip_prefix("@@ ") {
            // `@@ -a[,b] +c[,d] @@`: d new lines from c; d = 0 is a deletion after line c.
            let side = |sign: char| hunk.split(' ').find_map(|w| w.strip_prefix(sign)).map(span);
            let Some((start, count)) = side('+') else {
                continue;
            };
            left = (side('-').map_or(0, |old| old.1), count);
            let Some(file) = &file else {
                continue;
            };
            // Saturating: the numbers come from git's output, which is not ours to trust.
            let range = if count == 0 {
                (start.max(1), start.max(1))
            } else {
                (start, start.saturating_add(count - 1))
            };
            out.entry(file.clone()).or_default().push(range);
        }
    }
    out
}

/// `start[,count]` of a hunk header's side (a count left out is 1).
fn span(side: &str) -> (u32, u32) {
    match side.split_once(',') {
        Some((s, c)) => (s.parse().unwrap_or(0), c.parse().unwrap_or(1)),
        None => (side.parse().unwrap_or(0), 1),
    }
}

/// A path as git prints it in a diff header: as is, or, when it holds a byte git quotes
/// (a non-ASCII byte under the default `core.quotePath`, a quote, a backslash, a control
/// character), in double quotes with C escapes and octal bytes.
fn unquote(path: &str) -> String {
    let Some(inner) = path.strip_prefix('"').and_then(|p| p.strip_suffix('"')) else {
        return path.to_string();
    };
    let mut bytes = Vec::with_capacity(inner.len());
    let mut rest = inner.as_bytes();
    while let Some((&b, tail)) = rest.split_first() {
        rest = tail;
        if b != b'\\' {
            bytes.push(b);
            continue;
        }
        let Some((&e, tail)) = rest.split_first() else {
            bytes.push(b'\\');
            break;
        };
        rest = tail;
        let octal = |c: u8| (b'0'..=b'7').contains(&c);
        bytes.push(match e {
            b'a' => 7,
            b'b' => 8,
            b't' => b'\t',
            b'n' => b'\n',
            b'v' => 11,
            b'f' => 12,
            b'r' => b'\r',
            b'0'..=b'3' if rest.len() >= 2 && octal(rest[0]) && octal(rest[1]) => {
                let value = (e - b'0') * 64 + (rest[0] - b'0') * 8 + (rest[1] - b'0');
                rest = &rest[2..];
                value
            }
            other => other,
        });
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_paths_are_decoded_as_git_quotes_them() {
        assert_eq!(unquote("b/plain.rs"), "b/plain.rs");
        assert_eq!(unquote(r#""b/\303\244 \"q\"\\.rs""#), "b/ä \"q\"\\.rs");
        assert_eq!(unquote(r#""b/tab\there""#), "b/tab\there");
        let diff = "+++ \"b/\\303\\274.py\"\n@@ -1 +1 @@\n";
        assert_eq!(parse_diff(diff)["ü.py"], [(1, 1)]);
        let diff =
            "+++ b/a b.py\t\n@@ -1 +1 @@\n-x\n+y\n+++ \"b/\\303\\274 \\\"q\\\".py\"\t\n@@ -2 +2 @@\n";
        let lines = parse_diff(diff);
        assert_eq!(lines["a b.py"], [(1, 1)]);
        assert_eq!(lines["ü \"q\".py"], [(2, 2)]);
    }

    #[test]
    fn hostile_hunk_headers_neither_panic_nor_wrap() {
        let diff = "+++ b/x\n@@ -1 +4294967295,2 @@\n@@ -1 +1,0 @@\n@@ +\n@@ -1 +-5,x @@\n+++ \"\\\n@@ -1 +1 @@\n";
        let lines = parse_diff(diff);
        assert_eq!(lines["x"][0], (u32::MAX, u32::MAX));
        // Every prefix of a diff (cut anywhere, as a capped read could) parses too.
        let whole = "+++ \"b/\\303\\244.rs\"\n@@ -3,2 +3,4 @@ fn a()\n";
        for end in 0..=whole.len() {
            if whole.is_char_boundary(end) {
                let _ = parse_diff(&whole[..end]);
            }
        }
    }

    /// Inside a hunk a line is text: an added `++ b/x` (printed `+++ b/x`) or a deleted
    /// `-- a/x` does not start another file, and `\ No newline` is not counted.
    #[test]
    fn hunk_bodies_that_look_like_headers_are_text() {
        let diff = "--- a/m.py\n+++ b/m.py\n@@ -0,0 +1,2 @@\n+++ b/other.py\n+++ x\n@@ -2 +3,0 @@\n--- a/y\n\\ No newline at end of file\n@@ -5,0 +6 @@\n+@@ -1 +1 @@\n";
        let lines = parse_diff(diff);
        assert_eq!(lines["m.py"], [(1, 2), (3, 3), (6, 6)]);
        assert_eq!(lines.len(), 1, "{lines:?}");
    }

    #[test]
    fn a_diff_gives_the_new_side_of_each_hunk() {
        let diff = "diff --git a/x.rs b/x.rs\n--- a/x.rs\n+++ b/x.rs\n@@ -3 +3 @@ fn a()\n-x\n+y\n@@ -10,2 +10,0 @@\n-a\n-b\n@@ -20,0 +19,3 @@\n+1\n+2\n+3\n--- a/gone.rs\n+++ /dev/null\n@@ -1,4 +0,0 @@\n";
        let lines = parse_diff(diff);
        assert_eq!(lines["x.rs"], [(3, 3), (10, 10), (19, 21)]);
        assert_eq!(lines.len(), 1, "a deleted file has no new lines");
    }
}
