//! Command-line parsing, by hand (no clap: the library and binary depend on serde,
//! serde_json and thiserror only).
//!
//! This file holds what the command line asks for ([`Command`]) and which command's parser
//! reads it (`line.rs` for `serve` and `call`, `analyze.rs` for the reports); `flags.rs` is
//! the table of every flag, from which `help.rs` writes the help,
//! `man.rs` the man page and `completions.rs` the shell completions; `values.rs` reads each
//! flag's value, `features.rs` names the Cargo features a build left out, and `keyfile.rs`
//! is the format of `--state-key-file`.

pub(crate) mod analyze;
mod completions;
mod features;
mod flags;
mod help;
pub(crate) mod keyfile;
mod line;
mod man;
pub(crate) mod registry;
mod values;

use std::path::PathBuf;
use std::time::Duration;

use minimcp::{Limits, Version};
use minimcp_base::log::{Format, Level};

pub(crate) use features::missing_feature;
use flags::Sub;

/// What the command line asks for.
#[derive(Debug, PartialEq)]
pub(crate) enum Command {
    /// Serve one session over stdin/stdout.
    Serve(Options),
    /// Run one in-process session: handshake, one call, print the result.
    Call {
        options: Options,
        /// A tool name, or a method name (it contains a `/`).
        target: String,
        /// The tool's arguments or the method's params.
        params: serde_json::Value,
        /// The protocol version the in-process client speaks.
        version: Version,
        /// How the result is printed.
        output: Output,
    },
    /// `analyze [PATH...]`: the complexity report of the working directory, for CI.
    Analyze(analyze::Analyze),
    /// `churn [PATH...]`: the change history report.
    Churn(analyze::Churn),
    /// Text for stdout, and nothing else: help, the version, completions, the man page.
    Print(String),
}

/// How `call` prints its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Output {
    /// Text for a terminal, JSON for a pipe or file.
    Auto,
    /// The result as JSON (`--json`): what scripts read.
    Json,
    /// A tool's text content as text (`--text`): what people read.
    Text,
}

/// Options shared by `serve` and `call`.
#[derive(Debug, PartialEq)]
pub(crate) struct Options {
    /// `--root` and bare directories, `~` expanded; empty: the client's roots or the
    /// working directory.
    pub(crate) roots: Vec<PathBuf>,
    /// The deny list: the defaults, plus `--deny` patterns, cleared by `--deny none`.
    pub(crate) deny: Vec<String>,
    /// The write deny list: the defaults, plus `--deny-write` patterns, cleared by
    /// `--deny-write none`.
    pub(crate) deny_write: Vec<String>,
    /// `--walk-timeout`, `--walk-max-entries`, `--analysis-timeout`: the bounds of one walk
    /// (`None`: the toolsets' defaults).
    pub(crate) walk_time: Option<Duration>,
    pub(crate) walk_entries: Option<usize>,
    pub(crate) analysis_time: Option<Duration>,
    /// `--max-write-bytes`: the largest file the edit toolset writes.
    pub(crate) max_write_bytes: Option<u64>,
    /// `--http`: serve Streamable HTTP instead of stdio.
    #[cfg(feature = "http")]
    pub(crate) http: Option<Http>,
    /// `--state-key-file`: the secret sealing 2026-07-28 `requestState`.
    pub(crate) state_key_file: Option<PathBuf>,
    pub(crate) profile: Profile,
    /// The toolsets of the workspace profile (`--toolsets`), as names from
    /// [`registry::TOOLSETS`]; all of them by default.
    pub(crate) toolsets: Vec<&'static str>,
    pub(crate) log_level: Level,
    pub(crate) log_format: Format,
    pub(crate) limits: Limits,
}

impl Options {
    /// The defaults, with the working directory as the one root: what `churn` serves
    /// itself.
    #[cfg(feature = "analysis")]
    pub(crate) fn for_working_directory() -> Options {
        let mut options = line::defaults();
        options.roots = std::env::current_dir().into_iter().collect();
        options
    }
}

/// The HTTP transport's flags: the library's configuration, started from its defaults (so
/// the two never disagree), plus where the bearer token is read from.
#[cfg(feature = "http")]
#[derive(Debug, PartialEq)]
pub(crate) struct Http {
    pub(crate) config: minimcp_http::HttpConfig,
    pub(crate) token_file: Option<PathBuf>,
}

/// Which toolset the binary serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Profile {
    /// The toolsets of `--toolsets` for the workspace (default).
    Workspace,
    /// Fixtures for the official conformance suite and the benchmarks (`echo`).
    Conformance,
    /// The conformance fixtures plus the few the transcript corpus (`conformance/`) needs.
    Transcripts,
}

impl Profile {
    /// The Cargo feature that builds this profile's toolsets.
    pub(crate) fn feature(self) -> &'static str {
        match self {
            Profile::Workspace => "workspace",
            Profile::Conformance | Profile::Transcripts => "conformance",
        }
    }

    /// Whether this binary was built with [`Profile::feature`].
    pub(super) fn is_built(self) -> bool {
        match self {
            Profile::Workspace => cfg!(feature = "workspace"),
            Profile::Conformance | Profile::Transcripts => cfg!(feature = "conformance"),
        }
    }
}

/// Parses the arguments after the program name.
pub(crate) fn parse(args: impl IntoIterator<Item = String>) -> Result<Command, String> {
    let mut args: Vec<String> = args.into_iter().collect();
    let word = command_word(&args);
    let sub = match word.map(|at| args[at].as_str()) {
        Some("help") => return help_for(&args[word.map_or(0, |at| at + 1)..]),
        Some("completions") => {
            let shell = word.and_then(|at| args.get(at + 1));
            return completions::script(shell.map(String::as_str));
        }
        Some("man") => return Ok(Command::Print(man::page())),
        Some("call") => Sub::Call,
        Some(other) => Sub::of(other).unwrap_or(Sub::Serve),
        None => Sub::Serve,
    };
    if matches!(sub, Sub::Analyze | Sub::Churn) {
        // `analyze` and `churn` run no server: their flags are their own.
        if let Some(at) = word {
            args.remove(at);
        }
        return report(sub, &args);
    }
    line::parse(args, sub)
}

/// Whether an argument is a flag rather than a value (`-` alone is a value).
pub(super) fn is_flag(arg: &str) -> bool {
    arg.starts_with('-') && arg.len() > 1
}

/// Where the command word is: the first argument that is not a flag or a flag's value, if
/// it is one of the commands (else the line is `serve`'s, bare directories included).
fn command_word(args: &[String]) -> Option<usize> {
    let mut at = 0;
    while let Some(arg) = args.get(at) {
        if !is_flag(arg) {
            let words = [
                "serve",
                "call",
                "analyze",
                "churn",
                "help",
                "completions",
                "man",
            ];
            return words.contains(&arg.as_str()).then_some(at);
        }
        // A flag's value is the next argument, unless it came inline.
        let takes_value =
            !arg.contains('=') && flags::find(Sub::Serve, arg).is_some_and(|f| f.value.is_some());
        at += if takes_value { 2 } else { 1 };
    }
    None
}

/// `minimcp help [COMMAND]`.
fn help_for(rest: &[String]) -> Result<Command, String> {
    let defaults = line::defaults();
    match rest.first().map(String::as_str) {
        None => Ok(Command::Print(help::top(&defaults))),
        Some(word) => match Sub::of(word) {
            Some(sub @ (Sub::Serve | Sub::Call)) => {
                Ok(Command::Print(help::of(sub, Some(&defaults))))
            }
            Some(sub) => Ok(Command::Print(help::of(sub, None))),
            None => Err(format!(
                "no command {word:?}; the commands are serve, call, analyze and churn"
            )),
        },
    }
}

/// `analyze` and `churn`: every flag is checked against the table (so a mistake names the
/// closest one) before the command's own parser reads the line.
fn report(sub: Sub, args: &[String]) -> Result<Command, String> {
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let name = arg.split_once('=').map_or(arg.as_str(), |(name, _)| name);
        match name {
            "-h" | "--help" => return Ok(Command::Print(help::of(sub, None))),
            "-V" | "--version" => return Ok(Command::Print(help::version())),
            _ if !is_flag(name) => continue,
            _ => {}
        }
        let Some(flag) = flags::of(sub).find(|f| f.names.contains(&name)) else {
            return Err(flags::refuse(sub, name));
        };
        if flag.value.is_some() && !arg.contains('=') {
            rest.next();
        }
    }
    match sub {
        Sub::Analyze => analyze::analyze(args).map(Command::Analyze),
        _ => analyze::churn(args).map(Command::Churn),
    }
}

#[cfg(test)]
mod tests;
