//! Reading a patch into file sections and hunks exactly as `git apply` (default options) reads
//! it: it looks for `diff --git` headers (with their extended lines) and traditional
//! `---`/`+++` pairs followed by a hunk, skips text between sections (a commit message, a
//! mail; the extended header lines are `header.rs`'s), counts each hunk's lines by its header, and refuses what it refuses ("corrupt
//! patch", a hunk without a header, a section of only garbage, inconsistent names). What the
//! hunks then do to the files is `image.rs`'s; what the sections do together, `plan.rs`'s.

use std::ops::Range;

use super::names::{
    find_name_traditional, guess_p_value, has_epoch_timestamp, is_dev_null, line_at,
};

/// A tri-state flag as git keeps it: -1 unknown (to be decided from the tree), 0, 1.
pub(crate) type Tri = i8;

/// One file's section of a patch.
#[derive(Debug, Clone, Default)]
pub(crate) struct FilePatch {
    /// The name before (`None` for a creation), `-p` components stripped.
    pub(crate) old_name: Option<Vec<u8>>,
    /// The name after (`None` for a deletion).
    pub(crate) new_name: Option<Vec<u8>>,
    pub(crate) is_new: Tri,
    pub(crate) is_delete: Tri,
    pub(crate) is_rename: bool,
    pub(crate) is_copy: bool,
    /// Git file modes (`0o100644`…; 0 when the patch does not say).
    pub(crate) old_mode: u32,
    pub(crate) new_mode: u32,
    pub(crate) is_binary: bool,
    pub(crate) hunks: Vec<Hunk>,
    /// A line right after the last hunk that looks like one of its lines (`+`, `-`, ` `) but
    /// is past its counts: git ignores it; the model is told. Its patch line and text.
    pub(crate) stray: Option<(usize, String)>,
}

/// One hunk: its header's numbers and where its text is in the patch.
#[derive(Debug, Clone, Default)]
pub(crate) struct Hunk {
    pub(crate) old_pos: u64,
    pub(crate) old_lines: u64,
    pub(crate) new_pos: u64,
    pub(crate) new_lines: u64,
    /// Context lines after the last change (none: the hunk must end the file).
    pub(crate) trailing: u64,
    /// The header line through the last body line (and a following `\ No newline` line).
    pub(crate) text: Range<usize>,
    /// The patch line of the header (1-based).
    pub(crate) line: usize,
}

/// Why a patch cannot be read: its line and what is wrong there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParseError {
    pub(crate) line: usize,
    pub(crate) message: String,
}

/// Reads every file section of `buf`, or says why git would refuse the patch.
pub(crate) fn parse(buf: &[u8]) -> Result<Vec<FilePatch>, ParseError> {
    let mut parser = Parser {
        buf,
        p_value: 1,
        p_value_known: false,
    };
    let mut sections = Vec::new();
    let mut at = 0;
    while at < buf.len() {
        match parser.chunk(at)? {
            Some((patch, next)) => {
                sections.push(patch);
                at = next;
            }
            None => break,
        }
    }
    if sections.is_empty() {
        return Err(ParseError {
            line: 1,
            message: if buf.starts_with(b"*** Begin Patch")
                || buf.windows(17).any(|w| w == b"*** Update File: ")
            {
                "this is the `*** Begin Patch` format, not a unified diff; send what `git diff` prints: `diff --git a/PATH b/PATH`, `--- a/PATH`, `+++ b/PATH`, then hunks `@@ -START,COUNT +START,COUNT @@` with lines starting ' ', '-' or '+'".into()
            } else {
                "no file section found: a patch starts with `diff --git a/PATH b/PATH` (or `--- a/PATH` and `+++ b/PATH`) and has hunks starting `@@ -`".into()
            },
        });
    }
    Ok(sections)
}

pub(super) struct Parser<'a> {
    pub(super) buf: &'a [u8],
    pub(super) p_value: usize,
    pub(super) p_value_known: bool,
}

pub(super) fn err<T>(
    parser: &Parser<'_>,
    at: usize,
    message: impl Into<String>,
) -> Result<T, ParseError> {
    Err(ParseError {
        line: parser.line_of(at),
        message: message.into(),
    })
}

/// `strtoul` on digits only (git's `parse_num`): the value (saturated) and digits read.
fn parse_num(s: &[u8]) -> Option<(u64, usize)> {
    let digits = s.iter().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 {
        return None;
    }
    let value = s[..digits].iter().fold(0u64, |v, &d| {
        v.checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(d - b'0')))
            .unwrap_or(u64::MAX)
    });
    Some((value, digits))
}

/// `START[,COUNT]EXPECT` at `offset` of `line`: the two numbers (COUNT 1 when absent) and the
/// offset after `expect`.
fn parse_range(line: &[u8], offset: usize, expect: &[u8]) -> Option<(u64, u64, usize)> {
    if offset >= line.len() {
        return None;
    }
    let mut at = offset;
    let (start, digits) = parse_num(&line[at..])?;
    at += digits;
    let mut count = 1;
    if line.get(at) == Some(&b',') {
        let (n, digits) = parse_num(&line[at + 1..])?;
        count = n;
        at += digits + 1;
    }
    line[at..]
        .starts_with(expect)
        .then_some((start, count, at + expect.len()))
}

/// Why the hunk at `at` is corrupt, with the counts its lines have (up to the next line
/// that cannot be a hunk's: a header, a hunk, a section), for the model to correct.
fn corrupt(buf: &[u8], at: usize) -> String {
    let header = line_at(buf, at);
    let Some((_, old_count, _, new_count)) = parse_hunk_header(header) else {
        return "corrupt hunk header: write `@@ -START,COUNT +START,COUNT @@`".into();
    };
    let (mut old, mut new) = (0u64, 0u64);
    let mut pos = at + header.len();
    while pos < buf.len() {
        let line = line_at(buf, pos);
        let next_section =
            line.starts_with(b"--- ") && buf[pos + line.len()..].starts_with(b"+++ ");
        if line.starts_with(b"@@ ") || line.starts_with(b"diff ") || next_section {
            break;
        }
        match line[0] {
            b' ' | b'\n' => {
                old += 1;
                new += 1;
            }
            b'-' => old += 1,
            b'+' => new += 1,
            b'\\' => {}
            _ => break,
        }
        pos += line.len();
    }
    format!("corrupt hunk: its header counts {old_count} old and {new_count} new lines, but the lines that follow it hold {old} old (context and '-') and {new} new (context and '+'); correct the counts in `@@ -START,COUNT +START,COUNT @@` (every line of a hunk starts with ' ', '-', '+' or '\\', an empty context line with a space)")
}

/// `@@ -a,b +c,d @@` (anything may follow): the four numbers.
pub(crate) fn parse_hunk_header(line: &[u8]) -> Option<(u64, u64, u64, u64)> {
    if line.last() != Some(&b'\n') {
        return None;
    }
    let (old_pos, old_lines, at) = parse_range(line, 4, b" +")?;
    let (new_pos, new_lines, _) = parse_range(line, at, b" @@")?;
    Some((old_pos, old_lines, new_pos, new_lines))
}

impl Parser<'_> {
    pub(super) fn line_of(&self, at: usize) -> usize {
        1 + self.buf[..at.min(self.buf.len())]
            .iter()
            .filter(|&&c| c == b'\n')
            .count()
    }

    /// The next file section at or after `at`, and where the text after it starts; `None`
    /// when no header follows (the rest is ignored, as git ignores it).
    fn chunk(&mut self, at: usize) -> Result<Option<(FilePatch, usize)>, ParseError> {
        let Some((start, header_len, mut patch)) = self.find_header(at)? else {
            return Ok(None);
        };
        let body = start + header_len;
        let hunks_end = self.hunks(body, &mut patch)?;
        let mut end = hunks_end;
        let next = line_at(self.buf, hunks_end);
        let next_section =
            next.starts_with(b"--- ") && self.buf[hunks_end + next.len()..].starts_with(b"+++ ");
        if !patch.hunks.is_empty()
            && matches!(next.first(), Some(b'+' | b'-' | b' '))
            && !next_section
            && next != b"-- \n"
        {
            let text = String::from_utf8_lossy(next)
                .trim_end()
                .chars()
                .take(120)
                .collect();
            patch.stray = Some((self.line_of(hunks_end), text));
        }
        if hunks_end == body {
            let line = line_at(self.buf, body);
            let tail = body + line.len();
            if line == b"GIT binary patch\n" {
                patch.is_binary = true;
                end = tail;
            } else if tail >= 8 && self.buf[tail - 8..tail] == *b" differ\n" {
                let size = self.buf.len() - body;
                for prefix in [&b"Binary files "[..], b"Files "] {
                    if prefix.len() < size && self.buf[body..].starts_with(prefix) {
                        patch.is_binary = true;
                        end = tail;
                        break;
                    }
                }
            }
            let metadata = patch.is_rename
                || patch.is_copy
                || patch.is_new > 0
                || patch.is_delete != 0
                || (patch.old_mode != 0 && patch.new_mode != 0 && patch.old_mode != patch.new_mode);
            if !patch.is_binary && !metadata {
                return err(self, body, "a file section with no hunk and no change of name, mode or existence (\"patch with only garbage\")");
            }
        }
        Ok(Some((patch, end)))
    }

    fn find_header(
        &mut self,
        from: usize,
    ) -> Result<Option<(usize, usize, FilePatch)>, ParseError> {
        let buf = self.buf;
        let mut at = from;
        // One section for the whole search, as git keeps one: a `diff --git` line skipped
        // below (one not followed by a header line) leaves its names in it for the next.
        let mut patch = FilePatch {
            is_new: -1,
            is_delete: -1,
            ..FilePatch::default()
        };
        while at < buf.len() {
            let size = buf.len() - at;
            let line = line_at(buf, at);
            let len = line.len();
            if len < 6 {
                at += len;
                continue;
            }
            if line.starts_with(b"@@ -") {
                if parse_hunk_header(line).is_some() {
                    return err(self, at, "a hunk (`@@ -…`) with no file header (`diff --git` or `---`/`+++`) before it");
                }
                at += len;
                continue;
            }
            if size < len + 6 {
                break;
            }
            if line.starts_with(b"diff --git ") {
                let header_len = self.git_header(at, len, &mut patch)?;
                if header_len <= len {
                    at += len;
                    continue;
                }
                return Ok(Some((at, header_len, patch)));
            }
            if !line.starts_with(b"--- ") || !buf[at + len..].starts_with(b"+++ ") {
                at += len;
                continue;
            }
            let next_len = line_at(buf, at + len).len();
            if size < next_len + 14 || !buf[at + len + next_len..].starts_with(b"@@ -") {
                at += len;
                continue;
            }
            self.traditional(at, at + len, &mut patch)?;
            return Ok(Some((at, len + next_len, patch)));
        }
        Ok(None)
    }

    fn traditional(
        &mut self,
        first: usize,
        second: usize,
        patch: &mut FilePatch,
    ) -> Result<(), ParseError> {
        let buf = self.buf;
        let a = &buf[first + 4..];
        let b = &buf[second + 4..];
        if !self.p_value_known {
            let q = guess_p_value(b);
            let p = guess_p_value(a).or(q);
            if p.is_some() && p == q {
                self.p_value = p.unwrap_or(0);
                self.p_value_known = true;
            }
        }
        let p = self.p_value;
        let name;
        if is_dev_null(a) {
            patch.is_new = 1;
            patch.is_delete = 0;
            name = find_name_traditional(b, None, p);
            patch.new_name = name.clone();
        } else if is_dev_null(b) {
            patch.is_new = 0;
            patch.is_delete = 1;
            name = find_name_traditional(a, None, p);
            patch.old_name = name.clone();
        } else {
            let first_name = find_name_traditional(a, None, p);
            name = find_name_traditional(b, first_name.as_deref(), p);
            if has_epoch_timestamp(a) {
                patch.is_new = 1;
                patch.is_delete = 0;
                patch.new_name = name.clone();
            } else if has_epoch_timestamp(b) {
                patch.is_new = 0;
                patch.is_delete = 1;
                patch.old_name = name.clone();
            } else {
                patch.old_name = name.clone();
                patch.new_name = name.clone();
            }
        }
        if name.is_none() {
            return err(self, first, "no file name in the `---`/`+++` lines");
        }
        Ok(())
    }

    /// The hunks starting at `at`; where they end.
    fn hunks(&self, mut at: usize, patch: &mut FilePatch) -> Result<usize, ParseError> {
        let buf = self.buf;
        let (mut old_lines, mut new_lines) = (0u64, 0u64);
        while buf.len() - at > 4 && buf[at..].starts_with(b"@@ -") {
            let Some(hunk) = self.hunk(at)? else {
                return err(self, at, corrupt(buf, at));
            };
            old_lines = old_lines.saturating_add(hunk.old_lines);
            new_lines = new_lines.saturating_add(hunk.new_lines);
            at = hunk.text.end;
            patch.hunks.push(hunk);
        }
        let several = patch.hunks.len() > 1;
        if patch.is_new < 0 && (old_lines > 0 || several) {
            patch.is_new = 0;
        }
        if patch.is_delete < 0 && (new_lines > 0 || several) {
            patch.is_delete = 0;
        }
        if patch.is_new > 0 && old_lines > 0 {
            return err(
                self,
                at,
                "a new file's hunk removes or keeps lines (\"new file depends on old contents\")",
            );
        }
        if patch.is_delete > 0 && new_lines > 0 {
            return err(
                self,
                at,
                "a deleted file's hunk adds or keeps lines (\"deleted file still has contents\")",
            );
        }
        Ok(at)
    }

    /// One hunk at `at`; `None` when it is corrupt.
    fn hunk(&self, at: usize) -> Result<Option<Hunk>, ParseError> {
        let buf = self.buf;
        let header = line_at(buf, at);
        let Some((old_pos, old_count, new_pos, new_count)) = parse_hunk_header(header) else {
            return Ok(None);
        };
        let (mut old_left, mut new_left) = (old_count, new_count);
        let mut trailing = 0u64;
        let (mut added, mut deleted) = (0u64, 0u64);
        let mut pos = at + header.len();
        while pos < buf.len() {
            if old_left == 0 && new_left == 0 {
                break;
            }
            let line = line_at(buf, pos);
            if line.last() != Some(&b'\n') {
                return Ok(None);
            }
            match line[0] {
                b'\n' | b' ' => {
                    if old_left == 0 || new_left == 0 {
                        return Ok(None);
                    }
                    old_left -= 1;
                    new_left -= 1;
                    trailing += 1;
                }
                b'-' => {
                    if old_left == 0 {
                        return Ok(None);
                    }
                    deleted += 1;
                    old_left -= 1;
                    trailing = 0;
                }
                b'+' => {
                    if new_left == 0 {
                        return Ok(None);
                    }
                    added += 1;
                    new_left -= 1;
                    trailing = 0;
                }
                b'\\' => {
                    if line.len() < 12 || !line.starts_with(b"\\ ") {
                        return Ok(None);
                    }
                }
                _ => return Ok(None),
            }
            pos += line.len();
        }
        if old_left != 0 || new_left != 0 {
            return Ok(None);
        }
        if deleted == 0 && added == 0 {
            return Ok(None);
        }
        // A final `\ No newline at end of file` belongs to the hunk.
        if buf.len() - pos > 12 && buf[pos..].starts_with(b"\\ ") {
            pos += line_at(buf, pos).len();
        }
        Ok(Some(Hunk {
            old_pos,
            old_lines: old_count,
            new_pos,
            new_lines: new_count,
            trailing,
            text: at..pos,
            line: self.line_of(at),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(p: &FilePatch) -> (Option<String>, Option<String>) {
        let s = |n: &Option<Vec<u8>>| n.as_ref().map(|n| String::from_utf8(n.clone()).unwrap());
        (s(&p.old_name), s(&p.new_name))
    }

    #[test]
    fn a_git_diff_with_every_kind_of_section() {
        let patch = "From: someone\nSubject: a change\n\n---\n stat | 1 +\n\n\
diff --git a/x.txt b/x.txt\nindex 1111111..2222222 100644\n--- a/x.txt\n+++ b/x.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n\
diff --git a/new.sh b/new.sh\nnew file mode 100755\nindex 0000000..3333333\n--- /dev/null\n+++ b/new.sh\n@@ -0,0 +1 @@\n+echo\n\\ No newline at end of file\n\
diff --git a/gone b/gone\ndeleted file mode 100644\nindex e69de29..0000000\n\
diff --git a/old name b/new name\nsimilarity index 100%\nrename from old name\nrename to new name\n\
diff --git a/m b/m\nold mode 100644\nnew mode 100755\n\
-- \n2.47.0\n";
        let sections = parse(patch.as_bytes()).expect("parses");
        assert_eq!(sections.len(), 5);
        assert_eq!(
            names(&sections[0]),
            (Some("x.txt".into()), Some("x.txt".into()))
        );
        assert_eq!(sections[0].old_mode, 0o100644);
        let h = &sections[0].hunks[0];
        assert_eq!(
            (h.old_pos, h.old_lines, h.new_pos, h.new_lines, h.trailing),
            (1, 3, 1, 3, 1)
        );
        assert_eq!((sections[1].is_new, sections[1].new_mode), (1, 0o100755));
        assert!(patch[sections[1].hunks[0].text.clone()]
            .ends_with("+echo\n\\ No newline at end of file\n"));
        assert_eq!(
            (sections[2].is_delete, names(&sections[2]).0.as_deref()),
            (1, Some("gone"))
        );
        assert!(sections[3].is_rename);
        assert_eq!(
            names(&sections[3]),
            (Some("old name".into()), Some("new name".into()))
        );
        assert_eq!(
            (sections[4].old_mode, sections[4].new_mode),
            (0o100644, 0o100755)
        );
    }

    #[test]
    fn traditional_diffs_guess_the_prefix_like_git() {
        let s = parse(b"--- x.py\n+++ x.py\n@@ -1 +1 @@\n-a\n+b\n").expect("parses");
        assert_eq!(names(&s[0]), (Some("x.py".into()), Some("x.py".into())));
        assert_eq!((s[0].is_new, s[0].is_delete), (0, 0));
        let s = parse(b"--- a/d/x.py\t2024-01-01 00:00:00\n+++ b/d/x.py\t2024-01-02 00:00:00\n@@ -1 +1 @@\n-a\n+b\n").expect("parses");
        assert_eq!(names(&s[0]), (Some("d/x.py".into()), Some("d/x.py".into())));
        let s = parse(b"--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+a\n").expect("parses");
        assert_eq!((s[0].is_new, names(&s[0]).1.as_deref()), (1, Some("n")));
    }

    #[test]
    fn what_git_refuses_to_read() {
        let refused = |p: &str| parse(p.as_bytes()).expect_err(p).message;
        assert!(refused("@@ -1 +1 @@\n-a\n+b\n").contains("no file header"));
        assert!(refused("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n+b\n").contains("corrupt"));
        assert!(refused("--- a/x\n+++ b/x\n@@ -1 +1 @@\n a\n").contains("corrupt"));
        assert!(refused("diff --git a/x b/x\nindex 1..2 100644\n").contains("only garbage"));
        assert!(
            refused("diff --git a/x b/x\nnew file mode 100644\ndeleted file mode 100644\n")
                .contains("inconsistent header")
        );
        assert!(
            refused("diff --git a/x b/x\n--- a/x\n--- a/y\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n")
                .contains("inconsistent old")
        );
        let s = parse(b"--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n+C\n c\n")
            .expect("git applies the first lines");
        assert_eq!(s[0].stray, Some((7, "+C".to_string())));
        assert!(refused("nothing here\n").contains("no file section"));
        assert!(
            refused("*** Begin Patch\n*** Update File: x\n@@\n-a\n+b\n*** End Patch\n")
                .contains("`*** Begin Patch` format")
        );
        let counts = refused("--- a/x\n+++ b/x\n@@ -1,4 +1,4 @@\n a\n-b\n+B\n+C\n c\n");
        assert!(counts.contains("counts 4 old and 4 new lines, but the lines that follow it hold 3 old (context and '-') and 4 new"), "{counts}");
        assert!(refused("diff --git a/x b/x\nold mode 1x\n").contains("invalid file mode"));
    }

    #[test]
    fn a_skipped_git_line_leaves_its_names_for_the_next_header_as_in_git() {
        // `diff --git` followed by no header line is skipped, but git keeps the names it read
        // in the section it fills next: here they clash with the next header's.
        let e = parse(
            b"diff --git a/x b/x\n-- \ndiff --git a/y b/y\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n",
        )
        .expect_err("git refuses");
        assert!(e.message.contains("inconsistent old"), "{e:?}");
        let s = parse(b"diff --git a/x b/x\n-- \n--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+a\n")
            .expect("parses");
        assert_eq!(
            names(&s[0]),
            (Some("x".into()), Some("n".into())),
            "the stale old name stays"
        );
    }

    #[test]
    fn binary_sections_are_marked() {
        let s = parse(b"diff --git a/b.png b/b.png\nindex 1..2 100644\nBinary files a/b.png and b/b.png differ\n").expect("parses");
        assert!(s[0].is_binary);
        let s = parse(b"diff --git a/b b/b\nindex 1..2 100644\nGIT binary patch\nliteral 1\nIc${Nk0000R0RR91\n\n").expect("parses");
        assert!(s[0].is_binary);
    }

    #[test]
    fn hunk_headers_are_read_as_git_reads_them() {
        assert_eq!(parse_hunk_header(b"@@ -1 +2 @@\n"), Some((1, 1, 2, 1)));
        assert_eq!(
            parse_hunk_header(b"@@ -3,0 +4,2 @@ fn x()\n"),
            Some((3, 0, 4, 2))
        );
        assert_eq!(
            parse_hunk_header(b"@@ -99999999999999999999999 +1 @@\n"),
            Some((u64::MAX, 1, 1, 1))
        );
        for bad in [
            "@@ -1 +2 @@",
            "@@ - 1 +2 @@\n",
            "@@ -+1 +2 @@\n",
            "@@ -1, +2 @@\n",
            "@@ -1 +2@@\n",
            "@@ -a +2 @@\n",
        ] {
            assert_eq!(parse_hunk_header(bad.as_bytes()), None, "{bad}");
        }
    }
}
