//! One client session: the session state machine and everything that has to happen between
//! receiving a message and sending its answer, over any transport (a [`Port`]).
//!
//! ```text
//!                 initialize                  notifications/initialized
//!   ┌─────┐ ─────────────────▶ ┌──────────────┐ ─────────────────────────▶ ┌───────┐
//!   │ New │                    │ Initializing │                            │ Ready │
//!   └─────┘                    └──────────────┘                            └───────┘
//!   ping only                  every request served;                      server may also
//!   (+ stateless requests)     the server sends no requests               send requests
//! ```
//!
//! A request whose `params._meta` carries `io.modelcontextprotocol/protocolVersion` is a
//! 2026-07-28 request: it is served statelessly whatever the state, and never changes it.
//!
//! Handlers run one at a time on this thread. While one waits for the client (a
//! server-to-client request, over a transport with one client), input keeps being read with
//! the same rules as outside a handler ([`incoming::sort`]): `ping` is answered at once,
//! cancellations are recorded, other requests are queued and served after the handler
//! returns. Over a transport serving many clients the handler does not wait: its request is
//! parked until the answer comes ([`parked`]). A handler that only checks for cancellation
//! reads no requests at all: they stay in the transport.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::rc::Rc;
use std::time::Instant;

use serde_json::{json, Map, Value};

use crate::answer::Answer;
use crate::error::{EnvelopeError, Error, McpError};
use crate::jsonrpc::{
    ErrorObject, Message, Notification, Outgoing, Rejected, Request, RequestId, Response,
    ResponseId, UnreadableId,
};
use crate::log;
use crate::model::InputError;
use crate::protocol::{LogLevel, Version};
use crate::server::Server;
use crate::transport::{to_json_limited, TooLarge};

mod incoming;
mod parked;
pub(crate) mod port;
mod waiting;
mod watch;

pub(crate) use crate::context::RootsCache;
use incoming::Incoming;
use parked::{Parked, Replay};
pub(crate) use port::{Origin, Port, Received, Unit};

/// The handshake-era session state.
pub(crate) enum Session {
    /// Before `initialize`: only `ping`, `initialize` and stateless requests are served.
    New,
    /// `initialize` answered; `notifications/initialized` not yet received.
    Initializing(Negotiated),
    /// Fully operating.
    Ready(Negotiated),
}

/// What `initialize` settled, plus state a handshake session keeps.
pub(crate) struct Negotiated {
    pub(crate) version: Version,
    pub(crate) client_capabilities: Rc<Value>,
    pub(crate) client_info: Rc<Value>,
    /// The least severe level sent as `notifications/message` (`logging/setLevel`).
    pub(crate) log_level: LogLevel,
    /// URIs from `resources/subscribe`.
    pub(crate) subscriptions: BTreeSet<String>,
    /// The client's answer to `roots/list`, kept until it says they changed.
    pub(crate) roots: RootsCache,
}

impl Session {
    pub(crate) fn negotiated(&self) -> Option<&Negotiated> {
        match self {
            Session::New => None,
            Session::Initializing(n) | Session::Ready(n) => Some(n),
        }
    }

    pub(crate) fn negotiated_mut(&mut self) -> Option<&mut Negotiated> {
        match self {
            Session::New => None,
            Session::Initializing(n) | Session::Ready(n) => Some(n),
        }
    }
}

/// An open 2026-07-28 `subscriptions/listen` stream.
pub(crate) struct Listen {
    pub(crate) id: RequestId,
    /// Where its notifications go.
    pub(crate) origin: Origin,
    pub(crate) resources_list_changed: bool,
    pub(crate) uris: BTreeSet<String>,
}

/// Input held back while a handler waits for the client.
enum Queued {
    Request(Request, Origin),
    Batch(Vec<Result<Message, Rejected>>, Origin),
    /// The client's answer to a parked request's question, which runs again once the
    /// handler running now returns.
    Answer(Response, Origin),
}

/// How an over-large response is replaced.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReplyKind {
    /// With error −32001.
    Plain,
    /// With a tool result saying so (`isError: true`), so the model can ask for less.
    ToolCall { stateless: bool },
}

/// The answer to one request.
pub(crate) struct Reply {
    pub(crate) outcome: Result<Answer, ErrorObject>,
    pub(crate) kind: ReplyKind,
}

impl Reply {
    pub(crate) fn plain(outcome: Result<Value, ErrorObject>) -> Reply {
        Reply {
            outcome: outcome.map(Answer::Json),
            kind: ReplyKind::Plain,
        }
    }
}

/// Change detection for subscriptions.
struct Watch {
    fingerprints: HashMap<String, Option<u64>>,
    list: Option<u64>,
    next_poll: Instant,
}

/// A token bucket for `--rate-limit`.
struct TokenBucket {
    rate: f64,
    tokens: f64,
    last: Instant,
}

impl TokenBucket {
    fn new(rate: f64) -> Self {
        TokenBucket {
            rate,
            tokens: rate.max(1.0),
            last: Instant::now(),
        }
    }

    /// Takes a token, or says in how many milliseconds one will be there.
    fn take(&mut self) -> Result<(), u64> {
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

/// The state of one session, talking to its client through a [`Port`].
pub(crate) struct Connection<'s> {
    pub(crate) server: &'s Server,
    port: Box<dyn Port + 's>,
    /// Where what is written now goes: the origin of the unit being handled.
    origin: Origin,
    /// Reused for serializing each outgoing message.
    scratch: Vec<u8>,
    pub(crate) session: Session,
    queue: VecDeque<Queued>,
    /// The request whose handler is running, and whether the client cancelled it.
    current: Option<(RequestId, bool)>,
    /// Ids of our requests to the client still awaiting an answer.
    outstanding: BTreeSet<u64>,
    /// Requests waiting for their client's answer without blocking (multiplexing ports).
    parked: Vec<Parked>,
    /// The answers the running handler replays, when it may park.
    replay: Option<Replay>,
    /// A batch is being served: its requests cannot park.
    in_batch: bool,
    next_request_id: u64,
    pub(crate) listens: Vec<Listen>,
    watch: Watch,
    rate: Option<TokenBucket>,
}

impl<'s> Connection<'s> {
    pub(crate) fn new(server: &'s Server, port: Box<dyn Port + 's>) -> Self {
        Connection {
            server,
            port,
            origin: 0,
            scratch: Vec::new(),
            session: Session::New,
            queue: VecDeque::new(),
            current: None,
            outstanding: BTreeSet::new(),
            parked: Vec::new(),
            replay: None,
            in_batch: false,
            next_request_id: 1,
            listens: Vec::new(),
            // The first check waits one interval: a short session (`minimcp call`) never
            // pays for walking a large source.
            watch: Watch {
                fingerprints: HashMap::new(),
                list: None,
                next_poll: Instant::now() + server.limits.poll_interval,
            },
            rate: server.limits.rate_limit.map(TokenBucket::new),
        }
    }

    /// Serves the session until its input closes: the loop of a transport that owns its
    /// input (stdio, a socket).
    pub(crate) fn run(&mut self) -> Result<(), Error> {
        loop {
            if self.serve_queued() {
                continue;
            }
            if self.port.is_closed() {
                log::info(format_args!("the client closed its end; stopping"));
                return Ok(());
            }
            let deadline = self.next_poll();
            match self.port.receive(deadline, None)? {
                Received::Unit(unit, origin) => self.handle(unit, origin),
                Received::Gone(origin) => self.origin_gone(origin),
                Received::Closed => break,
                Received::Idle | Received::Left => {}
            }
            self.poll_if_due();
        }
        self.port.flush()
    }

    /// Does what is due: checks subscribed resources when the poll interval has passed,
    /// and runs parked requests whose client did not answer in time.
    pub(crate) fn poll_if_due(&mut self) {
        if self.is_watching() && Instant::now() >= self.watch.next_poll {
            self.origin = port::SESSION;
            self.poll_changes();
        }
        if self
            .next_parked_deadline()
            .is_some_and(|d| Instant::now() >= d)
        {
            self.expire_parked();
        }
    }

    /// When [`Connection::poll_if_due`] next has something to do: a change check, if
    /// anything is watched, or a parked question's timeout.
    pub(crate) fn next_poll(&self) -> Option<Instant> {
        let watch = self.is_watching().then_some(self.watch.next_poll);
        match (watch, self.next_parked_deadline()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Serves the oldest queued item; false when the queue is empty.
    pub(crate) fn serve_queued(&mut self) -> bool {
        match self.queue.pop_front() {
            Some(Queued::Request(request, origin)) => {
                self.origin = origin;
                self.serve_request(request);
            }
            Some(Queued::Batch(items, origin)) => {
                self.origin = origin;
                self.serve_batch(items);
                self.port.finish(origin);
            }
            Some(Queued::Answer(response, origin)) => {
                self.origin = origin;
                self.take_response(response);
                self.port.finish(origin);
            }
            None => return false,
        }
        true
    }

    /// Handles one unit of input from `origin`, outside any handler.
    pub(crate) fn handle(&mut self, unit: Unit, origin: Origin) {
        self.origin = origin;
        match incoming::sort(unit, self.version()) {
            Incoming::Single(Message::Request(request)) => return self.serve_request(request),
            Incoming::Single(Message::Notification(notification)) => {
                self.handle_notification(notification)
            }
            Incoming::Single(Message::Response(response)) => self.take_response(response),
            Incoming::Batch(items) => self.serve_batch(items),
            Incoming::Rejected(rejected) => self.reject(rejected),
        }
        self.port.finish(origin);
    }

    /// A response from the client outside any wait: the answer a parked request waits for,
    /// or late (its question timed out or was withdrawn) and ignored.
    fn take_response(&mut self, response: Response) {
        let answer = response.outcome.map_err(InputError::Refused);
        if !self.answer_parked(&response.id, answer) {
            log::warn(format_args!(
                "ignored a response to id {} that matches no request of ours",
                response.id
            ));
        }
    }

    /// Where what is written now goes.
    pub(crate) fn origin(&self) -> Origin {
        self.origin
    }

    /// The client of `origin` went away: a `subscriptions/listen` stream it held is closed
    /// (closing a request's stream cancels it).
    pub(crate) fn origin_gone(&mut self, origin: Origin) {
        let before = self.listens.len();
        self.listens.retain(|l| l.origin != origin);
        if before != self.listens.len() {
            self.unwatch_unused();
        }
    }

    /// The negotiated version, if any.
    fn version(&self) -> Option<Version> {
        self.session.negotiated().map(|n| n.version)
    }

    /// How an error response writes an id it could not read (ARCHITECTURE §4; B-9).
    fn unreadable_id(&self) -> UnreadableId {
        match self.session.negotiated() {
            Some(n) if n.version.omits_unreadable_id() => UnreadableId::Omit,
            _ => UnreadableId::Null,
        }
    }

    fn reject(&mut self, rejected: Rejected) {
        if rejected.answer {
            if matches!(rejected.error, EnvelopeError::TooLarge { .. }) {
                log::warn(format_args!("skipped: {}", rejected.error));
            }
            let id = ResponseId::recovered(rejected.id.as_ref(), self.unreadable_id());
            self.send_error(id, &rejected.error.to_object());
        } else {
            log::warn(format_args!(
                "ignored an invalid notification or response: {}",
                rejected.error
            ));
        }
    }

    /// Serves one request and writes its answer (if it gets one); its exchange is then
    /// complete, unless it opened a `subscriptions/listen` stream.
    fn serve_request(&mut self, request: Request) {
        let id = request.id.clone();
        if let Some(reply) = self.answer(request) {
            self.send_reply(&id, reply);
        }
        let stays_open = self
            .listens
            .iter()
            .any(|l| l.id == id && l.origin == self.origin)
            || self.parked_at(&id, self.origin);
        if !stays_open {
            self.port.finish(self.origin);
        }
    }

    /// Works out the answer to one request; `None` when it gets none (cancelled, or an open
    /// `subscriptions/listen`).
    fn answer(&mut self, request: Request) -> Option<Reply> {
        if self.listens.iter().any(|l| l.id == request.id) || self.is_parked(&request.id) {
            return Some(Reply::plain(Err(McpError::DuplicateId(
                request.id.to_string(),
            )
            .to_object(false))));
        }
        if let Some(rate) = &mut self.rate {
            if let Err(retry_after_ms) = rate.take() {
                let error = McpError::RateLimited { retry_after_ms };
                return Some(Reply::plain(Err(error.to_object(false))));
            }
        }
        log::debug(format_args!("request {} {}", request.id, request.method));
        self.current = Some((request.id.clone(), false));
        let reply = if self.may_park(&request) {
            self.dispatch_resumable(request, Vec::new())
        } else {
            self.dispatch(request)
        };
        let cancelled = matches!(self.current.take(), Some((_, true)));
        if cancelled {
            log::debug(format_args!(
                "request cancelled by the client; no response sent"
            ));
            return None;
        }
        reply
    }

    /// Serves the items of a 2025-03-26 batch; the answers go out as one array.
    fn serve_batch(&mut self, items: Vec<Result<Message, Rejected>>) {
        // One array answers the batch, so its requests cannot park (see `waiting`).
        self.in_batch = true;
        let mut replies: Vec<Value> = Vec::new();
        for message in items {
            match message {
                Ok(Message::Request(request)) if request.method == "initialize" => {
                    replies.push(self.reply_json(
                        &request.id,
                        Reply::plain(Err(EnvelopeError::InitializeInBatch.to_object())),
                    ));
                }
                Ok(Message::Request(request)) => {
                    let id = request.id.clone();
                    if let Some(reply) = self.answer(request) {
                        replies.push(self.reply_json(&id, reply));
                    }
                }
                Ok(Message::Notification(notification)) => self.handle_notification(notification),
                Ok(Message::Response(response)) => self.take_response(response),
                Err(rejected) if rejected.answer => {
                    let error = rejected.error.to_object();
                    let message = match &rejected.id {
                        Some(id) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
                        None => json!({"jsonrpc": "2.0", "id": null, "error": error}),
                    };
                    replies.push(message);
                }
                Err(rejected) => log::warn(format_args!("ignored in batch: {}", rejected.error)),
            }
        }
        self.in_batch = false;
        // A batch of only notifications and responses gets no answer at all.
        if !replies.is_empty() {
            self.write(&replies);
        }
    }

    /// A reply as a complete response object, for batches; an over-large one is replaced.
    fn reply_json(&self, id: &RequestId, reply: Reply) -> Value {
        let message = |outcome: &Result<Answer, ErrorObject>| match outcome {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
        };
        let full = message(&reply.outcome);
        let size = serde_json::to_vec(&full).map_or(usize::MAX, |v| v.len());
        if size <= self.server.limits.max_response_bytes {
            return full;
        }
        message(&self.too_large(reply.kind, size).map(Answer::Json))
    }

    fn too_large(&self, kind: ReplyKind, size: usize) -> Result<Value, ErrorObject> {
        let limit = self.server.limits.max_response_bytes;
        let error = McpError::ResponseTooLarge { size, limit };
        log::warn(format_args!("{error}"));
        match kind {
            ReplyKind::Plain => Err(error.to_object(false)),
            ReplyKind::ToolCall { stateless } => {
                let mut result = json!({
                    "content": [{"type": "text", "text": format!(
                        "The tool's result is {size} bytes, over this server's {limit}-byte response limit. Ask for less: a narrower pattern, a smaller range, or a lower limit."
                    )}],
                    "isError": true,
                });
                if stateless {
                    result["resultType"] = json!("complete");
                }
                Ok(result)
            }
        }
    }

    /// Writes a reply, replacing it when it exceeds the response limit.
    fn send_reply(&mut self, id: &RequestId, reply: Reply) {
        let limit = self.server.limits.max_response_bytes;
        let sent = match &reply.outcome {
            Ok(result) => self.emit(&Outgoing::Result(ResponseId::Id(id), result), limit, None),
            Err(e) => self.emit(
                &Outgoing::<Value>::Error(ResponseId::Id(id), e),
                limit,
                Some(e.code),
            ),
        };
        if let Err(TooLarge(size)) = sent {
            let replacement = self.too_large(reply.kind, size);
            match &replacement {
                Ok(result) => self.write(&Outgoing::Result(ResponseId::Id(id), result)),
                Err(error) => self.write(&Outgoing::<Value>::Error(ResponseId::Id(id), error)),
            }
        }
    }

    fn send_error(&mut self, id: ResponseId<'_>, error: &ErrorObject) {
        log::debug(format_args!("error {}: {}", error.code, error.message));
        // Without a limit this cannot fail.
        let error_code = Some(error.code);
        let _ = self.emit(&Outgoing::<Value>::Error(id, error), usize::MAX, error_code);
    }

    /// Writes a small message of the server's own; these never exceed the limit.
    pub(crate) fn write(&mut self, message: &impl serde::Serialize) {
        if self.emit(message, usize::MAX, None).is_err() {
            log::error(format_args!("a message could not be serialized"));
        }
    }

    /// Serializes `message` and sends it to the current origin, unless it exceeds `limit`;
    /// `error`: its code, when it is an error response.
    fn emit(
        &mut self,
        message: &impl serde::Serialize,
        limit: usize,
        error: Option<i64>,
    ) -> Result<(), TooLarge> {
        self.scratch.clear();
        to_json_limited(message, limit, &mut self.scratch)?;
        self.port.send(self.origin, &self.scratch, error);
        Ok(())
    }

    /// Runs `f` with output going to `origin`, then restores the current origin.
    fn answering<T>(&mut self, origin: Origin, f: impl FnOnce(&mut Self) -> T) -> T {
        let saved = std::mem::replace(&mut self.origin, origin);
        let result = f(self);
        self.origin = saved;
        result
    }

    fn handle_notification(&mut self, notification: Notification) {
        let params = notification.params.unwrap_or_default();
        match notification.method.as_str() {
            "notifications/initialized" => {
                self.session = match std::mem::replace(&mut self.session, Session::New) {
                    Session::Initializing(n) => Session::Ready(n),
                    other => {
                        log::warn(format_args!(
                            "ignored notifications/initialized outside the handshake"
                        ));
                        other
                    }
                };
            }
            "notifications/cancelled" => self.cancel(&params),
            "notifications/roots/list_changed" => {
                if let Some(n) = self.session.negotiated_mut() {
                    n.roots.roots = None;
                    n.roots.generation += 1;
                }
            }
            method => log::debug(format_args!("ignored notification {method}")),
        }
    }

    /// `notifications/cancelled`: a running handler learns of it through its context, a
    /// queued request is dropped, an open listen stream is closed. No response is ever sent
    /// for the cancelled request (MCP C-2; late or unknown ids are ignored: C-3/C-4).
    fn cancel(&mut self, params: &Map<String, Value>) {
        let Some(id) = params.get("requestId").and_then(RequestId::from_value) else {
            log::warn(format_args!(
                "ignored notifications/cancelled without a valid requestId"
            ));
            return;
        };
        if let Some((current, cancelled)) = &mut self.current {
            if *current == id {
                *cancelled = true;
                return;
            }
        }
        if self.cancel_parked(&id) {
            return;
        }
        let queued = self.queue.len();
        let mut dropped = Vec::new();
        self.queue.retain(|q| match q {
            Queued::Request(r, origin) if r.id == id => {
                dropped.push(*origin);
                false
            }
            _ => true,
        });
        for origin in dropped {
            self.port.finish(origin);
        }
        let listens = self.listens.len();
        let mut closed = Vec::new();
        self.listens.retain(|l| {
            if l.id == id {
                closed.push(l.origin);
            }
            l.id != id
        });
        for origin in closed {
            self.port.finish(origin);
        }
        if listens != self.listens.len() {
            self.unwatch_unused();
        } else if queued == self.queue.len() {
            log::debug(format_args!("ignored cancellation of {id}: not in flight"));
        }
    }

    fn flush_quietly(&mut self) {
        if let Err(e) = self.port.flush() {
            log::error(format_args!("writing output failed: {e}"));
        }
    }

    fn current_cancelled(&self) -> bool {
        matches!(self.current, Some((_, true)))
    }

    /// Sends a notification now (while a handler runs, the client should see it at once).
    pub(crate) fn notify_now(&mut self, method: &str, params: &Value) {
        self.write(&Outgoing::Notification(method, params));
        self.flush_quietly();
    }
}
