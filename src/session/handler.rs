//! What every method shares: the protocol facts of a request ([`Era`]), pages and cursors,
//! a handler's scope, running a handler (a panic becomes −32603), and the 2026-07-28
//! multi round-trip inputs.

use std::fmt::Display;
use std::panic::{self, AssertUnwindSafe};
use std::rc::Rc;

use serde_json::{json, Map, Value};

use super::answer::Outcome;
use super::connection::Connection;
use crate::context::{Context, Inputs, NotificationBudget, Scope};
use crate::encoding::{base64url, base64url_decode};
use crate::error::McpError;
use crate::jsonrpc::RequestId;
use crate::log;
use crate::model::{HandlerError, InputError};
use crate::mrtr::{self, Binding};
use crate::protocol::{self, LogLevel, Version};

/// The protocol facts of one request.
pub(crate) struct Era {
    pub(crate) version: Version,
    pub(crate) client_capabilities: Rc<Value>,
    pub(crate) client_info: Rc<Value>,
    pub(crate) log_level: Option<LogLevel>,
}

/// `params[key]` as a string, or an invalid-params error with `message`.
pub(crate) fn string<'a>(
    params: &'a Map<String, Value>,
    key: &str,
    message: &str,
) -> Result<&'a str, McpError> {
    params
        .get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| invalid(message))
}

/// The log level `value` names, or an invalid-params error naming `what` and the levels.
pub(crate) fn log_level(value: Option<&Value>, what: impl Display) -> Result<LogLevel, McpError> {
    value
        .and_then(Value::as_str)
        .and_then(LogLevel::parse)
        .ok_or_else(|| {
            let names: Vec<&str> = LogLevel::names().collect();
            invalid(format!("`{what}` must be one of {}", names.join(", ")))
        })
}

/// An invalid-params error with `message`.
pub(crate) fn invalid(message: impl Into<String>) -> McpError {
    McpError::InvalidParams(message.into())
}

impl Connection<'_> {
    /// One page of `items`, as `json` writes each, under `key`: the page this request's
    /// cursor (of `kind`) names, and the cursor of the next page.
    pub(super) fn list<T>(
        &self,
        params: &Map<String, Value>,
        kind: &str,
        key: &str,
        items: &[T],
        json: impl Fn(&T) -> Value,
    ) -> Outcome {
        let start = match params.get("cursor") {
            None => 0,
            Some(cursor) => decode_cursor(cursor, kind)
                .map(|(_, offset)| offset)
                .filter(|&offset| offset > 0 && offset < items.len())
                .ok_or_else(bad_cursor)?,
        };
        let end = (start + self.server.limits.page_size).min(items.len());
        let listed: Vec<Value> = items[start..end].iter().map(json).collect();
        let next = (end < items.len()).then(|| encode_cursor(kind, 0, end));
        Ok(with_cursor(json!({ key: listed }), next))
    }

    /// The request's scope: id, progress token, protocol, and MRTR inputs.
    pub(super) fn scope(
        &self,
        id: &RequestId,
        params: &Map<String, Value>,
        era: &Era,
        inputs: Inputs,
    ) -> Scope {
        let progress_token = protocol::request_meta(Some(params))
            .and_then(|m| m.get("progressToken"))
            .filter(|t| t.is_string() || t.as_i64().is_some() || t.as_u64().is_some())
            .cloned();
        Scope {
            id: id.clone(),
            version: era.version,
            progress_token,
            last_progress: None,
            log_level: era.log_level,
            client_capabilities: era.client_capabilities.clone(),
            client_info: era.client_info.clone(),
            request_timeout: self.server.limits.request_timeout,
            result_budget: self.server.limits.max_result_bytes,
            inputs,
            notifications: NotificationBudget::default(),
        }
    }

    /// Runs a completer under a context; a panic becomes −32603.
    pub(super) fn run_completer<T>(
        &mut self,
        scope: Scope,
        completer: impl FnOnce(&mut Context<'_>) -> T,
    ) -> Result<T, McpError> {
        match self.run_handler(scope, |ctx| Ok(completer(ctx))) {
            (Some(Ok(values)), _) => Ok(values),
            _ => Err(McpError::Internal),
        }
    }

    /// Runs a handler; a panic becomes `None` (→ −32603) instead of ending the session.
    pub(super) fn run_handler<T>(
        &mut self,
        scope: Scope,
        handler: impl FnOnce(&mut Context<'_>) -> Result<T, HandlerError>,
    ) -> (Option<Result<T, HandlerError>>, Inputs) {
        let mut ctx = Context::new(self, scope);
        let result = panic::catch_unwind(AssertUnwindSafe(|| handler(&mut ctx)));
        let inputs = std::mem::take(&mut ctx.scope.inputs);
        if result.is_err() {
            log::error(format_args!(
                "a handler panicked; answered with an internal error"
            ));
        }
        (result.ok(), inputs)
    }

    /// 2026-07-28: the answers a retried request brings (sealed `requestState` plus
    /// `inputResponses`). Earlier versions have no such fields.
    pub(super) fn open_inputs(
        &self,
        era: &Era,
        binding: &Binding<'_>,
        params: &Map<String, Value>,
    ) -> Result<Inputs, McpError> {
        let mut inputs = Inputs::default();
        if !era.version.is_stateless() {
            return Ok(inputs);
        }
        if let Some(state) = params.get("requestState") {
            let state = state
                .as_str()
                .ok_or_else(|| invalid("`requestState` must be a string"))?;
            inputs.answers = mrtr::open(&self.server.state_key, binding, state).map_err(|why| {
                invalid(format!("`requestState` was rejected: {why}; send the request again without requestState and inputResponses"))
            })?;
        }
        if let Some(responses) = params.get("inputResponses") {
            let responses = responses
                .as_object()
                .ok_or_else(|| invalid("`inputResponses` must be an object"))?;
            for (key, answer) in responses {
                if !answer.is_object() {
                    return Err(invalid(format!("`inputResponses.{key}` must be an object")));
                }
                inputs.answers.insert(key.clone(), answer.clone());
            }
        }
        Ok(inputs)
    }

    /// What an input error means for the response in 2026-07-28: `input_required` while
    /// answers are pending, −32021 for an undeclared capability. `None` otherwise.
    pub(super) fn input_outcome(
        &self,
        era: &Era,
        error: &HandlerError,
        binding: &Binding<'_>,
        inputs: &Inputs,
    ) -> Option<Outcome> {
        if !era.version.is_stateless() {
            return None;
        }
        match error {
            HandlerError::Input(InputError::Pending) if !inputs.pending.is_empty() => {
                Some(Ok(json!({
                    "resultType": "input_required",
                    "inputRequests": inputs.pending,
                    "requestState": mrtr::seal(&self.server.state_key, binding, &inputs.answered()),
                })))
            }
            HandlerError::Input(InputError::Unsupported(required)) => {
                Some(Err(McpError::MissingClientCapability(required.clone())))
            }
            _ => None,
        }
    }
}

/// Maps a prompt or resource handler's error to a protocol error.
pub(super) fn handler_error(error: HandlerError, what: &str) -> McpError {
    match error {
        HandlerError::Invalid(message) | HandlerError::NotFound(message) => invalid(message),
        HandlerError::Input(e) => invalid(format!("{what}: {e}")),
        HandlerError::Internal(detail) => {
            // The kind ("resource", "prompt"), not what the client named: the log holds no
            // argument (the handler's own detail is its author's to keep clean).
            let kind = what.split(' ').next().unwrap_or(what);
            log::warn(format_args!("a {kind} handler failed: {detail}"));
            McpError::Internal
        }
    }
}

pub(super) fn bad_cursor() -> McpError {
    invalid("invalid `cursor`: pass the `nextCursor` of the previous page unchanged, or omit it for the first page")
}

pub(super) fn encode_cursor(kind: &str, source: usize, offset: usize) -> String {
    base64url(format!("{kind}:{source}:{offset}").as_bytes())
}

pub(super) fn decode_cursor(cursor: &Value, kind: &str) -> Option<(usize, usize)> {
    let text = String::from_utf8(base64url_decode(cursor.as_str()?)?).ok()?;
    let mut parts = text.split(':');
    if parts.next()? != kind {
        return None;
    }
    let source = parts.next()?.parse().ok()?;
    let offset = parts.next()?.parse().ok()?;
    parts.next().is_none().then_some((source, offset))
}

pub(super) fn with_cursor(mut result: Value, next: Option<String>) -> Value {
    if let Some(next) = next {
        result["nextCursor"] = json!(next);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_reject_forgeries() {
        let cursor = json!(encode_cursor("tools", 0, 100));
        assert_eq!(decode_cursor(&cursor, "tools"), Some((0, 100)));
        assert_eq!(decode_cursor(&cursor, "prompts"), None);
        for bad in [
            json!("nope"),
            json!(7),
            json!(""),
            json!(base64url(b"tools:0")),
            json!(base64url(b"tools:0:1:2")),
        ] {
            assert_eq!(decode_cursor(&bad, "tools"), None, "{bad}");
        }
    }
}
