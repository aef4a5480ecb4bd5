//! The dispatch thread's side of HTTP: every session's [`Connection`], and the [`Port`]
//! through which each reads its messages from the one inbound channel and writes its
//! answers back to the right HTTP exchange.
//!
//! An exchange (one POST) answers with `application/json` when its only message is the
//! response, and switches to an event stream as soon as anything must reach the client
//! first (progress, log messages, a request to the client): the first message is held
//! until a second one or the end of the exchange decides, or until the core flushes
//! (which it does before waiting for the client).
//!
//! A handler never waits here for a client's answer (a separate POST): the port
//! [`multiplexes`](Port::multiplexes), so the session core parks such a request and runs it
//! again when the answer comes (`session::parked`). Messages that arrive while a handler
//! runs wait in a bounded backlog and are served after it returns: dispatch stays on this
//! one thread.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet, VecDeque};
use std::rc::Rc;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::conn::{Inbound, Kind, Reply, Route};
use super::wire;
use super::HttpConfig;
use crate::error::code;
use crate::error::Error;
use crate::jsonrpc::code as rpc;
use crate::log;
use crate::protocol::Version;
use crate::server::Server;
use crate::session::port::{self, Take};
use crate::session::{Connection, Origin, Port, Received, Unit};

/// How often idle sessions are looked for.
const SWEEP: Duration = Duration::from_secs(1);
/// An open event stream gets a comment after this long without anything else, so proxies
/// keep it open and a vanished client is noticed.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// The SSE `retry` a 2025-11-25 stream starts with: how long its client waits before
/// resuming it after the server ended it early.
const RETRY_MS: u64 = 500;
/// How long the rest of a stream that lost its connection is kept for the client to resume.
const RESUME_WINDOW: Duration = Duration::from_secs(60);

/// One open HTTP exchange, from the dispatch thread's side.
struct Exchange {
    origin: Origin,
    /// Where the answer goes; `None` while a resumable stream has no connection.
    reply: Option<Reply>,
    /// `Mcp-Session-Id` to send with the response headers (initialize).
    session: Option<String>,
    /// The first message, held until the response's form is known.
    pending: Option<Vec<u8>>,
    streaming: bool,
    /// A 2026-07-28 exchange: some errors have their own HTTP status.
    stateless: bool,
    /// When the stream last carried anything.
    last_write: Instant,
    /// Event ids and resumption, for a POST in a 2025-11-25 session.
    resume: Option<Resume>,
}

/// SSE polling and resumption (2025-11-25, SEP-1699): every event of a POST's stream has an
/// id `<origin>-<number>`, the stream starts with a priming event (an id, empty data and a
/// `retry`), and every event is kept until the stream completes, so when its connection ends
/// early — the server ending it (`Context::release_stream`) or the client losing it — a GET
/// with `Last-Event-ID` gets every event after that one, then the rest as it comes.
struct Resume {
    /// Only this session's client may resume the stream.
    session: String,
    next: u64,
    /// The events so far, by number.
    events: Vec<(u64, Vec<u8>)>,
    bytes: usize,
    /// At most this many bytes are kept; past it the stream can no longer be resumed.
    max_bytes: usize,
    /// Since when no connection carries the stream.
    detached: Option<Instant>,
    /// The stream is complete: it ends once resumed.
    done: bool,
}

impl Resume {
    fn keep(&mut self, number: u64, event: &[u8]) {
        self.bytes += event.len();
        if self.bytes <= self.max_bytes {
            self.events.push((number, event.to_vec()));
        } else {
            self.events = Vec::new(); // too much to replay: resuming fails from now on
        }
    }

    /// Whether the client can resume after event `after`: everything since is kept.
    fn can_resume(&self, after: u64) -> bool {
        self.bytes <= self.max_bytes && after < self.next
    }
}

impl Exchange {
    fn start_stream(&mut self) {
        if self.streaming {
            return;
        }
        self.streaming = true;
        let headers: Vec<(&str, &str)> = self
            .session
            .as_deref()
            .map(|s| ("Mcp-Session-Id", s))
            .into_iter()
            .collect();
        let mut bytes = Vec::new();
        let _ = wire::write_stream_head(&mut bytes, &headers);
        self.write(&bytes);
        if let Some((number, id)) = self.next_id() {
            let mut priming = Vec::new();
            let _ = wire::write_priming_event(&mut priming, &id, RETRY_MS);
            self.write_event(number, &priming);
        }
        if let Some(first) = self.pending.take() {
            self.event(Some(&first));
        }
    }

    /// The next event's number and id, when the stream has ids.
    fn next_id(&mut self) -> Option<(u64, String)> {
        let resume = self.resume.as_mut()?;
        resume.next += 1;
        let number = resume.next - 1;
        Some((number, format!("{}-{number}", self.origin)))
    }

    /// One message on the stream, or a keep-alive comment (`None`).
    fn event(&mut self, message: Option<&[u8]>) {
        let id = message.and_then(|_| self.next_id());
        let mut bytes = Vec::new();
        let _ = wire::write_event(&mut bytes, id.as_ref().map(|(_, id)| id.as_str()), message);
        match id {
            Some((number, _)) => self.write_event(number, &bytes),
            None => self.write(&bytes),
        }
    }

    /// Writes an event with an id, kept for a client that resumes.
    fn write_event(&mut self, number: u64, event: &[u8]) {
        if let Some(resume) = self.resume.as_mut() {
            resume.keep(number, event);
        }
        self.write(event);
    }

    fn write(&mut self, bytes: &[u8]) {
        if let Some(reply) = &self.reply {
            reply.send(bytes);
        }
        self.last_write = Instant::now();
    }

    /// Ends the HTTP response now but keeps the stream for its client to resume.
    fn detach(&mut self, client_left: bool) {
        let Some(resume) = self.resume.as_mut() else {
            return;
        };
        resume.detached = Some(Instant::now());
        match self.reply.take() {
            Some(reply) if client_left => reply.abandon(),
            Some(reply) => reply.end(wire::STREAM_END, 200),
            None => {}
        }
    }

    /// A GET with `Last-Event-ID` (event `after`) takes the stream over: it gets every
    /// event since, then the rest as it comes. Returns the exchange unless it is complete.
    fn resume(mut self, after: u64, reply: Reply) -> Option<Self> {
        let resume = self.resume.as_mut()?;
        let mut bytes = Vec::new();
        let _ = wire::write_stream_head(&mut bytes, &[]);
        for (_, event) in resume.events.iter().filter(|(n, _)| *n > after) {
            bytes.extend_from_slice(event);
        }
        resume.detached = None;
        let done = resume.done;
        reply.send(&bytes);
        self.reply = Some(reply);
        self.last_write = Instant::now();
        if done {
            self.finish();
            return None;
        }
        Some(self)
    }

    /// Ends the exchange: the stream's end, or the whole response.
    fn finish(self) {
        let Some(reply) = self.reply else {
            return;
        };
        if self.streaming {
            return reply.end(wire::STREAM_END, 200);
        }
        let status = match &self.pending {
            None => 202,
            Some(body) if self.stateless => stateless_status(body),
            Some(_) => 200,
        };
        let session = self.session.as_deref();
        reply.answer(status, self.pending.as_deref(), session);
    }
}

/// State shared by every session's port on the dispatch thread.
struct Hub {
    rx: Receiver<Inbound>,
    /// Arrived while a handler waited, for someone else: served after it returns.
    backlog: VecDeque<Inbound>,
    max_backlog: usize,
    exchanges: HashMap<Origin, Exchange>,
    /// Each session's GET event stream.
    streams: HashMap<String, Origin>,
    /// Sessions whose POST streams have event ids and resume (2025-11-25 and later).
    resumable: HashSet<String>,
    /// Bytes a stream without a connection may hold for its client.
    max_held: usize,
}

impl Hub {
    /// The next inbound message: the backlog first, then the channel, until `deadline`.
    fn next(&mut self, deadline: Option<Instant>) -> Result<Option<Inbound>, ()> {
        if let Some(item) = self.backlog.pop_front() {
            return Ok(Some(item));
        }
        self.recv(deadline)
    }

    fn recv(&mut self, deadline: Option<Instant>) -> Result<Option<Inbound>, ()> {
        let received = match deadline {
            None => self.rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
            Some(deadline) => self
                .rx
                .recv_timeout(deadline.saturating_duration_since(Instant::now())),
        };
        match received {
            Ok(item) => Ok(Some(item)),
            Err(RecvTimeoutError::Timeout) => Ok(None),
            Err(RecvTimeoutError::Disconnected) => Err(()),
        }
    }

    /// Opens the exchange of a POST (`key`: the legacy session it belongs to).
    fn open(&mut self, origin: Origin, reply: Reply, key: Option<&str>, stateless: bool) {
        let resume = key.filter(|k| self.resumable.contains(*k)).map(|k| Resume {
            session: k.to_string(),
            next: 0,
            events: Vec::new(),
            bytes: 0,
            max_bytes: self.max_held,
            detached: None,
            done: false,
        });
        self.exchanges.insert(
            origin,
            Exchange {
                origin,
                reply: Some(reply),
                session: None,
                pending: None,
                streaming: false,
                stateless,
                last_write: Instant::now(),
                resume,
            },
        );
    }

    /// Holds `item` for later, or refuses it when the backlog is full.
    fn defer(&mut self, item: Inbound) {
        if self.backlog.len() < self.max_backlog {
            self.backlog.push_back(item);
            return;
        }
        let why = "server busy: too many requests waiting; retry";
        item.reply.refuse(503, code::OVERLOADED, why);
    }

    /// Takes in one message while a handler runs: into the backlog (bounded), except that a
    /// closed stream closes its exchange at once. Returns the origin when that cancels a
    /// 2026-07-28 request (a legacy disconnection is not a cancellation).
    fn arrive(&mut self, item: Inbound) -> Option<Origin> {
        if !matches!(item.kind, Kind::Gone) {
            self.defer(item);
            return None;
        }
        let origin = item.origin;
        let cancels = self.exchanges.get(&origin).is_some_and(|e| e.stateless);
        self.gone(origin);
        // The sessions learn of it after the handler (listen streams it held).
        self.backlog.push_back(item);
        cancels.then_some(origin)
    }

    /// The client of `origin` went away: its exchange ends, unless it is a stream the
    /// client may resume.
    fn gone(&mut self, origin: Origin) {
        match self.exchanges.get_mut(&origin) {
            Some(e) if e.streaming && e.resume.is_some() => e.detach(true),
            Some(_) => {
                if let Some(reply) = self.exchanges.remove(&origin).and_then(|e| e.reply) {
                    reply.abandon();
                }
            }
            None => {}
        }
        self.streams.retain(|_, o| *o != origin);
    }

    /// Drops the streams nobody resumed in time, and those of ended sessions.
    /// Returns their origins.
    fn drop_unresumed(&mut self, live: impl Fn(&str) -> bool) -> Vec<Origin> {
        let now = Instant::now();
        let mut dropped = Vec::new();
        self.exchanges.retain(|origin, e| match &e.resume {
            Some(r) if r.detached.is_some() => {
                let keep =
                    live(&r.session) && r.detached.is_some_and(|at| now < at + RESUME_WINDOW);
                if !keep {
                    dropped.push(*origin);
                }
                keep
            }
            _ => true,
        });
        dropped
    }

    /// Writes a comment on every event stream quiet for [`KEEP_ALIVE`] (checked each
    /// [`SWEEP`]).
    fn keep_alive(&mut self) {
        let now = Instant::now();
        for exchange in self.exchanges.values_mut() {
            if exchange.streaming && now >= exchange.last_write + KEEP_ALIVE {
                exchange.event(None);
            }
        }
    }
}

/// Which inbound messages a port reads: those of its session (`None`: sessionless).
fn belongs(item: &Inbound, key: &Option<String>) -> bool {
    match (&item.kind, key) {
        (
            Kind::Post {
                route: Route::Session(s),
                ..
            },
            Some(k),
        ) => s == k,
        (
            Kind::Post {
                route: Route::Stateless,
                ..
            },
            None,
        ) => true,
        _ => false,
    }
}

/// One session's view of the hub.
struct HttpPort {
    hub: Rc<RefCell<Hub>>,
    key: Option<String>,
}

impl Port for HttpPort {
    fn receive(
        &mut self,
        deadline: Option<Instant>,
        take: Option<Take<'_>>,
    ) -> Result<Received, Error> {
        let mut hub = self.hub.borrow_mut();
        loop {
            // Everything already arrived joins the backlog in order, so a closed stream is
            // seen even behind a request this wait leaves unread.
            while let Ok(item) = hub.rx.try_recv() {
                if let Some(origin) = hub.arrive(item) {
                    return Ok(Received::Gone(origin));
                }
            }
            if let Some(at) = hub.backlog.iter().position(|i| belongs(i, &self.key)) {
                let Some(Inbound {
                    origin,
                    kind: Kind::Post { route, unit },
                    reply,
                }) = hub.backlog.remove(at)
                else {
                    continue;
                };
                if let (Some(take), Ok(value)) = (take, &unit) {
                    if !take(value) {
                        // Not needed now: it keeps its place, ahead of anything later.
                        let kind = Kind::Post { route, unit };
                        hub.backlog.insert(
                            at,
                            Inbound {
                                origin,
                                kind,
                                reply,
                            },
                        );
                        return Ok(Received::Left);
                    }
                }
                hub.open(origin, reply, self.key.as_deref(), self.key.is_none());
                return Ok(Received::Unit(unit, origin));
            }
            // Waking each SWEEP keeps other streams alive while a handler waits long.
            let wake = Instant::now() + SWEEP;
            match hub.recv(Some(deadline.map_or(wake, |d| d.min(wake)))) {
                Ok(Some(item)) => {
                    if let Some(origin) = hub.arrive(item) {
                        return Ok(Received::Gone(origin));
                    }
                }
                Ok(None) if deadline.is_some_and(|d| Instant::now() >= d) => {
                    return Ok(Received::Idle)
                }
                Ok(None) => {
                    hub.keep_alive();
                }
                Err(()) => return Ok(Received::Closed),
            }
        }
    }

    fn send(&mut self, to: Origin, message: &[u8]) {
        let mut hub = self.hub.borrow_mut();
        let to = if to == port::SESSION {
            match self.key.as_ref().and_then(|k| hub.streams.get(k)) {
                Some(origin) => *origin,
                None => return, // no GET stream open: session notifications have nowhere to go
            }
        } else {
            to
        };
        let Some(exchange) = hub.exchanges.get_mut(&to) else {
            return;
        };
        if exchange.streaming {
            exchange.event(Some(message));
        } else if exchange.pending.is_some() {
            exchange.start_stream();
            exchange.event(Some(message));
        } else {
            exchange.pending = Some(message.to_vec());
        }
    }

    fn finish(&mut self, to: Origin) {
        let mut hub = self.hub.borrow_mut();
        let Some(mut exchange) = hub.exchanges.remove(&to) else {
            return;
        };
        // A stream whose client left (before the hub heard) is kept for it to resume.
        if exchange.streaming && exchange.reply.as_ref().is_some_and(Reply::is_lost) {
            exchange.detach(true);
        }
        if let Some(resume) = exchange.resume.as_mut().filter(|r| r.detached.is_some()) {
            resume.done = true; // delivered when the client resumes
            hub.exchanges.insert(to, exchange);
            return;
        }
        drop(hub);
        exchange.finish();
    }

    fn release(&mut self, to: Origin) {
        let mut hub = self.hub.borrow_mut();
        if let Some(exchange) = hub.exchanges.get_mut(&to) {
            if exchange.resume.is_some() && exchange.reply.is_some() {
                exchange.start_stream();
                exchange.detach(false);
            }
        }
    }

    fn flush(&mut self) -> Result<(), Error> {
        for exchange in self.hub.borrow_mut().exchanges.values_mut() {
            if exchange.pending.is_some() {
                exchange.start_stream();
            }
        }
        Ok(())
    }

    fn is_closed(&self) -> bool {
        false
    }

    fn multiplexes(&self) -> bool {
        true
    }
}

/// The HTTP status of a 2026-07-28 reply: 404 for an unknown method, 400 for the errors
/// the spec gives that status (header mismatch, missing capability, unsupported version).
fn stateless_status(body: &[u8]) -> u16 {
    // Only error responses are parsed again, and only their code is read.
    if !body.starts_with(b"{\"jsonrpc\":\"2.0\",\"id\"") || !contains(body, b"\"error\":") {
        return 200;
    }
    let code = serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v["error"]["code"].as_i64());
    match code {
        Some(rpc::METHOD_NOT_FOUND) => 404,
        Some(code::UNSUPPORTED_PROTOCOL_VERSION..=code::HEADER_MISMATCH) => 400,
        _ => 200,
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// A legacy session and when it was last used.
struct Entry<'s> {
    conn: Connection<'s>,
    last_used: Instant,
}

/// Runs the dispatch loop until every I/O thread is gone.
pub(crate) fn run(server: &Server, config: &HttpConfig, rx: Receiver<Inbound>) {
    let hub = Rc::new(RefCell::new(Hub {
        rx,
        backlog: VecDeque::new(),
        max_backlog: server.limits.max_queued_requests,
        exchanges: HashMap::new(),
        streams: HashMap::new(),
        resumable: HashSet::new(),
        max_held: 2 * server.limits.max_message_bytes,
    }));
    let mut dispatch = Dispatch {
        stateless: Connection::new(server, port(&hub, None)),
        sessions: HashMap::new(),
        hub,
        server,
        config,
        next_sweep: Instant::now() + SWEEP,
    };
    loop {
        let deadline = dispatch.deadline();
        let next = dispatch.hub.borrow_mut().next(Some(deadline));
        match next {
            Ok(Some(item)) => dispatch.inbound(item),
            Ok(None) => {}
            Err(()) => return, // every I/O thread is gone
        }
        dispatch.poll();
        dispatch.sweep();
    }
}

/// A port reading `key`'s messages from the hub (`None`: the sessionless ones).
fn port(hub: &Rc<RefCell<Hub>>, key: Option<String>) -> Box<dyn Port> {
    Box::new(HttpPort {
        hub: Rc::clone(hub),
        key,
    })
}

/// Everything the dispatch loop owns. Each kind of inbound message has its own method,
/// so each HTTP method's rules (404 for an unknown session, 503 past the limit) read
/// on their own. Fields drop in order: the connections first, as `run`'s locals did.
struct Dispatch<'s> {
    /// The one connection serving every 2026-07-28 (sessionless) request.
    stateless: Connection<'s>,
    /// Legacy sessions by `Mcp-Session-Id`.
    sessions: HashMap<String, Entry<'s>>,
    hub: Rc<RefCell<Hub>>,
    server: &'s Server,
    config: &'s HttpConfig,
    next_sweep: Instant,
}

impl<'s> Dispatch<'s> {
    /// When to stop waiting for a message: the earliest poll due, or the next sweep.
    fn deadline(&self) -> Instant {
        self.sessions
            .values()
            .filter_map(|e| e.conn.next_poll())
            .chain(self.stateless.next_poll())
            .fold(self.next_sweep, Instant::min)
    }

    fn inbound(&mut self, item: Inbound) {
        let Inbound {
            origin,
            kind,
            reply,
        } = item;
        match kind {
            Kind::Post {
                route: Route::Session(id),
                unit,
            } => self.post(&id, unit, origin, reply),
            Kind::Post {
                route: Route::Initialize(prefix),
                unit,
            } => self.initialize(prefix.as_deref(), unit, origin, reply),
            Kind::Post {
                route: Route::Stateless,
                unit,
            } => {
                self.hub.borrow_mut().open(origin, reply, None, true);
                serve(&mut self.stateless, unit, origin);
            }
            Kind::Get {
                session,
                last_event_id,
            } => match last_event_id {
                Some(id) => self.resume(session, &id, origin, reply),
                None => self.listen(session, origin, reply),
            },
            Kind::Delete { session } => self.delete(&session, reply),
            Kind::Gone => self.gone(origin),
        }
    }

    /// A POST within a legacy session.
    fn post(&mut self, id: &str, unit: Unit, origin: Origin, reply: Reply) {
        let Some(entry) = self.sessions.get_mut(id) else {
            return refuse(reply, 404, "unknown or expired session; initialize again");
        };
        entry.last_used = Instant::now();
        self.hub.borrow_mut().open(origin, reply, Some(id), false);
        serve(&mut entry.conn, unit, origin);
    }

    /// A POST without a session id: a legacy `initialize`, which starts a session.
    fn initialize(&mut self, prefix: Option<&str>, unit: Unit, origin: Origin, reply: Reply) {
        if self.sessions.len() >= self.config.max_sessions {
            return reply.refuse(503, code::OVERLOADED, "too many sessions; retry later");
        }
        let id = session_id(prefix);
        {
            let mut hub = self.hub.borrow_mut();
            hub.open(origin, reply, None, false);
            if let Some(exchange) = hub.exchanges.get_mut(&origin) {
                exchange.session = Some(id.clone());
            }
        }
        let mut conn = Connection::new(self.server, port(&self.hub, Some(id.clone())));
        serve(&mut conn, unit, origin);
        // A failed initialize leaves no session behind.
        if let Some(negotiated) = conn.session.negotiated() {
            if negotiated.version >= Version::V2025_11_25 {
                self.hub.borrow_mut().resumable.insert(id.clone());
            }
            log::info(format_args!("session {} started", log_tag(&id)));
            self.sessions.insert(
                id,
                Entry {
                    conn,
                    last_used: Instant::now(),
                },
            );
        }
    }

    /// A GET opens the session's standalone event stream rather than answering 405:
    /// `resources/updated` and `list_changed` notifications belong to no request, and the
    /// SDK clients open this stream to receive them (one per session; a new one replaces
    /// the old).
    fn listen(&mut self, session: String, origin: Origin, reply: Reply) {
        let Some(entry) = self.sessions.get_mut(&session) else {
            return refuse(reply, 404, "unknown or expired session");
        };
        entry.last_used = Instant::now();
        let mut hub = self.hub.borrow_mut();
        if let Some(old) = hub.streams.insert(session, origin) {
            if let Some(old) = hub.exchanges.remove(&old) {
                old.finish();
            }
        }
        hub.open(origin, reply, None, false);
        if let Some(exchange) = hub.exchanges.get_mut(&origin) {
            exchange.start_stream();
        }
    }

    /// A GET with `Last-Event-ID`: the client resumes a POST's stream that lost its
    /// connection. An id this session has no stream for opens the standalone stream.
    fn resume(&mut self, session: String, last_event_id: &str, origin: Origin, reply: Reply) {
        let (stream, after) = match last_event_id.split_once('-') {
            Some((o, n)) => (o.parse::<Origin>().ok(), n.parse::<u64>().ok()),
            None => (None, None),
        };
        let mut hub = self.hub.borrow_mut();
        let resumable = stream.zip(after).filter(|(o, after)| {
            hub.exchanges.get(o).is_some_and(|e| {
                e.reply.is_none()
                    && e.resume
                        .as_ref()
                        .is_some_and(|r| r.session == session && r.can_resume(*after))
            })
        });
        let Some((stream, after)) = resumable else {
            drop(hub);
            return self.listen(session, origin, reply);
        };
        if let Some(entry) = self.sessions.get_mut(&session) {
            entry.last_used = Instant::now();
        }
        if let Some(exchange) = hub.exchanges.remove(&stream) {
            if let Some(exchange) = exchange.resume(after, reply) {
                hub.exchanges.insert(stream, exchange);
            }
        }
    }

    /// A DELETE: the client ends its session.
    fn delete(&mut self, session: &str, reply: Reply) {
        if self.sessions.remove(session).is_none() {
            return refuse(reply, 404, "unknown or expired session");
        }
        end_session(&self.hub, session);
        reply.answer(200, None, None);
    }

    /// A client went away: every connection forgets what it owed that origin.
    fn gone(&mut self, origin: Origin) {
        let kept = {
            let mut hub = self.hub.borrow_mut();
            hub.gone(origin);
            hub.exchanges.contains_key(&origin)
        };
        self.stateless.origin_gone(origin);
        for entry in self.sessions.values_mut() {
            entry.conn.origin_gone(origin);
            if !kept {
                // Nobody can receive its answer: a parked request there ends now rather
                // than holding memory until its question times out.
                entry.conn.drop_parked_at(origin);
            }
        }
    }

    /// Polls the watched resources of every connection whose poll is due.
    fn poll(&mut self) {
        for entry in self.sessions.values_mut() {
            entry.conn.poll_if_due();
        }
        self.stateless.poll_if_due();
    }

    /// Once per [`SWEEP`], ends the sessions unused for `session_idle` and keeps quiet
    /// event streams alive.
    fn sweep(&mut self) {
        if Instant::now() < self.next_sweep {
            return;
        }
        self.next_sweep = Instant::now() + SWEEP;
        {
            let mut hub = self.hub.borrow_mut();
            hub.keep_alive();
            let dropped = hub.drop_unresumed(|session| self.sessions.contains_key(session));
            drop(hub);
            for origin in dropped {
                for entry in self.sessions.values_mut() {
                    entry.conn.drop_parked_at(origin);
                }
            }
        }
        let idle = self.config.session_idle;
        let expired: Vec<String> = self
            .sessions
            .iter()
            .filter(|(_, e)| e.last_used.elapsed() >= idle)
            .map(|(id, _)| id.clone())
            .collect();
        for id in expired {
            log::info(format_args!("session {} expired", log_tag(&id)));
            self.sessions.remove(&id);
            end_session(&self.hub, &id);
        }
    }
}

/// Answers a request that names no live session (or is otherwise refused) at once.
fn refuse(reply: Reply, status: u16, why: &str) {
    reply.refuse(status, rpc::INVALID_REQUEST, why);
}

/// Handles one unit, then whatever its handler queued.
fn serve(conn: &mut Connection<'_>, unit: Unit, origin: Origin) {
    conn.handle(unit, origin);
    while conn.serve_queued() {}
}

/// Closes the GET stream of an ended session.
fn end_session(hub: &Rc<RefCell<Hub>>, session: &str) {
    let mut hub = hub.borrow_mut();
    hub.resumable.remove(session);
    if let Some(origin) = hub.streams.remove(session) {
        if let Some(exchange) = hub.exchanges.remove(&origin) {
            exchange.finish();
        }
    }
}

/// 128 bits from the OS's randomness, as 32 hex digits (visible ASCII, as the spec asks),
/// after `<route>.` when a balancer routes sessions by that prefix (the random part stays
/// the server's, so a client choosing the route cannot fixate a session).
fn session_id(route: Option<&str>) -> String {
    let random = crate::encoding::hex(&crate::server::random_key()[..16]);
    match route {
        Some(route) => format!("{route}.{random}"),
        None => random,
    }
}

/// What the log says about a session: a fingerprint that lets lines be matched up, never the
/// id itself, which is the client's credential for the session.
fn log_tag(id: &str) -> String {
    let digest = crate::encoding::sha256_hex(id.as_bytes());
    format!("#{}", &digest[..12])
}
