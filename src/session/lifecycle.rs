//! The handshake and what stays with the session: `initialize`, `logging/setLevel`, and
//! the 2026-07-28 `server/discover` that replaces the handshake.

use std::collections::BTreeSet;
use std::rc::Rc;

use serde_json::{json, Map, Value};

use super::connection::Connection;
use super::handler::{invalid, string, Outcome};
use super::state::{Negotiated, Session};
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

    pub(super) fn set_level(&mut self, params: &Map<String, Value>) -> Outcome {
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

    pub(super) fn discover(&self, version: Version) -> Value {
        let mut result = json!({
            "supportedVersions": Version::supported_newest_first(),
            "capabilities": self.server.capabilities(version),
        });
        if let Some(instructions) = &self.server.identity.instructions {
            result["instructions"] = json!(instructions);
        }
        result
    }
}
