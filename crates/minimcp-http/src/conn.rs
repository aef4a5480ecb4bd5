//! The I/O threads: accepting connections and, per connection, reading requests, checking
//! everything that needs no session, handing the message to the dispatch thread and writing
//! what it sends back. Nothing here runs a handler.

use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::Arc;
use std::thread;
use std::time::Instant;

use super::access;
use super::config::HttpConfig;
use super::guard::{accepts, check_access};
use super::link::Link;
use super::parse::{Bounds, Request};
use super::reply::{Inbound, Kind, Responder, CLIENT_LEFT};
use super::route::{self, ParamHeaders, Refusal};
use super::slots::{Slot, Slots};
use super::socket::Listener;
use super::wire::{self, refuse, Got, ReadError};
use minimcp::transport::{code as rpc, Origin};
use minimcp::Version;
use minimcp_base::log;

/// I/O threads need little stack: they copy bytes and parse JSON (serde_json's recursion
/// limit of 128 bounds its depth).
pub(crate) const STACK: usize = 256 * 1024;

/// What every I/O thread shares.
pub(crate) struct Shared {
    pub(crate) config: HttpConfig,
    pub(crate) max_body_bytes: usize,
    pub(crate) inbound: Sender<Inbound>,
    pub(crate) next_origin: AtomicU64,
    /// The places for open connections, and who gives one up when they are all taken.
    pub(crate) slots: Slots,
    /// The TCP address listened on, or for a Unix socket `super::UNIX_LOCAL` (which
    /// explains what that means for `check_access`).
    pub(crate) local: SocketAddr,
    /// Per tool, the arguments mirrored in `Mcp-Param-<suffix>` headers (`x-mcp-header`).
    pub(crate) param_headers: ParamHeaders,
}

/// The listening socket, shared by every I/O thread, and how many threads there are.
struct Pool {
    listener: Listener,
    /// I/O threads blocked in `accept`, waiting for a connection.
    accepting: AtomicUsize,
    /// I/O threads alive (at most `max_connections + 1`).
    threads: AtomicUsize,
}

/// Serves connections until the listener fails, at most `max_connections` open at once.
/// Past that, a new connection takes the place of the one that waited longest for a
/// request with nothing in flight, which is closed (see `slots`); when every connection is
/// being served, the newcomer is answered 503 and closed at once (the client may retry;
/// nobody waits in a queue of unknown length). The calling thread becomes the first I/O
/// thread.
///
/// Every idle I/O thread waits in `accept` itself and serves what it accepts: a connection
/// wakes one thread, not an acceptor and then a worker (a thread hop costs about as much
/// CPU as a short request). A thread that takes the last waiting place starts another, so
/// one thread is always accepting, to serve the next connection or refuse it past the
/// limit: at most `max_connections + 1` threads. Threads are kept once started (spawning
/// one per connection would cost more than a short request; an idle one is a few pages).
pub(crate) fn accept(listener: Listener, shared: Arc<Shared>) {
    let pool = Arc::new(Pool {
        listener,
        accepting: AtomicUsize::new(0),
        threads: AtomicUsize::new(1),
    });
    work(&pool, &shared);
}

/// One I/O thread: accept a connection, serve it, repeat.
fn work(pool: &Arc<Pool>, shared: &Arc<Shared>) {
    let config = &shared.config;
    loop {
        pool.accepting.fetch_add(1, Ordering::AcqRel);
        let accepted = pool.listener.accept();
        let others = pool.accepting.fetch_sub(1, Ordering::AcqRel) - 1;
        let Ok(stream) = accepted else {
            continue;
        };
        // Reads wake at least this often to check their deadlines. (A refusal's few bytes
        // go into an empty socket buffer: its write never waits.)
        let _ = stream.set_read_timeout(Some(config.head_timeout.min(config.read_timeout)));
        let _ = stream.set_write_timeout(Some(config.read_timeout));
        let link = Arc::new(Link::new(stream, 2 * shared.max_body_bytes));
        let Some(slot) = shared.slots.admit(&link) else {
            let why = "too many connections; retry shortly";
            let _ = refuse(&mut link.own(), 503, rpc::INTERNAL_ERROR, why, None, true);
            continue;
        };
        if others == 0 {
            spawn(pool, shared);
        }
        serve_connection(&link, slot, shared);
    }
}

/// Starts another I/O thread, unless `max_connections + 1` exist.
fn spawn(pool: &Arc<Pool>, shared: &Arc<Shared>) {
    let limit = shared.config.max_connections + 1;
    if pool.threads.fetch_add(1, Ordering::AcqRel) >= limit {
        pool.threads.fetch_sub(1, Ordering::AcqRel);
        return;
    }
    let (mine, worker) = (Arc::clone(pool), Arc::clone(shared));
    let spawned = thread::Builder::new()
        .name("minimcp-http".into())
        .stack_size(STACK)
        .spawn(move || work(&mine, &worker));
    if let Err(e) = spawned {
        // The threads already started keep accepting once their connections end.
        pool.threads.fetch_sub(1, Ordering::AcqRel);
        log::warn(format_args!("cannot start a connection thread: {e}"));
    }
}

/// Serves requests on one connection until it closes, times out, misbehaves, or is closed
/// to make room for another while it waits (`slot`).
fn serve_connection(link: &Arc<Link>, mut slot: Slot<'_>, shared: &Shared) {
    let config = &shared.config;
    let mut reader = wire::Reader::new(Bounds {
        max_head_bytes: config.max_head_bytes,
        max_headers: config.max_headers,
        max_body_bytes: shared.max_body_bytes,
    });
    // The request last handed to the dispatch thread, and whether it asked to close.
    let mut handed: Option<Origin> = None;
    let mut closing = false;
    // A new connection's first head must come soon; later ones within `read_timeout`.
    let mut head_by = Some(Instant::now() + config.head_timeout);
    loop {
        let waiting = Instant::now();
        let deadline = waiting + config.read_timeout;
        slot.wait();
        let read = read_request(
            &mut reader,
            link,
            shared,
            head_by.unwrap_or(deadline),
            deadline,
        );
        if !slot.served() {
            return; // closed to make room: nothing can be answered, nothing is logged
        }
        let (request, screened) = match read {
            Ok(read) => read,
            Err(Stop::Unread(_, _)) if closing => return, // nothing more is served
            Err(Stop::Unread(head, early)) => {
                let started = Instant::now();
                // Numbered like every request read, though the dispatch thread never sees it.
                let req = shared.next_origin.fetch_add(1, Ordering::Relaxed);
                let answered = answer_early(&mut link.own(), early, true);
                let status = *answered.as_ref().unwrap_or(&CLIENT_LEFT);
                access::write(config, Some(&head), "", Some(req), status, started);
                if answered.is_ok() {
                    linger(link, &mut slot, config);
                }
                return;
            }
            // Waiting for a long answer or an event stream: the client has nothing to say.
            Err(Stop::Read(ReadError::Idle)) if link.is_busy() => continue,
            Err(Stop::Read(ReadError::Idle)) => return,
            Err(Stop::Read(ReadError::Closed | ReadError::Io)) => {
                link.client_left();
                if let Some(origin) = handed.filter(|_| link.is_open()) {
                    // The client left before its answer: the dispatch thread closes the
                    // exchange (and cancels a 2026-07-28 request).
                    let _ = shared.inbound.send(Inbound {
                        origin,
                        kind: Kind::Gone,
                        reply: Responder::none(link),
                    });
                }
                return;
            }
            Err(Stop::Read(ReadError::TimedOut)) => {
                let why = "request not received in time";
                return refuse_unread(link, config, 408, why, waiting);
            }
            Err(Stop::Read(ReadError::Bad(status, why))) => {
                refuse_unread(link, config, status, why, Instant::now());
                return linger(link, &mut slot, config);
            }
        };
        head_by = None;
        slot.next_request();
        if closing {
            continue; // after `Connection: close`, nothing more is served
        }
        // Answers leave in order: a pipelined request waits for the one before it.
        if !link.wait_idle() {
            return;
        }
        let started = Instant::now();
        // Every request read gets a number, which is its origin if the dispatch thread
        // answers it: the access line and the request's own line both carry it (`req=`).
        let origin = shared.next_origin.fetch_add(1, Ordering::Relaxed);
        let mut method = String::new();
        // A failed write means the client left: CLIENT_LEFT in the log, connection closed.
        let req = Some(origin);
        match exchange(
            link,
            shared,
            (&request, screened),
            origin,
            &mut method,
            started,
        ) {
            Ok(Answer::Handed) => handed = Some(origin),
            Ok(Answer::Written(status)) => {
                access::write(config, Some(&request), &method, req, status, started);
            }
            Err(_) => {
                return access::write(config, Some(&request), &method, req, CLIENT_LEFT, started)
            }
        }
        if request.close {
            // The answer's writer closes our side once it is out; reading on notices the
            // client leaving early.
            closing = true;
            if !link.is_busy() {
                return;
            }
        }
    }
}

/// Why [`read_request`] has no request.
enum Stop {
    Read(ReadError),
    /// Refused from its head (here without its body), whose body is unread.
    Unread(Box<Request>, Early),
}

impl From<ReadError> for Stop {
    fn from(e: ReadError) -> Self {
        Stop::Read(e)
    }
}

/// Reads the next request, refusing it from its head before any byte of its body is read
/// when [`screen`] does: a peer without the token, or from a foreign site, cannot make the
/// server read and buffer a body (up to `--max-message-bytes`) on every connection place.
/// The request, and whether it passed `screen` (one without a body is screened later).
fn read_request(
    reader: &mut wire::Reader,
    link: &Link,
    shared: &Shared,
    head_by: Instant,
    deadline: Instant,
) -> Result<(Request, bool), Stop> {
    let mut screened = false;
    loop {
        match reader.next(&mut link.own(), head_by, deadline)? {
            Got::Whole(request) => return Ok((request, screened)),
            Got::Head(head) => {
                if let Err(early) = screen(head, shared) {
                    return Err(Stop::Unread(Box::new(head.clone()), early));
                }
                screened = true;
            }
        }
    }
}

/// After a refusal that leaves bytes of the request unread: ends the answer (the write
/// side is shut, so the client sees it end) and reads and drops what the client still
/// sends, until it closes its side or `--http-head-timeout` passes (`--http-timeout` if
/// shorter). Closing a socket
/// while its peer still sends makes the kernel answer with a reset, and a client that
/// receives the reset before reading its answer loses the answer (why the token was
/// wrong, why the body is too large). Nothing read is kept, and the connection may be
/// closed meanwhile to make room for another, as one waiting for a request.
fn linger(link: &Link, slot: &mut Slot<'_>, config: &HttpConfig) {
    slot.wait();
    link.shut_write();
    let until = Instant::now() + config.head_timeout.min(config.read_timeout);
    let mut sink = [0u8; 4096];
    let mut stream = link.own();
    while Instant::now() < until {
        match io::Read::read(&mut stream, &mut sink) {
            Ok(0) => return,
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) => {}
            Err(_) => return,
        }
    }
}

/// Refuses what could not be read as a request, and closes the connection: where a next
/// request would start is unknown.
fn refuse_unread(link: &Link, config: &HttpConfig, status: u16, why: &str, started: Instant) {
    access::write(config, None, "", None, status, started);
    let _ = refuse(
        &mut link.own(),
        status,
        rpc::INVALID_REQUEST,
        why,
        None,
        true,
    );
}

/// What became of one request.
enum Answer {
    /// Answered here with this status.
    Written(u16),
    /// Handed to the dispatch thread, which writes the answer.
    Handed,
}

/// A request answered on its I/O thread: the dispatch thread never sees it.
enum Early {
    /// A balancer's health check: `200 ok`.
    Healthy,
    /// 405, with the methods that are allowed.
    NotAllowed(&'static str),
    /// An error status with a JSON-RPC error body.
    Refused(Refusal),
}

/// Answers one request (and whether it passed [`screen`] already), or hands it to the
/// dispatch thread.
fn exchange(
    link: &Arc<Link>,
    shared: &Shared,
    (request, screened): (&Request, bool),
    origin: Origin,
    mcp_method: &mut String,
    started: Instant,
) -> io::Result<Answer> {
    let config = &shared.config;
    let kind = match classify((request, screened), shared, mcp_method) {
        Ok(kind) => kind,
        Err(early) => return answer_early(&mut link.own(), early, false).map(Answer::Written),
    };
    link.begin(request.close);
    let access = access::enabled(config)
        .then(|| access::Entry::new(config, Some(request), mcp_method, Some(origin), started));
    let inbound = Inbound {
        origin,
        kind,
        reply: Responder::new(link, access),
    };
    if let Err(mpsc::SendError(inbound)) = shared.inbound.send(inbound) {
        let why = "the server is shutting down";
        inbound.reply.refuse(503, rpc::INTERNAL_ERROR, why);
    }
    Ok(Answer::Handed)
}

/// Writes an answer given on the I/O thread; its status. `close`: the connection closes
/// after it.
fn answer_early(stream: &mut impl io::Write, early: Early, close: bool) -> io::Result<u16> {
    Ok(match early {
        Early::Healthy => {
            wire::write_response(stream, 200, &[], Some("text/plain"), b"ok\n", close)?;
            200
        }
        Early::NotAllowed(allow) => {
            wire::write_response(stream, 405, &[("Allow", allow)], None, b"", close)?;
            405
        }
        Early::Refused((status, code, why, id)) => {
            refuse(stream, status, code, &why, id, close)?;
            status
        }
    })
}

fn invalid(status: u16, why: &str) -> Early {
    Early::Refused((status, rpc::INVALID_REQUEST, why.to_string(), None))
}

/// What is decided from a request's head alone, before its body is read: the health
/// check, then `Host`, `Origin` and the token, then the path and the method. The first
/// checks of [`classify`], in its order, so a request gets the same answer whether its
/// head is judged before its body is read or after.
fn screen(head: &Request, shared: &Shared) -> Result<(), Early> {
    let config = &shared.config;
    // Before Host, Origin and the token: a balancer's health check names the instance by
    // its address (any Host), and the answer reveals nothing but that the process is up.
    if head.path == "/healthz" && head.method == "GET" {
        return Err(Early::Healthy);
    }
    if let Some((status, why)) = check_access(head, config, shared.local) {
        return Err(invalid(status, why));
    }
    if head.path != config.path {
        return Err(invalid(404, "no MCP endpoint here"));
    }
    if !matches!(head.method.as_str(), "POST" | "GET" | "DELETE") {
        return Err(Early::NotAllowed("GET, POST, DELETE"));
    }
    Ok(())
}

/// What a request asks of the dispatch thread, once everything that needs no session is
/// checked, or how it is answered at once.
fn classify(
    (request, screened): (&Request, bool),
    shared: &Shared,
    mcp_method: &mut String,
) -> Result<Kind, Early> {
    let config = &shared.config;
    if !screened {
        screen(request, shared)?;
    }
    let session = request.header("mcp-session-id").map(str::to_string);
    let wants_stream = match request.method.as_str() {
        "POST" => {
            let params = &shared.param_headers;
            return route::post(request, session, mcp_method, config, params)
                .map_err(Early::Refused);
        }
        "GET" => true,
        "DELETE" => false,
        _ => return Err(Early::NotAllowed("GET, POST, DELETE")),
    };
    let version = request.header("mcp-protocol-version");
    if version
        .and_then(Version::parse)
        .is_some_and(Version::is_stateless)
    {
        return Err(Early::NotAllowed("POST")); // 2026-07-28 has no sessions and no GET stream
    }
    if wants_stream && !accepts(request, "text/event-stream") {
        let why = "GET opens an event stream: Accept must include text/event-stream";
        return Err(invalid(406, why));
    }
    let Some(session) = session else {
        return Err(invalid(400, "Mcp-Session-Id header is required"));
    };
    Ok(match wants_stream {
        true => Kind::Get {
            session,
            last_event_id: request.header("last-event-id").map(str::to_string),
        },
        false => Kind::Delete { session },
    })
}
