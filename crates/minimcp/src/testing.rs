//! Running a handler in a unit test, without a session: [`TestClient`].

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{json, Value};

use crate::context::{Client, Context, InputError, Link, RootsCache, Scope};
use crate::jsonrpc::RequestId;
use crate::model::{Arguments, HandlerError, Prompt, PromptMessage, Tool, ToolOutput};
use crate::{Limits, Version};

/// A stand-in client for calling a tool, prompt or resource handler directly in a unit
/// test: it gives the handler a [`Context`], records the notifications it sends, and can
/// cancel the request. It declares no capabilities, so asking it for input fails with
/// [`InputError::Unsupported`].
///
/// ```
/// use minimcp::{TestClient, Tool, ToolOutput};
/// use serde_json::json;
///
/// let tool = Tool::new("echo", "Echo", json!({"type": "object",
///     "properties": {"text": {"type": "string", "default": "hi"}}}),
///     |args, _ctx| Ok(ToolOutput::text(args.str("text")?)));
/// let out = TestClient::default().call(&tool, json!({})).expect("answers");
/// assert_eq!(out, ToolOutput::text("hi"));
/// ```
pub struct TestClient {
    /// Every notification the handler sent, as (method, params), in order.
    pub notifications: Vec<(String, Value)>,
    /// How many times the handler asked [`Context::is_cancelled`].
    pub polls: usize,
    /// From this poll on (1 is the first), [`Context::is_cancelled`] is true.
    pub cancel_at: Option<usize>,
    /// Whether the request asks for progress (carries a progress token).
    pub progress: bool,
    /// [`Context::result_budget`]; by default that of [`Limits::default`].
    pub result_budget: usize,
    /// [`Context::protocol_version`]; by default the newest handshake version.
    pub version: Version,
}

impl Default for TestClient {
    fn default() -> Self {
        TestClient {
            notifications: Vec::new(),
            polls: 0,
            cancel_at: None,
            progress: false,
            result_budget: Limits::default().max_result_bytes,
            version: Version::LATEST_HANDSHAKE,
        }
    }
}

impl TestClient {
    /// A context for one request from this client.
    pub fn context(&mut self) -> Context<'_> {
        let scope = Scope {
            id: RequestId::Unsigned(1),
            client: Client::unknown(self.version),
            progress_token: self.progress.then(|| json!("test")),
            last_progress: None,
            request_timeout: Duration::from_secs(1),
            result_budget: self.result_budget,
            inputs: Default::default(),
            notifications: Default::default(),
        };
        Context::new(self, scope)
    }

    /// Calls `tool` as the server would: `arguments` are validated against its input schema
    /// with defaults filled in (a problem is [`HandlerError::Invalid`]), then the handler runs.
    ///
    /// # Panics
    ///
    /// When a successful result breaks the tool's contract: structured output that does not
    /// match its output schema, or a result over the budget. The server would replace such a
    /// result with an error; in a test it is a bug in the tool.
    pub fn call(&mut self, tool: &Tool, arguments: Value) -> Result<ToolOutput, HandlerError> {
        let mut arguments = arguments;
        minimcp_base::schema::validate(&tool.input_schema, &mut arguments, true)
            .map_err(|problems| HandlerError::Invalid(problems.join("; ")))?;
        let Value::Object(map) = arguments else {
            return Err(HandlerError::Invalid(
                "the arguments must be an object".into(),
            ));
        };
        let budget = self.result_budget;
        let out = (tool.handler)(&Arguments(map), &mut self.context())?;
        if let (false, Some(schema)) = (out.is_error, &tool.output_schema) {
            let structured = out.structured.as_ref().unwrap_or(&Value::Null);
            if let Err(problems) = minimcp_base::schema::validate_ref(schema, structured) {
                panic!(
                    "{}: structuredContent {problems:?}\n{structured:#}",
                    tool.name
                );
            }
        }
        let size = out.budget_size();
        assert!(
            size <= budget,
            "{}: {size} bytes over the {budget}-byte budget",
            tool.name
        );
        Ok(out)
    }

    /// Gets `prompt` with `arguments` as the server would after checking them: its handler runs.
    pub fn get_prompt(
        &mut self,
        prompt: &Prompt,
        arguments: &BTreeMap<String, String>,
    ) -> Result<Vec<PromptMessage>, HandlerError> {
        (prompt.handler)(arguments, &mut self.context())
    }

    /// What `prompt` completes its argument `argument` to from `value` (no other argument
    /// given yet); `None` when it has no such argument or does not complete it.
    pub fn complete_prompt(
        &mut self,
        prompt: &Prompt,
        argument: &str,
        value: &str,
    ) -> Option<Vec<String>> {
        let argument = prompt.arguments.iter().find(|a| a.name == argument)?;
        let completer = argument.completer.as_ref()?;
        Some(completer(value, &BTreeMap::new(), &mut self.context()))
    }
}

impl Link for TestClient {
    fn notify(&mut self, method: &str, params: Value) {
        self.notifications.push((method.to_string(), params));
    }

    fn poll_cancelled(&mut self) -> bool {
        self.polls += 1;
        self.cancel_at.is_some_and(|at| self.polls >= at)
    }

    fn may_ask(&self) -> Result<(), InputError> {
        Ok(())
    }

    fn roots_cache(&mut self) -> Option<&mut RootsCache> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts to `to`, stopping with `ctx.cancelled()` when the client cancels.
    fn counter() -> Tool {
        let schema = json!({"type": "object", "properties": {"to": {"type": "integer", "maximum": 9, "default": 3}}});
        Tool::new("count", "Counts", schema, |args, ctx| {
            for i in 1..=args.u64("to")?.unwrap_or(0) {
                if ctx.is_cancelled() {
                    return Err(ctx.cancelled());
                }
                ctx.progress(i as f64, None, None);
            }
            Ok(ToolOutput::text("done"))
        })
    }

    #[test]
    fn calls_validate_fill_defaults_record_progress_and_cancel() {
        let mut client = TestClient {
            progress: true,
            ..TestClient::default()
        };
        assert_eq!(
            client.call(&counter(), json!({})).expect("answers"),
            ToolOutput::text("done")
        );
        assert_eq!(
            client.notifications.len(),
            3,
            "the default of 3 was filled in"
        );
        let refused = client
            .call(&counter(), json!({"to": 10}))
            .expect_err("invalid");
        assert!(
            refused.to_string().contains("`to` must be ≤ 9"),
            "{refused}"
        );
        let mut client = TestClient {
            cancel_at: Some(2),
            ..TestClient::default()
        };
        let stopped = client.call(&counter(), json!({})).expect_err("cancelled");
        assert!(matches!(
            stopped,
            HandlerError::Input(InputError::Cancelled)
        ));
        assert_eq!(client.polls, 2);
    }

    #[test]
    #[should_panic(expected = "over the 10-byte budget")]
    fn a_result_over_the_budget_is_a_bug_in_the_tool() {
        let mut client = TestClient {
            result_budget: 10,
            ..TestClient::default()
        };
        let big = Tool::new("big", "Big", json!({"type": "object"}), |_, _| {
            Ok(ToolOutput::text("x".repeat(11)))
        });
        let _ = client.call(&big, json!({}));
    }
}
