//! What every method's handler shares: the client a request is served for ([`Client`]),
//! what a running handler reaches through its context (the `Link`), pages and cursors, and
//! what 2026-07-28 adds — the client taken from each request's `_meta`, the answers a retry
//! brings in its sealed `requestState`, `input_required`, and what every result carries.

use std::fmt::Display;
use std::rc::Rc;
use std::time::Instant;

use serde_json::{json, Map, Value};

use super::port::Polled;
use super::{Outcome, Session};
use crate::context::{Client, Inputs, Link, RootsCache};
use crate::error::McpError;
use crate::model::{HandlerError, InputError};
use crate::protocol::{meta, LogLevel, Method, Version};
use minimcp_base::encoding::{base64url, base64url_decode};
use minimcp_base::log;
use minimcp_base::request_state::{self, Binding};

/// Expected in every 2026-07-28 request (MCP 2026-07-28 basic/index §_meta).
const MISSING_META: &str = "a 2026-07-28 request needs params._meta with \"io.modelcontextprotocol/protocolVersion\" and \"io.modelcontextprotocol/clientCapabilities\"; clients of earlier versions send \"initialize\" first";

/// Why a request inside a JSON-RPC batch cannot ask its client.
const IN_BATCH: &str = "a request inside a JSON-RPC batch cannot ask the client for input; send this request on its own";

/// The client of a 2026-07-28 request, from its `_meta`. Its capabilities and info are moved
/// out of `_meta` rather than copied: nothing after this reads them there, and a deep copy
/// of both was a tenth of a small call.
pub(crate) fn stateless_client(params: &mut Map<String, Value>) -> Result<Client, McpError> {
    let meta_obj = params
        .get_mut("_meta")
        .and_then(Value::as_object_mut)
        .ok_or_else(|| invalid(MISSING_META))?;
    let requested = string(meta_obj, meta::PROTOCOL_VERSION, MISSING_META)?;
    let version = match Version::parse(requested) {
        Some(v) if v.is_stateless() => v,
        _ => {
            return Err(McpError::UnsupportedProtocolVersion {
                requested: requested.to_string(),
                supported: Version::supported_newest_first(),
            })
        }
    };
    let capabilities = match meta_obj.remove(meta::CLIENT_CAPABILITIES) {
        Some(capabilities @ Value::Object(_)) => Rc::new(capabilities),
        _ => return Err(invalid(MISSING_META)),
    };
    let log_level = meta_obj
        .get(meta::LOG_LEVEL)
        .map(|level| log_level(Some(level), format_args!("_meta[\"{}\"]", meta::LOG_LEVEL)))
        .transpose()?;
    let info = match meta_obj.remove(meta::CLIENT_INFO) {
        None => Rc::new(json!({})),
        Some(info @ Value::Object(_)) => Rc::new(info),
        Some(_) => {
            return Err(invalid(format!(
                "`_meta[\"{}\"]` must be an object",
                meta::CLIENT_INFO
            )))
        }
    };
    Ok(Client {
        version,
        capabilities,
        info,
        log_level,
    })
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

/// True for input a running handler's cancellation check takes now: anything but a request
/// (a `ping` is answered at once) or a response, which wait for the handler to return.
pub(crate) fn taken_while_running(value: &Value) -> bool {
    let waits = |v: &Value| {
        v.get("id").is_some()
            && !(v.get("method").and_then(Value::as_str))
                .and_then(Method::parse)
                .is_some_and(Method::jumps_the_queue)
    };
    match value {
        Value::Array(items) => !items.iter().any(waits),
        value => !waits(value),
    }
}

impl Link for Session<'_> {
    fn notify(&mut self, method: &str, params: Value) {
        self.notify_now(method, &params);
    }

    fn poll_cancelled(&mut self) -> bool {
        loop {
            if self.running.as_ref().is_some_and(|r| r.cancelled) {
                return true;
            }
            // Only what can matter now is read: requests stay in the transport, so a
            // pipelining client waits instead of being refused (benches/busy_pipeline.sh).
            match self.port.poll(&taken_while_running) {
                Some(Polled::Unit(unit, origin)) => {
                    let incoming = super::sort(unit, self.version());
                    self.handle(incoming, origin);
                }
                Some(Polled::Gone(origin)) => {
                    self.left(origin);
                    if let Some(running) = self.running.as_mut().filter(|_| origin == self.origin) {
                        running.cancelled = true;
                    }
                }
                None => return self.running.as_ref().is_some_and(|r| r.cancelled),
            }
        }
    }

    fn may_ask(&self) -> Result<(), InputError> {
        if self.closed {
            return Err(InputError::Cancelled);
        }
        if !self.handshake.is_ready() {
            return Err(InputError::NotReady);
        }
        if !self.running.as_ref().is_some_and(|r| r.parkable) {
            return Err(InputError::Invalid(IN_BATCH.into()));
        }
        if self.parked.len() >= self.server.limits.max_outstanding_requests {
            return Err(InputError::TooMany);
        }
        Ok(())
    }

    fn release_stream(&mut self) {
        self.port.flush();
        self.port.release(self.origin);
    }

    fn roots_cache(&mut self) -> Option<&mut RootsCache> {
        self.handshake.negotiated_mut().map(|n| &mut n.roots)
    }

    fn session(&self) -> Option<u64> {
        self.handshake.negotiated().map(|_| self.number)
    }
}

impl Session<'_> {
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

    /// 2026-07-28: the answers a retried request brings (sealed `requestState` plus
    /// `inputResponses`). Earlier versions have no such fields.
    pub(super) fn sealed_inputs(
        &self,
        client: &Client,
        binding: &Binding<'_>,
        params: &Map<String, Value>,
    ) -> Result<Inputs, McpError> {
        let mut inputs = Inputs::default();
        if !client.version.is_stateless() {
            return Ok(inputs);
        }
        if let Some(state) = params.get("requestState") {
            let state = state
                .as_str()
                .ok_or_else(|| invalid("`requestState` must be a string"))?;
            let opened = request_state::open(&self.server.state_key, binding, state);
            let answers = opened.map_err(|why| {
                invalid(format!("`requestState` was rejected: {why}; send the request again without requestState and inputResponses"))
            })?;
            inputs
                .answers
                .extend(answers.into_iter().map(|(k, v)| (k, Ok(v))));
        }
        if let Some(responses) = params.get("inputResponses") {
            let responses = responses
                .as_object()
                .ok_or_else(|| invalid("`inputResponses` must be an object"))?;
            for (key, answer) in responses {
                if !answer.is_object() {
                    return Err(invalid(format!("`inputResponses.{key}` must be an object")));
                }
                inputs.answers.insert(key.clone(), Ok(answer.clone()));
            }
        }
        Ok(inputs)
    }

    /// What an input error means for the response in 2026-07-28: `input_required` while
    /// answers are pending, −32021 for an undeclared capability. `None` otherwise.
    pub(super) fn input_outcome(
        &self,
        client: &Client,
        error: &HandlerError,
        binding: &Binding<'_>,
        inputs: &Inputs,
    ) -> Option<Outcome> {
        if !client.version.is_stateless() {
            return None;
        }
        match error {
            HandlerError::Input(InputError::Pending) if !inputs.pending.is_empty() => {
                let state =
                    request_state::seal(&self.server.state_key, binding, &inputs.answered());
                Some(Ok(json!({
                    "resultType": "input_required",
                    "inputRequests": inputs.pending,
                    "requestState": state,
                })))
            }
            HandlerError::Input(InputError::Unsupported(required)) => {
                Some(Err(McpError::MissingClientCapability(required.clone())))
            }
            _ => None,
        }
    }

    /// Adds what every 2026-07-28 result carries: `resultType`, the server's identity, and
    /// the caching hint of a method that has one ([`Method::cache_ttl_ms`]).
    pub(super) fn decorate(&self, method: Method, result: &mut Value, version: Version) {
        let Some(obj) = result.as_object_mut() else {
            return;
        };
        let complete = obj.entry("resultType").or_insert_with(|| json!("complete")) == "complete";
        let meta = obj.entry("_meta").or_insert_with(|| json!({}));
        if let Some(meta) = meta.as_object_mut() {
            meta.insert(
                meta::SERVER_INFO.into(),
                self.server.implementation(version),
            );
        }
        if let (true, Some(ttl)) = (complete, method.cache_ttl_ms()) {
            obj.insert("ttlMs".into(), json!(ttl));
            // Listings and file contents may be specific to this user: never shared caches.
            obj.insert("cacheScope".into(), json!("private"));
        }
    }
}

/// A token bucket for `--rate-limit`.
pub(super) struct TokenBucket {
    rate: f64,
    tokens: f64,
    last: Instant,
}

impl TokenBucket {
    pub(super) fn new(rate: f64) -> Self {
        TokenBucket {
            rate,
            tokens: rate.max(1.0),
            last: Instant::now(),
        }
    }

    /// Takes a token, or says in how many milliseconds one will be there.
    pub(super) fn take(&mut self) -> Result<(), u64> {
        let now = Instant::now();
        let capacity = self.rate.max(1.0);
        self.tokens =
            (self.tokens + now.duration_since(self.last).as_secs_f64() * self.rate).min(capacity);
        self.last = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            Ok(())
        } else {
            Err((((1.0 - self.tokens) / self.rate) * 1000.0).ceil() as u64)
        }
    }
}

/// `params[key]` as a string, or an invalid-params error with `message`.
pub(super) fn string<'a>(
    params: &'a Map<String, Value>,
    key: &str,
    message: &str,
) -> Result<&'a str, McpError> {
    params
        .get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| invalid(message))
}

/// `params[key]` as an object, or an invalid-params error with `message`.
pub(super) fn object<'a>(
    params: &'a Map<String, Value>,
    key: &str,
    message: &str,
) -> Result<&'a Map<String, Value>, McpError> {
    params
        .get(key)
        .and_then(Value::as_object)
        .ok_or_else(|| invalid(message))
}

/// An invalid-params error with `message`.
pub(super) fn invalid(message: impl Into<String>) -> McpError {
    McpError::InvalidParams(message.into())
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

    #[test]
    fn a_running_handler_leaves_requests_and_responses_but_takes_the_rest() {
        let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
        assert!(!taken_while_running(&request));
        assert!(!taken_while_running(&json!([request])));
        assert!(!taken_while_running(
            &json!({"jsonrpc": "2.0", "id": 1, "result": {}})
        ));
        assert!(taken_while_running(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})
        ));
        assert!(taken_while_running(
            &json!({"jsonrpc": "2.0", "method": "notifications/cancelled"})
        ));
        assert!(taken_while_running(&json!([
            {"jsonrpc": "2.0", "method": "notifications/cancelled"}
        ])));
        assert!(taken_while_running(&json!([])));
        assert!(taken_while_running(&json!("not a message")));
    }
}
