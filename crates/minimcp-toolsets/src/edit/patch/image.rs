//! Applying hunks to a file's bytes as `git apply` does by default, so that the result is the
//! one git would write, byte for byte:
//!
//! - a hunk's context and removed lines (its preimage) must occur exactly, bytes and line
//!   ends, with no fuzz: no context line is ever dropped;
//! - it is tried at the line its header names (in the file as the hunks before it left it),
//!   then one line further, one line back, two further… (git's offset search); a hunk whose
//!   old start is 0 or 1 must match at the beginning, one without trailing context at the end;
//! - lines an earlier hunk wrote are never matched again;
//! - `\ No newline at end of file` takes the line feed off the line before it.
//!
//! The search is bounded by a work budget ([`MAX_WORK`]): a hostile hunk against a large
//! file of identical lines would otherwise cost minutes.

use super::parse::Hunk;

/// Comparisons (lines and bytes / 64) and bytes moved one patch may cost.
pub(crate) const MAX_WORK: u64 = 400_000_000;

/// What a patch may still spend.
pub(crate) struct Budget(pub(crate) u64);

impl Budget {
    fn spend(&mut self, cost: u64) -> Result<(), Failure> {
        self.0 = self.0.checked_sub(cost).ok_or(Failure::TooMuchWork)?;
        Ok(())
    }
}

/// A line of an image: its length (with its line feed), git's 24-bit hash of its
/// non-space bytes, and whether a hunk wrote it.
#[derive(Clone, Copy, Debug)]
struct Line {
    len: usize,
    hash: u32,
    patched: bool,
}

/// Git's line hash: its non-space bytes (tab, LF, CR, space are skipped), kept to 24 bits
/// as git keeps it.
fn hash_line(bytes: &[u8]) -> u32 {
    let mut h: u32 = 0;
    for &c in bytes {
        if !super::names::is_space(c) {
            h = h.wrapping_mul(3).wrapping_add(u32::from(c));
        }
    }
    h & 0x00ff_ffff
}

/// A file's bytes and their lines.
#[derive(Default, Debug)]
pub(crate) struct Image {
    buf: Vec<u8>,
    lines: Vec<Line>,
}

impl Image {
    /// `bytes` split into lines after each line feed.
    pub(crate) fn new(bytes: Vec<u8>) -> Image {
        let mut lines = Vec::new();
        let mut start = 0;
        while start < bytes.len() {
            let end = bytes[start..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(bytes.len(), |n| start + n + 1);
            lines.push(Line {
                len: end - start,
                hash: hash_line(&bytes[start..end]),
                patched: false,
            });
            start = end;
        }
        Image { buf: bytes, lines }
    }

    fn add_line(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
        self.lines.push(Line {
            len: bytes.len(),
            hash: hash_line(bytes),
            patched: false,
        });
    }

    /// The bytes.
    pub(crate) fn into_bytes(self) -> Vec<u8> {
        self.buf
    }

    /// The lines, each with its line feed.
    pub(crate) fn line_texts(&self) -> Vec<&[u8]> {
        let mut at = 0;
        self.lines
            .iter()
            .map(|l| {
                let s = &self.buf[at..at + l.len];
                at += l.len;
                s
            })
            .collect()
    }
}

/// Where a hunk went: its first line in the result (1-based) and how far that is from the
/// line its header named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Placed {
    pub(crate) line: usize,
    pub(crate) offset: i64,
}

/// Why a hunk did not apply.
#[derive(Debug)]
pub(crate) enum Failure {
    /// Its preimage is nowhere it may go: the lines it expects (each with its line feed, if
    /// it has one), and whether it had to be at the start or the end.
    NoMatch {
        expected: Vec<Vec<u8>>,
        at_start: bool,
        at_end: bool,
    },
    /// The search would cost more than [`MAX_WORK`].
    TooMuchWork,
}

/// Applies `hunk` (its text in `patch`) to `img`.
pub(crate) fn apply_hunk(
    img: &mut Image,
    patch: &[u8],
    hunk: &Hunk,
    budget: &mut Budget,
) -> Result<Placed, Failure> {
    let text = &patch[hunk.text.clone()];
    let mut pre = Image::default();
    let mut post = Image::default();
    let mut i = 0;
    while i < text.len() {
        let len = super::names::line_at(text, i).len();
        // A line followed by `\ No newline…` loses its line feed.
        let mut plen = len as isize - 1;
        if i + len < text.len() && text[i + len] == b'\\' {
            plen -= 1;
        }
        match text[i] {
            b'\n' if plen >= 0 => {
                pre.add_line(b"\n");
                post.add_line(b"\n");
            }
            first @ (b' ' | b'-' | b'+') => {
                let body = &text[i + 1..i + 1 + plen.max(0) as usize];
                if first != b'+' {
                    pre.add_line(body);
                }
                if first != b'-' {
                    post.add_line(body);
                }
            }
            _ => {}
        }
        i += len;
    }
    budget.spend(text.len() as u64 / 64 + 1)?;
    let at_start = hunk.old_pos <= 1;
    let at_end = hunk.trailing == 0;
    // As git computes it: an `int` from the header's unsigned number.
    let pos = if hunk.new_pos == 0 {
        0
    } else {
        (hunk.new_pos - 1) as i32
    };
    match find_pos(img, &pre, pos, at_start, at_end, budget)? {
        Some(found) => {
            update_image(img, found, &pre, post, budget)?;
            Ok(Placed {
                line: found + 1,
                offset: found as i64 - i64::from(pos),
            })
        }
        None => Err(Failure::NoMatch {
            expected: pre.line_texts().iter().map(|l| l.to_vec()).collect(),
            at_start,
            at_end,
        }),
    }
}

/// The line where `pre` matches, searching outward from `line` as git does.
fn find_pos(
    img: &Image,
    pre: &Image,
    line: i32,
    at_start: bool,
    at_end: bool,
    budget: &mut Budget,
) -> Result<Option<usize>, Failure> {
    let total = img.lines.len();
    let mut line: i64 = if at_start {
        0
    } else if at_end {
        // git: an int from a size_t difference (negative when the preimage is longer).
        i64::from((total as u64).wrapping_sub(pre.lines.len() as u64) as i32)
    } else {
        i64::from(line)
    };
    if line < 0 || line as u64 > total as u64 {
        line = total as i64;
    }
    let line = line as usize;
    budget.spend(line as u64 / 16 + 1)?;
    let start: usize = img.lines[..line].iter().map(|l| l.len).sum();
    let (mut backwards, mut forwards, mut current) = (start, start, start);
    let (mut back_line, mut fwd_line, mut current_line) = (line, line, line);
    let mut i: u64 = 0;
    loop {
        if matches(img, pre, current, current_line, at_start, at_end, budget)? {
            return Ok(Some(current_line));
        }
        loop {
            if back_line == 0 && fwd_line == total {
                return Ok(None);
            }
            if i & 1 == 1 {
                if back_line == 0 {
                    i += 1;
                    continue;
                }
                back_line -= 1;
                backwards -= img.lines[back_line].len;
                current = backwards;
                current_line = back_line;
            } else {
                if fwd_line == total {
                    i += 1;
                    continue;
                }
                forwards += img.lines[fwd_line].len;
                fwd_line += 1;
                current = forwards;
                current_line = fwd_line;
            }
            break;
        }
        i += 1;
    }
}

/// Git's `match_fragment` without whitespace options: `pre` is at line `at` (byte
/// `current`), no line of it was written by an earlier hunk, and it ends the file when it
/// must.
fn matches(
    img: &Image,
    pre: &Image,
    current: usize,
    at: usize,
    at_start: bool,
    at_end: bool,
    budget: &mut Budget,
) -> Result<bool, Failure> {
    let n = pre.lines.len();
    if n + at > img.lines.len() || (at_end && n + at != img.lines.len()) {
        return Ok(false);
    }
    if at_start && at != 0 {
        return Ok(false);
    }
    let mut compared = 1u64;
    let mut result = true;
    for (mine, theirs) in pre.lines.iter().zip(&img.lines[at..at + n]) {
        compared += 1;
        if theirs.patched || mine.hash != theirs.hash {
            result = false;
            break;
        }
    }
    if result {
        let len = pre.buf.len();
        let fits = if at_end {
            current + len == img.buf.len()
        } else {
            current + len <= img.buf.len()
        };
        result = fits && img.buf[current..current + len] == pre.buf[..];
        compared += len as u64 / 64;
    }
    budget.spend(compared)?;
    Ok(result)
}

/// Replaces `pre` at line `at` of `img` with `post`, marking its lines as written.
fn update_image(
    img: &mut Image,
    at: usize,
    pre: &Image,
    mut post: Image,
    budget: &mut Budget,
) -> Result<(), Failure> {
    budget.spend((img.buf.len() + img.lines.len()) as u64 / 16 + 1)?;
    let limit = pre.lines.len().min(img.lines.len() - at);
    let start: usize = img.lines[..at].iter().map(|l| l.len).sum();
    let removed: usize = img.lines[at..at + limit].iter().map(|l| l.len).sum();
    img.buf.splice(start..start + removed, post.buf.drain(..));
    for line in &mut post.lines {
        line.patched = true;
    }
    img.lines.splice(at..at + limit, post.lines);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::patch::parse::parse;

    /// Applies a one-file patch's hunks to `file`.
    fn apply(file: &str, patch: &str) -> Result<(String, Vec<Placed>), String> {
        let sections = parse(patch.as_bytes()).map_err(|e| e.message)?;
        let mut img = Image::new(file.as_bytes().to_vec());
        let mut budget = Budget(MAX_WORK);
        let mut placed = Vec::new();
        for hunk in &sections[0].hunks {
            placed.push(
                apply_hunk(&mut img, patch.as_bytes(), hunk, &mut budget)
                    .map_err(|e| format!("{e:?}"))?,
            );
        }
        Ok((String::from_utf8(img.into_bytes()).unwrap(), placed))
    }

    const HEAD: &str = "--- a/f\n+++ b/f\n";

    #[test]
    fn hunks_apply_where_they_say_or_at_an_offset() {
        let file = "0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n";
        let patch = format!("{HEAD}@@ -4,3 +4,3 @@\n 3\n-4\n+four\n 5\n");
        let (out, placed) = apply(file, &patch).unwrap();
        assert_eq!(out, "0\n1\n2\n3\nfour\n5\n6\n7\n8\n9\n");
        assert_eq!(placed, vec![Placed { line: 4, offset: 0 }]);
        let moved = format!("x\nx\n{file}");
        let (out, placed) = apply(&moved, &patch).unwrap();
        assert_eq!(out, "x\nx\n0\n1\n2\n3\nfour\n5\n6\n7\n8\n9\n");
        assert_eq!(placed, vec![Placed { line: 6, offset: 2 }]);
    }

    #[test]
    fn no_fuzz_and_the_ends_are_anchored() {
        let file = "a\nb\nc\nd\n";
        // A context line that differs: refused, never fuzzed.
        assert!(apply(file, &format!("{HEAD}@@ -1,3 +1,3 @@\n a\n-b\n+B\n C\n")).is_err());
        // No trailing context: must match at the end.
        assert!(apply(file, &format!("{HEAD}@@ -2,2 +2,2 @@\n b\n-c\n+C\n")).is_err());
        assert_eq!(
            apply(file, &format!("{HEAD}@@ -3,2 +3,2 @@\n c\n-d\n+D\n"))
                .unwrap()
                .0,
            "a\nb\nc\nD\n"
        );
        // Old start 1: must match at the beginning.
        assert!(apply("z\na\nb\n", &format!("{HEAD}@@ -1,2 +1,2 @@\n a\n-b\n+B\n")).is_err());
    }

    #[test]
    fn missing_newlines_at_the_end() {
        let patch = format!("{HEAD}@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n");
        assert_eq!(apply("a\nb", &patch).unwrap().0, "a\nb\n");
        assert!(apply("a\nb\n", &patch).is_err());
        let patch = format!("{HEAD}@@ -1 +1 @@\n-a\n+a\n\\ No newline at end of file\n");
        assert_eq!(apply("a\n", &patch).unwrap().0, "a");
    }

    #[test]
    fn lines_a_hunk_wrote_are_not_matched_again() {
        let patch = format!("{HEAD}@@ -1,2 +1,2 @@\n-a\n+b\n b\n@@ -1,2 +1,2 @@\n-b\n+c\n b\n");
        assert!(apply("a\nb\nz\n", &patch).is_err());
    }

    #[test]
    fn the_budget_stops_a_pathological_search() {
        let file = "a\n".repeat(100_000);
        let mut patch = String::from(HEAD);
        patch.push_str("@@ -50000,1002 +50000,1002 @@\n");
        patch.push_str(&" a\n".repeat(1000));
        patch.push_str("-b\n+c\n a\n");
        let sections = parse(patch.as_bytes()).unwrap();
        let mut img = Image::new(file.into_bytes());
        let mut budget = Budget(10_000_000);
        let failed = apply_hunk(
            &mut img,
            patch.as_bytes(),
            &sections[0].hunks[0],
            &mut budget,
        );
        assert!(matches!(failed, Err(Failure::TooMuchWork)), "{failed:?}");
    }
}
