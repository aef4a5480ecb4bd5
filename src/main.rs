//! The `minimcp` binary: `serve` (the default) runs one MCP session on stdin/stdout;
//! `call` runs one in-process session and prints the result.
#![forbid(unsafe_code)]

mod call;
mod cli;
mod progress;
mod serve;

use std::io::Write;
use std::process::ExitCode;

use cli::Command;

fn main() -> ExitCode {
    let command = match cli::parse(std::env::args().skip(1)) {
        Ok(command) => command,
        Err(message) => {
            eprintln!("minimcp: {message}");
            return ExitCode::from(2);
        }
    };
    match command {
        Command::Help => print(&cli::help()),
        Command::Version => print(&format!("minimcp {}\n", env!("CARGO_PKG_VERSION"))),
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
