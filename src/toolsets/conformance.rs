//! The `conformance` profile: fixtures for benchmarks and the official conformance suite.
//! Kept out of the default profile.

use serde_json::json;

use crate::{Builder, Tool, ToolOutput};

/// Adds the fixture tools to `builder`.
pub fn add(builder: Builder) -> Builder {
    builder.tool(
        Tool::new(
            "echo",
            "Echo the given text back as one text block.",
            json!({
                "type": "object",
                "properties": {"text": {"type": "string", "description": "The text to echo."}},
                "required": ["text"],
                "additionalProperties": false
            }),
            |args, _ctx| Ok(ToolOutput::text(args.str("text")?)),
        )
        .annotations(json!({"readOnlyHint": true, "openWorldHint": false})),
    )
}
