//! The JSON, CSV and markdown reports of `minimcp analyze`.

use std::io::{self, Write};

use minimcp_toolsets::analysis::batch::{self, code_cell};
use serde::Serialize;
use serde_json::{json, Value};

use super::gate::{Compared, Finding, Source, Stale, State};
use super::summary::describe;
use super::Run;

/// A finding as a JSON row.
pub(crate) fn row(f: &Finding<'_>) -> Value {
    let mut row = json!({
        "file": f.function.file, "function": f.function.name,
        "line": f.function.start_line, "metric": f.metric.as_str(),
        "value": f.value, "threshold": f.limit, "fails": f.fails(),
        "state": match f.state {
            State::Fails => "fails",
            State::Held => "held",
            State::Exempted(_) => "exempted",
        },
    });
    if let Some(compared) = f.compared {
        row["baseline"] = json!(match compared {
            Compared::New => "new",
            Compared::Worse => "worse",
            Compared::Unchanged => "unchanged",
        });
    }
    if let Some(old) = f.old {
        row["old"] = json!(old);
    }
    if let State::Exempted(text) = &f.state {
        row["exemption"] = json!(text);
    }
    if let Some(allowed) = f.outgrown {
        row["exemption_limit"] = json!(allowed);
    }
    row
}

fn stale_row(s: &Stale) -> Value {
    json!({
        "file": s.file, "line": s.exemption.line, "function": s.function,
        "comment": s.exemption.text, "why": s.why,
    })
}

/// The JSON report, written as it is made: pretty-printed a member at a time, the function
/// rows by [`batch::write_rows`] (the bulk of a report, each row written and dropped in
/// turn, so a large report holds no JSON for its functions).
pub(crate) fn json(run: &Run<'_>, out: &mut dyn Write) -> io::Result<()> {
    fn member<T: Serialize + ?Sized>(out: &mut dyn Write, name: &str, value: &T) -> io::Result<()> {
        write!(out, ",\n  \"{name}\": ")?;
        value
            .serialize(&mut serde_json::Serializer::with_formatter(
                &mut *out,
                batch::Pretty::at(1),
            ))
            .map_err(super::io_error)
    }
    let head = run.gate.headline();
    let source = match run.gate.source {
        Source::None => "none",
        Source::Flags => "flags",
        Source::Config(_) => "config",
        Source::FlagsAndConfig(_) => "flags and config",
        Source::Baseline(_) => "baseline",
    };
    let violations: Vec<Value> = run.findings.iter().map(row).collect();
    let stale: Vec<Value> = run.stale.iter().map(stale_row).collect();
    out.write_all(b"{\n  \"summary\": ")?;
    run.report
        .summary
        .serialize(&mut serde_json::Serializer::with_formatter(
            &mut *out,
            batch::Pretty::at(1),
        ))
        .map_err(super::io_error)?;
    member(
        out,
        "thresholds",
        &json!({"max_cyclomatic": head.cyclomatic, "max_cognitive": head.cognitive, "source": source}),
    )?;
    member(out, "failed", &run.failed)?;
    member(out, "violation_count", &run.findings.len())?;
    member(out, "violations", &violations)?;
    member(out, "stale_exemptions", &stale)?;
    member(out, "top_files", &run.report.top_files)?;
    write!(out, ",\n  \"functions\": ")?;
    batch::write_rows(&mut &mut *out, run.shown.iter().map(|(f, _)| *f), 1)?;
    member(out, "notes", &run.report.notes)?;
    out.write_all(b"\n}\n")
}

/// One line per function judged, every metric.
pub(crate) fn csv(run: &Run<'_>, out: &mut dyn Write) -> io::Result<()> {
    out.write_all(b"file,function,language,start_line,end_line,lines,cyclomatic,cognitive,max_nesting,halstead_volume,halstead_difficulty,halstead_effort\n")?;
    for (f, _) in run.shown {
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
        writeln!(out, "{}", fields.join(","))?;
    }
    Ok(())
}

/// RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The markdown report (for a pull request comment or a job summary): the verdict, the
/// failing functions first, what the baseline holds and the source exempts, stale
/// exemptions, then the summary table and the file ranking.
pub(crate) fn markdown(run: &Run<'_>, out: &mut dyn Write) -> io::Result<()> {
    let failing: Vec<&Finding<'_>> = run.findings.iter().filter(|f| f.fails()).collect();
    writeln!(out, "# Complexity report\n")?;
    let mut head = Vec::new();
    super::summary::write(run, &mut head)?;
    let first = String::from_utf8_lossy(&head);
    for line in first.lines().take_while(|l| !l.is_empty()) {
        writeln!(out, "{}  ", markdown_text(line))?;
    }
    let table = |out: &mut dyn Write, rows: &[&Finding<'_>]| -> io::Result<()> {
        writeln!(out, "| file | line | function | value |\n|---|---|---|---|")?;
        for f in rows.iter().take(super::summary::MAX_LISTED * 4) {
            writeln!(
                out,
                "| {} | {} | {} | {} |",
                code_cell(&f.function.file),
                f.function.start_line,
                code_cell(&f.function.name),
                markdown_text(&describe(f))
            )?;
        }
        Ok(())
    };
    writeln!(out, "\n## Failing ({})\n", failing.len())?;
    if failing.is_empty() {
        writeln!(out, "None.")?;
    } else {
        table(out, &failing)?;
    }
    let held = super::summary::held(run);
    if held > 0 {
        writeln!(
            out,
            "\n{held} functions over a limit are held by the baseline (not failing)."
        )?;
    }
    let exempted: Vec<&Finding<'_>> = run
        .findings
        .iter()
        .filter(|f| matches!(f.state, State::Exempted(_)))
        .collect();
    if !exempted.is_empty() {
        writeln!(out, "\n## Exempted in the source ({})\n", exempted.len())?;
        table(out, &exempted)?;
    }
    if !run.stale.is_empty() {
        writeln!(
            out,
            "\n## Stale exemptions ({})\n\n| file | line | comment | why |\n|---|---|---|---|",
            run.stale.len()
        )?;
        for s in run.stale {
            writeln!(
                out,
                "| {} | {} | {} | {} |",
                code_cell(&s.file),
                s.exemption.line,
                code_cell(&s.exemption.text),
                markdown_text(&s.why)
            )?;
        }
    }
    writeln!(out, "\n## Summary\n")?;
    out.write_all(batch::overview_markdown(run.report).as_bytes())?;
    for note in &run.report.notes {
        writeln!(out, "\nNote: {}", markdown_text(note))?;
    }
    writeln!(out, "\n{} failing.", failing.len())
}

/// Text for a markdown table cell or paragraph: `|` and markup characters escaped.
pub(crate) fn markdown_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '|' | '*' | '_' | '`' | '[' | ']' | '<' | '>' | '\\' | '#' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => out.extend(c.escape_default()),
            c => out.push(c),
        }
    }
    out
}
