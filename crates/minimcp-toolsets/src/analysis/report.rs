//! What `analyze_complexity` says about a set of measured files: the summary statistics,
//! the violations of the thresholds, the file ranking, and the three output formats.
//!
//! Percentiles are nearest-rank: the p-th percentile of n sorted values is the value at
//! rank ⌈p·n/100⌉ (so the median of 1, 2, 3, 4 is 2).
//!
//! The file ranking's `total_score` is Σ cognitive + Σ (cyclomatic − 1) + Σ Halstead
//! effort / 10,000 over the file's functions: decisions a reader has to follow, plus a
//! small term for sheer volume, so a file of many simple functions ranks below one with a
//! few tangled ones.

use serde_json::{json, Value};

use super::lang::Lang;
use super::measure::Measured;
use crate::workspace::walk::plural;

/// One analyzed file.
pub(crate) struct FileReport {
    pub(crate) path: String,
    pub(crate) lang: Lang,
    pub(crate) functions: Vec<Measured>,
}

/// The limits a function should stay within.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Thresholds {
    pub(crate) cyclomatic: u32,
    pub(crate) cognitive: u32,
}

/// One function above a threshold.
pub(crate) struct Violation<'a> {
    pub(crate) file: &'a str,
    pub(crate) function: &'a Measured,
    pub(crate) metric: &'static str,
    pub(crate) value: u32,
    pub(crate) threshold: u32,
}

impl Violation<'_> {
    pub(crate) fn to_json(&self) -> Value {
        json!({
            "file": self.file, "function": self.function.name, "line": self.function.start_line,
            "metric": self.metric, "value": self.value, "threshold": self.threshold,
        })
    }

    pub(crate) fn message(&self) -> String {
        format!(
            "{} complexity of `{}` is {} (threshold {})",
            self.metric, self.function.name, self.value, self.threshold
        )
    }
}

/// Every violation, the worst (value over threshold) first, then by file and line.
pub(crate) fn violations(files: &[FileReport], limits: Thresholds) -> Vec<Violation<'_>> {
    let mut out = Vec::new();
    for file in files {
        for f in &file.functions {
            for (metric, value, threshold) in [
                ("cyclomatic", f.cyclomatic, limits.cyclomatic),
                ("cognitive", f.cognitive, limits.cognitive),
            ] {
                if value > threshold {
                    out.push(Violation {
                        file: &file.path,
                        function: f,
                        metric,
                        value,
                        threshold,
                    });
                }
            }
        }
    }
    out.sort_by(|a, b| {
        let ratio = |v: &Violation<'_>| f64::from(v.value) / f64::from(v.threshold.max(1));
        ratio(b)
            .total_cmp(&ratio(a))
            .then_with(|| a.file.cmp(b.file))
            .then_with(|| a.function.start_line.cmp(&b.function.start_line))
    });
    out
}

/// Nearest-rank percentile of sorted `values` (0 when empty).
#[cfg(test)]
pub(crate) fn percentile(sorted: &[f64], p: u32) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[rank(sorted.len(), p)]
}

/// The index of the nearest-rank `p`-th percentile among `n` sorted values, `n` > 0.
fn rank(n: usize, p: u32) -> usize {
    let rank = (u64::from(p) * n as u64).div_ceil(100).max(1) as usize;
    rank.min(n) - 1
}

/// The median, p90 and max of `values`, each the value a sort would put at its rank, found
/// by selection instead of sorting (the summary's seven sorts of every function's metric
/// were a twentieth of a large report's time). Values equal under `total_cmp` are the same
/// bits, so which of them lands at a rank cannot change the answer.
fn stats(mut values: Vec<f64>) -> Value {
    let mut at = |p: u32| match values.len() {
        0 => 0.0,
        n => *values.select_nth_unstable_by(rank(n, p), f64::total_cmp).1,
    };
    let (median, p90, max) = (at(50), at(90), at(100));
    json!({
        "median": round(median),
        "p90": round(p90),
        "max": round(max),
    })
}

/// Two decimals, enough for reports and stable in tests.
pub(crate) fn round(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// Files, functions per language, and median/p90/max of each metric.
pub(crate) fn summary(files: &[FileReport]) -> Value {
    let all: Vec<&Measured> = files.iter().flat_map(|f| &f.functions).collect();
    let metric = |get: &dyn Fn(&Measured) -> f64| stats(all.iter().map(|m| get(m)).collect());
    let mut languages = serde_json::Map::new();
    for lang in Lang::ALL {
        let (count, functions) = files
            .iter()
            .filter(|f| f.lang == lang)
            .fold((0, 0), |(c, n), f| (c + 1, n + f.functions.len()));
        if count > 0 {
            languages.insert(
                lang.as_str().into(),
                json!({"files": count, "functions": functions}),
            );
        }
    }
    json!({
        "files": files.len(),
        "functions": all.len(),
        "languages": languages,
        "cyclomatic": metric(&|m| f64::from(m.cyclomatic)),
        "cognitive": metric(&|m| f64::from(m.cognitive)),
        "max_nesting": metric(&|m| f64::from(m.max_nesting)),
        "lines": metric(&|m| f64::from(m.lines())),
        "halstead_volume": metric(&|m| m.halstead.volume),
        "halstead_difficulty": metric(&|m| m.halstead.difficulty),
        "halstead_effort": metric(&|m| m.halstead.effort),
    })
}

/// The `top` files by `total_score` (formula in the module documentation).
pub(crate) fn ranking(files: &[FileReport], top: usize) -> Vec<Value> {
    let mut rows: Vec<(f64, &FileReport)> = files
        .iter()
        .filter(|f| !f.functions.is_empty())
        .map(|f| (file_score(f), f))
        .collect();
    rows.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.path.cmp(&b.1.path)));
    rows.iter()
        .take(top)
        .enumerate()
        .map(|(rank, (score, f))| {
            let n = f.functions.len() as f64;
            json!({
                "rank": rank + 1,
                "file": f.path,
                "function_count": f.functions.len(),
                "max_cyclomatic": f.functions.iter().map(|m| m.cyclomatic).max().unwrap_or(0),
                "avg_cognitive": round(f.functions.iter().map(|m| f64::from(m.cognitive)).sum::<f64>() / n),
                "halstead_effort": round(f.functions.iter().map(|m| m.halstead.effort).sum()),
                "total_score": round(*score),
            })
        })
        .collect()
}

fn file_score(f: &FileReport) -> f64 {
    f.functions
        .iter()
        .map(|m| {
            f64::from(m.cognitive)
                + f64::from(m.cyclomatic.saturating_sub(1))
                + m.halstead.effort / 10_000.0
        })
        .sum()
}

/// One function as the json format lists it.
pub(crate) fn function_json(file: &FileReport, m: &Measured) -> Value {
    serde_json::to_value(function_row(&file.path, file.lang, m)).unwrap_or(Value::Null)
}

/// One function as the json format lists it, written straight to a serializer: a report of
/// many functions (`minimcp analyze --format json`) spent a quarter of its time building,
/// writing and dropping each row as a [`Value`] tree.
pub(crate) fn function_row<'a>(path: &'a str, lang: Lang, m: &'a Measured) -> FunctionRow<'a> {
    let h = &m.halstead;
    FunctionRow {
        cognitive: m.cognitive,
        cyclomatic: m.cyclomatic,
        end_line: m.end_line,
        file: path,
        halstead: HalsteadRow {
            difficulty: round(h.difficulty),
            distinct_operands: h.distinct_operands,
            distinct_operators: h.distinct_operators,
            effort: round(h.effort),
            operands: h.operands,
            operators: h.operators,
            volume: round(h.volume),
        },
        language: lang.as_str(),
        lines: m.lines(),
        max_nesting: m.max_nesting,
        name: &m.name,
        start_line: m.start_line,
    }
}

/// A function's row; its members in sorted order, as a [`Value`] object holds them, so the
/// two ways of writing a row give the same bytes.
#[derive(serde::Serialize)]
pub(crate) struct FunctionRow<'a> {
    cognitive: u32,
    cyclomatic: u32,
    end_line: u32,
    file: &'a str,
    halstead: HalsteadRow,
    language: &'static str,
    lines: u32,
    max_nesting: u32,
    name: &'a str,
    start_line: u32,
}

/// The Halstead part of a [`FunctionRow`].
#[derive(serde::Serialize)]
struct HalsteadRow {
    difficulty: f64,
    distinct_operands: u32,
    distinct_operators: u32,
    effort: f64,
    operands: u32,
    operators: u32,
    volume: f64,
}

/// A SARIF 2.1.0 log with one result per violation.
pub(crate) fn sarif(violations: &[Violation<'_>]) -> Value {
    let results: Vec<Value> = violations
        .iter()
        .map(|v| {
            json!({
                "ruleId": format!("{}-complexity", v.metric),
                "level": if v.value > v.threshold * 2 { "error" } else { "warning" },
                "message": {"text": v.message()},
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": {"uri": v.file, "uriBaseId": "PROJECTROOT"},
                        "region": {"startLine": v.function.start_line, "endLine": v.function.end_line},
                    },
                    "logicalLocations": [{"name": v.function.name, "kind": "function"}],
                }],
                "properties": {"value": v.value, "threshold": v.threshold},
            })
        })
        .collect();
    let rule = |id: &str, what: &str| {
        json!({
            "id": id,
            "name": what.replace(' ', ""),
            "shortDescription": {"text": format!("{what} above the threshold")},
            "helpUri": "https://www.sonarsource.com/docs/CognitiveComplexity.pdf",
        })
    };
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "minimcp analyze_complexity",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": [
                    rule("cyclomatic-complexity", "Cyclomatic complexity"),
                    rule("cognitive-complexity", "Cognitive complexity"),
                ],
            }},
            "results": results,
        }],
    })
}

/// The markdown report: summary table, ranking, and the violations shown.
pub(crate) fn markdown(
    summary: &Value,
    ranking: &[Value],
    violations: &[Value],
    total_violations: usize,
) -> String {
    let mut out = String::from("# Complexity report\n\n");
    out.push_str(&overview(summary, ranking));
    out.push_str(&format!("\n## Violations ({total_violations})\n\n"));
    if violations.is_empty() {
        out.push_str("None.\n");
    } else {
        out.push_str(
            "| file | line | function | metric | value | threshold |\n|---|---|---|---|---|---|\n",
        );
        for v in violations {
            out.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} |\n",
                code_cell(v["file"].as_str().unwrap_or("")),
                v["line"],
                code_cell(v["function"].as_str().unwrap_or("")),
                v["metric"].as_str().unwrap_or(""),
                v["value"],
                v["threshold"]
            ));
        }
    }
    out
}

/// The summary table (files, functions, median/p90/max of each metric) and the file
/// ranking, in markdown.
pub(crate) fn overview(summary: &Value, ranking: &[Value]) -> String {
    let mut out = String::new();
    let count = |key: &str| summary[key].as_u64().unwrap_or(0) as usize;
    out.push_str(&format!(
        "{}, {}.\n\n| metric | median | p90 | max |\n|---|---|---|---|\n",
        plural(count("files"), ("file", "files")),
        plural(count("functions"), ("function", "functions"))
    ));
    for key in [
        "cyclomatic",
        "cognitive",
        "max_nesting",
        "lines",
        "halstead_effort",
    ] {
        let s = &summary[key];
        out.push_str(&format!(
            "| {key} | {} | {} | {} |\n",
            s["median"], s["p90"], s["max"]
        ));
    }
    if !ranking.is_empty() {
        out.push_str("\n## Top files\n\n| rank | file | functions | max cyclomatic | avg cognitive | Halstead effort | score |\n|---|---|---|---|---|---|---|\n");
        for r in ranking {
            out.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {} |\n",
                r["rank"],
                code_cell(r["file"].as_str().unwrap_or("")),
                r["function_count"],
                r["max_cyclomatic"],
                r["avg_cognitive"],
                r["halstead_effort"],
                r["total_score"]
            ));
        }
    }
    out
}

/// This page's functions (rows of [`function_json`]) as a markdown table, for the text of
/// the json format.
pub(crate) fn function_table(functions: &[Value], offset: usize, total: usize) -> String {
    let end = offset.saturating_add(functions.len());
    let mut out = format!("\n## Functions {offset}..{end} of {total}\n\n");
    if functions.is_empty() {
        out.push_str("None on this page.\n");
        return out;
    }
    out.push_str("| file | lines | function | cyclomatic | cognitive | nesting | Halstead effort |\n|---|---|---|---|---|---|---|\n");
    for f in functions {
        out.push_str(&format!(
            "| {} | {}-{} | {} | {} | {} | {} | {} |\n",
            code_cell(f["file"].as_str().unwrap_or("")),
            f["start_line"],
            f["end_line"],
            code_cell(f["name"].as_str().unwrap_or("")),
            f["cyclomatic"],
            f["cognitive"],
            f["max_nesting"],
            f["halstead"]["effort"]
        ));
    }
    out
}

/// `text` as a code span that stays inside one markdown table cell: `|` escaped (GitHub's
/// tables split on it even inside code spans), line breaks and other control characters
/// shown as escapes, and a fence one backtick longer than any run of backticks inside
/// (CommonMark's code spans), padded when the text starts or ends with one. File and
/// function names are the repository's, so any of these can occur.
pub(crate) fn code_cell(text: &str) -> String {
    let body = cell_text(text);
    let longest = body.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if body.starts_with('`') || body.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{body}{pad}{fence}")
}

/// `text` for a markdown table cell: `|` escaped, control characters shown as escapes.
pub(crate) fn cell_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '|' => out.push_str("\\|"),
            c if c.is_control() => out.extend(c.escape_default()),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(percentile(&v, 50), 2.0);
        assert_eq!(percentile(&v, 90), 4.0);
        let v: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(percentile(&v, 90), 9.0);
        assert_eq!(percentile(&[], 50), 0.0);
    }

    #[test]
    fn names_stay_inside_their_table_cell() {
        assert_eq!(code_cell("src/a.py"), "`src/a.py`");
        assert_eq!(code_cell("a|b.py"), "`a\\|b.py`");
        assert_eq!(code_cell("tick`s.py"), "``tick`s.py``");
        assert_eq!(code_cell("`edge`"), "`` `edge` ``");
        assert_eq!(code_cell("two\nlines\t.py"), "`two\\nlines\\t.py`");
        assert_eq!(cell_text("Ann | Bob"), "Ann \\| Bob");
    }
}
