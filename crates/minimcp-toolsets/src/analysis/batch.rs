//! The analysis for a command line (`minimcp analyze`, run in CI): the same walk,
//! `.gitignore` and deny rules, `exclude` globs and metrics as `analyze_complexity`, but
//! without a session or a result budget, every function at once, the files counted first
//! so a progress line can show files done against the total; any path the person names,
//! inside the working directory or not (see `named`); the exemption comments of each
//! function (see `exempt`); and (in `diff`) the lines a git diff touched, for reporting only
//! the functions a change touched.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Map, Value};

pub use super::diff::{changed_lines, functions_at};
use super::exempt::{self, Exemption};
use super::lang::Lang;
use super::limits::{DEFAULT_TOP_FILES, MAX_ANALYZE_FILE_BYTES};
use super::measure::{self, Measured};
use super::named::{self, Group};
use super::report::{self, FileReport};
pub use super::scope::Globs;
use super::scope::Scope;
use crate::workspace::walk::{walk, Bounds, Entry, Flow, Kind, Summary, Visitor};
use crate::workspace::{Config, Workspace};
use minimcp::Arguments;

/// How long one command-line analysis may walk: a CI run is bounded by its own timeout,
/// and a report cut short would pass a gate it should fail.
const WALK_TIME: Duration = Duration::from_secs(24 * 3600);

/// What to analyze.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// The working directory: paths are relative to it, and reports name files from it.
    pub root: PathBuf,
    /// Files and directories, relative to `root` or absolute, inside it or anywhere else;
    /// empty means `root` itself.
    pub paths: Vec<String>,
    /// Globs to leave out, as the tools' `exclude` argument takes them (a glob with `/`
    /// matches the path below the root it is read from).
    pub exclude: Vec<String>,
    /// The deny list (`.gitignore` syntax); `None`: the workspace toolset's defaults.
    pub deny: Option<Vec<String>>,
}

/// One measured function.
#[derive(Debug, Clone, PartialEq)]
pub struct Function {
    /// The file as reports name it: relative to the request's root with `/` separators,
    /// or, outside it, as the person spelled the path that holds it.
    pub file: String,
    /// The file's absolute path (not resolved through symbolic links).
    pub path: PathBuf,
    /// The function's name as the tools report it.
    pub name: String,
    /// The first and last line (1-based) of the function, head to end of body.
    pub start_line: u32,
    /// See `start_line`.
    pub end_line: u32,
    /// McCabe's cyclomatic complexity.
    pub cyclomatic: u32,
    /// SonarSource's cognitive complexity.
    pub cognitive: u32,
    /// The exemption comments that belong to it.
    pub exemptions: Vec<Exemption>,
    /// Every metric, for [`Function::row`].
    measured: Measured,
    lang: Lang,
}

impl Function {
    /// The function as `analyze_complexity` lists it in `functions` (every metric): made
    /// on demand, so a report of many functions holds no JSON for them.
    pub fn row(&self) -> Value {
        serde_json::to_value(self.row_serialize()).unwrap_or(Value::Null)
    }

    /// The same row as [`Function::row`], written straight to a serializer without a
    /// [`Value`] in between (the same bytes; faster for a report of many functions).
    pub fn row_serialize(&self) -> impl serde::Serialize + '_ {
        report::function_row(&self.file, self.lang, &self.measured)
    }
}

/// Writes `functions` as a JSON array of their rows ([`Function::row`]), the same bytes
/// serde_json's pretty printer (or [`Pretty`]) writes for them as the value of a member of
/// an object at `level` (1: a member of the top-level object), with no serde call per row.
pub fn write_rows<'a, W: std::io::Write>(
    out: &mut W,
    functions: impl IntoIterator<Item = &'a Function>,
    level: usize,
) -> std::io::Result<()> {
    let rows = super::rows::RowWriter::new(level + 1);
    let mut row = Vec::with_capacity(1024);
    let mut first = true;
    // The path as a JSON string, made again only when the file changes: a file's
    // functions come one after another, and escaping its path for each was a fifth of
    // the writing.
    let (mut file, mut path) = (None, Vec::new());
    out.write_all(b"[")?;
    for f in functions {
        if file != Some(f.file.as_str()) {
            file = Some(f.file.as_str());
            path.clear();
            super::rows::string(&mut path, &f.file);
        }
        row.clear();
        row.extend_from_slice(if first { b"\n" } else { b",\n" });
        row.resize(row.len() + 2 * (level + 1), b' ');
        rows.write(&mut row, &path, f.lang, &f.measured);
        out.write_all(&row)?;
        first = false;
    }
    if !first {
        out.write_all(b"\n")?;
        (0..level).try_for_each(|_| out.write_all(b"  "))?;
    }
    out.write_all(b"]")
}

/// Every function of a request, and what the run has to say about it.
#[derive(Debug, Clone)]
pub struct Report {
    /// Files measured.
    pub files: usize,
    /// Every function, file by file in walk order, in source order within a file.
    pub functions: Vec<Function>,
    /// Exemption comments that belong to no function: the file and the comment.
    pub stray_exemptions: Vec<(String, Exemption)>,
    /// Files, functions, languages and median/p90/max of each metric, as the tool's
    /// `summary`.
    pub summary: Value,
    /// The top files by total score, as the tool's `top_files`.
    pub top_files: Vec<Value>,
    /// Files skipped, bounds reached.
    pub notes: Vec<String>,
}

/// A source file to measure: its group, its path in the group's root, and its real path.
struct Found {
    group: usize,
    target: usize,
    rel: String,
    real: PathBuf,
}

/// Collects the source files the walk meets.
struct Files<'a> {
    scope: &'a Scope,
    group: usize,
    target: usize,
    found: Vec<Found>,
}

impl Files<'_> {
    fn add(&mut self, rel: &str, real: &Path) {
        if Lang::of_path(rel).is_some() && !self.scope.excluded(rel) {
            self.found.push(Found {
                group: self.group,
                target: self.target,
                rel: rel.to_string(),
                real: real.to_path_buf(),
            });
        }
    }
}

impl Visitor for Files<'_> {
    fn visit(&mut self, entry: &Entry) -> Flow {
        match entry.kind {
            Kind::Dir if self.scope.excluded(entry.rel.as_str()) => Flow::Skip,
            Kind::File => {
                self.add(entry.rel.as_str(), &entry.real);
                Flow::Continue
            }
            _ => Flow::Continue,
        }
    }
}

/// One group's workspace and scope.
struct Opened {
    group: Group,
    scope: Scope,
}

/// Opens the workspace and scope of each group of `request`'s paths.
/// The note for files named on purpose that no front-end reads.
pub(crate) fn unsupported_note(files: &[String]) -> String {
    format!(
        "Not a {} file (by its extension), so not measured: {}.",
        Lang::titles("or"),
        files.join(", ")
    )
}

fn open(request: &Request) -> Result<Vec<Opened>, String> {
    let mut out = Vec::new();
    for group in named::groups(&request.root, &request.paths)? {
        let ws = Workspace::configure(&Config {
            roots: vec![group.root.clone()],
            deny: request.deny.clone(),
            ..Config::default()
        })?;
        let mut args = Map::new();
        if !group.paths.is_empty() {
            args.insert("paths".into(), json!(group.paths));
        }
        args.insert("exclude".into(), json!(request.exclude));
        let scope = Scope::from_args(&ws, &Arguments::from(args)).map_err(|e| e.to_string())?;
        out.push(Opened { group, scope });
    }
    Ok(out)
}

/// Measures every function `request` covers; `progress` is told (files done, files in
/// all) after each file. The error says what to change (a path that does not exist, a bad
/// glob).
pub fn analyze(
    request: &Request,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Report, String> {
    let opened = open(request)?;
    let mut summary = Summary::default();
    let mut unsupported = Vec::new();
    let mut found = Vec::new();
    let mut bounds = None;
    for (group, o) in opened.iter().enumerate() {
        let mut files = Files {
            scope: &o.scope,
            group,
            target: 0,
            found: Vec::new(),
        };
        for (index, target) in o.scope.targets.iter().enumerate() {
            let walk_bounds = Bounds {
                max_time: WALK_TIME,
                max_entries: usize::MAX,
                ..Bounds::default()
            };
            files.target = index;
            let rel = target.rel.as_str();
            if target.meta.is_dir() {
                summary.absorb(walk(&target.sandbox, target, &walk_bounds, &mut files));
            } else if Lang::of_path(rel).is_none() {
                unsupported.push(o.group.show(rel));
            } else {
                files.add(rel, &target.real);
            }
            bounds = Some(walk_bounds);
        }
        found.extend(files.found);
    }
    // A file named twice (or through two spellings) is measured once.
    let mut seen = HashSet::with_capacity(found.len());
    found.retain(|f| seen.insert(f.real.clone()));
    let (mut measured, mut skipped, mut not_text) = (Vec::new(), 0, 0);
    let (mut exemptions, mut paths) = (Vec::new(), Vec::new());
    for (done, f) in found.iter().enumerate() {
        progress(done, found.len());
        let Some(lang) = Lang::of_path(&f.rel) else {
            continue;
        };
        let o = &opened[f.group];
        let sandbox = &o.scope.targets[f.target].sandbox;
        let Some(bytes) = sandbox.read_entry(&f.real, MAX_ANALYZE_FILE_BYTES) else {
            skipped += 1;
            continue;
        };
        let Ok(text) = String::from_utf8(bytes) else {
            not_text += 1;
            continue;
        };
        let functions = measure::file(&text, lang);
        let marks = if exempt::may_hold(&text) {
            let spans: Vec<(u32, u32)> = functions
                .iter()
                .map(|m| (m.start_line, m.end_line))
                .collect();
            exempt::find(&text, lang, &spans)
        } else {
            Vec::new()
        };
        exemptions.push(marks);
        let rel_path: PathBuf = f.rel.split('/').collect();
        paths.push(o.group.root.join(rel_path));
        measured.push(FileReport {
            path: o.group.show(&f.rel),
            lang,
            functions,
        });
    }
    progress(found.len(), found.len());
    let mut notes = bounds.map_or_else(Vec::new, |b| summary.notes(&b));
    if !unsupported.is_empty() {
        notes.push(unsupported_note(&unsupported));
    }
    if skipped > 0 {
        notes.push(format!("{skipped} source files larger than {MAX_ANALYZE_FILE_BYTES} bytes (or unreadable) were skipped."));
    }
    if not_text > 0 {
        notes.push(format!(
            "{not_text} source files that are not UTF-8 were skipped."
        ));
    }
    let (summary, top_files) = (
        report::summary(&measured),
        report::ranking(&measured, DEFAULT_TOP_FILES),
    );
    let files = measured.len();
    let mut functions = Vec::new();
    let mut stray_exemptions = Vec::new();
    for ((file, path), marks) in measured.into_iter().zip(paths).zip(exemptions) {
        let first = functions.len();
        let (name, lang) = (file.path, file.lang);
        functions.extend(file.functions.into_iter().map(|m| Function {
            file: name.clone(),
            path: path.clone(),
            name: m.name.clone(),
            start_line: m.start_line,
            end_line: m.end_line,
            cyclomatic: m.cyclomatic,
            cognitive: m.cognitive,
            exemptions: Vec::new(),
            measured: m,
            lang,
        }));
        for (exemption, owner) in marks {
            match owner {
                Some(i) => functions[first + i].exemptions.push(exemption),
                None => stray_exemptions.push((name.clone(), exemption)),
            }
        }
    }
    Ok(Report {
        files,
        functions,
        stray_exemptions,
        summary,
        top_files,
        notes,
    })
}

/// serde_json's pretty printing (two spaces a level), byte for byte, but each line break
/// and the indentation after it written in one piece: a report of every function is mostly
/// short lines, and writing the indentation two spaces at a time (as
/// `serde_json::ser::PrettyFormatter` does) was a tenth of `minimcp analyze --format json`.
/// Use it with `serde_json::Serializer::with_formatter`.
#[derive(Debug, Default)]
pub struct Pretty {
    level: usize,
    has_value: bool,
}

impl Pretty {
    /// A formatter for a value that sits `level` levels deep (0: the whole document), so
    /// that a document can be written a member at a time.
    pub fn at(level: usize) -> Self {
        Pretty {
            level,
            has_value: false,
        }
    }

    /// A line break (after a comma unless `first`), then the current indentation.
    fn line<W: ?Sized + std::io::Write>(&self, out: &mut W, first: bool) -> std::io::Result<()> {
        /// `,\n` and enough spaces for 32 levels.
        const BREAK: &[u8; 66] =
            b",\n                                                                ";
        let from = usize::from(first);
        if 2 + 2 * self.level <= BREAK.len() {
            return out.write_all(&BREAK[from..2 + 2 * self.level]);
        }
        out.write_all(&BREAK[from..2])?;
        (0..self.level).try_for_each(|_| out.write_all(b"  "))
    }
}

impl serde_json::ser::Formatter for Pretty {
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, out: &mut W) -> std::io::Result<()> {
        self.level += 1;
        self.has_value = false;
        out.write_all(b"[")
    }

    fn end_array<W: ?Sized + std::io::Write>(&mut self, out: &mut W) -> std::io::Result<()> {
        self.level -= 1;
        if self.has_value {
            self.line(out, true)?;
        }
        out.write_all(b"]")
    }

    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        out: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.line(out, first)
    }

    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + std::io::Write>(&mut self, out: &mut W) -> std::io::Result<()> {
        self.level += 1;
        self.has_value = false;
        out.write_all(b"{")
    }

    fn end_object<W: ?Sized + std::io::Write>(&mut self, out: &mut W) -> std::io::Result<()> {
        self.level -= 1;
        if self.has_value {
            self.line(out, true)?;
        }
        out.write_all(b"}")
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        out: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.line(out, first)
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(
        &mut self,
        out: &mut W,
    ) -> std::io::Result<()> {
        out.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

/// The summary table and the file ranking of `report`, in markdown (the report of
/// `analyze_complexity`'s markdown without its violations).
pub fn overview_markdown(report: &Report) -> String {
    report::overview(&report.summary, &report.top_files)
}

/// `text` as a markdown code span that stays inside one table cell (`|`, backticks, line
/// breaks and control characters handled: file and function names are the repository's).
pub fn code_cell(text: &str) -> String {
    report::code_cell(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Serialize;

    #[test]
    fn rows_and_pretty_write_what_serde_json_writes() {
        use super::super::halstead::Halstead;
        let function = |file: &str, name: &str, lang, halstead| Function {
            file: file.into(),
            path: PathBuf::from(file),
            name: name.into(),
            exemptions: Vec::new(),
            start_line: 7,
            end_line: 1234567,
            cyclomatic: 0,
            cognitive: u32::MAX,
            measured: Measured {
                name: name.into(),
                start_line: 7,
                end_line: 1234567,
                cyclomatic: 0,
                cognitive: u32::MAX,
                max_nesting: 10,
                halstead,
            },
            lang,
        };
        let odd = Halstead {
            distinct_operators: 1,
            distinct_operands: 0,
            operators: 4_000_000_000,
            operands: 9,
            volume: 1e22,
            difficulty: f64::NAN,
            effort: 0.005,
        };
        let functions = [
            function("a/b.py", "C.f", Lang::Python, Halstead::default()),
            function("d \"q\" \\ é.ts", "g\u{1}\n\t<€>", Lang::TypeScript, odd),
            function(
                "x.rs",
                "h",
                Lang::Rust,
                super::super::halstead::from_counts(3, 4, 5, 6),
            ),
        ];
        for shown in [&functions[..], &functions[..1], &[]] {
            let rows: Vec<Value> = shown.iter().map(Function::row).collect();
            let want =
                serde_json::to_string_pretty(&json!({"functions": rows, "z": {"e": [], "o": {}}}))
                    .unwrap();
            let mut got = b"{\n  \"functions\": ".to_vec();
            write_rows(&mut got, shown, 1).unwrap();
            got.extend_from_slice(b",\n  \"z\": ");
            let mut json = serde_json::Serializer::with_formatter(&mut got, Pretty::at(1));
            json!({"e": [], "o": {}}).serialize(&mut json).unwrap();
            got.extend_from_slice(b"\n}");
            assert_eq!(String::from_utf8(got).unwrap(), want);
        }
        // Deeper than the indentation constant covers.
        let mut deep = json!(1);
        for _ in 0..40 {
            deep = json!([1, {"k": deep, "e": []}]);
        }
        let mut got = Vec::new();
        deep.serialize(&mut serde_json::Serializer::with_formatter(
            &mut got,
            Pretty::default(),
        ))
        .unwrap();
        assert_eq!(
            String::from_utf8(got).unwrap(),
            serde_json::to_string_pretty(&deep).unwrap()
        );
    }
}
