//! The GitLab Code Quality report of `minimcp analyze --format gitlab`: a JSON array of
//! Code Climate issues (<https://docs.gitlab.com/ci/testing/code_quality/>), which a job
//! uploads as `artifacts: reports: codequality` to see the functions in merge requests.
//! A function that fails a limit is `major`; one the baseline holds or an exemption allows
//! is `info`. Fingerprints are the SARIF log's (file, name, which one of that name, rule),
//! so an issue stays the same issue when lines move.

use std::io::{self, Write};

use serde_json::{json, Value};

use super::gate::{Finding, State};
use super::sarif::fingerprint;
use super::summary::describe;
use super::Run;

/// Writes the report of `run`.
pub(crate) fn write(run: &Run<'_>, out: &mut dyn Write) -> io::Result<()> {
    let issues: Vec<Value> = run.findings.iter().map(issue).collect();
    serde_json::to_writer_pretty(&mut *out, &issues).map_err(super::io_error)?;
    out.write_all(b"\n")
}

fn issue(f: &Finding<'_>) -> Value {
    let function = f.function;
    // One line of text: Code Climate's descriptions hold no line breaks.
    let name: String = function
        .name
        .chars()
        .flat_map(|c| {
            let mut shown = String::new();
            if c.is_control() {
                shown.extend(c.escape_default());
            } else {
                shown.push(c);
            }
            shown.chars().collect::<Vec<_>>()
        })
        .collect();
    json!({
        "type": "issue",
        "check_name": format!("minimcp/{}-complexity", f.metric.as_str()),
        "description": format!("`{name}`: {}", describe(f)),
        "categories": ["Complexity"],
        "severity": match f.state {
            State::Fails => "major",
            State::Held | State::Exempted(_) => "info",
        },
        "fingerprint": fingerprint(f),
        "location": {
            "path": function.file,
            "lines": {"begin": function.start_line, "end": function.end_line},
        },
    })
}
