//! The session state machine: one `match` on (session state, method) for a handshake-era
//! request, one on the method for a 2026-07-28 request, and what every 2026-07-28 result
//! carries; the handshake that moves the state (`initialize`, then the client's
//! `notifications/initialized`), the client's other notifications (a cancellation, changed
//! roots), `logging/setLevel`, and the 2026-07-28 `server/discover` that replaces the
//! handshake. The methods both eras share are routed by [`Connection::serve_common`] with an
//! [`Era`] describing the request's protocol; each family is served in a file of its own.

use std::collections::BTreeSet;
use std::rc::Rc;

use serde_json::{json, Map, Value};

use super::answer::{Answer, Outcome, Reply, ReplyKind};
use super::connection::Connection;
use super::handler::{invalid, log_level, string, Era};
use super::incoming::Incoming;
use super::state::{Negotiated, Session};
use crate::error::McpError;
use crate::jsonrpc::{Message, Notification, Request, RequestId};
use crate::log;
use crate::protocol::{self, meta, LogLevel, Version};

/// How long 2026-07-28 clients may cache listings that cannot change while the process
/// runs (discover, tools, prompts, templates). Resource listings and reads use 0: files change.
const STATIC_TTL_MS: u64 = 300_000;
/// Expected in every 2026-07-28 request (MCP 2026-07-28 basic/index §_meta).
const MISSING_META: &str = "a 2026-07-28 request needs params._meta with \"io.modelcontextprotocol/protocolVersion\" and \"io.modelcontextprotocol/clientCapabilities\"; clients of earlier versions send \"initialize\" first";

impl Connection<'_> {
    /// Routes one request. `None` means no response (an open listen stream).
    pub(crate) fn dispatch(&mut self, request: Request) -> Option<Reply> {
        // `initialize` carrying the 2026-07-28 `_meta` is that version's removed method
        // (-32601), as the official suite's server-stateless scenario checks.
        if protocol::is_stateless(&request.method, request.params.as_ref()) {
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
                    client_capabilities: n.client_capabilities.clone(),
                    client_info: n.client_info.clone(),
                    log_level: Some(n.log_level),
                };
                return self.serve_common(&id, &method, params, &era);
            }
        };
        Reply::plain(outcome, false)
    }

    fn dispatch_stateless(&mut self, request: Request) -> Option<Reply> {
        let Request { id, method, params } = request;
        let mut params = params.unwrap_or_default();
        let era = match stateless_era(&mut params) {
            Ok(era) => era,
            Err(e) => return Some(Reply::plain(Err(e), true)),
        };
        let mut reply = match method.as_str() {
            "server/discover" => Reply::plain(Ok(self.discover(era.version)), true),
            "subscriptions/listen" => {
                return self
                    .listen(&id, &params)
                    .err()
                    .map(|e| Reply::plain(Err(e), true))
            }
            _ => self.serve_common(&id, &method, params, &era),
        };
        // A tool's result carries what the version asks for already: it is never a tree.
        if let Ok(Answer::Json(result)) = &mut reply.outcome {
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
        let (server, stateless) = (self.server, era.version.is_stateless());
        let outcome = match method {
            "tools/list" if !server.tools.is_empty() => self.list_tools(&params, era),
            "tools/call" if !server.tools.is_empty() => {
                let outcome = self.call_tool(id, params, era);
                return Reply {
                    outcome: outcome.map_err(|e| e.to_object(stateless)),
                    kind: ReplyKind::ToolCall { stateless },
                };
            }
            "prompts/list" if !server.prompts.is_empty() => self.list_prompts(&params, era),
            "prompts/get" if !server.prompts.is_empty() => self.get_prompt(id, params, era),
            "resources/list" if server.has_resources() => self.list_resources(id, &params, era),
            "resources/templates/list" if server.has_resources() => {
                self.list_templates(&params, era)
            }
            "resources/read" if server.has_resources() => self.read_resource(id, params, era),
            "completion/complete" if server.has_completions() => self.complete(id, &params, era),
            _ => Err(McpError::MethodNotFound(method.to_string())),
        };
        Reply::plain(outcome, stateless)
    }

    pub(super) fn initialize(&mut self, params: &Map<String, Value>) -> Outcome {
        let requested = string(
            params,
            "protocolVersion",
            "`protocolVersion` must be a string, such as \"2025-11-25\"",
        )?;
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
            "session {}: initialize: client {} {} asked for {}, using {}",
            self.number,
            log::clean(client_info["name"].as_str().unwrap_or("(unnamed)")),
            log::clean(client_info["version"].as_str().unwrap_or("")),
            log::clean(requested),
            version.as_str()
        ));
        self.session = Session::Initializing(Negotiated {
            version,
            client_capabilities: Rc::new(capabilities.clone()),
            client_info: Rc::new(client_info),
            log_level: LogLevel::Info,
            subscriptions: BTreeSet::new(),
            roots: Default::default(),
        });
        let result = json!({
            "protocolVersion": version.as_str(),
            "serverInfo": self.server.implementation(version),
        });
        Ok(self.describe(version, result))
    }

    pub(super) fn set_level(&mut self, params: &Map<String, Value>) -> Outcome {
        let level = log_level(params.get("level"), "level")?;
        if let Some(n) = self.session.negotiated_mut() {
            n.log_level = level;
        }
        Ok(json!({}))
    }

    pub(super) fn discover(&self, version: Version) -> Value {
        let result = json!({ "supportedVersions": Version::supported_newest_first() });
        self.describe(version, result)
    }

    /// Adds what `initialize` and `server/discover` both answer: capabilities, instructions.
    fn describe(&self, version: Version, mut result: Value) -> Value {
        result["capabilities"] = self.server.capabilities(version);
        if let Some(instructions) = &self.server.identity.instructions {
            result["instructions"] = json!(instructions);
        }
        result
    }

    pub(super) fn handle_notification(&mut self, notification: Notification) {
        let params = notification.params.unwrap_or_default();
        match notification.method.as_str() {
            "notifications/initialized" => {
                self.session = match std::mem::replace(&mut self.session, Session::New) {
                    Session::Initializing(n) => Session::Ready(n),
                    other => {
                        log::warn(format_args!(
                            "ignored notifications/initialized outside the handshake"
                        ));
                        other
                    }
                };
            }
            "notifications/cancelled" => self.cancel(&params),
            "notifications/roots/list_changed" => {
                if let Some(n) = self.session.negotiated_mut() {
                    n.roots.roots = None;
                    n.roots.generation += 1;
                }
            }
            method => log::debug(format_args!("ignored notification {method}")),
        }
    }

    /// `notifications/cancelled`: a running handler learns of it through its context, a
    /// queued request is dropped, an open listen stream is closed. No response is ever sent
    /// for the cancelled request (MCP C-2; late or unknown ids are ignored: C-3/C-4).
    pub(super) fn cancel(&mut self, params: &Map<String, Value>) {
        let Some(id) = params.get("requestId").and_then(RequestId::from_value) else {
            log::warn(format_args!(
                "ignored notifications/cancelled without a valid requestId"
            ));
            return;
        };
        if let Some((current, cancelled)) = &mut self.current {
            if *current == id {
                *cancelled = true;
                return;
            }
        }
        if self.cancel_parked(&id) {
            return;
        }
        // Ids in flight are unique (a duplicate is refused), so there is at most one of each.
        let queued = self
            .queue
            .iter()
            .position(|q| matches!(q, (Incoming::Single(Message::Request(r)), _) if r.id == id));
        if let Some((_, origin)) = queued.and_then(|at| self.queue.remove(at)) {
            self.port.finish(origin);
        }
        let listen = self.listens.iter().position(|l| l.id == id);
        if let Some(listen) = listen.map(|at| self.listens.remove(at)) {
            self.port.finish(listen.origin);
            self.unwatch_unused();
        } else if queued.is_none() {
            log::debug(format_args!("ignored cancellation of {id}: not in flight"));
        }
    }
}

/// The protocol facts of a 2026-07-28 request, from its `_meta`. The client's capabilities
/// and info are moved out of `_meta` rather than copied: nothing after this reads them
/// there, and a deep copy of both was a tenth of a small call.
fn stateless_era(params: &mut Map<String, Value>) -> Result<Era, McpError> {
    let meta_obj = params
        .get_mut("_meta")
        .and_then(Value::as_object_mut)
        .ok_or_else(|| invalid(MISSING_META))?;
    let requested = string(meta_obj, meta::PROTOCOL_VERSION, MISSING_META)?;
    let version = match Version::parse(requested) {
        Some(v) if v.is_stateless() => v,
        _ => {
            return Err(McpError::UnsupportedProtocolVersion {
                requested: requested.to_string(),
                supported: Version::supported_newest_first(),
            })
        }
    };
    let client_capabilities = match meta_obj.remove(meta::CLIENT_CAPABILITIES) {
        Some(capabilities @ Value::Object(_)) => Rc::new(capabilities),
        _ => return Err(invalid(MISSING_META)),
    };
    let log_level = meta_obj
        .get(meta::LOG_LEVEL)
        .map(|level| log_level(Some(level), format_args!("_meta[\"{}\"]", meta::LOG_LEVEL)))
        .transpose()?;
    let client_info = match meta_obj.remove(meta::CLIENT_INFO) {
        None => Rc::new(json!({})),
        Some(info @ Value::Object(_)) => Rc::new(info),
        Some(_) => {
            return Err(invalid(format!(
                "`_meta[\"{}\"]` must be an object",
                meta::CLIENT_INFO
            )))
        }
    };
    Ok(Era {
        version,
        client_capabilities,
        client_info,
        log_level,
    })
}
