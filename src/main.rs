//! The `minimcp` binary: `serve` (the default) runs one MCP session on stdin/stdout;
//! `call` runs one in-process session and prints the result.
#![forbid(unsafe_code)]

mod cli;
mod keyfile;

use std::io::{Cursor, IsTerminal, Write};
use std::process::ExitCode;

use minimcp::{log, Server, Version};
use serde_json::{json, Value};

use cli::{Command, Options, Output};

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
        Command::Serve(options) => {
            let Some(server) = build(&options) else {
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
        Command::Call {
            options,
            target,
            params,
            version,
            output,
        } => {
            let Some(server) = build(&options) else {
                return ExitCode::from(2);
            };
            call(&server, &target, params, version, output)
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
    match minimcp::http::serve(server, config) {
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

/// Writes text meant for the user to stdout (help, version, `call` results; never while
/// serving, when stdout carries protocol messages only).
fn print(text: &str) -> ExitCode {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => ExitCode::FAILURE,
    }
}

fn build(options: &Options) -> Option<Server> {
    log::set_level(options.log_level);
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
        cli::Profile::Conformance => Some(minimcp::toolsets::conformance::add(builder)),
        // The transcript corpus (conformance/) needs a few fixtures of its own; they stay out
        // of the conformance profile, which serves exactly what the official suite expects.
        #[cfg(feature = "conformance")]
        cli::Profile::Transcripts => Some(minimcp::toolsets::transcript::add(
            minimcp::toolsets::conformance::add(builder),
        )),
        #[cfg(feature = "workspace")]
        cli::Profile::Workspace => {
            // Without --root: the client's roots, else the working directory (which the
            // toolset refuses to serve when it is `/` or the home directory).
            let config = minimcp::toolsets::workspace::Config {
                roots: options.roots.clone(),
                fallback: if options.roots.is_empty() {
                    std::env::current_dir().ok()
                } else {
                    None
                },
                deny: Some(options.deny.clone()),
                walk_time: options.walk_time,
                walk_entries: options.walk_entries,
                analysis_time: options.analysis_time,
                max_write_bytes: options.max_write_bytes,
            };
            match minimcp::toolsets::Options::new(&config) {
                Ok(shared) => Some(minimcp::toolsets::add_named(
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

/// Collects what the in-process server writes and, when `live`, shows each progress
/// notification as it comes on one rewritten stderr line: its message (counts such as files
/// done), the elapsed time, and the rate when the server reports a count.
struct ProgressLine {
    output: Vec<u8>,
    /// Where the next unread line of `output` starts.
    scanned: usize,
    live: bool,
    started: std::time::Instant,
    shown: bool,
}

impl ProgressLine {
    fn new(live: bool) -> Self {
        ProgressLine {
            output: Vec::new(),
            scanned: 0,
            live,
            started: std::time::Instant::now(),
            shown: false,
        }
    }

    /// Everything the server wrote; the progress line, if any, is ended first.
    fn finish(self) -> Vec<u8> {
        if self.shown {
            eprintln!();
        }
        self.output
    }

    fn show_new_lines(&mut self) {
        while let Some(end) = self.output[self.scanned..].iter().position(|&b| b == b'\n') {
            let line = &self.output[self.scanned..self.scanned + end];
            self.scanned += end + 1;
            if !self.live || !line.windows(22).any(|w| w == b"notifications/progress") {
                continue;
            }
            let Ok(message) = serde_json::from_slice::<Value>(line) else {
                continue;
            };
            let params = &message["params"];
            let seconds = self.started.elapsed().as_secs_f64();
            let done = params["progress"].as_f64().unwrap_or(0.0);
            let what = params["message"].as_str().map_or_else(
                || match params["total"].as_f64() {
                    Some(total) => format!("{done}/{total}"),
                    None => format!("{done}"),
                },
                str::to_string,
            );
            let rate = if seconds > 0.0 && done > 0.0 {
                format!(", {:.0}/s", done / seconds)
            } else {
                String::new()
            };
            // `\r` and clear-to-end: the same line, rewritten.
            eprint!("\r\x1b[Kminimcp: {what} ({seconds:.1} s{rate})");
            self.shown = true;
        }
    }
}

impl Write for ProgressLine {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.output.extend_from_slice(data);
        self.show_new_lines();
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A response as a person reads it: a tool result's content blocks as text (images and
/// other binary content named, not dumped), an error as its message. `None` for other
/// results, which have no text form and are printed as JSON.
fn readable(answer: &Value) -> Option<String> {
    if let Some(error) = answer.get("error") {
        let message = error["message"].as_str().unwrap_or("unknown error");
        return Some(format!("error {}: {message}\n", error["code"]));
    }
    let content = answer["result"].get("content")?.as_array()?;
    let mut out = String::new();
    for block in content {
        let kind = block["type"].as_str().unwrap_or("");
        let piece = match kind {
            "text" => block["text"].as_str().unwrap_or("").to_string(),
            "resource" => {
                let resource = &block["resource"];
                let uri = resource["uri"].as_str().unwrap_or("");
                match resource["text"].as_str() {
                    Some(text) => format!("{uri}:\n{text}"),
                    None => format!("[{uri}: binary, as base64 in the JSON (--json)]"),
                }
            }
            "resource_link" => format!("[{}]", block["uri"].as_str().unwrap_or("")),
            other => format!(
                "[{other} {}, {} bytes of base64 in the JSON (--json)]",
                block["mimeType"].as_str().unwrap_or(""),
                block["data"].as_str().map_or(0, str::len)
            ),
        };
        out.push_str(&piece);
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
    Some(out)
}

/// Runs one session in-process: the handshake (or, for 2026-07-28, per-request `_meta`),
/// one request, and prints its result. Notifications the server sends go to stderr.
fn call(
    server: &Server,
    target: &str,
    params: Value,
    version: Version,
    format: Output,
) -> ExitCode {
    let (method, mut params) = if target.contains('/') {
        (target.to_string(), params)
    } else {
        (
            "tools/call".to_string(),
            json!({ "name": target, "arguments": params }),
        )
    };
    let client = json!({ "name": "minimcp-call", "version": env!("CARGO_PKG_VERSION") });
    let mut input = String::new();
    if version.is_stateless() {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": version.as_str(),
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": client,
            "io.modelcontextprotocol/logLevel": "info",
        });
    } else {
        let initialize = json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": { "protocolVersion": version.as_str(), "capabilities": {}, "clientInfo": client },
        });
        input.push_str(&format!(
            "{initialize}\n{}\n",
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
        ));
    }
    // A person watching a terminal sees how a long call goes; a script's stderr stays quiet.
    let live = std::io::stderr().is_terminal();
    if live {
        params["_meta"]["progressToken"] = json!("minimcp-call");
    }
    input.push_str(&format!(
        "{}\n",
        json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params })
    ));

    let mut progress = ProgressLine::new(live);
    if let Err(e) = minimcp::serve(server, Cursor::new(input.into_bytes()), &mut progress) {
        eprintln!("minimcp: {e}");
        return ExitCode::FAILURE;
    }
    let output = progress.finish();
    let mut answer = None;
    for line in String::from_utf8_lossy(&output).lines() {
        let Ok(message) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        match message.get("id") {
            Some(id) if *id == json!(1) => answer = Some(message),
            Some(_) if message.get("error").is_some() => {
                eprintln!("minimcp: initialize failed: {}", message["error"]);
                return ExitCode::FAILURE;
            }
            Some(_) => {}
            // Shown while the call ran (on a terminal), never afterwards.
            None if message["method"] == "notifications/progress" => {}
            None => eprintln!(
                "{}: {}",
                message["method"].as_str().unwrap_or("message"),
                message["params"]
            ),
        }
    }
    let Some(answer) = answer else {
        eprintln!("minimcp: the server sent no response");
        return ExitCode::FAILURE;
    };
    let failed = answer.get("error").is_some() || answer["result"]["isError"] == json!(true);
    let shown = answer
        .get("result")
        .or(answer.get("error"))
        .unwrap_or(&answer);
    let as_text = match format {
        Output::Text => true,
        Output::Json => false,
        Output::Auto => std::io::stdout().is_terminal(),
    };
    let text = match as_text.then(|| readable(&answer)).flatten() {
        Some(text) => text,
        None => serde_json::to_string_pretty(shown).unwrap_or_default() + "\n",
    };
    match (print(&text), failed) {
        (ExitCode::SUCCESS, false) => ExitCode::SUCCESS,
        _ => ExitCode::FAILURE,
    }
}
