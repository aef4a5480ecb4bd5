//! Many instances of the real binary: an `input_required` retry answered by
//! another process sharing `--state-key-file`, key rotation, the errors for a state sealed
//! with an unknown key, session ids that carry the balancer's routing key, `/healthz` for
//! any Host, and the access log. nginx in front of three instances: tests/many_instances.sh.

use std::io::{BufRead, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::Duration;

use serde_json::{json, Value};

mod common;

/// A running `minimcp serve --http 127.0.0.1:0`, killed on drop; its stderr lines arrive
/// on `stderr`.
struct Instance {
    child: Child,
    port: u16,
    stderr: Receiver<String>,
}

impl Instance {
    fn start(extra: &[&str]) -> Instance {
        let (child, port, stderr) =
            common::spawn_http(extra).unwrap_or_else(|e| panic!("not listening: {e}"));
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || {
            for line in stderr.lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        Instance {
            child,
            port,
            stderr: rx,
        }
    }

    /// Sends one request (`Connection: close`) and returns status, head and body.
    fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &str,
    ) -> (u16, String, Value) {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        let mut head = format!(
            "{method} {path} HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
            body.len()
        );
        if !headers.iter().any(|(n, _)| *n == "Host") {
            head.push_str("Host: 127.0.0.1\r\n");
        }
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        stream
            .write_all(format!("{head}\r\n{body}").as_bytes())
            .expect("write");
        let mut text = String::new();
        stream.read_to_string(&mut text).expect("read");
        let (head, body) = text.split_once("\r\n\r\n").expect("a head");
        let status = head
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .expect("status");
        (
            status,
            head.to_string(),
            serde_json::from_str(body).unwrap_or(Value::Null),
        )
    }

    /// A 2026-07-28 tools/call with the routing headers.
    fn call(&self, tool: &str, params: Value) -> Value {
        let mut params = params;
        params["name"] = json!(tool);
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}});
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
        let (status, _, reply) = self.request(
            "POST",
            "/mcp",
            &[
                ("MCP-Protocol-Version", "2026-07-28"),
                ("Mcp-Method", "tools/call"),
                ("Mcp-Name", tool),
            ],
            &body.to_string(),
        );
        assert_eq!(status, 200, "{reply}");
        reply
    }

    /// The next stderr line containing `needle` (within a few seconds).
    fn log_line(&self, needle: &str) -> String {
        loop {
            let line = self
                .stderr
                .recv_timeout(Duration::from_secs(5))
                .unwrap_or_else(|_| panic!("no stderr line with {needle:?}"));
            if line.contains(needle) {
                return line;
            }
        }
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A key file, removed on drop (the instances read it at start).
struct KeyFile(PathBuf);

impl KeyFile {
    fn new(name: &str, lines: &[&str]) -> KeyFile {
        let path =
            std::env::temp_dir().join(format!("minimcp-scale-{}-{name}.key", std::process::id()));
        std::fs::write(&path, lines.join("\n") + "\n").expect("write key");
        KeyFile(path)
    }

    fn path(&self) -> &str {
        self.0.to_str().expect("utf8")
    }
}

impl Drop for KeyFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

const OLD: &str = "b2xkLW9sZC1vbGQtb2xkLW9sZC1vbGQtb2xkLW9sZC1vbGQ=";
const NEW: &str = "bmV3LW5ldy1uZXctbmV3LW5ldy1uZXctbmV3LW5ldy1uZXc=";

/// The first round of test_elicitation: its `requestState` and the answers to send back.
fn first_round(on: &Instance) -> (Value, Value) {
    let first = on.call(
        "test_elicitation",
        json!({"arguments": {"message": "who?"}}),
    );
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    let answers: serde_json::Map<String, Value> = result["inputRequests"]
        .as_object()
        .expect("inputRequests")
        .keys()
        .map(|k| {
            let answer = json!({"action": "accept",
                "content": {"username": "ada", "email": "ada@example.org"}});
            (k.clone(), answer)
        })
        .collect();
    (result["requestState"].clone(), Value::Object(answers))
}

fn retry(on: &Instance, state: &Value, answers: &Value) -> Value {
    on.call(
        "test_elicitation",
        json!({"arguments": {"message": "who?"}, "requestState": state, "inputResponses": answers}),
    )
}

#[test]
fn an_input_required_retry_is_answered_by_any_instance_sharing_the_key() {
    let key = KeyFile::new("shared", &[OLD]);
    let a = Instance::start(&["--state-key-file", key.path()]);
    let b = Instance::start(&["--state-key-file", key.path()]);
    let (state, answers) = first_round(&a);
    let done = retry(&b, &state, &answers);
    assert!(
        done["result"]["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("ada@example.org")),
        "{done}"
    );

    // Rotation: an instance holding "NEW, then OLD" opens OLD's states and seals with NEW;
    // an instance holding OLD only cannot open those.
    let rotated_file = KeyFile::new("rotated", &[NEW, OLD]);
    let rotated = Instance::start(&["--state-key-file", rotated_file.path()]);
    let done = retry(&rotated, &state, &answers);
    assert!(done["result"]["content"][0]["text"].is_string(), "{done}");
    let (new_state, answers) = first_round(&rotated);
    let refused = retry(&a, &new_state, &answers);
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(
        message.contains("sealed with a key this server does not hold"),
        "{message}"
    );
}

#[test]
fn a_key_file_with_a_short_line_is_refused_at_start() {
    let key = KeyFile::new("short", &[OLD, "too-short"]);
    let out = Command::new(common::minimcp())
        .args(["serve", "--http", "127.0.0.1:0", "--state-key-file"])
        .arg(key.path())
        .stdin(Stdio::null())
        .output()
        .expect("run");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("line 2 holds fewer than 32 bytes"),
        "{stderr}"
    );
}

#[test]
fn session_ids_carry_the_balancers_routing_key() {
    let server = Instance::start(&["--session-route-header", "X-Mcp-Route"]);
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "scale-test", "version": "1"}}})
    .to_string();
    let route = "0f1e2d3c4b5a69788796a5b4c3d2e1f0";
    let (status, head, _) = server.request("POST", "/mcp", &[("X-Mcp-Route", route)], &init);
    assert_eq!(status, 200, "{head}");
    let id = head
        .lines()
        .find_map(|l| l.strip_prefix("Mcp-Session-Id: "))
        .expect("a session id");
    let (prefix, random) = id.split_once('.').expect("route.random");
    assert_eq!(prefix, route);
    assert_eq!(random.len(), 32);
    let (status, _, reply) = server.request("POST", "/mcp", &[("X-Mcp-Route", "NOT-HEX")], &init);
    assert_eq!(status, 400, "{reply}");
    // Another instance does not know the session: 404, the client initializes again.
    let other = Instance::start(&["--session-route-header", "X-Mcp-Route"]);
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string();
    let (status, _, _) = other.request("POST", "/mcp", &[("Mcp-Session-Id", id)], &list);
    assert_eq!(status, 404);
}

#[test]
fn healthz_answers_any_host_and_requests_are_logged_without_their_arguments() {
    let server = Instance::start(&["--access-log", "--instance-id", "i7"]);
    let (status, _, _) = server.request("GET", "/mcp", &[("Host", "10.1.2.3:8080")], "");
    assert_eq!(status, 403, "/mcp checks Host");
    let foreign = [("Host", "10.1.2.3:8080"), ("Origin", "http://lb.example")];
    let (status, _, _) = server.request("GET", "/healthz", &foreign, "");
    assert_eq!(status, 200);
    let line = server.log_line("access:");
    // `… 403 55us req=1`: the time, then the request's number (its request line's too).
    let (_, tail) = line.rsplit_once(' ').expect("fields");
    assert!(
        tail.starts_with("req=") && tail[4..].parse::<u64>().is_ok(),
        "{line}"
    );
    assert!(
        line.trim_end_matches(tail).trim_end().ends_with("us"),
        "{line}"
    );
    assert!(line.contains("access: i7 GET /mcp - 403 "), "{line}");
    let line = server.log_line("access:");
    assert!(line.contains("access: i7 GET /healthz - 200 "), "{line}");
    server.call("echo", json!({"arguments": {"text": "SECRET-ARGUMENT"}}));
    let line = server.log_line("access:");
    assert!(
        line.contains("access: i7 POST /mcp tools/call 200 "),
        "{line}"
    );
    assert!(!line.contains("SECRET") && !line.contains("echo"), "{line}");
}
