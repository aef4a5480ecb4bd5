//! Adversarial input against the real binary: the malformed examples of the JSON-RPC 2.0
//! specification, the JSONTestSuite parsing corpus, a 10 MB line, 100 000 nested brackets,
//! invalid UTF-8, binary garbage, and floods of notifications and pipelined requests. After
//! each, the server must still answer a ping; where memory could grow with the input, its
//! peak resident set (VmHWM) is checked.
//!
//! The JSONTestSuite files (nst/JSONTestSuite `test_parsing/`) are not part of this repository:
//! they are found in `$MINIMCP_JSONTESTSUITE`, else in `../shared/testdata/jsontestsuite` beside
//! the crate. When neither exists, those three tests say so on stderr and skip, unless
//! `MINIMCP_REQUIRE_CORPORA=1` (set by `.ci/run`) turns the absence into a failure. Every other
//! case here is the project's own and always runs.

mod common;

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use common::{Out, Peer};

/// How long one answer may take. Generous: debug builds on a loaded CI machine.
const PATIENCE: Duration = Duration::from_secs(30);
/// The most memory the server may ever hold, whatever it is sent.
const PEAK_RSS_LIMIT_KIB: u64 = 64 * 1024;

fn start(extra: &[&str]) -> Peer {
    Peer::spawn(common::minimcp(), &common::conformance_args(extra)).expect("minimcp starts")
}

/// The next line from the server, parsed; panics on anything else.
fn next(peer: &mut Peer, context: &str) -> Value {
    match peer.recv(PATIENCE) {
        Ok(Out::Line(line)) => serde_json::from_slice(&line).unwrap_or_else(|e| {
            panic!(
                "{context}: stdout line is not JSON ({e}): {}",
                String::from_utf8_lossy(&line)
            )
        }),
        other => panic!(
            "{context}: expected a line, got {other:?}; stderr:\n{}",
            peer.stderr_text()
        ),
    }
}

fn ping(peer: &mut Peer, id: Value) {
    peer.send_line(&json!({"jsonrpc": "2.0", "id": id, "method": "ping"}).to_string());
    let answer = next(peer, "ping");
    assert_eq!(
        answer,
        json!({"jsonrpc": "2.0", "id": id, "result": {}}),
        "the server still answers a ping"
    );
}

fn initialize(peer: &mut Peer, version: &str) {
    peer.send_line(
        &json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {},
            "clientInfo": {"name": "adversarial", "version": "1"}}})
        .to_string(),
    );
    let answer = next(peer, "initialize");
    assert_eq!(answer["result"]["protocolVersion"], version, "{answer}");
    peer.send_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
}

/// Asserts `answer` is an error with `code` and the id an unreadable id gets in this session.
fn assert_error(answer: &Value, code: i64, id_omitted: bool, context: &str) {
    assert_error_with_id(answer, code, None, id_omitted, context);
}

/// Asserts `answer` is an error with `code` that echoes `id`, or, when there is no id to
/// echo, carries the id an unreadable id gets in this session (null, or none at all).
fn assert_error_with_id(
    answer: &Value,
    code: i64,
    id: Option<&Value>,
    id_omitted: bool,
    context: &str,
) {
    assert_eq!(answer["error"]["code"], code, "{context}: {answer}");
    assert!(
        answer["error"]["message"].is_string(),
        "{context}: {answer}"
    );
    assert!(answer.get("result").is_none(), "{context}: {answer}");
    match (id, id_omitted) {
        (Some(id), _) => assert_eq!(answer.get("id"), Some(id), "{context}: {answer}"),
        (None, true) => assert!(answer.get("id").is_none(), "{context}: {answer}"),
        (None, false) => assert_eq!(answer.get("id"), Some(&Value::Null), "{context}: {answer}"),
    }
}

/// The id a server can read from a document: a string or integer top-level `id` member.
fn readable_id(document: Option<&Value>) -> Option<&Value> {
    document?
        .get("id")
        .filter(|id| id.is_string() || id.is_i64() || id.is_u64())
}

/// Closes stdin and checks the server exits cleanly with nothing more to say.
fn finish(mut peer: Peer) {
    peer.close();
    match peer.recv(PATIENCE) {
        Ok(Out::Eof) => {}
        Ok(other) => panic!("unexpected output at the end: {other:?}"),
        Err(_) => panic!("stdout not closed after stdin closed"),
    }
    let status = peer.wait_exit(PATIENCE).expect("the server exits");
    assert!(status.success(), "exit status {status:?}");
}

fn assert_memory_bounded(peer: &Peer, context: &str) {
    if let Some(peak) = peer.peak_rss_kib() {
        assert!(
            peak < PEAK_RSS_LIMIT_KIB,
            "{context}: peak RSS {peak} KiB, over {PEAK_RSS_LIMIT_KIB} KiB"
        );
    }
}

// ---- JSON-RPC 2.0 specification, section 7 ------------------------------------------------

#[test]
fn json_rpc_specification_error_examples() {
    let mut peer = start(&[]);
    // Before any session: a batch is one -32600 (batches need a 2025-03-26 session).
    for (input, code) in [
        (
            r#"{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]"#,
            -32700,
        ),
        (
            r#"{"jsonrpc": "2.0", "method": 1, "params": "bar"}"#,
            -32600,
        ),
        (
            r#"[ {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"}, {"jsonrpc": "2.0", "method" ]"#,
            -32700,
        ),
        ("[]", -32600),
        ("[1]", -32600),
        ("[1,2,3]", -32600),
    ] {
        peer.send_line(input);
        assert_error(&next(&mut peer, input), code, false, input);
    }
    ping(&mut peer, json!(1));

    // In a 2025-03-26 session batches are served: each element gets its own answer.
    initialize(&mut peer, "2025-03-26");
    peer.send_line("[1]");
    let answer = next(&mut peer, "[1]");
    assert_eq!(answer.as_array().map(Vec::len), Some(1), "{answer}");
    assert_error(&answer[0], -32600, false, "[1]");
    peer.send_line("[1,2,3]");
    let answer = next(&mut peer, "[1,2,3]");
    let items = answer.as_array().expect("an array answer");
    assert_eq!(items.len(), 3, "{answer}");
    for item in items {
        assert_error(item, -32600, false, "[1,2,3]");
    }
    // The mixed batch of section 7 (methods adapted: none of them exists here). Positional
    // params are invalid params in MCP; the notification with positional params gets nothing.
    peer.send_line(
        r#"[{"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"}, {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}, {"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"}, {"foo": "boo"}, {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"}, {"jsonrpc": "2.0", "method": "get_data", "id": "9"}]"#,
    );
    let answer = next(&mut peer, "mixed batch");
    let by_id: Vec<(Value, i64)> = answer
        .as_array()
        .expect("an array answer")
        .iter()
        .map(|r| (r["id"].clone(), r["error"]["code"].as_i64().unwrap_or(0)))
        .collect();
    assert_eq!(
        by_id,
        [
            (json!("1"), -32602),
            (json!("2"), -32602),
            (Value::Null, -32600),
            (json!("5"), -32601),
            (json!("9"), -32601),
        ],
        "{answer}"
    );
    // "all notifications": no answer at all, so the ping's answer is the next line.
    peer.send_line(
        r#"[{"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]}, {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}]"#,
    );
    ping(&mut peer, json!(2));
    finish(peer);
}

// ---- JSONTestSuite ------------------------------------------------------------------------

/// Where the JSONTestSuite corpus is, or `None` (after saying so) when it is absent.
fn suite_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("MINIMCP_JSONTESTSUITE") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/testdata/jsontestsuite"),
    };
    if dir.join("SOURCE.txt").is_file() {
        return Some(dir);
    }
    let message = format!(
        "the JSONTestSuite corpus is absent: no {} (point MINIMCP_JSONTESTSUITE at a copy of \
         nst/JSONTestSuite test_parsing/ with a SOURCE.txt)",
        dir.join("SOURCE.txt").display()
    );
    let required = std::env::var_os("MINIMCP_REQUIRE_CORPORA").is_some_and(|v| v != "0");
    assert!(!required, "{message}; MINIMCP_REQUIRE_CORPORA is set");
    // Written to the process's stderr directly: the test harness captures `eprintln!` of
    // passing tests, and a skip must be seen.
    let _ = writeln!(std::io::stderr(), "SKIPPED: {message}");
    None
}

/// The suite's files whose name starts with `prefix`, sorted, with their bytes; `None` when
/// the corpus is absent.
fn suite_files(prefix: &str) -> Option<Vec<(String, Vec<u8>)>> {
    let dir = suite_dir()?;
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .expect("the suite directory is readable")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(prefix) && name.ends_with(".json"))
        .map(|name| {
            let bytes = std::fs::read(dir.join(&name)).expect("readable");
            (name, bytes)
        })
        .collect();
    files.sort();
    Some(files)
}

/// Files the line framing turns into something other than one line of their content
/// (MCP stdio is one message per line; see the transport's rules): what each line gets.
///
/// - An embedded newline splits the text into several lines, each answered on its own; a
///   piece that happens to be JSON (a lone number) is a valid value but not a request.
/// - A byte-order mark and surrounding whitespace are stripped; nothing left means no
///   message and no answer.
const FRAMED_DIFFERENTLY: &[(&str, &[i64])] = &[
    ("n_array_newlines_unclosed.json", &[-32700, -32600, -32700]),
    (
        "n_array_unclosed_with_new_lines.json",
        &[-32700, -32600, -32700],
    ),
    ("n_string_unescaped_newline.json", &[-32700, -32700]),
    ("n_single_space.json", &[]),
    ("n_structure_no_data.json", &[]),
    ("n_structure_UTF8_BOM_no_data.json", &[]),
    ("y_array_with_1_and_newline.json", &[-32700, -32700]),
    ("y_object_with_newlines.json", &[-32700, -32700, -32700]),
];

/// Sends each file as one line (plus a newline), then a ping; returns, per file, the error
/// codes of everything the server said before the ping's answer.
fn replay_suite(
    peer: &mut Peer,
    files: &[(String, Vec<u8>)],
    id_omitted: bool,
) -> Vec<(String, Vec<Value>)> {
    let mut seen = Vec::new();
    for (name, bytes) in files {
        let mut line = bytes.clone();
        line.push(b'\n');
        peer.send(line);
        let ping_id = json!(format!("after {name}"));
        peer.send_line(&json!({"jsonrpc": "2.0", "id": ping_id, "method": "ping"}).to_string());
        let mut answers = Vec::new();
        loop {
            let answer = next(peer, name);
            if answer.get("id") == Some(&ping_id) {
                assert_eq!(answer["result"], json!({}), "{name}: ping: {answer}");
                break;
            }
            answers.push(answer);
            assert!(answers.len() < 10, "{name}: too many answers");
        }
        // A valid document with a readable top-level id gets it echoed (A-3); JSON that
        // cannot be parsed has no id to echo.
        let document: Option<Value> = serde_json::from_slice(bytes).ok();
        for answer in &answers {
            if let Some(items) = answer.as_array() {
                let elements = document.as_ref().and_then(Value::as_array);
                for (i, item) in items.iter().enumerate() {
                    let id = readable_id(elements.and_then(|e| e.get(i)));
                    assert_error_with_id(item, -32600, id, id_omitted, name);
                }
            } else {
                let code = answer["error"]["code"].as_i64().unwrap_or(0);
                let id = readable_id(document.as_ref()).filter(|_| answers.len() == 1);
                assert_error_with_id(answer, code, id, id_omitted, name);
            }
        }
        seen.push((name.clone(), answers));
    }
    seen
}

fn codes(answers: &[Value]) -> Vec<i64> {
    answers
        .iter()
        .map(|a| a["error"]["code"].as_i64().unwrap_or(0))
        .collect()
}

fn expected_codes(name: &str, single: i64) -> Vec<i64> {
    FRAMED_DIFFERENTLY
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(vec![single], |(_, codes)| codes.to_vec())
}

/// Replays `files` before a session and in a 2025-11-25 session, expecting `code` for each
/// (or what FRAMED_DIFFERENTLY says), and the server still answering afterwards.
fn replay_expecting(files: &[(String, Vec<u8>)], code: i64, what: &str) {
    for (version, id_omitted) in [(None, false), (Some("2025-11-25"), true)] {
        let mut peer = start(&[]);
        if let Some(version) = version {
            initialize(&mut peer, version);
        }
        let mut wrong = Vec::new();
        for (name, answers) in replay_suite(&mut peer, files, id_omitted) {
            let expected = expected_codes(&name, code);
            if codes(&answers) != expected {
                wrong.push(format!("{name}: expected {expected:?}, got {answers:?}"));
            }
        }
        assert!(
            wrong.is_empty(),
            "session {version:?}:\n{}",
            wrong.join("\n")
        );
        assert_memory_bounded(&peer, what);
        finish(peer);
    }
}

#[test]
fn json_test_suite_invalid_documents_are_parse_errors() {
    let Some(files) = suite_files("n_") else {
        return;
    };
    assert_eq!(files.len(), 188, "the corpus should hold 188 n_ files");
    replay_expecting(&files, -32700, "JSONTestSuite n_");
}

#[test]
fn json_test_suite_valid_documents_are_json_but_not_requests() {
    let Some(files) = suite_files("y_") else {
        return;
    };
    assert_eq!(files.len(), 95, "the corpus should hold 95 y_ files");
    // Before a session and in 2025-11-25: one -32600 for each (arrays are batches, and
    // batches are refused outside 2025-03-26).
    replay_expecting(&files, -32600, "JSONTestSuite y_");
    // In 2025-03-26 an array is a batch: each element is answered as an invalid request, in
    // one answer array; an empty array is a single -32600.
    let mut peer = start(&[]);
    initialize(&mut peer, "2025-03-26");
    let mut wrong = Vec::new();
    for (name, answers) in replay_suite(&mut peer, &files, false) {
        let bytes = &files.iter().find(|(n, _)| *n == name).expect("listed").1;
        let value: Option<Value> = serde_json::from_slice(bytes).ok();
        let framed = FRAMED_DIFFERENTLY.iter().any(|(n, _)| *n == name);
        let fine = match (&value, answers.as_slice()) {
            _ if framed => codes(&answers) == expected_codes(&name, -32600),
            (Some(Value::Array(items)), [answer]) if !items.is_empty() => {
                answer.as_array().map(Vec::len) == Some(items.len())
            }
            (Some(_), [answer]) => answer["error"]["code"] == -32600,
            _ => false,
        };
        if !fine {
            wrong.push(format!("{name}: got {answers:?}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "session 2025-03-26:\n{}",
        wrong.join("\n")
    );
    finish(peer);
}

#[test]
fn json_test_suite_implementation_defined_documents_are_answered_once() {
    let Some(files) = suite_files("i_") else {
        return;
    };
    assert_eq!(files.len(), 35, "the corpus should hold 35 i_ files");
    let mut peer = start(&[]);
    for (name, answers) in replay_suite(&mut peer, &files, false) {
        // Parsed or not, none is a request: one error each, -32700 or -32600.
        assert_eq!(answers.len(), 1, "{name}: {answers:?}");
        let code = answers[0]["error"]["code"].as_i64();
        assert!(matches!(code, Some(-32700 | -32600)), "{name}: {answers:?}");
    }
    finish(peer);
}

// ---- Size, depth, encoding ----------------------------------------------------------------

#[test]
fn a_ten_megabyte_line_is_skipped_with_its_id_and_memory_stays_bounded() {
    let mut peer = start(&[]);
    initialize(&mut peer, "2025-11-25");
    let before = peer.peak_rss_kib();
    let text = "x".repeat(10 * 1024 * 1024);
    let line = json!({"jsonrpc": "2.0", "id": "big", "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": text}}})
    .to_string();
    assert!(line.len() > 10 * 1024 * 1024);
    peer.send_line(&line);
    let answer = next(&mut peer, "10 MB line");
    assert_eq!(answer["id"], "big", "the id is recovered: {answer}");
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    ping(&mut peer, json!(1));
    // Twice more, one without a newline before the end of input.
    peer.send_line(&line);
    assert_eq!(next(&mut peer, "again")["id"], "big");
    ping(&mut peer, json!(2));
    assert_memory_bounded(&peer, "10 MB lines");
    // Sharper: the line is never held whole (the reader keeps at most the 1 MiB limit plus
    // one read chunk), so the peak grows by far less than 10 MB.
    if let (Some(before), Some(after)) = (before, peer.peak_rss_kib()) {
        assert!(
            after - before < 8 * 1024,
            "the peak grew from {before} KiB to {after} KiB: the line was buffered"
        );
    }
    peer.send(line.into_bytes());
    peer.close();
    let answer = next(&mut peer, "10 MB at end of input");
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    finish(peer);
}

#[test]
fn a_hundred_thousand_nested_brackets_are_a_parse_error() {
    let mut peer = start(&[]);
    let deep = 100_000;
    for line in [
        format!("{}{}", "[".repeat(deep), "]".repeat(deep)),
        format!("{}1{}", "{\"a\":".repeat(deep), "}".repeat(deep)),
        "[".repeat(deep),
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"x":{}{}}}}}"#,
            "[".repeat(deep),
            "]".repeat(deep)
        ),
    ] {
        peer.send_line(&line);
        assert_error(
            &next(&mut peer, "deep nesting"),
            -32700,
            false,
            "deep nesting",
        );
        ping(&mut peer, json!("alive"));
    }
    // Nesting the parser accepts still reaches the tool schema validator safely.
    initialize(&mut peer, "2025-11-25");
    let nested = format!("{}0{}", "[".repeat(100), "]".repeat(100));
    peer.send_line(&format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":{nested}}}}}}}"#
    ));
    let answer = next(&mut peer, "nested arguments");
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert_memory_bounded(&peer, "deep nesting");
    finish(peer);
}

#[test]
fn invalid_utf8_is_a_parse_error_and_the_session_continues() {
    let mut peer = start(&[]);
    let cases: &[&[u8]] = &[
        b"\xff",
        b"\x80",
        b"\xc0\xaf",
        b"\xe0\x80\xaf",
        b"\xed\xa0\x80",
        b"\xf4\x90\x80\x80",
        b"\xe2\x9c",
        b"\xf0\x9f\xa6",
        b"\xfe\xfe\xff\xff",
        b"\x00",
    ];
    for (n, bad) in cases.iter().enumerate() {
        // Inside a string of an otherwise valid request, and as the whole line.
        let mut line = br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":""#.to_vec();
        line.extend_from_slice(bad);
        line.extend_from_slice(b"\"}}\n");
        peer.send(line);
        assert_error(
            &next(&mut peer, "invalid UTF-8"),
            -32700,
            false,
            &format!("{bad:x?}"),
        );
        let mut whole = bad.to_vec();
        whole.push(b'\n');
        peer.send(whole);
        assert_error(
            &next(&mut peer, "invalid UTF-8"),
            -32700,
            false,
            &format!("{bad:x?}"),
        );
        ping(&mut peer, json!(n));
    }
    // In a 2025-11-25 session the unreadable id is omitted instead.
    initialize(&mut peer, "2025-11-25");
    peer.send(b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"\xff\"}\n".to_vec());
    assert_error(
        &next(&mut peer, "invalid UTF-8"),
        -32700,
        true,
        "2025-11-25",
    );
    finish(peer);
}

#[test]
fn binary_garbage_never_crashes_the_server() {
    let mut peer = start(&[]);
    // A deterministic pseudo-random byte stream (xorshift), with a newline now and then.
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut bytes = Vec::with_capacity(1 << 20);
    while bytes.len() < 1 << 20 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        bytes.push(state as u8);
    }
    let lines = bytes.iter().filter(|&&b| b == b'\n').count();
    bytes.push(b'\n');
    peer.send(bytes);
    // Every non-blank line is answered with one error; none is a request.
    let mut answered = 0;
    peer.send_line(r#"{"jsonrpc":"2.0","id":"end","method":"ping"}"#);
    loop {
        let answer = next(&mut peer, "garbage");
        if answer["id"] == "end" {
            break;
        }
        assert!(answer.get("error").is_some(), "{answer}");
        answered += 1;
    }
    assert!(
        answered > 0 && answered <= lines + 1,
        "{answered} answers for {lines} lines"
    );
    assert_memory_bounded(&peer, "binary garbage");
    finish(peer);
}

// ---- Floods -------------------------------------------------------------------------------

#[test]
fn a_flood_of_notifications_gets_no_answer_and_a_ping_still_does() {
    let mut peer = start(&[]);
    initialize(&mut peer, "2025-11-25");
    let kinds = [
        r#"{"jsonrpc":"2.0","method":"notifications/unknown","params":{"n":1}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":42}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}"#,
        r#"{"method":"notifications/invalid"}"#,
    ];
    let mut flood = String::new();
    for n in 0..100_000 {
        flood.push_str(kinds[n % kinds.len()]);
        flood.push('\n');
    }
    let started = Instant::now();
    peer.send(flood.into_bytes());
    ping(&mut peer, json!("after the flood"));
    let elapsed = started.elapsed();
    assert!(elapsed < PATIENCE, "100 000 notifications took {elapsed:?}");
    assert_memory_bounded(&peer, "notification flood");
    finish(peer);
}

#[test]
fn fifty_thousand_pipelined_requests_are_each_answered_exactly_once() {
    const REQUESTS: usize = 50_000;
    let mut peer = start(&[]);
    initialize(&mut peer, "2025-11-25");
    let id = |n: usize| -> Value {
        if n.is_multiple_of(2) {
            json!(n)
        } else {
            json!(format!("r{n}"))
        }
    };
    let mut batch = String::new();
    for n in 0..REQUESTS {
        let request = match n % 3 {
            0 => json!({"jsonrpc": "2.0", "id": id(n), "method": "ping"}),
            1 => json!({"jsonrpc": "2.0", "id": id(n), "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": n.to_string()}}}),
            _ => json!({"jsonrpc": "2.0", "id": id(n), "method": "no/such/method"}),
        };
        batch.push_str(&request.to_string());
        batch.push('\n');
    }
    peer.send(batch.into_bytes());
    let mut answered: HashMap<String, usize> = HashMap::new();
    for _ in 0..REQUESTS {
        let answer = next(&mut peer, "pipelined");
        let key = answer["id"].to_string();
        let n = match &answer["id"] {
            Value::Number(n) => n.as_u64().expect("an id we sent") as usize,
            Value::String(s) => s[1..].parse().expect("an id we sent"),
            other => panic!("unexpected id {other}"),
        };
        assert_eq!(answer["id"], id(n), "ids keep their type");
        match n % 3 {
            0 => assert_eq!(answer["result"], json!({}), "{answer}"),
            1 => assert_eq!(
                answer["result"]["content"][0]["text"],
                n.to_string(),
                "{answer}"
            ),
            _ => assert_eq!(answer["error"]["code"], -32601, "{answer}"),
        }
        *answered.entry(key).or_default() += 1;
    }
    assert_eq!(answered.len(), REQUESTS, "every request answered");
    assert!(answered.values().all(|&c| c == 1), "each exactly once");
    assert_memory_bounded(&peer, "pipelined requests");
    finish(peer);
}
