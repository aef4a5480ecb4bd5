//! One MCP session over stdio with the server under test (minimcp, or the reference
//! filesystem server), making the calls a model would make.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Value};

use super::judge::Reply;
use crate::common::{Out, Peer};

/// How long one call may take before the run fails (a file of megabytes on a slow server).
const CALL_TIMEOUT: Duration = Duration::from_secs(120);

/// Which server, for the few things their tools do differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// minimcp: relative paths, `old_text`/`new_text`, a session that remembers reads.
    Minimcp,
    /// `@modelcontextprotocol/server-filesystem`: absolute paths, `oldText`/`newText`.
    Reference,
}

/// A running session.
pub(crate) struct Client {
    peer: Peer,
    kind: Kind,
    root: PathBuf,
    next_id: u64,
    tools: Vec<String>,
}

impl Client {
    /// Starts `program args…` (the root is among `args`) and completes the handshake.
    pub(crate) fn start(kind: Kind, program: &str, args: &[String], root: &Path) -> Client {
        let peer = Peer::spawn(program, args)
            .unwrap_or_else(|e| panic!("cannot start {program} {args:?}: {e}"));
        let mut client = Client {
            peer,
            kind,
            root: root.to_path_buf(),
            next_id: 0,
            tools: Vec::new(),
        };
        let init = client.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "edit-bench", "version": "1"}}),
        );
        assert!(init.get("result").is_some(), "initialize failed: {init}");
        client
            .peer
            .send_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        let list = client.request("tools/list", json!({}));
        client.tools = list["result"]["tools"]
            .as_array()
            .map(|tools| {
                tools
                    .iter()
                    .filter_map(|t| t["name"].as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        assert!(
            client.has("edit_file"),
            "{program} lists no edit_file: {list}"
        );
        client
    }

    /// Whether the server lists `tool`.
    pub(crate) fn has(&self, tool: &str) -> bool {
        self.tools.iter().any(|t| t == tool)
    }

    /// Sends a request and waits for its response (anything else in between is ignored).
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.peer.send_line(&line.to_string());
        loop {
            match self.peer.recv(CALL_TIMEOUT) {
                Ok(Out::Line(bytes)) => {
                    let Ok(message) = serde_json::from_slice::<Value>(&bytes) else {
                        continue;
                    };
                    if message["id"] == json!(id) && message.get("method").is_none() {
                        return message;
                    }
                }
                Ok(Out::Partial(_) | Out::Eof) => panic!(
                    "the server ended during {method}; its stderr:\n{}",
                    self.peer.stderr_text()
                ),
                Err(_) => panic!(
                    "no answer to {method} within {CALL_TIMEOUT:?}; stderr:\n{}",
                    self.peer.stderr_text()
                ),
            }
        }
    }

    /// Calls `tool`; a JSON-RPC error counts as a refusal with its message.
    pub(crate) fn call(&mut self, tool: &str, arguments: Value) -> Reply {
        let response = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        if let Some(error) = response.get("error") {
            return Reply {
                is_error: true,
                text: error["message"].as_str().unwrap_or_default().to_string(),
            };
        }
        let result = &response["result"];
        let text = result["content"]
            .as_array()
            .map(|items| {
                items
                    .iter()
                    .filter_map(|c| c["text"].as_str())
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_default();
        Reply {
            is_error: result["isError"].as_bool().unwrap_or(false),
            text,
        }
    }

    /// The path argument for `rel` (a path below the root).
    fn path(&self, rel: &str) -> String {
        match self.kind {
            Kind::Minimcp => rel.to_string(),
            Kind::Reference => self.root.join(rel).to_string_lossy().into_owned(),
        }
    }

    /// `edit_file` with one replacement.
    pub(crate) fn edit(&mut self, rel: &str, old: &str, new: &str) -> Reply {
        let edit = match self.kind {
            Kind::Minimcp => json!({"old_text": old, "new_text": new}),
            Kind::Reference => json!({"oldText": old, "newText": new}),
        };
        let path = self.path(rel);
        self.call("edit_file", json!({"path": path, "edits": [edit]}))
    }

    /// Reads `rel` as a model would after putting a file back by hand: minimcp refuses to
    /// edit a file that changed since this session last saw it.
    pub(crate) fn reread(&mut self, rel: &str) {
        if self.kind == Kind::Minimcp {
            let reply = self.call("read_file", json!({"path": rel, "limit": 1}));
            assert!(!reply.is_error, "read_file {rel}: {}", reply.text);
        }
    }

    /// `apply_patch` with `patch` (the tool of minimcp's edit toolset).
    pub(crate) fn apply_patch(&mut self, patch: &str) -> Reply {
        self.call("apply_patch", json!({"patch": patch}))
    }

    /// Ends the session.
    pub(crate) fn stop(mut self) {
        self.peer.close();
        let _ = self.peer.wait_exit(Duration::from_secs(10));
    }
}
