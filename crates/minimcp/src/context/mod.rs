//! What a handler can do while it runs: report progress, log to the client, notice
//! cancellation, ask the client for input (elicitation, sampling, roots), and fail.
//!
//! Asking works one way in every protocol version and over every transport: the handler
//! gets [`InputError::Pending`], returns it with `?`, and runs again from the start once the
//! answer is there. In 2026-07-28 the question goes out as an `input_required` result and
//! comes back with the client's retry; before, it goes out as a request of the server's
//! while the call waits, parked, and every other message is served. Handlers should
//! therefore ask before they do anything they would not want to do twice.

use std::rc::Rc;
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};
use thiserror::Error;

use crate::jsonrpc::RequestId;
use crate::protocol::{LogLevel, Version};

mod input;

pub(crate) use input::{Answer, Answers, Inputs, Question};
pub use input::{Elicited, InputError};

/// Why a handler could not produce its result.
///
/// How each variant reaches the client depends on the handler: for tools, `Invalid`,
/// `NotFound` and `Internal` become a result with `isError: true` (so the model can correct
/// itself: conformance/REQUIREMENTS.md T-11); for prompts and completions they are −32602;
/// for resources, `NotFound` is the resource-not-found error. `Internal` details go to
/// stderr only. A cancelled request is `Input(InputError::Cancelled)`:
/// [`Context::cancelled`].
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum HandlerError {
    /// The request cannot be served as asked; the message says what to change.
    #[error("{0}")]
    Invalid(String),
    /// The thing asked for does not exist; the message names it.
    #[error("{0}")]
    NotFound(String),
    /// An interaction with the client (elicitation, sampling, roots) gave no usable answer,
    /// or the request was cancelled.
    #[error(transparent)]
    Input(#[from] InputError),
    /// Something failed inside the handler. The text is logged, never sent.
    #[error("internal error: {0}")]
    Internal(String),
}

/// The client's roots as last listed, per handshake session: handlers ask for them freely
/// (every tool call may need them) and the client is asked again only after
/// `notifications/roots/list_changed` (REQUIREMENTS.md SR-1).
#[derive(Default)]
pub(crate) struct RootsCache {
    pub(crate) roots: Option<Rc<[Value]>>,
    /// Counts `list_changed` notifications, so an answer requested before one arrived is
    /// not kept as current.
    pub(crate) generation: u64,
}

/// The session, as a running handler reaches it.
pub(crate) trait Link {
    /// Writes a notification and flushes it, so the client sees it while the handler runs.
    fn notify(&mut self, method: &str, params: Value);
    /// Handles input that is already available, without blocking; true when the request
    /// being handled has been cancelled.
    fn poll_cancelled(&mut self) -> bool;
    /// Whether a handshake-era handler may ask its client now: `NotReady` before
    /// `notifications/initialized`, `TooMany` while as many questions wait as the limit
    /// allows, `Invalid` inside a batch, `Cancelled` once the input is closed.
    fn may_ask(&self) -> Result<(), InputError>;
    /// The handshake session's cache of the client's roots; `None` without a session.
    fn roots_cache(&mut self) -> Option<&mut RootsCache>;
    /// Lets the transport end this request's delivery early (see
    /// [`Context::release_stream`]).
    fn release_stream(&mut self) {}
    /// The handshake session's number ([`Context::session_id`]); `None` without one.
    fn session(&self) -> Option<u64> {
        None
    }
}

/// The client a request is served for: negotiated by `initialize`, or, in 2026-07-28,
/// declared by the request itself.
#[derive(Clone)]
pub(crate) struct Client {
    pub(crate) version: Version,
    pub(crate) capabilities: Rc<Value>,
    pub(crate) info: Rc<Value>,
    /// The least severe level it wants as `notifications/message`; `None`: no log messages.
    pub(crate) log_level: Option<LogLevel>,
}

impl Client {
    /// A client nothing is known of yet (before `initialize`; a unit test's).
    pub(crate) fn unknown(version: Version) -> Client {
        Client {
            version,
            capabilities: Rc::new(json!({})),
            info: Rc::new(json!({})),
            log_level: None,
        }
    }
}

/// Everything about the request being handled.
pub(crate) struct Scope {
    pub(crate) id: RequestId,
    pub(crate) client: Client,
    pub(crate) progress_token: Option<Value>,
    pub(crate) last_progress: Option<f64>,
    pub(crate) request_timeout: Duration,
    /// [`crate::Limits::max_result_bytes`], for tools that page.
    pub(crate) result_budget: usize,
    pub(crate) inputs: Inputs,
    pub(crate) notifications: NotificationBudget,
}

/// At most this many progress and log notifications per second per request (REQUIREMENTS.md PR-5
/// and LG-7: rate-limit them); more are dropped.
pub(crate) const MAX_NOTIFICATIONS_PER_SECOND: u32 = 100;

/// Counts a request's notifications in the current one-second window.
#[derive(Default)]
pub(crate) struct NotificationBudget {
    window: Option<Instant>,
    sent: u32,
}

impl NotificationBudget {
    fn allow(&mut self) -> bool {
        let now = Instant::now();
        if self
            .window
            .is_none_or(|start| now.duration_since(start) >= Duration::from_secs(1))
        {
            (self.window, self.sent) = (Some(now), 0);
        }
        self.sent += 1;
        self.sent <= MAX_NOTIFICATIONS_PER_SECOND
    }
}

/// The handle a tool, prompt or resource handler gets for the request it serves.
pub struct Context<'a> {
    link: &'a mut dyn Link,
    pub(crate) scope: Scope,
}

impl<'a> Context<'a> {
    pub(crate) fn new(link: &'a mut dyn Link, scope: Scope) -> Self {
        Context { link, scope }
    }

    /// The protocol version of this request.
    pub fn protocol_version(&self) -> Version {
        self.scope.client.version
    }

    /// The capabilities the client declared (`{}` when none).
    pub fn client_capabilities(&self) -> &Value {
        &self.scope.client.capabilities
    }

    /// The client's self-description (`{}` when it gave none). For display and logs only.
    pub fn client_info(&self) -> &Value {
        &self.scope.client.info
    }

    /// Reports progress when the client asked for it (`_meta.progressToken`); otherwise does
    /// nothing. `progress` must increase with every call: a value that does not is dropped
    /// (MCP: "The progress value MUST increase with each notification"), and so is one over
    /// the budget of 100 notifications per second per request. Returns whether a
    /// notification was sent.
    pub fn progress(&mut self, progress: f64, total: Option<f64>, message: Option<&str>) -> bool {
        let Some(token) = &self.scope.progress_token else {
            return false;
        };
        let increasing = self.scope.last_progress.is_none_or(|last| progress > last);
        if !progress.is_finite() || !increasing {
            minimcp_base::log::debug(format_args!(
                "dropped progress {progress} for request {:?}: not above the last value",
                self.scope.id
            ));
            return false;
        }
        if !self.scope.notifications.allow() {
            return false;
        }
        self.scope.last_progress = Some(progress);
        let mut params = json!({ "progressToken": token, "progress": progress });
        if let Some(total) = total.filter(|t| t.is_finite()) {
            params["total"] = json!(total);
        }
        // `message` exists from 2025-03-26.
        if let Some(message) = message.filter(|_| self.scope.client.version.has_annotations()) {
            params["message"] = json!(message);
        }
        self.link.notify("notifications/progress", params);
        true
    }

    /// Sends a log message to the client (`notifications/message`) when `level` is at or above
    /// what the client asked for (at most 100 progress and log notifications per second per
    /// request). Never put secrets or internal paths in `data` (REQUIREMENTS.md LG-7).
    pub fn log(&mut self, level: LogLevel, data: impl Into<Value>) {
        if self.scope.client.log_level.is_some_and(|min| level >= min)
            && self.scope.notifications.allow()
        {
            let params = json!({ "level": level.as_str(), "data": data.into() });
            self.link.notify("notifications/message", params);
        }
    }

    /// The budget for this tool's result, in bytes ([`crate::Limits::max_result_bytes`]).
    /// Tools that can produce more should page: return what fits, and say in
    /// `structuredContent` how to get the rest.
    pub fn result_budget(&self) -> usize {
        self.scope.result_budget
    }

    /// How long later requests to the client (elicitation, sampling, roots) wait for their answer,
    /// instead of the server's `request_timeout` (REQUIREMENTS.md L-10: per-request timeouts).
    pub fn set_request_timeout(&mut self, timeout: Duration) {
        self.scope.request_timeout = timeout;
    }

    /// Lets the transport end this request's event stream now, for the client to resume
    /// later (Streamable HTTP in a 2025-11-25 session: SEP-1699 polling). Everything the
    /// handler sends afterwards, the result included, is kept until the client resumes with
    /// `Last-Event-ID` (up to 60 s). Elsewhere nothing happens. Useful for long calls behind
    /// proxies that cut long-lived responses.
    pub fn release_stream(&mut self) {
        self.link.release_stream();
    }

    /// True when the client has cancelled this request. Long-running handlers should check
    /// this between steps and stop with `return Err(ctx.cancelled())`; the server then sends
    /// no response (conformance/REQUIREMENTS.md C-2).
    pub fn is_cancelled(&mut self) -> bool {
        self.link.poll_cancelled()
    }

    /// The error a handler returns when it stops because [`Context::is_cancelled`] said so:
    /// `if ctx.is_cancelled() { return Err(ctx.cancelled()); }`.
    pub fn cancelled(&self) -> HandlerError {
        HandlerError::Input(InputError::Cancelled)
    }

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
        minimcp_base::schema::check_elicitation_schema(&schema).map_err(InputError::Invalid)?;
        if !self.scope.client.version.has_elicitation() {
            return Err(InputError::NotInVersion {
                feature: "elicitation",
                version: self.scope.client.version.as_str(),
                since: Version::V2025_06_18.as_str(),
            });
        }
        let client = &self.scope.client;
        // `{}` means form mode; otherwise `form` must be listed (2025-11-25).
        let form = |modes: &Map<String, Value>| modes.is_empty() || modes.contains_key("form");
        let declared = client
            .capabilities
            .get("elicitation")
            .and_then(Value::as_object);
        let supported = declared.is_some_and(form);
        let mut params = json!({ "message": message, "requestedSchema": schema });
        if client.version >= Version::V2025_11_25 {
            params["mode"] = json!("form");
        }
        let required = json!({ "elicitation": { "form": {} } });
        let answer = self.ask(key, "elicitation/create", params, supported, required)?;
        match answer.get("action").and_then(Value::as_str) {
            Some("accept") => {
                let content = answer.get("content").cloned().unwrap_or_else(|| json!({}));
                // REQUIREMENTS.md SE-4: what comes back is client input like any other; check it.
                minimcp_base::schema::validate_ref(&schema, &content).map_err(|problems| {
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
        let sampling = self.scope.client.capabilities.get("sampling");
        let (supported, required) =
            if params.get("tools").is_some() || params.get("toolChoice").is_some() {
                let tools = self.scope.client.version >= Version::V2025_11_25
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
        let stateless = self.scope.client.version.is_stateless();
        let generation = match self.link.roots_cache().filter(|_| !stateless) {
            Some(RootsCache {
                roots: Some(roots), ..
            }) => {
                // Counted as a question, so that the keys of later ones stay what they
                // were in the run that asked this one.
                self.scope.inputs.asked += 1;
                return Ok(roots.to_vec());
            }
            Some(cache) => Some(cache.generation),
            None => None,
        };
        let supported = self.scope.client.capabilities.get("roots").is_some();
        let (params, required) = (json!({}), json!({ "roots": {} }));
        let answer = self.ask(key, "roots/list", params, supported, required);
        let (kept, result) = match answer {
            // Asking again would make every later request wait as long: the session is
            // taken to have no roots until the client says they changed.
            Err(e @ InputError::TimedOut(_)) => (Rc::from([]), Err(e)),
            Err(e) => return Err(e),
            Ok(answer) => match answer.get("roots").and_then(Value::as_array) {
                Some(roots) => (roots.as_slice().into(), Ok(roots.clone())),
                None => return Err(InputError::Malformed("\"roots\" must be an array".into())),
            },
        };
        if let Some(cache) = self.link.roots_cache().filter(|_| !stateless) {
            if Some(cache.generation) == generation {
                cache.roots = Some(kept);
            }
        }
        result
    }

    fn ask(
        &mut self,
        key: Option<String>,
        method: &'static str,
        params: Value,
        supported: bool,
        required: Value,
    ) -> Result<Value, InputError> {
        // Keys are stable across rounds because the handler asks in the same order (or
        // names its questions).
        let inputs = &mut self.scope.inputs;
        let kind = method.split('/').next().unwrap_or(method);
        let key = key.unwrap_or_else(|| format!("{kind}-{}", inputs.asked));
        inputs.asked += 1;
        if let Some(answer) = inputs.answers.get(&key) {
            let answer = answer.clone();
            inputs.used.insert(key);
            return answer;
        }
        if !supported {
            return Err(InputError::Unsupported(required));
        }
        if self.scope.client.version.is_stateless() {
            let request = json!({ "method": method, "params": params });
            inputs.pending.insert(key, request);
            return Err(InputError::Pending);
        }
        self.link.may_ask()?;
        // One question per run: the next is asked when the handler runs again.
        if inputs.question.is_none() {
            let timeout = self.scope.request_timeout;
            inputs.question = Some(Box::new(Question {
                key,
                method,
                params,
                timeout,
            }));
        }
        Err(InputError::Pending)
    }

    /// A number naming this request's handshake session, unique within the process and
    /// never reused, so a handler can keep what it told this session (what it served, for
    /// instance) apart from other sessions' over HTTP. `None` in 2026-07-28, where each
    /// request stands alone, and for requests outside a session.
    pub fn session_id(&self) -> Option<u64> {
        let stateless = self.scope.client.version.is_stateless();
        self.link.session().filter(|_| !stateless)
    }
}
