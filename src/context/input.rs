//! What asking the client for input can end in, and the answers a 2026-07-28 request carries
//! between its rounds.

use std::collections::BTreeSet;

use serde_json::{Map, Value};
use thiserror::Error;

use crate::jsonrpc::ErrorObject;

/// Why asking the client for input did not produce an answer.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum InputError {
    /// The client did not declare the capability this needs (the value names it, e.g.
    /// `{"elicitation":{"form":{}}}`). On 2026-07-28 this becomes error −32021.
    #[error("the client does not support this: it did not declare the capability {0}")]
    Unsupported(Value),
    /// The negotiated protocol version has no such request at all (elicitation arrived in
    /// 2025-06-18), whatever the client declared.
    #[error(
        "the negotiated protocol version {version} has no {feature}; it exists from {since} on"
    )]
    NotInVersion {
        /// What was asked for, e.g. "elicitation".
        feature: &'static str,
        /// The session's protocol version.
        version: &'static str,
        /// The first version that has it.
        since: &'static str,
    },
    /// The answer is not here yet. Return this error (with `?`): in 2026-07-28 the server
    /// answers `input_required` and the client retries the request with the answer; in an
    /// earlier version over HTTP the server runs the handler again when the client's answer
    /// arrives. Either way the handler runs again from the start.
    #[error("waiting for the client's input")]
    Pending,
    /// The client did not answer in time (the request was cancelled on our side).
    #[error("the client did not answer within {0} ms")]
    TimedOut(u64),
    /// The client answered with an error (for sampling, −1 means the user refused).
    #[error("the client refused: {} ({})", .0.message, .0.code)]
    Refused(ErrorObject),
    /// The client's answer does not have the expected shape.
    #[error("the client's answer is malformed: {0}")]
    Malformed(String),
    /// The request being handled was cancelled, or the input closed, while waiting.
    #[error("the request was cancelled")]
    Cancelled,
    /// Asked before the client sent `notifications/initialized` (conformance/REQUIREMENTS.md L-5).
    #[error("the client has not finished initializing")]
    NotReady,
    /// Too many server-to-client requests are already waiting for an answer.
    #[error("too many requests to the client are outstanding")]
    TooMany,
    /// The handler's request breaks a rule of the protocol (such as a nested elicitation
    /// form); it was not sent.
    #[error("the request to the client is invalid: {0}")]
    Invalid(String),
}

/// The answer to an elicitation.
#[derive(Debug, Clone, PartialEq)]
pub enum Elicited {
    /// The user submitted the form; the values by field name.
    Accept(Map<String, Value>),
    /// The user explicitly declined.
    Decline,
    /// The user dismissed the request without choosing.
    Cancel,
}

/// 2026-07-28 multi round-trip state: answers so far, and what is still to ask.
#[derive(Default)]
pub(crate) struct Inputs {
    pub(crate) answers: Map<String, Value>,
    pub(crate) asked: usize,
    pub(crate) pending: Map<String, Value>,
    /// The keys of `answers` the handler asked for in this run: only those are sealed into
    /// the next `requestState` (answers to questions never asked are ignored, not carried).
    pub(crate) used: BTreeSet<String>,
    /// The key the handler chose for its next question ([`Context::input_key`](crate::Context::input_key)).
    pub(crate) next_key: Option<String>,
}

impl Inputs {
    /// The answers to questions this run asked: what the next `requestState` carries.
    pub(crate) fn answered(&self) -> Map<String, Value> {
        self.answers
            .iter()
            .filter(|(key, _)| self.used.contains(*key))
            .map(|(key, answer)| (key.clone(), answer.clone()))
            .collect()
    }
}
