//! The walk behind `search_text`: which files are searched, each file's matching lines with
//! their context lines, and how a page fills within its byte budget. The tool's arguments,
//! definition and notes are in `grep.rs`.

use std::io::Read;

use serde_json::{json, Value};

use super::glob::Glob;
use super::limits::*;
use super::matcher::{Line, Matcher};
use super::output::Ticker;
use super::sandbox::{RelPath, Sandbox};
use super::text::{clip, is_binary};
use super::walk::{Entry, Flow, Kind, Visitor};

/// Which files to search: everything, file names, or paths below the searched directory.
pub(super) enum Filter {
    All,
    Name(Glob),
    Path(Glob),
}

/// What one page holds and how it is sized.
#[derive(Clone, Copy)]
pub(super) struct Page {
    /// Matches to skip before the page starts.
    pub(super) skip: usize,
    /// Most matches on the page.
    pub(super) max: usize,
    /// Bytes the matches may take (structured JSON and text, each).
    pub(super) bytes: usize,
    /// Context lines before and after each match.
    pub(super) before: usize,
    pub(super) after: usize,
}

/// One `search_text` walk: the visitor that fills a page with matches.
pub(super) struct Search<'a, 'c> {
    pub(super) sandbox: &'a Sandbox,
    pub(super) matcher: Matcher,
    pub(super) filter: Filter,
    pub(super) base: RelPath,
    pub(super) page: Page,
    /// Matches met so far, skipped ones included.
    pub(super) seen: usize,
    /// The page's matches, as structured JSON and as text lines.
    pub(super) matches: Vec<Value>,
    pub(super) lines: Vec<String>,
    /// Bytes the page takes so far, as JSON and as text.
    pub(super) json_bytes: usize,
    pub(super) text_bytes: usize,
    /// A match exists past the page.
    pub(super) more: bool,
    /// The regular-expression work budget ran out.
    pub(super) exhausted: bool,
    /// A match was shown without its context lines, which alone were over the budget.
    pub(super) context_dropped: bool,
    /// Regular-expression steps left.
    pub(super) steps: u64,
    /// Files searched, and those skipped as binary or as too large.
    pub(super) files: usize,
    pub(super) binary: usize,
    pub(super) large: usize,
    /// The bytes of the file being searched (reused).
    pub(super) buf: Vec<u8>,
    pub(super) ticker: Ticker<'a, 'c>,
}

/// How much of a file the search reads first: enough for most source files in one `read`,
/// and what a binary file costs before it is skipped.
const FIRST_READ_BYTES: u64 = 64 * 1024;

impl Search<'_, '_> {
    /// Searches one file; false once the page is full (or the work budget is spent).
    pub(super) fn file(&mut self, rel: &RelPath, bytes: &[u8]) -> bool {
        self.files += 1;
        if is_binary(bytes) {
            self.binary += 1;
            return true;
        }
        let mut shown: Option<String> = None;
        let Search {
            matcher,
            page,
            seen,
            matches,
            lines,
            json_bytes,
            text_bytes,
            more,
            steps,
            context_dropped,
            ..
        } = self;
        let outcome = matcher.each_line(bytes, steps, |line| {
            *seen += 1;
            if *seen <= page.skip {
                return true;
            }
            if matches.len() >= page.max {
                *more = true;
                return false;
            }
            let shown = shown.get_or_insert_with(|| rel.to_string());
            let fits = |(item, lines): (Value, Vec<String>)| {
                let item_bytes = minimcp_base::json_size(&item) + 1;
                let lines_bytes: usize = lines.iter().map(|l| l.len() + 1).sum();
                let size = (*json_bytes + item_bytes).max(*text_bytes + lines_bytes);
                (size <= page.bytes).then_some((item, lines, item_bytes, lines_bytes))
            };
            let described = fits(describe(bytes, line, shown, page)).or_else(|| {
                if !matches.is_empty() {
                    return None;
                }
                // The first match of a page always comes, without its context if that
                // alone is over the budget, so paging always moves on.
                *context_dropped = true;
                let bare = Page {
                    before: 0,
                    after: 0,
                    ..*page
                };
                let (item, lines) = describe(bytes, line, shown, &bare);
                let item_bytes = minimcp_base::json_size(&item) + 1;
                let lines_bytes = lines.iter().map(|l| l.len() + 1).sum();
                Some((item, lines, item_bytes, lines_bytes))
            });
            let Some((item, text_lines, item_bytes, lines_bytes)) = described else {
                *more = true;
                return false;
            };
            *json_bytes += item_bytes;
            *text_bytes += lines_bytes;
            matches.push(item);
            lines.extend(text_lines);
            true
        });
        if outcome.is_err() {
            self.exhausted = true;
        }
        !self.more && !self.exhausted
    }
}

/// One match as structured JSON and as text lines (`path:12: text`, context lines as
/// `path-11- text`).
fn describe(bytes: &[u8], line: Line, shown: &str, page: &Page) -> (Value, Vec<String>) {
    let show = |l: &[u8]| clip(&String::from_utf8_lossy(l), MAX_LINE_CHARS);
    let matched = show(&bytes[line.start..line.end]);
    let before: Vec<String> = lines_before(bytes, line.start, page.before)
        .map(show)
        .collect();
    let after: Vec<String> = lines_after(bytes, line.end, page.after).map(show).collect();
    let mut out = Vec::with_capacity(1 + before.len() + after.len());
    let first = line.number - before.len();
    for (i, l) in before.iter().enumerate() {
        out.push(format!("{shown}-{}- {l}", first + i));
    }
    out.push(format!("{shown}:{}: {matched}", line.number));
    for (i, l) in after.iter().enumerate() {
        out.push(format!("{shown}-{}- {l}", line.number + 1 + i));
    }
    let mut item = json!({"path": shown, "line": line.number, "text": matched});
    if page.before > 0 {
        item["before"] = json!(before);
    }
    if page.after > 0 {
        item["after"] = json!(after);
    }
    (item, out)
}

/// Up to `n` lines before the line starting at `start`, in order.
pub(super) fn lines_before(bytes: &[u8], start: usize, n: usize) -> impl Iterator<Item = &[u8]> {
    let mut found = Vec::new();
    let mut line_start = start;
    while found.len() < n && line_start > 0 {
        let end = line_start - 1;
        let begin = bytes[..end]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        found.push(strip_cr(&bytes[begin..end]));
        line_start = begin;
    }
    found.into_iter().rev()
}

/// Up to `n` lines after the line ending at `end` (before its terminator).
pub(super) fn lines_after(bytes: &[u8], end: usize, n: usize) -> impl Iterator<Item = &[u8]> {
    let newline = |from: usize| {
        bytes[from..]
            .iter()
            .position(|&b| b == b'\n')
            .map(|i| from + i)
    };
    let mut next = newline(end).map(|i| i + 1);
    std::iter::from_fn(move || {
        let start = next.filter(|&s| s < bytes.len())?;
        let stop = newline(start).unwrap_or(bytes.len());
        next = (stop < bytes.len()).then_some(stop + 1);
        Some(strip_cr(&bytes[start..stop]))
    })
    .take(n)
}

fn strip_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

impl Visitor for Search<'_, '_> {
    fn visit(&mut self, entry: &Entry) -> Flow {
        let below = entry
            .rel
            .strip_prefix(&self.base)
            .unwrap_or(entry.rel.as_str());
        if entry.kind == Kind::Dir {
            return match &self.filter {
                Filter::Path(glob) if !glob.could_match_below(below) => Flow::Skip,
                _ => Flow::Continue,
            };
        }
        let wanted = match &self.filter {
            Filter::All => true,
            Filter::Name(glob) => glob.matches(entry.rel.name()),
            Filter::Path(glob) => glob.matches(below),
        };
        if entry.kind != Kind::File || !wanted {
            return Flow::Continue;
        }
        let Ok((handle, meta)) = self.sandbox.open_listed(&entry.real, &entry.rel, entry.id) else {
            return Flow::Continue;
        };
        if meta.len() > MAX_SEARCH_FILE_BYTES {
            self.large += 1;
            return Flow::Continue;
        }
        // One buffer for every file: no allocation per file. The first read takes up to
        // FIRST_READ_BYTES, all of most source files in one `read`; a binary file (a NUL in
        // its first bytes) is counted and skipped without reading the rest. Reading exactly the
        // size `fstat` gave means a file growing meanwhile is searched as it was.
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        let mut handle = handle.take(meta.len());
        let mut read = (&mut handle)
            .take(FIRST_READ_BYTES)
            .read_to_end(&mut buf)
            .map(drop);
        if read.is_ok() && !is_binary(&buf) {
            read = handle.read_to_end(&mut buf).map(drop);
        }
        let more = read.is_err() || self.file(&entry.rel, &buf);
        self.buf = buf;
        if more {
            Flow::Continue
        } else {
            Flow::Stop
        }
    }

    fn tick(&mut self, visited: usize) -> bool {
        let (files, found) = (self.files, self.seen);
        self.ticker.tick(visited, || {
            format!("{files} files searched, {found} matching lines")
        })
    }
}
