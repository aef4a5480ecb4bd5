//! `minimcp churn`: the `analyze_code_churn` tool run in-process on the working directory
//! with no result budget, its whole report on stdout.

use std::process::ExitCode;

use minimcp::{Limits, Version};
use serde_json::json;

use crate::call::exchange;
use crate::cli::analyze::{Churn, Format};
use crate::cli::Options;
use crate::print;

/// A result budget no report reaches: the whole report is one page.
const UNBOUNDED: usize = 1 << 40;

/// Runs `minimcp churn`: 0 with the report on stdout, 2 when it cannot be made (not a git
/// repository, no git, a bad path).
pub(crate) fn churn(args: &Churn) -> ExitCode {
    let mut options = Options::for_working_directory();
    options.toolsets = vec!["analysis"];
    options.limits = Limits {
        max_result_bytes: UNBOUNDED,
        max_response_bytes: UNBOUNDED,
        ..Limits::default()
    };
    let Some(server) = crate::serve::build(&options) else {
        return ExitCode::from(2);
    };
    let format = args.format.unwrap_or(Format::Markdown);
    let mut params = json!({
        "format": match format {
            Format::Markdown => "markdown",
            Format::Csv => "csv",
            _ => "json",
        },
        "exclude": args.exclude,
    });
    if !args.paths.is_empty() {
        params["paths"] = json!(args.paths);
    }
    if let Some(days) = args.days {
        params["period_days"] = json!(days);
    }
    let live = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let call = json!({"name": "analyze_code_churn", "arguments": params});
    let answer = match exchange(&server, "tools/call", call, Version::LATEST_HANDSHAKE, live) {
        Ok(answer) => answer,
        Err(code) => return code,
    };
    let result = &answer["result"];
    if answer.get("error").is_some() || result["isError"] == json!(true) {
        let message = answer["error"]["message"]
            .as_str()
            .or(result["content"][0]["text"].as_str())
            .unwrap_or("the churn analysis failed");
        eprintln!("minimcp: {message}");
        return ExitCode::from(2);
    }
    let text = match format {
        Format::Json => {
            serde_json::to_string_pretty(&result["structuredContent"]).unwrap_or_default() + "\n"
        }
        _ => {
            let mut text = result["content"][0]["text"]
                .as_str()
                .unwrap_or("")
                .to_string();
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text
        }
    };
    print(&text)
}
