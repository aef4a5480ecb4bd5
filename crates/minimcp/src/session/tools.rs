//! Tools: listing them, and calling one — its arguments checked against its schema, its
//! output against its output schema and the result budget — and the result written
//! straight from the handler's values.
//!
//! A `tools/call` result built as a `Value` tree was serialized once and dropped: a map
//! node and a key string per member, each allocated and freed per call, for the most
//! frequent request of all. [`ToolResult`] writes the same bytes (members in the sorted
//! order a `Value` object has) without the tree.

use std::sync::Arc;

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use serde_json::{json, Map, Value};

use super::handler::{invalid, string};
use super::{Outcome, Payload, Session};
use crate::context::Client;
use crate::error::McpError;
use crate::jsonrpc::ErrorObject;
use crate::model::{Arguments, Content, HandlerError, ToolOutput};
use crate::protocol::{meta, Version};
use crate::server::{trim_listing, Server};
use minimcp_base::log;
use minimcp_base::request_state::Binding;
use minimcp_base::schema;

/// How a result over a limit asks the model to try again.
pub(crate) fn ask_for_less(what: &str, size: usize, limit: usize, which: &str) -> String {
    format!("{what} is {size} bytes, over this server's {limit}-byte {which}. Ask for less: a narrower path or pattern, a smaller range or limit, or one page at a time.")
}

/// What replaces a response over the response limit: error −32001, or for a tool call a
/// tool result saying so (`isError: true`), so the model can ask for less.
pub(super) fn too_large(
    tool_call: Option<bool>,
    size: usize,
    limit: usize,
) -> Result<Payload, ErrorObject> {
    let error = McpError::ResponseTooLarge { size, limit };
    log::warn(format_args!("{error}"));
    let Some(stateless) = tool_call else {
        return Err(error.to_object(false));
    };
    let text = ask_for_less("The tool's result", size, limit, "response limit");
    let mut result = json!({ "content": [{ "type": "text", "text": text }], "isError": true });
    if stateless {
        result["resultType"] = json!("complete");
    }
    Ok(Payload::Json(result))
}

impl Session<'_> {
    pub(super) fn list_tools(&self, params: &Map<String, Value>, client: &Client) -> Outcome {
        let server = self.server;
        self.list(params, "tools", "tools", &server.tools, |tool| {
            server.tool_json(tool, client.version)
        })
    }

    pub(super) fn call_tool(
        &mut self,
        mut params: Map<String, Value>,
        client: &Client,
    ) -> Result<Payload, McpError> {
        let (server, version) = (self.server, client.version);
        let failed = |message: String| Ok(tool_result(ToolOutput::error(message), version, server));
        let mut arguments = match params.remove("arguments") {
            None => Value::Object(Map::new()),
            Some(args @ Value::Object(_)) => args,
            Some(_) => return Err(invalid("`arguments` must be an object")),
        };
        let name = string(&params, "name", "`name` must be a string: the tool to call")?;
        let tool = server.tool_index.get(name).map(|&i| &server.tools[i]);
        let tool = tool.ok_or_else(|| {
            let near = schema::closest(name, server.tool_names()).map(str::to_string);
            McpError::UnknownTool(name.to_string(), near)
        })?;
        if let Err(problems) =
            schema::validate(&tool.input_schema, &mut arguments, tool.has_defaults)
        {
            let message = format!(
                "Invalid arguments for tool {name}: {}.",
                problems.join("; ")
            );
            // SEP-1303: from 2025-11-25 the model sees this as a tool error and can fix it.
            if !version.input_errors_are_tool_errors() {
                return Err(invalid(message));
            }
            return failed(message);
        }
        let mut scope = self.scope(client);
        if version.is_stateless() {
            let binding = Binding::tool_call(name, &arguments);
            scope.inputs = self.sealed_inputs(client, &binding, &params)?;
        }
        let Value::Object(arguments) = arguments else {
            return Err(McpError::Internal);
        };
        let arguments = Arguments(arguments);
        let (result, inputs) = self.run_handler(scope, |ctx| (tool.handler)(&arguments, ctx));
        let output = match result {
            Some(Ok(output)) => output,
            None => return Err(McpError::Internal),
            Some(Err(error)) => {
                let arguments = Value::Object(arguments.0);
                let binding = Binding::tool_call(name, &arguments);
                if let Some(outcome) = self.input_outcome(client, &error, &binding, &inputs) {
                    return outcome.map(Payload::Json);
                }
                match error {
                    HandlerError::Internal(detail) => {
                        log::warn(format_args!("tool {name} failed: {detail}"));
                        ToolOutput::error(format!("Tool {name} failed with an internal error."))
                    }
                    other => ToolOutput::error(other.to_string()),
                }
            }
        };
        if let (Some(schema), false) = (&tool.output_schema, output.is_error) {
            let structured = output.structured.as_ref();
            if structured.is_none_or(|s| schema::validate_ref(schema, s).is_err()) {
                log::error(format_args!(
                    "tool {name} returned output that does not match its outputSchema"
                ));
                return failed(format!(
                    "Tool {name} failed: its output did not match its declared outputSchema."
                ));
            }
        }
        let (size, budget) = (output.budget_size(), server.limits.max_result_bytes);
        if size > budget {
            log::warn(format_args!(
                "tool {name} returned {size} bytes, over the {budget}-byte result budget"
            ));
            let what = format!("The result of tool {name}");
            let which = "budget for one tool result";
            return failed(ask_for_less(&what, size, budget, which));
        }
        Ok(tool_result(output, version, server))
    }
}

/// A `tools/call` result, already adapted to the client's protocol version.
pub(crate) struct ToolResult {
    pub(crate) content: Vec<Block>,
    /// `structuredContent`, when the client's version has it.
    pub(crate) structured: Option<Value>,
    pub(crate) is_error: bool,
    /// 2026-07-28: the server's `Implementation`, sent as `_meta` serverInfo together with
    /// `"resultType": "complete"` (what every result of that version carries).
    pub(crate) server_info: Option<Arc<Value>>,
}

pub(crate) enum Block {
    /// `{"type": "text", "text": …}`: nearly every block.
    Text(String),
    Json(Value),
}

// Members are written in sorted order, as a `Value` object (a sorted map) writes them: the
// bytes on the wire are what they were when tool results were built as trees.
impl Serialize for ToolResult {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        if let Some(info) = &self.server_info {
            map.serialize_entry("_meta", &ServerInfo(info.as_ref()))?;
        }
        map.serialize_entry("content", &self.content)?;
        if self.is_error {
            map.serialize_entry("isError", &true)?;
        }
        if self.server_info.is_some() {
            map.serialize_entry("resultType", "complete")?;
        }
        if let Some(structured) = &self.structured {
            map.serialize_entry("structuredContent", structured)?;
        }
        map.end()
    }
}

struct ServerInfo<'a>(&'a Value);

impl Serialize for ServerInfo<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry(meta::SERVER_INFO, self.0)?;
        map.end()
    }
}

impl Serialize for Block {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Block::Text(text) => {
                let mut map = serializer.serialize_map(Some(2))?;
                map.serialize_entry("text", text)?;
                map.serialize_entry("type", "text")?;
                map.end()
            }
            Block::Json(value) => value.serialize(serializer),
        }
    }
}

/// A `CallToolResult` for a client of `version`; in 2026-07-28 with the server's identity and
/// `resultType`, as every result of that version.
fn tool_result(output: ToolOutput, version: Version, server: &Server) -> Payload {
    // The handler's values are moved into the result, which is serialized from them: no
    // JSON tree is built for a tool's answer.
    let content = output
        .content
        .into_iter()
        .map(|c| match c {
            Content::Text { text } => Block::Text(text),
            other => Block::Json(content_json(&other, version)),
        })
        .collect();
    let stateless = version.is_stateless();
    Payload::Tool(ToolResult {
        content,
        structured: output
            .structured
            .filter(|_| version.has_structured_output()),
        is_error: output.is_error,
        server_info: stateless.then(|| server.shared_implementation(version)),
    })
}

/// A content block as a client of `version` can read it: audio (2025-03-26+) and resource
/// links (2025-06-18+) become text for older clients.
pub(super) fn content_json(content: &Content, version: Version) -> Value {
    match content {
        Content::Audio { mime_type, .. } if !version.has_annotations() => {
            json!({ "type": "text", "text": format!("[{mime_type} audio omitted: protocol {} has no audio content]", version.as_str()) })
        }
        Content::ResourceLink(info) if !version.has_structured_output() => {
            json!({ "type": "text", "text": format!("Resource: {} ({})", info.uri, info.name) })
        }
        Content::ResourceLink(info) => {
            let mut link = trim_listing(json!(info), version);
            link["type"] = json!("resource_link");
            link
        }
        other => json!(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tool_results_are_written_as_their_json_trees_would_be() {
        let results = || {
            [
                ToolResult {
                    content: vec![Block::Text("a \"quoted\"\nline".into())],
                    structured: None,
                    is_error: false,
                    server_info: None,
                },
                ToolResult {
                    content: vec![
                        Block::Json(json!({"type": "image", "data": "AA==", "mimeType": "x/y"})),
                        Block::Text(String::new()),
                    ],
                    structured: Some(json!({"z": 1, "a": [true]})),
                    is_error: true,
                    server_info: Some(Arc::new(json!({"name": "n", "version": "1"}))),
                },
                ToolResult {
                    content: Vec::new(),
                    structured: None,
                    is_error: true,
                    server_info: None,
                },
                ToolResult {
                    content: vec![Block::Text("x".into())],
                    structured: None,
                    is_error: false,
                    server_info: Some(Arc::new(json!({}))),
                },
            ]
        };
        for result in results() {
            let answer = Payload::Tool(result);
            let typed = serde_json::to_string(&answer).expect("typed");
            let tree = serde_json::to_value(&answer).expect("tree").to_string();
            assert_eq!(typed, tree, "members in a Value's (sorted) order");
        }
        let [_, decorated, ..] = results();
        assert_eq!(
            serde_json::to_value(Payload::Tool(decorated)).expect("json"),
            json!({
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "n", "version": "1"}},
                "content": [
                    {"type": "image", "data": "AA==", "mimeType": "x/y"},
                    {"type": "text", "text": ""}
                ],
                "isError": true,
                "resultType": "complete",
                "structuredContent": {"z": 1, "a": [true]}
            })
        );
    }

    #[test]
    fn content_is_downgraded_for_older_clients() {
        let audio = Content::audio(b"RIFF", "audio/wav");
        assert_eq!(content_json(&audio, Version::V2025_03_26)["type"], "audio");
        assert_eq!(content_json(&audio, Version::V2024_11_05)["type"], "text");
        let link = Content::ResourceLink(crate::model::ResourceInfo::new("file:///a", "a"));
        assert_eq!(
            content_json(&link, Version::V2025_06_18)["type"],
            "resource_link"
        );
        assert_eq!(content_json(&link, Version::V2025_03_26)["type"], "text");
    }

    #[test]
    fn structured_content_only_from_2025_06_18() {
        let output = ToolOutput::structured(json!({"n": 1}));
        let json = |answer| serde_json::to_value(answer).expect("serializable");
        let server = Server::builder("t", "1").build().expect("valid");
        assert!(
            json(tool_result(output.clone(), Version::V2025_03_26, &server))
                .get("structuredContent")
                .is_none()
        );
        assert_eq!(
            json(tool_result(output, Version::V2025_06_18, &server))["structuredContent"],
            json!({"n": 1})
        );
    }
}
