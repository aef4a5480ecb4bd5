//! The `analyze_complexity` tool: walks a workspace directory (sharing the workspace's
//! gitignore rules, deny list and bounds), measures every supported source file, and
//! reports in json, markdown or SARIF, paged within the result budget.

use std::cell::OnceCell;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Instant;

use serde_json::{json, Value};

use super::cache::{AnalysisKey, Cache, Stamp};
use super::lang::Lang;
use super::limits::{
    DEFAULT_MAX_COGNITIVE, DEFAULT_MAX_CYCLOMATIC, DEFAULT_TOP_FILES, MAX_ANALYZE_FILE_BYTES,
    MAX_CACHED_ANALYSES, MAX_CACHED_FUNCTIONS,
};
use super::measure;
use super::report::{self, FileReport, Thresholds};
use super::scope::{self, Scope};
use crate::workspace::output::{cancelled, text_block, Ticker};
use crate::workspace::sandbox::Sandbox;
use crate::workspace::walk::{plural, walk, Bounds, Entry, Flow, Kind, Stopped, Summary, Visitor};
use crate::workspace::Workspace;
use minimcp::{Arguments, Context, HandlerError, Tool, ToolOutput};

#[path = "complexity_paging.rs"]
mod paging;
use paging::{fit, past_end, ranking_of};

/// Room kept for the page's own fields beside the listed items.
const PAGE_MARGIN: usize = 2048;

pub(crate) fn tool(ws: &Rc<Workspace>, analyses: &Rc<Analyses>) -> Tool {
    let (ws, analyses) = (Rc::clone(ws), Rc::clone(analyses));
    Tool::new(
        "analyze_complexity",
        format!("Measure each function of the {} files under a path: cyclomatic (as lizard counts) and cognitive complexity, Halstead, nesting, lines. Returns a summary, the functions over the max_ limits and the top files; json lists every function, paged (pass next_offset back as offset).", Lang::titles("and")),
        json!({
            "type": "object",
            "properties": {
                "project_path": {"type": "string", "default": ".", "description": "File or directory."},
                "paths": scope::paths_schema("directories are walked"),
                "exclude": scope::exclude_schema(),
                "toolchain": {"enum": Lang::names(), "description": "Only this language."},
                "format": {"enum": ["json", "markdown", "sarif"], "default": "json"},
                "max_cyclomatic": {"type": "integer", "minimum": 1, "default": DEFAULT_MAX_CYCLOMATIC},
                "max_cognitive": {"type": "integer", "minimum": 1, "default": DEFAULT_MAX_COGNITIVE},
                "top_files": {"type": "integer", "minimum": 0, "maximum": 1000, "default": DEFAULT_TOP_FILES, "description": "0 lists every violation instead."},
                "offset": {"type": "integer", "minimum": 0, "default": 0},
            },
            "additionalProperties": false
        }),
        move |args: &Arguments, ctx: &mut Context<'_>| {
            ws.enter(ctx)?;
            analyze(&ws, &analyses, args, ctx)
        },
    )
    .title("Analyze code complexity")
    .output_schema(json!({
        "type": "object",
        "properties": {
            "project_path": {"type": "string"},
            "format": {"enum": ["json", "markdown", "sarif"]},
            "summary": {"type": "object"},
            "thresholds": {"type": "object"},
            "violation_count": {"type": "integer"},
            "violations": {"type": "array", "items": {"type": "object"}},
            "top_files": {"type": "array", "items": {"type": "object"}},
            "functions": {"type": "array", "items": {"type": "object"}},
            "total_functions": {"type": "integer"},
            "sarif": {"type": "object"},
            "offset": {"type": "integer"},
            "next_offset": {"type": "integer"},
            "complete": {"type": "boolean", "description": "false: a limit stopped the walk (see notes)"},
            "notes": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["project_path", "format", "summary", "thresholds", "violation_count", "top_files", "offset", "complete", "notes"],
    }))
    .annotations(json!({"readOnlyHint": true, "openWorldHint": false}))
}

struct Collect<'a, 'c> {
    scope: &'a Scope,
    only: Option<Lang>,
    files: Vec<FileReport>,
    /// Paths already measured: overlapping `paths` measure each file once.
    seen: HashSet<String>,
    too_large: usize,
    not_text: usize,
    /// What the result depends on, for the cache (see `cache`).
    stamps: Vec<(PathBuf, Option<Stamp>)>,
    ticker: Ticker<'a, 'c>,
}

#[cfg(test)]
thread_local! {
    /// Source files read on this thread: tests show that a later page reads none.
    pub(crate) static READS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

impl Collect<'_, '_> {
    /// Reads and measures one file (`real` inside `sandbox`), shown as `rel`.
    fn measure(&mut self, sandbox: &Sandbox, rel: &str, real: &Path) {
        let Some(lang) = Lang::of_path(rel) else {
            return;
        };
        if self.only.is_some_and(|only| only != lang) || self.scope.excluded(rel) {
            return;
        }
        if !self.seen.insert(rel.to_string()) {
            return;
        }
        // Stamped before reading: a change while it is read makes the stamp stale.
        let stamp = Stamp::now(real);
        self.stamps.push((real.to_path_buf(), stamp));
        if stamp.is_some_and(|s| s.len() > MAX_ANALYZE_FILE_BYTES) {
            self.too_large += 1;
            return;
        }
        #[cfg(test)]
        READS.with(|reads| reads.set(reads.get() + 1));
        let Some(bytes) = sandbox.read_entry(real, MAX_ANALYZE_FILE_BYTES) else {
            self.too_large += 1;
            return;
        };
        let Ok(text) = String::from_utf8(bytes) else {
            self.not_text += 1;
            return;
        };
        self.files.push(FileReport {
            path: rel.to_string(),
            lang,
            functions: measure::file(&text, lang),
        });
    }
}

/// One walk of one target directory, feeding [`Collect`].
struct Walker<'a, 'b, 'c> {
    sandbox: &'a Sandbox,
    collect: &'a mut Collect<'b, 'c>,
}

impl Visitor for Walker<'_, '_, '_> {
    fn visit(&mut self, entry: &Entry) -> Flow {
        match entry.kind {
            Kind::Dir if self.collect.scope.excluded(entry.rel.as_str()) => Flow::Skip,
            Kind::Dir => {
                let stamp = Stamp::now(&entry.real);
                self.collect.stamps.push((entry.real.clone(), stamp));
                Flow::Continue
            }
            Kind::File if entry.rel.name() == ".gitignore" => {
                let stamp = Stamp::now(&entry.real);
                self.collect.stamps.push((entry.real.clone(), stamp));
                Flow::Continue
            }
            Kind::File => {
                self.collect
                    .measure(self.sandbox, entry.rel.as_str(), &entry.real);
                Flow::Continue
            }
            Kind::Other => Flow::Continue,
        }
    }

    fn tick(&mut self, visited: usize) -> bool {
        let files = self.collect.files.len();
        self.collect.ticker.tick(visited, || {
            format!("{visited} entries examined, {files} files analyzed")
        })
    }
}

/// The measured files of one scope, and what the walks said.
pub(crate) struct Analysis {
    pub(crate) files: Vec<FileReport>,
    pub(crate) notes: Vec<String>,
    /// False when a walk stopped early at a bound.
    pub(crate) complete: bool,
    /// Everything the result depends on and how it looked (see `cache`).
    pub(crate) stamps: Vec<(PathBuf, Option<Stamp>)>,
    summary: OnceCell<Value>,
}

impl Analysis {
    /// [`report::summary`] of the files, computed once.
    pub(crate) fn summary(&self) -> &Value {
        self.summary.get_or_init(|| report::summary(&self.files))
    }
}

/// The last few analyses (see `cache`), shared by both tools: churn's hotspots use them.
pub(crate) type Analyses = Cache<AnalysisKey, Analysis>;

impl Default for Analyses {
    fn default() -> Self {
        Cache::new(MAX_CACHED_ANALYSES, MAX_CACHED_FUNCTIONS)
    }
}

impl Analyses {
    /// The cached analysis for `key`, if every file and directory it read still stats the
    /// same.
    pub(crate) fn analysis(&self, key: &AnalysisKey) -> Option<Rc<Analysis>> {
        self.get(key, |a, _| {
            a.stamps
                .iter()
                .all(|(path, stamp)| Stamp::now(path) == *stamp)
        })
    }

    /// Keeps `analysis`; its size is its functions (a file without any counts one).
    pub(crate) fn keep_analysis(&self, key: AnalysisKey, analysis: Rc<Analysis>) {
        let size = analysis
            .files
            .iter()
            .map(|f| f.functions.len().max(1))
            .sum();
        self.put(key, analysis, size);
    }
}

/// The analysis of `scope`: from the cache when nothing it read has changed, else walked
/// and measured (and kept, unless a walk ran out of time: a second try may get further).
pub(crate) fn analysis(
    ws: &Workspace,
    analyses: &Analyses,
    scope: &Scope,
    only: Option<Lang>,
    ctx: &mut Context<'_>,
) -> Result<Rc<Analysis>, ToolOutput> {
    let key = scope.key(only);
    if let Some(found) = analyses.analysis(&key) {
        return Ok(found);
    }
    let (analysis, timed_out) = collect(ws, scope, only, ctx)?;
    let analysis = Rc::new(analysis);
    if !timed_out {
        analyses.keep_analysis(key, Rc::clone(&analysis));
    }
    Ok(analysis)
}

fn threshold(args: &Arguments, name: &str, default: u32) -> Result<u32, HandlerError> {
    match args.u64(name)? {
        None => Ok(default),
        Some(0) => Err(HandlerError::Invalid(format!(
            "`{name}` must be at least 1"
        ))),
        Some(v) => Ok(v.min(u64::from(u32::MAX)) as u32),
    }
}

/// Walks and measures every target of `scope`, and says whether a walk ran out of time.
fn collect(
    ws: &Workspace,
    scope: &Scope,
    only: Option<Lang>,
    ctx: &mut Context<'_>,
) -> Result<(Analysis, bool), ToolOutput> {
    let mut collect = Collect {
        scope,
        only,
        files: Vec::new(),
        seen: HashSet::new(),
        too_large: 0,
        not_text: 0,
        stamps: Vec::new(),
        ticker: Ticker { ctx },
    };
    let bounds = Bounds {
        max_time: ws.analysis_time,
        ..ws.bounds
    };
    let started = Instant::now();
    let mut summary = Summary::default();
    let mut unsupported = Vec::new();
    for target in &scope.targets {
        if !target.meta.is_dir() {
            let rel = target.rel.as_str();
            if Lang::of_path(rel).is_none() {
                unsupported.push(rel.to_string());
            }
            collect.measure(&target.sandbox, rel, &target.real);
            continue;
        }
        collect
            .stamps
            .push((target.real.clone(), Stamp::now(&target.real)));
        // The `.gitignore` files above the target apply to its walk too.
        let mut dir = target.sandbox.root().to_path_buf();
        let mut above = vec![dir.join(".gitignore")];
        for name in target.real_rel.components() {
            dir.push(name);
            above.push(dir.join(".gitignore"));
        }
        for path in above {
            let stamp = Stamp::now(&path);
            collect.stamps.push((path, stamp));
        }
        let mut walker = Walker {
            sandbox: &target.sandbox,
            collect: &mut collect,
        };
        // Several targets share one budget of time and entries, not one each.
        let left = Bounds {
            max_time: bounds.max_time.saturating_sub(started.elapsed()),
            max_entries: bounds.max_entries.saturating_sub(summary.visited),
            ..bounds
        };
        summary.absorb(walk(&target.sandbox, target, &left, &mut walker));
        if summary.stopped.is_some() {
            break;
        }
    }
    if summary.stopped == Some(Stopped::Cancelled) {
        return Err(cancelled());
    }
    let mut notes = summary.notes(&bounds);
    if !unsupported.is_empty() {
        notes.push(super::batch::unsupported_note(&unsupported));
    }
    if collect.too_large > 0 {
        notes.push(format!(
            "{} source files larger than {} bytes (or unreadable) were skipped.",
            collect.too_large, MAX_ANALYZE_FILE_BYTES
        ));
    }
    if collect.not_text > 0 {
        notes.push(format!(
            "{} source files that are not UTF-8 were skipped.",
            collect.not_text
        ));
    }
    let timed_out = summary.stopped == Some(Stopped::Time);
    let analysis = Analysis {
        files: collect.files,
        notes,
        complete: summary.complete(),
        stamps: collect.stamps,
        summary: OnceCell::new(),
    };
    Ok((analysis, timed_out))
}

fn analyze(
    ws: &Workspace,
    analyses: &Analyses,
    args: &Arguments,
    ctx: &mut Context<'_>,
) -> Result<ToolOutput, HandlerError> {
    let only = match args.str("toolchain") {
        Ok(name) => Some(
            Lang::ALL
                .into_iter()
                .find(|l| l.as_str() == name)
                .ok_or_else(|| {
                    HandlerError::Invalid(format!(
                        "`toolchain` must be one of {} (got {name:?})",
                        Lang::names().join(", ")
                    ))
                })?,
        ),
        Err(_) => None,
    };
    let format = args.str("format").unwrap_or("json");
    if !matches!(format, "json" | "markdown" | "sarif") {
        return Err(HandlerError::Invalid(format!(
            "`format` must be json, markdown or sarif (got {format:?})"
        )));
    }
    let limits = Thresholds {
        cyclomatic: threshold(args, "max_cyclomatic", DEFAULT_MAX_CYCLOMATIC)?,
        cognitive: threshold(args, "max_cognitive", DEFAULT_MAX_COGNITIVE)?,
    };
    let top = args
        .u64("top_files")?
        .unwrap_or(DEFAULT_TOP_FILES as u64)
        .min(1000) as usize;
    // A huge offset is past the end like any other: an empty page, never a cast that wraps.
    let offset = usize::try_from(args.u64("offset")?.unwrap_or(0)).unwrap_or(usize::MAX);
    let budget = ctx.result_budget();
    let scope = Scope::from_args(ws, args)?;
    let analysis = match analysis(ws, analyses, &scope, only, ctx) {
        Ok(found) => found,
        Err(output) => return Ok(output),
    };
    let (files, notes, complete) = (&analysis.files, &analysis.notes, analysis.complete);
    let summary = analysis.summary().clone();
    let violations = report::violations(files, limits);
    let ranking = report::ranking(files, top);
    let mut page = json!({
        "project_path": scope.shown(),
        "format": format,
        "summary": summary,
        "thresholds": {"max_cyclomatic": limits.cyclomatic, "max_cognitive": limits.cognitive},
        "violation_count": violations.len(),
        "top_files": ranking,
        "offset": offset,
        "complete": complete,
        "notes": notes,
    });
    let fixed = page.to_string().len() + PAGE_MARGIN;
    let room = budget.saturating_sub(fixed);
    match format {
        "json" => {
            // Only this page's rows are turned into JSON: skipping the earlier ones costs
            // next to nothing, so a later page costs what its own rows cost.
            let total = files.iter().map(|f| f.functions.len()).sum::<usize>();
            let rows = files
                .iter()
                .flat_map(|f| f.functions.iter().map(move |m| (f, m)))
                .skip(offset)
                .map(|(f, m)| report::function_json(f, m));
            // Violations first (capped to half the room), then functions from `offset`.
            let (violation_page, used) = fit(violations.iter().map(|v| v.to_json()), room / 2);
            let (functions, _) = fit(rows, room.saturating_sub(used));
            let next = offset.saturating_add(functions.len());
            page["violations"] = json!(violation_page);
            page["functions"] = json!(functions);
            page["total_functions"] = json!(total);
            // A client may show the model only the text: it carries the summary, the
            // violations, the ranking and this page's functions too, as markdown tables
            // (smaller than the JSON rows, so within the same budget).
            let mut text = format!(
                "{}, {}; {} (cyclomatic > {}, cognitive > {}). Functions {}..{} of {} are listed below and in structuredContent.functions.",
                plural(files.len(), ("file", "files")),
                plural(total, ("function", "functions")),
                plural(violations.len(), ("violation", "violations")),
                limits.cyclomatic, limits.cognitive,
                offset, next, total
            );
            if violation_page.len() < violations.len() {
                text.push_str(&format!(" The worst {} violations are listed; use format markdown or sarif with offset to page through all of them.", violation_page.len()));
            }
            if next < total {
                page["next_offset"] = json!(next);
                text.push_str(&format!(" More functions: call again with offset {next}."));
            }
            if let Some(note) = past_end(&mut page, offset, total, "functions") {
                text.push(' ');
                text.push_str(&note);
            }
            text.push_str("\n\n");
            text.push_str(&report::markdown(
                &page["summary"],
                &ranking_of(&page),
                &violation_page,
                violations.len(),
            ));
            text.push_str(&report::function_table(&functions, offset, total));
            let text = text_block(vec![text], notes);
            Ok(ToolOutput::structured_with_text(page, text))
        }
        "markdown" => {
            // The markdown table costs roughly as much as the JSON rows.
            let (rows, _) = fit(
                violations.iter().skip(offset).map(|v| v.to_json()),
                room / 2,
            );
            let next = offset.saturating_add(rows.len());
            let mut text = report::markdown(
                &page["summary"],
                &ranking_of(&page),
                &rows,
                violations.len(),
            );
            if next < violations.len() {
                page["next_offset"] = json!(next);
                text.push_str(&format!(
                    "\n… violations {offset}..{next} of {} shown; call again with offset {next}.\n",
                    violations.len()
                ));
            }
            if let Some(note) = past_end(&mut page, offset, violations.len(), "violations") {
                text.push_str(&format!("\n{note}\n"));
            }
            let text = text_block(vec![text], notes);
            Ok(ToolOutput::structured_with_text(page, text))
        }
        _ => {
            // A SARIF result is about three times the size of a violation row; the log is
            // both the text and `structuredContent.sarif`.
            let (rows, _) = fit(
                violations.iter().skip(offset).map(|v| v.to_json()),
                room / 5,
            );
            // Past the end the page is empty: start and end both clamp to the length.
            let start = offset.min(violations.len());
            let next = start + rows.len();
            let log = report::sarif(&violations[start..next]);
            let text = log.to_string();
            page["sarif"] = log;
            if next < violations.len() {
                page["next_offset"] = json!(next);
            }
            past_end(&mut page, offset, violations.len(), "violations");
            Ok(ToolOutput::structured_with_text(page, text))
        }
    }
}

#[cfg(test)]
#[path = "complexity_tests.rs"]
mod tests;
