//! JSON-RPC 2.0 envelopes, written by hand on top of `serde_json::Value`.
//!
//! This layer knows nothing about MCP. It classifies one parsed JSON value as a request, a
//! notification or a response (to a request *we* sent), or rejects it with the reason and, whenever
//! it can be read, the request id, so the error can still be correlated
//! (conformance/REQUIREMENTS.md A-3: recover the id whenever the input is an object with a valid
//! `id`).
//!
//! Classification rules, in order:
//! 1. The value must be an object.
//! 2. A `method` member makes it a request (`id` present) or a notification (`id` absent).
//!    Anything carrying a string `method` and no `id` is *notification-shaped* and is never
//!    answered, even when it is otherwise invalid (JSON-RPC 2.0 §4.1, REQUIREMENTS.md B-10).
//! 3. Without `method`, a `result` or `error` member makes it a response; responses are never
//!    answered either.
//! 4. `jsonrpc` must be exactly `"2.0"`; `id` must be a string or an integer (never `null`,
//!    never fractional: REQUIREMENTS.md B-3); `params`, when present, must be an object (MCP
//!    uses named parameters only).

use std::fmt;

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};

use thiserror::Error;

/// JSON-RPC error codes defined by JSON-RPC 2.0 and used by MCP.
pub(crate) mod code {
    /// Invalid JSON was received.
    pub(crate) const PARSE_ERROR: i64 = -32700;
    /// The JSON sent is not a valid request object.
    pub(crate) const INVALID_REQUEST: i64 = -32600;
    /// The method does not exist or is not available.
    pub(crate) const METHOD_NOT_FOUND: i64 = -32601;
    /// Invalid method parameters.
    pub(crate) const INVALID_PARAMS: i64 = -32602;
    /// Internal JSON-RPC error.
    pub(crate) const INTERNAL_ERROR: i64 = -32603;
}

/// A request id exactly as the peer sent it: a string or a 64-bit integer.
///
/// The JSON type is preserved (`"7"` and `7` are different ids) and integers keep their full range,
/// so the id is echoed back unchanged (REQUIREMENTS.md B-5; python-sdk#961 is what goes wrong
/// otherwise).
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct RequestId(IdRepr);

#[derive(Clone, PartialEq, Eq, Hash)]
enum IdRepr {
    Unsigned(u64),
    Negative(i64),
    Str(String),
}

impl RequestId {
    /// Reads an id from its JSON value; `None` for `null`, fractions, out-of-range numbers,
    /// booleans, arrays and objects.
    pub(crate) fn from_value(value: &Value) -> Option<RequestId> {
        match value {
            Value::String(s) => Some(RequestId(IdRepr::Str(s.clone()))),
            Value::Number(n) => {
                if let Some(u) = n.as_u64() {
                    Some(RequestId(IdRepr::Unsigned(u)))
                } else {
                    n.as_i64().map(|i| RequestId(IdRepr::Negative(i)))
                }
            }
            _ => None,
        }
    }

    /// An integer id, as minted by the server for its own requests.
    pub(crate) fn number(n: u64) -> RequestId {
        RequestId(IdRepr::Unsigned(n))
    }

    /// The id as a JSON value.
    #[cfg(test)]
    pub(crate) fn to_value(&self) -> Value {
        match &self.0 {
            IdRepr::Unsigned(u) => Value::from(*u),
            IdRepr::Negative(i) => Value::from(*i),
            IdRepr::Str(s) => Value::from(s.as_str()),
        }
    }
}

impl Serialize for RequestId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            IdRepr::Unsigned(u) => serializer.serialize_u64(*u),
            IdRepr::Negative(i) => serializer.serialize_i64(*i),
            IdRepr::Str(s) => serializer.serialize_str(s),
        }
    }
}

/// Strings print quoted, so `7` and `"7"` look different in logs (lsp-server does the same).
impl fmt::Debug for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            IdRepr::Unsigned(u) => write!(f, "{u}"),
            IdRepr::Negative(i) => write!(f, "{i}"),
            IdRepr::Str(s) => write!(f, "{s:?}"),
        }
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// The `error` member of an error response.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ErrorObject {
    /// The error code.
    pub code: i64,
    /// A short description of the error.
    pub message: String,
    /// Additional information about the error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

/// A request from the peer.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Request {
    /// The id to echo in the response.
    pub id: RequestId,
    /// The method name.
    pub method: String,
    /// Named parameters; `None` when the member was absent.
    pub params: Option<Map<String, Value>>,
}

/// A notification from the peer: never answered.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Notification {
    /// The method name.
    pub method: String,
    /// Named parameters; `None` when the member was absent.
    pub params: Option<Map<String, Value>>,
}

/// A response from the peer to a request the server sent.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Response {
    /// The id of the server's request.
    pub id: RequestId,
    /// The `result`, or the `error`.
    pub outcome: Result<Value, ErrorObject>,
}

/// One classified message.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Message {
    /// A request: must be answered exactly once.
    Request(Request),
    /// A notification: never answered.
    Notification(Notification),
    /// A response to one of our requests: never answered.
    Response(Response),
}

/// A value that is not a valid message.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Rejected {
    /// The id, when one could be read; the error response echoes it.
    pub id: Option<RequestId>,
    /// What was wrong.
    pub error: EnvelopeError,
    /// False for notification-shaped values and responses, which are never answered.
    pub answer: bool,
}

/// Classifies one parsed JSON value (see the module docs for the rules).
pub(crate) fn classify(value: Value) -> Result<Message, Rejected> {
    let Value::Object(obj) = value else {
        return Err(Rejected {
            id: None,
            error: EnvelopeError::NotAnObject,
            answer: true,
        });
    };
    // The members are taken in one pass over the map, which is consumed anyway: a lookup
    // and a removal (with its rebalancing) per member cost more than the whole walk.
    let mut member = Members::default();
    for (key, value) in obj {
        let slot = match key.as_str() {
            "jsonrpc" => &mut member.jsonrpc,
            "id" => &mut member.id,
            "method" => &mut member.method,
            "params" => &mut member.params,
            "result" => &mut member.result,
            "error" => &mut member.error,
            _ => continue,
        };
        *slot = Some(value);
    }
    let id_member = member.id;
    let id = id_member.as_ref().and_then(RequestId::from_value);
    let version_ok = matches!(&member.jsonrpc, Some(Value::String(v)) if v == "2.0");

    match member.method {
        Some(Value::String(method)) => {
            // No `id` member at all: a notification, never answered, even when invalid.
            let is_notification = id_member.is_none();
            let reject = |error| {
                Err(Rejected {
                    id: id.clone(),
                    error,
                    answer: !is_notification,
                })
            };
            if !version_ok {
                return reject(EnvelopeError::BadVersion);
            }
            let params = match member.params {
                None => None,
                Some(Value::Object(map)) => Some(map),
                Some(Value::Array(_)) => return reject(EnvelopeError::PositionalParams),
                Some(_) => return reject(EnvelopeError::BadParams),
            };
            match (id_member, id.clone()) {
                (None, _) => Ok(Message::Notification(Notification { method, params })),
                (Some(_), Some(id)) => Ok(Message::Request(Request { id, method, params })),
                (Some(raw), None) => reject(EnvelopeError::BadId(id_kind(&raw))),
            }
        }
        Some(_) => Err(Rejected {
            id,
            error: EnvelopeError::BadMethod,
            answer: true,
        }),
        None if member.result.is_some() || member.error.is_some() => {
            // A response: never answered, so every problem is reported as not-to-answer.
            let reject = |error| {
                Err(Rejected {
                    id: id.clone(),
                    error,
                    answer: false,
                })
            };
            if !version_ok {
                return reject(EnvelopeError::BadVersion);
            }
            let Some(id) = id.clone() else {
                return reject(EnvelopeError::ResponseWithoutId);
            };
            let outcome = match (member.result, member.error) {
                (Some(result), None) => Ok(result),
                (None, Some(error)) => match serde_json::from_value::<ErrorObject>(error) {
                    Ok(error) => Err(error),
                    Err(_) => return reject(EnvelopeError::BadErrorObject),
                },
                _ => return reject(EnvelopeError::ResultAndError),
            };
            Ok(Message::Response(Response { id, outcome }))
        }
        None => Err(Rejected {
            id,
            error: EnvelopeError::MissingMethod,
            answer: true,
        }),
    }
}

/// The members of a message that [`classify`] reads.
#[derive(Default)]
struct Members {
    jsonrpc: Option<Value>,
    id: Option<Value>,
    method: Option<Value>,
    params: Option<Value>,
    result: Option<Value>,
    error: Option<Value>,
}

fn id_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a fraction or out of the 64-bit integer range",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// How the `id` member of an error response is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum UnreadableId {
    /// `"id": null`, as JSON-RPC 2.0 says.
    Null,
    /// No `id` member, as the 2025-11-25 and later schemas say (they make `id` optional and
    /// do not allow `null`; the TypeScript SDK rejects `null`).
    Omit,
}

/// The `id` of an outgoing response.
#[derive(Debug, Clone, Copy)]
pub(crate) enum ResponseId<'a> {
    /// The request's id, echoed.
    Id(&'a RequestId),
    /// The request's id could not be read.
    Unreadable(UnreadableId),
}

impl<'a> ResponseId<'a> {
    /// The id to use for an error about a message whose id may be unknown.
    pub(crate) fn recovered(id: Option<&'a RequestId>, policy: UnreadableId) -> ResponseId<'a> {
        match id {
            Some(id) => ResponseId::Id(id),
            None => ResponseId::Unreadable(policy),
        }
    }
}

/// An outgoing message, serialized compactly with the members in a fixed order.
pub(crate) enum Outgoing<'a, T: Serialize + ?Sized> {
    /// A successful response.
    Result(ResponseId<'a>, &'a T),
    /// An error response.
    Error(ResponseId<'a>, &'a ErrorObject),
    /// A notification.
    Notification(&'a str, &'a T),
    /// A request from the server.
    Request(&'a RequestId, &'a str, &'a T),
}

impl<T: Serialize + ?Sized> Serialize for Outgoing<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("jsonrpc", "2.0")?;
        let write_id = |map: &mut S::SerializeMap, id: &ResponseId<'_>| match id {
            ResponseId::Id(id) => map.serialize_entry("id", id),
            ResponseId::Unreadable(UnreadableId::Null) => map.serialize_entry("id", &()),
            ResponseId::Unreadable(UnreadableId::Omit) => Ok(()),
        };
        match self {
            Outgoing::Result(id, result) => {
                write_id(&mut map, id)?;
                map.serialize_entry("result", result)?;
            }
            Outgoing::Error(id, error) => {
                write_id(&mut map, id)?;
                map.serialize_entry("error", error)?;
            }
            Outgoing::Notification(method, params) => {
                map.serialize_entry("method", method)?;
                map.serialize_entry("params", params)?;
            }
            Outgoing::Request(id, method, params) => {
                map.serialize_entry("id", id)?;
                map.serialize_entry("method", method)?;
                map.serialize_entry("params", params)?;
            }
        }
        map.end()
    }
}

/// Finds the top-level `"id"` of a JSON object from a prefix of its text.
///
/// Used for lines too long to parse: the id usually comes early (`{"jsonrpc":"2.0","id":7,…`),
/// and echoing it lets the client match the "too large" error to its request instead of
/// waiting for a timeout. Returns `None` unless a complete string or integer id is found.
pub(crate) fn scan_id(prefix: &[u8]) -> Option<RequestId> {
    let mut depth = 0usize;
    let mut i = 0;
    let mut expect_key = false;
    while i < prefix.len() {
        match prefix[i] {
            b'{' => {
                depth += 1;
                expect_key = depth == 1;
            }
            b'[' => depth += 1,
            b'}' | b']' => depth = depth.checked_sub(1)?,
            b',' => expect_key = depth == 1,
            b'"' => {
                let end = string_end(prefix, i)?;
                if depth == 1 && expect_key && &prefix[i..=end] == b"\"id\"" {
                    return parse_id_value(&prefix[end + 1..]);
                }
                expect_key = false;
                i = end;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Index of the closing quote of the string starting at `start`.
fn string_end(text: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    while i < text.len() {
        match text[i] {
            b'\\' => i += 2,
            b'"' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// Parses `: <string or integer>` followed by a delimiter.
fn parse_id_value(rest: &[u8]) -> Option<RequestId> {
    let text = std::str::from_utf8(&rest[..rest.len().min(1024)]).ok()?;
    let text = text.trim_start().strip_prefix(':')?.trim_start();
    let end = if text.starts_with('"') {
        string_end(text.as_bytes(), 0)? + 1
    } else {
        text.find([',', '}', ' ', '\t', '\r', '\n'])?
    };
    let value: Value = serde_json::from_str(&text[..end]).ok()?;
    RequestId::from_value(&value)
}

/// Why one line is not a valid JSON-RPC message.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub(crate) enum EnvelopeError {
    /// The line is not UTF-8.
    #[error("parse error: message is not valid UTF-8 (invalid byte at offset {0})")]
    InvalidUtf8(usize),
    /// The line is not JSON (or nests deeper than serde_json's limit of 128).
    #[error("parse error: {0}")]
    Syntax(String),
    /// The line is longer than the configured limit; it was skipped unread.
    #[error("message of {size} bytes exceeds the {limit}-byte limit (--max-message-bytes); it was skipped")]
    TooLarge {
        /// Bytes in the line.
        size: u64,
        /// The limit.
        limit: usize,
    },
    /// The JSON value is not an object.
    #[error("invalid request: a message must be a JSON object")]
    NotAnObject,
    /// `jsonrpc` is missing or not exactly `"2.0"`.
    #[error("invalid request: \"jsonrpc\" must be exactly \"2.0\"")]
    BadVersion,
    /// `id` is not a string or a 64-bit integer.
    #[error("invalid request: \"id\" must be a string or an integer, not {0}")]
    BadId(&'static str),
    /// `method` is not a string.
    #[error("invalid request: \"method\" must be a string")]
    BadMethod,
    /// Neither `method` nor `result`/`error`.
    #[error("invalid request: missing \"method\"")]
    MissingMethod,
    /// `params` is neither an object nor an array.
    #[error("invalid request: \"params\" must be an object when present")]
    BadParams,
    /// `params` is an array; MCP uses named parameters only.
    #[error("invalid params: \"params\" must be an object (MCP uses named parameters)")]
    PositionalParams,
    /// A response whose `id` cannot be read.
    #[error("invalid response: \"id\" must be a string or an integer")]
    ResponseWithoutId,
    /// A response with both or neither of `result` and `error`.
    #[error("invalid response: exactly one of \"result\" and \"error\" must be present")]
    ResultAndError,
    /// A response whose `error` lacks an integer `code` or a string `message`.
    #[error("invalid response: \"error\" must have an integer \"code\" and a string \"message\"")]
    BadErrorObject,
    /// An empty JSON array.
    #[error("invalid request: empty batch")]
    EmptyBatch,
    /// A JSON array outside a 2025-03-26 session.
    #[error("invalid request: JSON-RPC batches are only supported when protocol version 2025-03-26 is negotiated{0}")]
    BatchNotSupported(&'static str),
    /// `initialize` inside a batch (2025-03-26 forbids it).
    #[error("invalid request: \"initialize\" must not be part of a batch")]
    InitializeInBatch,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Classifies `input` and renders the outcome as one comparable line.
    fn check(input: &str, expected: &str) {
        let value: Value = serde_json::from_str(input).expect("test input is JSON");
        let actual = match classify(value) {
            Ok(Message::Request(r)) => format!(
                "request id={:?} method={} params={}",
                r.id,
                r.method,
                r.params
                    .map_or("-".into(), |p| Value::Object(p).to_string())
            ),
            Ok(Message::Notification(n)) => format!("notification method={}", n.method),
            Ok(Message::Response(r)) => match r.outcome {
                Ok(v) => format!("response id={:?} result={v}", r.id),
                Err(e) => format!("response id={:?} error={}", r.id, e.code),
            },
            Err(r) => format!(
                "reject id={:?} answer={} code={}",
                r.id,
                r.answer,
                r.error.code()
            ),
        };
        assert_eq!(actual, expected, "input: {input}");
    }

    #[test]
    fn requests_keep_their_id_exactly() {
        check(
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            "request id=1 method=ping params=-",
        );
        check(
            r#"{"jsonrpc":"2.0","id":"1","method":"ping"}"#,
            r#"request id="1" method=ping params=-"#,
        );
        check(
            r#"{"jsonrpc":"2.0","id":-5,"method":"ping"}"#,
            "request id=-5 method=ping params=-",
        );
        check(
            r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"}"#,
            "request id=18446744073709551615 method=ping params=-",
        );
        check(
            r#"{"jsonrpc":"2.0","id":-9223372036854775808,"method":"ping"}"#,
            "request id=-9223372036854775808 method=ping params=-",
        );
        check(
            r#"{"jsonrpc":"2.0","id":0,"method":"x","params":{"a":1}}"#,
            r#"request id=0 method=x params={"a":1}"#,
        );
        check(
            r#"{"jsonrpc":"2.0","id":"","method":"x","params":{}}"#,
            r#"request id="" method=x params={}"#,
        );
    }

    #[test]
    fn bad_ids_are_rejected_and_answered() {
        check(
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            "reject id=None answer=true code=-32600",
        );
        check(
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
            "reject id=None answer=true code=-32600",
        );
        check(
            r#"{"jsonrpc":"2.0","id":1.0,"method":"ping"}"#,
            "reject id=None answer=true code=-32600",
        );
        check(
            r#"{"jsonrpc":"2.0","id":18446744073709551616,"method":"ping"}"#,
            "reject id=None answer=true code=-32600",
        );
        check(
            r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#,
            "reject id=None answer=true code=-32600",
        );
        check(
            r#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#,
            "reject id=None answer=true code=-32600",
        );
        check(
            r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#,
            "reject id=None answer=true code=-32600",
        );
    }

    #[test]
    fn invalid_envelopes_echo_the_recovered_id() {
        check(
            r#"{"id":3,"method":"ping"}"#,
            "reject id=Some(3) answer=true code=-32600",
        );
        check(
            r#"{"jsonrpc":"1.0","id":3,"method":"ping"}"#,
            "reject id=Some(3) answer=true code=-32600",
        );
        check(
            r#"{"jsonrpc":2.0,"id":3,"method":"ping"}"#,
            "reject id=Some(3) answer=true code=-32600",
        );
        check(
            r#"{"jsonrpc":"2.0","id":3,"method":1}"#,
            "reject id=Some(3) answer=true code=-32600",
        );
        check(
            r#"{"jsonrpc":"2.0","id":3}"#,
            "reject id=Some(3) answer=true code=-32600",
        );
        check(
            r#"{"jsonrpc":"2.0","id":3,"method":"x","params":"bar"}"#,
            "reject id=Some(3) answer=true code=-32600",
        );
        check(
            r#"{"jsonrpc":"2.0","id":3,"method":"x","params":null}"#,
            "reject id=Some(3) answer=true code=-32600",
        );
        check(
            r#"{"jsonrpc":"2.0","id":3,"method":"x","params":[1,2]}"#,
            "reject id=Some(3) answer=true code=-32602",
        );
    }

    #[test]
    fn json_rpc_spec_examples() {
        // From the JSON-RPC 2.0 specification, section 7.
        check(
            r#"{"jsonrpc": "2.0", "method": 1, "params": "bar"}"#,
            "reject id=None answer=true code=-32600",
        );
        check(r#"1"#, "reject id=None answer=true code=-32600");
        check(r#""x""#, "reject id=None answer=true code=-32600");
        check(
            r#"{"foo": "boo"}"#,
            "reject id=None answer=true code=-32600",
        );
        check(
            r#"{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}"#,
            "reject id=None answer=false code=-32602",
        );
        check(
            r#"{"jsonrpc": "2.0", "method": "foobar"}"#,
            "notification method=foobar",
        );
    }

    #[test]
    fn notifications_are_never_answered_even_when_invalid() {
        check(
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            "notification method=notifications/initialized",
        );
        check(
            r#"{"method":"notifications/initialized"}"#,
            "reject id=None answer=false code=-32600",
        );
        check(
            r#"{"jsonrpc":"2.0","method":"x","params":7}"#,
            "reject id=None answer=false code=-32600",
        );
    }

    #[test]
    fn responses_are_classified_and_never_answered() {
        check(
            r#"{"jsonrpc":"2.0","id":9,"result":{}}"#,
            "response id=9 result={}",
        );
        check(
            r#"{"jsonrpc":"2.0","id":"s1","error":{"code":-1,"message":"no"}}"#,
            r#"response id="s1" error=-1"#,
        );
        check(
            r#"{"jsonrpc":"2.0","id":9,"result":{},"error":{"code":1,"message":"x"}}"#,
            "reject id=Some(9) answer=false code=-32600",
        );
        check(
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#,
            "reject id=None answer=false code=-32600",
        );
        check(
            r#"{"jsonrpc":"2.0","id":9,"error":{"message":"no code"}}"#,
            "reject id=Some(9) answer=false code=-32600",
        );
    }

    #[test]
    fn outgoing_messages_are_compact_with_a_fixed_member_order() {
        let id = RequestId(IdRepr::Str("a".into()));
        let render = |m: &Outgoing<'_, Value>| serde_json::to_string(m).expect("serializes");
        assert_eq!(
            render(&Outgoing::Result(ResponseId::Id(&id), &json!({}))),
            r#"{"jsonrpc":"2.0","id":"a","result":{}}"#
        );
        let error = ErrorObject {
            code: -32600,
            message: "bad".into(),
            data: None,
        };
        assert_eq!(
            serde_json::to_string(&Outgoing::<Value>::Error(
                ResponseId::Unreadable(UnreadableId::Null),
                &error
            ))
            .expect("serializes"),
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"bad"}}"#
        );
        assert_eq!(
            serde_json::to_string(&Outgoing::<Value>::Error(
                ResponseId::Unreadable(UnreadableId::Omit),
                &error
            ))
            .expect("serializes"),
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"bad"}}"#
        );
        assert_eq!(
            render(&Outgoing::Request(
                &RequestId::number(1),
                "roots/list",
                &json!({})
            )),
            r#"{"jsonrpc":"2.0","id":1,"method":"roots/list","params":{}}"#
        );
    }

    #[test]
    fn scan_id_finds_the_top_level_id_in_a_prefix() {
        let cases: &[(&str, Option<Value>)] = &[
            (
                r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"x":"aaaa"#,
                Some(json!(7)),
            ),
            (r#"{"id":"abc","jsonrpc":"2.0""#, Some(json!("abc"))),
            (r#"{ "id" : -3 , "method""#, Some(json!(-3))),
            (r#"{"params":{"id":5},"id":6,"#, Some(json!(6))),
            (r#"{"method":"x","params":{"text":"\"id\":9"#, None),
            (r#"{"params":{"id":5,"more":"aaaa"#, None),
            (r#"{"id":1.5,"#, None),
            (r#"{"id":12"#, None),
            (r#"{"id":null,"#, None),
            (r#"[{"id":1}"#, None),
        ];
        for (prefix, expected) in cases {
            let found = scan_id(prefix.as_bytes()).map(|id| id.to_value());
            assert_eq!(&found, expected, "prefix: {prefix}");
        }
    }
}
