//! The SARIF 2.1.0 log of `minimcp analyze --format sarif`, in the shape GitHub code
//! scanning accepts (https://docs.github.com/en/code-security/code-scanning/integrating-with-code-scanning/sarif-support-for-code-scanning):
//! rules with help text, results with regions relative to `%SRCROOT%`, and
//! `partialFingerprints` made of what names a function (its file, name, which one of
//! that name, and the rule), never its lines, so an alert stays the same alert when code
//! above it moves.

use std::path::Path;

use serde_json::{json, Value};

use super::{Compared, Finding, Metric};

/// The key of our fingerprint in `partialFingerprints`; the version changes if its
/// recipe does.
const FINGERPRINT: &str = "minimcpFunction/v1";

/// The base every artifact URI is relative to.
const SRCROOT: &str = "%SRCROOT%";

/// The log of `findings`, the files relative to `root`.
pub(crate) fn log(findings: &[Finding<'_>], root: &Path) -> Value {
    let results: Vec<Value> = findings.iter().map(result).collect();
    let mut root_uri = root_path(root);
    if !root_uri.ends_with('/') {
        root_uri.push('/');
    }
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "minimcp",
                "version": env!("CARGO_PKG_VERSION"),
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://github.com/modelcontextprotocol",
                "rules": [rule(Metric::Cyclomatic), rule(Metric::Cognitive)],
            }},
            "originalUriBaseIds": {SRCROOT: {"uri": format!("file://{root_uri}")}},
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
        "defaultConfiguration": {"level": "warning"},
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
    let id = rule_id(finding.metric);
    let level = match (finding.fails, finding.compared) {
        (true, _) => "error",
        (false, Some(Compared::Unchanged)) => "note",
        (false, _) => "warning",
    };
    let fingerprint = minimcp::sha256_hex(
        format!("{}\0{}\0{}\0{id}", f.file, f.name, finding.occurrence).as_bytes(),
    );
    let mut result = json!({
        "ruleId": id,
        "ruleIndex": match finding.metric { Metric::Cyclomatic => 0, Metric::Cognitive => 1 },
        "level": level,
        "message": {"text": format!(
            "{} complexity of `{}` is {} (limit {})",
            capitalized(finding.metric.as_str()), f.name, finding.value, finding.threshold
        )},
        "locations": [{
            "physicalLocation": {
                "artifactLocation": {"uri": uri_path(&f.file), "uriBaseId": SRCROOT},
                "region": {"startLine": f.start_line, "endLine": f.end_line},
            },
            "logicalLocations": [{"name": f.name, "kind": "function"}],
        }],
        "partialFingerprints": {FINGERPRINT: fingerprint},
        "properties": {"value": finding.value, "threshold": finding.threshold},
    });
    if let Some(compared) = finding.compared {
        result["baselineState"] = json!(match compared {
            Compared::New => "new",
            Compared::Worse => "updated",
            Compared::Unchanged => "unchanged",
        });
    }
    result
}

/// The root as the path of a `file:` URI (RFC 8089): `/home/me/p`; on Windows `/C:/Users/me/p`
/// (the `\\?\` prefix dropped, `\` as `/`, the drive's colon kept) or `//server/share/p`.
fn root_path(root: &Path) -> String {
    let text = root.to_string_lossy();
    if !cfg!(windows) {
        return uri_path(&text);
    }
    let text = text
        .strip_prefix(r"\\?\")
        .unwrap_or(&text)
        .replace('\\', "/");
    let text = match text.strip_prefix("UNC/") {
        Some(share) => format!("//{share}"),
        None => text,
    };
    let b = text.as_bytes();
    if b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':' {
        format!("/{}{}", &text[..2], uri_path(&text[2..]))
    } else {
        uri_path(&text)
    }
}

/// A path as a URI path: every byte outside the unreserved set and `/` percent-encoded.
fn uri_path(path: &str) -> String {
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
