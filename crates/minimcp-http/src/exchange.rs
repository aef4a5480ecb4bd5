//! One HTTP exchange (a POST, or a GET's event stream) from the dispatch thread's side:
//! what the session core sends to its origin, turned into a response.
//!
//! An exchange answers with `application/json` when its only message is the response, and
//! switches to an event stream as soon as anything must reach the client first (progress,
//! log messages, a request to the client): the first message is held until a second one or
//! the end of the exchange decides, or until the core flushes (which it does before waiting
//! for the client). Its states:
//!
//! ```text
//!          send           send, flush
//!   Open ────────▶ Held ──────────────▶ Streaming ◀──────────┐
//!    │                                  ▲    │ detach        │
//!    └── start_stream (a GET, release) ─┘    ▼               │ resume (a GET
//!                                         Detached ──────────┤ with Last-Event-ID)
//!                                            │ complete      │
//!                                            ▼               │
//!                                         Complete ──────────┘ then ends
//! ```
//!
//! `finish` ends Open with 202, Held with 200 and its message (a 2026-07-28 error: its own
//! status, see `hub`), and Streaming with the stream's last chunk.
//!
//! - **Open**: nothing sent yet.
//! - **Held**: one message waits until the response's form is known.
//! - **Streaming**: the event stream's head went out, then each message as an event.
//! - **Detached**: a resumable stream (2025-11-25, SEP-1699) lost its connection — the
//!   server ended it early (`Context::release_stream`) or the client left — while its
//!   request still runs; events are kept for a GET with `Last-Event-ID` to take over.
//! - **Complete**: detached, and its request is done: the client's resuming GET gets the
//!   rest and the stream's end.
//!
//! Only a stream with event ids (a POST in a 2025-11-25 session) detaches; any other
//! exchange whose client leaves is given up. A detached or complete stream nobody resumes
//! within [`RESUME_WINDOW`] is dropped, and the hub keeps only so many at once.

use std::mem;
use std::time::{Duration, Instant};

use super::reply::Responder;
use super::wire;
use minimcp::transport::Origin;

/// An open event stream gets a comment after this long without anything else, so proxies
/// keep it open and a vanished client is noticed.
const KEEP_ALIVE: Duration = Duration::from_secs(15);
/// The SSE `retry` a 2025-11-25 stream starts with: how long its client waits before
/// resuming it after the server ended it early.
const RETRY_MS: u64 = 500;
/// How long the rest of a stream that lost its connection is kept for the client to resume.
pub(crate) const RESUME_WINDOW: Duration = Duration::from_secs(60);

/// One open HTTP exchange.
pub(crate) struct Exchange {
    origin: Origin,
    /// `Mcp-Session-Id` to send with the response headers (initialize).
    pub(crate) session: Option<String>,
    /// A 2026-07-28 exchange: its client leaving cancels the request, and some errors have
    /// their own HTTP status.
    pub(crate) stateless: bool,
    /// When the stream last carried anything.
    last_write: Instant,
    /// Event ids and resumption, for a POST in a 2025-11-25 session.
    resume: Option<Resume>,
    state: State,
}

/// Where the exchange is (see the module's diagram).
enum State {
    Open(Responder),
    /// `status`: the HTTP status should `first` be the whole response.
    Held {
        reply: Responder,
        first: Vec<u8>,
        status: u16,
    },
    Streaming(Responder),
    Detached {
        since: Instant,
    },
    Complete {
        since: Instant,
    },
    /// Answered completely, or given up: only ever seen while a transition is under way.
    Ended,
}

/// SSE polling and resumption (2025-11-25, SEP-1699): every event of a POST's stream has an
/// id `<origin>-<number>`, the stream starts with a priming event (an id, empty data and a
/// `retry`), and every event is kept until the stream completes, so a GET with
/// `Last-Event-ID` gets every event after that one, then the rest as it comes.
pub(crate) struct Resume {
    /// Only this session's client may resume the stream.
    session: String,
    next: u64,
    /// The events so far, by number.
    events: Vec<(u64, Vec<u8>)>,
    bytes: usize,
    /// At most this many bytes are kept; past it the stream can no longer be resumed.
    max_bytes: usize,
}

impl Resume {
    pub(crate) fn new(session: String, max_bytes: usize) -> Self {
        Resume {
            session,
            next: 0,
            events: Vec::new(),
            bytes: 0,
            max_bytes,
        }
    }

    fn keep(&mut self, number: u64, event: &[u8]) {
        self.bytes += event.len();
        if self.bytes <= self.max_bytes {
            self.events.push((number, event.to_vec()));
        } else {
            self.events = Vec::new(); // too much to replay: resuming fails from now on
        }
    }
}

impl Exchange {
    pub(crate) fn new(
        origin: Origin,
        reply: Responder,
        stateless: bool,
        resume: Option<Resume>,
    ) -> Self {
        Exchange {
            origin,
            session: None,
            stateless,
            last_write: Instant::now(),
            resume,
            state: State::Open(reply),
        }
    }

    /// True while an event stream goes out on a connection.
    pub(crate) fn is_streaming(&self) -> bool {
        matches!(self.state, State::Streaming(_))
    }

    /// When a stream without a connection lost it, and the session that may resume it.
    pub(crate) fn detached(&self) -> Option<(Instant, &str)> {
        let session = &self.resume.as_ref()?.session;
        match self.state {
            State::Detached { since } | State::Complete { since } => Some((since, session)),
            _ => None,
        }
    }

    /// Whether `session`'s client can take this stream over after event `after`: it has no
    /// connection and everything since that event is kept.
    pub(crate) fn can_resume(&self, session: &str, after: u64) -> bool {
        let Some(resume) = &self.resume else {
            return false;
        };
        self.detached().is_some_and(|(_, s)| s == session)
            && resume.bytes <= resume.max_bytes
            && after < resume.next
    }

    /// Sends one message; `status` is the HTTP status should it be the whole response.
    pub(crate) fn send(&mut self, message: &[u8], status: u16) {
        match self.take() {
            State::Open(reply) => {
                let first = message.to_vec();
                self.state = State::Held {
                    reply,
                    first,
                    status,
                };
            }
            held @ State::Held { .. } => {
                self.state = held;
                self.start_stream();
                self.event(Some(message));
            }
            other => {
                self.state = other;
                self.event(Some(message));
            }
        }
    }

    /// Makes a held message visible now: the response becomes an event stream.
    pub(crate) fn flush(&mut self) {
        if matches!(self.state, State::Held { .. }) {
            self.start_stream();
        }
    }

    /// Switches to an event stream (a GET's, or a POST's once it must).
    pub(crate) fn start_stream(&mut self) {
        let (reply, first) = match self.take() {
            State::Open(reply) => (reply, None),
            State::Held { reply, first, .. } => (reply, Some(first)),
            other => {
                self.state = other;
                return;
            }
        };
        let headers: Vec<(&str, &str)> = self
            .session
            .as_deref()
            .map(|s| ("Mcp-Session-Id", s))
            .into_iter()
            .collect();
        let mut bytes = Vec::new();
        let _ = wire::write_stream_head(&mut bytes, &headers);
        self.state = State::Streaming(reply);
        self.write(&bytes);
        if let Some((number, id)) = self.next_id() {
            let mut priming = Vec::new();
            let _ = wire::write_priming_event(&mut priming, &id, RETRY_MS);
            self.write_event(number, &priming);
        }
        if let Some(first) = first {
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
    pub(crate) fn event(&mut self, message: Option<&[u8]>) {
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

    /// Writes on the stream's connection, if it has one.
    fn write(&mut self, bytes: &[u8]) {
        if let State::Streaming(reply) = &self.state {
            reply.send(bytes);
        }
        self.last_write = Instant::now();
    }

    /// Writes a keep-alive comment when the stream was quiet for [`KEEP_ALIVE`].
    pub(crate) fn keep_alive(&mut self, now: Instant) {
        if self.is_streaming() && now >= self.last_write + KEEP_ALIVE {
            self.event(None);
        }
    }

    /// The handler lets the response end early: a resumable exchange becomes a stream (if
    /// it was not one), which ends now; the client resumes it for the rest.
    pub(crate) fn release(&mut self) {
        let connected = matches!(
            self.state,
            State::Open(_) | State::Held { .. } | State::Streaming(_)
        );
        if self.resume.is_some() && connected {
            self.start_stream();
            self.detach(false);
        }
    }

    /// The stream's connection ends (the client left, or the server ends it early) but the
    /// stream is kept for its client to resume. Only a resumable stream can detach.
    fn detach(&mut self, client_left: bool) {
        if self.resume.is_none() || !self.is_streaming() {
            return;
        }
        if let State::Streaming(reply) = self.take() {
            match client_left {
                true => reply.abandon(),
                false => reply.end(wire::STREAM_END, 200),
            }
        }
        self.state = State::Detached {
            since: Instant::now(),
        };
    }

    /// The client went away: a resumable stream is kept for it (true), anything else ends.
    pub(crate) fn client_left(&mut self) -> bool {
        match self.state {
            State::Streaming(_) if self.resume.is_some() => self.detach(true),
            State::Detached { .. } | State::Complete { .. } => {}
            _ => return false,
        }
        true
    }

    /// Gives the exchange up: nothing more is written, and the log says the client left.
    pub(crate) fn abandon(mut self) {
        if let State::Open(reply) | State::Held { reply, .. } | State::Streaming(reply) =
            self.take()
        {
            reply.abandon();
        }
    }

    /// A GET with `Last-Event-ID` (event `after`) takes the stream over: it gets every
    /// event since, then the rest as it comes. Returns the exchange unless it is complete.
    pub(crate) fn resume(mut self, after: u64, reply: Responder) -> Option<Self> {
        let mut bytes = Vec::new();
        let _ = wire::write_stream_head(&mut bytes, &[]);
        if let Some(resume) = &self.resume {
            for (_, event) in resume.events.iter().filter(|(n, _)| *n > after) {
                bytes.extend_from_slice(event);
            }
        }
        let complete = matches!(self.state, State::Complete { .. });
        reply.send(&bytes);
        self.state = State::Streaming(reply);
        self.last_write = Instant::now();
        if complete {
            self.finish();
            return None;
        }
        Some(self)
    }

    /// The core sends nothing more: the response ends, unless the stream has no connection
    /// (or just lost it), where it waits complete for its client to resume it.
    pub(crate) fn complete(mut self) -> Option<Self> {
        if let State::Streaming(reply) = &self.state {
            if reply.is_lost() {
                self.detach(true);
            }
        }
        if let State::Detached { since } = self.state {
            self.state = State::Complete { since };
            return Some(self);
        }
        self.finish();
        None
    }

    /// Ends the exchange: the stream's end, or the whole response.
    pub(crate) fn finish(mut self) {
        let session = self.session.take();
        match self.take() {
            State::Open(reply) => reply.answer(202, None, session.as_deref()),
            State::Held {
                reply,
                first,
                status,
            } => reply.answer(status, Some(&first), session.as_deref()),
            State::Streaming(reply) => reply.end(wire::STREAM_END, 200),
            State::Detached { .. } | State::Complete { .. } | State::Ended => {}
        }
    }

    /// The state, leaving [`State::Ended`] until the caller puts the next one.
    fn take(&mut self) -> State {
        mem::replace(&mut self.state, State::Ended)
    }
}
