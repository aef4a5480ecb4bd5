//! `search_text`: a literal or regular-expression search through text files, reporting
//! file, line number, the line and optional context lines, a page at a time. This file holds
//! the tool (definition, arguments, notes); the walk that fills a page is in `scan.rs`.

use std::rc::Rc;

use serde_json::{json, Value};

use super::glob::{Dialect, Glob};
use super::limits::*;
use super::matcher::Matcher;
use super::output::{cancelled, human_size, text_block, Ticker};
use super::read::read_whole;
use super::sandbox::PathError;
use super::scan::{Filter, Page, Search};
use super::walk::{plural, walk, Stopped, Summary, PARTIAL};
use super::{Workspace, PATH_HINT};
use minimcp::{Arguments, Context, HandlerError, Tool, ToolOutput};

/// Bytes of the result budget kept for the notes and the fields around the matches.
const RESERVED_BYTES: usize = 4096;

/// The tool definition.
pub(crate) fn tool(ws: &Rc<Workspace>) -> Tool {
    let ws = Rc::clone(ws);
    Tool::new(
        "search_text",
        format!("Search text files for a literal string, or a regular expression with `regex`; matching lines with their file and line number. Paged: pass `next_offset` back as `offset`. Skips binary files, files over {}, .gitignore'd files and .git. Regex: the usual syntax, linear time, ASCII `\\d\\w\\s\\b`, `^$` per line; no lookaround, backreferences or `\\p{{…}}`.", human_size(MAX_SEARCH_FILE_BYTES)),
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 1, "maxLength": MAX_QUERY_CHARS},
                "regex": {"type": "boolean", "default": false},
                "path": {"type": "string", "default": ".", "maxLength": MAX_PATH_BYTES,
                    "description": format!("Directory (recursive) or file. {PATH_HINT}")},
                "glob": {"type": "string", "minLength": 1, "maxLength": MAX_PATTERN_BYTES,
                    "description": "Only files matching: by name (\"*.rs\"), or with `/` by path below `path`."},
                "case_sensitive": {"type": "boolean", "default": false},
                "context": {"type": "integer", "default": 0, "minimum": 0, "maximum": MAX_CONTEXT_LINES,
                    "description": "Lines around each match."},
                "before": {"type": "integer", "minimum": 0, "maximum": MAX_CONTEXT_LINES, "description": "Overrides `context`."},
                "after": {"type": "integer", "minimum": 0, "maximum": MAX_CONTEXT_LINES, "description": "Overrides `context`."},
                "max_results": {"type": "integer", "default": 100, "minimum": 1, "maximum": MAX_SEARCH_RESULTS,
                    "description": "Matching lines per page."},
                "offset": {"type": "integer", "default": 0, "minimum": 0},
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
