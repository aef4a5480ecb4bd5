//! The session's state and its read loop: what happens between receiving a unit of input
//! and sending its answers.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::time::Instant;

use serde_json::{json, Value};

use super::answer::{Answer, Reply, ReplyKind};
use super::incoming::{self, Incoming};
#[cfg(feature = "http")]
use super::parked::state::{Parked, Replay};
use super::port::{self, Origin, Port, Received, Unit};
use super::state::{Listen, Session, TokenBucket, Watch};
use super::trace::{self, Ending, Trace};
use crate::error::{EnvelopeError, Error, McpError};
use crate::jsonrpc::{
    ErrorObject, Message, Outgoing, Rejected, Request, RequestId, Response, ResponseId,
    UnreadableId,
};
use crate::log;
use crate::model::InputError;
use crate::protocol::Version;
use crate::server::Server;
use crate::transport::{to_json_limited, TooLarge};

/// The state of one session, talking to its client through a [`Port`].
pub(crate) struct Connection<'s> {
    pub(crate) server: &'s Server,
    pub(super) port: Box<dyn Port + 's>,
    /// Where what is written now goes: the origin of the unit being handled.
    pub(super) origin: Origin,
    /// Reused for serializing each outgoing message.
    pub(super) scratch: Vec<u8>,
    pub(crate) session: Session,
    /// Input held back while a handler waits for the client, served once it returns.
    pub(super) queue: VecDeque<(Incoming, Origin)>,
    /// The request whose handler is running, and whether the client cancelled it.
    pub(super) current: Option<(RequestId, bool)>,
    /// Ids of our requests to the client still awaiting an answer.
    pub(super) outstanding: BTreeSet<u64>,
    /// Requests waiting for their client's answer without blocking (multiplexing ports).
    #[cfg(feature = "http")]
    pub(super) parked: Vec<Parked>,
    /// The answers the running handler replays, when it may park.
    #[cfg(feature = "http")]
    pub(super) replay: Option<Replay>,
    pub(super) next_request_id: u64,
    pub(super) listens: Vec<Listen>,
    pub(super) watch: Watch,
    pub(super) rate: Option<TokenBucket>,
    /// This session's number in the log.
    pub(crate) number: u64,
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
            #[cfg(feature = "http")]
            parked: Vec::new(),
            #[cfg(feature = "http")]
            replay: None,
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
            number: trace::next_session(),
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
        self.expire_parked();
    }

    /// When [`Connection::poll_if_due`] next has something to do: a change check, if
    /// anything is watched, or a parked question's timeout.
    pub(crate) fn next_poll(&self) -> Option<Instant> {
        let watch = self.is_watching().then_some(self.watch.next_poll);
        watch.into_iter().chain(self.next_parked_deadline()).min()
    }

    /// Serves the oldest queued item; false when the queue is empty.
    pub(crate) fn serve_queued(&mut self) -> bool {
        let Some((item, origin)) = self.queue.pop_front() else {
            return false;
        };
        self.serve(item, origin);
        true
    }

    /// Handles one unit of input from `origin`, outside any handler.
    pub(crate) fn handle(&mut self, unit: Unit, origin: Origin) {
        self.serve(incoming::sort(unit, self.version()), origin);
    }

    /// Serves classified input from `origin`, and finishes its exchange unless it stays open.
    fn serve(&mut self, item: Incoming, origin: Origin) {
        self.origin = origin;
        match item {
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
    pub(super) fn take_response(&mut self, response: Response) {
        let answer = response.outcome.map_err(InputError::Refused);
        if !self.answer_parked(&response.id, answer) {
            log::warn(format_args!(
                "ignored a response to id {} that matches no request of ours",
                response.id
            ));
        }
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
    pub(super) fn version(&self) -> Option<Version> {
        self.session.negotiated().map(|n| n.version)
    }

    /// How an error response writes an id it could not read: `null` as JSON-RPC 2.0 says,
    /// or left out where a version's schema has no null id (`Version::omits_unreadable_id`).
    pub(super) fn unreadable_id(&self) -> UnreadableId {
        match self.session.negotiated() {
            Some(n) if n.version.omits_unreadable_id() => UnreadableId::Omit,
            _ => UnreadableId::Null,
        }
    }

    pub(super) fn reject(&mut self, rejected: Rejected) {
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
    pub(super) fn serve_request(&mut self, request: Request) {
        let id = request.id.clone();
        if let Some(reply) = self.answer(request, true) {
            self.send_reply(&id, reply);
        }
        let stays_open = self
            .listens
            .iter()
            .any(|l| l.id == id && l.origin == self.origin)
            || self.parked_origin(&id) == Some(self.origin);
        if !stays_open {
            self.port.finish(self.origin);
        }
    }

    /// Works out the answer to one request; `None` when it gets none (cancelled, or an open
    /// `subscriptions/listen`). A request that came `alone` (not in a batch) may park.
    pub(super) fn answer(&mut self, request: Request, alone: bool) -> Option<Reply> {
        let Some(trace) = self.trace(&request) else {
            return self.answer_untraced(request, alone);
        };
        let id = request.id.clone();
        let reply = self.answer_untraced(request, alone);
        self.end_trace(trace, &id, reply.as_ref());
        reply
    }

    /// The log line of `request`, when lines are written: numbered by its HTTP request (the
    /// origin, which its access line carries) on a transport that multiplexes.
    pub(super) fn trace(&self, request: &Request) -> Option<Trace<'s>> {
        if !log::enabled(log::Level::Info) {
            return None; // before anything is worked out: this is every request's path
        }
        let stateless = crate::protocol::is_stateless(&request.method, request.params.as_ref());
        let req = self.port.multiplexes().then_some(self.origin);
        Trace::start(
            request,
            self.server,
            req,
            (!stateless).then_some(self.number),
        )
    }

    /// Writes the line of request `id`, which got `reply` (`None`: none now), unless it is
    /// parked: the line is written when it is answered, counting from its first dispatch.
    pub(super) fn end_trace(&mut self, trace: Trace<'_>, id: &RequestId, reply: Option<&Reply>) {
        match reply {
            Some(reply) => trace.finish(Ending::of(reply)),
            None if self.parked_origin(id) == Some(self.origin) => {
                self.keep_started(id, trace.started())
            }
            None if self.listens.iter().any(|l| l.id == *id) => trace.finish(Ending::Stream),
            None => trace.finish(Ending::Cancelled),
        }
    }

    /// [`Connection::answer`] without its log line.
    #[cfg_attr(not(feature = "http"), allow(unused_variables))]
    fn answer_untraced(&mut self, request: Request, alone: bool) -> Option<Reply> {
        let in_use = self.listens.iter().any(|l| l.id == request.id);
        if in_use || self.parked_origin(&request.id).is_some() {
            let error = McpError::DuplicateId(request.id.to_string());
            return Some(Reply::plain(Err(error), false));
        }
        if let Some(Err(retry_after_ms)) = self.rate.as_mut().map(TokenBucket::take) {
            let error = McpError::RateLimited { retry_after_ms };
            return Some(Reply::plain(Err(error), false));
        }
        self.current = Some((request.id.clone(), false));
        #[cfg(feature = "http")]
        let reply = if alone && self.may_park(&request) {
            self.dispatch_resumable(request, Vec::new())
        } else {
            self.dispatch(request)
        };
        #[cfg(not(feature = "http"))]
        let reply = self.dispatch(request);
        if matches!(self.current.take(), Some((_, true))) {
            log::debug(format_args!(
                "request cancelled by the client; no response sent"
            ));
            return None;
        }
        reply
    }

    /// Serves the items of a 2025-03-26 batch; the answers go out as one array.
    pub(super) fn serve_batch(&mut self, items: Vec<Result<Message, Rejected>>) {
        let limit = self.server.limits.max_response_bytes;
        let mut out = Vec::new();
        for message in items {
            out.push(b',');
            let start = out.len();
            match message {
                Ok(Message::Request(request)) if request.method == "initialize" => {
                    let outcome = Err(EnvelopeError::InitializeInBatch.to_object());
                    let reply = Reply {
                        outcome,
                        kind: ReplyKind::Plain,
                    };
                    encode_reply(&request.id, &reply, limit, &mut out);
                }
                Ok(Message::Request(request)) => {
                    let id = request.id.clone();
                    // One array answers the batch, so its requests cannot park.
                    if let Some(reply) = self.answer(request, false) {
                        encode_reply(&id, &reply, limit, &mut out);
                    }
                }
                Ok(Message::Notification(notification)) => self.handle_notification(notification),
                Ok(Message::Response(response)) => self.take_response(response),
                Err(rejected) if rejected.answer => {
                    let id = ResponseId::recovered(rejected.id.as_ref(), self.unreadable_id());
                    let error = rejected.error.to_object();
                    let message = Outgoing::<Value>::Error(id, &error);
                    let _ = to_json_limited(&message, usize::MAX, &mut out);
                }
                Err(rejected) => log::warn(format_args!("ignored in batch: {}", rejected.error)),
            }
            if out.len() == start {
                out.pop();
            }
        }
        // A batch of only notifications and responses gets no answer at all.
        if let Some(first) = out.first_mut() {
            *first = b'[';
            out.push(b']');
            self.port.send(self.origin, &out, None);
        }
    }

    /// Writes the response to `id`.
    pub(super) fn send_reply(&mut self, id: &RequestId, reply: Reply) {
        self.scratch.clear();
        let limit = self.server.limits.max_response_bytes;
        let code = encode_reply(id, &reply, limit, &mut self.scratch);
        self.port.send(self.origin, &self.scratch, code);
    }

    pub(super) fn send_error(&mut self, id: ResponseId<'_>, error: &ErrorObject) {
        log::debug(format_args!("error {}: {}", error.code, error.message));
        self.scratch.clear();
        // Without a limit this cannot fail.
        let _ = to_json_limited(
            &Outgoing::<Value>::Error(id, error),
            usize::MAX,
            &mut self.scratch,
        );
        self.port.send(self.origin, &self.scratch, Some(error.code));
    }

    /// Writes a message of the server's own to the current origin.
    pub(crate) fn write(&mut self, message: &impl serde::Serialize) {
        self.scratch.clear();
        match serde_json::to_writer(&mut self.scratch, message) {
            Ok(()) => self.port.send(self.origin, &self.scratch, None),
            Err(e) => log::error(format_args!("a message could not be serialized: {e}")),
        }
    }

    /// Runs `f` with output going to `origin`, then restores the current origin.
    pub(super) fn answering<T>(&mut self, origin: Origin, f: impl FnOnce(&mut Self) -> T) -> T {
        let saved = std::mem::replace(&mut self.origin, origin);
        let result = f(self);
        self.origin = saved;
        result
    }

    pub(super) fn flush_quietly(&mut self) {
        if let Err(e) = self.port.flush() {
            log::error(format_args!("writing output failed: {e}"));
        }
    }

    pub(super) fn current_cancelled(&self) -> bool {
        matches!(self.current, Some((_, true)))
    }

    /// Sends a notification now (while a handler runs, the client should see it at once).
    pub(crate) fn notify_now(&mut self, method: &str, params: &Value) {
        self.write(&Outgoing::Notification(method, params));
        self.flush_quietly();
    }
}

/// Appends the response to `id` to `out`, replaced when it exceeds `limit` (see
/// [`too_large`]); its error code, when it is an error response (an HTTP port derives the
/// status of a 2026-07-28 answer from it).
fn encode_reply(id: &RequestId, reply: &Reply, limit: usize, out: &mut Vec<u8>) -> Option<i64> {
    let fits = match &reply.outcome {
        Ok(result) => to_json_limited(&Outgoing::Result(ResponseId::Id(id), result), limit, out),
        Err(e) => to_json_limited(&Outgoing::<Value>::Error(ResponseId::Id(id), e), limit, out),
    };
    match fits {
        Ok(()) => reply.outcome.as_ref().err().map(|e| e.code),
        Err(TooLarge(size)) => {
            let outcome = too_large(reply.kind, size, limit);
            let replaced = Reply {
                outcome,
                kind: ReplyKind::Plain,
            };
            encode_reply(id, &replaced, usize::MAX, out)
        }
    }
}

/// What replaces a response over the response limit: error −32001, or for a tool call a tool
/// result saying so (`isError: true`), so the model can ask for less.
fn too_large(kind: ReplyKind, size: usize, limit: usize) -> Result<Answer, ErrorObject> {
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
            Ok(Answer::Json(result))
        }
    }
}

/// Without HTTP every transport has one client, so a handler that asks it blocks and
/// nothing is ever parked (see `parked/`).
#[cfg(not(feature = "http"))]
impl Connection<'_> {
    pub(super) fn parked_origin(&self, _: &RequestId) -> Option<Origin> {
        None
    }
    pub(super) fn awaits_parked(&self, _: &RequestId) -> bool {
        false
    }
    pub(super) fn answer_parked(&mut self, _: &RequestId, _: super::state::Answer) -> bool {
        false
    }
    pub(super) fn cancel_parked(&mut self, _: &RequestId) -> bool {
        false
    }
    pub(super) fn next_parked_deadline(&self) -> Option<Instant> {
        None
    }
    pub(super) fn expire_parked(&mut self) {}
    pub(super) fn keep_started(&mut self, _: &RequestId, _: Instant) {}
    pub(super) fn ask_multiplexed(
        &mut self,
        _: &str,
        _: &Value,
        _: std::time::Duration,
    ) -> Option<Result<Value, InputError>> {
        None
    }
}
