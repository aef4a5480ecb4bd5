//! The handshake eras' state machine, the transitions that move it (`initialize`, then the
//! client's `notifications/initialized`), what else the client's notifications change
//! (`cancelled`, `roots/list_changed`), `logging/setLevel`, and what `initialize` and the
//! 2026-07-28 `server/discover` both describe.
//!
//! ```text
//!                 initialize                  notifications/initialized
//!   ┌─────┐ ─────────────────▶ ┌──────────────┐ ─────────────────────────▶ ┌───────┐
//!   │ New │                    │ Initializing │                            │ Ready │
//!   └─────┘                    └──────────────┘                            └───────┘
//!   ping only                  every request served;                      the server may
//!   (+ 2026-07-28 requests)    the server asks nothing                    ask the client
//! ```
//!
//! A request whose `params._meta` carries `io.modelcontextprotocol/protocolVersion` is a
//! 2026-07-28 request: it is served statelessly whatever the state, and never changes it.

use std::collections::BTreeSet;
use std::rc::Rc;

use serde_json::{json, Map, Value};

use super::handler::log_level;
use super::handler::{invalid, object, string};
use super::{Incoming, Outcome, Session};
use crate::context::{Client, RootsCache};
use crate::jsonrpc::{Message, Notification, RequestId};
use crate::protocol::{self, LogLevel, Version};
use minimcp_base::log;

/// Where a handshake session is.
pub(crate) enum Handshake {
    /// Before `initialize`: only what [`Method::before_initialize`](crate::protocol::Method::before_initialize) allows, and 2026-07-28
    /// requests, are served.
    New,
    /// `initialize` answered; `notifications/initialized` not yet received.
    Initializing(Negotiated),
    Ready(Negotiated),
}

/// What `initialize` settled, plus the state a handshake session keeps.
pub(crate) struct Negotiated {
    /// The client as `initialize` described it; its log level is `logging/setLevel`'s.
    pub(crate) client: Client,
    /// URIs from `resources/subscribe`.
    pub(crate) subscriptions: BTreeSet<String>,
    /// The client's answer to `roots/list`, kept until it says they changed.
    pub(crate) roots: RootsCache,
    /// The client declared something a handler may ask it (sampling, elicitation, roots).
    pub(crate) may_be_asked: bool,
}

impl Handshake {
    pub(crate) fn negotiated(&self) -> Option<&Negotiated> {
        match self {
            Handshake::New => None,
            Handshake::Initializing(n) | Handshake::Ready(n) => Some(n),
        }
    }

    pub(crate) fn negotiated_mut(&mut self) -> Option<&mut Negotiated> {
        match self {
            Handshake::New => None,
            Handshake::Initializing(n) | Handshake::Ready(n) => Some(n),
        }
    }

    /// True once `notifications/initialized` has arrived: the server may ask the client.
    pub(crate) fn is_ready(&self) -> bool {
        matches!(self, Handshake::Ready(_))
    }
}

impl Session<'_> {
    pub(super) fn initialize(&mut self, params: &Map<String, Value>) -> Outcome {
        let version = "`protocolVersion` must be a string, such as \"2025-11-25\"";
        let requested = string(params, "protocolVersion", version)?;
        let none = "`capabilities` must be an object (`{}` for none)";
        let capabilities = object(params, "capabilities", none)?;
        let named = "`clientInfo` must be an object with `name` and `version`";
        let info = match params.get("clientInfo") {
            None => json!({}),
            Some(info @ Value::Object(_)) => info.clone(),
            Some(_) => return Err(invalid(named)),
        };
        let version = protocol::negotiate(requested);
        log::info(format_args!(
            "session {}: initialize: client {} {} asked for {}, using {}",
            self.number,
            log::clean(info["name"].as_str().unwrap_or("(unnamed)")),
            log::clean(info["version"].as_str().unwrap_or("")),
            log::clean(requested),
            version.as_str()
        ));
        let declared = |c: &&str| capabilities.get(*c).is_some();
        let may_be_asked = ["sampling", "elicitation", "roots"].iter().any(declared);
        self.handshake = Handshake::Initializing(Negotiated {
            client: Client {
                version,
                capabilities: Rc::new(Value::Object(capabilities.clone())),
                info: Rc::new(info),
                log_level: Some(LogLevel::Info),
            },
            subscriptions: BTreeSet::new(),
            roots: RootsCache::default(),
            may_be_asked,
        });
        let result = json!({
            "protocolVersion": version.as_str(),
            "serverInfo": self.server.implementation(version),
        });
        Ok(self.describe(version, result))
    }

    pub(super) fn set_level(&mut self, params: &Map<String, Value>) -> Outcome {
        let level = log_level(params.get("level"), "level")?;
        if let Some(n) = self.handshake.negotiated_mut() {
            n.client.log_level = Some(level);
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

    /// A notification from the client; never answered.
    pub(super) fn notified(&mut self, notification: Notification) {
        let params = notification.params.unwrap_or_default();
        match notification.method.as_str() {
            "notifications/initialized" => {
                self.handshake = match std::mem::replace(&mut self.handshake, Handshake::New) {
                    Handshake::Initializing(n) => Handshake::Ready(n),
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
                if let Some(n) = self.handshake.negotiated_mut() {
                    n.roots.roots = None;
                    n.roots.generation += 1;
                }
            }
            method => log::debug(format_args!("ignored notification {method}")),
        }
    }

    /// `notifications/cancelled`: a running handler learns of it through its context, a
    /// parked or queued request is dropped, an open listen stream is closed. No response is
    /// ever sent for the cancelled request (MCP C-2; late or unknown ids are ignored:
    /// C-3/C-4).
    fn cancel(&mut self, params: &Map<String, Value>) {
        let Some(id) = params.get("requestId").and_then(RequestId::from_value) else {
            log::warn(format_args!(
                "ignored notifications/cancelled without a valid requestId"
            ));
            return;
        };
        if let Some(running) = self.running.as_mut().filter(|r| r.id == id) {
            running.cancelled = true;
            return;
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
            return;
        }
        let listen = self.listens.iter().position(|l| l.id == id);
        match listen.map(|at| self.listens.remove(at)) {
            Some(listen) => {
                self.port.finish(listen.origin);
                self.unwatch_unused();
            }
            None => log::debug(format_args!(
                "ignored cancellation of {id:?}: not in flight"
            )),
        }
    }
}
