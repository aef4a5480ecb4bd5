//! The command lines of `analyze` and `churn`: reports for CI and people, outside any MCP
//! session (paths are relative to the working directory, and may name any place: the
//! command line is the person's own, not a model's).

use std::path::PathBuf;

use super::values::number;

/// How `analyze` and `churn` write their report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    /// `analyze`'s default: a few lines for a person or a CI log.
    Summary,
    Markdown,
    Json,
    Sarif,
    Csv,
    /// GitLab Code Quality (Code Climate issues).
    GitLab,
    Checkstyle,
}

/// `minimcp analyze [PATH...]`.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Analyze {
    /// Files and directories under the working directory; empty: all of it.
    pub(crate) paths: Vec<String>,
    pub(crate) exclude: Vec<String>,
    /// `None`: the summary.
    pub(crate) format: Option<Format>,
    /// `--report FORMAT=FILE` (repeatable): reports written to files besides stdout's.
    pub(crate) reports: Vec<(Format, PathBuf)>,
    /// `--config FILE`: instead of the repository's `.minimcp.toml`.
    pub(crate) config: Option<PathBuf>,
    pub(crate) max_cyclomatic: Option<u32>,
    pub(crate) max_cognitive: Option<u32>,
    pub(crate) baseline: Option<PathBuf>,
    pub(crate) write_baseline: Option<PathBuf>,
    /// `--diff REV`: only functions whose lines differ from this git revision.
    pub(crate) diff: Option<String>,
}

/// `minimcp churn [PATH...]`.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Churn {
    pub(crate) paths: Vec<String>,
    pub(crate) exclude: Vec<String>,
    /// `None`: markdown.
    pub(crate) format: Option<Format>,
    /// `--days N` (`--since N`): the period, in days back from now.
    pub(crate) days: Option<u64>,
}

/// Reads `args` (after the word `analyze`) as a flag list; `Err` says what is wrong.
pub(crate) fn analyze(args: &[String]) -> Result<Analyze, String> {
    let mut out = Analyze::default();
    each_flag(args, &mut out.paths, |flag, value| {
        match flag {
            "--exclude" => out.exclude.push(value()?),
            "--format" => out.format = Some(format(&value()?, true)?),
            "--report" => out.reports.push(report(&value()?)?),
            "--config" => out.config = Some(PathBuf::from(value()?)),
            "--max-cyclomatic" => out.max_cyclomatic = Some(threshold(&value()?, flag)?),
            "--max-cognitive" => out.max_cognitive = Some(threshold(&value()?, flag)?),
            "--baseline" => out.baseline = Some(PathBuf::from(value()?)),
            "--write-baseline" => out.write_baseline = Some(PathBuf::from(value()?)),
            "--diff" => out.diff = Some(revision(value()?)?),
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    if out.write_baseline.is_some() && (out.format.is_some() || !out.reports.is_empty()) {
        return Err("--write-baseline records the present and prints one line: run the report (--format, --report) separately".into());
    }
    Ok(out)
}

/// Reads `args` (after the word `churn`).
pub(crate) fn churn(args: &[String]) -> Result<Churn, String> {
    let mut out = Churn::default();
    each_flag(args, &mut out.paths, |flag, value| {
        match flag {
            "--exclude" => out.exclude.push(value()?),
            "--format" => out.format = Some(format(&value()?, false)?),
            "--days" | "--since" => out.days = Some(number(&value()?, flag, 1)? as u64),
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    Ok(out)
}

/// Calls `apply` with each flag and a way to read its value (inline `--flag=value` or the
/// next argument); other arguments are paths. `apply` says whether it knew the flag.
fn each_flag(
    args: &[String],
    paths: &mut Vec<String>,
    mut apply: impl FnMut(&str, &mut dyn FnMut() -> Result<String, String>) -> Result<bool, String>,
) -> Result<(), String> {
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        if !arg.starts_with("--") {
            if arg.starts_with('-') && arg.len() > 1 {
                return Err(format!("unknown option {arg}; see --help"));
            }
            paths.push(arg.clone());
            continue;
        }
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) => (flag, Some(value.to_string())),
            None => (arg.as_str(), None),
        };
        let mut value = || {
            inline
                .clone()
                .or_else(|| rest.next().cloned())
                .ok_or_else(|| format!("{flag} needs a value"))
        };
        if !apply(flag, &mut value)? {
            return Err(format!("unknown option {flag}; see --help"));
        }
    }
    Ok(())
}

/// The formats each command writes.
const ANALYZE_FORMATS: &str = "summary, markdown, json, sarif, csv, gitlab or checkstyle";
const CHURN_FORMATS: &str = "markdown, json or csv";

fn format(name: &str, analyze: bool) -> Result<Format, String> {
    let format = match name {
        "markdown" => Format::Markdown,
        "json" => Format::Json,
        "csv" => Format::Csv,
        "summary" if analyze => Format::Summary,
        "sarif" if analyze => Format::Sarif,
        "gitlab" if analyze => Format::GitLab,
        "checkstyle" if analyze => Format::Checkstyle,
        other => {
            let known = if analyze {
                ANALYZE_FORMATS
            } else {
                CHURN_FORMATS
            };
            return Err(format!("unknown format {other:?}; use {known}"));
        }
    };
    Ok(format)
}

/// `FORMAT=FILE` of `--report`.
fn report(value: &str) -> Result<(Format, PathBuf), String> {
    match value.split_once('=') {
        Some((name, file)) if !file.is_empty() => Ok((format(name, true)?, PathBuf::from(file))),
        _ => Err(format!(
            "--report wants FORMAT=FILE (sarif=complexity.sarif), not {value:?}"
        )),
    }
}

fn threshold(text: &str, flag: &str) -> Result<u32, String> {
    Ok(number(text, flag, 1)?.min(u32::MAX as usize) as u32)
}

/// A revision is one argument to git: never something git would read as an option.
fn revision(rev: String) -> Result<String, String> {
    if rev.is_empty() || rev.starts_with('-') {
        return Err(format!(
            "--diff wants a git revision such as origin/main or HEAD~3, not {rev:?}"
        ));
    }
    Ok(rev)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn analyze_reads_paths_and_flags() {
        let a = analyze(&words(
            "src --exclude=tests --format sarif --max-cyclomatic 12 --max-cognitive=20 lib --baseline b.json --diff HEAD~1",
        ))
        .expect("valid");
        assert_eq!(a.paths, ["src", "lib"]);
        assert_eq!(a.exclude, ["tests"]);
        assert_eq!(a.format, Some(Format::Sarif));
        assert_eq!((a.max_cyclomatic, a.max_cognitive), (Some(12), Some(20)));
        assert_eq!(a.baseline, Some(PathBuf::from("b.json")));
        assert_eq!(a.write_baseline, None);
        assert_eq!(a.diff.as_deref(), Some("HEAD~1"));
    }

    #[test]
    fn mistakes_are_named() {
        for (line, message) in [
            ("--format xml", "unknown format"),
            ("--report sarif", "FORMAT=FILE"),
            ("--report xml=a", "unknown format"),
            ("--write-baseline b --format json", "separately"),
            ("--max-cyclomatic 0", "at least 1"),
            ("--max-cognitive", "needs a value"),
            ("--diff=--output=x", "git revision"),
            ("--bogus", "unknown option --bogus"),
            ("-x", "unknown option -x"),
        ] {
            let err = analyze(&words(line)).expect_err(line);
            assert!(err.contains(message), "{line}: {err}");
        }
        assert!(churn(&words("--format sarif"))
            .expect_err("no sarif for churn")
            .contains("markdown, json or csv"));
        let a = analyze(&words(
            "--report sarif=a.sarif --report=gitlab=b.json --config c.toml",
        ))
        .expect("valid");
        assert_eq!(
            a.reports,
            [
                (Format::Sarif, PathBuf::from("a.sarif")),
                (Format::GitLab, PathBuf::from("b.json"))
            ]
        );
        assert_eq!(a.config, Some(PathBuf::from("c.toml")));
        assert!(churn(&words("--max-cyclomatic 3")).is_err());
    }

    #[test]
    fn churn_reads_days_and_format() {
        let c = churn(&words("src --since 90 --format csv")).expect("valid");
        assert_eq!(c.paths, ["src"]);
        assert_eq!(c.days, Some(90));
        assert_eq!(c.format, Some(Format::Csv));
    }
}
