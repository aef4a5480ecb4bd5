//! What asking the client for input can end in, and what a request carries between its
//! rounds: the client's answers so far, and the questions still to ask.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

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
    /// The answer is not here yet. Return this error (with `?`): the question goes to the
    /// client (in 2026-07-28 as an `input_required` result, which the client answers by
    /// retrying the request; before, as a request of the server's), and the handler runs
    /// again from the start once the answer is there.
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

/// The client's answer to one question: what it returned, or why there is none.
pub(crate) type Answer = Result<Value, InputError>;

/// The client's answers to a request's questions so far, by question key.
pub(crate) type Answers = BTreeMap<String, Answer>;

/// A question a handshake-era handler asks its client: sent as a request of the server's
/// once the handler returns, with `timeout` to answer.
pub(crate) struct Question {
    pub(crate) key: String,
    pub(crate) method: &'static str,
    pub(crate) params: Value,
    pub(crate) timeout: Duration,
}

/// One run of a request's handler: the answers it was given, and what it asked.
#[derive(Default)]
pub(crate) struct Inputs {
    pub(crate) answers: Answers,
    /// How many questions this run asked, answered or not: the next unnamed key.
    pub(crate) asked: usize,
    /// 2026-07-28: the questions this run asked that have no answer yet, by key
    /// (`inputRequests`).
    pub(crate) pending: Map<String, Value>,
    /// Before 2026-07-28: the question this run asked that has no answer yet (one per run).
    pub(crate) question: Option<Box<Question>>,
    /// The keys of `answers` the handler asked for in this run: only those are sealed into
    /// the next `requestState` (answers to questions never asked are ignored, not carried).
    pub(crate) used: BTreeSet<String>,
    /// The key the handler chose for its next question ([`Context::input_key`](crate::Context::input_key)).
    pub(crate) next_key: Option<String>,
}

impl Inputs {
    /// The answers to questions this run asked: what the next `requestState` carries.
    pub(crate) fn answered(&self) -> Map<String, Value> {
        let used = |(key, answer): (&String, &Answer)| match answer {
            Ok(value) if self.used.contains(key) => Some((key.clone(), value.clone())),
            _ => None,
        };
        self.answers.iter().filter_map(used).collect()
    }
}
