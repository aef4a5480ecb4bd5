//! One client session: what a unit of input is answered with, over any transport. The
//! session does no I/O: its transport hands it each parsed unit ([`Session::receive`]) and
//! sends what it gives back through a [`Port`].
//!
//! This file is the path of every request, in the order it runs: classifying a unit,
//! admitting a request, the one `match` on its method, running its handler, writing its
//! reply. The handshake's states are in `handshake.rs`; each method family is served in a
//! file of its own. Handlers run one at a time, to completion, and never wait for their
//! client: one that needs its client's answer is parked and runs again with it
//! (`parked.rs`).

mod batch;
mod completion;
mod handler;
mod handshake;
mod parked;
pub(crate) mod port;
mod prompts;
mod resources;
#[cfg(test)]
mod tests;
mod tools;
mod trace;

use std::collections::VecDeque;
use std::mem;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;
use serde_json::{json, Value};

use crate::context::{Answers, Client, Context, Inputs, Question, Scope};
use crate::error::{EnvelopeError, McpError};
use crate::jsonrpc::{
    classify, ErrorObject, Message, Outgoing, Rejected, Request, RequestId, ResponseId, Unit,
};
use crate::model::HandlerError;
use crate::protocol::{request_meta, Era, Method, Version};
use crate::server::Server;
use handler::TokenBucket;
use handshake::Handshake;
use minimcp_base::{log, to_json_limited, TooLarge};
use parked::Parked;
pub use port::{Origin, Polled, Port};
use resources::{Listen, Watch};
use tools::ToolResult;
use trace::Trace;

/// Numbers the sessions of this process, in the order they start, for the log.
static SESSIONS: AtomicU64 = AtomicU64::new(1);

/// One client session (over HTTP, every 2026-07-28 request shares one too).
pub struct Session<'s> {
    server: &'s Server,
    port: Box<dyn Port + 's>,
    /// Where what is written now goes: the origin of the unit being handled.
    origin: Origin,
    /// Reused for serializing each outgoing message.
    scratch: Vec<u8>,
    handshake: Handshake,
    /// The request whose method runs now.
    running: Option<Running>,
    /// Requests waiting for their client's answer to a question of ours.
    parked: Vec<Parked>,
    /// Input behind a parked request of the same origin: one origin's answers go out in
    /// the order of its requests.
    queue: VecDeque<(Incoming, Origin)>,
    next_question_id: u64,
    listens: Vec<Listen>,
    watch: Watch,
    rate: Option<TokenBucket>,
    /// The input ended: nothing can be answered any more.
    closed: bool,
    /// This session's number in the log.
    number: u64,
}

/// The request whose method runs, and what its handler did.
struct Running {
    id: RequestId,
    /// The client cancelled it: it gets no response.
    cancelled: bool,
    /// The client's answers to the questions of earlier runs (`None` on the first).
    answers: Option<Answers>,
    /// It may ask its client, and so be parked: not inside a batch (one array answers it).
    parkable: bool,
    /// The `progressToken` it carries, for its handler's scope.
    progress: Option<Value>,
    /// The question it asked, sent once it returns.
    asked: Option<Box<Question>>,
}

/// A classified unit of input.
enum Incoming {
    Single(Message),
    /// A non-empty JSON-RPC batch in a 2025-03-26 session, its items classified in order.
    Batch(Vec<Result<Message, Rejected>>),
    /// Not a message this session accepts.
    Rejected(Rejected),
}

/// The answer to one request, before it is written.
pub(crate) struct Reply {
    outcome: Result<Payload, ErrorObject>,
    /// A `tools/call` reply over the response limit becomes a tool error (the model can ask
    /// for less), any other an error response; `true` for a 2026-07-28 tool result.
    tool_call: Option<bool>,
}

/// A successful result.
#[derive(Serialize)]
#[serde(untagged)]
pub(crate) enum Payload {
    /// Any result, as JSON.
    Json(Value),
    /// A `tools/call` result, serialized straight from the handler's values.
    Tool(ToolResult),
}

/// What a method returns before it is written as a response.
pub(crate) type Outcome = Result<Value, McpError>;

impl Reply {
    /// A reply of any method but `tools/call`; `stateless`: see [`McpError::to_object`].
    fn plain(outcome: Outcome, stateless: bool) -> Reply {
        Reply {
            outcome: outcome
                .map(Payload::Json)
                .map_err(|e| e.to_object(stateless)),
            tool_call: None,
        }
    }
}

impl<'s> Session<'s> {
    /// A session of `server` that writes through `port`; its transport hands it every unit
    /// of its input with [`Session::receive`].
    pub fn new(server: &'s Server, port: Box<dyn Port + 's>) -> Self {
        Session {
            server,
            port,
            origin: 0,
            scratch: Vec::new(),
            handshake: Handshake::New,
            running: None,
            parked: Vec::new(),
            queue: VecDeque::new(),
            next_question_id: 1,
            listens: Vec::new(),
            watch: Watch::new(server.limits.poll_interval),
            rate: server.limits.rate_limit.map(TokenBucket::new),
            closed: false,
            number: SESSIONS.fetch_add(1, Ordering::Relaxed),
        }
    }

    /// This session's number in the log.
    pub fn number(&self) -> u64 {
        self.number
    }

    /// Takes one unit of input from `origin` and answers it, unless it carries a request
    /// that must wait behind one of `origin` parked for its client's answer.
    pub fn receive(&mut self, unit: Unit, origin: Origin) {
        let incoming = sort(unit, self.version());
        self.take(incoming, origin);
        self.serve_queue();
    }

    /// The negotiated version, if any.
    pub fn version(&self) -> Option<Version> {
        self.handshake.negotiated().map(|n| n.client.version)
    }

    /// Serves `incoming`, or queues the part that carries a request behind a parked one of
    /// the same origin (a `ping` is answered at once, as is a request reusing an id in
    /// flight: it is refused).
    fn take(&mut self, incoming: Incoming, origin: Origin) {
        if !self.is_waiting(origin) {
            return self.handle(incoming, origin);
        }
        match incoming {
            Incoming::Single(Message::Request(r))
                if !self.in_flight(&r.id)
                    && !Method::parse(&r.method).is_some_and(Method::jumps_the_queue) =>
            {
                self.enqueue(Incoming::Single(Message::Request(r)), origin)
            }
            Incoming::Batch(items) => self.defer_batch(items, origin),
            other => self.handle(other, origin),
        }
    }

    /// Handles classified input from `origin`, and finishes its exchange unless it stays
    /// open (a parked request, a `subscriptions/listen` stream).
    fn handle(&mut self, incoming: Incoming, origin: Origin) {
        self.answering(origin, |this| {
            match incoming {
                Incoming::Single(Message::Request(request)) => return this.serve_request(request),
                Incoming::Single(Message::Notification(n)) => this.notified(n),
                Incoming::Single(Message::Response(r)) => this.answered(r),
                Incoming::Batch(items) => this.serve_batch(items),
                Incoming::Rejected(rejected) => this.reject(rejected),
            }
            this.port.finish(origin);
        });
    }

    /// Serves one request and writes its reply (if it gets one).
    fn serve_request(&mut self, request: Request) {
        let id = request.id.clone();
        if let Some(reply) = self.answer(request, true) {
            self.send_reply(&id, reply);
        }
        // A reply that refuses a duplicate id has the id of a request that stays open, but
        // not its origin.
        let open = |o: Origin, i: &RequestId| o == self.origin && *i == id;
        let listening = self.listens.iter().any(|l| open(l.origin, &l.id));
        if !listening && !self.parked.iter().any(|p| open(p.origin, &p.request.id)) {
            self.port.finish(self.origin);
        }
    }

    /// Works out the reply to one request; `None` when it gets none now (cancelled, parked,
    /// or an open `subscriptions/listen`). A request that came `alone` may be parked.
    fn answer(&mut self, request: Request, alone: bool) -> Option<Reply> {
        let trace = self.trace(&request, None);
        let refused = if self.in_flight(&request.id) {
            Some(McpError::DuplicateId(format!("{:?}", request.id)))
        } else {
            let rate = self.rate.as_mut().and_then(|rate| rate.take().err());
            rate.map(|retry_after_ms| McpError::RateLimited { retry_after_ms })
        };
        let Some(error) = refused else {
            // Only a request that may ask its client (which declared something a handler may
            // ask it) is kept for running again.
            let may_ask = self.handshake.negotiated().is_some_and(|n| n.may_be_asked);
            let copy = (alone && may_ask).then(|| request.clone());
            return self.run(request, copy, None, trace);
        };
        let reply = Reply::plain(Err(error), false);
        if let Some(trace) = trace {
            trace.end(Ok(&reply));
        }
        Some(reply)
    }

    /// Runs `request`'s method with the client's `answers` so far; parks `copy` when its
    /// handler asked the client something (what this run replied was worked out without
    /// the answer, and is dropped). Its log line (`trace`) is written once it ends, or by
    /// the run that answers it when it is parked.
    fn run(
        &mut self,
        request: Request,
        copy: Option<Request>,
        answers: Option<Answers>,
        trace: Option<Trace<'s>>,
    ) -> Option<Reply> {
        let running = Running {
            id: request.id.clone(),
            cancelled: false,
            answers,
            parkable: copy.is_some(),
            progress: None,
            asked: None,
        };
        // Saved and restored: a `ping` read by a handler's cancellation check runs inside.
        let outer = self.running.replace(running);
        let reply = self.dispatch(request);
        let ran = mem::replace(&mut self.running, outer)?;
        if let (false, Some(question), Some(request)) = (ran.cancelled, ran.asked, copy) {
            let started = trace.map(|trace| trace.started);
            self.park(request, *question, ran.answers.unwrap_or_default(), started);
            return None;
        }
        if ran.cancelled {
            log::debug(format_args!("request {:?} cancelled: no response", ran.id));
        }
        let reply = reply.filter(|_| !ran.cancelled);
        if let Some(trace) = trace {
            // No reply, and not cancelled: an open `subscriptions/listen` stream.
            let none = if ran.cancelled { "cancelled" } else { "stream" };
            trace.end(reply.as_ref().ok_or(none));
        }
        reply
    }

    /// The one `match` on a request's method, after the checks every method shares: its
    /// era, the handshake's state, and whether this server offers it. `None`: no reply (an
    /// open `subscriptions/listen`).
    fn dispatch(&mut self, request: Request) -> Option<Reply> {
        let Request { method, params, .. } = request;
        let name = method;
        let method = Method::parse(&name);
        let mut params = params.unwrap_or_default();
        let meta = request_meta(Some(&params));
        let era = Era::of_request(method, meta);
        let stateless = era == Era::Stateless;
        if let (Some(running), Some(token)) = (self.running.as_mut(), meta) {
            // A `progressToken` is a string or an integer.
            let token = token
                .get("progressToken")
                .filter(|t| t.is_string() || t.is_i64() || t.is_u64());
            running.progress = token.cloned();
        }
        let client = match (era, &self.handshake, method) {
            (Era::Stateless, ..) => handler::stateless_client(&mut params),
            (_, Handshake::New, Some(m)) if m.before_initialize() => {
                Ok(Client::unknown(Version::LATEST_HANDSHAKE))
            }
            (_, Handshake::New, _) => Err(McpError::NotInitialized),
            (_, _, Some(Method::Initialize)) => Err(McpError::AlreadyInitialized),
            (_, Handshake::Initializing(n) | Handshake::Ready(n), _) => Ok(n.client.clone()),
        };
        let client = match client {
            Ok(client) => client,
            Err(e) => return Some(Reply::plain(Err(e), stateless)),
        };
        let served = method.filter(|m| {
            m.only_in().is_none_or(|only| only == era)
                && m.capability().is_none_or(|c| self.server.offers(c))
        });
        let Some(method) = served else {
            return Some(Reply::plain(Err(McpError::MethodNotFound(name)), stateless));
        };
        let json = |outcome: Outcome| outcome.map(Payload::Json);
        let outcome = match method {
            Method::Initialize => json(self.initialize(&params)),
            Method::Ping => Ok(Payload::Json(json!({}))),
            Method::SetLevel => json(self.set_level(&params)),
            Method::ToolsList => json(self.list_tools(&params, &client)),
            Method::ToolsCall => self.call_tool(params, &client),
            Method::PromptsList => json(self.list_prompts(&params, &client)),
            Method::PromptsGet => json(self.get_prompt(params, &client)),
            Method::ResourcesList => json(self.list_resources(&params, &client)),
            Method::TemplatesList => json(self.list_templates(&params, &client)),
            Method::ResourcesRead => json(self.read_resource(params, &client)),
            Method::Subscribe => json(self.subscribe(&params)),
            Method::Unsubscribe => json(self.unsubscribe(&params)),
            Method::Complete => json(self.complete(&params, &client)),
            Method::Discover => json(Ok(self.discover(client.version))),
            Method::Listen => {
                return self
                    .listen(&params)
                    .err()
                    .map(|e| Reply::plain(Err(e), true))
            }
        };
        let mut reply = Reply {
            outcome: outcome.map_err(|e| e.to_object(stateless)),
            tool_call: (method == Method::ToolsCall).then_some(stateless),
        };
        // A tool's result carries what the version asks for already: it is never a tree.
        if let (true, Ok(Payload::Json(result))) = (stateless, &mut reply.outcome) {
            self.decorate(method, result, client.version);
        }
        Some(reply)
    }

    /// The id of the request whose method runs.
    fn running_id(&self) -> RequestId {
        self.running
            .as_ref()
            .map_or(RequestId::Unsigned(0), |r| r.id.clone())
    }

    /// The scope the handler of the running request runs in.
    fn scope(&mut self, client: &Client) -> Scope {
        Scope {
            id: self.running_id(),
            client: client.clone(),
            progress_token: self.running.as_mut().and_then(|r| r.progress.take()),
            last_progress: None,
            request_timeout: self.server.limits.request_timeout,
            result_budget: self.server.limits.max_result_bytes,
            inputs: Inputs::default(),
            notifications: Default::default(),
        }
    }

    /// Runs a handler in `scope`; a panic becomes `None` (→ −32603) instead of ending the
    /// session. A handshake-era handler gets the answers of its earlier runs, and a question
    /// it asks is kept for [`Session::run`] to send.
    fn run_handler<T>(
        &mut self,
        mut scope: Scope,
        handler: impl FnOnce(&mut Context<'_>) -> Result<T, HandlerError>,
    ) -> (Option<Result<T, HandlerError>>, Inputs) {
        let replayed = !scope.client.version.is_stateless();
        let running = self.running.as_mut().filter(|_| replayed);
        if let Some(answers) = running.and_then(|r| r.answers.take()) {
            scope.inputs.answers = answers;
        }
        let mut ctx = Context::new(self, scope);
        let result = panic::catch_unwind(AssertUnwindSafe(|| handler(&mut ctx)));
        let mut inputs = ctx.scope.inputs;
        if result.is_err() {
            log::error(format_args!(
                "a handler panicked; answered with an internal error"
            ));
        }
        let asked = inputs.question.take().filter(|_| replayed);
        if let (Some(running), Some(asked)) = (self.running.as_mut(), asked) {
            running.asked = Some(asked);
            running.answers = Some(mem::take(&mut inputs.answers));
        }
        (result.ok(), inputs)
    }

    /// Writes the reply to request `id`.
    fn send_reply(&mut self, id: &RequestId, reply: Reply) {
        self.scratch.clear();
        let limit = self.server.limits.max_response_bytes;
        let code = encode_reply(id, &reply, limit, &mut self.scratch);
        self.port.send(self.origin, &self.scratch, code);
    }

    /// Writes a message of the server's own to the current origin: a notification, a question,
    /// an error about input that is no request (`code`: its error code).
    fn write(&mut self, message: &impl Serialize, code: Option<i64>) {
        self.scratch.clear();
        match serde_json::to_writer(&mut self.scratch, message) {
            Ok(()) => self.port.send(self.origin, &self.scratch, code),
            Err(e) => log::error(format_args!("a message could not be serialized: {e}")),
        }
    }

    /// Sends a notification now (while a handler runs, the client should see it at once).
    fn notify_now(&mut self, method: &str, params: &Value) {
        self.write(&Outgoing::Notification(method, params), None);
        self.port.flush();
    }

    /// Runs `f` with output going to `origin`, then restores the current origin.
    fn answering<T>(&mut self, origin: Origin, f: impl FnOnce(&mut Self) -> T) -> T {
        let saved = mem::replace(&mut self.origin, origin);
        let result = f(self);
        self.origin = saved;
        result
    }
}

/// Classifies `unit` for a session that negotiated `version` (`None` before `initialize`).
/// Batches exist only in 2025-03-26 (MCP B-11); an empty one is always invalid.
fn sort(unit: Unit, version: Option<Version>) -> Incoming {
    let refuse = |id, error| Rejected {
        id,
        error,
        answer: true,
    };
    let items = match unit.0 {
        Err((error, id)) => return Incoming::Rejected(refuse(id, error)),
        Ok(Value::Array(items)) => items,
        Ok(value) => return classify(value).map_or_else(Incoming::Rejected, Incoming::Single),
    };
    let error = match version {
        _ if items.is_empty() => EnvelopeError::EmptyBatch,
        Some(Version::V2025_03_26) => {
            let items = items.into_iter().map(|item| match item {
                Value::Array(_) => Err(refuse(None, EnvelopeError::NotAnObject)),
                item => classify(item),
            });
            return Incoming::Batch(items.collect());
        }
        Some(_) => EnvelopeError::BatchNotSupported(""),
        None => EnvelopeError::BatchNotSupported("; initialize first"),
    };
    Incoming::Rejected(refuse(None, error))
}

/// Appends the response to `id` to `out`, replaced when it exceeds `limit` (see
/// [`too_large`](tools::too_large)); its error code, when it is an error response (an HTTP port derives the
/// status of a 2026-07-28 answer from it).
fn encode_reply(id: &RequestId, reply: &Reply, limit: usize, out: &mut Vec<u8>) -> Option<i64> {
    let fits = match &reply.outcome {
        Ok(result) => to_json_limited(&Outgoing::Result(ResponseId::Id(id), result), limit, out),
        Err(e) => to_json_limited(&Outgoing::<Value>::Error(ResponseId::Id(id), e), limit, out),
    };
    match fits {
        Ok(()) => reply.outcome.as_ref().err().map(|e| e.code),
        Err(TooLarge(size)) => {
            let replaced = Reply {
                outcome: tools::too_large(reply.tool_call, size, limit),
                tool_call: None,
            };
            encode_reply(id, &replaced, usize::MAX, out)
        }
    }
}
