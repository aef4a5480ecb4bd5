//! Asking the client for input: elicitation, sampling, roots.
//!
//! Asking works the same way in both eras. Before 2026-07-28 the server sends a request
//! to the client; over stdio it waits for the answer on the same input (answering `ping`,
//! queueing other requests). In 2026-07-28 the server may not send requests: the first time a
//! handler asks, [`InputError::Pending`] comes back; returning it (with `?`) makes the server
//! answer `input_required`, and when the client retries with the answer the handler runs again
//! from the start and this time gets it (MRTR). Over HTTP, where one thread serves every
//! client, the earlier versions work the same way inside the server: the request is sent, the
//! handler gets [`InputError::Pending`], and it runs again once the answer arrives, so no
//! client waits for another's answer (`session::parked`). Handlers should therefore ask
//! before they do anything they would not want to do twice.

use std::collections::BTreeSet;
use std::rc::Rc;

use serde_json::{json, Map, Value};
use thiserror::Error;

use super::{Context, RootsCache};
use crate::jsonrpc::ErrorObject;
use crate::protocol::Version;

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
    /// The key the handler chose for its next question ([`Context::input_key`]).
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

impl Context<'_> {
    /// Names the next question this handler asks (elicit, sample or roots): in 2026-07-28 it
    /// becomes that request's key in `inputRequests`, and the client answers under the same
    /// key in `inputResponses`. Without a name the key is `<kind>-<n>` (`elicitation-0`,
    /// `sampling-1`, ...), numbered in asking order. Names must be unique within a request
    /// and stable across its rounds, like the order of questions. Earlier versions ignore it.
    /// For example: `ctx.input_key("user_name").elicit("What is your name?", schema)?`.
    pub fn input_key(&mut self, key: &str) -> &mut Self {
        self.scope.inputs.next_key = Some(key.to_string());
        self
    }

    /// Asks the user to fill in a form (`elicitation/create`, form mode). `schema` is a flat object
    /// schema of primitive properties. Never ask for secrets this way (REQUIREMENTS.md SE-3).
    pub fn elicit(&mut self, message: &str, schema: Value) -> Result<Elicited, InputError> {
        let key = self.scope.inputs.next_key.take();
        crate::schema::check_elicitation_schema(&schema).map_err(InputError::Invalid)?;
        if !self.scope.version.has_elicitation() {
            return Err(InputError::NotInVersion {
                feature: "elicitation",
                version: self.scope.version.as_str(),
                since: Version::V2025_06_18.as_str(),
            });
        }
        let supported = self
            .scope
            .client_capabilities
            .get("elicitation")
            .is_some_and(|e| {
                // `{}` means form mode; otherwise `form` must be listed (2025-11-25).
                e.as_object()
                    .is_some_and(|modes| modes.is_empty() || modes.contains_key("form"))
            });
        let mut params = json!({ "message": message, "requestedSchema": schema });
        if self.scope.version >= Version::V2025_11_25 {
            params["mode"] = json!("form");
        }
        let answer = self.ask(
            key,
            "elicitation/create",
            params,
            supported,
            json!({ "elicitation": { "form": {} } }),
        )?;
        match answer.get("action").and_then(Value::as_str) {
            Some("accept") => {
                let content = answer.get("content").cloned().unwrap_or_else(|| json!({}));
                // REQUIREMENTS.md SE-4: what comes back is client input like any other; check it.
                crate::schema::validate_ref(&schema, &content).map_err(|problems| {
                    InputError::Malformed(format!(
                        "the answer does not fit the form: {}",
                        problems.join("; ")
                    ))
                })?;
                Ok(Elicited::Accept(
                    content.as_object().cloned().unwrap_or_default(),
                ))
            }
            Some("decline") => Ok(Elicited::Decline),
            Some("cancel") => Ok(Elicited::Cancel),
            _ => Err(InputError::Malformed(
                "\"action\" must be \"accept\", \"decline\" or \"cancel\"".into(),
            )),
        }
    }

    /// Asks the client's model for a completion (`sampling/createMessage`). `params` holds at
    /// least `messages` and `maxTokens`; the client's `CreateMessageResult` is returned.
    ///
    /// Tool use in sampling (`tools`, `toolChoice`) needs the client's `sampling.tools`
    /// (2025-11-25 and later), and `includeContext` other than `"none"` its `sampling.context`
    /// (REQUIREMENTS.md SC-2, SC-3); without them the request is not sent.
    pub fn sample(&mut self, params: Value) -> Result<Value, InputError> {
        let key = self.scope.inputs.next_key.take();
        let sampling = self.scope.client_capabilities.get("sampling");
        let (supported, required) =
            if params.get("tools").is_some() || params.get("toolChoice").is_some() {
                let tools = self.scope.version >= Version::V2025_11_25
                    && sampling.is_some_and(|s| s.get("tools").is_some());
                (tools, json!({ "sampling": { "tools": {} } }))
            } else if params.get("includeContext").is_some_and(|c| c != "none") {
                let context = sampling.is_some_and(|s| s.get("context").is_some());
                (context, json!({ "sampling": { "context": {} } }))
            } else {
                (sampling.is_some(), json!({ "sampling": {} }))
            };
        let answer = self.ask(key, "sampling/createMessage", params, supported, required)?;
        if answer.get("content").is_none() || answer.get("role").is_none() {
            return Err(InputError::Malformed(
                "a sampling result needs \"role\" and \"content\"".into(),
            ));
        }
        Ok(answer)
    }

    /// The client's roots (`roots/list`); each is `{uri, name?}`.
    ///
    /// In a handshake session the answer is kept and reused until the client sends
    /// `notifications/roots/list_changed`, so handlers may call this on every request; a
    /// client that did not answer in time counts as having no roots until then. In
    /// 2026-07-28 there is no session: each request that needs the roots asks for them with
    /// `input_required`.
    pub fn roots(&mut self) -> Result<Vec<Value>, InputError> {
        let key = self.scope.inputs.next_key.take();
        let stateless = self.scope.version.is_stateless();
        let generation = match self.link.roots_cache().filter(|_| !stateless) {
            Some(RootsCache {
                roots: Some(roots), ..
            }) => return Ok(roots.to_vec()),
            Some(cache) => Some(cache.generation),
            None => None,
        };
        let supported = self.scope.client_capabilities.get("roots").is_some();
        let answer = match self.ask(
            key,
            "roots/list",
            json!({}),
            supported,
            json!({ "roots": {} }),
        ) {
            Err(e @ InputError::TimedOut(_)) => {
                // Asking again would make every later request wait as long: the session
                // is taken to have no roots until the client says they changed.
                if let Some(cache) = self.link.roots_cache().filter(|_| !stateless) {
                    if Some(cache.generation) == generation {
                        cache.roots = Some(Rc::from([]));
                    }
                }
                return Err(e);
            }
            answer => answer?,
        };
        let Some(roots) = answer.get("roots").and_then(Value::as_array) else {
            return Err(InputError::Malformed("\"roots\" must be an array".into()));
        };
        if let Some(cache) = self.link.roots_cache().filter(|_| !stateless) {
            if Some(cache.generation) == generation {
                cache.roots = Some(roots.as_slice().into());
            }
        }
        Ok(roots.clone())
    }

    fn ask(
        &mut self,
        key: Option<String>,
        method: &str,
        params: Value,
        supported: bool,
        required: Value,
    ) -> Result<Value, InputError> {
        if self.scope.version.is_stateless() {
            // Keys are stable across rounds because the handler asks in the same order (or
            // names its questions).
            let key = key.unwrap_or_else(|| {
                format!(
                    "{}-{}",
                    method.split('/').next().unwrap_or(method),
                    self.scope.inputs.asked
                )
            });
            self.scope.inputs.asked += 1;
            if let Some(answer) = self.scope.inputs.answers.get(&key) {
                let answer = answer.clone();
                self.scope.inputs.used.insert(key);
                return Ok(answer);
            }
            if !supported {
                return Err(InputError::Unsupported(required));
            }
            let request = json!({ "method": method, "params": params });
            self.scope.inputs.pending.insert(key, request);
            return Err(InputError::Pending);
        }
        if !supported {
            return Err(InputError::Unsupported(required));
        }
        if !self.link.client_ready() {
            return Err(InputError::NotReady);
        }
        self.link
            .request(method, params, self.scope.request_timeout)
    }
}
