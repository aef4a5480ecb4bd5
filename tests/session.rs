//! In-memory sessions against a test server: every protocol rule of the core, one protocol
//! version at a time. Each test feeds client lines to `minimcp::serve` and checks the exact
//! lines that come back.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::io::{Cursor, Write};
use std::rc::Rc;
use std::thread;
use std::time::Duration;

use minimcp::prompt::{Prompt, PromptArgument, PromptMessage};
use minimcp::resource::{Page, ResourceContents, ResourceInfo, ResourceSource, TemplateInfo};
use minimcp::{Content, Elicited, HandlerError, Limits, LogLevel, Server, Tool, ToolOutput};
use serde_json::{json, Value};

const LEGACY: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
const MODERN: &str = "2026-07-28";
/// What `server/discover` and the -32022 error list: every version, newest first.
const ALL_NEWEST_FIRST: [&str; 5] = [
    "2026-07-28",
    "2025-11-25",
    "2025-06-18",
    "2025-03-26",
    "2024-11-05",
];

/// A resource whose fingerprint changes every time it is asked, to drive change detection.
struct Ticking(Rc<Cell<u64>>);

impl ResourceSource for Ticking {
    fn list(
        &self,
        offset: usize,
        _limit: usize,
        _ctx: &mut minimcp::Context<'_>,
    ) -> Result<Page<ResourceInfo>, HandlerError> {
        let items = if offset == 0 {
            vec![ResourceInfo::new("tick://clock", "clock")]
        } else {
            vec![]
        };
        Ok(Page { items, more: false })
    }
    fn read(
        &self,
        uri: &str,
        _ctx: &mut minimcp::Context<'_>,
    ) -> Result<Option<Vec<ResourceContents>>, HandlerError> {
        Ok((uri == "tick://clock")
            .then(|| vec![ResourceContents::text(uri, Some("text/plain"), "tick")]))
    }
    fn fingerprint(&self, uri: &str) -> Option<u64> {
        (uri == "tick://clock").then(|| {
            self.0.set(self.0.get() + 1);
            self.0.get()
        })
    }
    fn lists_changes(&self) -> bool {
        true
    }
    fn list_fingerprint(&self) -> Option<u64> {
        Some(self.0.get() / 3)
    }
}

fn object(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false})
}

fn test_server(limits: Limits) -> Server {
    minimcp_base::log::set_level(minimcp_base::log::Level::Off);
    let no_args = json!({"type": "object", "additionalProperties": false});
    Server::builder("test-server", "9.9.9")
        .title("Test Server")
        .add_instructions("Use the tools.")
        .limits(limits)
        .tool(
            Tool::new("echo", "Echo text", object(json!({"text": {"type": "string"}}), &["text"]), |args, _| {
                Ok(ToolOutput::text(args.str("text")?))
            })
            .title("Echo")
            .annotations(json!({"readOnlyHint": true})),
        )
        .tool(
            Tool::new(
                "limited",
                "Takes a bounded number",
                object(json!({"n": {"type": "integer", "maximum": 10}, "mode": {"type": "string", "default": "fast"}}), &["n"]),
                |args, _| Ok(ToolOutput::text(format!("{} {}", args["n"], args["mode"]))),
            ),
        )
        .tool(
            Tool::new("structured", "Structured output", no_args.clone(), |_, _| {
                Ok(ToolOutput::structured(json!({"count": 3})))
            })
            .output_schema(object(json!({"count": {"type": "integer"}}), &["count"])),
        )
        .tool(
            Tool::new("bad_structured", "Breaks its output schema", no_args.clone(), |_, _| {
                Ok(ToolOutput::structured(json!({"count": "three"})))
            })
            .output_schema(object(json!({"count": {"type": "integer"}}), &["count"])),
        )
        .tool(Tool::new("progress", "Reports progress", no_args.clone(), |_, ctx| {
            ctx.progress(1.0, Some(3.0), Some("one"));
            ctx.progress(1.0, Some(3.0), Some("again")); // not increasing: dropped
            ctx.progress(2.5, None, None);
            Ok(ToolOutput::text("done"))
        }))
        .tool(Tool::new("logs", "Logs at two levels", no_args.clone(), |_, ctx| {
            ctx.log(LogLevel::Debug, "debug detail");
            ctx.log(LogLevel::Warning, json!({"note": "careful"}));
            Ok(ToolOutput::text("logged"))
        }))
        .tool(Tool::new("ask", "Elicits a name", no_args.clone(), |_, ctx| {
            match ctx.elicit("Your name?", object(json!({"name": {"type": "string"}}), &["name"]))? {
                Elicited::Accept(content) => Ok(ToolOutput::text(format!("hello {}", content["name"]))),
                Elicited::Decline => Ok(ToolOutput::text("declined")),
                Elicited::Cancel => Ok(ToolOutput::text("cancelled")),
            }
        }))
        .tool(Tool::new("sample", "Samples", no_args.clone(), |_, ctx| {
            let answer = ctx.sample(json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5}))?;
            Ok(ToolOutput::text(format!("model said {}", answer["content"]["text"])))
        }))
        .tool(Tool::new("sample_tools", "Samples with tool use", no_args.clone(), |_, ctx| {
            let answer = ctx.sample(json!({
                "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
                "maxTokens": 5,
                "tools": [{"name": "t", "inputSchema": {"type": "object"}}]
            }))?;
            Ok(ToolOutput::text(format!("stop: {}", answer["stopReason"])))
        }))
        .tool(Tool::new("ask_nested", "Elicits a nested form", no_args.clone(), |_, ctx| {
            ctx.elicit("Address?", json!({"type": "object", "properties": {"address": {"type": "object"}}}))?;
            Ok(ToolOutput::text("unreachable"))
        }))
        .tool(Tool::new("chatty", "Logs 300 warnings", no_args.clone(), |_, ctx| {
            for i in 0..300 {
                ctx.log(LogLevel::Warning, i);
            }
            Ok(ToolOutput::text("done"))
        }))
        .tool(Tool::new("impatient", "Samples with a 50 ms timeout", no_args.clone(), |_, ctx| {
            ctx.set_request_timeout(Duration::from_millis(50));
            ctx.sample(json!({"messages": [], "maxTokens": 1}))?;
            Ok(ToolOutput::text("answered"))
        }))
        .tool(Tool::new("roots", "Lists roots", no_args.clone(), |_, ctx| {
            Ok(ToolOutput::text(format!("{} roots", ctx.roots()?.len())))
        }))
        .tool(Tool::new("slow", "Waits until cancelled", no_args.clone(), |_, ctx| {
            for _ in 0..200 {
                if ctx.is_cancelled() {
                    return Err(ctx.cancelled());
                }
                thread::sleep(Duration::from_millis(5));
            }
            Ok(ToolOutput::text("finished"))
        }))
        .tool(Tool::new("big", "Returns a lot of text", no_args.clone(), |_, _| Ok(ToolOutput::text("x".repeat(5000)))))
        .tool(Tool::new("picture", "An image and a caption", no_args.clone(), |_, _| {
            Ok(ToolOutput::content(vec![Content::text("a picture"), Content::image(&[7; 10_000], "image/png")]))
        }))
        .tool(Tool::new("panics", "Panics", no_args.clone(), |_, _| panic!("boom")))
        .tool(Tool::new("fails", "Fails inside", no_args.clone(), |_, _| {
            Err(HandlerError::Internal("disk on fire at /secret/path".into()))
        }))
        .tool(Tool::new("media", "Mixed content", no_args, |_, _| {
            Ok(ToolOutput::content(vec![
                Content::text("t"),
                Content::audio(b"RIFF", "audio/wav"),
                Content::ResourceLink(ResourceInfo::new("test://a", "a")),
            ]))
        }))
        .prompt(Prompt::new(
            "greet",
            "Greets someone",
            vec![
                PromptArgument::new("name", "Who", true).complete_with(|value, _, _| {
                    ["alice", "bob", "alfred"].iter().filter(|n| n.starts_with(value)).map(|n| n.to_string()).collect()
                }),
                PromptArgument::new("style", "How", false).complete_with(|value, _, ctx| {
                    // Suggestions from the client: completers get a context too.
                    match ctx.roots() {
                        Ok(roots) => roots.iter().filter_map(|r| r["name"].as_str()).filter(|n| n.starts_with(value)).map(String::from).collect(),
                        Err(_) => Vec::new(),
                    }
                }),
            ],
            |args, _| Ok(vec![PromptMessage::user(Content::text(format!("Hello {}", args["name"])))]),
        ))
        .resource(ResourceInfo::new("test://text", "text").mime_type("text/plain"), |uri, _| {
            Ok(vec![ResourceContents::text(uri, Some("text/plain"), "some text")])
        })
        .resource(ResourceInfo::new("test://blob", "blob").mime_type("application/octet-stream"), |uri, _| {
            Ok(vec![ResourceContents::blob(uri, Some("application/octet-stream"), &[0, 1, 2, 255])])
        })
        .resource(ResourceInfo::new("test://huge", "huge"), |uri, _| {
            Ok(vec![ResourceContents::text(uri, None, "y".repeat(5000))])
        })
        .resource_template(
            TemplateInfo::new("test://items/{id}", "item").mime_type("application/json"),
            |uri, vars: &BTreeMap<String, String>, _| Ok(vec![ResourceContents::text(uri, None, format!("item {}", vars["id"]))]),
            Some(Box::new(|var: &str, value: &str, _: &BTreeMap<String, String>, _: &mut minimcp::Context<'_>| {
                (0..150).map(|i| format!("{var}{value}{i}")).collect()
            })),
        )
        .resource_source(Ticking(Rc::new(Cell::new(0))))
        .build()
        .expect("the test server is valid")
}

fn limits() -> Limits {
    Limits {
        page_size: 5,
        max_response_bytes: 4096,
        poll_interval: Duration::from_millis(10),
        request_timeout: Duration::from_millis(200),
        ..Limits::default()
    }
}

/// Runs a whole session from fixed input and returns every output line, parsed.
fn run_with(server: &Server, lines: &[String]) -> Vec<Value> {
    let input = lines.iter().map(|l| format!("{l}\n")).collect::<String>();
    let mut output = Vec::new();
    minimcp::serve(server, Cursor::new(input.into_bytes()), &mut output).expect("in-memory i/o");
    String::from_utf8(output)
        .expect("output is UTF-8")
        .lines()
        .map(|line| {
            serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("output line is not JSON ({e}): {line}"))
        })
        .collect()
}

/// Runs a session over a real pipe, feeding `batches` of lines with a pause before each
/// batch after the first, so timers (timeouts, change polling) get to fire in between.
fn run_paced(batches: Vec<Vec<String>>, pause: Duration) -> Vec<Value> {
    let (reader, mut writer) = std::io::pipe().expect("pipe");
    let feeder = thread::spawn(move || {
        for (i, batch) in batches.into_iter().enumerate() {
            if i > 0 {
                thread::sleep(pause);
            }
            let text: String = batch.iter().map(|line| format!("{line}\n")).collect();
            writer.write_all(text.as_bytes()).expect("write");
        }
    });
    let mut output = Vec::new();
    minimcp::serve(&test_server(limits()), reader, &mut output).expect("i/o");
    feeder.join().expect("feeder");
    String::from_utf8(output)
        .expect("utf8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect()
}

fn run(lines: &[String]) -> Vec<Value> {
    run_with(&test_server(limits()), lines)
}

fn initialize(version: &str, capabilities: Value) -> Vec<String> {
    vec![
        json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": capabilities, "clientInfo": {"name": "t", "version": "1"}}})
        .to_string(),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
    ]
}

fn request(id: impl Into<Value>, method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id.into(), "method": method, "params": params}).to_string()
}

fn modern(id: impl Into<Value>, method: &str, mut params: Value) -> String {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
    })
    .as_object()
    .cloned()
    .map(|mut m| {
        if let Some(extra) = params.get("_meta").and_then(Value::as_object) {
            m.extend(extra.clone());
        }
        Value::Object(m)
    })
    .unwrap_or_default();
    request(id, method, params)
}

/// A session at `version` followed by `lines`; returns the output after the initialize reply.
fn legacy(version: &str, lines: &[String]) -> Vec<Value> {
    legacy_with(version, json!({}), lines)
}

fn legacy_with(version: &str, capabilities: Value, lines: &[String]) -> Vec<Value> {
    let mut all = initialize(version, capabilities);
    all.extend_from_slice(lines);
    let mut out = run(&all);
    assert_eq!(
        out[0]["id"], "init",
        "first line answers initialize: {}",
        out[0]
    );
    out.remove(0);
    out
}

fn result(message: &Value) -> &Value {
    message
        .get("result")
        .unwrap_or_else(|| panic!("expected a result: {message}"))
}

fn error_code(message: &Value) -> i64 {
    message["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("expected an error: {message}"))
}

// ---- Lifecycle -------------------------------------------------------------------------

#[test]
fn initialize_echoes_supported_versions_and_counter_offers_the_latest() {
    for (asked, answered) in [
        ("2024-11-05", "2024-11-05"),
        ("2025-03-26", "2025-03-26"),
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
        ("2026-07-28", "2025-11-25"),
        ("1999-01-01", "2025-11-25"),
    ] {
        let out = run(&initialize(asked, json!({})));
        assert_eq!(out.len(), 1, "initialized is not answered");
        let r = result(&out[0]);
        assert_eq!(r["protocolVersion"], answered);
        assert_eq!(r["serverInfo"]["name"], "test-server");
        assert_eq!(r["serverInfo"]["version"], "9.9.9");
        assert_eq!(r["instructions"], "Use the tools.");
        let caps = &r["capabilities"];
        for cap in ["tools", "prompts", "resources", "logging"] {
            assert!(caps.get(cap).is_some(), "{answered}: {cap} declared");
        }
        assert_eq!(caps["resources"]["subscribe"], true);
        assert_eq!(
            caps.get("completions").is_some(),
            answered != "2024-11-05",
            "{answered}"
        );
        assert_eq!(
            r["serverInfo"].get("title").is_some(),
            answered >= "2025-06-18",
            "{answered}"
        );
    }
}

#[test]
fn initialize_params_are_checked() {
    let bad = [
        json!({"capabilities": {}}),
        json!({"protocolVersion": 5, "capabilities": {}}),
        json!({"protocolVersion": "2025-11-25"}),
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": "me"}),
    ];
    for params in bad {
        let out = run(&[
            request(1, "initialize", params.clone()),
            request(2, "tools/list", json!({})),
        ]);
        assert_eq!(error_code(&out[0]), -32602, "{params}");
        assert_eq!(
            error_code(&out[1]),
            -32600,
            "still not initialized after {params}"
        );
    }
}

#[test]
fn before_initialize_only_ping_is_served() {
    let out = run(&[
        request(1, "ping", json!({})),
        json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}).to_string(),
        request(3, "tools/list", json!({})),
        request(4, "no/such", json!({})),
    ]);
    assert_eq!(out[0], json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
    assert_eq!(out[1], json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
    assert_eq!(error_code(&out[2]), -32600);
    assert!(out[2]["error"]["message"]
        .as_str()
        .unwrap_or("")
        .contains("initialize"));
    assert_eq!(error_code(&out[3]), -32600, "not -32002");
}

#[test]
fn ping_is_answered_with_exactly_an_empty_object_in_every_state() {
    for version in LEGACY {
        let out = legacy(version, &[request(7, "ping", json!({}))]);
        assert_eq!(
            out,
            [json!({"jsonrpc": "2.0", "id": 7, "result": {}})],
            "{version}"
        );
    }
}

#[test]
fn second_initialize_is_rejected() {
    for version in LEGACY {
        let mut lines = initialize(version, json!({}));
        lines.truncate(1);
        let out = legacy(version, &lines);
        assert_eq!(error_code(&out[0]), -32600, "{version}");
    }
}

#[test]
fn requests_between_initialize_and_initialized_are_served() {
    let out = run(&[
        initialize("2025-11-25", json!({}))[0].clone(),
        request(1, "tools/list", json!({})),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
        request(2, "ping", json!({})),
    ]);
    assert_eq!(out.len(), 3);
    assert!(result(&out[1])["tools"].is_array());
}

#[test]
fn notifications_are_never_answered() {
    for version in LEGACY {
        let out = legacy(version, &[
            json!({"jsonrpc": "2.0", "method": "notifications/unknown"}).to_string(),
            json!({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "nope"}}).to_string(),
            json!({"method": "notifications/initialized"}).to_string(),
            json!({"jsonrpc": "2.0", "method": "x", "params": 3}).to_string(),
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": null}}).to_string(),
            json!({"jsonrpc": "2.0", "id": 99, "result": {}}).to_string(),
            request(1, "ping", json!({})),
        ]);
        assert_eq!(
            out,
            [json!({"jsonrpc": "2.0", "id": 1, "result": {}})],
            "{version}"
        );
    }
}

#[test]
fn unknown_methods_get_method_not_found() {
    for version in LEGACY {
        let out = legacy(version, &[request(1, "tools/frobnicate", json!({}))]);
        assert_eq!(error_code(&out[0]), -32601, "{version}");
    }
}

// ---- JSON-RPC envelope -------------------------------------------------------------------

#[test]
fn ids_are_echoed_exactly() {
    let ids = [
        json!(0),
        json!(-1),
        json!("1"),
        json!(""),
        json!(9007199254740993u64),
        json!(18446744073709551615u64),
        json!("é ☃"),
    ];
    let lines: Vec<String> = ids
        .iter()
        .map(|id| request(id.clone(), "ping", json!({})))
        .collect();
    let out = run(&lines);
    let lines_out: Vec<String> = out.iter().map(|m| m["id"].to_string()).collect();
    let expected: Vec<String> = ids.iter().map(Value::to_string).collect();
    assert_eq!(lines_out, expected);
}

#[test]
fn unreadable_ids_are_null_before_2025_11_25_and_omitted_after() {
    let garbage = "{not json".to_string();
    let out = run(std::slice::from_ref(&garbage));
    assert_eq!(out[0]["id"], Value::Null, "before negotiation: null");
    assert_eq!(error_code(&out[0]), -32700);
    for version in LEGACY {
        let out = legacy(
            version,
            &[
                garbage.clone(),
                json!({"jsonrpc": "2.0", "id": null, "method": "ping"}).to_string(),
            ],
        );
        for message in &out {
            let has_id = message.as_object().is_some_and(|m| m.contains_key("id"));
            assert_eq!(has_id, version < "2025-11-25", "{version}: {message}");
        }
        assert_eq!(error_code(&out[0]), -32700);
        assert_eq!(error_code(&out[1]), -32600);
    }
}

#[test]
fn invalid_envelopes_echo_the_id_when_readable() {
    let out = legacy(
        "2025-11-25",
        &[
            json!({"jsonrpc": "1.0", "id": 5, "method": "ping"}).to_string(),
            json!({"jsonrpc": "2.0", "id": 6}).to_string(),
            json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": [1]}).to_string(),
        ],
    );
    assert_eq!(
        (out[0]["id"].clone(), error_code(&out[0])),
        (json!(5), -32600)
    );
    assert_eq!(
        (out[1]["id"].clone(), error_code(&out[1])),
        (json!(6), -32600)
    );
    assert_eq!(
        (out[2]["id"].clone(), error_code(&out[2])),
        (json!(7), -32602)
    );
}

#[test]
fn batches_are_served_only_in_2025_03_26() {
    let batch = json!([
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/whatever"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "b"}}},
        1,
    ])
    .to_string();
    let out = legacy("2025-03-26", &[
        batch.clone(),
        json!([{"jsonrpc": "2.0", "method": "notifications/a"}, {"jsonrpc": "2.0", "method": "notifications/b"}]).to_string(),
        "[]".to_string(),
        json!([{"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {}}]).to_string(),
    ]);
    assert_eq!(
        out.len(),
        3,
        "the all-notification batch gets nothing: {out:?}"
    );
    let replies = out[0].as_array().expect("a batch answer is an array");
    assert_eq!(replies.len(), 3);
    assert_eq!(replies[0], json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
    assert_eq!(result(&replies[1])["content"][0]["text"], "b");
    assert_eq!(
        (replies[2]["id"].clone(), error_code(&replies[2])),
        (Value::Null, -32600)
    );
    assert_eq!(
        error_code(&out[1]),
        -32600,
        "empty batch: one error, not an array"
    );
    assert!(!out[1].is_array());
    let init = out[2].as_array().expect("array");
    assert_eq!(error_code(&init[0]), -32600);
    assert!(init[0]["error"]["message"]
        .as_str()
        .unwrap_or("")
        .contains("batch"));

    for version in ["2024-11-05", "2025-06-18", "2025-11-25"] {
        let out = legacy(version, std::slice::from_ref(&batch));
        assert_eq!(out.len(), 1, "{version}");
        assert_eq!(error_code(&out[0]), -32600, "{version}");
        assert!(!out[0].is_array());
    }
}

// ---- Tools -----------------------------------------------------------------------------

#[test]
fn tools_list_is_paginated_with_opaque_cursors() {
    for version in LEGACY {
        let mut names = Vec::new();
        let mut cursor: Option<Value> = None;
        for page in 0..10 {
            let params = cursor.as_ref().map_or(json!({}), |c| json!({"cursor": c}));
            let out = legacy(version, &[request(page, "tools/list", params)]);
            let r = result(&out[0]);
            let tools = r["tools"].as_array().expect("tools");
            assert!(tools.len() <= 5);
            names.extend(
                tools
                    .iter()
                    .map(|t| t["name"].as_str().unwrap_or_default().to_string()),
            );
            match r.get("nextCursor") {
                Some(next) => cursor = Some(next.clone()),
                None => break,
            }
        }
        assert_eq!(names.len(), 19, "{version}: {names:?}");
        assert_eq!(names[0], "echo");
        let out = legacy(
            version,
            &[
                request(1, "tools/list", json!({"cursor": "bogus"})),
                request(2, "tools/list", json!({"cursor": 5})),
            ],
        );
        assert_eq!(error_code(&out[0]), -32602);
        assert_eq!(error_code(&out[1]), -32602);
    }
}

#[test]
fn tool_fields_follow_the_version() {
    for version in LEGACY {
        let out = legacy(version, &[request(1, "tools/list", json!({}))]);
        let echo = &result(&out[0])["tools"][0];
        assert_eq!(echo["name"], "echo");
        assert_eq!(
            echo.get("title").is_some(),
            version >= "2025-06-18",
            "{version}"
        );
        assert_eq!(
            echo.get("annotations").is_some(),
            version >= "2025-03-26",
            "{version}"
        );
    }
}

#[test]
fn tools_call_returns_content() {
    for version in LEGACY {
        let out = legacy(
            version,
            &[
                request(
                    1,
                    "tools/call",
                    json!({"name": "echo", "arguments": {"text": "hi"}}),
                ),
                request(
                    2,
                    "tools/call",
                    json!({"name": "limited", "arguments": {"n": 3}}),
                ),
            ],
        );
        assert_eq!(
            result(&out[0]),
            &json!({"content": [{"type": "text", "text": "hi"}]})
        );
        assert_eq!(
            result(&out[1])["content"][0]["text"],
            "3 \"fast\"",
            "defaults are filled in"
        );
    }
}

#[test]
fn unknown_tools_and_malformed_calls_are_protocol_errors() {
    for version in LEGACY {
        let out = legacy(
            version,
            &[
                request(1, "tools/call", json!({"name": "nope"})),
                request(2, "tools/call", json!({})),
                request(
                    3,
                    "tools/call",
                    json!({"name": "echo", "arguments": "text"}),
                ),
            ],
        );
        for message in &out {
            assert_eq!(error_code(message), -32602, "{version}: {message}");
        }
    }
}

#[test]
fn argument_validation_errors_are_protocol_errors_before_2025_11_25_and_tool_errors_after() {
    for version in LEGACY {
        let out = legacy(
            version,
            &[request(
                1,
                "tools/call",
                json!({"name": "limited", "arguments": {"n": 5000}}),
            )],
        );
        let expected = "`n` must be ≤ 10, got 5000";
        if version >= "2025-11-25" {
            let r = result(&out[0]);
            assert_eq!(r["isError"], true);
            assert!(
                r["content"][0]["text"]
                    .as_str()
                    .unwrap_or("")
                    .contains(expected),
                "{r}"
            );
        } else {
            assert_eq!(error_code(&out[0]), -32602, "{version}");
            assert!(out[0]["error"]["message"]
                .as_str()
                .unwrap_or("")
                .contains(expected));
        }
    }
}

#[test]
fn structured_output_is_sent_from_2025_06_18_with_a_text_copy() {
    for version in LEGACY {
        let out = legacy(
            version,
            &[request(1, "tools/call", json!({"name": "structured"}))],
        );
        let r = result(&out[0]);
        assert_eq!(r["content"][0]["text"], "{\"count\":3}");
        assert_eq!(
            r.get("structuredContent").is_some(),
            version >= "2025-06-18",
            "{version}"
        );
    }
    let out = legacy(
        "2025-11-25",
        &[request(1, "tools/call", json!({"name": "bad_structured"}))],
    );
    assert_eq!(
        result(&out[0])["isError"],
        true,
        "output violating its schema is never sent as success"
    );
    assert!(result(&out[0]).get("structuredContent").is_none());
}

#[test]
fn content_types_are_downgraded_for_older_versions() {
    let out = legacy(
        "2024-11-05",
        &[request(1, "tools/call", json!({"name": "media"}))],
    );
    let types: Vec<&str> = result(&out[0])["content"]
        .as_array()
        .expect("content")
        .iter()
        .map(|c| c["type"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(types, ["text", "text", "text"]);
    let out = legacy(
        "2025-06-18",
        &[request(1, "tools/call", json!({"name": "media"}))],
    );
    let types: Vec<&str> = result(&out[0])["content"]
        .as_array()
        .expect("content")
        .iter()
        .map(|c| c["type"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(types, ["text", "audio", "resource_link"]);
}

#[test]
fn failing_tools_become_tool_errors_without_leaking_details() {
    let out = legacy(
        "2025-11-25",
        &[
            request(1, "tools/call", json!({"name": "fails"})),
            request(2, "ping", json!({})),
        ],
    );
    let r = result(&out[0]);
    assert_eq!(r["isError"], true);
    assert!(!r.to_string().contains("/secret/path"));
    assert_eq!(result(&out[1]), &json!({}));
}

#[test]
fn a_panicking_handler_becomes_an_internal_error_and_the_session_goes_on() {
    let out = legacy(
        "2025-11-25",
        &[
            request(1, "tools/call", json!({"name": "panics"})),
            request(2, "ping", json!({})),
        ],
    );
    assert_eq!(error_code(&out[0]), -32603);
    assert_eq!(out[0]["error"]["message"], "internal error");
    assert_eq!(result(&out[1]), &json!({}));
}

#[test]
fn oversized_results_become_clear_errors() {
    let out = legacy(
        "2025-11-25",
        &[
            request(1, "tools/call", json!({"name": "big"})),
            request(2, "resources/read", json!({"uri": "test://huge"})),
            request(3, "ping", json!({})),
        ],
    );
    let r = result(&out[0]);
    assert_eq!(r["isError"], true);
    assert!(r["content"][0]["text"]
        .as_str()
        .unwrap_or("")
        .contains("response limit"));
    assert_eq!(error_code(&out[1]), -32001);
    assert_eq!(out[1]["error"]["data"]["limit"], 4096);
    assert_eq!(result(&out[2]), &json!({}));
}

// ---- Progress, logging, cancellation ---------------------------------------------------

#[test]
fn progress_echoes_the_token_and_only_increases() {
    for (version, token) in [("2024-11-05", json!("p-1")), ("2025-11-25", json!(42))] {
        let out = legacy(
            version,
            &[request(
                1,
                "tools/call",
                json!({"name": "progress", "_meta": {"progressToken": token}}),
            )],
        );
        assert_eq!(out.len(), 3, "{out:?}");
        assert_eq!(out[0]["method"], "notifications/progress");
        assert_eq!(
            out[0]["params"]["progressToken"], token,
            "same type and value"
        );
        assert_eq!(out[0]["params"]["progress"], 1.0);
        assert_eq!(out[0]["params"]["total"], 3.0);
        assert_eq!(
            out[0]["params"].get("message").is_some(),
            version >= "2025-03-26"
        );
        assert_eq!(out[1]["params"]["progress"], 2.5);
        assert_eq!(out[2]["id"], 1, "progress is never sent after the response");
    }
    let out = legacy(
        "2025-11-25",
        &[request(1, "tools/call", json!({"name": "progress"}))],
    );
    assert_eq!(out.len(), 1, "no token, no progress");
}

#[test]
fn log_messages_follow_set_level() {
    let out = legacy(
        "2025-11-25",
        &[request(1, "tools/call", json!({"name": "logs"}))],
    );
    assert_eq!(
        out.len(),
        2,
        "default level info: only the warning: {out:?}"
    );
    assert_eq!(
        out[0]["params"],
        json!({"level": "warning", "data": {"note": "careful"}})
    );
    let out = legacy(
        "2025-11-25",
        &[
            request(1, "logging/setLevel", json!({"level": "debug"})),
            request(2, "tools/call", json!({"name": "logs"})),
            request(3, "logging/setLevel", json!({"level": "error"})),
            request(4, "tools/call", json!({"name": "logs"})),
            request(5, "logging/setLevel", json!({"level": "loud"})),
        ],
    );
    assert_eq!(out[0], json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
    assert_eq!(out[1]["params"]["level"], "debug");
    assert_eq!(out[2]["params"]["level"], "warning");
    assert_eq!(out[3]["id"], 2);
    assert_eq!(out[4], json!({"jsonrpc": "2.0", "id": 3, "result": {}}));
    assert_eq!(out[5]["id"], 4, "nothing at error level");
    assert_eq!(error_code(&out[6]), -32602);
}

#[test]
fn a_cancelled_request_gets_no_response() {
    let out = legacy("2025-11-25", &[
        request(1, "tools/call", json!({"name": "slow"})),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1, "reason": "user"}}).to_string(),
        request(2, "ping", json!({})),
    ]);
    assert_eq!(out, [json!({"jsonrpc": "2.0", "id": 2, "result": {}})]);
}

#[test]
fn late_cancellations_are_ignored() {
    let out = legacy("2025-11-25", &[
        request(1, "ping", json!({})),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}).to_string(),
        request(2, "ping", json!({})),
    ]);
    assert_eq!(out.len(), 2);
}

// ---- Requests to the client --------------------------------------------------------------

#[test]
fn elicitation_round_trip_with_ping_and_queued_requests_meanwhile() {
    let out = legacy_with("2025-11-25", json!({"elicitation": {}}), &[
        request(1, "tools/call", json!({"name": "ask"})),
        request(2, "ping", json!({})),
        request(3, "tools/call", json!({"name": "echo", "arguments": {"text": "queued"}})),
        json!({"jsonrpc": "2.0", "id": 1, "result": {"action": "accept", "content": {"name": "Ada"}}}).to_string(),
    ]);
    assert_eq!(out[0]["method"], "elicitation/create");
    assert_eq!(out[0]["id"], 1);
    assert_eq!(out[0]["params"]["mode"], "form");
    assert_eq!(
        out[0]["params"]["requestedSchema"]["properties"]["name"]["type"],
        "string"
    );
    assert_eq!(
        out[1],
        json!({"jsonrpc": "2.0", "id": 2, "result": {}}),
        "ping answered while waiting"
    );
    assert_eq!(result(&out[2])["content"][0]["text"], "hello \"Ada\"");
    assert_eq!(out[2]["id"], 1);
    assert_eq!(
        result(&out[3])["content"][0]["text"],
        "queued",
        "queued request served after"
    );
}

#[test]
fn elicitation_form_omits_mode_before_2025_11_25() {
    let out = legacy_with(
        "2025-06-18",
        json!({"elicitation": {}}),
        &[
            request(1, "tools/call", json!({"name": "ask"})),
            json!({"jsonrpc": "2.0", "id": 1, "result": {"action": "decline"}}).to_string(),
        ],
    );
    assert!(out[0]["params"].get("mode").is_none());
    assert_eq!(result(&out[1])["content"][0]["text"], "declined");
}

#[test]
fn elicitation_before_2025_06_18_names_the_protocol_version_not_the_client() {
    // The client declares elicitation, but the negotiated version has none: the message must
    // blame the version (the client did nothing wrong), and nothing is sent to the client.
    for version in ["2024-11-05", "2025-03-26"] {
        let out = legacy_with(
            version,
            json!({"elicitation": {}}),
            &[request(1, "tools/call", json!({"name": "ask"}))],
        );
        assert_eq!(out.len(), 1, "{version}: {out:?}");
        assert_eq!(result(&out[0])["isError"], true, "{version}");
        let text = result(&out[0])["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(
            text.contains(&format!(
                "negotiated protocol version {version} has no elicitation"
            )) && text.contains("2025-06-18"),
            "{version}: {text}"
        );
        assert!(!text.contains("declare"), "{version}: {text}");
    }
    // From 2025-06-18 a client that did not declare it is still told so.
    let out = legacy(
        "2025-06-18",
        &[request(1, "tools/call", json!({"name": "ask"}))],
    );
    let text = result(&out[0])["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("did not declare"), "{text}");
}

#[test]
fn requests_to_the_client_need_its_capability() {
    for version in LEGACY {
        let out = legacy(
            version,
            &[
                request(1, "tools/call", json!({"name": "ask"})),
                request(2, "tools/call", json!({"name": "sample"})),
                request(3, "tools/call", json!({"name": "roots"})),
            ],
        );
        assert_eq!(out.len(), 3, "{version}: nothing sent to the client");
        for message in &out {
            assert_eq!(result(message)["isError"], true, "{version}: {message}");
        }
    }
}

#[test]
fn sampling_and_roots_round_trips_and_refusals() {
    let out = legacy_with("2025-03-26", json!({"sampling": {}, "roots": {}}), &[
        request(1, "tools/call", json!({"name": "sample"})),
        json!({"jsonrpc": "2.0", "id": 1, "result": {"role": "assistant", "content": {"type": "text", "text": "hey"}, "model": "m"}}).to_string(),
        request(2, "tools/call", json!({"name": "roots"})),
        json!({"jsonrpc": "2.0", "id": 2, "result": {"roots": [{"uri": "file:///a"}]}}).to_string(),
        request(3, "tools/call", json!({"name": "sample"})),
        json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -1, "message": "User rejected sampling request"}}).to_string(),
    ]);
    assert_eq!(out[0]["method"], "sampling/createMessage");
    assert_eq!(result(&out[1])["content"][0]["text"], "model said \"hey\"");
    assert_eq!(out[2]["method"], "roots/list");
    assert_eq!(result(&out[3])["content"][0]["text"], "1 roots");
    assert_eq!(out[4]["id"], 3, "server request ids are never reused");
    let refused = result(&out[5]);
    assert_eq!(refused["isError"], true);
    assert!(refused["content"][0]["text"]
        .as_str()
        .unwrap_or("")
        .contains("User rejected"));
}

// ---- While a request is parked for its client, every line keeps its rules --------------

#[test]
fn an_empty_batch_while_a_handler_waits_is_refused_as_ever() {
    let out = legacy_with(
        "2025-11-25",
        json!({"elicitation": {}}),
        &[
            request(1, "tools/call", json!({"name": "ask"})),
            "[]".to_string(),
            json!({"jsonrpc": "2.0", "id": 1, "result": {"action": "decline"}}).to_string(),
        ],
    );
    assert_eq!(out[0]["method"], "elicitation/create");
    assert_eq!(error_code(&out[1]), -32600, "empty batch answered: {out:?}");
    assert!(out[1]["error"]["message"]
        .as_str()
        .unwrap_or("")
        .contains("empty"));
    assert_eq!(result(&out[2])["content"][0]["text"], "declined");
}

#[test]
fn a_batch_of_responses_outside_2025_03_26_is_refused_not_taken_as_the_answer() {
    let out = legacy_with("2025-06-18", json!({"elicitation": {}}), &[
        request(1, "tools/call", json!({"name": "ask"})),
        json!([{"jsonrpc": "2.0", "id": 1, "result": {"action": "accept", "content": {"name": "Batch"}}}]).to_string(),
        json!({"jsonrpc": "2.0", "id": 1, "result": {"action": "decline"}}).to_string(),
    ]);
    assert_eq!(error_code(&out[1]), -32600, "batch refused: {out:?}");
    assert!(out[1]["error"]["message"]
        .as_str()
        .unwrap_or("")
        .contains("batches"));
    assert_eq!(
        result(&out[2])["content"][0]["text"],
        "declined",
        "the answer on its own line is the one taken"
    );
}

#[test]
fn a_cancellation_inside_a_batch_is_honoured_while_the_handler_waits() {
    let out = legacy_with("2025-03-26", json!({"sampling": {}}), &[
        request(1, "tools/call", json!({"name": "sample"})),
        json!([{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}]).to_string(),
        json!({"jsonrpc": "2.0", "id": 1, "result": {"role": "assistant", "content": {"type": "text", "text": "late"}, "model": "m"}}).to_string(),
        request(2, "ping", json!({})),
    ]);
    assert_eq!(out[0]["method"], "sampling/createMessage");
    assert!(
        out.iter()
            .all(|m| m.get("id") != Some(&json!(1)) || m.get("method").is_some()),
        "the cancelled call gets no response: {out:?}"
    );
    assert_eq!(out.last().map(|m| m["id"].clone()), Some(json!(2)));
}

#[test]
fn requests_pipelined_behind_a_busy_handler_wait_in_the_pipe_instead_of_being_refused() {
    let server = test_server(Limits {
        max_queued_requests: 2,
        ..limits()
    });
    let mut lines = initialize("2025-11-25", json!({}));
    lines.push(request(1, "tools/call", json!({"name": "slow"})));
    for id in 2..8 {
        lines.push(request(id, "tools/list", json!({})));
    }
    let out = run_with(&server, &lines);
    let refused: Vec<&Value> = out
        .iter()
        .filter(|m| m["error"]["code"] == json!(-32003))
        .collect();
    assert!(refused.is_empty(), "nothing refused: {refused:?}");
    assert_eq!(out.len(), 8, "initialize and every request answered");
}

#[test]
fn no_requests_to_the_client_before_initialized() {
    let out = run(&[
        initialize("2025-11-25", json!({"elicitation": {}}))[0].clone(),
        request(1, "tools/call", json!({"name": "ask"})),
    ]);
    assert_eq!(out.len(), 2);
    assert_eq!(result(&out[1])["isError"], true);
}

#[test]
fn a_client_that_never_answers_times_out_and_is_told_so() {
    let mut lines = initialize("2025-11-25", json!({"sampling": {}}));
    lines.push(request(1, "tools/call", json!({"name": "sample"})));
    let out = run_paced(
        vec![lines, vec![request(2, "ping", json!({}))]],
        Duration::from_millis(600),
    );
    assert_eq!(out[1]["method"], "sampling/createMessage");
    assert_eq!(out[2]["method"], "notifications/cancelled");
    assert_eq!(out[2]["params"]["requestId"], out[1]["id"]);
    let r = result(&out[3]);
    assert_eq!(r["isError"], true);
    assert!(r["content"][0]["text"]
        .as_str()
        .unwrap_or("")
        .contains("did not answer"));
    assert_eq!(out[4], json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
}

#[test]
fn a_reused_id_while_waiting_is_rejected() {
    let out = legacy_with(
        "2025-11-25",
        json!({"elicitation": {}}),
        &[
            request(1, "tools/call", json!({"name": "ask"})),
            request(1, "tools/list", json!({})),
            json!({"jsonrpc": "2.0", "id": 1, "result": {"action": "cancel"}}).to_string(),
        ],
    );
    assert_eq!(out[1]["id"], 1);
    assert_eq!(error_code(&out[1]), -32600);
    assert_eq!(result(&out[2])["content"][0]["text"], "cancelled");
    assert_eq!(out.len(), 3, "exactly one answer per request");
}

// ---- Resources, prompts, completion ------------------------------------------------------

#[test]
fn resources_list_read_and_templates() {
    for version in LEGACY {
        let out = legacy(
            version,
            &[
                request(1, "resources/list", json!({})),
                request(2, "resources/read", json!({"uri": "test://text"})),
                request(3, "resources/read", json!({"uri": "test://blob"})),
                request(4, "resources/read", json!({"uri": "test://items/42"})),
                request(5, "resources/templates/list", json!({})),
                request(6, "resources/read", json!({"uri": "test://missing"})),
                request(7, "resources/read", json!({})),
            ],
        );
        let listed: Vec<&str> = result(&out[0])["resources"]
            .as_array()
            .expect("list")
            .iter()
            .map(|r| r["uri"].as_str().unwrap_or(""))
            .collect();
        assert_eq!(
            listed,
            ["test://text", "test://blob", "test://huge", "tick://clock"]
        );
        assert_eq!(
            result(&out[1])["contents"][0],
            json!({"uri": "test://text", "mimeType": "text/plain", "text": "some text"})
        );
        assert_eq!(result(&out[2])["contents"][0]["blob"], "AAEC/w==");
        assert_eq!(result(&out[3])["contents"][0]["text"], "item 42");
        assert_eq!(
            result(&out[4])["resourceTemplates"][0]["uriTemplate"],
            "test://items/{id}"
        );
        assert_eq!(error_code(&out[5]), -32002, "{version}");
        assert_eq!(out[5]["error"]["data"]["uri"], "test://missing");
        assert_eq!(error_code(&out[6]), -32602);
    }
}

#[test]
fn subscriptions_notify_changes() {
    let mut lines = initialize("2025-11-25", json!({}));
    lines.push(request(
        1,
        "resources/subscribe",
        json!({"uri": "tick://clock"}),
    ));
    lines.push(request(
        2,
        "resources/subscribe",
        json!({"uri": "test://nowhere"}),
    ));
    let unsubscribe = request(3, "resources/unsubscribe", json!({"uri": "tick://clock"}));
    let out = run_paced(vec![lines, vec![unsubscribe]], Duration::from_millis(100));
    assert_eq!(out[1], json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
    assert_eq!(error_code(&out[2]), -32002);
    let updates = out
        .iter()
        .filter(|m| m["method"] == "notifications/resources/updated")
        .count();
    assert!(
        updates >= 2,
        "the ticking resource changes at every poll: {out:?}"
    );
    assert!(out
        .iter()
        .all(|m| m["method"] != "notifications/resources/updated"
            || m["params"] == json!({"uri": "tick://clock"})));
    assert!(out
        .iter()
        .any(|m| m["method"] == "notifications/resources/list_changed"));
    assert_eq!(out.last().map(|m| m["id"].clone()), Some(json!(3)));
}

#[test]
fn prompts_list_get_and_argument_checks() {
    for version in LEGACY {
        let out = legacy(
            version,
            &[
                request(1, "prompts/list", json!({})),
                request(
                    2,
                    "prompts/get",
                    json!({"name": "greet", "arguments": {"name": "Ada"}}),
                ),
                request(3, "prompts/get", json!({"name": "greet"})),
                request(
                    4,
                    "prompts/get",
                    json!({"name": "greet", "arguments": {"name": 1}}),
                ),
                request(
                    5,
                    "prompts/get",
                    json!({"name": "greet", "arguments": {"name": "a", "colour": "red"}}),
                ),
                request(6, "prompts/get", json!({"name": "nope"})),
            ],
        );
        let prompt = &result(&out[0])["prompts"][0];
        assert_eq!(prompt["name"], "greet");
        assert_eq!(
            prompt["arguments"][0],
            json!({"name": "name", "description": "Who", "required": true})
        );
        assert_eq!(
            result(&out[1])["messages"][0],
            json!({"role": "user", "content": {"type": "text", "text": "Hello Ada"}})
        );
        for message in &out[2..] {
            assert_eq!(error_code(message), -32602, "{version}: {message}");
        }
        assert!(out[2]["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("missing required argument `name`"));
    }
}

#[test]
fn completion_for_prompt_arguments_and_template_variables() {
    let out = legacy(
        "2025-11-25",
        &[
            request(
                1,
                "completion/complete",
                json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": "al"}}),
            ),
            request(
                2,
                "completion/complete",
                json!({"ref": {"type": "ref/resource", "uri": "test://items/{id}"}, "argument": {"name": "id", "value": "7"}}),
            ),
            request(
                3,
                "completion/complete",
                json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "style", "value": ""}}),
            ),
            request(
                4,
                "completion/complete",
                json!({"ref": {"type": "ref/prompt", "name": "nope"}, "argument": {"name": "x", "value": ""}}),
            ),
            request(
                5,
                "completion/complete",
                json!({"ref": {"type": "ref/resource", "uri": "test://none/{x}"}, "argument": {"name": "x", "value": ""}}),
            ),
        ],
    );
    assert_eq!(
        result(&out[0])["completion"],
        json!({"values": ["alice", "alfred"], "total": 2, "hasMore": false})
    );
    let many = &result(&out[1])["completion"];
    assert_eq!(many["values"].as_array().map(Vec::len), Some(100));
    assert_eq!(
        (many["total"].clone(), many["hasMore"].clone()),
        (json!(150), json!(true))
    );
    assert_eq!(result(&out[2])["completion"]["values"], json!([]));
    assert_eq!(error_code(&out[3]), -32602);
    assert_eq!(error_code(&out[4]), -32602);
}

// ---- Limits ------------------------------------------------------------------------------

#[test]
fn the_rate_limit_answers_excess_requests_with_its_own_code() {
    let server = test_server(Limits {
        rate_limit: Some(2.0),
        ..limits()
    });
    let mut lines = initialize("2025-11-25", json!({}));
    lines.truncate(1);
    lines.extend((1..=5).map(|i| request(i, "ping", json!({}))));
    let out = run_with(&server, &lines);
    let limited: Vec<&Value> = out.iter().filter(|m| m.get("error").is_some()).collect();
    assert_eq!(
        limited.len(),
        4,
        "a bucket of 2, the first token spent on initialize: {out:?}"
    );
    assert_eq!(error_code(limited[0]), -32000);
    assert!(limited[0]["error"]["data"]["retryAfterMs"]
        .as_u64()
        .is_some());
}

// ---- 2026-07-28 --------------------------------------------------------------------------

#[test]
fn stateless_requests_need_their_meta() {
    let out = run(&[
        request(1, "server/discover", json!({})),
        request(
            2,
            "tools/list",
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": MODERN}}),
        ),
        request(
            3,
            "tools/list",
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2031-01-01", "io.modelcontextprotocol/clientCapabilities": {}}}),
        ),
        request(
            4,
            "tools/list",
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2025-11-25", "io.modelcontextprotocol/clientCapabilities": {}}}),
        ),
        modern(
            5,
            "tools/list",
            json!({"_meta": {"io.modelcontextprotocol/logLevel": "loud"}}),
        ),
    ]);
    assert_eq!(error_code(&out[0]), -32602);
    assert_eq!(error_code(&out[1]), -32602);
    assert_eq!(error_code(&out[2]), -32022);
    assert_eq!(
        out[2]["error"]["data"],
        json!({"supported": ALL_NEWEST_FIRST, "requested": "2031-01-01"})
    );
    assert_eq!(error_code(&out[3]), -32022);
    assert_eq!(error_code(&out[4]), -32602);
}

#[test]
fn discover_and_results_carry_result_type_server_info_and_cache_hints() {
    let out = run(&[
        modern(1, "server/discover", json!({})),
        modern(2, "tools/list", json!({})),
        modern(
            3,
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "x"}}),
        ),
        modern(4, "resources/read", json!({"uri": "test://text"})),
    ]);
    let discover = result(&out[0]);
    assert_eq!(discover["supportedVersions"], json!(ALL_NEWEST_FIRST));
    assert!(discover["capabilities"]["tools"].is_object());
    assert_eq!(discover["instructions"], "Use the tools.");
    for (message, cacheable) in out.iter().zip([true, true, false, true]) {
        let r = result(message);
        assert_eq!(r["resultType"], "complete", "{r}");
        assert_eq!(
            r["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
            "test-server"
        );
        assert_eq!(r.get("ttlMs").is_some(), cacheable, "{r}");
        assert_eq!(r.get("cacheScope").is_some(), cacheable, "{r}");
    }
    assert_eq!(
        result(&out[3])["ttlMs"],
        0,
        "file-like contents are not cached"
    );
}

#[test]
fn handshake_only_methods_do_not_exist_in_2026_07_28() {
    let out = run(&[
        modern(1, "ping", json!({})),
        modern(2, "logging/setLevel", json!({"level": "debug"})),
        modern(3, "resources/subscribe", json!({"uri": "test://text"})),
    ]);
    for message in &out {
        assert_eq!(error_code(message), -32601, "{message}");
    }
}

#[test]
fn stateless_requests_work_beside_a_handshake_session_and_change_nothing() {
    let mut lines = vec![modern(1, "tools/list", json!({}))];
    lines.extend(initialize("2025-06-18", json!({})));
    lines.push(modern(2, "tools/call", json!({"name": "structured"})));
    lines.push(request(3, "tools/call", json!({"name": "structured"})));
    let out = run(&lines);
    assert_eq!(result(&out[0])["resultType"], "complete");
    assert_eq!(result(&out[1])["protocolVersion"], "2025-06-18");
    assert_eq!(result(&out[2])["resultType"], "complete");
    assert!(
        result(&out[3]).get("resultType").is_none(),
        "the handshake session is untouched"
    );
}

#[test]
fn stateless_resource_not_found_is_invalid_params() {
    let out = run(&[modern(
        1,
        "resources/read",
        json!({"uri": "test://missing"}),
    )]);
    assert_eq!(error_code(&out[0]), -32602);
    assert_eq!(out[0]["error"]["data"]["uri"], "test://missing");
}

#[test]
fn stateless_validation_errors_are_tool_errors() {
    let out = run(&[modern(
        1,
        "tools/call",
        json!({"name": "limited", "arguments": {"n": 99}}),
    )]);
    let r = result(&out[0]);
    assert_eq!(
        (r["isError"].clone(), r["resultType"].clone()),
        (json!(true), json!("complete"))
    );
}

#[test]
fn stateless_logs_only_when_the_request_asks() {
    let out = run(&[
        modern(1, "tools/call", json!({"name": "logs"})),
        modern(
            2,
            "tools/call",
            json!({"name": "logs", "_meta": {"io.modelcontextprotocol/logLevel": "debug"}}),
        ),
    ]);
    assert_eq!(out[0]["id"], 1, "no logLevel, no log messages");
    assert_eq!(out[1]["params"]["level"], "debug");
    assert_eq!(out[2]["params"]["level"], "warning");
    assert_eq!(out[3]["id"], 2);
}

#[test]
fn multi_round_trip_input_required_then_complete() {
    // One server (one process key) across three stateless sessions.
    let server = test_server(limits());
    let out = run_with(&server, &[modern(1, "tools/call", json!({"name": "ask"}))]);
    let first = result(&out[0]);
    assert_eq!(first["resultType"], "input_required");
    assert!(first.get("ttlMs").is_none());
    let (key, request_0) = first["inputRequests"]
        .as_object()
        .and_then(|m| m.iter().next())
        .expect("one input request");
    assert_eq!(request_0["method"], "elicitation/create");
    assert_eq!(request_0["params"]["message"], "Your name?");
    let state = first["requestState"]
        .as_str()
        .expect("requestState")
        .to_string();

    let answer = json!({key.clone(): {"action": "accept", "content": {"name": "Lin"}}});
    let retry = modern(
        2,
        "tools/call",
        json!({"name": "ask", "inputResponses": answer, "requestState": state}),
    );
    let out = run_with(&server, &[retry]);
    let done = result(&out[0]);
    assert_eq!(done["resultType"], "complete");
    assert_eq!(done["content"][0]["text"], "hello \"Lin\"");

    let tampered = modern(
        3,
        "tools/call",
        json!({"name": "ask", "inputResponses": answer, "requestState": format!("{state}x")}),
    );
    let other_tool = modern(
        4,
        "tools/call",
        json!({"name": "sample", "requestState": state}),
    );
    let out = run_with(&server, &[tampered, other_tool]);
    assert_eq!(error_code(&out[0]), -32602);
    assert_eq!(
        error_code(&out[1]),
        -32602,
        "a state is bound to its request"
    );
}

#[test]
fn stateless_missing_client_capability_is_32021() {
    let out = run(&[modern(1, "tools/call", json!({"name": "sample"}))]);
    assert_eq!(error_code(&out[0]), -32021);
    assert_eq!(
        out[0]["error"]["data"]["requiredCapabilities"],
        json!({"sampling": {}})
    );
    assert_eq!(
        out.len(),
        1,
        "the server never sends requests in 2026-07-28"
    );
}

#[test]
fn listen_acknowledges_then_streams_tagged_notifications_until_cancelled() {
    let listen = modern(
        "sub-1",
        "subscriptions/listen",
        json!({"notifications": {
        "resourceSubscriptions": ["tick://clock"], "resourcesListChanged": true, "toolsListChanged": true}}),
    );
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "sub-1"}});
    let out = run_paced(
        vec![
            vec![listen],
            vec![cancel.to_string(), modern(2, "tools/list", json!({}))],
            vec![modern(3, "tools/list", json!({}))],
        ],
        Duration::from_millis(100),
    );
    assert_eq!(out[0]["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        out[0]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "sub-1"
    );
    assert_eq!(
        out[0]["params"]["notifications"],
        json!({"resourceSubscriptions": ["tick://clock"], "resourcesListChanged": true}),
        "tools never change, so toolsListChanged is not honoured"
    );
    let streamed: Vec<&Value> = out
        .iter()
        .filter(|m| {
            m.get("method").is_some() && m["method"] != "notifications/subscriptions/acknowledged"
        })
        .collect();
    assert!(streamed.len() >= 2, "{out:?}");
    for message in &streamed {
        assert_eq!(
            message["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
            "sub-1"
        );
    }
    let after_cancel: Vec<&Value> = out.iter().skip_while(|m| m["id"] != 2).collect();
    assert_eq!(
        after_cancel.len(),
        2,
        "nothing is streamed after the cancellation: {after_cancel:?}"
    );
    assert_eq!(after_cancel[1]["id"], 3);
    assert!(
        out.iter().all(|m| m["id"] != "sub-1"),
        "a cancelled listen gets no response"
    );
}

// ---- Rules for what a handler may ask of the client ---------------------------------------

#[test]
fn sampling_with_tools_needs_the_sampling_tools_capability() {
    let out = legacy_with(
        "2025-11-25",
        json!({"sampling": {}}),
        &[request(1, "tools/call", json!({"name": "sample_tools"}))],
    );
    assert_eq!(out.len(), 1, "nothing sent to the client: {out:?}");
    let text = result(&out[0])["content"][0]["text"]
        .as_str()
        .unwrap_or("")
        .to_string();
    assert!(text.contains("\"tools\""), "{text}");
    let out = legacy_with("2025-11-25", json!({"sampling": {"tools": {}}}), &[
        request(1, "tools/call", json!({"name": "sample_tools"})),
        json!({"jsonrpc": "2.0", "id": 1, "result": {"role": "assistant", "content": {"type": "text", "text": "x"}, "model": "m", "stopReason": "toolUse"}}).to_string(),
    ]);
    assert_eq!(out[0]["method"], "sampling/createMessage");
    assert_eq!(result(&out[1])["content"][0]["text"], "stop: \"toolUse\"");
    let out = legacy_with(
        "2025-06-18",
        json!({"sampling": {"tools": {}}}),
        &[request(1, "tools/call", json!({"name": "sample_tools"}))],
    );
    assert_eq!(
        result(&out[0])["isError"],
        true,
        "tool use in sampling is 2025-11-25 and later"
    );
}

#[test]
fn elicitation_forms_must_be_flat_and_answers_must_fit_them() {
    let out = legacy_with("2025-11-25", json!({"elicitation": {}}), &[
        request(1, "tools/call", json!({"name": "ask_nested"})),
        request(2, "tools/call", json!({"name": "ask"})),
        json!({"jsonrpc": "2.0", "id": 1, "result": {"action": "accept", "content": {"name": 5}}}).to_string(),
    ]);
    let nested = result(&out[0]);
    assert_eq!(nested["isError"], true);
    assert!(nested["content"][0]["text"]
        .as_str()
        .unwrap_or("")
        .contains("form field `address`"));
    assert_eq!(
        out[1]["method"], "elicitation/create",
        "only the flat form was sent"
    );
    let answered = result(&out[2]);
    assert_eq!(answered["isError"], true);
    assert!(
        answered["content"][0]["text"]
            .as_str()
            .unwrap_or("")
            .contains("does not fit the form"),
        "{answered}"
    );
}

#[test]
fn progress_and_log_notifications_are_rate_limited_per_request() {
    let out = legacy(
        "2025-11-25",
        &[request(1, "tools/call", json!({"name": "chatty"}))],
    );
    let logs = out
        .iter()
        .filter(|m| m["method"] == "notifications/message")
        .count();
    assert_eq!(logs, 100, "a burst is cut at 100 per second");
    assert_eq!(
        result(out.last().expect("response"))["content"][0]["text"],
        "done"
    );
}

#[test]
fn a_handler_can_shorten_its_own_wait_for_the_client() {
    let mut lines = initialize("2025-11-25", json!({"sampling": {}}));
    lines.push(request(1, "tools/call", json!({"name": "impatient"})));
    let out = run_paced(
        vec![lines, vec![request(2, "ping", json!({}))]],
        Duration::from_millis(500),
    );
    let r = result(&out[3]);
    assert!(
        r["content"][0]["text"]
            .as_str()
            .unwrap_or("")
            .contains("within 50 ms"),
        "{r}"
    );
}

#[test]
fn the_response_limit_applies_to_each_answer_in_a_batch() {
    let batch = json!([
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "big"}},
        {"jsonrpc": "2.0", "id": 2, "method": "resources/read", "params": {"uri": "test://huge"}},
        {"jsonrpc": "2.0", "id": 3, "method": "ping"},
    ]);
    let out = legacy("2025-03-26", &[batch.to_string()]);
    let replies = out[0].as_array().expect("one answer array");
    assert_eq!(
        result(&replies[0])["isError"],
        true,
        "an oversized tool result is a tool error"
    );
    assert_eq!(error_code(&replies[1]), -32001);
    assert_eq!(replies[2], json!({"jsonrpc": "2.0", "id": 3, "result": {}}));
}

#[test]
fn the_tool_result_budget_turns_oversized_results_into_tool_errors() {
    let server = test_server(Limits {
        max_result_bytes: 2048,
        max_response_bytes: 1 << 20,
        ..limits()
    });
    let mut lines = initialize("2025-11-25", json!({}));
    lines.extend([
        request(1, "tools/call", json!({"name": "big"})),
        request(
            2,
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "small"}}),
        ),
        // Image data is not text a model reads: a 10 kB picture fits a 2 kB text budget.
        request(3, "tools/call", json!({"name": "picture"})),
    ]);
    let out = run_with(&server, &lines);
    let big = result(&out[1]);
    assert_eq!(big["isError"], true);
    let message = big["content"][0]["text"].as_str().unwrap_or("");
    assert!(
        message.contains("5000 bytes") && message.contains("2048-byte budget"),
        "{message}"
    );
    assert_eq!(result(&out[2])["content"][0]["text"], "small");
    let picture = result(&out[3]);
    assert!(picture.get("isError").is_none(), "{picture}");
    assert_eq!(picture["content"][1]["type"], "image");
}

#[test]
fn client_roots_are_asked_once_until_the_client_says_they_changed() {
    let roots = |id: u64, names: &[&str]| {
        let roots: Vec<Value> = names
            .iter()
            .map(|n| json!({"uri": format!("file:///{n}"), "name": n}))
            .collect();
        json!({"jsonrpc": "2.0", "id": id, "result": {"roots": roots}}).to_string()
    };
    let out = legacy_with(
        "2025-11-25",
        json!({"roots": {"listChanged": true}}),
        &[
            request(1, "tools/call", json!({"name": "roots"})),
            roots(1, &["a"]),
            request(2, "tools/call", json!({"name": "roots"})),
            request(
                3,
                "completion/complete",
                json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "style", "value": ""}}),
            ),
            json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}).to_string(),
            request(4, "tools/call", json!({"name": "roots"})),
            roots(2, &["a", "b"]),
            request(
                5,
                "completion/complete",
                json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "style", "value": ""}}),
            ),
        ],
    );
    let methods: Vec<&str> = out.iter().filter_map(|m| m["method"].as_str()).collect();
    assert_eq!(
        methods,
        ["roots/list", "roots/list"],
        "asked once per change: {out:?}"
    );
    let answers: Vec<&Value> = out
        .iter()
        .filter(|m| m.get("id").is_some() && m.get("method").is_none())
        .collect();
    assert_eq!(result(answers[0])["content"][0]["text"], "1 roots");
    assert_eq!(
        result(answers[1])["content"][0]["text"],
        "1 roots",
        "from the cache"
    );
    assert_eq!(
        result(answers[2])["completion"]["values"],
        json!(["a"]),
        "completers ask through their context"
    );
    assert_eq!(
        result(answers[3])["content"][0]["text"],
        "2 roots",
        "asked again after list_changed"
    );
    assert_eq!(
        result(answers[4])["completion"]["values"],
        json!(["a", "b"])
    );
}

/// The stdio transport works over any byte stream pair: a Unix socket is one more.
#[cfg(unix)]
#[test]
fn a_unix_socket_serves_a_session_through_the_same_transport() {
    use std::io::{BufRead, BufReader};
    use std::os::unix::net::UnixStream;
    let (server_end, client) = UnixStream::pair().expect("socket pair");
    let server = thread::spawn(move || {
        let input = server_end.try_clone().expect("clone");
        minimcp::serve(&test_server(limits()), input, server_end)
    });
    let mut writer = client.try_clone().expect("clone");
    let mut lines = initialize("2025-11-25", json!({}));
    lines.push(request(
        1,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "over a socket"}}),
    ));
    for line in &lines {
        writer
            .write_all(format!("{line}\n").as_bytes())
            .expect("write");
    }
    let mut reader = BufReader::new(client);
    let mut answers = Vec::new();
    for _ in 0..2 {
        let mut line = String::new();
        reader.read_line(&mut line).expect("read");
        answers.push(serde_json::from_str::<Value>(&line).expect("json"));
    }
    assert_eq!(result(&answers[1])["content"][0]["text"], "over a socket");
    writer.shutdown(std::net::Shutdown::Write).expect("close");
    server.join().expect("no panic").expect("clean end");
}
