//! The fixture tools, one per `tools-*`, sampling and elicitation scenario of the suite.

use std::thread::sleep;
use std::time::Duration;

use serde_json::{json, Map, Value};

use super::media::{png_pixel, wav_tone};
use minimcp::resource::ResourceContents;
use minimcp::{Builder, Content, Context, Elicited, LogLevel, Tool, ToolOutput};

/// The pause between the steps of the logging and progress tools (the suite's reference
/// server uses 50 ms; the client must see every step before the response).
const STEP: Duration = Duration::from_millis(50);

/// A red pixel: the image every image fixture returns.
pub(super) const RED: [u8; 4] = [255, 0, 0, 255];

/// Adds the fixture tools.
pub(super) fn add(builder: Builder) -> Builder {
    let no_arguments = || json!({"type": "object", "properties": {}});
    let tool = |name: &str, description: &str, handler: fn(&mut Context<'_>) -> ToolOutput| {
        Tool::new(name, description, no_arguments(), move |_, ctx| {
            Ok(handler(ctx))
        })
    };
    builder
        .tool(tool("test_simple_text", "Returns one text block.", |_| {
            ToolOutput::text("This is a simple text response for testing.")
        }))
        .tool(tool(
            "test_image_content",
            "Returns one image block (a 1x1 PNG).",
            |_| ToolOutput::content(vec![Content::image(&png_pixel(RED), "image/png")]),
        ))
        .tool(tool(
            "test_audio_content",
            "Returns one audio block (a short WAV tone).",
            |_| ToolOutput::content(vec![Content::audio(&wav_tone(440, 100), "audio/wav")]),
        ))
        .tool(tool(
            "test_embedded_resource",
            "Returns one embedded text resource.",
            |_| {
                ToolOutput::content(vec![Content::Resource {
                    resource: ResourceContents::text(
                        "test://embedded-resource",
                        Some("text/plain"),
                        "This is an embedded resource content.",
                    ),
                }])
            },
        ))
        .tool(tool(
            "test_multiple_content_types",
            "Returns a text, an image and an embedded resource block in one result.",
            |_| {
                ToolOutput::content(vec![
                    Content::text("Multiple content types test:"),
                    Content::image(&png_pixel(RED), "image/png"),
                    Content::Resource {
                        resource: ResourceContents::text(
                            "test://mixed-content-resource",
                            Some("application/json"),
                            json!({"test": "data", "value": 123}).to_string(),
                        ),
                    },
                ])
            },
        ))
        .tool(tool(
            "test_tool_with_logging",
            "Sends three info log messages while it runs, 50 ms apart.",
            |ctx| {
                ctx.log(LogLevel::Info, "Tool execution started");
                sleep(STEP);
                ctx.log(LogLevel::Info, "Tool processing data");
                sleep(STEP);
                ctx.log(LogLevel::Info, "Tool execution completed");
                ToolOutput::text("Tool with logging executed successfully")
            },
        ))
        .tool(tool(
            "test_error_handling",
            "Always fails with a tool error (isError: true), never a protocol error.",
            |_| ToolOutput::error("This tool intentionally returns an error for testing"),
        ))
        .tool(tool(
            "test_tool_with_progress",
            "Reports progress 0, 50 and 100 of 100, 50 ms apart, when given a progressToken.",
            |ctx| {
                for (i, step) in [0.0, 50.0, 100.0].into_iter().enumerate() {
                    if i > 0 {
                        sleep(STEP);
                    }
                    let message = format!("Completed step {step} of 100");
                    ctx.progress(step, Some(100.0), Some(&message));
                }
                ToolOutput::text("Progress reported: 0, 50 and 100 of 100")
            },
        ))
        .tool(tool(
            "test_reconnection",
            "Returns a text block. Over Streamable HTTP in a 2025-11-25 session it first ends \
             the call's event stream (SEP-1699), so the result arrives when the client \
             resumes with Last-Event-ID; over stdio there is no stream to end.",
            |ctx| {
                ctx.release_stream();
                ToolOutput::text("Reconnection test completed.")
            },
        ))
        .tool(sampling())
        .tool(elicitation())
        .tool(elicitation_defaults())
        .tool(elicitation_enums())
        .tool(json_schema_2020_12())
}

fn sampling() -> Tool {
    Tool::new(
        "test_sampling",
        "Asks the client's model to answer `prompt` (sampling/createMessage) and returns \
         the answer.",
        json!({
            "type": "object",
            "properties": {"prompt": {"type": "string", "description": "The prompt to send to the model."}},
            "required": ["prompt"]
        }),
        |args, ctx| {
            let answer = ctx.sample(json!({
                "messages": [{"role": "user", "content": {"type": "text", "text": args.str("prompt")?}}],
                "maxTokens": 100
            }))?;
            // `content` is one block, or (2025-11-25) possibly a list of blocks.
            let text = match &answer["content"] {
                Value::Array(blocks) => blocks.iter().find_map(|b| b["text"].as_str()),
                block => block["text"].as_str(),
            };
            Ok(ToolOutput::text(format!(
                "LLM response: {}",
                text.unwrap_or("(no text content)")
            )))
        },
    )
}

fn elicitation() -> Tool {
    Tool::new(
        "test_elicitation",
        "Asks the user for a username and an email address (elicitation/create, form mode) \
         with `message`, and returns the answer.",
        json!({
            "type": "object",
            "properties": {"message": {"type": "string", "description": "The message shown to the user."}},
            "required": ["message"]
        }),
        |args, ctx| {
            let answer = ctx.elicit(
                args.str("message")?,
                json!({
                    "type": "object",
                    "properties": {
                        "username": {"type": "string", "description": "Your user name"},
                        "email": {"type": "string", "format": "email", "description": "Your email address"}
                    },
                    "required": ["username", "email"]
                }),
            )?;
            Ok(ToolOutput::text(describe("User response", &answer)))
        },
    )
}

/// SEP-1034: a default on every primitive type.
fn elicitation_defaults() -> Tool {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "description": "User age", "default": 30},
            "score": {"type": "number", "description": "User score", "default": 95.5},
            "status": {
                "type": "string",
                "description": "User status",
                "enum": ["active", "inactive", "pending"],
                "default": "active"
            },
            "verified": {"type": "boolean", "description": "Verification status", "default": true}
        },
        "required": []
    });
    elicit_tool(
        "test_elicitation_sep1034_defaults",
        "Asks the user to review a form whose fields all have defaults (SEP-1034).",
        "Please review and update the form fields with defaults",
        schema,
    )
}

/// SEP-1330: the five enum shapes (untitled/titled single, legacy, untitled/titled multi).
fn elicitation_enums() -> Tool {
    let titled = |label: &str| -> Vec<Value> {
        ["First", "Second", "Third"]
            .iter()
            .enumerate()
            .map(|(i, n)| json!({"const": format!("value{}", i + 1), "title": format!("{n} {label}")}))
            .collect()
    };
    let schema = json!({
        "type": "object",
        "properties": {
            "untitledSingle": {
                "type": "string",
                "description": "Pick one (plain enum)",
                "enum": ["option1", "option2", "option3"]
            },
            "titledSingle": {
                "type": "string",
                "description": "Pick one (titled options)",
                "oneOf": titled("Option")
            },
            "legacyEnum": {
                "type": "string",
                "description": "Pick one (legacy enumNames)",
                "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"]
            },
            "untitledMulti": {
                "type": "array",
                "description": "Pick one or more (plain enum)",
                "minItems": 1,
                "maxItems": 3,
                "items": {"type": "string", "enum": ["option1", "option2", "option3"]}
            },
            "titledMulti": {
                "type": "array",
                "description": "Pick one or more (titled options)",
                "minItems": 1,
                "maxItems": 3,
                "items": {"anyOf": titled("Choice")}
            }
        },
        "required": []
    });
    elicit_tool(
        "test_elicitation_sep1330_enums",
        "Asks the user to fill a form with every enum shape (SEP-1330).",
        "Please select options from the enum fields",
        schema,
    )
}

/// A tool without arguments that asks the user to fill `schema` and returns the answer.
fn elicit_tool(name: &str, description: &str, message: &'static str, schema: Value) -> Tool {
    Tool::new(
        name,
        description,
        json!({"type": "object", "properties": {}}),
        move |_, ctx| {
            let answer = ctx.elicit(message, schema.clone())?;
            Ok(ToolOutput::text(describe("Elicitation completed", &answer)))
        },
    )
}

fn describe(what: &str, answer: &Elicited) -> String {
    let (action, content) = match answer {
        Elicited::Accept(content) => ("accept", content.clone()),
        Elicited::Decline => ("decline", Map::new()),
        Elicited::Cancel => ("cancel", Map::new()),
    };
    format!(
        "{what}: action={action}, content={}",
        Value::Object(content)
    )
}

/// SEP-1613 and SEP-2106: a 2020-12 input schema with `$schema`, `$defs` (holding an
/// `$anchor`), `$ref`, `allOf`/`anyOf`, `if`/`then`/`else` and `additionalProperties: false`,
/// listed verbatim (suite 0.2.0-alpha.12 checks the last three at the 2026-07-28 wire).
fn json_schema_2020_12() -> Tool {
    Tool::new(
        "json_schema_2020_12_tool",
        "Tool with JSON Schema 2020-12 features ($schema, $defs, $anchor, $ref, allOf/anyOf, \
         if/then/else, additionalProperties): give a name and a phone number or an email.",
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {
                "address": {
                    "$anchor": "addressDef",
                    "type": "object",
                    "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
                }
            },
            "properties": {
                "name": {"type": "string"},
                "address": {"$ref": "#/$defs/address"},
                "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                "phone": {"type": "string"},
                "email": {"type": "string"}
            },
            "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
            "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
            "then": {"required": ["phone"]},
            "else": {"required": ["email"]},
            "additionalProperties": false
        }),
        |args, _| {
            Ok(ToolOutput::text(format!(
                "Received: {}",
                Value::Object(args.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            )))
        },
    )
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::super::tests::{call, response, session, session_with};

    /// The notifications of `method` written before the response to `id`.
    fn before_response(lines: &[Value], id: i64, method: &str) -> Vec<Value> {
        lines
            .iter()
            .take_while(|m| !(m["id"] == json!(id) && m.get("method").is_none()))
            .filter(|m| m["method"] == method)
            .map(|m| m["params"].clone())
            .collect()
    }

    #[test]
    fn content_tools_return_each_block_type() {
        let lines = session(&[
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "test_simple_text"}}),
            call(2, "test_image_content", json!({})),
            call(3, "test_audio_content", json!({})),
            call(4, "test_embedded_resource", json!({})),
            call(5, "test_multiple_content_types", json!({})),
            call(6, "test_error_handling", json!({})),
        ]);
        let content = |id| response(&lines, id)["result"]["content"].clone();
        assert_eq!(
            content(1)[0]["text"],
            "This is a simple text response for testing."
        );
        assert_eq!(content(2)[0]["type"], "image");
        assert_eq!(content(3)[0]["type"], "audio");
        assert_eq!(content(3)[0]["mimeType"], "audio/wav");
        assert!(content(3)[0]["data"]
            .as_str()
            .is_some_and(|d| d.starts_with("UklGR")));
        assert_eq!(content(4)[0]["resource"]["uri"], "test://embedded-resource");
        let types: Vec<Value> = content(5)
            .as_array()
            .expect("array")
            .iter()
            .map(|c| c["type"].clone())
            .collect();
        assert_eq!(types, [json!("text"), json!("image"), json!("resource")]);
        let error = response(&lines, 6);
        assert_eq!(error["result"]["isError"], json!(true));
        assert!(error.get("error").is_none());
    }

    #[test]
    fn logging_and_progress_arrive_before_the_response() {
        let lines = session(&[
            json!({"jsonrpc": "2.0", "id": 1, "method": "logging/setLevel", "params": {"level": "debug"}}),
            call(2, "test_tool_with_logging", json!({})),
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
                "name": "test_tool_with_progress", "arguments": {}, "_meta": {"progressToken": 3}}}),
        ]);
        let logs = before_response(&lines, 2, "notifications/message");
        assert_eq!(logs.len(), 3, "{lines:?}");
        assert!(logs.iter().all(|l| l["level"] == "info"));
        let progress = before_response(&lines, 3, "notifications/progress");
        let values: Vec<Value> = progress.iter().map(|p| p["progress"].clone()).collect();
        assert_eq!(values, [json!(0.0), json!(50.0), json!(100.0)]);
        assert!(progress
            .iter()
            .all(|p| p["progressToken"] == json!(3) && p["total"] == json!(100.0)));
    }

    #[test]
    fn sampling_round_trip() {
        // The server's first request to the client gets id 1; its answer follows the call.
        let lines = session(&[
            call(
                7,
                "test_sampling",
                json!({"prompt": "Test prompt for sampling"}),
            ),
            json!({"jsonrpc": "2.0", "id": 1, "result": {"role": "assistant", "model": "test-model",
                "content": {"type": "text", "text": "This is a test response from the client"}}}),
        ]);
        let request = lines
            .iter()
            .find(|m| m["method"] == "sampling/createMessage")
            .expect("asked");
        assert_eq!(request["params"]["maxTokens"], 100);
        assert_eq!(
            request["params"]["messages"][0]["content"]["text"],
            "Test prompt for sampling"
        );
        assert_eq!(
            response(&lines, 7)["result"]["content"][0]["text"],
            "LLM response: This is a test response from the client"
        );
    }

    #[test]
    fn elicitation_forms_have_the_checked_shapes() {
        let accept = |content: Value| json!({"jsonrpc": "2.0", "id": 1, "result": {"action": "accept", "content": content}});
        let lines = session(&[
            call(
                2,
                "test_elicitation",
                json!({"message": "Please provide your information"}),
            ),
            accept(json!({"username": "testuser", "email": "test@example.com"})),
        ]);
        let request = lines
            .iter()
            .find(|m| m["method"] == "elicitation/create")
            .expect("asked");
        assert_eq!(request["params"]["mode"], "form");
        assert_eq!(request["params"]["requestedSchema"]["type"], "object");
        assert!(response(&lines, 2)["result"]["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("action=accept") && t.contains("testuser")));

        let lines = session(&[
            call(2, "test_elicitation_sep1034_defaults", json!({})),
            accept(json!({})),
        ]);
        let props = &lines
            .iter()
            .find(|m| m["method"] == "elicitation/create")
            .expect("asked")["params"]["requestedSchema"]["properties"];
        assert_eq!(props["name"]["default"], "John Doe");
        assert_eq!(
            props["age"],
            json!({"type": "integer", "description": "User age", "default": 30})
        );
        assert_eq!(props["score"]["default"], 95.5);
        assert_eq!(props["status"]["default"], "active");
        assert_eq!(props["verified"]["default"], true);

        let lines = session(&[
            call(2, "test_elicitation_sep1330_enums", json!({})),
            accept(json!({})),
        ]);
        let props = &lines
            .iter()
            .find(|m| m["method"] == "elicitation/create")
            .expect("asked")["params"]["requestedSchema"]["properties"];
        assert!(props["untitledSingle"].get("oneOf").is_none());
        assert!(props["titledSingle"].get("enum").is_none());
        assert_eq!(
            props["titledSingle"]["oneOf"][0],
            json!({"const": "value1", "title": "First Option"})
        );
        assert_eq!(
            props["legacyEnum"]["enumNames"].as_array().map(Vec::len),
            Some(3)
        );
        assert_eq!(
            props["untitledMulti"]["items"]["enum"]
                .as_array()
                .map(Vec::len),
            Some(3)
        );
        assert_eq!(
            props["titledMulti"]["items"]["anyOf"][2],
            json!({"const": "value3", "title": "Third Choice"})
        );
    }

    #[test]
    fn without_the_capability_the_tool_says_so() {
        let lines = session_with(
            &[call(2, "test_sampling", json!({"prompt": "p"}))],
            json!({}),
        );
        let result = &response(&lines, 2)["result"];
        assert_eq!(result["isError"], json!(true));
        assert!(lines
            .iter()
            .all(|m| m["method"] != "sampling/createMessage"));
    }

    #[test]
    fn the_2020_12_schema_is_listed_verbatim() {
        let lines = session(&[json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})]);
        let tools = response(&lines, 1)["result"]["tools"].clone();
        let tool = tools
            .as_array()
            .expect("array")
            .iter()
            .find(|t| t["name"] == "json_schema_2020_12_tool")
            .expect("listed")
            .clone();
        let schema = &tool["inputSchema"];
        assert_eq!(
            schema["$schema"],
            "https://json-schema.org/draft/2020-12/schema"
        );
        assert_eq!(
            schema["$defs"]["address"]["properties"]["city"],
            json!({"type": "string"})
        );
        assert_eq!(
            schema["properties"]["address"],
            json!({"$ref": "#/$defs/address"})
        );
        assert_eq!(schema["additionalProperties"], json!(false));
        assert_eq!(schema["$defs"]["address"]["$anchor"], "addressDef");
        assert_eq!(schema["then"], json!({"required": ["phone"]}));
        assert_eq!(schema["else"], json!({"required": ["email"]}));
        assert!(schema["allOf"][0]["anyOf"].is_array());

        // The listed rules are the enforced ones.
        let lines = session(&[
            call(
                2,
                "json_schema_2020_12_tool",
                json!({"name": "Ada", "email": "a@b.c"}),
            ),
            call(
                3,
                "json_schema_2020_12_tool",
                json!({"name": "Ada", "contactMethod": "phone", "email": "a@b.c"}),
            ),
        ]);
        assert!(response(&lines, 2)["result"].get("isError").is_none());
        assert_eq!(response(&lines, 3)["result"]["isError"], json!(true));
    }
}
