//! `minimcp analyze` and `minimcp churn`: the analysis toolset's reports for CI and people,
//! whole (no result budget), with limits that set the exit status, a baseline to ratchet
//! against, and a diff mode. The engine is the library's
//! [`minimcp_toolsets::analysis::batch`]; here `config.rs` reads `.minimcp.toml`,
//! `gate.rs` decides what fails, `summary.rs` writes the default report and `formats.rs`,
//! `sarif.rs`, `codequality.rs` and `checkstyle.rs` the others; `baseline.rs` the baseline
//! file, `churn.rs` churn.

mod baseline;
mod checkstyle;
mod churn;
mod codequality;
mod config;
mod formats;
mod gate;
mod metric;
mod sarif;
mod summary;
mod toml;

use std::collections::{BTreeMap, HashMap};
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;

use minimcp_toolsets::analysis::batch::{self, Function, Report};

use crate::cli::analyze::{Analyze, Format};
use crate::progress::Progress;
use baseline::Baseline;
use config::Limits;
use gate::{Finding, Gate, Stale};

pub(crate) use churn::churn;

/// Everything a report is written from.
pub(crate) struct Run<'a> {
    pub(crate) report: &'a Report,
    /// The functions judged (all, or those a diff touched), each with its occurrence.
    pub(crate) shown: &'a [(&'a Function, usize)],
    pub(crate) findings: &'a [Finding<'a>],
    pub(crate) stale: &'a [Stale],
    pub(crate) gate: &'a Gate<'a>,
    pub(crate) failed: usize,
    /// `--baseline FILE` as given, and how many functions it holds.
    pub(crate) baseline: Option<(String, usize)>,
    /// `--diff REV`.
    pub(crate) diff: Option<&'a str>,
    /// What was analysed, as the command line named it.
    pub(crate) scope: String,
}

/// Runs `minimcp analyze`: 0 when nothing fails, 1 when a function fails a limit, 2 when
/// the command cannot run (a bad path, configuration, baseline or revision).
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

/// The reports written; how many findings fail.
fn run(args: &Analyze) -> Result<usize, String> {
    let root =
        std::env::current_dir().map_err(|e| format!("cannot read the working directory: {e}"))?;
    // Read before the analysis: a bad configuration or baseline is a mistake to report at once.
    let config = config::load(&root, args.config.as_deref())?;
    let baseline = match &args.baseline {
        Some(path) => Some(Baseline::read(path)?),
        None => None,
    };
    let mut exclude = config.exclude.clone();
    exclude.extend(args.exclude.iter().cloned());
    let request = batch::Request {
        root: root.clone(),
        paths: args.paths.clone(),
        exclude,
        deny: None,
    };
    if args.diff.is_some() && request.paths.iter().any(|p| outside(&root, p)) {
        return Err("--diff compares the working directory's repository with a revision: name paths inside the working directory".into());
    }
    let mut progress = Progress::new(std::io::stderr().is_terminal());
    let report = batch::analyze(&request, &mut |done, total| {
        progress.show(&format!("{done}/{total} files"), done as f64, done == total);
    });
    progress.finish();
    let report = report?;
    let flags = Limits {
        cyclomatic: args.max_cyclomatic,
        cognitive: args.max_cognitive,
    };
    let baseline_name = args.baseline.as_deref().map(shown);
    let gate = Gate::new(
        flags,
        &config,
        baseline
            .as_ref()
            .zip(baseline_name.as_deref())
            .map(|(b, name)| (name, b.limits)),
    );
    let occurrences = gate::occurrences(&report.functions);
    if let Some(path) = &args.write_baseline {
        return write_baseline(path, &report, &occurrences, &gate);
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
    let old = match &args.diff {
        Some(rev) => old_values(&root, rev, &shown, &gate),
        None => HashMap::new(),
    };
    let (findings, mut stale) = gate.judge(&shown, baseline.as_ref(), &old);
    if touched.is_none() {
        stale.extend(report.stray_exemptions.iter().map(|(file, e)| Stale {
            file: file.clone(),
            exemption: e.clone(),
            function: None,
            why: "belongs to no function: put it on the line above one, or inside it".into(),
        }));
    }
    let failed = findings.iter().filter(|f| f.fails()).count();
    let run = Run {
        report: &report,
        shown: &shown,
        findings: &findings,
        stale: &stale,
        gate: &gate,
        failed,
        baseline: baseline_name.zip(baseline.as_ref().map(|b| b.len)),
        diff: args.diff.as_deref(),
        scope: if args.paths.is_empty() {
            ".".into()
        } else {
            args.paths.join(", ")
        },
    };
    for (format, path) in &args.reports {
        let mut file = std::io::BufWriter::new(
            std::fs::File::create(path)
                .map_err(|e| format!("cannot write the report {}: {e}", path.display()))?,
        );
        write(*format, &run, &mut file)
            .and_then(|()| file.flush())
            .map_err(|e| format!("cannot write the report {}: {e}", path.display()))?;
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let written =
        write(args.format.unwrap_or(Format::Summary), &run, &mut out).and_then(|()| out.flush());
    match written {
        // A reader that stopped early (`| head`) has what it wanted: the gate still speaks.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(failed),
        Err(e) => Err(format!("cannot write the report to stdout: {e}")),
        Ok(()) => Ok(failed),
    }
}

/// Writes `run` in `format`.
fn write(format: Format, run: &Run<'_>, out: &mut dyn Write) -> std::io::Result<()> {
    match format {
        Format::Summary => summary::write(run, out),
        Format::Json => formats::json(run, out),
        Format::Csv => formats::csv(run, out),
        Format::Markdown => formats::markdown(run, out),
        Format::Sarif => sarif::write(run, out),
        Format::GitLab => codequality::write(run, out),
        Format::Checkstyle => checkstyle::write(run, out),
    }
}

/// `--write-baseline`: records the functions over their limits and says so in one line.
fn write_baseline(
    path: &Path,
    report: &Report,
    occurrences: &[usize],
    gate: &Gate<'_>,
) -> Result<usize, String> {
    if !gate.is_set() {
        return Err("--write-baseline records the functions over the limits, and none is set: give --max-cyclomatic N or --max-cognitive N, or set them in .minimcp.toml".into());
    }
    let over = report.functions.iter().zip(occurrences).filter(|(f, _)| {
        let limits = gate.limits(f);
        limits.cyclomatic.is_some_and(|l| f.cyclomatic > l)
            || limits.cognitive.is_some_and(|l| f.cognitive > l)
    });
    let held = Baseline::write(path, over, gate.headline())?;
    let line = format!(
        "minimcp analyze: wrote {}: {} over the limits, of {} in {} files.\n",
        shown(path),
        summary::count(held, "function", "functions"),
        summary::count(report.functions.len(), "function", "functions"),
        report.files
    );
    let mut out = std::io::stdout().lock();
    match out.write_all(line.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(format!("cannot write to stdout: {e}"))
        }
        _ => Ok(0),
    }
}

/// The values at `rev` of the functions over a limit that a diff touched, by (file, name,
/// occurrence): read from git once per file.
fn old_values(
    root: &Path,
    rev: &str,
    shown: &[(&Function, usize)],
    gate: &Gate<'_>,
) -> HashMap<(String, String, usize), (u32, u32)> {
    let mut files: Vec<&str> = shown
        .iter()
        .filter(|(f, _)| {
            let l = gate.limits(f);
            l.cyclomatic.is_some_and(|v| f.cyclomatic > v)
                || l.cognitive.is_some_and(|v| f.cognitive > v)
        })
        .map(|(f, _)| f.file.as_str())
        .collect();
    files.sort_unstable();
    files.dedup();
    let mut out = HashMap::new();
    for file in files {
        let mut seen: HashMap<String, usize> = HashMap::new();
        for (name, cyclomatic, cognitive) in batch::functions_at(root, rev, file) {
            let n = seen.entry(name.clone()).or_default();
            out.insert((file.to_string(), name, *n), (cyclomatic, cognitive));
            *n += 1;
        }
    }
    out
}

/// True when `path` (relative to `root` or absolute) lies outside `root`.
fn outside(root: &Path, path: &str) -> bool {
    let full = root.join(path);
    match (full.canonicalize(), root.canonicalize()) {
        (Ok(full), Ok(root)) => !full.starts_with(root),
        _ => false,
    }
}

/// Whether a changed line falls inside `f`.
fn is_touched(f: &Function, touched: &BTreeMap<String, Vec<(u32, u32)>>) -> bool {
    touched.get(&f.file).is_some_and(|ranges| {
        ranges
            .iter()
            .any(|&(from, to)| from <= f.end_line && to >= f.start_line)
    })
}

/// An I/O error serde_json met, with its kind (a closed pipe stays a closed pipe).
pub(crate) fn io_error(e: serde_json::Error) -> std::io::Error {
    match e.io_error_kind() {
        Some(kind) => std::io::Error::new(kind, e),
        None => std::io::Error::other(e),
    }
}

/// `path` as shown in messages.
pub(crate) fn shown(path: &Path) -> String {
    path.display().to_string()
}
