//! `minimcp analyze` and `minimcp churn`: the analysis toolset's reports for CI and people,
//! whole (no result budget), with limits that set the exit status, a baseline to ratchet
//! against, and a diff mode. The engine is the library's
//! [`minimcp::toolsets::analysis::batch`]; this module decides what fails and writes the
//! report (`sarif.rs` the SARIF log, `baseline.rs` the baseline file, `churn.rs` churn).

mod baseline;
mod churn;
mod sarif;

use std::collections::{BTreeMap, HashMap};
use std::io::{BufWriter, IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;

use minimcp::toolsets::analysis::batch::{self, Function, Report};
use minimcp::toolsets::analysis::limits::{DEFAULT_MAX_COGNITIVE, DEFAULT_MAX_CYCLOMATIC};
use serde::Serialize;
use serde_json::{json, Value};

use crate::cli::analyze::{Analyze, Format};
use crate::print;
use crate::progress::Progress;
use baseline::Baseline;

pub(crate) use churn::churn;

/// The two metrics with limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Metric {
    Cyclomatic,
    Cognitive,
}

impl Metric {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Metric::Cyclomatic => "cyclomatic",
            Metric::Cognitive => "cognitive",
        }
    }

    fn of(self, f: &Function) -> u32 {
        match self {
            Metric::Cyclomatic => f.cyclomatic,
            Metric::Cognitive => f.cognitive,
        }
    }
}

/// How a function over a limit compares with the baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Compared {
    /// The baseline does not hold it.
    New,
    /// The baseline holds it at a lower value.
    Worse,
    /// The baseline holds it at this value or higher.
    Unchanged,
}

/// One function above one limit.
pub(crate) struct Finding<'a> {
    pub(crate) function: &'a Function,
    /// Which of the functions of that name in that file (0 for the first): with the file
    /// and the name, what identifies a function whatever lines move around it.
    pub(crate) occurrence: usize,
    pub(crate) metric: Metric,
    pub(crate) value: u32,
    pub(crate) threshold: u32,
    /// `None` without a baseline.
    pub(crate) compared: Option<Compared>,
    /// Whether it sets exit status 1.
    pub(crate) fails: bool,
}

impl Finding<'_> {
    fn row(&self) -> Value {
        let mut row = json!({
            "file": self.function.file, "function": self.function.name,
            "line": self.function.start_line, "metric": self.metric.as_str(),
            "value": self.value, "threshold": self.threshold, "fails": self.fails,
        });
        if let Some(compared) = self.compared {
            row["baseline"] = json!(match compared {
                Compared::New => "new",
                Compared::Worse => "worse",
                Compared::Unchanged => "unchanged",
            });
        }
        row
    }
}

/// The limits in force, and which of them set the exit status.
struct Limits {
    cyclomatic: u32,
    cognitive: u32,
    gate_cyclomatic: bool,
    gate_cognitive: bool,
}

/// Runs `minimcp analyze`: 0 when nothing fails, 1 when a function fails a limit, 2 when
/// the command cannot run (a bad path, baseline or revision).
pub(crate) fn analyze(args: &Analyze) -> ExitCode {
    match run(args) {
        Ok(failed) if failed > 0 => ExitCode::from(1),
        Ok(_) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("minimcp: {message}");
            ExitCode::from(2)
        }
    }
}

/// The report written; how many findings fail.
fn run(args: &Analyze) -> Result<usize, String> {
    let root =
        std::env::current_dir().map_err(|e| format!("cannot read the working directory: {e}"))?;
    // Read before the analysis: a missing baseline is a mistake to report at once.
    let baseline = match &args.baseline {
        Some(path) => Some(Baseline::read(path)?),
        None => None,
    };
    let mut progress = Progress::new(std::io::stderr().is_terminal());
    let request = batch::Request {
        root: root.clone(),
        paths: args.paths.clone(),
        exclude: args.exclude.clone(),
        deny: None,
    };
    let report = batch::analyze(&request, &mut |done, total| {
        progress.show(&format!("{done}/{total} files"), done as f64, done == total);
    });
    progress.finish();
    let report =
        report.map_err(|e| format!("{e} (the root is the working directory, {})", shown(&root)))?;
    let limits = Limits {
        cyclomatic: args.max_cyclomatic.unwrap_or(DEFAULT_MAX_CYCLOMATIC),
        cognitive: args.max_cognitive.unwrap_or(DEFAULT_MAX_COGNITIVE),
        gate_cyclomatic: args.max_cyclomatic.is_some() || baseline.is_some(),
        gate_cognitive: args.max_cognitive.is_some() || baseline.is_some(),
    };
    let occurrences = occurrences(&report.functions);
    if let Some(path) = &args.write_baseline {
        let over =
            report.functions.iter().zip(&occurrences).filter(|(f, _)| {
                f.cyclomatic > limits.cyclomatic || f.cognitive > limits.cognitive
            });
        Baseline::write(path, over, (limits.cyclomatic, limits.cognitive))?;
    }
    let touched = match &args.diff {
        Some(rev) => Some(batch::changed_lines(&root, rev)?),
        None => None,
    };
    let shown: Vec<(&Function, usize)> = report
        .functions
        .iter()
        .zip(occurrences)
        .filter(|(f, _)| touched.as_ref().is_none_or(|t| is_touched(f, t)))
        .collect();
    let findings = findings(&shown, &limits, baseline.as_ref());
    // Writing a baseline records the present: it passes by definition.
    let failed = if args.write_baseline.is_some() {
        0
    } else {
        findings.iter().filter(|f| f.fails).count()
    };
    let format = args.format.unwrap_or(if std::io::stdout().is_terminal() {
        Format::Markdown
    } else {
        Format::Json
    });
    let written = match format {
        Format::Json => write_json(&report, &shown, &findings, &limits, failed),
        Format::Csv => print(&csv(&shown)) == ExitCode::SUCCESS,
        Format::Sarif => {
            let log = serde_json::to_string_pretty(&sarif::log(&findings, &root));
            print(&(log.unwrap_or_default() + "\n")) == ExitCode::SUCCESS
        }
        Format::Markdown => {
            print(&markdown(&report, &shown, &findings, failed)) == ExitCode::SUCCESS
        }
    };
    if !written {
        return Err("cannot write the report to stdout".into());
    }
    Ok(failed)
}

/// For each function, which of the functions of its name in its file it is (0 first).
fn occurrences(functions: &[Function]) -> Vec<usize> {
    let mut seen: HashMap<(&str, &str), usize> = HashMap::new();
    functions
        .iter()
        .map(|f| {
            let n = seen.entry((&f.file, &f.name)).or_default();
            *n += 1;
            *n - 1
        })
        .collect()
}

/// Whether a changed line falls inside `f`.
fn is_touched(f: &Function, touched: &BTreeMap<String, Vec<(u32, u32)>>) -> bool {
    touched.get(&f.file).is_some_and(|ranges| {
        ranges
            .iter()
            .any(|&(from, to)| from <= f.end_line && to >= f.start_line)
    })
}

/// Every function above a limit, the worst (value over threshold) first.
fn findings<'a>(
    shown: &[(&'a Function, usize)],
    limits: &Limits,
    baseline: Option<&Baseline>,
) -> Vec<Finding<'a>> {
    let mut out = Vec::new();
    for &(function, occurrence) in shown {
        for (metric, threshold, gated) in [
            (
                Metric::Cyclomatic,
                limits.cyclomatic,
                limits.gate_cyclomatic,
            ),
            (Metric::Cognitive, limits.cognitive, limits.gate_cognitive),
        ] {
            let value = metric.of(function);
            if value <= threshold {
                continue;
            }
            let compared = baseline.map(|b| match b.value(function, occurrence, metric) {
                None => Compared::New,
                Some(old) if value > old => Compared::Worse,
                Some(_) => Compared::Unchanged,
            });
            out.push(Finding {
                function,
                occurrence,
                metric,
                value,
                threshold,
                compared,
                fails: gated && compared != Some(Compared::Unchanged),
            });
        }
    }
    out.sort_by(|a, b| {
        let over = |f: &Finding<'_>| f64::from(f.value) / f64::from(f.threshold);
        over(b)
            .total_cmp(&over(a))
            .then_with(|| a.function.file.cmp(&b.function.file))
            .then(a.function.start_line.cmp(&b.function.start_line))
    });
    out
}

/// The JSON report, written to stdout as it is made: pretty-printed a member at a time,
/// the function rows by [`batch::write_rows`] (the bulk of a report, each row written and
/// dropped in turn, so a large report holds no JSON for its functions).
fn write_json(
    report: &Report,
    shown: &[(&Function, usize)],
    findings: &[Finding<'_>],
    limits: &Limits,
    failed: usize,
) -> bool {
    /// `,` and the key of a member of the top-level object (a plain name: no escapes).
    fn key<W: Write>(out: &mut W, name: &str) -> bool {
        write!(out, ",\n  \"{name}\": ").is_ok()
    }
    /// A member after the first, its value pretty-printed one level deep.
    fn member<W: Write, T: Serialize + ?Sized>(out: &mut W, name: &str, value: &T) -> bool {
        key(out, name)
            && value
                .serialize(&mut serde_json::Serializer::with_formatter(
                    &mut *out,
                    batch::Pretty::at(1),
                ))
                .is_ok()
    }
    let mut out = BufWriter::new(std::io::stdout().lock());
    let violations: Vec<Value> = findings.iter().map(Finding::row).collect();
    out.write_all(b"{\n  \"summary\": ").is_ok()
        && report
            .summary
            .serialize(&mut serde_json::Serializer::with_formatter(
                &mut out,
                batch::Pretty::at(1),
            ))
            .is_ok()
        && member(
            &mut out,
            "thresholds",
            &json!({"max_cyclomatic": limits.cyclomatic, "max_cognitive": limits.cognitive}),
        )
        && member(&mut out, "failed", &failed)
        && member(&mut out, "violation_count", &findings.len())
        && member(&mut out, "violations", &violations)
        && member(&mut out, "top_files", &report.top_files)
        && key(&mut out, "functions")
        && batch::write_rows(&mut out, shown.iter().map(|(f, _)| *f), 1).is_ok()
        && member(&mut out, "notes", &report.notes)
        && out.write_all(b"\n}\n").is_ok()
        && out.flush().is_ok()
}

fn markdown(
    report: &Report,
    shown: &[(&Function, usize)],
    findings: &[Finding<'_>],
    failed: usize,
) -> String {
    let rows: Vec<Value> = findings.iter().map(Finding::row).collect();
    let mut out = batch::markdown(report, &rows);
    if shown.len() < report.functions.len() {
        out.push_str(&format!(
            "\n{} of {} functions were touched since the revision; only they are judged.\n",
            shown.len(),
            report.functions.len()
        ));
    }
    out.push_str(&format!("\n{failed} failing.\n"));
    for note in &report.notes {
        out.push_str(&format!("\nNote: {note}\n"));
    }
    out
}

/// One line per function, every metric.
fn csv(shown: &[(&Function, usize)]) -> String {
    let mut out = String::from("file,function,language,start_line,end_line,lines,cyclomatic,cognitive,max_nesting,halstead_volume,halstead_difficulty,halstead_effort\n");
    for (f, _) in shown {
        let r = f.row();
        let h = &r["halstead"];
        let fields = [
            csv_field(&f.file),
            csv_field(&f.name),
            r["language"].as_str().unwrap_or("").to_string(),
            f.start_line.to_string(),
            f.end_line.to_string(),
            r["lines"].to_string(),
            f.cyclomatic.to_string(),
            f.cognitive.to_string(),
            r["max_nesting"].to_string(),
            h["volume"].to_string(),
            h["difficulty"].to_string(),
            h["effort"].to_string(),
        ];
        out.push_str(&fields.join(","));
        out.push('\n');
    }
    out
}

/// RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// `path` as shown in messages.
pub(crate) fn shown(path: &Path) -> String {
    path.display().to_string()
}
