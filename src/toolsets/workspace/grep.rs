//! `search_text`: a literal (not regex) search through text files, reporting file, line
//! number and line.

use std::rc::Rc;

use serde_json::{json, Value};

use super::glob::{Dialect, Glob};
use super::limits::*;
use super::read::read_whole;
use super::sandbox::{read_capped, PathError, RelPath, Sandbox};
use super::text::{clip, decode, is_binary, Matcher};
use super::tools::{cancelled, human_size, text_block, Ticker};
use super::walk::{plural, walk, Entry, Flow, Kind, Stopped, Summary, Visitor};
use super::Workspace;
use crate::{Arguments, Context, HandlerError, Tool, ToolOutput};

/// The tool definition.
pub(crate) fn tool(ws: &Rc<Workspace>, path_hint: &str) -> Tool {
    let ws = Rc::clone(ws);
    Tool::new(
        "search_text",
        format!("Search the workspace's text files for a literal string (not a regular expression) and return each matching line with its file and line number. Binary files, files over {}, .gitignore'd files and the .git directory are skipped.", human_size(MAX_SEARCH_FILE_BYTES)),
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 1, "maxLength": MAX_QUERY_CHARS,
                    "description": "The exact text to find."},
                "path": {"type": "string", "default": ".", "maxLength": MAX_PATH_BYTES,
                    "description": format!("Directory (searched recursively) or single file. {path_hint}")},
                "glob": {"type": "string", "minLength": 1, "maxLength": MAX_PATTERN_BYTES,
                    "description": "Only search files matching this glob. Without a `/` it matches file names (\"*.rs\"); with one, paths relative to `path` (\"src/**/*.rs\")."},
                "case_sensitive": {"type": "boolean", "default": false,
                    "description": "Match case exactly. Default: false."},
                "max_results": {"type": "integer", "default": 100, "minimum": 1, "maximum": MAX_SEARCH_RESULTS,
                    "description": "Stop after this many matching lines."},
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
            "path": {"type": "string"},
            "case_sensitive": {"type": "boolean"},
            "matches": {"type": "array", "items": {
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "line": {"type": "integer", "minimum": 1},
                    "text": {"type": "string"}
                },
                "required": ["path", "line", "text"]
            }},
            "files_searched": {"type": "integer", "minimum": 0},
            "truncated": {"type": "boolean", "description": "True when the search stopped at max_results and more matches exist."},
            "complete": {"type": "boolean", "description": "False when the walk stopped early at a limit; see notes."},
            "notes": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["query", "path", "case_sensitive", "matches", "files_searched", "truncated", "complete", "notes"]
    }))
    .annotations(json!({"readOnlyHint": true, "openWorldHint": false}))
}

/// Which files to search: everything, file names, or paths below the searched directory.
enum Filter {
    All,
    Name(Glob),
    Path(Glob),
}

struct Search<'a, 'c> {
    sandbox: &'a Sandbox,
    matcher: Matcher,
    filter: Filter,
    base: RelPath,
    max: usize,
    matches: Vec<Value>,
    lines: Vec<String>,
    more: bool,
    files: usize,
    binary: usize,
    large: usize,
    ticker: Ticker<'a, 'c>,
}

impl Search<'_, '_> {
    /// Searches one file; false once `max` is exceeded.
    fn file(&mut self, rel: &RelPath, bytes: Vec<u8>) -> bool {
        self.files += 1;
        if is_binary(&bytes) {
            self.binary += 1;
            return true;
        }
        let (text, _) = decode(bytes);
        let shown = rel.to_string();
        let (matches, lines, max, more) =
            (&mut self.matches, &mut self.lines, self.max, &mut self.more);
        self.matcher.each_line(&text, |n, line| {
            if matches.len() >= max {
                *more = true;
                return false;
            }
            let line = clip(line, MAX_LINE_CHARS);
            lines.push(format!("{shown}:{n}: {line}"));
            matches.push(json!({"path": shown, "line": n, "text": line}));
            true
        });
        !self.more
    }
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
        let Ok((handle, meta)) = self.sandbox.open_regular(&entry.real, &entry.rel) else {
            return Flow::Continue;
        };
        if meta.len() > MAX_SEARCH_FILE_BYTES {
            self.large += 1;
            return Flow::Continue;
        }
        let Ok(bytes) = read_capped(handle, meta.len(), MAX_SEARCH_FILE_BYTES) else {
            return Flow::Continue;
        };
        if self.file(&entry.rel, bytes) {
            Flow::Continue
        } else {
            Flow::Stop
        }
    }

    fn tick(&mut self, visited: usize) -> bool {
        let (files, found) = (self.files, self.matches.len());
        self.ticker.tick(visited, || {
            format!("{files} files searched, {found} matching lines")
        })
    }
}

fn search_text(
    ws: &Workspace,
    args: &Arguments,
    ctx: &mut Context<'_>,
) -> Result<ToolOutput, HandlerError> {
    let query = args.str("query")?;
    let case_sensitive = args.bool("case_sensitive")?.unwrap_or(false);
    let max = args
        .u64("max_results")?
        .unwrap_or(100)
        .clamp(1, MAX_SEARCH_RESULTS) as usize;
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
    let targets = ws.starts(args.str("path")?)?;
    let target = targets[0].clone();
    let mut search = Search {
        sandbox: &target.sandbox,
        matcher: Matcher::new(query, case_sensitive),
        filter,
        base: target.rel.clone(),
        max,
        matches: Vec::new(),
        lines: Vec::new(),
        more: false,
        files: 0,
        binary: 0,
        large: 0,
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
        search.file(&target.rel, bytes);
        Default::default()
    } else {
        return Err(PathError::Special(target.rel).into());
    };
    if summary.stopped == Some(Stopped::Cancelled) {
        return Ok(cancelled());
    }
    let mut notes = summary.notes(&ws.bounds);
    if search.more {
        notes.insert(0, format!("Stopped at max_results={max}; more matches exist. Narrow the query, path or glob, or raise max_results (up to {MAX_SEARCH_RESULTS})."));
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
    let structured = json!({
        "query": query, "path": target.rel.to_string(), "case_sensitive": case_sensitive,
        "matches": search.matches, "files_searched": search.files, "truncated": search.more,
        "complete": summary.complete(), "notes": notes,
    });
    Ok(ToolOutput::structured_with_text(
        structured,
        text_block(lines, &notes),
    ))
}
