//! One client session: the read loop, the session state machine, and everything that has to
//! happen between reading a line and writing its answer.
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
//! server-to-client request), input keeps being read: `ping` is answered at once,
//! cancellations are recorded, other requests are queued and served after the handler
//! returns. Output is flushed whenever no further complete input line is already buffered,
//! and always before blocking on a read.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::io::{Read, Write};
use std::rc::Rc;
use std::time::Instant;

use serde_json::{json, Map, Value};

use crate::error::{EnvelopeError, Error, McpError};
use crate::jsonrpc::{
    classify, ErrorObject, Message, Notification, Outgoing, Request, RequestId, ResponseId,
    UnreadableId,
};
use crate::log;
use crate::protocol::{LogLevel, Version};
use crate::server::Server;
use crate::transport::{Frame, LineReader, Output, TooLarge};

mod waiting;
mod watch;

/// Serves one session: reads requests from `input` until it ends, writes responses and
/// notifications to `output`. Returns `Ok` on end of input and when the client closes
/// `output`; `Err` only when reading or writing fails otherwise.
pub fn serve<R, W>(server: &Server, input: R, output: W) -> Result<(), Error>
where
    R: Read + Send + 'static,
    W: Write,
{
    // Boxed here so the session machinery is compiled once, whatever the stream types: the
    // binary (and with it the server's resident memory) stays small, and a dynamic call per
    // read or write is nothing next to the system call behind it.
    serve_boxed(server, Box::new(input), Box::new(output))
}

fn serve_boxed(
    server: &Server,
    input: Box<dyn Read + Send>,
    output: Box<dyn Write + '_>,
) -> Result<(), Error> {
    let mut connection = Connection::new(server, input, output);
    let result = connection.run();
    log::info(format_args!("session ended"));
    result
}

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

/// The client's roots as last listed, per handshake session: handlers ask for them freely
/// (every tool call may need them) and the client is asked again only after
/// `notifications/roots/list_changed` (MCP SR-1).
#[derive(Default)]
pub(crate) struct RootsCache {
    pub(crate) roots: Option<Rc<[Value]>>,
    /// Counts `list_changed` notifications, so an answer requested before one arrived is
    /// not kept as current.
    pub(crate) generation: u64,
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
    pub(crate) resources_list_changed: bool,
    pub(crate) uris: BTreeSet<String>,
}

/// Input held back while a handler waits for the client.
enum Queued {
    Request(Request),
    Batch(Vec<Value>),
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
    pub(crate) outcome: Result<Value, ErrorObject>,
    pub(crate) kind: ReplyKind,
}

impl Reply {
    pub(crate) fn plain(outcome: Result<Value, ErrorObject>) -> Reply {
        Reply {
            outcome,
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

/// The state of one session over one input and one output.
pub(crate) struct Connection<'s, R, W: Write> {
    pub(crate) server: &'s Server,
    input: LineReader<R>,
    output: Output<W>,
    pub(crate) session: Session,
    queue: VecDeque<Queued>,
    /// The request whose handler is running, and whether the client cancelled it.
    current: Option<(RequestId, bool)>,
    /// Ids of our requests to the client still awaiting an answer.
    outstanding: BTreeSet<u64>,
    next_request_id: u64,
    pub(crate) listens: Vec<Listen>,
    watch: Watch,
    rate: Option<TokenBucket>,
}

impl<'s, R: Read + Send + 'static, W: Write> Connection<'s, R, W> {
    pub(crate) fn new(server: &'s Server, input: R, output: W) -> Self {
        Connection {
            server,
            input: LineReader::new(input, server.limits.max_message_bytes),
            output: Output::new(output),
            session: Session::New,
            queue: VecDeque::new(),
            current: None,
            outstanding: BTreeSet::new(),
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

    fn run(&mut self) -> Result<(), Error> {
        loop {
            if let Some(item) = self.queue.pop_front() {
                match item {
                    Queued::Request(request) => self.serve_request(request),
                    Queued::Batch(items) => self.serve_batch(items),
                }
                continue;
            }
            if self.output.is_closed() {
                log::info(format_args!(
                    "the client closed its input (our stdout); stopping"
                ));
                return Ok(());
            }
            if !self.input.has_buffered_line() || self.output.wants_flush() {
                self.output.flush().map_err(Error::Write)?;
            }
            let deadline = self.is_watching().then_some(self.watch.next_poll);
            let parsed = match self.input.next_frame(deadline).map_err(Error::Read)? {
                Frame::Line(line) => Some(parse_line(line)),
                Frame::TooLarge { size, id } => {
                    let limit = self.server.limits.max_message_bytes;
                    log::warn(format_args!(
                        "skipped a message of {size} bytes (limit {limit})"
                    ));
                    Some(Err((EnvelopeError::TooLarge { size, limit }, id)))
                }
                Frame::Eof => break,
                Frame::TimedOut => None,
            };
            match parsed {
                Some(Ok(value)) => self.handle_value(value),
                Some(Err((error, id))) => {
                    let id = ResponseId::recovered(id.as_ref(), self.unreadable_id());
                    self.send_error(id, &error.to_object());
                }
                None => {}
            }
            if self.is_watching() && Instant::now() >= self.watch.next_poll {
                self.poll_changes();
            }
        }
        self.output.flush().map_err(Error::Write)
    }

    /// How an error response writes an id it could not read (ARCHITECTURE §4; B-9).
    fn unreadable_id(&self) -> UnreadableId {
        match self.session.negotiated() {
            Some(n) if n.version.omits_unreadable_id() => UnreadableId::Omit,
            _ => UnreadableId::Null,
        }
    }

    /// Handles one parsed line.
    fn handle_value(&mut self, value: Value) {
        match value {
            Value::Array(items) => self.serve_batch(items),
            value => match classify(value) {
                Ok(Message::Request(request)) => self.serve_request(request),
                Ok(Message::Notification(notification)) => self.handle_notification(notification),
                Ok(Message::Response(response)) => log::warn(format_args!(
                    "ignored a response to id {} that matches no request of ours",
                    response.id
                )),
                Err(rejected) => self.reject(rejected),
            },
        }
    }

    fn reject(&mut self, rejected: crate::jsonrpc::Rejected) {
        if rejected.answer {
            let id = ResponseId::recovered(rejected.id.as_ref(), self.unreadable_id());
            self.send_error(id, &rejected.error.to_object());
        } else {
            log::warn(format_args!(
                "ignored an invalid notification or response: {}",
                rejected.error
            ));
        }
    }

    /// Serves one request and writes its answer (if it gets one).
    fn serve_request(&mut self, request: Request) {
        let id = request.id.clone();
        if let Some(reply) = self.answer(request) {
            self.send_reply(&id, reply);
        }
    }

    /// Works out the answer to one request; `None` when it gets none (cancelled, or an open
    /// `subscriptions/listen`).
    fn answer(&mut self, request: Request) -> Option<Reply> {
        if self.listens.iter().any(|l| l.id == request.id) {
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
        let reply = self.dispatch(request);
        let cancelled = matches!(self.current.take(), Some((_, true)));
        if cancelled {
            log::debug(format_args!(
                "request cancelled by the client; no response sent"
            ));
            return None;
        }
        reply
    }

    /// Serves a JSON-RPC batch: only in a 2025-03-26 session (MCP B-11), else one −32600.
    fn serve_batch(&mut self, items: Vec<Value>) {
        let version = self.session.negotiated().map(|n| n.version);
        if items.is_empty() {
            let id = ResponseId::Unreadable(self.unreadable_id());
            return self.send_error(id, &EnvelopeError::EmptyBatch.to_object());
        }
        if version != Some(Version::V2025_03_26) {
            let hint = match version {
                None => "; initialize first",
                Some(_) => "",
            };
            let id = ResponseId::Unreadable(self.unreadable_id());
            return self.send_error(id, &EnvelopeError::BatchNotSupported(hint).to_object());
        }
        let mut replies: Vec<Value> = Vec::new();
        for item in items {
            let message = match item {
                Value::Array(_) => Err(crate::jsonrpc::Rejected {
                    id: None,
                    error: EnvelopeError::NotAnObject,
                    answer: true,
                }),
                item => classify(item),
            };
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
                Ok(Message::Response(response)) => log::warn(format_args!(
                    "ignored a response to unknown id {}",
                    response.id
                )),
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
        // A batch of only notifications and responses gets no answer at all.
        if !replies.is_empty() {
            self.write(&replies);
        }
    }

    /// A reply as a complete response object, for batches; an over-large one is replaced.
    fn reply_json(&self, id: &RequestId, reply: Reply) -> Value {
        let message = |outcome: &Result<Value, ErrorObject>| match outcome {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
        };
        let full = message(&reply.outcome);
        let size = serde_json::to_vec(&full).map_or(usize::MAX, |v| v.len());
        if size <= self.server.limits.max_response_bytes {
            return full;
        }
        message(&self.too_large(reply.kind, size))
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
            Ok(result) => self
                .output
                .send(&Outgoing::Result(ResponseId::Id(id), result), limit),
            Err(error) => self
                .output
                .send(&Outgoing::<Value>::Error(ResponseId::Id(id), error), limit),
        };
        if let Err(TooLarge(size)) = sent {
            let replacement = self.too_large(reply.kind, size);
            let sent = match &replacement {
                Ok(result) => self
                    .output
                    .send(&Outgoing::Result(ResponseId::Id(id), result), usize::MAX),
                Err(error) => self.output.send(
                    &Outgoing::<Value>::Error(ResponseId::Id(id), error),
                    usize::MAX,
                ),
            };
            debug_assert!(sent.is_ok());
        }
    }

    fn send_error(&mut self, id: ResponseId<'_>, error: &ErrorObject) {
        log::debug(format_args!("error {}: {}", error.code, error.message));
        self.write(&Outgoing::<Value>::Error(id, error));
    }

    /// Writes a small message of the server's own; these never exceed the limit.
    fn write(&mut self, message: &impl serde::Serialize) {
        if self.output.send(message, usize::MAX).is_err() {
            log::error(format_args!("a message could not be serialized"));
        }
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
        let queued = self.queue.len();
        self.queue
            .retain(|q| !matches!(q, Queued::Request(r) if r.id == id));
        let listens = self.listens.len();
        self.listens.retain(|l| l.id != id);
        if listens != self.listens.len() {
            self.unwatch_unused();
        } else if queued == self.queue.len() {
            log::debug(format_args!("ignored cancellation of {id}: not in flight"));
        }
    }

    fn flush_quietly(&mut self) {
        if let Err(e) = self.output.flush() {
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

/// Parses one line into JSON; on failure, the error and (never) an id.
fn parse_line(line: &[u8]) -> Result<Value, (EnvelopeError, Option<RequestId>)> {
    let text = std::str::from_utf8(line)
        .map_err(|e| (EnvelopeError::InvalidUtf8(e.valid_up_to()), None))?;
    serde_json::from_str(text).map_err(|e| (EnvelopeError::Syntax(e.to_string()), None))
}
