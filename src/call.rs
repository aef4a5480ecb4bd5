//! `minimcp call`: one in-process session, one request, its result printed.

use std::io::{Cursor, IsTerminal, Write};
use std::process::ExitCode;

use minimcp::{Server, Version};
use serde_json::{json, Value};

use crate::cli::Output;
use crate::print;
use crate::progress::Progress;

/// Collects what the in-process server writes and, when `live`, shows each progress
/// notification as it comes on one rewritten stderr line: its message (counts such as files
/// done), the elapsed time, and the rate when the server reports a count.
struct ProgressLine {
    output: Vec<u8>,
    /// Where the next unread line of `output` starts.
    scanned: usize,
    line: Progress,
}

impl ProgressLine {
    fn new(live: bool) -> Self {
        ProgressLine {
            output: Vec::new(),
            scanned: 0,
            line: Progress::new(live),
        }
    }

    /// Everything the server wrote; the progress line, if any, is ended first.
    fn finish(mut self) -> Vec<u8> {
        self.line.finish();
        self.output
    }

    fn show_new_lines(&mut self) {
        while let Some(end) = self.output[self.scanned..].iter().position(|&b| b == b'\n') {
            let line = &self.output[self.scanned..self.scanned + end];
            self.scanned += end + 1;
            if !self.line.is_live() || !line.windows(22).any(|w| w == b"notifications/progress") {
                continue;
            }
            let Ok(message) = serde_json::from_slice::<Value>(line) else {
                continue;
            };
            let params = &message["params"];
            let done = params["progress"].as_f64().unwrap_or(0.0);
            let what = params["message"].as_str().map_or_else(
                || match params["total"].as_f64() {
                    Some(total) => format!("{done}/{total}"),
                    None => format!("{done}"),
                },
                str::to_string,
            );
            self.line.show(&what, done, false);
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
pub(crate) fn call(
    server: &Server,
    target: &str,
    params: Value,
    version: Version,
    format: Output,
) -> ExitCode {
    let (method, params) = if target.contains('/') {
        (target.to_string(), params)
    } else {
        (
            "tools/call".to_string(),
            json!({ "name": target, "arguments": params }),
        )
    };
    // A person watching a terminal sees how a long call goes; a script's stderr stays quiet.
    let live = std::io::stderr().is_terminal();
    let answer = match exchange(server, &method, params, version, live) {
        Ok(answer) => answer,
        Err(code) => return code,
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

/// Sends `method` with `params` to `server` in-process, after the handshake (or, for
/// 2026-07-28, with per-request `_meta`), and returns the response. Notifications the
/// server sends go to stderr; progress is shown on one stderr line when `live`. `Err`:
/// the exit status, the reason already on stderr.
pub(crate) fn exchange(
    server: &Server,
    method: &str,
    mut params: Value,
    version: Version,
    live: bool,
) -> Result<Value, ExitCode> {
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
        return Err(ExitCode::FAILURE);
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
                return Err(ExitCode::FAILURE);
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
    answer.ok_or_else(|| {
        eprintln!("minimcp: the server sent no response");
        ExitCode::FAILURE
    })
}
