//! The `analyze_code_churn` tool: per-file commits, lines added and deleted, authors, and
//! first and last change over the last `period_days`, from `git log --numstat`; hotspots
//! rank files by churn × complexity.
//!
//! Renames are followed (a file's history counts under the name it has now) and files
//! deleted since are left out, with a note that counts them.
//!
//! Definitions: a file's churn is its lines added plus lines deleted in the period; its
//! complexity is the sum of the cyclomatic complexity of its functions now; its hotspot
//! score is churn × complexity. Binary files (numstat `-`) count commits, not lines.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use serde_json::{json, Value};

use super::cache::{Cache, HistoryKey};
use super::complexity::{analysis, Analyses};
use super::git::{head, log_numstat, parse, Churn, FileChurn, GitError};
use super::limits::{
    HISTORY_CACHE_TTL, MAX_CACHED_HISTORIES, MAX_CACHED_HISTORY_FILES, MAX_HOTSPOTS,
    MAX_PERIOD_DAYS,
};
use super::report::{cell_text, code_cell};
use super::scope::{self, Scope};
use crate::workspace::output::{cancelled, text_block};
use crate::workspace::sandbox::{RelPath, Sandbox};
use crate::workspace::walk::plural;
use crate::workspace::Workspace;
use minimcp::{Arguments, Context, HandlerError, Tool, ToolOutput};

/// `2026-11-23T16:43:53Z` from the Unix seconds git prints (a commit dated before 1970
/// shows as 1970: git itself cannot record one).
pub(crate) fn iso8601(secs: i64) -> String {
    crate::workspace::info::rfc3339(u64::try_from(secs).unwrap_or(0))
}

pub(crate) fn tool(ws: &Rc<Workspace>, analyses: &Rc<Analyses>) -> Tool {
    let (ws, analyses) = (Rc::clone(ws), Rc::clone(analyses));
    let histories = Histories::default();
    Tool::new(
        "analyze_code_churn",
        "Git history of the files under a path over the last period_days: per file commits, lines added and deleted, authors, first and last change; totals; hotspots (churn × complexity). json pages the files (pass next_offset back as offset).",
        json!({
            "type": "object",
            "properties": {
                "project_path": {"type": "string", "default": ".", "description": "File or directory in a git repository."},
                "paths": scope::paths_schema("all in one repository"),
                "exclude": scope::exclude_schema(),
                "period_days": {"type": "integer", "minimum": 1, "maximum": MAX_PERIOD_DAYS, "default": 30},
                "format": {"enum": ["json", "markdown", "csv"], "default": "json"},
                "offset": {"type": "integer", "minimum": 0, "default": 0},
            },
            "additionalProperties": false
        }),
        move |args: &Arguments, ctx: &mut Context<'_>| {
            ws.enter(ctx)?;
            churn(&ws, &analyses, &histories, args, ctx)
        },
    )
    .title("Analyze code churn")
    .output_schema(json!({
        "type": "object",
        "properties": {
            "project_path": {"type": "string"},
            "period_days": {"type": "integer"},
            "format": {"enum": ["json", "markdown", "csv"]},
            "total_commits": {"type": "integer"},
            "total_authors": {"type": "integer"},
            "total_files": {"type": "integer"},
            "files": {"type": "array", "items": {"type": "object"}},
            "hotspots": {"type": "array", "items": {"type": "object"}},
            "offset": {"type": "integer"},
            "next_offset": {"type": "integer"},
            "notes": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["project_path", "period_days", "format", "total_commits", "total_authors", "total_files", "files", "hotspots", "offset", "notes"],
    }))
    .annotations(json!({"readOnlyHint": true, "openWorldHint": false}))
}

fn churn(
    ws: &Workspace,
    analyses: &Analyses,
    histories: &Histories,
    args: &Arguments,
    ctx: &mut Context<'_>,
) -> Result<ToolOutput, HandlerError> {
    let days = args.u64("period_days")?.unwrap_or(30);
    if !(1..=MAX_PERIOD_DAYS).contains(&days) {
        return Err(HandlerError::Invalid(format!(
            "`period_days` must be between 1 and {MAX_PERIOD_DAYS}"
        )));
    }
    let format = args.str("format").unwrap_or("json");
    if !matches!(format, "json" | "markdown" | "csv") {
        return Err(HandlerError::Invalid(format!(
            "`format` must be json, markdown or csv (got {format:?})"
        )));
    }
    // Past the end is an empty page, on any target: no cast that could wrap.
    let offset = usize::try_from(args.u64("offset")?.unwrap_or(0)).unwrap_or(usize::MAX);
    let scope = Scope::from_args(ws, args)?;
    let at = git_scope(&scope)?;
    let found = match history(histories, &at, &scope.shown(), days, ctx) {
        Ok(found) => found,
        Err(GitError::Cancelled) => return Ok(cancelled()),
        Err(
            e @ (GitError::Missing
            | GitError::NotARepository(_)
            | GitError::Timeout(_)
            | GitError::Failed(_)),
        ) => return Ok(ToolOutput::error(e.to_string())),
    };
    let (history, cut) = (&found.0, found.1);
    // Complexity now, for hotspots: only files git reported are worth measuring, but the
    // walk is the shared one (gitignore, bounds, progress, cancellation) and so is the
    // cache of analyses.
    let analysis = match analysis(ws, analyses, &scope, None, ctx) {
        Ok(found) => found,
        Err(output) => return Ok(output),
    };
    let mut notes = analysis.notes.clone();
    if cut {
        notes.push(
            "git log printed more than the output cap; the oldest history is left out.".into(),
        );
    }
    let prefix = at.prefix.clone();
    let complexity: BTreeMap<&str, u32> = analysis
        .files
        .iter()
        .map(|f| {
            let below = f.path.strip_prefix(&prefix).unwrap_or(&f.path);
            (below, f.functions.iter().map(|m| m.cyclomatic).sum())
        })
        .collect();
    let mut rows: Vec<(&String, &FileChurn)> = history
        .files
        .iter()
        .filter(|(path, _)| !scope.excluded(&format!("{prefix}{path}")) && !at.denied(path))
        .collect();
    // Files deleted since are left out (renamed ones carry their history to the name they
    // have now, see `git::parse`): a ranking of what is there to work on.
    let before = rows.len();
    rows.retain(|(path, _)| at.exists(path));
    if rows.len() < before {
        notes.push(format!(
            "{} changed in the period and deleted since {} left out.",
            plural(before - rows.len(), ("file", "files")),
            if before - rows.len() == 1 {
                "is"
            } else {
                "are"
            }
        ));
    }
    rows.sort_by(|a, b| {
        (b.1.commits, b.1.additions + b.1.deletions)
            .cmp(&(a.1.commits, a.1.additions + a.1.deletions))
            .then_with(|| a.0.cmp(b.0))
    });
    let mut hotspots: Vec<Value> = rows
        .iter()
        .filter_map(|(path, c)| {
            let cx = *complexity.get(path.as_str())?;
            let churn = c.additions + c.deletions;
            Some((churn * u64::from(cx), path, churn, cx))
        })
        .filter(|h| h.0 > 0)
        .map(|(score, path, churn, cx)| json!({"file": format!("{prefix}{path}"), "churn": churn, "complexity": cx, "score": score}))
        .collect();
    hotspots.sort_by(|a, b| b["score"].as_u64().cmp(&a["score"].as_u64()));
    hotspots.truncate(MAX_HOTSPOTS);
    let file_json = |(path, c): &(&String, &FileChurn)| {
        json!({
            "file": format!("{prefix}{path}"),
            "commits": c.commits,
            "additions": c.additions,
            "deletions": c.deletions,
            "authors": c.authors.iter().collect::<Vec<_>>(),
            "first_change": iso8601(c.first),
            "last_change": iso8601(c.last),
        })
    };
    let mut page = json!({
        "project_path": scope.shown(),
        "period_days": days,
        "format": format,
        "total_commits": history.commits,
        "total_authors": history.authors,
        "total_files": rows.len(),
        "hotspots": &hotspots,
        "offset": offset,
        "notes": notes,
    });
    let room = ctx
        .result_budget()
        .saturating_sub(page.to_string().len() + 2048);
    let mut files = Vec::new();
    let mut used = 0;
    for row in rows.iter().skip(offset) {
        let item = file_json(row);
        // csv and markdown rows are smaller than the JSON, so the JSON size bounds all three.
        let size = item.to_string().len() + 1;
        if used + size > room / 2 && !files.is_empty() {
            break;
        }
        used += size;
        files.push(item);
    }
    let next = offset.saturating_add(files.len());
    if next < rows.len() {
        page["next_offset"] = json!(next);
    }
    let more = if next < rows.len() {
        format!(
            "\nFiles {offset}..{next} of {}; call again with offset {next} for more.",
            rows.len()
        )
    } else {
        String::new()
    };
    // The tables of the markdown format, also the body of the json format's text.
    let markdown = |files: &[Value]| {
        let mut out = format!(
            "# Code churn, last {days} days\n\n{} by {} touched {}.\n\n| file | commits | + | − | authors | last change |\n|---|---|---|---|---|---|\n",
            plural(history.commits, ("commit", "commits")),
            plural(history.authors, ("author", "authors")),
            plural(rows.len(), ("file", "files"))
        );
        for f in files {
            out.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} |\n",
                code_cell(f["file"].as_str().unwrap_or("")),
                f["commits"],
                f["additions"],
                f["deletions"],
                cell_text(&authors(f).join(", ")),
                f["last_change"].as_str().unwrap_or("")
            ));
        }
        if !hotspots.is_empty() {
            out.push_str("\n## Hotspots (churn × complexity)\n\n| file | churn | complexity | score |\n|---|---|---|---|\n");
            for h in &hotspots {
                out.push_str(&format!(
                    "| {} | {} | {} | {} |\n",
                    code_cell(h["file"].as_str().unwrap_or("")),
                    h["churn"],
                    h["complexity"],
                    h["score"]
                ));
            }
        }
        out
    };
    let text = match format {
        "csv" => {
            let mut out = String::from("file,commits,additions,deletions,authors,first_change,last_change\n");
            for f in &files {
                out.push_str(&format!(
                    "{},{},{},{},{},{},{}\n",
                    csv_field(f["file"].as_str().unwrap_or("")), f["commits"], f["additions"], f["deletions"],
                    csv_field(&authors(f).join("; ")),
                    f["first_change"].as_str().unwrap_or(""), f["last_change"].as_str().unwrap_or("")
                ));
            }
            out + &more
        }
        "markdown" => text_block(vec![markdown(&files) + &more], &notes),
        // A client may show the model only the text: it carries the tables too.
        _ => text_block(
            vec![format!(
                "{} by {} touched {} in the last {days} days; per-file numbers are below and in structuredContent.files.{more}\n\n{}",
                plural(history.commits, ("commit", "commits")),
                plural(history.authors, ("author", "authors")),
                plural(rows.len(), ("file", "files")),
                markdown(&files)
            )],
            &notes,
        ),
    };
    page["files"] = json!(files);
    Ok(ToolOutput::structured_with_text(page, text))
}

/// The last few parsed `git log` results (see `cache`), each with whether it was cut.
pub(crate) type Histories = Cache<HistoryKey, (Churn, bool)>;

impl Default for Histories {
    fn default() -> Self {
        Cache::new(MAX_CACHED_HISTORIES, MAX_CACHED_HISTORY_FILES)
    }
}

impl Histories {
    /// The cached history for `key`, unless older than [`HISTORY_CACHE_TTL`].
    pub(crate) fn history(&self, key: &HistoryKey) -> Option<Rc<(Churn, bool)>> {
        self.get(key, |_, born| born.elapsed() < HISTORY_CACHE_TTL)
    }

    /// Keeps `history`; its size is its files (at least one).
    pub(crate) fn keep_history(&self, key: HistoryKey, history: Rc<(Churn, bool)>) {
        let size = history.0.files.len().max(1);
        self.put(key, history, size);
    }
}

/// The parsed `git log` of `at` over `days`: cached by the `HEAD` commit id (see `cache`).
fn history(
    histories: &Histories,
    at: &GitScope,
    shown: &str,
    days: u64,
    ctx: &mut Context<'_>,
) -> Result<Rc<(Churn, bool)>, GitError> {
    let mut cancelled = || ctx.is_cancelled();
    let key = head(&at.cwd, &mut cancelled).map(|head| HistoryKey {
        cwd: at.cwd.clone(),
        pathspecs: at.pathspecs.clone(),
        days,
        head,
    });
    if let Some(found) = key.as_ref().and_then(|k| histories.history(k)) {
        return Ok(found);
    }
    let (output, cut) = log_numstat(&at.cwd, shown, days, &at.pathspecs, &mut cancelled)?;
    let found = Rc::new((parse(&output), cut));
    if let Some(key) = key {
        histories.keep_history(key, Rc::clone(&found));
    }
    Ok(found)
}

/// Where `git log` runs and what it is asked about.
struct GitScope {
    /// The deepest directory holding every target (canonical).
    cwd: PathBuf,
    /// How results name `cwd`, with a trailing `/` (empty for the root).
    prefix: String,
    /// Each target relative to `cwd` (`.` for `cwd` itself).
    pathspecs: Vec<String>,
    /// The root `cwd` is in, and `cwd` relative to it: history names files the walk never
    /// meets (deleted ones), and the deny list hides those too.
    sandbox: Sandbox,
    local: Option<RelPath>,
}

impl GitScope {
    /// True when `path` (relative to `cwd`, as git names it) is in the working tree now.
    fn exists(&self, path: &str) -> bool {
        let full: PathBuf = path.split('/').filter(|c| !c.is_empty()).collect();
        self.cwd.join(full).symlink_metadata().is_ok()
    }

    /// True when the deny list hides `path` (relative to `cwd`, as git names it).
    fn denied(&self, path: &str) -> bool {
        let Some(local) = &self.local else {
            return false;
        };
        let full = path
            .split('/')
            .filter(|c| !c.is_empty())
            .fold(local.clone(), |p, name| p.join(name));
        self.sandbox.is_denied(&full, false)
    }
}

fn git_scope(scope: &Scope) -> Result<GitScope, HandlerError> {
    let Some(first) = scope.targets.first() else {
        return Err(HandlerError::Invalid("no path to analyze".into()));
    };
    if scope
        .targets
        .iter()
        .any(|t| t.sandbox.root() != first.sandbox.root())
    {
        return Err(HandlerError::Invalid(
            "analyze_code_churn's paths must all be inside one workspace root (one repository)"
                .into(),
        ));
    }
    let dir_of = |t: &crate::workspace::sandbox::Resolved| -> PathBuf {
        if t.meta.is_dir() {
            t.real.clone()
        } else {
            t.real
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_else(|| t.real.clone())
        }
    };
    let mut cwd = dir_of(first);
    for t in &scope.targets[1..] {
        let other = dir_of(t);
        while !other.starts_with(&cwd) {
            if !cwd.pop() {
                break;
            }
        }
    }
    let shown = if scope.targets.len() == 1 && first.meta.is_dir() {
        // The client's spelling, as before `paths` existed.
        first.rel.as_str().to_string()
    } else {
        let local = first.sandbox.relative(&cwd).ok_or_else(|| {
            HandlerError::Invalid("the paths have no common directory inside the root".into())
        })?;
        first
            .sandbox
            .label()
            .join_rel(local.as_str())
            .as_str()
            .to_string()
    };
    let pathspecs = scope
        .targets
        .iter()
        .map(
            |t| match t.real.strip_prefix(&cwd).ok().and_then(Path::to_str) {
                Some("") | None => ".".to_string(),
                Some(rel) => rel.to_string(),
            },
        )
        .collect();
    Ok(GitScope {
        sandbox: first.sandbox.clone(),
        local: first.sandbox.relative(&cwd),
        cwd,
        prefix: if shown.is_empty() {
            shown
        } else {
            format!("{shown}/")
        },
        pathspecs,
    })
}

fn authors(f: &Value) -> Vec<&str> {
    f["authors"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// RFC 4180: quote a field holding a comma, quote or line break, doubling its quotes.
pub(crate) fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_iso_8601_utc() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00Z");
        assert_eq!(iso8601(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(iso8601(1_795_452_233), "2026-11-23T16:43:53Z");
    }

    /// A later page (or another format) of the same history runs no
    /// `git log` and reads no file; a new commit is a new history.
    #[test]
    fn a_later_page_runs_git_log_once_per_head() {
        use crate::workspace::testutil::{TempTree, TestLink};
        let tree = TempTree::new("churn-cache");
        let git = |args: &[&str]| {
            std::process::Command::new("git")
                .current_dir(&tree.path)
                .args(["-c", "user.name=Ann", "-c", "user.email=ann@example.com"])
                .args(args)
                .output()
                .is_ok_and(|o| o.status.success())
        };
        if !git(&["init", "-q"]) {
            eprintln!("skipped: git is not available");
            return;
        }
        for i in 0..3 {
            tree.file(
                &format!("f{i}.py"),
                "def f(a):\n    if a:\n        return 1\n",
            );
        }
        assert!(git(&["add", "."]) && git(&["commit", "-qm", "one"]));
        let ws = Rc::new(Workspace::open(&tree.path).unwrap());
        let tool = tool(&ws, &Rc::new(Analyses::default()));
        let call = |args: Value| {
            TestLink::default()
                .call(&tool, args)
                .unwrap_or_else(|e| panic!("{e}"))
        };
        let runs = || super::super::git::LOG_RUNS.with(|r| r.get());
        let reads = || super::super::complexity::READS.with(|r| r.get());
        let (before, read_before) = (runs(), reads());
        let first = call(json!({}));
        assert_eq!(first.structured.as_ref().unwrap()["total_files"], 3);
        assert_eq!((runs() - before, reads() - read_before), (1, 3));
        call(json!({"offset": 1, "format": "csv"}));
        assert_eq!((runs() - before, reads() - read_before), (1, 3));
        tree.file("f3.py", "x = 1\n");
        assert!(git(&["add", "."]) && git(&["commit", "-qm", "two"]));
        let after = call(json!({}));
        assert_eq!(after.structured.as_ref().unwrap()["total_files"], 4);
        assert_eq!(runs() - before, 2);
    }

    #[test]
    fn csv_fields_are_quoted_when_needed() {
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_field("plain"), "plain");
    }
}
