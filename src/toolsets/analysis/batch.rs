//! The analysis for a command line (`minimcp analyze`, run in CI): the same sandbox, walk,
//! `.gitignore` and deny rules, `exclude` globs and metrics as `analyze_complexity`, but
//! without a session or a result budget, every function at once, the files counted first
//! so a progress line can show files done against the total; and the lines a git diff
//! touched, for reporting only the functions a change touched.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Map, Value};

use super::git;
use super::lang::Lang;
use super::limits::{DEFAULT_TOP_FILES, MAX_ANALYZE_FILE_BYTES};
use super::measure::{self, Measured};
use super::report::{self, FileReport};
use super::scope::Scope;
use crate::toolsets::workspace::walk::{walk, Bounds, Entry, Flow, Kind, Summary, Visitor};
use crate::toolsets::workspace::{Config, Workspace};
use crate::{Arguments, HandlerError};

/// How long one command-line analysis may walk: a CI run is bounded by its own timeout,
/// and a report cut short would pass a gate it should fail.
const WALK_TIME: Duration = Duration::from_secs(24 * 3600);

/// What to analyze.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// The directory paths are relative to, and that reports name files from.
    pub root: PathBuf,
    /// Files and directories under `root` (relative to it, or absolute inside it); empty
    /// means `root` itself.
    pub paths: Vec<String>,
    /// Globs to leave out, as the tools' `exclude` argument takes them.
    pub exclude: Vec<String>,
    /// The deny list (`.gitignore` syntax); `None`: the workspace toolset's defaults.
    pub deny: Option<Vec<String>>,
}

/// One measured function.
#[derive(Debug, Clone, PartialEq)]
pub struct Function {
    /// The file, relative to the request's root, with `/` separators.
    pub file: String,
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
    out.write_all(b"[")?;
    for f in functions {
        row.clear();
        row.extend_from_slice(if first { b"\n" } else { b",\n" });
        row.resize(row.len() + 2 * (level + 1), b' ');
        rows.write(&mut row, &f.file, f.lang, &f.measured);
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
    /// Files, functions, languages and median/p90/max of each metric, as the tool's
    /// `summary`.
    pub summary: Value,
    /// The top files by total score, as the tool's `top_files`.
    pub top_files: Vec<Value>,
    /// Files skipped, bounds reached.
    pub notes: Vec<String>,
}

/// Collects the source files the walk meets.
struct Files<'a> {
    scope: &'a Scope,
    target: usize,
    found: Vec<(usize, String, PathBuf)>,
}

impl Files<'_> {
    fn add(&mut self, rel: &str, real: &Path) {
        if Lang::of_path(rel).is_some() && !self.scope.excluded(rel) {
            self.found
                .push((self.target, rel.to_string(), real.to_path_buf()));
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

fn message(error: HandlerError) -> String {
    error.to_string()
}

/// Measures every function `request` covers; `progress` is told (files done, files in
/// all) after each file. The error says what to change (a path outside the root, a bad
/// glob).
pub fn analyze(
    request: &Request,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Report, String> {
    let ws = Workspace::configure(&Config {
        roots: vec![request.root.clone()],
        deny: request.deny.clone(),
        ..Config::default()
    })?;
    let mut args = Map::new();
    if !request.paths.is_empty() {
        args.insert("paths".into(), json!(request.paths));
    }
    args.insert("exclude".into(), json!(request.exclude));
    let scope = Scope::from_args(&ws, &Arguments(args)).map_err(message)?;
    let bounds = Bounds {
        max_time: WALK_TIME,
        max_entries: usize::MAX,
        ..ws.bounds
    };
    let mut files = Files {
        scope: &scope,
        target: 0,
        found: Vec::new(),
    };
    let mut summary = Summary::default();
    let mut unsupported = Vec::new();
    for (index, target) in scope.targets.iter().enumerate() {
        files.target = index;
        let rel = target.rel.as_str();
        if target.meta.is_dir() {
            summary.absorb(walk(&target.sandbox, target, &bounds, &mut files));
        } else if Lang::of_path(rel).is_none() {
            unsupported.push(rel.to_string());
        } else {
            files.add(rel, &target.real);
        }
    }
    let mut seen = HashSet::new();
    let found: Vec<_> = files
        .found
        .into_iter()
        .filter(|(_, rel, _)| seen.insert(rel.clone()))
        .collect();
    let (mut measured, mut skipped, mut not_text) = (Vec::new(), 0, 0);
    for (done, (target, rel, real)) in found.iter().enumerate() {
        progress(done, found.len());
        let Some(lang) = Lang::of_path(rel) else {
            continue;
        };
        let sandbox = &scope.targets[*target].sandbox;
        let Some(bytes) = sandbox.read_entry(real, MAX_ANALYZE_FILE_BYTES) else {
            skipped += 1;
            continue;
        };
        let Ok(text) = String::from_utf8(bytes) else {
            not_text += 1;
            continue;
        };
        measured.push(FileReport {
            path: rel.clone(),
            lang,
            functions: measure::file(&text, lang),
        });
    }
    progress(found.len(), found.len());
    let mut notes = summary.notes(&bounds);
    if !unsupported.is_empty() {
        notes.push(format!(
            "Not a Rust, Python, JavaScript, TypeScript or Go file (by its extension), so not measured: {}.",
            unsupported.join(", ")
        ));
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
    let functions = measured
        .into_iter()
        .flat_map(|f| {
            let (path, lang) = (f.path, f.lang);
            f.functions.into_iter().map(move |m| Function {
                file: path.clone(),
                name: m.name.clone(),
                start_line: m.start_line,
                end_line: m.end_line,
                cyclomatic: m.cyclomatic,
                cognitive: m.cognitive,
                measured: m,
                lang,
            })
        })
        .collect();
    Ok(Report {
        files,
        functions,
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

/// The markdown report `analyze_complexity` gives: the summary, the ranking and the
/// `violations` (rows of `file`, `function`, `line`, `metric`, `value`, `threshold`).
pub fn markdown(report: &Report, violations: &[Value]) -> String {
    report::markdown(
        &report.summary,
        &report.top_files,
        violations,
        violations.len(),
    )
}

/// The lines of each file under `root` that differ from git revision `rev` (added or
/// changed lines of the working tree, and the line after each pure deletion), from
/// `git diff --unified=0 REV`; files keyed by their path relative to `root`.
pub fn changed_lines(root: &Path, rev: &str) -> Result<BTreeMap<String, Vec<(u32, u32)>>, String> {
    if rev.is_empty() || rev.starts_with('-') || rev.contains(['\0', '\n']) {
        return Err(format!(
            "--diff wants a git revision such as origin/main or HEAD~3, not {rev:?}"
        ));
    }
    let diff = git::diff_zero_context(root, rev).map_err(|e| match e {
        git::GitError::Failed(message) => message,
        other => other.to_string(),
    })?;
    Ok(parse_diff(&diff))
}

/// The new-side line ranges of a `--unified=0` diff, by file (`+++ b/PATH`).
fn parse_diff(diff: &str) -> BTreeMap<String, Vec<(u32, u32)>> {
    let mut out: BTreeMap<String, Vec<(u32, u32)>> = BTreeMap::new();
    let mut file: Option<String> = None;
    // Lines of the current hunk's body still to come, old side and new side: a line there
    // is the file's text whatever it looks like (an added line `++ x` prints as `+++ x`,
    // which once was taken for the next file's header and dropped the file's later hunks).
    let mut left = (0u32, 0u32);
    for line in diff.lines() {
        if left != (0, 0) {
            match line.as_bytes().first() {
                Some(b'-') => left.0 = left.0.saturating_sub(1),
                Some(b'+') => left.1 = left.1.saturating_sub(1),
                // `\ No newline at end of file` belongs to the line before it.
                Some(b'\\') => {}
                _ => left = (left.0.saturating_sub(1), left.1.saturating_sub(1)),
            }
            continue;
        }
        if let Some(path) = line.strip_prefix("+++ ") {
            // A name with a space ends with a tab (for patch(1)); one git quotes is in quotes.
            let path = path.strip_suffix('\t').unwrap_or(path);
            file = unquote(path).strip_prefix("b/").map(str::to_string);
        } else if let Some(hunk) = line.strip_prefix("@@ ") {
            // `@@ -a[,b] +c[,d] @@`: d new lines from c; d = 0 is a deletion after line c.
            let side = |sign: char| hunk.split(' ').find_map(|w| w.strip_prefix(sign)).map(span);
            let Some((start, count)) = side('+') else {
                continue;
            };
            left = (side('-').map_or(0, |old| old.1), count);
            let Some(file) = &file else {
                continue;
            };
            // Saturating: the numbers come from git's output, which is not ours to trust.
            let range = if count == 0 {
                (start.max(1), start.max(1))
            } else {
                (start, start.saturating_add(count - 1))
            };
            out.entry(file.clone()).or_default().push(range);
        }
    }
    out
}

/// `start[,count]` of a hunk header's side (a count left out is 1).
fn span(side: &str) -> (u32, u32) {
    match side.split_once(',') {
        Some((s, c)) => (s.parse().unwrap_or(0), c.parse().unwrap_or(1)),
        None => (side.parse().unwrap_or(0), 1),
    }
}

/// A path as git prints it in a diff header: as is, or, when it holds a byte git quotes
/// (a non-ASCII byte under the default `core.quotePath`, a quote, a backslash, a control
/// character), in double quotes with C escapes and octal bytes.
fn unquote(path: &str) -> String {
    let Some(inner) = path.strip_prefix('"').and_then(|p| p.strip_suffix('"')) else {
        return path.to_string();
    };
    let mut bytes = Vec::with_capacity(inner.len());
    let mut rest = inner.as_bytes();
    while let Some((&b, tail)) = rest.split_first() {
        rest = tail;
        if b != b'\\' {
            bytes.push(b);
            continue;
        }
        let Some((&e, tail)) = rest.split_first() else {
            bytes.push(b'\\');
            break;
        };
        rest = tail;
        let octal = |c: u8| (b'0'..=b'7').contains(&c);
        bytes.push(match e {
            b'a' => 7,
            b'b' => 8,
            b't' => b'\t',
            b'n' => b'\n',
            b'v' => 11,
            b'f' => 12,
            b'r' => b'\r',
            b'0'..=b'3' if rest.len() >= 2 && octal(rest[0]) && octal(rest[1]) => {
                let value = (e - b'0') * 64 + (rest[0] - b'0') * 8 + (rest[1] - b'0');
                rest = &rest[2..];
                value
            }
            other => other,
        });
    }
    String::from_utf8_lossy(&bytes).into_owned()
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
            name: name.into(),
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

    #[test]
    fn quoted_paths_are_decoded_as_git_quotes_them() {
        assert_eq!(unquote("b/plain.rs"), "b/plain.rs");
        assert_eq!(unquote(r#""b/\303\244 \"q\"\\.rs""#), "b/ä \"q\"\\.rs");
        assert_eq!(unquote(r#""b/tab\there""#), "b/tab\there");
        let diff = "+++ \"b/\\303\\274.py\"\n@@ -1 +1 @@\n";
        assert_eq!(parse_diff(diff)["ü.py"], [(1, 1)]);
        let diff =
            "+++ b/a b.py\t\n@@ -1 +1 @@\n-x\n+y\n+++ \"b/\\303\\274 \\\"q\\\".py\"\t\n@@ -2 +2 @@\n";
        let lines = parse_diff(diff);
        assert_eq!(lines["a b.py"], [(1, 1)]);
        assert_eq!(lines["ü \"q\".py"], [(2, 2)]);
    }

    #[test]
    fn hostile_hunk_headers_neither_panic_nor_wrap() {
        let diff = "+++ b/x\n@@ -1 +4294967295,2 @@\n@@ -1 +1,0 @@\n@@ +\n@@ -1 +-5,x @@\n+++ \"\\\n@@ -1 +1 @@\n";
        let lines = parse_diff(diff);
        assert_eq!(lines["x"][0], (u32::MAX, u32::MAX));
        // Every prefix of a diff (cut anywhere, as a capped read could) parses too.
        let whole = "+++ \"b/\\303\\244.rs\"\n@@ -3,2 +3,4 @@ fn a()\n";
        for end in 0..=whole.len() {
            if whole.is_char_boundary(end) {
                let _ = parse_diff(&whole[..end]);
            }
        }
    }

    /// Inside a hunk a line is text: an added `++ b/x` (printed `+++ b/x`) or a deleted
    /// `-- a/x` does not start another file, and `\ No newline` is not counted.
    #[test]
    fn hunk_bodies_that_look_like_headers_are_text() {
        let diff = "--- a/m.py\n+++ b/m.py\n@@ -0,0 +1,2 @@\n+++ b/other.py\n+++ x\n@@ -2 +3,0 @@\n--- a/y\n\\ No newline at end of file\n@@ -5,0 +6 @@\n+@@ -1 +1 @@\n";
        let lines = parse_diff(diff);
        assert_eq!(lines["m.py"], [(1, 2), (3, 3), (6, 6)]);
        assert_eq!(lines.len(), 1, "{lines:?}");
    }

    #[test]
    fn a_diff_gives_the_new_side_of_each_hunk() {
        let diff = "diff --git a/x.rs b/x.rs\n--- a/x.rs\n+++ b/x.rs\n@@ -3 +3 @@ fn a()\n-x\n+y\n@@ -10,2 +10,0 @@\n-a\n-b\n@@ -20,0 +19,3 @@\n+1\n+2\n+3\n--- a/gone.rs\n+++ /dev/null\n@@ -1,4 +0,0 @@\n";
        let lines = parse_diff(diff);
        assert_eq!(lines["x.rs"], [(3, 3), (10, 10), (19, 21)]);
        assert_eq!(lines.len(), 1, "a deleted file has no new lines");
    }
}
