//! The default report of `minimcp analyze`, on a terminal or in a CI log alike: a few lines
//! that say what was analysed and against which limits, then the failing functions first
//! (`file:line: name: metric old → new (limit N, why)`), then what passes only thanks to
//! the baseline or an exemption, stale exemptions, and one closing line. Lists are cut at
//! [`MAX_LISTED`] lines; `--format json` (or `--report json=FILE`) has everything.

use std::collections::HashSet;
use std::io::{self, Write};

use minimcp_toolsets::analysis::batch::Function;

use super::gate::{Compared, Finding, Source, State};
use super::Run;

/// Lines of each list shown before "… and N more".
pub(crate) const MAX_LISTED: usize = 50;

/// `n` with thousands separators and the word in its number: `14,068 functions`.
pub(crate) fn count(n: usize, one: &str, many: &str) -> String {
    let digits = n.to_string();
    let mut grouped = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(c);
    }
    format!("{grouped} {}", if n == 1 { one } else { many })
}

/// `metric old → new (limit N, why)` of a finding.
pub(crate) fn describe(f: &Finding<'_>) -> String {
    let value = match f.old {
        Some(old) if old != f.value => format!("{old} → {}", f.value),
        _ => f.value.to_string(),
    };
    let why = match (&f.state, f.compared, f.outgrown) {
        (State::Fails, _, Some(allowed)) => format!(", above its exemption of {allowed}"),
        (State::Fails, Some(Compared::New), _) => ", new".into(),
        (State::Fails, Some(Compared::Worse), _) => ", worse than the baseline".into(),
        (State::Held, _, _) => ", held by the baseline".into(),
        (State::Exempted(text), _, _) => format!(", exempted: {text}"),
        _ => String::new(),
    };
    format!("{} {value} (limit {}{why})", f.metric.as_str(), f.limit)
}

fn line(f: &Finding<'_>) -> String {
    format!(
        "  {}:{}: {}: {}\n",
        f.function.file,
        f.function.start_line,
        f.function.name,
        describe(f)
    )
}

/// Writes the summary.
pub(crate) fn write(run: &Run<'_>, out: &mut dyn Write) -> io::Result<()> {
    head(run, out)?;
    let failing: Vec<&Finding<'_>> = run.findings.iter().filter(|f| f.fails()).collect();
    if !failing.is_empty() {
        writeln!(out, "\nfailing:")?;
        list(out, &failing, |f| line(f))?;
    }
    let held = held(run);
    if held > 0 {
        writeln!(
            out,
            "\nheld by the baseline: {} over a limit, not failing",
            count(held, "function", "functions")
        )?;
    }
    let exempted: Vec<&Finding<'_>> = run
        .findings
        .iter()
        .filter(|f| matches!(f.state, State::Exempted(_)))
        .collect();
    if !exempted.is_empty() {
        writeln!(out, "\nexempted in the source:")?;
        list(out, &exempted, |f| line(f))?;
    }
    if !run.stale.is_empty() {
        writeln!(out, "\nstale exemptions (remove or fix them):")?;
        let stale: Vec<_> = run.stale.iter().collect();
        list(out, &stale, |s| {
            let function = s
                .function
                .as_ref()
                .map(|f| format!("{f}: "))
                .unwrap_or_default();
            format!(
                "  {}:{}: {function}\"{}\": {}\n",
                s.file, s.exemption.line, s.exemption.text, s.why
            )
        })?;
    }
    for note in &run.report.notes {
        writeln!(out, "\nnote: {note}")?;
    }
    let functions: HashSet<(&str, u32)> = failing
        .iter()
        .map(|f| (f.function.file.as_str(), f.function.start_line))
        .collect();
    match functions.len() {
        0 => writeln!(out, "\npassed."),
        n => writeln!(
            out,
            "\nFAILED: {} over a limit.",
            count(n, "function", "functions")
        ),
    }
}

/// How many functions the baseline holds over a limit (one over both counts once).
pub(crate) fn held(run: &Run<'_>) -> usize {
    let held: HashSet<(&str, &str, usize)> = run
        .findings
        .iter()
        .filter(|f| f.state == State::Held)
        .map(|f| {
            (
                f.function.file.as_str(),
                f.function.name.as_str(),
                f.occurrence,
            )
        })
        .collect();
    held.len()
}

/// The lines before the lists: what was analysed, the limits, the baseline, the diff.
fn head(run: &Run<'_>, out: &mut dyn Write) -> io::Result<()> {
    let report = run.report;
    let mut languages: Vec<String> = report.summary["languages"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(lang, v)| {
            let n = v["functions"].as_u64().unwrap_or(0) as usize;
            format!("{lang} {}", count(n, "", "").trim_end())
        })
        .collect();
    languages.sort();
    let languages = match languages.is_empty() {
        true => String::new(),
        false => format!(" ({})", languages.join(", ")),
    };
    writeln!(
        out,
        "minimcp analyze: {}, {} in {}{languages}",
        count(report.files, "file", "files"),
        count(report.functions.len(), "function", "functions"),
        run.scope,
    )?;
    writeln!(out, "limits: {}", limits(run))?;
    if let Some((file, held)) = &run.baseline {
        let held = count(*held, "function", "functions");
        writeln!(out, "baseline: {file} ({held})")?;
    }
    if let Some(rev) = run.diff {
        let shown = count(run.shown.len(), "function", "functions");
        writeln!(out, "diff: only the {shown} changed since {rev} are judged")?;
    }
    Ok(())
}

/// The limits and where they come from; without any, how to set them and the largest
/// values.
fn limits(run: &Run<'_>) -> String {
    let gate = run.gate;
    let from = match &gate.source {
        Source::None => return unlimited(run),
        Source::Flags => "the command line".to_string(),
        Source::Config(file) => format!("{file}{}", overrides(gate.overrides())),
        Source::FlagsAndConfig(file) => {
            format!("the command line and {file}{}", overrides(gate.overrides()))
        }
        Source::Baseline(file) => format!("the baseline {file}"),
    };
    let head = gate.headline();
    let limits: Vec<String> = [
        ("cyclomatic", head.cyclomatic),
        ("cognitive", head.cognitive),
    ]
    .iter()
    .filter_map(|(name, l)| l.map(|l| format!("{name} {l}")))
    .collect();
    let limits = match limits.is_empty() {
        true => "per path".to_string(),
        false => limits.join(", "),
    };
    format!("{limits} (from {from})")
}

fn unlimited(run: &Run<'_>) -> String {
    let largest = |get: fn(&Function) -> u32, name: &str| {
        run.shown
            .iter()
            .max_by_key(|(f, _)| get(f))
            .map(|(f, _)| format!("{name} {} ({}:{} {})", get(f), f.file, f.start_line, f.name))
    };
    let top: Vec<String> = [
        largest(|f| f.cyclomatic, "cyclomatic"),
        largest(|f| f.cognitive, "cognitive"),
    ]
    .into_iter()
    .flatten()
    .collect();
    let top = match top.is_empty() {
        true => String::new(),
        false => format!("; the largest: {}", top.join(", ")),
    };
    format!("none set, so nothing fails (set them with --max-cyclomatic N and --max-cognitive N, or in .minimcp.toml){top}")
}

/// `items`, at most [`MAX_LISTED`] of them, then how many more.
fn list<T>(out: &mut dyn Write, items: &[T], show: impl Fn(&T) -> String) -> io::Result<()> {
    for item in items.iter().take(MAX_LISTED) {
        out.write_all(show(item).as_bytes())?;
    }
    if items.len() > MAX_LISTED {
        writeln!(
            out,
            "  … and {} more (--format json lists every one)",
            items.len() - MAX_LISTED
        )?;
    }
    Ok(())
}

/// `, 2 path overrides` when the configuration has some.
fn overrides(n: usize) -> String {
    match n {
        0 => String::new(),
        1 => ", 1 path override".into(),
        n => format!(", {n} path overrides"),
    }
}
