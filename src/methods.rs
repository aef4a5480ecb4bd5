//! The dispatcher: one `match` on (session state, method), and the MCP methods themselves.
//!
//! Handshake-era methods (`initialize`, `ping`, `logging/setLevel`, `resources/subscribe`)
//! and stateless ones (`server/discover`, `subscriptions/listen`) are served here; the
//! methods both eras share (tools, prompts, resources, completion) are served by
//! [`Connection::serve_common`] with an [`Era`] describing the request's protocol.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::panic::{self, AssertUnwindSafe};
use std::rc::Rc;

use serde_json::{json, Map, Value};

use crate::context::{Context, Inputs, NotificationBudget, Scope};
use crate::encoding::{base64url, base64url_decode};
use crate::error::McpError;
use crate::jsonrpc::{Request, RequestId};
use crate::log;
use crate::model::{Arguments, Content, HandlerError, InputError, PromptMessage, ToolOutput};
use crate::mrtr::{self, Binding};
use crate::protocol::{self, meta, LogLevel, Version};
use crate::schema;
use crate::server::trim_listing;
use crate::session::{Connection, Listen, Negotiated, Reply, ReplyKind, Session};

/// How long 2026-07-28 clients may cache listings that cannot change while the process
/// runs (discover, tools, prompts, templates). Resource listings and reads use 0: files change.
const STATIC_TTL_MS: u64 = 300_000;
/// Completion results carry at most this many values (MCP CP-3).
const MAX_COMPLETIONS: usize = 100;
/// Expected in every 2026-07-28 request (MCP 2026-07-28 basic/index §_meta).
const MISSING_META: &str = "a 2026-07-28 request needs params._meta with \"io.modelcontextprotocol/protocolVersion\" and \"io.modelcontextprotocol/clientCapabilities\"; clients of earlier versions send \"initialize\" first";

/// The protocol facts of one request.
pub(crate) struct Era {
    pub(crate) version: Version,
    pub(crate) stateless: bool,
    pub(crate) client_capabilities: Rc<Value>,
    pub(crate) client_info: Rc<Value>,
    pub(crate) log_level: Option<LogLevel>,
}

type Outcome = Result<Value, McpError>;

fn invalid(message: impl Into<String>) -> McpError {
    McpError::InvalidParams(message.into())
}

impl<'s, R: Read + Send + 'static, W: Write> Connection<'s, R, W> {
    /// Routes one request. `None` means no response (an open listen stream).
    pub(crate) fn dispatch(&mut self, request: Request) -> Option<Reply> {
        let stateless = request.method != "initialize"
            && (protocol::is_stateless_request(request.params.as_ref())
                || matches!(
                    request.method.as_str(),
                    "server/discover" | "subscriptions/listen"
                ));
        if stateless {
            self.dispatch_stateless(request)
        } else {
            Some(self.dispatch_handshake(request))
        }
    }

    fn dispatch_handshake(&mut self, request: Request) -> Reply {
        let Request { id, method, params } = request;
        let params = params.unwrap_or_default();
        let has_resources = self.server.has_resources();
        let outcome = match (&self.session, method.as_str()) {
            (_, "ping") => Ok(json!({})),
            (Session::New, "initialize") => self.initialize(&params),
            (_, "initialize") => Err(McpError::AlreadyInitialized),
            (Session::New, _) => Err(McpError::NotInitialized),
            (_, "logging/setLevel") => self.set_level(&params),
            (_, "resources/subscribe") if has_resources => self.subscribe(&params),
            (_, "resources/unsubscribe") if has_resources => self.unsubscribe(&params),
            (Session::Initializing(n) | Session::Ready(n), _) => {
                let era = Era {
                    version: n.version,
                    stateless: false,
                    client_capabilities: n.client_capabilities.clone(),
                    client_info: n.client_info.clone(),
                    log_level: Some(n.log_level),
                };
                return self.serve_common(&id, &method, params, &era);
            }
        };
        Reply::plain(outcome.map_err(|e| e.to_object(false)))
    }

    fn dispatch_stateless(&mut self, request: Request) -> Option<Reply> {
        let Request { id, method, params } = request;
        let params = params.unwrap_or_default();
        let era = match stateless_era(&params) {
            Ok(era) => era,
            Err(e) => return Some(Reply::plain(Err(e.to_object(true)))),
        };
        let mut reply = match method.as_str() {
            "server/discover" => Reply::plain(Ok(self.discover(era.version))),
            "subscriptions/listen" => {
                return self
                    .listen(&id, &params)
                    .err()
                    .map(|e| Reply::plain(Err(e.to_object(true))))
            }
            _ => self.serve_common(&id, &method, params, &era),
        };
        if let Ok(result) = &mut reply.outcome {
            self.decorate(&method, result, era.version);
        }
        Some(reply)
    }

    /// Adds what every 2026-07-28 result carries: `resultType`, the server's identity, and
    /// caching hints on the cacheable results.
    fn decorate(&self, method: &str, result: &mut Value, version: Version) {
        let Some(obj) = result.as_object_mut() else {
            return;
        };
        let complete = obj.entry("resultType").or_insert_with(|| json!("complete")) == "complete";
        let meta = obj.entry("_meta").or_insert_with(|| json!({}));
        if let Some(meta) = meta.as_object_mut() {
            meta.insert(
                meta::SERVER_INFO.into(),
                self.server.implementation(version),
            );
        }
        let ttl = match method {
            "server/discover" | "tools/list" | "prompts/list" | "resources/templates/list" => {
                STATIC_TTL_MS
            }
            "resources/list" | "resources/read" => 0,
            _ => return,
        };
        if complete {
            obj.insert("ttlMs".into(), json!(ttl));
            // Listings and file contents may be specific to this user: never shared caches.
            obj.insert("cacheScope".into(), json!("private"));
        }
    }

    /// The methods both eras share.
    pub(crate) fn serve_common(
        &mut self,
        id: &RequestId,
        method: &str,
        params: Map<String, Value>,
        era: &Era,
    ) -> Reply {
        let server = self.server;
        let outcome = match method {
            "tools/list" if !server.tools.is_empty() => self.list_tools(&params, era),
            "tools/call" if !server.tools.is_empty() => {
                let outcome = self.call_tool(id, params, era);
                return Reply {
                    outcome: outcome.map_err(|e| e.to_object(era.stateless)),
                    kind: ReplyKind::ToolCall {
                        stateless: era.stateless,
                    },
                };
            }
            "prompts/list" if !server.prompts.is_empty() => self.list_prompts(&params, era),
            "prompts/get" if !server.prompts.is_empty() => self.get_prompt(id, params, era),
            "resources/list" if server.has_resources() => self.list_resources(&params, era),
            "resources/templates/list" if server.has_resources() => {
                self.list_templates(&params, era)
            }
            "resources/read" if server.has_resources() => self.read_resource(id, params, era),
            "completion/complete" if server.has_completions() => self.complete(&params),
            _ => Err(McpError::MethodNotFound(method.to_string())),
        };
        Reply::plain(outcome.map_err(|e| e.to_object(era.stateless)))
    }

    // ---- Handshake era ------------------------------------------------------------------

    fn initialize(&mut self, params: &Map<String, Value>) -> Outcome {
        let requested = params
            .get("protocolVersion")
            .and_then(Value::as_str)
            .ok_or_else(|| invalid("`protocolVersion` must be a string, such as \"2025-11-25\""))?;
        let capabilities = params
            .get("capabilities")
            .filter(|c| c.is_object())
            .ok_or_else(|| invalid("`capabilities` must be an object (`{}` for none)"))?;
        let client_info = match params.get("clientInfo") {
            None => json!({}),
            Some(info @ Value::Object(_)) => info.clone(),
            Some(_) => {
                return Err(invalid(
                    "`clientInfo` must be an object with `name` and `version`",
                ))
            }
        };
        let version = protocol::negotiate(requested);
        log::info(format_args!(
            "initialize: client {} {} asked for {requested}, using {}",
            client_info["name"].as_str().unwrap_or("(unnamed)"),
            client_info["version"].as_str().unwrap_or(""),
            version.as_str()
        ));
        self.session = Session::Initializing(Negotiated {
            version,
            client_capabilities: Rc::new(capabilities.clone()),
            client_info: Rc::new(client_info),
            log_level: LogLevel::Info,
            subscriptions: BTreeSet::new(),
        });
        let mut result = json!({
            "protocolVersion": version.as_str(),
            "capabilities": self.server.capabilities(version),
            "serverInfo": self.server.implementation(version),
        });
        if let Some(instructions) = &self.server.identity.instructions {
            result["instructions"] = json!(instructions);
        }
        Ok(result)
    }

    fn set_level(&mut self, params: &Map<String, Value>) -> Outcome {
        let level = params
            .get("level")
            .and_then(Value::as_str)
            .and_then(LogLevel::parse)
            .ok_or_else(|| {
                let names: Vec<&str> = LogLevel::names().collect();
                invalid(format!("`level` must be one of {}", names.join(", ")))
            })?;
        if let Some(n) = self.session.negotiated_mut() {
            n.log_level = level;
        }
        Ok(json!({}))
    }

    fn subscribe(&mut self, params: &Map<String, Value>) -> Outcome {
        let uri = uri_param(params)?;
        if self.fingerprint(uri).is_none() {
            return Err(McpError::ResourceNotFound(uri.to_string()));
        }
        let limit = self.server.limits.max_subscriptions;
        if let Some(n) = self.session.negotiated_mut() {
            if n.subscriptions.len() + 1 > limit && !n.subscriptions.contains(uri) {
                return Err(McpError::Overloaded(limit));
            }
            n.subscriptions.insert(uri.to_string());
        }
        self.watch_uri(uri);
        Ok(json!({}))
    }

    fn unsubscribe(&mut self, params: &Map<String, Value>) -> Outcome {
        let uri = uri_param(params)?;
        if let Some(n) = self.session.negotiated_mut() {
            n.subscriptions.remove(uri);
        }
        self.unwatch_unused();
        Ok(json!({}))
    }

    // ---- Stateless era ------------------------------------------------------------------

    fn discover(&self, version: Version) -> Value {
        let mut result = json!({
            "supportedVersions": [Version::V2026_07_28.as_str()],
            "capabilities": self.server.capabilities(version),
        });
        if let Some(instructions) = &self.server.identity.instructions {
            result["instructions"] = json!(instructions);
        }
        result
    }

    /// Opens a `subscriptions/listen` stream: acknowledges what will be honoured, then stays
    /// open (no response) until the client cancels it or the session ends.
    fn listen(&mut self, id: &RequestId, params: &Map<String, Value>) -> Result<(), McpError> {
        let filter = params
            .get("notifications")
            .and_then(Value::as_object)
            .ok_or_else(|| {
                invalid("`notifications` must be an object saying which notifications to receive")
            })?;
        let wants = |key: &str| filter.get(key).and_then(Value::as_bool).unwrap_or(false);
        let uris: BTreeSet<String> = match filter.get("resourceSubscriptions") {
            None => BTreeSet::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|u| u.as_str().map(str::to_string))
                .collect::<Option<_>>()
                .ok_or_else(|| {
                    invalid("`notifications.resourceSubscriptions` must be an array of URIs")
                })?,
            Some(_) => {
                return Err(invalid(
                    "`notifications.resourceSubscriptions` must be an array of URIs",
                ))
            }
        };
        let open: usize = self.listens.iter().map(|l| 1 + l.uris.len()).sum();
        if open + 1 + uris.len() > self.server.limits.max_subscriptions {
            return Err(McpError::Overloaded(open));
        }
        let mut honoured = Map::new();
        let list_changed = wants("resourcesListChanged") && self.server.resources_list_changes();
        if list_changed {
            honoured.insert("resourcesListChanged".into(), json!(true));
        }
        let uris = if self.server.has_resources() {
            uris
        } else {
            BTreeSet::new()
        };
        if !uris.is_empty() {
            honoured.insert("resourceSubscriptions".into(), json!(uris));
        }
        let ack = json!({ "_meta": { meta::SUBSCRIPTION_ID: id }, "notifications": honoured });
        self.notify_now("notifications/subscriptions/acknowledged", &ack);
        for uri in &uris {
            self.watch_uri(uri);
        }
        self.listens.push(Listen {
            id: id.clone(),
            resources_list_changed: list_changed,
            uris,
        });
        if list_changed {
            self.start_list_watch();
        }
        Ok(())
    }

    // ---- Tools --------------------------------------------------------------------------

    fn list_tools(&self, params: &Map<String, Value>, era: &Era) -> Outcome {
        let tools = &self.server.tools;
        let (start, end, next) = self.page(params, "tools", tools.len())?;
        let listed: Vec<Value> = tools[start..end]
            .iter()
            .map(|t| self.server.tool_json(t, era.version))
            .collect();
        Ok(with_cursor(json!({ "tools": listed }), next))
    }

    fn call_tool(&mut self, id: &RequestId, mut params: Map<String, Value>, era: &Era) -> Outcome {
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
            .ok_or_else(|| McpError::UnknownTool(name.to_string()))?;
        if let Err(problems) = schema::validate(&tool.input_schema, &mut arguments) {
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
                    return outcome;
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
        Ok(tool_result(output, era.version))
    }

    // ---- Prompts ------------------------------------------------------------------------

    fn list_prompts(&self, params: &Map<String, Value>, era: &Era) -> Outcome {
        let prompts = &self.server.prompts;
        let (start, end, next) = self.page(params, "prompts", prompts.len())?;
        let listed: Vec<Value> = prompts[start..end]
            .iter()
            .map(|p| self.server.prompt_json(p, era.version))
            .collect();
        Ok(with_cursor(json!({ "prompts": listed }), next))
    }

    fn get_prompt(&mut self, id: &RequestId, params: Map<String, Value>, era: &Era) -> Outcome {
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

    fn list_resources(&self, params: &Map<String, Value>, era: &Era) -> Outcome {
        let sources = &self.server.sources;
        let (mut source, mut offset) = match params.get("cursor") {
            None => (0, 0),
            Some(cursor) => decode_cursor(cursor, "resources")
                .filter(|(s, _)| *s < sources.len())
                .ok_or_else(bad_cursor)?,
        };
        let page_size = self.server.limits.page_size;
        let mut listed = Vec::new();
        let mut next = None;
        while source < sources.len() {
            let page = sources[source]
                .list(offset, page_size - listed.len())
                .map_err(|e| handler_error(e, "resources/list"))?;
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
        let listed: Vec<Value> = listed
            .into_iter()
            .map(|r| trim_listing(json!(r), era.version))
            .collect();
        Ok(with_cursor(json!({ "resources": listed }), next))
    }

    fn list_templates(&self, params: &Map<String, Value>, era: &Era) -> Outcome {
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

    fn read_resource(&mut self, id: &RequestId, params: Map<String, Value>, era: &Era) -> Outcome {
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

    fn complete(&self, params: &Map<String, Value>) -> Outcome {
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
        let values = match reference.get("type").and_then(Value::as_str) {
            Some("ref/prompt") => {
                let name = reference
                    .get("name")
                    .and_then(Value::as_str)
                    .ok_or_else(|| invalid("`ref.name` must be a string"))?;
                let prompt = self
                    .server
                    .prompt_index
                    .get(name)
                    .map(|&i| &self.server.prompts[i])
                    .ok_or_else(|| McpError::UnknownPrompt(name.to_string()))?;
                let arg = prompt
                    .arguments
                    .iter()
                    .find(|a| a.name == arg_name)
                    .ok_or_else(|| {
                        invalid(format!("prompt {name} has no argument `{arg_name}`"))
                    })?;
                arg.completer
                    .as_ref()
                    .map(|c| c(value, &context))
                    .unwrap_or_default()
            }
            Some("ref/resource") => {
                let template = reference
                    .get("uri")
                    .and_then(Value::as_str)
                    .ok_or_else(|| invalid("`ref.uri` must be a string: a resource template"))?;
                self.server
                    .sources
                    .iter()
                    .find_map(|s| s.complete(template, arg_name, value, &context))
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
    fn page(
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
    fn scope(
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
            inputs,
            notifications: NotificationBudget::default(),
        }
    }

    /// Runs a handler; a panic becomes `None` (→ −32603) instead of ending the session.
    fn run_handler<T>(
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
    fn open_inputs(
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
    fn input_outcome(
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
                    "requestState": mrtr::seal(&self.server.state_key, binding, &inputs.answers),
                })))
            }
            HandlerError::Input(InputError::Unsupported(required)) => {
                Some(Err(McpError::MissingClientCapability(required.clone())))
            }
            _ => None,
        }
    }
}

/// The protocol facts of a 2026-07-28 request, from its `_meta`.
fn stateless_era(params: &Map<String, Value>) -> Result<Era, McpError> {
    let meta_obj = protocol::request_meta(Some(params)).ok_or_else(|| invalid(MISSING_META))?;
    let requested = meta_obj
        .get(meta::PROTOCOL_VERSION)
        .and_then(Value::as_str)
        .ok_or_else(|| invalid(MISSING_META))?;
    let version = match Version::parse(requested) {
        Some(v) if v.is_stateless() => v,
        _ => {
            return Err(McpError::UnsupportedProtocolVersion {
                requested: requested.to_string(),
                supported: vec![Version::V2026_07_28.as_str()],
            })
        }
    };
    let client_capabilities = meta_obj
        .get(meta::CLIENT_CAPABILITIES)
        .filter(|c| c.is_object())
        .cloned()
        .map(Rc::new)
        .ok_or_else(|| invalid(MISSING_META))?;
    let log_level = match meta_obj.get(meta::LOG_LEVEL) {
        None => None,
        Some(level) => Some(level.as_str().and_then(LogLevel::parse).ok_or_else(|| {
            let names: Vec<&str> = LogLevel::names().collect();
            invalid(format!(
                "`_meta[\"{}\"]` must be one of {}",
                meta::LOG_LEVEL,
                names.join(", ")
            ))
        })?),
    };
    let client_info = match meta_obj.get(meta::CLIENT_INFO) {
        None => Rc::new(json!({})),
        Some(info @ Value::Object(_)) => Rc::new(info.clone()),
        Some(_) => {
            return Err(invalid(format!(
                "`_meta[\"{}\"]` must be an object",
                meta::CLIENT_INFO
            )))
        }
    };
    Ok(Era {
        version,
        stateless: true,
        client_capabilities,
        client_info,
        log_level,
    })
}

fn uri_param(params: &Map<String, Value>) -> Result<&str, McpError> {
    params
        .get("uri")
        .and_then(Value::as_str)
        .ok_or_else(|| invalid("`uri` must be a string"))
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
pub(crate) fn tool_result(output: ToolOutput, version: Version) -> Value {
    let content: Vec<Value> = output
        .content
        .iter()
        .map(|c| content_json(c, version))
        .collect();
    let mut result = json!({ "content": content });
    if let (Some(structured), true) = (output.structured, version.has_structured_output()) {
        result["structuredContent"] = structured;
    }
    if output.is_error {
        result["isError"] = json!(true);
    }
    result
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
        assert!(tool_result(output.clone(), Version::V2025_03_26)
            .get("structuredContent")
            .is_none());
        assert_eq!(
            tool_result(output, Version::V2025_06_18)["structuredContent"],
            json!({"n": 1})
        );
    }
}
