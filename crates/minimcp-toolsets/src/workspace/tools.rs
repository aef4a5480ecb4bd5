//! The four tools: their definitions (schemas, annotations), `search_files` and
//! `list_directory`. `read_file` lives in `read.rs`, `search_text` in `grep.rs`; the
//! result text, sizes and progress ticking every tool shares are in `output.rs`.

use std::rc::Rc;

use serde_json::{json, Value};

use super::glob::{Dialect, Glob};
use super::limits::*;
use super::output::{cancelled, human_size, text_block, Ticker};
use super::paging::Page;
use super::sandbox::{PathError, RelPath, Resolved};
use super::walk::{plural, walk, Bounds, Entry, Flow, Kind, Stopped, Summary, Visitor};
use super::{grep, info, read, Workspace, PATH_HINT};
use minimcp::{Arguments, Context, HandlerError, Tool, ToolOutput};

/// A tool handler that needs the workspace.
pub(crate) type Handler =
    fn(&Workspace, &Arguments, &mut Context<'_>) -> Result<ToolOutput, HandlerError>;

/// Wraps `handler` so that the workspace's roots are brought up to date first (the client's
/// roots may have changed); every toolset over the workspace builds its tools with this.
pub(crate) fn with_roots(
    ws: &Rc<Workspace>,
    handler: Handler,
) -> impl Fn(&Arguments, &mut Context<'_>) -> Result<ToolOutput, HandlerError> + 'static {
    let ws = Rc::clone(ws);
    move |args: &Arguments, ctx: &mut Context<'_>| {
        ws.enter(ctx)?;
        handler(&ws, args, ctx)
    }
}

/// Every tool of the toolset.
pub(crate) fn tools(ws: &Rc<Workspace>) -> Vec<Tool> {
    vec![
        Tool::new(
            "search_files",
            "Find files and directories whose path matches a glob: `*` within a path component, `**` across directories, `?`, `[abc]`, `{a,b}`. Sorted, relative to the workspace root; directories end with `/`. Skips .gitignore'd files and .git. Paged: pass `next_offset` back as `offset`.",
            json!({
                "type": "object",
                "properties": {
                    "pattern": {"type": "string", "minLength": 1, "maxLength": MAX_PATTERN_BYTES,
                        "description": "Below `directory`, e.g. \"**/*.rs\"."},
                    "directory": {"type": "string", "default": ".", "maxLength": MAX_PATH_BYTES,
                        "description": PATH_HINT},
                    "offset": {"type": "integer", "default": 0, "minimum": 0},
                },
                "required": ["pattern"],
                "additionalProperties": false
            }),
            with_roots(ws, search_files),
        )
        .title("Search files by glob")
        .output_schema(walk_output(json!({
            "pattern": {"type": "string"},
            "directory": {"type": "string"},
            "matches": {"type": "array", "items": {"type": "string"}},
            "total": {"type": "integer"},
        }), &["pattern", "directory", "matches", "total"]))
        .annotations(read_only()),
        Tool::new(
            "list_directory",
            "List a directory's entries (kind, size, modified time, permissions) down to `depth` levels, paths relative to it. Skips .gitignore'd entries and .git. Paged: pass `next_offset` back as `offset`.",
            json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "default": ".", "maxLength": MAX_PATH_BYTES,
                        "description": PATH_HINT},
                    "depth": {"type": "integer", "default": 1, "minimum": 1, "maximum": MAX_LIST_DEPTH},
                    "offset": {"type": "integer", "default": 0, "minimum": 0},
                },
                "additionalProperties": false
            }),
            with_roots(ws, list_directory),
        )
        .title("List a directory")
        .output_schema(walk_output(json!({
            "path": {"type": "string"},
            "entries": {"type": "array", "items": {
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "kind": {"enum": ["file", "directory", "other"]},
                    "size": {"type": "integer"},
                    "modified": {"type": "string", "description": "RFC 3339, UTC"},
                    "permissions": {"type": "string", "description": "e.g. rwxr-xr-x"},
                    "symlink": {"type": "boolean"}
                },
                "required": ["path", "kind"]
            }},
            "total": {"type": "integer"},
        }), &["path", "entries", "total"]))
        .annotations(read_only()),
        read::tool(ws),
        grep::tool(ws),
    ]
}

fn read_only() -> Value {
    json!({"readOnlyHint": true, "openWorldHint": false})
}

/// An output schema: `properties` plus the fields every walking tool reports.
fn walk_output(mut properties: Value, required: &[&str]) -> Value {
    properties["truncated"] = json!({"type": "boolean"});
    properties["complete"] =
        json!({"type": "boolean", "description": "false: a limit stopped the walk (see notes)"});
    properties["notes"] = json!({"type": "array", "items": {"type": "string"}});
    properties["next_offset"] = json!({"type": "integer"});
    let mut required: Vec<&str> = required.to_vec();
    required.extend(["truncated", "complete", "notes"]);
    json!({"type": "object", "properties": properties, "required": required})
}

/// Resolves a directory argument to the directories to walk: with several roots, `.` is
/// every root.
pub(crate) fn directories(ws: &Workspace, input: &str) -> Result<Vec<Resolved>, HandlerError> {
    let dirs = ws.starts(input)?;
    if let Some(file) = dirs.iter().find(|d| !d.meta.is_dir()) {
        return Err(PathError::NotADirectory(file.rel.clone()).into());
    }
    Ok(dirs)
}

// ---- search_files -------------------------------------------------------------------------

struct Find<'a, 'c> {
    glob: &'a Glob,
    base: RelPath,
    page: Page,
    ticker: Ticker<'a, 'c>,
}

impl Visitor for Find<'_, '_> {
    fn visit(&mut self, entry: &Entry) -> Flow {
        let below = entry
            .rel
            .strip_prefix(&self.base)
            .unwrap_or(entry.rel.as_str());
        if entry.kind != Kind::Other && self.glob.matches(below) {
            let slash = if entry.kind == Kind::Dir { "/" } else { "" };
            self.page.offer(|| {
                let shown = format!("{}{slash}", entry.rel);
                (shown.clone(), json!(shown))
            });
        }
        if entry.kind == Kind::Dir && !self.glob.could_match_below(below) {
            return Flow::Skip;
        }
        Flow::Continue
    }

    fn tick(&mut self, visited: usize) -> bool {
        let total = self.page.seen();
        self.ticker.tick(visited, || {
            format!("{visited} entries examined, {total} matches")
        })
    }
}

fn search_files(
    ws: &Workspace,
    args: &Arguments,
    ctx: &mut Context<'_>,
) -> Result<ToolOutput, HandlerError> {
    let pattern = args.str("pattern")?;
    let glob = Glob::new(pattern, Dialect::Search)
        .map_err(|e| HandlerError::Invalid(format!("`pattern`: {e}")))?;
    let dirs = directories(ws, args.str("directory")?)?;
    let shown = if dirs.len() > 1 {
        RelPath::root()
    } else {
        dirs[0].rel.clone()
    };
    let offset = usize::try_from(args.u64("offset")?.unwrap_or(0)).unwrap_or(usize::MAX);
    let budget = ctx.result_budget();
    let mut find = Find {
        glob: &glob,
        base: RelPath::root(),
        page: Page::new(offset, MAX_GLOB_RESULTS, budget),
        ticker: Ticker { ctx },
    };
    // Start below the pattern's literal leading directories: `src/**/*.rs` walks `src` only.
    let prefix = glob.literal_prefix().join("/");
    let mut summary = Summary::default();
    for dir in &dirs {
        let start = if prefix.is_empty() {
            dir.clone()
        } else {
            let local = dir.rel.strip_prefix(dir.sandbox.label()).unwrap_or("");
            match RelPath::parse(local)
                .map(|local| local.join_rel(&prefix))
                .and_then(|p| dir.sandbox.resolve(&p))
            {
                Ok(start) if start.meta.is_dir() => start,
                // Nothing there: no matches, not an error.
                Ok(_) | Err(PathError::NotFound(_) | PathError::NotADirectory(_)) => continue,
                Err(e) => return Err(e.into()),
            }
        };
        find.base = dir.rel.clone();
        summary.absorb(walk(&dir.sandbox, &start, &ws.bounds, &mut find));
        if summary.stopped.is_some() {
            break;
        }
    }
    if summary.stopped == Some(Stopped::Cancelled) {
        return Ok(cancelled());
    }
    let page = find.page;
    let total = page.seen();
    let mut notes = summary.notes(&ws.bounds);
    let next = page.next_offset();
    if let Some(next) = next {
        notes.insert(0, format!("Showing matches {}-{next} of {total}; call search_files again with offset={next} for more, or narrow the pattern or directory.", page.offset() + 1));
    }
    let text = if page.items.is_empty() {
        let what = if offset > 0 && total > 0 {
            format!("`offset` {offset} is past the last of {total} matches.")
        } else {
            format!("No paths match `{pattern}` in `{shown}`.")
        };
        text_block(vec![what], &notes)
    } else {
        text_block(page.lines, &notes)
    };
    let mut structured = json!({
        "pattern": pattern, "directory": shown.to_string(), "matches": page.items, "total": total,
        "truncated": next.is_some(), "complete": summary.complete(), "notes": notes,
    });
    if let Some(next) = next {
        structured["next_offset"] = json!(next);
    }
    Ok(ToolOutput::structured_with_text(structured, text))
}

// ---- list_directory -----------------------------------------------------------------------

struct List<'a, 'c> {
    base: RelPath,
    page: Page,
    ticker: Ticker<'a, 'c>,
}

/// One listing entry: its line and its JSON, named relative to the listed directory.
fn describe(entry: &Entry, base: &RelPath) -> (String, Value) {
    let name = entry
        .rel
        .strip_prefix(base)
        .unwrap_or(entry.rel.as_str())
        .to_string();
    let mut item = json!({"path": name, "kind": entry.kind.as_str()});
    let mut line = name;
    let meta = std::fs::metadata(&entry.real).ok();
    let mut facts = Vec::new();
    match entry.kind {
        Kind::Dir => line.push('/'),
        Kind::File => {
            if let Some(size) = meta.as_ref().map(|m| m.len()) {
                item["size"] = json!(size);
                facts.push(human_size(size));
            }
        }
        Kind::Other => facts.push("not a regular file".to_string()),
    }
    if let Some(meta) = &meta {
        if let Some(modified) = info::modified(meta) {
            facts.push(modified[..16].replace('T', " "));
            item["modified"] = json!(modified);
        }
        if let Some(mode) = info::permissions(meta) {
            item["permissions"] = json!(mode);
        }
    }
    if entry.symlink {
        item["symlink"] = json!(true);
        facts.push("symlink".to_string());
    }
    if !facts.is_empty() {
        line.push_str(&format!("  ({})", facts.join(", ")));
    }
    (line, item)
}

impl Visitor for List<'_, '_> {
    fn visit(&mut self, entry: &Entry) -> Flow {
        let base = &self.base;
        self.page.offer(|| describe(entry, base));
        Flow::Continue
    }

    fn tick(&mut self, visited: usize) -> bool {
        self.ticker
            .tick(visited, || format!("{visited} entries listed"))
    }
}

fn list_directory(
    ws: &Workspace,
    args: &Arguments,
    ctx: &mut Context<'_>,
) -> Result<ToolOutput, HandlerError> {
    let dirs = directories(ws, args.str("path")?)?;
    let depth = args.u64("depth")?.unwrap_or(1).clamp(1, MAX_LIST_DEPTH) as usize;
    let offset = usize::try_from(args.u64("offset")?.unwrap_or(0)).unwrap_or(usize::MAX);
    let budget = ctx.result_budget();
    let mut list = List {
        base: RelPath::root(),
        page: Page::new(offset, MAX_LIST_ENTRIES, budget),
        ticker: Ticker { ctx },
    };
    let mut summary = Summary::default();
    let several = dirs.len() > 1;
    let dir_shown = if several {
        RelPath::root()
    } else {
        dirs[0].rel.clone()
    };
    for dir in &dirs {
        // Several roots: `.` lists each root as a directory, and its entries below it.
        let below = if several {
            let root = Entry {
                rel: dir.rel.clone(),
                real: dir.real.clone(),
                kind: Kind::Dir,
                symlink: false,
                depth: 1,
                id: None,
            };
            list.page.offer(|| describe(&root, &RelPath::root()));
            depth - 1
        } else {
            list.base = dir.rel.clone();
            depth
        };
        if below == 0 {
            continue;
        }
        let bounds = Bounds {
            max_depth: below.min(ws.bounds.max_depth),
            ..ws.bounds
        };
        summary.absorb(walk(&dir.sandbox, dir, &bounds, &mut list));
        if summary.stopped.is_some() {
            break;
        }
    }
    let bounds = Bounds {
        max_depth: depth.min(ws.bounds.max_depth),
        ..ws.bounds
    };
    if summary.stopped == Some(Stopped::Cancelled) {
        return Ok(cancelled());
    }
    // The depth was asked for: directories below it are expected, not a shortfall.
    summary.too_deep = 0;
    let mut notes = summary.notes(&bounds);
    let page = list.page;
    let total = page.seen();
    let next = page.next_offset();
    if let Some(next) = next {
        notes.insert(0, format!("Showing entries {}-{next} of {total}; call list_directory again with offset={next} for more, or list a subdirectory.", page.offset() + 1));
    }
    let mut lines = vec![format!(
        "`{dir_shown}` ({}; paths below are relative to it):",
        plural(total, ("entry", "entries"))
    )];
    if total == 0 {
        lines = vec![format!("`{dir_shown}` is empty.")];
    } else if page.items.is_empty() {
        lines.push(format!("`offset` {offset} is past the last entry."));
    }
    lines.extend(page.lines);
    let text = text_block(lines, &notes);
    let mut structured = json!({
        "path": dir_shown.to_string(), "entries": page.items, "total": total,
        "truncated": next.is_some(), "complete": summary.complete(), "notes": notes,
    });
    if let Some(next) = next {
        structured["next_offset"] = json!(next);
    }
    Ok(ToolOutput::structured_with_text(structured, text))
}

#[cfg(test)]
#[path = "tools_tests.rs"]
mod tests;
