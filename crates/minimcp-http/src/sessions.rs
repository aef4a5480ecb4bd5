//! The dispatch loop: the legacy sessions by `Mcp-Session-Id`, the one connection serving
//! every 2026-07-28 request, and what each kind of inbound request does to them (404 for
//! an unknown session, 503 past the limit, a GET's stream, a DELETE's end).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::mpsc::Receiver;
use std::time::Instant;

use super::config::HttpConfig;
use super::hub::{HttpPort, Hub, SWEEP};
use super::reply::{Inbound, Kind, Responder, Route};
use minimcp::transport::{code, Origin, Port, Session, Unit};
use minimcp::{Server, Version};
use minimcp_base::log;

/// A legacy session and when it was last used.
struct Entry<'s> {
    conn: Session<'s>,
    last_used: Instant,
}

/// Runs the dispatch loop until every I/O thread is gone.
pub(crate) fn run(server: &Server, config: &HttpConfig, rx: Receiver<Inbound>) {
    let hub = Rc::new(RefCell::new(Hub::new(
        rx,
        server.limits().max_queued_requests,
        2 * server.limits().max_message_bytes,
        config.max_connections,
    )));
    let mut dispatch = Dispatch {
        stateless: Session::new(server, port(&hub, None)),
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
        // The request and access lines of this turn, in one write.
        log::flush();
    }
}

/// A port reading `key`'s messages from the hub (`None`: the sessionless ones).
fn port(hub: &Rc<RefCell<Hub>>, key: Option<String>) -> Box<dyn Port> {
    Box::new(HttpPort::new(hub, key))
}

/// Everything the dispatch loop owns. Each kind of inbound message has its own method,
/// so each HTTP method's rules (404 for an unknown session, 503 past the limit) read
/// on their own. Fields drop in order: the connections first, as `run`'s locals did.
struct Dispatch<'s> {
    /// The one connection serving every 2026-07-28 (sessionless) request.
    stateless: Session<'s>,
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
            .filter_map(|e| e.conn.deadline())
            .chain(self.stateless.deadline())
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
                self.stateless.receive(unit, origin);
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
    fn post(&mut self, id: &str, unit: Unit, origin: Origin, reply: Responder) {
        let Some(entry) = self.sessions.get_mut(id) else {
            return refuse(reply, 404, "unknown or expired session; initialize again");
        };
        entry.last_used = Instant::now();
        self.hub.borrow_mut().open(origin, reply, Some(id), false);
        entry.conn.receive(unit, origin);
    }

    /// A POST without a session id: a legacy `initialize`, which starts a session.
    fn initialize(&mut self, prefix: Option<&str>, unit: Unit, origin: Origin, reply: Responder) {
        if self.sessions.len() >= self.config.max_sessions {
            return reply.refuse(503, code::OVERLOADED, "too many sessions; retry later");
        }
        let id = session_id(prefix);
        let mut hub = self.hub.borrow_mut();
        hub.open(origin, reply, None, false).session = Some(id.clone());
        drop(hub);
        let mut conn = Session::new(self.server, port(&self.hub, Some(id.clone())));
        conn.receive(unit, origin);
        // A failed initialize leaves no session behind.
        if let Some(version) = conn.version() {
            if version >= Version::V2025_11_25 {
                self.hub.borrow_mut().resumable.insert(id.clone());
            }
            log::info(format_args!(
                "session {} started ({})",
                conn.number(),
                log_tag(&id)
            ));
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
    fn listen(&mut self, session: String, origin: Origin, reply: Responder) {
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
        hub.open(origin, reply, None, false).start_stream();
    }

    /// A GET with `Last-Event-ID`: the client resumes a POST's stream that lost its
    /// connection. An id this session has no stream for opens the standalone stream.
    fn resume(&mut self, session: String, last_event_id: &str, origin: Origin, reply: Responder) {
        let (stream, after) = match last_event_id.split_once('-') {
            Some((o, n)) => (o.parse::<Origin>().ok(), n.parse::<u64>().ok()),
            None => (None, None),
        };
        let mut hub = self.hub.borrow_mut();
        let resumable = stream.zip(after).filter(|(o, after)| {
            (hub.exchanges.get(o)).is_some_and(|e| e.can_resume(&session, *after))
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
    fn delete(&mut self, session: &str, reply: Responder) {
        let Some(entry) = self.sessions.remove(session) else {
            return refuse(reply, 404, "unknown or expired session");
        };
        log::info(format_args!(
            "session {} ended by its client",
            entry.conn.number()
        ));
        // Its client closes the event stream itself: ending it now would race that.
        if let Some(origin) = end_session(&self.hub, session) {
            self.hub.borrow_mut().end_later(origin);
        }
        reply.answer(200, None, None);
    }

    /// A client went away: every connection forgets what it owed that origin.
    fn gone(&mut self, origin: Origin) {
        let kept = {
            let mut hub = self.hub.borrow_mut();
            hub.gone(origin);
            hub.exchanges.contains_key(&origin)
        };
        self.stateless.left(origin);
        for entry in self.sessions.values_mut() {
            entry.conn.left(origin);
            if !kept {
                // Nobody can receive its answer: a parked request there ends now rather
                // than holding memory until its question times out.
                entry.conn.abandon(origin);
            }
        }
    }

    /// Runs the timers of every session that has one due.
    fn poll(&mut self) {
        let now = Instant::now();
        let sessions = self.sessions.values_mut().map(|e| &mut e.conn);
        for session in sessions.chain([&mut self.stateless]) {
            if session.deadline().is_some_and(|due| now >= due) {
                session.tick();
            }
        }
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
            hub.end_lingering();
            hub.keep_alive();
            let dropped = hub.drop_unresumed(|session| self.sessions.contains_key(session));
            drop(hub);
            for origin in dropped {
                for entry in self.sessions.values_mut() {
                    entry.conn.abandon(origin);
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
            if let Some(entry) = self.sessions.remove(&id) {
                log::info(format_args!("session {} expired", entry.conn.number()));
            }
            if let Some(origin) = end_session(&self.hub, &id) {
                if let Some(exchange) = self.hub.borrow_mut().exchanges.remove(&origin) {
                    exchange.finish();
                }
            }
        }
    }
}

/// Answers a request that names no live session (or is otherwise refused) at once.
fn refuse(reply: Responder, status: u16, why: &str) {
    reply.refuse(status, code::INVALID_REQUEST, why);
}

/// Forgets an ended session's streams; the origin of its GET stream, if it has one open,
/// for the caller to end.
fn end_session(hub: &Rc<RefCell<Hub>>, session: &str) -> Option<Origin> {
    let mut hub = hub.borrow_mut();
    hub.resumable.remove(session);
    hub.streams.remove(session)
}

/// 128 bits from the OS's randomness, as 32 hex digits (visible ASCII, as the spec asks),
/// after `<route>.` when a balancer routes sessions by that prefix (the random part stays
/// the server's, so a client choosing the route cannot fixate a session).
fn session_id(route: Option<&str>) -> String {
    let random = minimcp_base::encoding::hex(&minimcp_base::encoding::random_key()[..16]);
    match route {
        Some(route) => format!("{route}.{random}"),
        None => random,
    }
}

/// What the log says about a session: a fingerprint that lets lines be matched up, never the
/// id itself, which is the client's credential for the session.
fn log_tag(id: &str) -> String {
    let digest = minimcp_base::encoding::sha256_hex(id.as_bytes());
    format!("#{}", &digest[..12])
}
