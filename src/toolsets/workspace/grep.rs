//! `search_text`: a literal or regular-expression search through text files, reporting
//! file, line number, the line and optional context lines, a page at a time.

use std::io::Read;
use std::rc::Rc;

use serde_json::{json, Value};

use super::glob::{Dialect, Glob};
use super::limits::*;
use super::matcher::{Line, Matcher};
use super::output::{cancelled, human_size, text_block, Ticker};
use super::read::read_whole;
use super::sandbox::{PathError, RelPath, Sandbox};
use super::text::{clip, is_binary};
use super::walk::{plural, walk, Entry, Flow, Kind, Stopped, Summary, Visitor, PARTIAL};
use super::Workspace;
use crate::{Arguments, Context, HandlerError, Tool, ToolOutput};

/// Bytes of the result budget kept for the notes and the fields around the matches.
const RESERVED_BYTES: usize = 4096;

/// The tool definition.
pub(crate) fn tool(ws: &Rc<Workspace>, path_hint: &str) -> Tool {
    let ws = Rc::clone(ws);
    Tool::new(
        "search_text",
        format!("Search workspace text files for a literal string (or, with `regex: true`, a regular expression); returns each matching line with its file, line number and optional context lines. Paged: pass `next_offset` back as `offset`. Skips binary files, files over {}, .gitignore'd files and .git. Regex subset (linear time): literals, `.`, `[a-z]`, `[^...]`, `\\d \\w \\s \\b` (ASCII) and negations, `^ $` (line), `(...)`, `(?:...)`, `|`, `? * +`, `{{m,n}}`; no lookaround or backreferences.", human_size(MAX_SEARCH_FILE_BYTES)),
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 1, "maxLength": MAX_QUERY_CHARS},
                "regex": {"type": "boolean", "default": false, "description": "`query` is a regular expression (subset above)."},
                "path": {"type": "string", "default": ".", "maxLength": MAX_PATH_BYTES,
                    "description": format!("Directory (recursive) or file. {path_hint}")},
                "glob": {"type": "string", "minLength": 1, "maxLength": MAX_PATTERN_BYTES,
                    "description": "Only files matching: without `/` by name (\"*.rs\"), with `/` by path below `path` (\"src/**/*.rs\")."},
                "case_sensitive": {"type": "boolean", "default": false},
                "context": {"type": "integer", "default": 0, "minimum": 0, "maximum": MAX_CONTEXT_LINES,
                    "description": "Lines before and after each match (grep -C)."},
                "before": {"type": "integer", "minimum": 0, "maximum": MAX_CONTEXT_LINES, "description": "Lines before; overrides `context`."},
                "after": {"type": "integer", "minimum": 0, "maximum": MAX_CONTEXT_LINES, "description": "Lines after; overrides `context`."},
                "max_results": {"type": "integer", "default": 100, "minimum": 1, "maximum": MAX_SEARCH_RESULTS,
                    "description": "Matching lines per page (a page also ends at the result budget)."},
                "offset": {"type": "integer", "default": 0, "minimum": 0, "description": "From `next_offset`."},
            },
            "required": ["query"],
            "additionalProperties": false
        }),
        move |args, ctx| {
            ws.enter(ctx)?;
            search_text(&ws, args, ctx)
        },
    )
    .title("Search text in files")
    .output_schema(json!({
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            "regex": {"type": "boolean"},
            "path": {"type": "string"},
            "case_sensitive": {"type": "boolean"},
            "matches": {"type": "array", "items": {
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "line": {"type": "integer"},
                    "text": {"type": "string"},
                    "before": {"type": "array", "items": {"type": "string"}},
                    "after": {"type": "array", "items": {"type": "string"}}
                },
                "required": ["path", "line", "text"]
            }},
            "files_searched": {"type": "integer"},
            "offset": {"type": "integer"},
            "next_offset": {"type": "integer"},
            "truncated": {"type": "boolean"},
            "complete": {"type": "boolean", "description": "false: a limit stopped the search (see notes)"},
            "notes": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["query", "regex", "path", "case_sensitive", "matches", "files_searched", "offset", "truncated", "complete", "notes"]
    }))
    .annotations(json!({"readOnlyHint": true, "openWorldHint": false}))
}

/// Which files to search: everything, file names, or paths below the searched directory.
enum Filter {
    All,
    Name(Glob),
    Path(Glob),
}

/// What one page holds and how it is sized.
#[derive(Clone, Copy)]
struct Page {
    /// Matches to skip before the page starts.
    skip: usize,
    /// Most matches on the page.
    max: usize,
    /// Bytes the matches may take (structured JSON and text, each).
    bytes: usize,
    before: usize,
    after: usize,
}

struct Search<'a, 'c> {
    sandbox: &'a Sandbox,
    matcher: Matcher,
    filter: Filter,
    base: RelPath,
    page: Page,
    /// Matches met so far, skipped ones included.
    seen: usize,
    matches: Vec<Value>,
    lines: Vec<String>,
    json_bytes: usize,
    text_bytes: usize,
    /// A match exists past the page.
    more: bool,
    /// The regular-expression work budget ran out.
    exhausted: bool,
    /// A match was shown without its context lines, which alone were over the budget.
    context_dropped: bool,
    steps: u64,
    files: usize,
    binary: usize,
    large: usize,
    /// The bytes of the file being searched (reused).
    buf: Vec<u8>,
    ticker: Ticker<'a, 'c>,
}

/// How much of a file the search reads first: enough for most source files in one `read`,
/// and what a binary file costs before it is skipped.
const FIRST_READ_BYTES: u64 = 64 * 1024;

impl Search<'_, '_> {
    /// Searches one file; false once the page is full (or the work budget is spent).
    fn file(&mut self, rel: &RelPath, bytes: &[u8]) -> bool {
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
                let item_bytes = crate::json_size(&item) + 1;
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
                let item_bytes = crate::json_size(&item) + 1;
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
fn lines_before(bytes: &[u8], start: usize, n: usize) -> impl Iterator<Item = &[u8]> {
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
fn lines_after(bytes: &[u8], end: usize, n: usize) -> impl Iterator<Item = &[u8]> {
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

/// Why a literal query looks like it was meant as a regular expression, if it does.
fn looks_like_regex(query: &str) -> Option<&'static str> {
    let signs: [(&str, &str); 9] = [
        (".*", "`.*`"),
        (".+", "`.+`"),
        ("\\b", "`\\b`"),
        ("\\d", "`\\d`"),
        ("\\w", "`\\w`"),
        ("\\s", "`\\s`"),
        ("|", "`|`"),
        ("(?:", "`(?:`"),
        ("[^", "`[^`"),
    ];
    if let Some((_, shown)) = signs.iter().find(|(sign, _)| query.contains(sign)) {
        return Some(shown);
    }
    if query.starts_with('^') || query.ends_with('$') && !query.ends_with("\\$") {
        return Some("an anchor `^` or `$`");
    }
    None
}

fn search_text(
    ws: &Workspace,
    args: &Arguments,
    ctx: &mut Context<'_>,
) -> Result<ToolOutput, HandlerError> {
    let query = args.str("query")?;
    let regex = args.bool("regex")?.unwrap_or(false);
    let case_sensitive = args.bool("case_sensitive")?.unwrap_or(false);
    let max = args
        .u64("max_results")?
        .unwrap_or(100)
        .clamp(1, MAX_SEARCH_RESULTS) as usize;
    let offset = args.u64("offset")?.unwrap_or(0);
    let offset = usize::try_from(offset).unwrap_or(usize::MAX);
    let context = args.u64("context")?.unwrap_or(0).min(MAX_CONTEXT_LINES);
    let before = args
        .u64("before")?
        .unwrap_or(context)
        .min(MAX_CONTEXT_LINES) as usize;
    let after = args.u64("after")?.unwrap_or(context).min(MAX_CONTEXT_LINES) as usize;
    let filter = match args.get("glob").and_then(Value::as_str) {
        None => Filter::All,
        Some(pattern) => {
            let glob = Glob::new(pattern, Dialect::Search)
                .map_err(|e| HandlerError::Invalid(format!("`glob`: {e}")))?;
            if pattern.contains('/') {
                Filter::Path(glob)
            } else {
                Filter::Name(glob)
            }
        }
    };
    let matcher = if regex {
        Matcher::regex(query, case_sensitive)
    } else {
        Matcher::literal(query, case_sensitive)
    }
    .map_err(|e| {
        HandlerError::Invalid(format!(
            "`query` is not a supported regular expression: {e}"
        ))
    })?;
    let targets = ws.starts(args.str("path")?)?;
    let target = targets[0].clone();
    let budget = ctx.result_budget();
    let mut search = Search {
        sandbox: &target.sandbox,
        matcher,
        filter,
        base: target.rel.clone(),
        page: Page {
            skip: offset,
            max,
            bytes: budget.saturating_sub(RESERVED_BYTES.min(budget / 4)),
            before,
            after,
        },
        seen: 0,
        matches: Vec::new(),
        lines: Vec::new(),
        json_bytes: 0,
        text_bytes: 0,
        more: false,
        exhausted: false,
        context_dropped: false,
        steps: MAX_REGEX_STEPS,
        files: 0,
        binary: 0,
        large: 0,
        buf: Vec::new(),
        ticker: Ticker { ctx },
    };
    let summary = if target.meta.is_dir() {
        // With several roots, `.` is each root in turn.
        let mut summary = Summary::default();
        for start in &targets {
            (search.sandbox, search.base) = (&start.sandbox, start.rel.clone());
            summary.absorb(walk(&start.sandbox, start, &ws.bounds, &mut search));
            if summary.stopped.is_some() {
                break;
            }
        }
        summary
    } else if target.meta.is_file() {
        let bytes = read_whole(&target, MAX_SEARCH_FILE_BYTES, "search_text")?;
        search.file(&target.rel, &bytes);
        Summary::default()
    } else {
        return Err(PathError::Special(target.rel).into());
    };
    if summary.stopped == Some(Stopped::Cancelled) {
        return Ok(cancelled());
    }
    let shown = search.matches.len();
    let next_offset = search.more.then_some(offset.saturating_add(shown));
    let mut notes = summary.notes(&ws.bounds);
    if let Some(next) = next_offset {
        let why = if shown >= max {
            format!("max_results={max}")
        } else {
            format!("the result size budget ({budget} bytes)")
        };
        notes.insert(0, format!("More matches exist: this page stopped at {why}. Call again with offset={next} for the next page, or narrow the query, path or glob."));
    }
    if search.exhausted {
        notes.insert(0, format!("{PARTIAL} the regular expression used up its work budget ({MAX_REGEX_STEPS} steps); make the pattern more specific (a literal part helps) or search a narrower path."));
    }
    if search.context_dropped {
        notes.push("The first match is shown without its context lines, which did not fit the result size budget; ask for fewer context lines.".to_string());
    }
    if !regex {
        if let Some(sign) = looks_like_regex(query) {
            notes.push(format!("The query was taken literally, but it contains {sign}, which looks like a regular expression: set `regex: true` to search with it as one."));
        }
    }
    if offset > 0 && shown == 0 && search.seen <= offset {
        notes.push(format!(
            "offset={offset} is past the last match ({} in all).",
            search.seen
        ));
    }
    if search.large > 0 {
        notes.push(format!(
            "{} files larger than {} were not searched.",
            search.large,
            human_size(MAX_SEARCH_FILE_BYTES)
        ));
    }
    if search.binary > 0 {
        notes.push(format!(
            "{} skipped.",
            plural(search.binary, ("binary file", "binary files"))
        ));
    }
    let mut lines = std::mem::take(&mut search.lines);
    if lines.is_empty() {
        lines.push(format!(
            "No matches for {query:?} in `{}` ({} files searched).",
            target.rel, search.files
        ));
    }
    let mut structured = json!({
        "query": query, "regex": regex, "path": target.rel.to_string(), "case_sensitive": case_sensitive,
        "matches": search.matches, "files_searched": search.files, "offset": offset,
        "truncated": search.more, "complete": summary.complete() && !search.exhausted, "notes": notes,
    });
    if let Some(next) = next_offset {
        structured["next_offset"] = json!(next);
    }
    Ok(ToolOutput::structured_with_text(
        structured,
        text_block(lines, &notes),
    ))
}

#[cfg(test)]
#[path = "grep_tests.rs"]
mod tests;
