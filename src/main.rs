//! The `minimcp` binary: `serve` (the default) runs one MCP session on stdin/stdout;
//! `call` runs one in-process session and prints the result; `analyze` and `churn` write
//! the analysis toolset's reports for CI.
#![forbid(unsafe_code)]

#[cfg(feature = "analysis")]
mod analyze;
mod call;
mod cli;
mod progress;
mod serve;

use std::io::Write;
use std::process::ExitCode;

use cli::Command;

fn main() -> ExitCode {
    let status = run();
    minimcp_base::log::flush();
    status
}

fn run() -> ExitCode {
    let command = match cli::parse(std::env::args().skip(1)) {
        Ok(command) => command,
        Err(message) => {
            eprintln!("minimcp: {message}");
            return ExitCode::from(2);
        }
    };
    match command {
        Command::Print(text) => print(&text),
        Command::Serve(options) => serve::serve(&options),
        Command::Call {
            options,
            target,
            params,
            version,
            output,
        } => {
            let Some(server) = serve::build(&options) else {
                return ExitCode::from(2);
            };
            call::call(&server, &target, params, version, output)
        }
        #[cfg(feature = "analysis")]
        Command::Analyze(args) => analyze::analyze(&args),
        #[cfg(feature = "analysis")]
        Command::Churn(args) => analyze::churn(&args),
        // The command line refuses both without the feature; kept for those builds.
        #[allow(unreachable_patterns)]
        Command::Analyze(_) | Command::Churn(_) => {
            eprintln!("minimcp: {}", cli::missing_feature("analysis"));
            ExitCode::from(2)
        }
    }
}

/// Writes text meant for the user to stdout (help, version, `call` results; never while
/// serving, when stdout carries protocol messages only).
pub(crate) fn print(text: &str) -> ExitCode {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => ExitCode::FAILURE,
    }
}
