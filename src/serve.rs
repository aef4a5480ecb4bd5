//! `minimcp serve`: the server the options describe, on stdio or Streamable HTTP.

use std::io::IsTerminal;
use std::process::ExitCode;

use minimcp::Server;
use minimcp_base::log;

use crate::cli::{self, keyfile, Options};

/// Serves one session on stdio, or HTTP with `--http`, until it ends.
pub(crate) fn serve(options: &Options) -> ExitCode {
    let Some(server) = build(options) else {
        return ExitCode::from(2);
    };
    #[cfg(feature = "http")]
    if let Some(http) = &options.http {
        return serve_http(&server, http);
    }
    log::info(format_args!("serving on stdio"));
    if std::io::stdin().is_terminal() {
        // A person ran it by hand: say what it waits for instead of waiting silently.
        eprintln!("{TERMINAL_HINT}");
    }
    match minimcp::run_stdio(&server) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            log::error(format_args!(
                "{e}: {}",
                std::error::Error::source(&e).map_or(String::new(), |s| s.to_string())
            ));
            ExitCode::FAILURE
        }
    }
}

/// What a person who starts the stdio server at a terminal is told (on stderr).
const TERMINAL_HINT: &str =
    "minimcp: waiting for an MCP client on stdin (JSON-RPC, one message per line); \
an MCP client such as Claude Desktop starts it for you. To try a tool by hand: \
`minimcp call list_directory '{\"path\":\".\"}'`; `minimcp --help` for more. Ctrl-D ends.";

/// Serves Streamable HTTP until the process is stopped.
#[cfg(feature = "http")]
fn serve_http(server: &Server, http: &cli::Http) -> ExitCode {
    let token = match &http.token_file {
        Some(path) => match std::fs::read_to_string(path) {
            Ok(text) => Some(text.lines().next().unwrap_or_default().trim().to_string()),
            Err(e) => {
                eprintln!(
                    "minimcp: cannot read the token file {}: {e}",
                    path.display()
                );
                return ExitCode::from(2);
            }
        },
        None => std::env::var("MINIMCP_TOKEN").ok(),
    };
    if token.as_deref() == Some("") {
        eprintln!("minimcp: the bearer token is empty");
        return ExitCode::from(2);
    }
    let mut config = http.config.clone();
    config.token = token;
    match minimcp_http::serve(server, config) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // The cause too: "cannot listen on …" alone does not say what to fix.
            match std::error::Error::source(&e) {
                Some(cause) => eprintln!("minimcp: {e}: {cause}"),
                None => eprintln!("minimcp: {e}"),
            }
            ExitCode::from(2)
        }
    }
}

pub(crate) fn build(options: &Options) -> Option<Server> {
    log::set_level(options.log_level);
    log::set_format(options.log_format);
    let mut builder = Server::builder("minimcp", env!("CARGO_PKG_VERSION"))
        .title("minimcp")
        .limits(options.limits.clone());
    if let Some(path) = &options.state_key_file {
        let text = match std::fs::read(path) {
            Ok(text) => text,
            Err(e) => {
                eprintln!(
                    "minimcp: cannot read the state key file {}: {e}",
                    path.display()
                );
                return None;
            }
        };
        match keyfile::parse(&text) {
            Ok((current, previous)) => {
                builder = builder.state_secret(current);
                if let Some(previous) = previous {
                    builder = builder.previous_state_secret(previous);
                }
            }
            Err(why) => {
                eprintln!(
                    "minimcp: the state key file {} is unusable: {why}",
                    path.display()
                );
                return None;
            }
        }
    }
    let builder = add_profile(builder, options)?;
    match builder.build() {
        Ok(server) => Some(server),
        Err(e) => {
            eprintln!("minimcp: {e}");
            None
        }
    }
}

/// Adds what `options.profile` serves; `None` (and a message on stderr) when it cannot.
fn add_profile(builder: minimcp::Builder, options: &Options) -> Option<minimcp::Builder> {
    match options.profile {
        #[cfg(feature = "conformance")]
        cli::Profile::Conformance => Some(minimcp_toolsets::conformance::add(builder)),
        // The transcript corpus (conformance/) needs a few fixtures of its own; they stay out
        // of the conformance profile, which serves exactly what the official suite expects.
        #[cfg(feature = "conformance")]
        cli::Profile::Transcripts => Some(minimcp_toolsets::transcript::add(
            minimcp_toolsets::conformance::add(builder),
        )),
        #[cfg(feature = "workspace")]
        cli::Profile::Workspace => {
            // Without --root: the client's roots, else the working directory (which the
            // toolset refuses to serve when it is `/` or the home directory).
            let config = minimcp_toolsets::workspace::Config {
                roots: options.roots.clone(),
                fallback: if options.roots.is_empty() {
                    std::env::current_dir().ok()
                } else {
                    None
                },
                deny: Some(options.deny.clone()),
                deny_write: Some(options.deny_write.clone()),
                walk_time: options.walk_time,
                walk_entries: options.walk_entries,
                analysis_time: options.analysis_time,
                max_write_bytes: options.max_write_bytes,
            };
            match minimcp_toolsets::Options::new(&config) {
                Ok(shared) => Some(cli::registry::add_named(
                    builder,
                    &options.toolsets,
                    &shared,
                )),
                Err(e) => {
                    eprintln!("minimcp: {e}; pass --root DIR with an existing directory");
                    None
                }
            }
        }
        // The command line refuses a profile this binary was built without; kept for the
        // builds that leave one out (with every feature this arm is unreachable).
        #[allow(unreachable_patterns)]
        profile => {
            drop(builder);
            eprintln!("minimcp: {}", cli::missing_feature(profile.feature()));
            None
        }
    }
}
