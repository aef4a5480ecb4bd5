//! How the server describes itself and what it offers to a client of each version:
//! capabilities, `Implementation`, and the tool and prompt listings.

use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::Server;
use crate::model::{Prompt, Tool};
use crate::protocol::Version;

impl Server {
    /// Completions are offered for prompt arguments and template variables.
    pub(crate) fn has_completions(&self) -> bool {
        self.prompts.iter().any(|p| !p.arguments.is_empty())
            || self.sources.iter().any(|s| !s.templates().is_empty())
    }

    /// The `capabilities` object for `version`: only what is really served
    /// (conformance/REQUIREMENTS.md L-7).
    pub(crate) fn capabilities(&self, version: Version) -> Value {
        let mut caps = Map::new();
        if !self.tools.is_empty() {
            caps.insert("tools".into(), json!({}));
        }
        if !self.prompts.is_empty() {
            caps.insert("prompts".into(), json!({}));
        }
        if self.has_resources() {
            let mut resources = json!({ "subscribe": true });
            if self.resources_list_changes() {
                resources["listChanged"] = json!(true);
            }
            caps.insert("resources".into(), resources);
        }
        caps.insert("logging".into(), json!({}));
        // The `completions` capability exists from 2025-03-26 (2024-11-05 has the method only).
        if self.has_completions() && version.has_annotations() {
            caps.insert("completions".into(), json!({}));
        }
        Value::Object(caps)
    }

    /// The `Implementation` object for `version`.
    pub(crate) fn implementation(&self, version: Version) -> Value {
        // Built from clones, not `json!`: every 2026-07-28 result carries this object, and
        // `json!` serializes each field into a `Value` through serde on every call.
        let id = &self.identity;
        let text = |s: &String| Value::String(s.clone());
        let mut info = Map::new();
        info.insert("name".into(), text(&id.name));
        info.insert("version".into(), text(&id.version));
        if version.has_structured_output() {
            if let Some(title) = &id.title {
                info.insert("title".into(), text(title));
            }
        }
        Value::Object(info)
    }

    /// [`Server::implementation`], shared rather than built.
    pub(crate) fn shared_implementation(&self, version: Version) -> Arc<Value> {
        // Built in `Version::ALL` order, which is the declaration order.
        Arc::clone(&self.implementations[version as usize])
    }

    /// A tool as `tools/list` shows it to a client of `version`.
    pub(crate) fn tool_json(&self, tool: &Tool, version: Version) -> Value {
        let mut out = json!({
            "name": tool.name,
            "description": tool.description,
            "inputSchema": tool.input_schema,
        });
        if version.has_structured_output() {
            if let Some(title) = &tool.title {
                out["title"] = json!(title);
            }
            if let Some(schema) = &tool.output_schema {
                out["outputSchema"] = schema.clone();
            }
        }
        if version.has_annotations() {
            if let Some(annotations) = &tool.annotations {
                out["annotations"] = annotations.clone();
            }
        }
        if version.has_icons() {
            if let Some(icons) = &tool.icons {
                out["icons"] = icons.clone();
            }
        }
        out
    }

    /// A prompt as `prompts/list` shows it to a client of `version`.
    pub(crate) fn prompt_json(&self, prompt: &Prompt, version: Version) -> Value {
        let arguments: Vec<Value> = prompt
            .arguments
            .iter()
            .map(
                |a| json!({ "name": a.name, "description": a.description, "required": a.required }),
            )
            .collect();
        let mut out = json!({ "name": prompt.name, "description": prompt.description });
        if !arguments.is_empty() {
            out["arguments"] = json!(arguments);
        }
        if let (Some(t), true) = (&prompt.title, version.has_structured_output()) {
            out["title"] = json!(t);
        }
        out
    }
}

/// Removes the fields a `version` client does not know from a resource or template listing.
pub(crate) fn trim_listing(mut value: Value, version: Version) -> Value {
    if let Some(obj) = value.as_object_mut() {
        if !version.has_structured_output() {
            obj.remove("title");
        }
        if !version.has_icons() {
            obj.remove("icons");
        }
    }
    value
}
