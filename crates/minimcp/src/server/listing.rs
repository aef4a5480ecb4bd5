//! How the server describes itself and what it offers to a client of each version: its
//! `Implementation` object and the tool, prompt, resource and template listings.

use serde_json::{json, Map, Value};

use super::Server;
use crate::model::{Prompt, Tool};
use crate::protocol::Version;

/// The server's self-description (MCP `Implementation`).
#[derive(Debug, Clone, Default)]
pub(crate) struct Identity {
    pub(crate) name: String,
    pub(crate) version: String,
    pub(crate) title: Option<String>,
    pub(crate) instructions: Option<String>,
}

impl Server {
    /// The `Implementation` object for `version`.
    pub(crate) fn implementation(&self, version: Version) -> Value {
        // Built from clones, not `json!`: every 2026-07-28 result carries this object, and
        // `json!` serializes each field into a `Value` through serde on every call.
        let text = |s: &String| Value::String(s.clone());
        let mut info = Map::new();
        info.insert("name".into(), text(&self.identity.name));
        info.insert("version".into(), text(&self.identity.version));
        if version.has_structured_output() {
            if let Some(title) = &self.identity.title {
                info.insert("title".into(), text(title));
            }
        }
        Value::Object(info)
    }

    /// A tool as `tools/list` shows it to a client of `version`.
    pub(crate) fn tool_json(&self, tool: &Tool, version: Version) -> Value {
        let mut out = json!({
            "name": tool.name,
            "description": tool.description,
            "inputSchema": tool.input_schema,
        });
        let (structured, title) = (version.has_structured_output(), tool.title.as_ref());
        let title = title.map(|t| json!(t));
        let optional = [
            ("title", structured, title.as_ref()),
            ("outputSchema", structured, tool.output_schema.as_ref()),
            (
                "annotations",
                version.has_annotations(),
                tool.annotations.as_ref(),
            ),
            ("icons", version.has_icons(), tool.icons.as_ref()),
        ];
        for (key, known, value) in optional {
            if let (true, Some(value)) = (known, value) {
                out[key] = value.clone();
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
