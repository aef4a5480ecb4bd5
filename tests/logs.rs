//! What the log says about requests, through the real binary: one line per request at
//! `info`, with an RFC 3339 UTC timestamp, the session, the method, the tool (or prompt, or a
//! resource's scheme), the duration and the outcome; the same request number on the request's
//! line and its HTTP access line; `--log-format json` as one JSON object per line. And what it
//! never says: secrets planted in tool and prompt arguments, in a resource URI, in a file's
//! contents and in the bearer token appear nowhere in stderr, at `--log-level debug` (the most
//! it writes) in both formats.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

const ARGUMENT_SECRET: &str = "arg-s3cret-7f1c";
const CONTENT_SECRET: &str = "content-s3cret-92aa";
const TOKEN_SECRET: &str = "token-s3cret-0b5e-long-enough";

fn scratch() -> common::scratch::Scratch {
    let dir = common::scratch::Scratch::new("logs");
    dir.file("notes.txt", format!("line one\n{CONTENT_SECRET}\n"));
    dir
}

/// The requests of one session after `initialize`, each with what its line must say:
/// (method, name, outcome).
fn workload() -> Vec<(Value, &'static str, Option<&'static str>, &'static str)> {
    let call = |name: &str, arguments: Value| json!({"name": name, "arguments": arguments});
    vec![
        (
            json!({"method": "tools/call", "params": call("read_file", json!({"path": "notes.txt"}))}),
            "tools/call",
            Some("read_file"),
            "result",
        ),
        (
            json!({"method": "tools/call", "params": call("search_text", json!({"query": ARGUMENT_SECRET}))}),
            "tools/call",
            Some("search_text"),
            "result",
        ),
        (
            json!({"method": "tools/call", "params": call("read_file", json!({"path": format!("{ARGUMENT_SECRET}/x")}))}),
            "tools/call",
            Some("read_file"),
            "tool_error",
        ),
        (
            json!({"method": "tools/call", "params": call(&format!("tool-{ARGUMENT_SECRET}"), json!({}))}),
            "tools/call",
            Some("?"),
            "error",
        ),
        (
            json!({"method": "tools/call", "params": call("read_file", json!({"path": 7, "other": ARGUMENT_SECRET}))}),
            "tools/call",
            Some("read_file"),
            "tool_error",
        ),
        (
            json!({"method": "prompts/get", "params": {"name": "explain_file", "arguments": {"path": ARGUMENT_SECRET}}}),
            "prompts/get",
            Some("explain_file"),
            "error",
        ),
        (
            json!({"method": "resources/read", "params": {"uri": format!("file:///{ARGUMENT_SECRET}.txt")}}),
            "resources/read",
            Some("file:"),
            "error",
        ),
        (
            json!({"method": "tools/list"}),
            "tools/list",
            None,
            "result",
        ),
    ]
}

/// The request lines of a JSON-format log, parsed; every line of it must be JSON with a
/// timestamp.
fn json_lines(stderr: &str) -> Vec<Value> {
    let mut requests = Vec::new();
    for line in stderr.lines() {
        let value: Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        let ts = value["ts"]
            .as_str()
            .unwrap_or_else(|| panic!("no ts: {line}"));
        assert!(is_rfc3339_utc(ts), "{ts}");
        assert!(value["level"].is_string(), "{line}");
        if value["event"] == "request" {
            requests.push(value);
        }
    }
    requests
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ`, checked field by field.
fn is_rfc3339_utc(ts: &str) -> bool {
    let b = ts.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    b.len() == 24
        && digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && b[10] == b'T'
        && digits(11..13)
        && b[13] == b':'
        && digits(14..16)
        && b[16] == b':'
        && digits(17..19)
        && b[19] == b'.'
        && digits(20..23)
        && b[23] == b'Z'
}

fn assert_no_secret(stderr: &str) {
    for secret in [ARGUMENT_SECRET, CONTENT_SECRET, TOKEN_SECRET] {
        assert!(
            !stderr.contains(secret),
            "the log holds {secret}:\n{stderr}"
        );
    }
}

#[test]
fn stdio_logs_each_request_once_as_json_and_no_secret() {
    let dir = scratch();
    let root = dir.str().to_string();
    let mut child = Command::new(common::minimcp())
        .args([
            "serve",
            "--root",
            &root,
            "--log-level",
            "debug",
            "--log-format",
            "json",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut input = String::new();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "logs", "version": "1"}}});
    input.push_str(&format!(
        "{init}\n{}\n",
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    ));
    let work = workload();
    for (i, (request, ..)) in work.iter().enumerate() {
        let mut message = request.clone();
        message["jsonrpc"] = json!("2.0");
        message["id"] = json!(i + 1);
        input.push_str(&format!("{message}\n"));
    }
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("runs");
    let stdout = String::from_utf8(out.stdout).expect("utf-8");
    assert!(
        stdout.contains(CONTENT_SECRET),
        "read_file answered with the file"
    );
    assert_eq!(stdout.lines().count(), work.len() + 1);
    let stderr = String::from_utf8(out.stderr).expect("utf-8");
    assert_no_secret(&stderr);
    let lines = json_lines(&stderr);
    assert_eq!(
        lines.len(),
        work.len() + 1,
        "one line per request:\n{stderr}"
    );
    assert_eq!(lines[0]["method"], "initialize");
    let session = lines[0]["session"].as_u64().expect("a session number");
    for (i, (line, (_, method, name, outcome))) in lines[1..].iter().zip(&work).enumerate() {
        assert_eq!(line["id"], json!(i + 1), "{line}");
        assert_eq!(line["session"], json!(session), "{line}");
        assert_eq!(line["method"], *method, "{line}");
        assert_eq!(line["name"].as_str(), *name, "{line}");
        assert_eq!(line["outcome"], *outcome, "{line}");
        assert!(line["took_us"].as_u64().is_some(), "{line}");
        assert_eq!(line.get("code").is_some(), *outcome == "error", "{line}");
        assert!(
            line.get("req").is_none(),
            "no HTTP request number over stdio: {line}"
        );
    }
}

/// Sends one POST over a fresh connection; the response's head and body.
fn post(port: u16, body: &Value, session: Option<&str>) -> (String, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let body = body.to_string();
    let session = session
        .map(|s| format!("Mcp-Session-Id: {s}\r\nMCP-Protocol-Version: 2025-11-25\r\n"))
        .unwrap_or_default();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {TOKEN_SECRET}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{session}Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream
        .write_all(head.as_bytes())
        .and_then(|()| stream.write_all(body.as_bytes()))
        .expect("send");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("read");
    let (head, body) = response.split_once("\r\n\r\n").expect("a head");
    (head.to_string(), body.to_string())
}

#[test]
fn http_request_lines_carry_their_access_lines_number_and_no_secret() {
    let dir = scratch();
    let token = dir.path().join("token");
    std::fs::write(&token, format!("{TOKEN_SECRET}\n")).expect("token file");
    let root = dir.str().to_string();
    let mut child = Command::new(common::minimcp())
        .args([
            "serve",
            "--root",
            &root,
            "--http",
            "127.0.0.1:0",
            "--log-level",
            "debug",
        ])
        .arg("--token-file")
        .arg(&token)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
    let mut first = String::new();
    stderr.read_line(&mut first).expect("the listening line");
    let port: u16 = first
        .split("http://127.0.0.1:")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no port in {first}"));
    // The rest of the log, as it comes.
    let log = std::sync::Arc::new(std::sync::Mutex::new(first));
    let sink = std::sync::Arc::clone(&log);
    let reader = std::thread::spawn(move || {
        for line in stderr.lines().map_while(Result::ok) {
            let mut log = sink.lock().expect("lock");
            log.push_str(&line);
            log.push('\n');
        }
    });
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "logs", "version": "1"}}});
    let (head, _) = post(port, &init, None);
    let session = head
        .lines()
        .find_map(|l| {
            l.strip_prefix("mcp-session-id: ")
                .or_else(|| l.strip_prefix("Mcp-Session-Id: "))
        })
        .expect("a session id")
        .to_string();
    post(
        port,
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        Some(&session),
    );
    let work = workload();
    for (i, (request, ..)) in work.iter().enumerate() {
        let mut message = request.clone();
        message["jsonrpc"] = json!("2.0");
        message["id"] = json!(i + 1);
        let (_, body) = post(port, &message, Some(&session));
        assert!(
            body.contains("\"result\"") || body.contains("\"error\""),
            "{body}"
        );
    }
    // A response is out before its access line is written: wait for every line.
    let expected = work.len() + 2; // initialize and notifications/initialized too
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while log
        .lock()
        .expect("lock")
        .matches(" minimcp: access: POST ")
        .count()
        < expected
        && std::time::Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    let _ = reader.join();
    let log = std::mem::take(&mut *log.lock().expect("lock"));
    assert_no_secret(&log);
    assert!(
        !log.contains(&session),
        "the session id is a credential: never logged"
    );
    // Every request line's number is that of exactly one access line of the same method.
    let field = |line: &str, key: &str| -> Option<String> {
        line.split(' ')
            .find_map(|w| w.strip_prefix(&format!("{key}=")).map(str::to_string))
    };
    let requests: Vec<&str> = log
        .lines()
        .filter(|l| l.contains(" minimcp: request: "))
        .collect();
    assert_eq!(
        requests.len(),
        work.len() + 1,
        "one line per request:\n{log}"
    );
    for line in &requests {
        let ts = line.split(' ').next().unwrap_or_default();
        assert!(is_rfc3339_utc(ts), "{line}");
        let req = field(line, "req").expect("req=");
        let method = field(line, "method").expect("method=");
        let access: Vec<&str> = log
            .lines()
            .filter(|l| l.contains(" minimcp: access: ") && l.ends_with(&format!(" req={req}")))
            .collect();
        assert_eq!(access.len(), 1, "{line}: {access:?}");
        assert!(
            access[0].contains(&format!(" POST /mcp {method} 200 ")),
            "{}",
            access[0]
        );
        assert!(
            field(line, "session").is_some_and(|s| s.parse::<u64>().is_ok()),
            "{line}"
        );
        assert!(
            field(line, "took").is_some_and(|t| t.ends_with("us")),
            "{line}"
        );
    }
    let read = requests
        .iter()
        .find(|l| l.contains("name=read_file"))
        .expect("read_file's line");
    assert!(read.ends_with("outcome=result"), "{read}");
}
