//! Tools: listing them, and calling one — arguments checked against its schema, its
//! output against its output schema and the result budget.

use serde_json::{Map, Value};

use super::answer::{tool_result, Answer, Outcome};
use super::connection::Connection;
use super::handler::{invalid, string, Era};
use crate::error::McpError;
use crate::jsonrpc::RequestId;
use crate::log;
use crate::model::{Arguments, HandlerError, ToolOutput};
use crate::mrtr::Binding;
use crate::schema;

impl Connection<'_> {
    pub(super) fn list_tools(&self, params: &Map<String, Value>, era: &Era) -> Outcome {
        let server = self.server;
        self.list(params, "tools", "tools", &server.tools, |tool| {
            server.tool_json(tool, era.version)
        })
    }

    pub(super) fn call_tool(
        &mut self,
        id: &RequestId,
        mut params: Map<String, Value>,
        era: &Era,
    ) -> Result<Answer, McpError> {
        let server = self.server;
        let failed =
            |message: String| Ok(tool_result(ToolOutput::error(message), era.version, server));
        let mut arguments = match params.remove("arguments") {
            None => Value::Object(Map::new()),
            Some(args @ Value::Object(_)) => args,
            Some(_) => return Err(invalid("`arguments` must be an object")),
        };
        let name = string(&params, "name", "`name` must be a string: the tool to call")?;
        let tool = server.tool_index.get(name).map(|&i| &server.tools[i]);
        let tool = tool.ok_or_else(|| {
            let near = schema::closest(name, server.tool_names()).map(str::to_string);
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
            if !era.version.input_errors_are_tool_errors() {
                return Err(invalid(message));
            }
            return failed(message);
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
            None => return Err(McpError::Internal),
            Some(Err(error)) => {
                let arguments = Value::Object(arguments.0);
                let binding = Binding {
                    method: "tools/call",
                    target: name,
                    arguments: &arguments,
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
        };
        if let (Some(schema), false) = (&tool.output_schema, output.is_error) {
            let structured = output.structured.as_ref();
            if structured.is_none_or(|s| schema::validate_ref(schema, s).is_err()) {
                log::error(format_args!(
                    "tool {name} returned output that does not match its outputSchema"
                ));
                return failed(format!(
                    "Tool {name} failed: its output did not match its declared outputSchema."
                ));
            }
        }
        let (size, budget) = (output.budget_size(), server.limits.max_result_bytes);
        if size > budget {
            log::warn(format_args!(
                "tool {name} returned {size} bytes, over the {budget}-byte result budget"
            ));
            return failed(format!(
                "The result of tool {name} is {size} bytes, over this server's {budget}-byte budget for one tool result. Ask for less: a narrower path or pattern, a smaller range or limit, or one page at a time."
            ));
        }
        Ok(tool_result(output, era.version, server))
    }
}
