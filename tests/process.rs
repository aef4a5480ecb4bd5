//! The real binary over real pipes: end of input, a closed stdout, oversized and malformed
//! lines, and a stdout that carries nothing but protocol messages.

mod common;

use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"process-test","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

struct Outcome {
    stdout: Vec<Value>,
    stderr: String,
    code: Option<i32>,
    elapsed_after_close: Duration,
}

/// Runs the binary with `args`, writes `input`, closes stdin, and collects everything.
fn session(args: &[&str], input: &[u8]) -> Outcome {
    let mut child = Command::new(common::minimcp())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn minimcp");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        stdout.read_to_end(&mut out).expect("read stdout");
        out
    });
    stdin.write_all(input).expect("write stdin");
    drop(stdin);
    let closed = Instant::now();
    let status = child.wait().expect("wait");
    let elapsed_after_close = closed.elapsed();
    let stderr = stderr_of(&mut child);
    let raw = reader.join().expect("reader");
    let text = String::from_utf8(raw).expect("stdout is UTF-8");
    assert!(
        text.is_empty() || text.ends_with('\n'),
        "every message ends with a newline"
    );
    let stdout = text
        .lines()
        .map(|line| {
            let message: Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line:?}"));
            let single = message
                .as_array()
                .and_then(|a| a.first())
                .unwrap_or(&message);
            assert_eq!(
                single["jsonrpc"], "2.0",
                "stdout carries JSON-RPC only: {line}"
            );
            message
        })
        .collect();
    Outcome {
        stdout,
        stderr,
        code: status.code(),
        elapsed_after_close,
    }
}

/// Everything the server wrote to stderr (read after it exited).
fn stderr_of(child: &mut Child) -> String {
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut stderr)
        .expect("read stderr");
    stderr
}

fn lines(lines: &[&str]) -> Vec<u8> {
    lines
        .iter()
        .flat_map(|l| format!("{l}\n").into_bytes())
        .collect()
}

#[test]
fn end_of_input_flushes_and_exits_zero() {
    let out = session(
        &["--profile", "conformance"],
        &lines(&[
            INIT,
            INITIALIZED,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        ]),
    );
    assert_eq!(out.code, Some(0));
    assert_eq!(out.stdout.len(), 2);
    assert_eq!(
        out.stdout[1],
        json!({"jsonrpc": "2.0", "id": 1, "result": {}})
    );
    assert!(out.elapsed_after_close < Duration::from_secs(2));
}

#[test]
fn empty_input_is_a_clean_exit() {
    let out = session(&["--profile", "conformance"], b"");
    assert_eq!(out.code, Some(0));
    assert!(out.stdout.is_empty());
}

#[test]
fn a_last_line_without_newline_is_still_answered() {
    let mut input = lines(&[INIT]);
    input.extend_from_slice(br#"{"jsonrpc":"2.0","id":"last","method":"ping"}"#);
    let out = session(&["--profile", "conformance"], &input);
    assert_eq!(
        out.stdout.last(),
        Some(&json!({"jsonrpc": "2.0", "id": "last", "result": {}}))
    );
}

#[test]
fn crlf_bom_and_blank_lines_are_accepted() {
    let mut input = b"\xEF\xBB\xBF".to_vec();
    input.extend_from_slice(INIT.as_bytes());
    input.extend_from_slice(b"\r\n\r\n   \n");
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n");
    let out = session(&["--profile", "conformance"], &input);
    assert_eq!(out.stdout.len(), 2, "{:?}", out.stdout);
    assert_eq!(out.stdout[1]["id"], 1);
}

#[test]
fn invalid_utf8_is_a_parse_error_and_the_session_continues() {
    let mut input = lines(&[INIT]);
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\xfe\"}\n");
    input.extend_from_slice(&lines(&[r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#]));
    let out = session(&["--profile", "conformance"], &input);
    assert_eq!(out.stdout[1]["error"]["code"], -32700);
    assert!(
        out.stdout[1].get("id").is_none(),
        "2025-11-25 omits an unreadable id"
    );
    assert_eq!(out.stdout[2]["id"], 2);
}

#[test]
fn an_oversized_line_is_skipped_answered_and_survived() {
    let huge = format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{}"}}}}}}"#,
        "a".repeat(3 << 20)
    );
    let input = lines(&[INIT, &huge, r#"{"jsonrpc":"2.0","id":8,"method":"ping"}"#]);
    let out = session(
        &["--profile", "conformance", "--max-message-bytes", "65536"],
        &input,
    );
    assert_eq!(out.code, Some(0));
    assert_eq!(
        out.stdout[1]["id"], 7,
        "the id is recovered from the start of the line"
    );
    assert_eq!(out.stdout[1]["error"]["code"], -32600);
    assert!(out.stdout[1]["error"]["message"]
        .as_str()
        .unwrap_or("")
        .contains("--max-message-bytes"));
    assert_eq!(
        out.stdout[2],
        json!({"jsonrpc": "2.0", "id": 8, "result": {}})
    );
}

#[test]
fn stdout_stays_clean_with_debug_logging() {
    let input = lines(&[
        INIT,
        INITIALIZED,
        "not json",
        r#"{"jsonrpc":"2.0","method":"x","params":1}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
    ]);
    let out = session(
        &["--profile", "conformance", "--log-level", "debug"],
        &input,
    );
    assert_eq!(
        out.stdout.len(),
        3,
        "every stdout line was checked to be JSON-RPC"
    );
    assert!(
        out.stderr.contains("minimcp: debug:"),
        "diagnostics go to stderr: {}",
        out.stderr
    );
}

#[test]
fn a_closed_stdout_ends_the_session_quietly() {
    let mut child = Command::new(common::minimcp())
        .args(["--profile", "conformance"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().expect("stdin");
    // The server stops reading once it notices; later writes may fail, which is fine.
    let _ = stdin.write_all(&lines(&[INIT]));
    for i in 0..2000 {
        if stdin
            .write_all(
                format!("{{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"ping\"}}\n").as_bytes(),
            )
            .is_err()
        {
            break;
        }
    }
    drop(stdin);
    let status = child.wait().expect("wait");
    let stderr = stderr_of(&mut child);
    assert_eq!(status.code(), Some(0), "stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.lines().count() <= 2, "no error storm: {stderr}");
}

#[test]
fn call_runs_one_session_and_prints_the_result() {
    let out = Command::new(common::minimcp())
        .args([
            "call",
            "echo",
            r#"{"text":"from call"}"#,
            "--profile",
            "conformance",
        ])
        .output()
        .expect("run");
    assert!(out.status.success());
    let result: Value = serde_json::from_slice(&out.stdout).expect("pretty JSON result");
    assert_eq!(result["content"][0]["text"], "from call");

    let out = Command::new(common::minimcp())
        .args(["call", "echo", "{}", "--profile", "conformance"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1), "an isError result exits 1");

    let out = Command::new(common::minimcp())
        .args([
            "call",
            "tools/list",
            "--profile",
            "conformance",
            "--protocol",
            "2026-07-28",
        ])
        .output()
        .expect("run");
    let result: Value = serde_json::from_slice(&out.stdout).expect("result");
    assert_eq!(result["resultType"], "complete");

    // Through a pipe the result is JSON (above); `--text` prints what a person reads: the
    // tool's text as text, an error as its code and message.
    let text = |args: &[&str]| {
        let out = Command::new(common::minimcp())
            .args(args)
            .output()
            .expect("run");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (code, shown) = text(&[
        "call",
        "echo",
        r#"{"text":"a \"quoted\"\nline"}"#,
        "--profile",
        "conformance",
        "--text",
    ]);
    assert_eq!((code, shown.as_str()), (Some(0), "a \"quoted\"\nline\n"));
    let (code, shown) = text(&["call", "ehco", "{}", "--profile", "conformance", "--text"]);
    assert_eq!(code, Some(1));
    assert!(
        shown.starts_with("error -32602: ") && shown.contains("did you mean \"echo\"?"),
        "{shown}"
    );
    let (_, shown) = text(&["call", "tools/list", "--profile", "conformance", "--text"]);
    assert!(
        serde_json::from_str::<Value>(&shown).is_ok(),
        "a result with no text form stays JSON: {shown}"
    );
}

#[test]
fn help_version_and_usage_errors() {
    let output = |args: &[&str]| {
        let out = Command::new(common::minimcp())
            .args(args)
            .output()
            .expect("run");
        assert!(out.status.success(), "{args:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    // `--help` names the commands and where each one's flags are explained.
    let top = output(&["--help"]);
    for word in ["serve", "call", "analyze", "churn", "COMMAND --help"] {
        assert!(top.contains(word), "--help names {word}");
    }
    let serve = output(&["serve", "--help"]);
    for flag in [
        "--root",
        "--log-level",
        "--max-message-bytes",
        "--max-response-bytes",
        "--rate-limit",
        "--request-timeout",
        "--profile",
    ] {
        assert!(serve.contains(flag), "serve --help explains {flag}");
    }
    let version = output(&["--version"]);
    assert!(
        version.starts_with(&format!("minimcp {}\ncommit: ", env!("CARGO_PKG_VERSION"))),
        "{version}"
    );
    let bad = Command::new(common::minimcp())
        .arg("--max-message-bytes=1")
        .output()
        .expect("run");
    assert_eq!(bad.status.code(), Some(2));
    assert!(bad.stdout.is_empty(), "usage errors go to stderr");
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--max-message-bytes"));
}

#[test]
fn at_a_terminal_it_says_what_it_waits_for_and_through_pipes_it_does_not() {
    let root = std::env::temp_dir();
    let root = root.to_str().expect("utf-8 temp dir");
    // Through pipes (a client): nothing but the usual log lines.
    let piped = session(&["--root", root], b"");
    assert!(
        !piped.stderr.contains("waiting for an MCP client"),
        "{}",
        piped.stderr
    );
    // At a terminal: `script` gives the binary a pseudo-terminal as stdin (util-linux).
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("SKIPPED: no `script` (util-linux) to give the binary a terminal");
        return;
    }
    let command = format!("{} --root {root}", common::minimcp());
    let mut child = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn script");
    let mut out = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut seen = Vec::new();
        let mut chunk = [0u8; 4096];
        while let Ok(n) = out.read(&mut chunk) {
            if n == 0 {
                break;
            }
            seen.extend_from_slice(&chunk[..n]);
            if String::from_utf8_lossy(&seen).contains("Ctrl-D") {
                break;
            }
        }
        String::from_utf8_lossy(&seen).into_owned()
    });
    let deadline = Instant::now() + Duration::from_secs(10);
    while !reader.is_finished() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    let seen = reader.join().expect("reader");
    assert!(
        seen.contains("waiting for an MCP client") && seen.contains("minimcp call"),
        "the terminal is told what the server waits for: {seen:?}"
    );
}
