//! The handshake and what stays with the session: `initialize`, `logging/setLevel`, what
//! the client notifies (the end of the handshake, a cancellation, changed roots), and the
//! 2026-07-28 `server/discover` that replaces the handshake.

use std::collections::BTreeSet;
use std::rc::Rc;

use serde_json::{json, Map, Value};

use super::answer::Outcome;
use super::connection::Connection;
use super::handler::{invalid, log_level, string};
use super::incoming::Incoming;
use super::state::{Negotiated, Session};
use crate::jsonrpc::{Message, Notification, RequestId};
use crate::log;
use crate::protocol::{self, LogLevel, Version};

impl Connection<'_> {
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
