//! The diagnostic tools of the suite's `server-stateless` scenario and its header scenarios
//! (`shared/CONFORMANCE-FIXTURES.md` §6.3, §6.4). Each exercises a 2026-07-28 rule of the
//! core through the ordinary [`Context`]; none does anything special for the suite.

use serde_json::json;

use minimcp::{Builder, Context, Elicited, LogLevel, Tool, ToolOutput};

/// Adds the diagnostic tools.
pub(super) fn add(builder: Builder) -> Builder {
    let no_arguments = || json!({"type": "object", "properties": {}});
    builder
        .tool(Tool::new(
            "test_missing_capability",
            "Asks the client's model for a one-word greeting, so it needs the sampling \
             capability: in 2026-07-28 a request that does not declare it gets error -32021 \
             naming {\"sampling\": {}}.",
            no_arguments(),
            |_, ctx| {
                let answer = ctx.sample(json!({
                    "messages": [{"role": "user", "content": {"type": "text", "text": "Say hello in one word."}}],
                    "maxTokens": 10
                }))?;
                let text = answer["content"]["text"].as_str().unwrap_or("(no text)");
                Ok(ToolOutput::text(format!("The model said: {text}")))
            },
        ))
        .tool(Tool::new(
            "test_streaming_elicitation",
            "Asks the user to confirm. In 2026-07-28 the question travels in an \
             input_required result, never as a request on the response stream.",
            no_arguments(),
            |_, ctx| {
                let form = json!({
                    "type": "object",
                    "properties": {"confirmed": {"type": "boolean"}},
                    "required": ["confirmed"]
                });
                let confirmed = match ctx.input_key("confirmation").elicit("Continue?", form)? {
                    Elicited::Accept(content) => content["confirmed"] == json!(true),
                    Elicited::Decline | Elicited::Cancel => false,
                };
                Ok(ToolOutput::text(format!("Confirmed: {confirmed}")))
            },
        ))
        .tool(Tool::new(
            "test_logging_tool",
            "Logs one message at each of debug, info and warning, then returns. In \
             2026-07-28 the messages are sent only when the request names a log level in \
             _meta.",
            no_arguments(),
            |_, ctx: &mut Context<'_>| {
                ctx.log(LogLevel::Debug, "test_logging_tool: debug message");
                ctx.log(LogLevel::Info, "test_logging_tool: info message");
                ctx.log(LogLevel::Warning, "test_logging_tool: warning message");
                Ok(ToolOutput::text("Logged three messages (debug, info, warning)."))
            },
        ))
        .tool(Tool::new(
            "test_x_mcp_header",
            "Echoes `region`. Over Streamable HTTP (2026-07-28) the argument is mirrored in \
             the Mcp-Param-Region header (its `x-mcp-header` annotation).",
            json!({
                "type": "object",
                "properties": {
                    "region": {
                        "type": "string",
                        "description": "Any region name.",
                        "x-mcp-header": "Region"
                    }
                },
                "required": ["region"]
            }),
            |args, _| Ok(ToolOutput::text(format!("Region: {}", args.str("region")?))),
        ))
}
