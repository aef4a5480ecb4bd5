//! The SARIF 2.1.0 log of `minimcp analyze --format sarif`, in the shape GitHub code
//! scanning accepts (<https://docs.github.com/en/code-security/code-scanning/integrating-with-code-scanning/sarif-support-for-code-scanning>):
//! rules with help text, results with regions relative to `%SRCROOT%` (the directory the
//! command ran in, deliberately left without an absolute `uri`: a log names no path of the
//! machine that made it), and `partialFingerprints` made of what names a function (its
//! file, name, which one of that name, and the rule), never its lines, so an alert stays
//! the same alert when code above it moves.
//!
//! Only limits someone set produce results: a function that fails one is an `error`; one
//! over a limit that the baseline holds, or that an exemption in its source allows, is a
//! `note` with a `suppressions` entry (`external` for the baseline, `inSource` with the
//! comment as its justification). Nothing else is reported.

use std::io::{self, Write};

use serde_json::{json, Value};

use super::gate::{Compared, Finding, Metric, State};
use super::Run;

/// The key of our fingerprint in `partialFingerprints`; the version changes if its
/// recipe does.
const FINGERPRINT: &str = "minimcpFunction/v1";

/// The base every artifact URI is relative to.
const SRCROOT: &str = "%SRCROOT%";

/// The fingerprint of a finding: a SHA-256 of the file, the function's name, which one of
/// that name it is, and the rule.
pub(crate) fn fingerprint(f: &Finding<'_>) -> String {
    minimcp_base::encoding::sha256_hex(
        format!(
            "{}\0{}\0{}\0{}",
            f.function.file,
            f.function.name,
            f.occurrence,
            rule_id(f.metric)
        )
        .as_bytes(),
    )
}

/// Writes the log of `run`.
pub(crate) fn write(run: &Run<'_>, out: &mut dyn Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &log(run)).map_err(super::io_error)?;
    out.write_all(b"\n")
}

/// The log of `run`.
pub(crate) fn log(run: &Run<'_>) -> Value {
    let results: Vec<Value> = run.findings.iter().map(result).collect();
    let mut driver = json!({
        "name": "minimcp",
        "version": env!("CARGO_PKG_VERSION"),
        "semanticVersion": env!("CARGO_PKG_VERSION"),
        "rules": [rule(Metric::Cyclomatic), rule(Metric::Cognitive)],
    });
    // The project's own home, once Cargo.toml names one; no guess in the meantime.
    let home = option_env!("CARGO_PKG_HOMEPAGE")
        .filter(|h| !h.is_empty())
        .or(option_env!("CARGO_PKG_REPOSITORY").filter(|r| !r.is_empty()));
    if let Some(home) = home {
        driver["informationUri"] = json!(home);
    }
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": driver},
            "originalUriBaseIds": {SRCROOT: {"description": {"text": "The directory `minimcp analyze` ran in (the repository's root in CI)."}}},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    })
}

fn rule_id(metric: Metric) -> String {
    format!("{}-complexity", metric.as_str())
}

fn rule(metric: Metric) -> Value {
    let (name, full, help, uri) = match metric {
        Metric::Cyclomatic => (
            "CyclomaticComplexity",
            "The function's cyclomatic complexity (McCabe: one plus each decision point such as if, loop, case and boolean operator) is above the limit.",
            "Cyclomatic complexity counts the independent paths through a function: each of them needs a test. Split the function, move branches into well-named helpers, or replace a chain of conditions with a lookup.",
            "https://en.wikipedia.org/wiki/Cyclomatic_complexity",
        ),
        Metric::Cognitive => (
            "CognitiveComplexity",
            "The function's cognitive complexity (SonarSource: breaks in linear flow, weighted by how deeply they nest) is above the limit.",
            "Cognitive complexity measures how hard a function is to follow: each break in the flow costs one, plus one per level of nesting it sits in. Return early, extract nested blocks into functions, and flatten nested conditions.",
            "https://www.sonarsource.com/docs/CognitiveComplexity.pdf",
        ),
    };
    json!({
        "id": rule_id(metric),
        "name": name,
        "shortDescription": {"text": format!("{} complexity above the limit", capitalized(metric.as_str()))},
        "fullDescription": {"text": full},
        "help": {"text": help, "markdown": format!("{help}\n\nSee [{uri}]({uri}).")},
        "helpUri": uri,
        "defaultConfiguration": {"level": "error"},
        "properties": {"tags": ["maintainability", "complexity"]},
    })
}

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
        .unwrap_or_default()
}

fn result(finding: &Finding<'_>) -> Value {
    let f = finding.function;
    let level = match finding.state {
        State::Fails => "error",
        State::Held | State::Exempted(_) => "note",
    };
    let mut result = json!({
        "ruleId": rule_id(finding.metric),
        "ruleIndex": match finding.metric { Metric::Cyclomatic => 0, Metric::Cognitive => 1 },
        "level": level,
        "message": {"text": format!(
            "{} complexity of `{}` is {}{} (limit {})",
            capitalized(finding.metric.as_str()), f.name,
            finding.old.filter(|&o| o != finding.value).map(|o| format!("{o} → ")).unwrap_or_default(),
            finding.value, finding.limit
        )},
        "locations": [{
            "physicalLocation": {
                "artifactLocation": {"uri": uri_path(&f.file), "uriBaseId": SRCROOT},
                "region": {"startLine": f.start_line, "endLine": f.end_line},
            },
            "logicalLocations": [{"name": f.name, "kind": "function"}],
        }],
        "partialFingerprints": {FINGERPRINT: fingerprint(finding)},
        "properties": {"value": finding.value, "threshold": finding.limit},
    });
    match &finding.state {
        State::Held => {
            result["suppressions"] =
                json!([{"kind": "external", "justification": "held by the baseline"}])
        }
        State::Exempted(text) => {
            result["suppressions"] = json!([{"kind": "inSource", "justification": text}])
        }
        State::Fails => {}
    }
    if let Some(compared) = finding.compared {
        result["baselineState"] = json!(match compared {
            Compared::New => "new",
            Compared::Worse => "updated",
            Compared::Unchanged => "unchanged",
        });
    }
    result
}

/// A path as a URI path: every byte outside the unreserved set and `/` percent-encoded.
pub(crate) fn uri_path(path: &str) -> String {
    let mut out = String::new();
    for &b in path.as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
