//! JSON-RPC 2.0 envelopes on top of `serde_json::Value`; nothing here knows MCP.
//!
//! [`classify`] makes one parsed value a request, a notification or a response (to a request
//! *we* sent), or rejects it with the reason and, whenever it can be read, the id, so the error
//! can still be correlated (conformance/REQUIREMENTS.md A-3). The rules, in order:
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

use serde::de::{Deserializer as _, IgnoredAny, MapAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};

use thiserror::Error;

/// The error codes JSON-RPC 2.0 defines (its section 5.1) that MCP uses.
pub(crate) mod code {
    /// JSON-RPC: the input is not JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// JSON-RPC: the JSON is not a valid request.
    pub const INVALID_REQUEST: i64 = -32600;
    /// JSON-RPC: the method does not exist or is not offered.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// JSON-RPC: the parameters are invalid.
    pub const INVALID_PARAMS: i64 = -32602;
    /// JSON-RPC: an error inside the server.
    pub const INTERNAL_ERROR: i64 = -32603;

    /// What JSON-RPC 2.0 calls the error of `code`: the words an error message of that code
    /// starts with. Codes of MCP and of this server have none.
    pub fn name(code: i64) -> Option<&'static str> {
        match code {
            PARSE_ERROR => Some("parse error"),
            INVALID_REQUEST => Some("invalid request"),
            METHOD_NOT_FOUND => Some("method not found"),
            INVALID_PARAMS => Some("invalid params"),
            INTERNAL_ERROR => Some("internal error"),
            _ => None,
        }
    }
}

/// A request id exactly as the peer sent it: `"7"` and `7` differ, and integers keep their
/// full 64-bit range, so it is echoed back unchanged (REQUIREMENTS.md B-5; python-sdk#961 is
/// what goes wrong otherwise).
#[derive(Clone, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(untagged)]
pub(crate) enum RequestId {
    Unsigned(u64),
    Negative(i64),
    Str(String),
}

impl RequestId {
    /// Reads an id from its JSON value; `None` for `null`, fractions, out-of-range numbers,
    /// booleans, arrays and objects.
    pub(crate) fn from_value(value: &Value) -> Option<RequestId> {
        match value {
            Value::String(s) => Some(RequestId::Str(s.clone())),
            Value::Number(n) => (n.as_u64().map(RequestId::Unsigned))
                .or_else(|| n.as_i64().map(RequestId::Negative)),
            _ => None,
        }
    }
}

/// Strings print quoted, so `7` and `"7"` look different in logs (lsp-server does the same).
impl fmt::Debug for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Unsigned(u) => write!(f, "{u}"),
            RequestId::Negative(i) => write!(f, "{i}"),
            RequestId::Str(s) => write!(f, "{s:?}"),
        }
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

impl ErrorObject {
    /// An error of `code` whose message is the code's name ([`code::name`]) followed by
    /// `detail`: the category is written once, as the code.
    pub fn new(code: i64, detail: impl fmt::Display, data: Option<Value>) -> ErrorObject {
        let detail = detail.to_string();
        let message = match code::name(code) {
            Some(name) if detail.is_empty() => name.to_string(),
            Some(name) => format!("{name}: {detail}"),
            None => detail,
        };
        ErrorObject {
            code,
            message,
            data,
        }
    }
}

/// A request from the peer; `params` is `None` when the member was absent.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Request {
    pub id: RequestId,
    pub method: String,
    pub params: Option<Map<String, Value>>,
}

/// A notification from the peer: never answered.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Notification {
    pub method: String,
    pub params: Option<Map<String, Value>>,
}

/// A response from the peer to a request the server sent: its `result` or its `error`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Response {
    pub id: RequestId,
    pub outcome: Result<Value, ErrorObject>,
}

/// One classified message; only a request is answered (exactly once).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Message {
    Request(Request),
    Notification(Notification),
    Response(Response),
}

/// A value that is not a valid message, and the id to echo when one could be read.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Rejected {
    pub id: Option<RequestId>,
    pub error: EnvelopeError,
    /// False for notification-shaped values and responses, which are never answered.
    pub answer: bool,
}

/// One unit of input: parsed JSON, or why it could not be parsed (with the request id
/// recovered from its first bytes, when there was one). A transport gets one from
/// [`parse`] and hands it to the session as it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Unit(pub(crate) Result<Value, (EnvelopeError, Option<RequestId>)>);

impl Unit {
    /// The parsed JSON, if the input was JSON.
    pub fn value(&self) -> Option<&Value> {
        self.0.as_ref().ok()
    }

    /// Why the input is no JSON, as the error's message says it; `None` for JSON.
    pub fn error_message(&self) -> Option<String> {
        self.0
            .as_ref()
            .err()
            .map(|(error, _)| error.to_object().message)
    }
}

/// Parses one line or body into JSON; on failure, the error (and never an id: the bytes are
/// not JSON, so nothing in them can be trusted to be one).
pub fn parse(bytes: &[u8]) -> Unit {
    let parsed = match std::str::from_utf8(bytes) {
        Ok(text) => {
            serde_json::from_str(text).map_err(|e| (EnvelopeError::Syntax(e.to_string()), None))
        }
        Err(e) => Err((EnvelopeError::InvalidUtf8(e.valid_up_to()), None)),
    };
    Unit(parsed)
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
    let id = member.id.as_ref().and_then(RequestId::from_value);
    let is_call = matches!(member.method, Some(Value::String(_)));
    let is_response =
        member.method.is_none() && (member.result.is_some() || member.error.is_some());
    // Notification-shaped values and responses are never answered, even when invalid.
    let answer = !(is_response || is_call && member.id.is_none());
    let reject = |error| {
        Err(Rejected {
            id: id.clone(),
            error,
            answer,
        })
    };
    let version_ok = matches!(&member.jsonrpc, Some(Value::String(v)) if v == "2.0");
    if (is_call || is_response) && !version_ok {
        return reject(EnvelopeError::Invalid(
            "\"jsonrpc\" must be exactly \"2.0\"",
        ));
    }
    match member.method {
        Some(Value::String(method)) => {
            let params = match member.params {
                None => None,
                Some(Value::Object(map)) => Some(map),
                Some(Value::Array(_)) => return reject(EnvelopeError::PositionalParams),
                Some(_) => {
                    let error = "\"params\" must be an object when present";
                    return reject(EnvelopeError::Invalid(error));
                }
            };
            match (member.id, id.clone()) {
                (None, _) => Ok(Message::Notification(Notification { method, params })),
                (Some(_), Some(id)) => Ok(Message::Request(Request { id, method, params })),
                (Some(raw), None) => reject(EnvelopeError::BadId(id_kind(&raw))),
            }
        }
        Some(_) => reject(EnvelopeError::Invalid("\"method\" must be a string")),
        None if !is_response => reject(EnvelopeError::Invalid("missing \"method\"")),
        None => {
            let response = match (id.clone(), member.result, member.error) {
                (None, ..) => Err("\"id\" must be a string or an integer"),
                (Some(id), Some(result), None) => Ok(Response {
                    id,
                    outcome: Ok(result),
                }),
                (Some(id), None, Some(error)) => serde_json::from_value(error)
                    .map(|error| Response {
                        id,
                        outcome: Err(error),
                    })
                    .map_err(|_| {
                        "\"error\" must have an integer \"code\" and a string \"message\""
                    }),
                _ => Err("exactly one of \"result\" and \"error\" must be present"),
            };
            response
                .map(Message::Response)
                .or_else(|why| reject(EnvelopeError::BadResponse(why)))
        }
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

/// The `id` of an outgoing response: the request's or, when it could not be read, `null` as
/// JSON-RPC 2.0 says, or no `id` member as the 2025-11-25 and later schemas say (they make
/// `id` optional and do not allow `null`; the TypeScript SDK rejects `null`).
#[derive(Debug, Clone, Copy)]
pub(crate) enum ResponseId<'a> {
    Id(&'a RequestId),
    Null,
    Omit,
}

/// An outgoing message (a request is the server's), serialized compactly with the members
/// in a fixed order.
pub(crate) enum Outgoing<'a, T: Serialize + ?Sized> {
    Result(ResponseId<'a>, &'a T),
    Error(ResponseId<'a>, &'a ErrorObject),
    Notification(&'a str, &'a T),
    Request(&'a RequestId, &'a str, &'a T),
}

impl<T: Serialize + ?Sized> Serialize for Outgoing<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("jsonrpc", "2.0")?;
        match self {
            Outgoing::Result(ResponseId::Id(id), _) | Outgoing::Error(ResponseId::Id(id), _) => {
                map.serialize_entry("id", id)?
            }
            Outgoing::Result(ResponseId::Null, _) | Outgoing::Error(ResponseId::Null, _) => {
                map.serialize_entry("id", &())?
            }
            Outgoing::Request(id, ..) => map.serialize_entry("id", id)?,
            // A notification, or an unreadable id that the version leaves out.
            _ => {}
        }
        match self {
            Outgoing::Result(_, result) => map.serialize_entry("result", result)?,
            Outgoing::Error(_, error) => map.serialize_entry("error", error)?,
            Outgoing::Notification(method, params) | Outgoing::Request(_, method, params) => {
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
    // Digits at the very end may be a number cut short: `"id":12` can be `"id":123`.
    let end = prefix.iter().rposition(|b| !b.is_ascii_digit());
    let mut found = None;
    // Parsing fails where the prefix ends; by then the id has been kept if it came first.
    let mut parser = serde_json::Deserializer::from_slice(&prefix[..end.map_or(0, |i| i + 1)]);
    let _ = parser.deserialize_map(IdScan(&mut found));
    found
}

/// Walks an object's members up to `id`, skipping the others' values unkept.
struct IdScan<'a>(&'a mut Option<RequestId>);

impl<'de> Visitor<'de> for IdScan<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            if key == "id" {
                *self.0 = RequestId::from_value(&map.next_value()?);
                return Ok(());
            }
            map.next_value::<IgnoredAny>()?;
        }
        Ok(())
    }
}

/// Why one line is not a valid JSON-RPC message; a variant's documentation only adds to
/// what its message says.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub(crate) enum EnvelopeError {
    #[error("message is not valid UTF-8 (invalid byte at offset {0})")]
    InvalidUtf8(usize),
    /// The line is not JSON (or nests deeper than serde_json's limit of 128).
    #[error("{0}")]
    Syntax(String),
    /// The line is longer than the configured limit; it was skipped unread.
    #[error("message of {size} bytes exceeds the {limit}-byte limit (--max-message-bytes); it was skipped")]
    TooLarge { size: u64, limit: usize },
    /// A member of a request is missing or malformed.
    #[error("{0}")]
    Invalid(&'static str),
    /// A response is malformed (logged only: responses are never answered).
    #[error("invalid response: {0}")]
    BadResponse(&'static str),
    #[error("a message must be a JSON object")]
    NotAnObject,
    #[error("\"id\" must be a string or an integer, not {0}")]
    BadId(&'static str),
    #[error("\"params\" must be an object (MCP uses named parameters)")]
    PositionalParams,
    #[error("empty batch")]
    EmptyBatch,
    /// A JSON array outside a 2025-03-26 session.
    #[error(
        "JSON-RPC batches are only supported when protocol version 2025-03-26 is negotiated{0}"
    )]
    BatchNotSupported(&'static str),
    /// `initialize` inside a batch (2025-03-26 forbids it).
    #[error("\"initialize\" must not be part of a batch")]
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
                r.error.to_object().code
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
        let id = RequestId::Str("a".into());
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
            serde_json::to_string(&Outgoing::<Value>::Error(ResponseId::Null, &error))
                .expect("serializes"),
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"bad"}}"#
        );
        assert_eq!(
            serde_json::to_string(&Outgoing::<Value>::Error(ResponseId::Omit, &error))
                .expect("serializes"),
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"bad"}}"#
        );
        assert_eq!(
            render(&Outgoing::Request(
                &RequestId::Unsigned(1),
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
            let found = scan_id(prefix.as_bytes()).map(|id| json!(id));
            assert_eq!(&found, expected, "prefix: {prefix}");
        }
    }

    /// Every prefix of generated lines: an id is found only when it is the line's own
    /// top-level id, complete in the prefix (a number followed by the character after it),
    /// and then always. The oracle is where the generator wrote the id, not a parser.
    #[test]
    fn scan_id_on_every_prefix_of_generated_lines() {
        let mut state = 0x05EE_D1D5_u64;
        let mut next = move |n: u64| {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            (z ^ (z >> 31)) % n
        };
        let ids = [
            json!(0),
            json!(7),
            json!(-42),
            json!(9_007_199_254_740_993_u64),
            json!(i64::MIN),
            json!(""),
            json!("a\"b\\c"),
            json!("ünï 👩"),
            json!("id"),
        ];
        let decoys = [
            "\"jsonrpc\":\"2.0\"",
            "\"method\":\"tools/call\"",
            "\"params\":{\"id\":99,\"s\":\"\\\"id\\\":5\"}",
            "\"idx\":3",
            "\"i d\":4",
            "\"list\":[{\"id\":1},\"id\",2]",
        ];
        for _ in 0..300 {
            let id = &ids[next(ids.len() as u64) as usize];
            let mut members: Vec<String> = (0..next(4))
                .map(|_| decoys[next(decoys.len() as u64) as usize].to_string())
                .collect();
            let at = next(members.len() as u64 + 1) as usize;
            let spaced = next(2) == 0;
            let (colon, after) = if spaced { (" : ", " ") } else { (":", "") };
            members.insert(at, format!("\"id\"{colon}{id}{after}"));
            let before: usize = members[..at].iter().map(|m| m.len() + 1).sum();
            let line = format!("{{{}}}", members.join(","));
            // Where the value ends, plus the character a number needs after it.
            let value_end = 1 + before + "\"id\"".len() + colon.len() + id.to_string().len();
            let needed = value_end + usize::from(id.is_number());
            for end in 0..=line.len() {
                let found = scan_id(&line.as_bytes()[..end]).map(|found| json!(found));
                if end >= needed {
                    assert_eq!(found.as_ref(), Some(id), "{:?}", &line[..end]);
                } else {
                    assert!(
                        found.is_none() || found.as_ref() == Some(id),
                        "{:?}",
                        &line[..end]
                    );
                }
            }
        }
    }
}
