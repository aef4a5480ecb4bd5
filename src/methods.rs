//! The methods both protocol eras share — tools, prompts, resources, completion — and the
//! machinery they share: pages and cursors, request scopes, running handlers (a panic
//! becomes −32603), and 2026-07-28 multi round-trip inputs.

use std::collections::BTreeMap;
use std::panic::{self, AssertUnwindSafe};

use serde_json::{json, Map, Value};

use crate::answer::{Answer, Block, ToolResult};
use crate::context::{Context, Inputs, NotificationBudget, Scope};
use crate::dispatch::{invalid, uri_param, Era, Outcome};
use crate::encoding::{base64url, base64url_decode};
use crate::error::McpError;
use crate::jsonrpc::RequestId;
use crate::log;
use crate::model::{Arguments, Content, HandlerError, InputError, PromptMessage, ToolOutput};
use crate::mrtr::{self, Binding};
use crate::protocol::{self, Version};
use crate::schema;
use crate::server::trim_listing;
use crate::session::Connection;

/// Completion results carry at most this many values (MCP CP-3).
const MAX_COMPLETIONS: usize = 100;

impl<'s> Connection<'s> {
    // ---- Tools --------------------------------------------------------------------------

    pub(crate) fn list_tools(&self, params: &Map<String, Value>, era: &Era) -> Outcome {
        let tools = &self.server.tools;
        let (start, end, next) = self.page(params, "tools", tools.len())?;
        let listed: Vec<Value> = tools[start..end]
            .iter()
            .map(|t| self.server.tool_json(t, era.version))
            .collect();
        Ok(with_cursor(json!({ "tools": listed }), next))
    }

    pub(crate) fn call_tool(
        &mut self,
        id: &RequestId,
        mut params: Map<String, Value>,
        era: &Era,
    ) -> Result<Answer, McpError> {
        let server = self.server;
        let mut arguments = match params.remove("arguments") {
            None => Value::Object(Map::new()),
            Some(args @ Value::Object(_)) => args,
            Some(_) => return Err(invalid("`arguments` must be an object")),
        };
        let name = params
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| invalid("`name` must be a string: the tool to call"))?;
        let tool = server
            .tool_index
            .get(name)
            .map(|&i| &server.tools[i])
            .ok_or_else(|| {
                let names = server.tools.iter().map(|t| t.name.as_str());
                let near = schema::closest(name, names).map(str::to_string);
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
            return if era.version.input_errors_are_tool_errors() {
                Ok(tool_result(ToolOutput::error(message), era.version))
            } else {
                Err(invalid(message))
            };
        }
        let binding = Binding {
            method: "tools/call",
            target: name,
            arguments: &arguments,
        };
        let inputs = self.open_inputs(era, &binding, &params)?;
        let Value::Object(arguments) = arguments else {
            return Err(McpError::Internal);
        };
        let arguments = Arguments(arguments);
        let scope = self.scope(id, &params, era, inputs);
        let (result, inputs) = self.run_handler(scope, |ctx| (tool.handler)(&arguments, ctx));
        let output = match result {
            Some(Ok(output)) => output,
            Some(Err(error)) => {
                let binding = Binding {
                    method: "tools/call",
                    target: name,
                    arguments: &Value::Object(arguments.0.clone()),
                };
                if let Some(outcome) = self.input_outcome(era, &error, &binding, &inputs) {
                    return outcome.map(Answer::Json);
                }
                match error {
                    HandlerError::Internal(detail) => {
                        log::warn(format_args!("tool {name} failed: {detail}"));
                        ToolOutput::error(format!("Tool {name} failed with an internal error."))
                    }
                    other => ToolOutput::error(other.to_string()),
                }
            }
            None => return Err(McpError::Internal),
        };
        if let (Some(schema), false) = (&tool.output_schema, output.is_error) {
            let conforms = output
                .structured
                .as_ref()
                .is_some_and(|s| schema::validate_ref(schema, s).is_ok());
            if !conforms {
                log::error(format_args!(
                    "tool {name} returned output that does not match its outputSchema"
                ));
                return Ok(tool_result(
                    ToolOutput::error(format!(
                        "Tool {name} failed: its output did not match its declared outputSchema."
                    )),
                    era.version,
                ));
            }
        }
        let budget = server.limits.max_result_bytes;
        let size = output.budget_size();
        if size > budget {
            log::warn(format_args!(
                "tool {name} returned {size} bytes, over the {budget}-byte result budget"
            ));
            return Ok(tool_result(
                ToolOutput::error(format!(
                    "The result of tool {name} is {size} bytes, over this server's {budget}-byte budget for one tool result. Ask for less: a narrower path or pattern, a smaller range or limit, or one page at a time."
                )),
                era.version,
            ));
        }
        Ok(tool_result(output, era.version))
    }

    // ---- Prompts ------------------------------------------------------------------------

    pub(crate) fn list_prompts(&self, params: &Map<String, Value>, era: &Era) -> Outcome {
        let prompts = &self.server.prompts;
        let (start, end, next) = self.page(params, "prompts", prompts.len())?;
        let listed: Vec<Value> = prompts[start..end]
            .iter()
            .map(|p| self.server.prompt_json(p, era.version))
            .collect();
        Ok(with_cursor(json!({ "prompts": listed }), next))
    }

    pub(crate) fn get_prompt(
        &mut self,
        id: &RequestId,
        params: Map<String, Value>,
        era: &Era,
    ) -> Outcome {
        let server = self.server;
        let name = params
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| invalid("`name` must be a string: the prompt to get"))?;
        let prompt = server
            .prompt_index
            .get(name)
            .map(|&i| &server.prompts[i])
            .ok_or_else(|| McpError::UnknownPrompt(name.to_string()))?;
        let given = match params.get("arguments") {
            None => Map::new(),
            Some(Value::Object(map)) => map.clone(),
            Some(_) => return Err(invalid("`arguments` must be an object of strings")),
        };
        let mut arguments = BTreeMap::new();
        for (key, value) in &given {
            let Some(value) = value.as_str() else {
                return Err(invalid(format!(
                    "prompt arguments are strings; `{key}` is not"
                )));
            };
            if !prompt.arguments.iter().any(|a| a.name == *key) {
                let names: Vec<&str> = prompt.arguments.iter().map(|a| a.name.as_str()).collect();
                let takes = if names.is_empty() {
                    "no arguments".to_string()
                } else {
                    names.join(", ")
                };
                return Err(invalid(format!(
                    "unknown argument `{key}` for prompt {name}; it takes: {takes}"
                )));
            }
            arguments.insert(key.clone(), value.to_string());
        }
        if let Some(missing) = prompt
            .arguments
            .iter()
            .find(|a| a.required && !arguments.contains_key(&a.name))
        {
            return Err(invalid(format!(
                "missing required argument `{}` for prompt {name}",
                missing.name
            )));
        }
        let bound = Value::Object(given);
        let binding = Binding {
            method: "prompts/get",
            target: name,
            arguments: &bound,
        };
        let inputs = self.open_inputs(era, &binding, &params)?;
        let scope = self.scope(id, &params, era, inputs);
        let (result, inputs) = self.run_handler(scope, |ctx| (prompt.handler)(&arguments, ctx));
        match result {
            Some(Ok(messages)) => {
                let messages: Vec<Value> = messages
                    .iter()
                    .map(|m| message_json(m, era.version))
                    .collect();
                Ok(json!({ "description": prompt.description, "messages": messages }))
            }
            Some(Err(error)) => self
                .input_outcome(era, &error, &binding, &inputs)
                .unwrap_or_else(|| Err(handler_error(error, &format!("prompt {name}")))),
            None => Err(McpError::Internal),
        }
    }

    // ---- Resources ----------------------------------------------------------------------

    pub(crate) fn list_resources(
        &mut self,
        id: &RequestId,
        params: &Map<String, Value>,
        era: &Era,
    ) -> Outcome {
        let server = self.server;
        let sources = &server.sources;
        let (first, first_offset) = match params.get("cursor") {
            None => (0, 0),
            Some(cursor) => decode_cursor(cursor, "resources")
                .filter(|(s, _)| *s < sources.len())
                .ok_or_else(bad_cursor)?,
        };
        let page_size = server.limits.page_size;
        let scope = self.scope(id, params, era, Inputs::default());
        // Sources list under a context: one listing the client's roots may need to ask for them.
        let (result, _) = self.run_handler(scope, |ctx| {
            let (mut source, mut offset) = (first, first_offset);
            let mut listed = Vec::new();
            let mut next = None;
            while source < sources.len() {
                let page = sources[source].list(offset, page_size - listed.len(), ctx)?;
                offset += page.items.len();
                listed.extend(page.items);
                if page.more {
                    next = Some(encode_cursor("resources", source, offset));
                    break;
                }
                source += 1;
                offset = 0;
                if listed.len() == page_size {
                    if source < sources.len() {
                        next = Some(encode_cursor("resources", source, 0));
                    }
                    break;
                }
            }
            Ok((listed, next))
        });
        let (listed, next) = match result {
            Some(Ok(page)) => page,
            Some(Err(error)) => return Err(handler_error(error, "resources/list")),
            None => return Err(McpError::Internal),
        };
        let listed: Vec<Value> = listed
            .into_iter()
            .map(|r| trim_listing(json!(r), era.version))
            .collect();
        Ok(with_cursor(json!({ "resources": listed }), next))
    }

    pub(crate) fn list_templates(&self, params: &Map<String, Value>, era: &Era) -> Outcome {
        let templates: Vec<Value> = self
            .server
            .sources
            .iter()
            .flat_map(|s| s.templates())
            .map(|t| trim_listing(json!(t), era.version))
            .collect();
        let (start, end, next) = self.page(params, "templates", templates.len())?;
        Ok(with_cursor(
            json!({ "resourceTemplates": templates[start..end] }),
            next,
        ))
    }

    pub(crate) fn read_resource(
        &mut self,
        id: &RequestId,
        params: Map<String, Value>,
        era: &Era,
    ) -> Outcome {
        let server = self.server;
        let uri = uri_param(&params)?.to_string();
        let bound = json!(uri);
        let binding = Binding {
            method: "resources/read",
            target: &uri,
            arguments: &bound,
        };
        let inputs = self.open_inputs(era, &binding, &params)?;
        let scope = self.scope(id, &params, era, inputs);
        let (result, inputs) = self.run_handler(scope, |ctx| {
            for source in &server.sources {
                if let Some(contents) = source.read(&uri, ctx)? {
                    return Ok(Some(contents));
                }
            }
            Ok(None)
        });
        match result {
            // An empty `contents` is never an answer for a missing resource (MCP R-8).
            Some(Ok(Some(contents))) if !contents.is_empty() => Ok(json!({ "contents": contents })),
            Some(Ok(_)) => Err(McpError::ResourceNotFound(uri)),
            Some(Err(HandlerError::NotFound(_))) => Err(McpError::ResourceNotFound(uri)),
            Some(Err(error)) => self
                .input_outcome(era, &error, &binding, &inputs)
                .unwrap_or_else(|| Err(handler_error(error, &format!("resource {uri}")))),
            None => Err(McpError::Internal),
        }
    }

    // ---- Completion ---------------------------------------------------------------------

    pub(crate) fn complete(
        &mut self,
        id: &RequestId,
        params: &Map<String, Value>,
        era: &Era,
    ) -> Outcome {
        let server = self.server;
        let reference = params
            .get("ref")
            .and_then(Value::as_object)
            .ok_or_else(|| invalid("`ref` must be an object: {\"type\": \"ref/prompt\", \"name\"} or {\"type\": \"ref/resource\", \"uri\"}"))?;
        let argument = params
            .get("argument")
            .and_then(Value::as_object)
            .ok_or_else(|| invalid("`argument` must be an object with `name` and `value`"))?;
        let (Some(arg_name), Some(value)) = (
            argument.get("name").and_then(Value::as_str),
            argument.get("value").and_then(Value::as_str),
        ) else {
            return Err(invalid(
                "`argument.name` and `argument.value` must be strings",
            ));
        };
        let mut context = BTreeMap::new();
        if let Some(given) = params.get("context").and_then(|c| c.get("arguments")) {
            let given = given
                .as_object()
                .ok_or_else(|| invalid("`context.arguments` must be an object of strings"))?;
            for (k, v) in given {
                let v = v
                    .as_str()
                    .ok_or_else(|| invalid(format!("`context.arguments.{k}` must be a string")))?;
                context.insert(k.clone(), v.to_string());
            }
        }
        let scope = self.scope(id, params, era, Inputs::default());
        let values = match reference.get("type").and_then(Value::as_str) {
            Some("ref/prompt") => {
                let name = reference
                    .get("name")
                    .and_then(Value::as_str)
                    .ok_or_else(|| invalid("`ref.name` must be a string"))?;
                let prompt = server
                    .prompt_index
                    .get(name)
                    .map(|&i| &server.prompts[i])
                    .ok_or_else(|| McpError::UnknownPrompt(name.to_string()))?;
                let arg = prompt
                    .arguments
                    .iter()
                    .find(|a| a.name == arg_name)
                    .ok_or_else(|| {
                        invalid(format!("prompt {name} has no argument `{arg_name}`"))
                    })?;
                match &arg.completer {
                    Some(completer) => {
                        self.run_completer(scope, |ctx| completer(value, &context, ctx))?
                    }
                    None => Vec::new(),
                }
            }
            Some("ref/resource") => {
                let template = reference
                    .get("uri")
                    .and_then(Value::as_str)
                    .ok_or_else(|| invalid("`ref.uri` must be a string: a resource template"))?;
                self.run_completer(scope, |ctx| {
                    server
                        .sources
                        .iter()
                        .find_map(|s| s.complete(template, arg_name, value, &context, ctx))
                })?
                .ok_or_else(|| {
                    invalid(format!(
                        "no resource template {template:?}; see resources/templates/list"
                    ))
                })?
            }
            _ => {
                return Err(invalid(
                    "`ref.type` must be \"ref/prompt\" or \"ref/resource\"",
                ))
            }
        };
        let total = values.len();
        let values: Vec<String> = values.into_iter().take(MAX_COMPLETIONS).collect();
        Ok(
            json!({ "completion": { "values": values, "total": total, "hasMore": total > MAX_COMPLETIONS } }),
        )
    }

    // ---- Shared machinery ---------------------------------------------------------------

    /// The slice `[start, end)` of a listing of `len` items for this request's cursor, and the
    /// cursor of the next page.
    pub(crate) fn page(
        &self,
        params: &Map<String, Value>,
        kind: &str,
        len: usize,
    ) -> Result<(usize, usize, Option<String>), McpError> {
        let start = match params.get("cursor") {
            None => 0,
            Some(cursor) => decode_cursor(cursor, kind)
                .map(|(_, offset)| offset)
                .filter(|&offset| offset > 0 && offset < len)
                .ok_or_else(bad_cursor)?,
        };
        let end = (start + self.server.limits.page_size).min(len);
        let next = (end < len).then(|| encode_cursor(kind, 0, end));
        Ok((start, end, next))
    }

    /// The request's scope: id, progress token, protocol, and MRTR inputs.
    pub(crate) fn scope(
        &self,
        id: &RequestId,
        params: &Map<String, Value>,
        era: &Era,
        inputs: Inputs,
    ) -> Scope {
        let progress_token = protocol::request_meta(Some(params))
            .and_then(|m| m.get("progressToken"))
            .filter(|t| t.is_string() || t.as_i64().is_some() || t.as_u64().is_some())
            .cloned();
        Scope {
            id: id.clone(),
            version: era.version,
            progress_token,
            last_progress: None,
            log_level: era.log_level,
            client_capabilities: era.client_capabilities.clone(),
            client_info: era.client_info.clone(),
            request_timeout: self.server.limits.request_timeout,
            result_budget: self.server.limits.max_result_bytes,
            inputs,
            notifications: NotificationBudget::default(),
        }
    }

    /// Runs a completer under a context; a panic becomes −32603.
    fn run_completer<T>(
        &mut self,
        scope: Scope,
        completer: impl FnOnce(&mut Context<'_>) -> T,
    ) -> Result<T, McpError> {
        match self.run_handler(scope, |ctx| Ok(completer(ctx))) {
            (Some(Ok(values)), _) => Ok(values),
            _ => Err(McpError::Internal),
        }
    }

    /// Runs a handler; a panic becomes `None` (→ −32603) instead of ending the session.
    pub(crate) fn run_handler<T>(
        &mut self,
        scope: Scope,
        handler: impl FnOnce(&mut Context<'_>) -> Result<T, HandlerError>,
    ) -> (Option<Result<T, HandlerError>>, Inputs) {
        let mut ctx = Context::new(self, scope);
        let result = panic::catch_unwind(AssertUnwindSafe(|| handler(&mut ctx)));
        let inputs = std::mem::take(&mut ctx.scope.inputs);
        if result.is_err() {
            log::error(format_args!(
                "a handler panicked; answered with an internal error"
            ));
        }
        (result.ok(), inputs)
    }

    /// 2026-07-28: the answers a retried request brings (sealed `requestState` plus
    /// `inputResponses`). Earlier versions have no such fields.
    pub(crate) fn open_inputs(
        &self,
        era: &Era,
        binding: &Binding<'_>,
        params: &Map<String, Value>,
    ) -> Result<Inputs, McpError> {
        let mut inputs = Inputs::default();
        if !era.stateless {
            return Ok(inputs);
        }
        if let Some(state) = params.get("requestState") {
            let state = state
                .as_str()
                .ok_or_else(|| invalid("`requestState` must be a string"))?;
            inputs.answers = mrtr::open(&self.server.state_key, binding, state).map_err(|why| {
                invalid(format!("`requestState` was rejected: {why}; send the request again without requestState and inputResponses"))
            })?;
        }
        if let Some(responses) = params.get("inputResponses") {
            let responses = responses
                .as_object()
                .ok_or_else(|| invalid("`inputResponses` must be an object"))?;
            for (key, answer) in responses {
                if !answer.is_object() {
                    return Err(invalid(format!("`inputResponses.{key}` must be an object")));
                }
                inputs.answers.insert(key.clone(), answer.clone());
            }
        }
        Ok(inputs)
    }

    /// What an input error means for the response in 2026-07-28: `input_required` while
    /// answers are pending, −32021 for an undeclared capability. `None` otherwise.
    pub(crate) fn input_outcome(
        &self,
        era: &Era,
        error: &HandlerError,
        binding: &Binding<'_>,
        inputs: &Inputs,
    ) -> Option<Outcome> {
        if !era.stateless {
            return None;
        }
        match error {
            HandlerError::Input(InputError::Pending) if !inputs.pending.is_empty() => {
                Some(Ok(json!({
                    "resultType": "input_required",
                    "inputRequests": inputs.pending,
                    "requestState": mrtr::seal(&self.server.state_key, binding, &inputs.answered()),
                })))
            }
            HandlerError::Input(InputError::Unsupported(required)) => {
                Some(Err(McpError::MissingClientCapability(required.clone())))
            }
            _ => None,
        }
    }
}

/// Maps a prompt or resource handler's error to a protocol error.
fn handler_error(error: HandlerError, what: &str) -> McpError {
    match error {
        HandlerError::Invalid(message) | HandlerError::NotFound(message) => invalid(message),
        HandlerError::Input(e) => invalid(format!("{what}: {e}")),
        HandlerError::Internal(detail) => {
            log::warn(format_args!("{what} failed: {detail}"));
            McpError::Internal
        }
    }
}

fn bad_cursor() -> McpError {
    invalid("invalid `cursor`: pass the `nextCursor` of the previous page unchanged, or omit it for the first page")
}

fn encode_cursor(kind: &str, source: usize, offset: usize) -> String {
    base64url(format!("{kind}:{source}:{offset}").as_bytes())
}

fn decode_cursor(cursor: &Value, kind: &str) -> Option<(usize, usize)> {
    let text = String::from_utf8(base64url_decode(cursor.as_str()?)?).ok()?;
    let mut parts = text.split(':');
    if parts.next()? != kind {
        return None;
    }
    let source = parts.next()?.parse().ok()?;
    let offset = parts.next()?.parse().ok()?;
    parts.next().is_none().then_some((source, offset))
}

fn with_cursor(mut result: Value, next: Option<String>) -> Value {
    if let Some(next) = next {
        result["nextCursor"] = json!(next);
    }
    result
}

/// A `CallToolResult` for a client of `version`.
pub(crate) fn tool_result(output: ToolOutput, version: Version) -> Answer {
    // The handler's values are moved into the result, which is serialized from them: no
    // JSON tree is built for a tool's answer (see `crate::answer`).
    let content = output
        .content
        .into_iter()
        .map(|c| match c {
            Content::Text { text } => Block::Text(text),
            other => Block::Json(content_json(&other, version)),
        })
        .collect();
    Answer::Tool(ToolResult {
        content,
        structured: output
            .structured
            .filter(|_| version.has_structured_output()),
        is_error: output.is_error,
        server_info: None,
    })
}

fn message_json(message: &PromptMessage, version: Version) -> Value {
    json!({ "role": message.role, "content": content_json(&message.content, version) })
}

/// A content block as a client of `version` can read it: audio (2025-03-26+) and resource
/// links (2025-06-18+) become text for older clients.
fn content_json(content: &Content, version: Version) -> Value {
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

    #[test]
    fn cursors_round_trip_and_reject_forgeries() {
        let cursor = json!(encode_cursor("tools", 0, 100));
        assert_eq!(decode_cursor(&cursor, "tools"), Some((0, 100)));
        assert_eq!(decode_cursor(&cursor, "prompts"), None);
        for bad in [
            json!("nope"),
            json!(7),
            json!(""),
            json!(base64url(b"tools:0")),
            json!(base64url(b"tools:0:1:2")),
        ] {
            assert_eq!(decode_cursor(&bad, "tools"), None, "{bad}");
        }
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
        assert!(json(tool_result(output.clone(), Version::V2025_03_26))
            .get("structuredContent")
            .is_none());
        assert_eq!(
            json(tool_result(output, Version::V2025_06_18))["structuredContent"],
            json!({"n": 1})
        );
    }
}
