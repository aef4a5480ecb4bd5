//! The dispatch thread's side of HTTP: the one inbound channel every session reads from,
//! the open [`Exchange`]s, and the [`Port`] through which each session's `Connection` reads
//! its messages and writes its answers to the right exchange.
//!
//! A handler never waits here for a client's answer (a separate POST): the session parks
//! such a request and runs it again when the answer comes (`session::parked`). Messages that
//! arrive while a handler runs wait in a bounded backlog and are served after it returns:
//! dispatch stays on this one thread.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet, VecDeque};
use std::rc::Rc;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::exchange::{Exchange, Resume, RESUME_WINDOW};
use super::reply::{Inbound, Kind, Responder, Route};
use serde_json::Value;

use minimcp::transport::{code, Origin, Polled, Port, Unit, SESSION};

/// How often idle sessions are looked for.
pub(crate) const SWEEP: Duration = Duration::from_secs(1);

/// How long the event stream of a session its client ended (DELETE) stays open, silent,
/// before it is ended. A client closes its stream itself right after its DELETE is
/// answered; a stream's end arriving at that moment is what the Python SDK over a Unix
/// socket (anyio's raw-socket reader) fails on: its read of the stream is cancelled in the
/// same event-loop turn as the socket turns readable, and it prints an `InvalidStateError`
/// traceback. The SDK's own server ends the stream at once too and trips it as well; a
/// client still reading after a second gets the stream's proper end.
const LINGER: Duration = Duration::from_secs(1);

/// State shared by every session's port on the dispatch thread.
pub(crate) struct Hub {
    rx: Receiver<Inbound>,
    /// Arrived while a handler waited, for someone else: served after it returns.
    backlog: VecDeque<Inbound>,
    max_backlog: usize,
    pub(crate) exchanges: HashMap<Origin, Exchange>,
    /// Each session's GET event stream.
    pub(crate) streams: HashMap<String, Origin>,
    /// Sessions whose POST streams have event ids and resume (2025-11-25 and later).
    pub(crate) resumable: HashSet<String>,
    /// Streams of sessions their clients ended, and when each ends ([`LINGER`]).
    ending: Vec<(Origin, Instant)>,
    /// Bytes a stream without a connection may hold for its client.
    max_held: usize,
    /// Streams kept without a connection at once: past it a stream whose client leaves
    /// ends, and a handler's `release_stream` is ignored. Without it a client that posts
    /// and hangs up in a loop would make the server hold `max_held` bytes per call for the
    /// whole resume window; with it they are at most `max_detached × max_held`.
    max_detached: usize,
}

impl Hub {
    pub(crate) fn new(
        rx: Receiver<Inbound>,
        max_backlog: usize,
        max_held: usize,
        max_detached: usize,
    ) -> Self {
        Hub {
            rx,
            backlog: VecDeque::new(),
            max_backlog,
            exchanges: HashMap::new(),
            streams: HashMap::new(),
            resumable: HashSet::new(),
            ending: Vec::new(),
            max_held,
            max_detached,
        }
    }

    /// Whether one more stream may be kept without a connection.
    fn room_to_detach(&self) -> bool {
        let kept = self.exchanges.values().filter(|e| e.detached().is_some());
        kept.count() < self.max_detached
    }

    /// The next inbound message: the backlog first, then the channel, until `deadline`.
    pub(crate) fn next(&mut self, deadline: Option<Instant>) -> Result<Option<Inbound>, ()> {
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

    /// Opens the exchange of a POST (`key`: the legacy session it belongs to), or of a GET.
    pub(crate) fn open(
        &mut self,
        origin: Origin,
        reply: Responder,
        key: Option<&str>,
        stateless: bool,
    ) -> &mut Exchange {
        let resume = key
            .filter(|k| self.resumable.contains(*k))
            .map(|k| Resume::new(k.to_string(), self.max_held));
        let exchange = Exchange::new(origin, reply, stateless, resume);
        self.exchanges
            .entry(origin)
            .insert_entry(exchange)
            .into_mut()
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
    pub(crate) fn gone(&mut self, origin: Origin) {
        let room = self.room_to_detach();
        let kept = match self.exchanges.get_mut(&origin) {
            Some(e) if e.detached().is_some() => true,
            Some(e) => room && e.client_left(),
            None => false,
        };
        if !kept {
            if let Some(exchange) = self.exchanges.remove(&origin) {
                exchange.abandon();
            }
        }
        self.streams.retain(|_, o| *o != origin);
    }

    /// Drops the streams nobody resumed in time, and those of ended sessions.
    /// Returns their origins.
    pub(crate) fn drop_unresumed(&mut self, live: impl Fn(&str) -> bool) -> Vec<Origin> {
        let now = Instant::now();
        let mut dropped = Vec::new();
        self.exchanges.retain(|origin, e| match e.detached() {
            Some((since, session)) => {
                let keep = live(session) && now < since + RESUME_WINDOW;
                if !keep {
                    dropped.push(*origin);
                }
                keep
            }
            None => true,
        });
        dropped
    }

    /// Writes a comment on every event stream quiet for a while (checked each [`SWEEP`]),
    /// except those about to end.
    pub(crate) fn keep_alive(&mut self) {
        let now = Instant::now();
        for (origin, exchange) in self.exchanges.iter_mut() {
            if !self.ending.iter().any(|(o, _)| o == origin) {
                exchange.keep_alive(now);
            }
        }
    }

    /// Ends the stream of `origin` after [`LINGER`], silent until then.
    pub(crate) fn end_later(&mut self, origin: Origin) {
        self.ending.push((origin, Instant::now() + LINGER));
    }

    /// Ends the streams whose [`LINGER`] is over (each [`SWEEP`]); one whose client left
    /// meanwhile is gone already.
    pub(crate) fn end_lingering(&mut self) {
        let now = Instant::now();
        let exchanges = &mut self.exchanges;
        self.ending.retain(|(origin, at)| {
            if now < *at {
                return true;
            }
            if let Some(exchange) = exchanges.remove(origin) {
                exchange.finish();
            }
            false
        });
    }
}

/// The unit of a POST `key`'s port reads (its session's; `None`: the sessionless ones).
fn unit_for<'a>(item: &'a Inbound, key: &Option<String>) -> Option<&'a Unit> {
    let Kind::Post { route, unit } = &item.kind else {
        return None;
    };
    let belongs = match route {
        Route::Session(s) => key.as_ref() == Some(s),
        Route::Stateless => key.is_none(),
        Route::Initialize(_) => false,
    };
    belongs.then_some(unit)
}

/// One session's view of the hub.
pub(crate) struct HttpPort {
    hub: Rc<RefCell<Hub>>,
    key: Option<String>,
}

impl HttpPort {
    /// A port reading `key`'s messages from `hub` (`None`: the sessionless ones).
    pub(crate) fn new(hub: &Rc<RefCell<Hub>>, key: Option<String>) -> Self {
        HttpPort {
            hub: Rc::clone(hub),
            key,
        }
    }
}

impl Port for HttpPort {
    fn request_number(&self, origin: Origin) -> Option<u64> {
        Some(origin)
    }

    fn poll(&mut self, wanted: &dyn Fn(&Value) -> bool) -> Option<Polled> {
        let mut hub = self.hub.borrow_mut();
        // Everything already arrived joins the backlog in order, so a closed stream is seen
        // even behind a request this poll leaves unread.
        while let Ok(item) = hub.rx.try_recv() {
            if let Some(origin) = hub.arrive(item) {
                return Some(Polled::Gone(origin));
            }
        }
        let mut backlog = hub.backlog.iter().enumerate();
        let (at, unit) = backlog.find_map(|(at, item)| Some((at, unit_for(item, &self.key)?)))?;
        if unit.value().is_some_and(|value| !wanted(value)) {
            // Not needed now: it keeps its place, ahead of anything later.
            return None;
        }
        let Some(Inbound {
            origin,
            kind: Kind::Post { unit, .. },
            reply,
        }) = hub.backlog.remove(at)
        else {
            return None; // unreachable: `unit_for` found a POST there
        };
        hub.open(origin, reply, self.key.as_deref(), self.key.is_none());
        Some(Polled::Unit(unit, origin))
    }

    fn send(&mut self, to: Origin, message: &[u8], error: Option<i64>) {
        let mut hub = self.hub.borrow_mut();
        let to = if to == SESSION {
            match self.key.as_ref().and_then(|k| hub.streams.get(k)) {
                Some(origin) => *origin,
                None => return, // no GET stream open: session notifications have nowhere to go
            }
        } else {
            to
        };
        if let Some(exchange) = hub.exchanges.get_mut(&to) {
            let status = if exchange.stateless {
                stateless_status(error)
            } else {
                200
            };
            exchange.send(message, status);
        }
    }

    fn finish(&mut self, to: Origin) {
        let mut hub = self.hub.borrow_mut();
        // A stream without a connection is kept, complete, for its client to resume.
        if let Some(kept) = hub.exchanges.remove(&to).and_then(Exchange::complete) {
            if hub.room_to_detach() {
                hub.exchanges.insert(to, kept);
            } else {
                kept.abandon();
            }
        }
    }

    fn release(&mut self, to: Origin) {
        let mut hub = self.hub.borrow_mut();
        let room = hub.room_to_detach();
        if let Some(exchange) = hub.exchanges.get_mut(&to).filter(|_| room) {
            exchange.release();
        }
    }

    fn flush(&mut self) {
        for exchange in self.hub.borrow_mut().exchanges.values_mut() {
            exchange.flush();
        }
    }
}

/// The HTTP status of a 2026-07-28 reply with JSON-RPC error `code` (none: a result): 404
/// for an unknown method, 400 for the errors the spec gives that status (header mismatch,
/// missing capability, unsupported version).
fn stateless_status(code: Option<i64>) -> u16 {
    match code {
        Some(code::METHOD_NOT_FOUND) => 404,
        Some(code::UNSUPPORTED_PROTOCOL_VERSION..=code::HEADER_MISMATCH) => 400,
        _ => 200,
    }
}
