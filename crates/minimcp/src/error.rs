//! Every error the server can report, per layer, and the one place that maps them to
//! JSON-RPC error objects.
//!
//! - [`enum@Error`] is fatal: the byte stream itself failed. It ends [`crate::serve`].
//! - [`EnvelopeError`] is about one line that is not a valid JSON-RPC message (defined in
//!   `jsonrpc`, beside the envelope it describes, so that layer imports nothing above it).
//! - [`McpError`] is about one valid request the server cannot serve.
//!
//! The last two never end the session; [`EnvelopeError::to_object`] and [`McpError::to_object`]
//! turn them into the `error` member of a response. Codes of our own are listed in
//! [`code`] and stay inside the implementation-defined range −32000…−32019 (2026-07-28
//! reserves −32020…−32099 for the spec).

use std::io;

use serde_json::{json, Value};
use thiserror::Error;

pub(crate) use crate::jsonrpc::EnvelopeError;
use crate::jsonrpc::{code as rpc, ErrorObject};

/// Every error code: JSON-RPC's, MCP's and minimcp's own.
pub mod code {
    pub use crate::jsonrpc::code::*;

    /// MCP (2024-11-05 … 2025-11-25): the resource does not exist.
    pub const RESOURCE_NOT_FOUND: i64 = -32002;
    /// MCP 2026-07-28 over HTTP: a routing header (`MCP-Protocol-Version`, `Mcp-Method`,
    /// `Mcp-Name`, `Mcp-Param-*`) disagrees with the body.
    pub const HEADER_MISMATCH: i64 = -32020;
    /// MCP 2026-07-28: the request needs a client capability it did not declare.
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
    /// MCP 2026-07-28: the request's protocol version is not supported.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
    /// minimcp: the `--rate-limit` token bucket is empty; `data.retryAfterMs` says when to retry.
    pub const RATE_LIMITED: i64 = -32000;
    /// minimcp: the response would exceed `--max-response-bytes`.
    pub const RESPONSE_TOO_LARGE: i64 = -32001;
    /// minimcp: too many requests wait behind one parked for its client's answer.
    pub const OVERLOADED: i64 = -32003;
}

/// A failure of the transport itself: the session cannot go on.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum Error {
    /// Reading the input failed (not EOF: EOF is a clean end).
    #[error("reading input failed")]
    Read(#[source] io::Error),
    /// Writing the output failed for a reason other than the client closing it.
    #[error("writing output failed")]
    Write(#[source] io::Error),
}

impl EnvelopeError {
    /// The error object sent to the client.
    pub(crate) fn to_object(&self) -> ErrorObject {
        let code = match self {
            EnvelopeError::InvalidUtf8(_) | EnvelopeError::Syntax(_) => rpc::PARSE_ERROR,
            EnvelopeError::PositionalParams => rpc::INVALID_PARAMS,
            _ => rpc::INVALID_REQUEST,
        };
        ErrorObject::new(code, self, None)
    }
}

/// Why a valid request cannot be served; a variant's documentation only adds to what its
/// message says.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub(crate) enum McpError {
    /// No such method (or not in this protocol version).
    #[error("{0}")]
    MethodNotFound(String),
    /// The parameters do not have the expected shape; the message says what to change.
    #[error("{0}")]
    InvalidParams(String),
    /// A request other than `ping` or `initialize` before `initialize`.
    #[error("the session is not initialized; send \"initialize\" first (or, for protocol 2026-07-28, put \"io.modelcontextprotocol/protocolVersion\" and \"io.modelcontextprotocol/clientCapabilities\" in params._meta)")]
    NotInitialized,
    #[error("the session is already initialized")]
    AlreadyInitialized,
    /// `tools/call` for a tool that does not exist, and the name it was perhaps meant to be.
    #[error("unknown tool {0:?}; {hint}call tools/list to see the available tools", hint = .1.as_ref().map_or(String::new(), |near| format!("did you mean {near:?}? ")))]
    UnknownTool(String, Option<String>),
    /// `prompts/get` or a completion for a prompt that does not exist.
    #[error("unknown prompt {0:?}; call prompts/list to see the available prompts")]
    UnknownPrompt(String),
    /// `resources/read` (or a completion) for a resource that does not exist.
    #[error("resource not found: {0}")]
    ResourceNotFound(String),
    #[error("unsupported protocol version {requested:?}; supported: {}", supported.join(", "))]
    UnsupportedProtocolVersion {
        requested: String,
        supported: Vec<&'static str>,
    },
    #[error("the request needs the client capability {0}, which it did not declare in io.modelcontextprotocol/clientCapabilities")]
    MissingClientCapability(Value),
    #[error("rate limit exceeded; retry after {retry_after_ms} ms")]
    RateLimited { retry_after_ms: u64 },
    #[error("the response of {size} bytes exceeds the {limit}-byte limit (--max-response-bytes); ask for less")]
    ResponseTooLarge { size: usize, limit: usize },
    #[error("server busy: {0} requests are already queued; retry later")]
    Overloaded(usize),
    #[error("id {0} is already in use by a request in flight")]
    DuplicateId(String),
    /// Something failed inside the server; details go to stderr, never to the client.
    #[error("")]
    Internal,
}

impl McpError {
    /// The error object sent to the client. `modern` selects the 2026-07-28 code for a
    /// missing resource (−32602 there, −32002 before: conformance/REQUIREMENTS.md ).
    pub(crate) fn to_object(&self, modern: bool) -> ErrorObject {
        use McpError::*;
        let (code, data) = match self {
            MethodNotFound(_) => (rpc::METHOD_NOT_FOUND, None),
            InvalidParams(_) | UnknownTool(..) | UnknownPrompt(_) => (rpc::INVALID_PARAMS, None),
            NotInitialized | AlreadyInitialized | DuplicateId(_) => (rpc::INVALID_REQUEST, None),
            ResourceNotFound(uri) if modern => (rpc::INVALID_PARAMS, Some(json!({ "uri": uri }))),
            ResourceNotFound(uri) => (code::RESOURCE_NOT_FOUND, Some(json!({ "uri": uri }))),
            UnsupportedProtocolVersion {
                requested,
                supported,
            } => {
                let data = json!({ "supported": supported, "requested": requested });
                (code::UNSUPPORTED_PROTOCOL_VERSION, Some(data))
            }
            MissingClientCapability(needed) => {
                let data = json!({ "requiredCapabilities": needed });
                (code::MISSING_REQUIRED_CLIENT_CAPABILITY, Some(data))
            }
            RateLimited { retry_after_ms: ms } => {
                (code::RATE_LIMITED, Some(json!({ "retryAfterMs": ms })))
            }
            ResponseTooLarge { size, limit } => {
                let data = json!({ "size": size, "limit": limit });
                (code::RESPONSE_TOO_LARGE, Some(data))
            }
            Overloaded(_) => (code::OVERLOADED, None),
            Internal => (rpc::INTERNAL_ERROR, None),
        };
        ErrorObject::new(code, self, data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_error_maps_to_its_documented_code() {
        let cases: Vec<(McpError, bool, i64)> = vec![
            (McpError::MethodNotFound("x".into()), false, -32601),
            (McpError::InvalidParams("x".into()), false, -32602),
            (McpError::NotInitialized, false, -32600),
            (McpError::AlreadyInitialized, false, -32600),
            (McpError::UnknownTool("t".into(), None), false, -32602),
            (McpError::UnknownPrompt("p".into()), false, -32602),
            (McpError::ResourceNotFound("u".into()), false, -32002),
            (McpError::ResourceNotFound("u".into()), true, -32602),
            (
                McpError::UnsupportedProtocolVersion {
                    requested: "1".into(),
                    supported: vec![],
                },
                true,
                -32022,
            ),
            (
                McpError::MissingClientCapability(json!({"sampling":{}})),
                true,
                -32021,
            ),
            (McpError::RateLimited { retry_after_ms: 5 }, false, -32000),
            (
                McpError::ResponseTooLarge { size: 2, limit: 1 },
                false,
                -32001,
            ),
            (McpError::Overloaded(3), false, -32003),
            (McpError::DuplicateId("1".into()), false, -32600),
            (McpError::Internal, false, -32603),
        ];
        for (error, modern, code) in cases {
            assert_eq!(error.to_object(modern).code, code, "{error:?}");
        }
    }

    #[test]
    fn a_message_starts_with_the_name_of_its_code_and_only_there() {
        let message = |e: McpError, stateless| e.to_object(stateless).message;
        assert_eq!(
            message(McpError::InvalidParams("x".into()), false),
            "invalid params: x"
        );
        assert_eq!(
            message(McpError::MethodNotFound("m".into()), true),
            "method not found: m"
        );
        let missing = || McpError::ResourceNotFound("u".into());
        assert_eq!(message(missing(), false), "resource not found: u");
        assert_eq!(
            message(missing(), true),
            "invalid params: resource not found: u"
        );
        assert_eq!(
            message(McpError::Overloaded(3), false),
            McpError::Overloaded(3).to_string()
        );
        let syntax = EnvelopeError::Syntax("eof".into()).to_object().message;
        assert_eq!(syntax, "parse error: eof");
    }

    #[test]
    fn internal_errors_leak_nothing() {
        assert_eq!(
            McpError::Internal.to_object(false).message,
            "internal error"
        );
    }

    #[test]
    fn envelope_codes() {
        assert_eq!(EnvelopeError::Syntax("x".into()).to_object().code, -32700);
        assert_eq!(EnvelopeError::InvalidUtf8(3).to_object().code, -32700);
        assert_eq!(EnvelopeError::PositionalParams.to_object().code, -32602);
        assert_eq!(EnvelopeError::EmptyBatch.to_object().code, -32600);
        assert_eq!(
            EnvelopeError::TooLarge { size: 9, limit: 1 }
                .to_object()
                .code,
            -32600
        );
    }
}
