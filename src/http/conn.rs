//! The I/O threads: accepting connections and, per connection, reading requests, checking
//! everything that needs no session, handing the message to the dispatch thread and writing
//! what it sends back. Nothing here runs a handler.

use std::collections::HashMap;
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::access;
use super::grammar;
use super::link::Link;
use super::parse::{Bounds, Request};
use super::socket::{Listener, Stream};
use super::wire::{self, error_body, refuse, response, ReadError};
use super::HttpConfig;
use crate::encoding::constant_time_eq;
use crate::error::code;
use crate::jsonrpc::code as rpc;
use crate::log;
use crate::protocol::{self, Version};
use crate::session::port::{self, Origin, Unit};

/// I/O threads need little stack: they copy bytes and parse JSON (serde_json's recursion
/// limit of 128 bounds its depth).
pub(crate) const STACK: usize = 256 * 1024;

/// What every I/O thread shares.
pub(crate) struct Shared {
    pub(crate) config: HttpConfig,
    pub(crate) max_body_bytes: usize,
    pub(crate) inbound: Sender<Inbound>,
    pub(crate) next_origin: AtomicU64,
    pub(crate) open: AtomicUsize,
    /// The TCP address listened on, or for a Unix socket `super::UNIX_LOCAL` (which
    /// explains what that means for `check_access`).
    pub(crate) local: SocketAddr,
    /// Per tool, the arguments mirrored in `Mcp-Param-<suffix>` headers (`x-mcp-header`).
    pub(crate) param_headers: HashMap<String, Vec<(String, String)>>,
}

/// One message for the dispatch thread, with the connection its answer is written to.
pub(crate) struct Inbound {
    pub(crate) origin: Origin,
    pub(crate) kind: Kind,
    pub(crate) reply: Reply,
}

/// Where a message's answer goes. Every request is answered exactly once: a `Reply`
/// dropped unanswered (which would be a bug) still ends its exchange, with 503, rather than
/// leave the client waiting.
pub(crate) struct Reply {
    link: Arc<Link>,
    /// The access line, written once the answer is out (when the access log is on).
    access: Option<access::Entry>,
    done: bool,
}

impl Reply {
    fn new(link: &Arc<Link>, access: Option<access::Entry>) -> Self {
        Reply {
            link: Arc::clone(link),
            access,
            done: false,
        }
    }

    /// Nothing is owed on `link` (a client's leaving is news, not a request).
    fn none(link: &Arc<Link>) -> Self {
        Reply {
            link: Arc::clone(link),
            access: None,
            done: true,
        }
    }

    /// True once the client can no longer receive the answer.
    pub(crate) fn is_lost(&self) -> bool {
        self.link.is_lost()
    }

    /// Writes part of the answer.
    pub(crate) fn send(&self, bytes: &[u8]) {
        self.link.send(bytes);
    }

    /// Writes the rest of the answer; `status` is what the access log says.
    pub(crate) fn end(mut self, bytes: &[u8], status: u16) {
        self.link.end(bytes);
        self.done = true;
        if let Some(entry) = self.access.take() {
            entry.write(status);
        }
    }

    /// Answers at once with a complete response: JSON when there is a body, else empty.
    pub(crate) fn answer(self, status: u16, body: Option<&[u8]>, session: Option<&str>) {
        self.end(&response(status, body, session), status);
    }

    /// Answers at once with an error status and a JSON-RPC error without an id.
    pub(crate) fn refuse(self, status: u16, code: i64, why: &str) {
        self.answer(status, Some(&error_body(code, why, None)), None);
    }

    /// The client left before its answer was complete: nothing more is written, and the
    /// log says [`CLIENT_LEFT`].
    pub(crate) fn abandon(mut self) {
        self.done = true;
        if let Some(entry) = self.access.take() {
            entry.write(CLIENT_LEFT);
        }
    }
}

impl Drop for Reply {
    fn drop(&mut self) {
        if !self.done {
            self.done = true;
            let body = error_body(rpc::INTERNAL_ERROR, "the request was dropped", None);
            self.link.end(&response(503, Some(&body), None));
            if let Some(entry) = self.access.take() {
                entry.write(503);
            }
        }
    }
}

/// What the access log says of an exchange whose client closed the connection before the
/// answer was complete (even when an event stream's `200` head had gone out): nginx's 499,
/// which log readers know, rather than a status no response had.
pub(crate) const CLIENT_LEFT: u16 = 499;

/// What arrived.
pub(crate) enum Kind {
    /// A POSTed JSON-RPC message (or batch).
    Post { route: Route, unit: Unit },
    /// A GET opening the session's event stream, or resuming a POST's stream after the
    /// event `last_event_id` (`Last-Event-ID`).
    Get {
        session: String,
        last_event_id: Option<String>,
    },
    /// A DELETE ending the session.
    Delete { session: String },
    /// The client went away before its answer was complete.
    Gone,
}

/// Which session a POST belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Route {
    /// The legacy session named by `Mcp-Session-Id`.
    Session(String),
    /// An `initialize` without a session: it starts one, whose id begins with the
    /// balancer's routing key if one came (`--session-route-header`).
    Initialize(Option<String>),
    /// Sessionless: 2026-07-28 requests, and notifications or responses without a session.
    Stateless,
}

/// The listening socket, shared by every I/O thread, and how many threads there are.
struct Pool {
    listener: Listener,
    /// I/O threads blocked in `accept`, waiting for a connection.
    accepting: AtomicUsize,
    /// I/O threads alive (at most `max_connections + 1`).
    threads: AtomicUsize,
}

/// Serves connections until the listener fails, at most `max_connections` open at once;
/// past that, a connection is answered 503 and closed at once (the client may retry; nobody
/// waits in a queue of unknown length). The calling thread becomes the first I/O thread.
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
    loop {
        pool.accepting.fetch_add(1, Ordering::AcqRel);
        let accepted = pool.listener.accept();
        let others = pool.accepting.fetch_sub(1, Ordering::AcqRel) - 1;
        let Ok(mut stream) = accepted else {
            continue;
        };
        if shared.open.fetch_add(1, Ordering::AcqRel) >= shared.config.max_connections {
            shared.open.fetch_sub(1, Ordering::AcqRel);
            log::warn(format_args!(
                "refused a connection: {} open",
                shared.config.max_connections
            ));
            let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
            let _ = refuse(
                &mut stream,
                503,
                rpc::INTERNAL_ERROR,
                "too many connections; retry shortly",
                true,
            );
            continue;
        }
        if others == 0 {
            spawn(pool, shared);
        }
        serve_connection(stream, shared);
        shared.open.fetch_sub(1, Ordering::AcqRel);
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

/// Serves requests on one connection until it closes, times out, or misbehaves.
fn serve_connection(stream: Stream, shared: &Shared) {
    let config = &shared.config;
    let _ = stream.set_read_timeout(Some(config.read_timeout));
    let _ = stream.set_write_timeout(Some(config.read_timeout));
    let link = Arc::new(Link::new(stream, 2 * shared.max_body_bytes));
    let mut reader = wire::Reader::new(Bounds {
        max_head_bytes: config.max_head_bytes,
        max_headers: config.max_headers,
        max_body_bytes: shared.max_body_bytes,
    });
    // The request last handed to the dispatch thread, and whether it asked to close.
    let mut handed: Option<Origin> = None;
    let mut closing = false;
    loop {
        let deadline = Instant::now() + config.read_timeout;
        let request = match reader.read(&mut link.own(), deadline) {
            Ok(request) => request,
            // Waiting for a long answer or an event stream: the client has nothing to say.
            Err(ReadError::Idle) if link.is_busy() => continue,
            Err(ReadError::Idle) => return,
            Err(ReadError::Closed) | Err(ReadError::Io) => {
                link.client_left();
                if let Some(origin) = handed.filter(|_| link.is_open()) {
                    // The client left before its answer: the dispatch thread closes the
                    // exchange (and cancels a 2026-07-28 request).
                    let _ = shared.inbound.send(Inbound {
                        origin,
                        kind: Kind::Gone,
                        reply: Reply::none(&link),
                    });
                }
                return;
            }
            Err(ReadError::TimedOut) => {
                if access::enabled(config) {
                    access::write(config, None, "", 408, config.read_timeout);
                }
                let _ = refuse(
                    &mut link.own(),
                    408,
                    rpc::INVALID_REQUEST,
                    "request not received in time",
                    true,
                );
                return;
            }
            Err(ReadError::Bad(status, why)) => {
                if access::enabled(config) {
                    access::write(config, None, "", status, Duration::ZERO);
                }
                let _ = refuse(&mut link.own(), status, rpc::INVALID_REQUEST, why, true);
                return;
            }
        };
        if closing {
            continue; // after `Connection: close`, nothing more is served
        }
        // Answers leave in order: a pipelined request waits for the one before it.
        if !link.wait_idle() {
            return;
        }
        let started = Instant::now();
        let mut method = String::new();
        // A failed write means the client left: CLIENT_LEFT in the log, connection closed.
        match exchange(&link, shared, &request, &mut method, started) {
            Ok(Answer::Handed(origin)) => handed = Some(origin),
            Ok(Answer::Written(status)) => {
                if access::enabled(config) {
                    access::write(config, Some(&request), &method, status, started.elapsed());
                }
            }
            Err(_) => {
                if access::enabled(config) {
                    let took = started.elapsed();
                    access::write(config, Some(&request), &method, CLIENT_LEFT, took);
                }
                return;
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

/// What became of one request.
enum Answer {
    /// Answered here with this status.
    Written(u16),
    /// Handed to the dispatch thread, which writes the answer.
    Handed(Origin),
}

/// Answers one request, or hands it to the dispatch thread.
fn exchange(
    link: &Arc<Link>,
    shared: &Shared,
    request: &Request,
    mcp_method: &mut String,
    started: Instant,
) -> io::Result<Answer> {
    let config = &shared.config;
    let stream = &mut link.own();
    // Before Host, Origin and the token: a balancer's health check names the instance by
    // its address (any Host), and the answer reveals nothing but that the process is up.
    if request.path == "/healthz" && request.method == "GET" {
        wire::write_response(stream, 200, &[], Some("text/plain"), b"ok\n", false)?;
        return Ok(Answer::Written(200));
    }
    if let Some((status, why)) = check_access(request, config, shared.local) {
        refuse(stream, status, rpc::INVALID_REQUEST, why, false)?;
        return Ok(Answer::Written(status));
    }
    if request.path != config.path {
        refuse(
            stream,
            404,
            rpc::INVALID_REQUEST,
            "no MCP endpoint here",
            false,
        )?;
        return Ok(Answer::Written(404));
    }
    let session = request.header("mcp-session-id").map(str::to_string);
    let kind = match request.method.as_str() {
        "POST" => match post(request, session, mcp_method, shared) {
            Ok(kind) => kind,
            Err((status, code, why, id)) => {
                let body = error_body(code, &why, id);
                wire::write_response(stream, status, &[], Some("application/json"), &body, false)?;
                return Ok(Answer::Written(status));
            }
        },
        "GET" | "DELETE"
            if request
                .header("mcp-protocol-version")
                .and_then(Version::parse)
                .is_some_and(Version::is_stateless) =>
        {
            // 2026-07-28 has no sessions and no GET stream.
            wire::write_response(stream, 405, &[("Allow", "POST")], None, b"", false)?;
            return Ok(Answer::Written(405));
        }
        "GET" | "DELETE" => {
            let wants_stream = request.method == "GET";
            if wants_stream && !accepts(request, "text/event-stream") {
                refuse(
                    stream,
                    406,
                    rpc::INVALID_REQUEST,
                    "GET opens an event stream: Accept must include text/event-stream",
                    false,
                )?;
                return Ok(Answer::Written(406));
            }
            let Some(session) = session else {
                refuse(
                    stream,
                    400,
                    rpc::INVALID_REQUEST,
                    "Mcp-Session-Id header is required",
                    false,
                )?;
                return Ok(Answer::Written(400));
            };
            if wants_stream {
                let last_event_id = request.header("last-event-id").map(str::to_string);
                Kind::Get {
                    session,
                    last_event_id,
                }
            } else {
                Kind::Delete { session }
            }
        }
        _ => {
            wire::write_response(
                stream,
                405,
                &[("Allow", "GET, POST, DELETE")],
                None,
                b"",
                false,
            )?;
            return Ok(Answer::Written(405));
        }
    };
    let origin = shared.next_origin.fetch_add(1, Ordering::Relaxed);
    link.begin(request.close);
    let access =
        access::enabled(config).then(|| access::Entry::new(config, request, mcp_method, started));
    let inbound = Inbound {
        origin,
        kind,
        reply: Reply::new(link, access),
    };
    if let Err(mpsc::SendError(inbound)) = shared.inbound.send(inbound) {
        let why = "the server is shutting down";
        inbound.reply.refuse(503, rpc::INTERNAL_ERROR, why);
    }
    Ok(Answer::Handed(origin))
}

type Refusal = (u16, i64, String, Option<Value>);

/// Checks a POST and works out where it goes.
fn post(
    request: &Request,
    session: Option<String>,
    mcp_method: &mut String,
    shared: &Shared,
) -> Result<Kind, Refusal> {
    let refuse = |status, why: &str| Err((status, rpc::INVALID_REQUEST, why.to_string(), None));
    if !(accepts(request, "application/json") && accepts(request, "text/event-stream")) {
        return refuse(
            406,
            "Accept must include both application/json and text/event-stream",
        );
    }
    let content_type = request.header("content-type").unwrap_or_default();
    let json = "application/json";
    if !content_type
        .get(..json.len())
        .is_some_and(|t| t.eq_ignore_ascii_case(json))
    {
        return refuse(415, "Content-Type must be application/json");
    }
    let header_version = request.header("mcp-protocol-version");
    let unit = port::parse(&request.body);
    let value = match &unit {
        Ok(value) => value,
        Err((error, _)) => return Err((400, rpc::PARSE_ERROR, error.to_string(), None)),
    };
    let method = value.get("method").and_then(Value::as_str);
    mcp_method.push_str(method.unwrap_or_default());
    let params = value.get("params").and_then(Value::as_object);
    let body_version = protocol::request_meta(params)
        .and_then(|m| m.get(protocol::meta::PROTOCOL_VERSION))
        .and_then(Value::as_str);
    let stateless = body_version.is_some()
        || header_version
            .and_then(Version::parse)
            .is_some_and(Version::is_stateless)
        || matches!(method, Some("server/discover" | "subscriptions/listen"));
    let id = || value.get("id").cloned();
    if stateless {
        if let Err(why) = check_stateless(
            request,
            value,
            header_version,
            body_version,
            &shared.param_headers,
        ) {
            return Err((400, code::HEADER_MISMATCH, why, id()));
        }
        let meta = protocol::request_meta(params);
        let complete = meta.is_some_and(|m| {
            m.contains_key(protocol::meta::PROTOCOL_VERSION)
                && m.contains_key(protocol::meta::CLIENT_CAPABILITIES)
        });
        if method.is_some()
            && value.get("id").is_some()
            && !complete
            && method != Some("initialize")
        {
            return Err((
                400,
                rpc::INVALID_PARAMS,
                "invalid params: a 2026-07-28 request needs params._meta with \"io.modelcontextprotocol/protocolVersion\" and \"io.modelcontextprotocol/clientCapabilities\"".into(),
                id(),
            ));
        }
        if method == Some("initialize") {
            return Err((
                404,
                rpc::METHOD_NOT_FOUND,
                "method not found: 2026-07-28 has no initialize; call server/discover".into(),
                id(),
            ));
        }
        return Ok(Kind::Post {
            route: Route::Stateless,
            unit,
        });
    }
    if let Some(version) = header_version {
        if Version::parse(version).is_none() {
            return Err((
                400,
                rpc::INVALID_REQUEST,
                "unsupported MCP-Protocol-Version header".into(),
                id(),
            ));
        }
    }
    let route = if let Some(session) = session {
        Route::Session(session)
    } else if method == Some("initialize") {
        let header = shared.config.session_route_header.as_deref();
        Route::Initialize(
            session_route(request, header).map_err(|why| (400, rpc::INVALID_REQUEST, why, id()))?,
        )
    } else if method.is_some() && value.get("id").is_some() {
        return Err((
            400,
            rpc::INVALID_REQUEST,
            "Mcp-Session-Id header is required: send initialize first".into(),
            id(),
        ));
    } else {
        Route::Stateless
    };
    Ok(Kind::Post { route, unit })
}

/// The balancer's routing key for a new session: 1–64 lowercase hex digits (what nginx's
/// `$request_id` is), so the session id stays visible ASCII and the balancer's `map` can
/// find it again. Absent (no balancer in front): a plain id.
fn session_route(request: &Request, header: Option<&str>) -> Result<Option<String>, String> {
    let Some(value) = header.and_then(|h| request.header(h)) else {
        return Ok(None);
    };
    let valid = (1..=64).contains(&value.len())
        && value
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    if !valid {
        return Err(format!(
            "the session routing header {} must be 1-64 lowercase hex digits",
            header.unwrap_or_default()
        ));
    }
    Ok(Some(value.to_string()))
}

/// The 2026-07-28 routing headers: `MCP-Protocol-Version` equals the body's version,
/// `Mcp-Method` the method, `Mcp-Name` the tool, prompt or resource, and every
/// `Mcp-Param-*` the argument it mirrors (`x-mcp-header`). Values may be sent as
/// `=?base64?…?=`.
fn check_stateless(
    request: &Request,
    value: &Value,
    header_version: Option<&str>,
    body_version: Option<&str>,
    param_headers: &HashMap<String, Vec<(String, String)>>,
) -> Result<(), String> {
    if let Some(body) = body_version {
        if header_version.map(str::trim) != Some(body) {
            return Err(format!(
                "header mismatch: MCP-Protocol-Version must equal params._meta protocolVersion ({body})"
            ));
        }
    }
    let Some(method) = value.get("method").and_then(Value::as_str) else {
        return Ok(()); // a response
    };
    let given = header(request, "mcp-method")?;
    if given.as_deref() != Some(method) {
        return Err(format!("header mismatch: Mcp-Method must be {method:?}"));
    }
    let params = value.get("params");
    let name = match method {
        "tools/call" | "prompts/get" => params.and_then(|p| p.get("name")),
        "resources/read" => params.and_then(|p| p.get("uri")),
        _ => return Ok(()),
    };
    if let Some(name) = name.and_then(Value::as_str) {
        if header(request, "mcp-name")?.as_deref().map(str::trim) != Some(name) {
            return Err(format!("header mismatch: Mcp-Name must be {name:?}"));
        }
    }
    if method != "tools/call" {
        return Ok(());
    }
    let tool = name.and_then(Value::as_str).unwrap_or_default();
    let arguments = params.and_then(|p| p.get("arguments"));
    for (property, suffix) in param_headers.get(tool).into_iter().flatten() {
        let expected = match arguments.and_then(|a| a.get(property)) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => Some(other.to_string()),
        };
        let given = header(request, &format!("mcp-param-{suffix}"))?;
        if given != expected {
            return Err(format!(
                "header mismatch: Mcp-Param-{suffix} must mirror the argument {property:?}"
            ));
        }
    }
    Ok(())
}

/// A routing header's value: `=?base64?…?=` decoded (strictly), else the literal text.
fn header(request: &Request, name: &str) -> Result<Option<String>, String> {
    let Some(raw) = request.header(name) else {
        return Ok(None);
    };
    match raw
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
    {
        Some(encoded) => crate::encoding::base64_decode(encoded)
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .map(Some)
            .ok_or_else(|| format!("header mismatch: {name} is not valid =?base64?…?=")),
        None => Ok(Some(raw.to_string())),
    }
}

/// True when the `Accept` header admits `media` (a missing header admits nothing).
fn accepts(request: &Request, media: &str) -> bool {
    let Some(accept) = request.header("accept") else {
        return false;
    };
    let (kind, _) = media.split_once('/').unwrap_or((media, ""));
    accept.split(',').any(|item| {
        let item = item.split(';').next().unwrap_or_default().trim();
        // `kind/*` is matched in place: this runs twice per POST, so no string is built.
        let wildcard = item
            .strip_suffix("/*")
            .is_some_and(|k| k == "*" || k.eq_ignore_ascii_case(kind));
        item.eq_ignore_ascii_case(media) || wildcard
    })
}

/// `Host`, `Origin` and the bearer token. DNS rebinding: a page on a foreign site can
/// reach a loopback server through the browser, but its requests carry the foreign `Host`
/// (or `Origin`); both must name this machine unless explicitly allowed. The reader has
/// already refused a second `Host`, `Origin` or `Authorization`, and a `Host` that is not
/// RFC 3986 `host [ ":" port ]`.
fn check_access(
    request: &Request,
    config: &HttpConfig,
    local: SocketAddr,
) -> Option<(u16, &'static str)> {
    if let Some(token) = &config.token {
        if !constant_time_eq(bearer(request).as_bytes(), token.as_bytes()) {
            return Some((401, "missing or wrong bearer token"));
        }
    }
    if local.ip().is_loopback() {
        match request.header("host") {
            Some(host) if is_loopback_host(host) => {}
            Some(_) => return Some((403, "Host header does not name this machine")),
            None => return Some((400, "Host header is required")),
        }
        // An absolute-form target names the host instead (RFC 9112 §3.2.2): it too.
        if let Some(authority) = &request.authority {
            if !is_loopback_host(authority) {
                return Some((403, "the request target does not name this machine"));
            }
        }
    }
    if let Some(origin) = request.header("origin") {
        // RFC 6454 §6.2: `scheme "://" host [ ":" port ]`, or `null` (an opaque origin,
        // never this machine's).
        if origin == "null" {
            return Some((403, "Origin not allowed"));
        }
        let Some((scheme, host)) = split_origin(origin) else {
            return Some((400, "malformed Origin header"));
        };
        let allowed = config.allowed_origins.iter().any(|o| o == origin)
            || (matches!(scheme, "http" | "https") && is_loopback_host(host));
        if !allowed {
            return Some((403, "Origin not allowed"));
        }
    }
    None
}

/// The token of `Authorization: Bearer <token>`: the scheme in any case (RFC 9110
/// §11.1), then one or more spaces; empty when there is none.
fn bearer(request: &Request) -> &str {
    let value = request.header("authorization").unwrap_or_default();
    match value.get(..7) {
        Some(scheme) if scheme.eq_ignore_ascii_case("bearer ") => {
            value[7..].trim_start_matches(' ')
        }
        _ => "",
    }
}

/// An RFC 6454 serialized origin's scheme (lowercase ASCII as browsers send it) and
/// `host [ ":" port ]`: no userinfo, path, query or anything after.
fn split_origin(origin: &str) -> Option<(&str, &str)> {
    let (scheme, host) = origin.split_once("://")?;
    let mut bytes = scheme.bytes();
    let scheme_ok = bytes.next().is_some_and(|b| b.is_ascii_alphabetic())
        && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'));
    (scheme_ok && grammar::split_host(host).is_some()).then_some((scheme, host))
}

/// `localhost`, `127.0.0.0/8` or `[::1]`, with or without a port; `host` is a valid RFC
/// 3986 `host [ ":" port ]` or not loopback.
fn is_loopback_host(host: &str) -> bool {
    let Some((name, _)) = grammar::split_host(host) else {
        return false;
    };
    // No lowercase copy: this runs on every request.
    name.eq_ignore_ascii_case("localhost")
        || name
            .strip_prefix('[')
            .and_then(|n| n.strip_suffix(']'))
            .and_then(|n| n.parse::<std::net::Ipv6Addr>().ok())
            .is_some_and(|ip| ip.is_loopback())
        || name
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::io::Read;

    #[test]
    fn a_reply_dropped_unanswered_still_answers_503_once() {
        let (link, mut client) = super::super::link::tests::pair(1024);
        let wait = Some(Duration::from_secs(5));
        client.set_read_timeout(wait).expect("timeout");
        link.begin(true);
        drop(Reply::new(&link, None));
        // A reply taken care of writes nothing more.
        link.begin(true);
        Reply::new(&link, None).abandon();
        let mut all = String::new();
        client.read_to_string(&mut all).expect("read to the close");
        assert!(all.starts_with("HTTP/1.1 503 "), "{all}");
        assert!(all.contains("the request was dropped"), "{all}");
        assert_eq!(all.matches("HTTP/1.1").count(), 1, "{all}");
    }

    fn stateless_call(headers: &[(&str, &str)], region: Option<&str>) -> Result<(), String> {
        let request = Request {
            method: "POST".into(),
            path: "/mcp".into(),
            authority: None,
            headers: headers
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
            body: Vec::new(),
            close: false,
        };
        let mut arguments = json!({});
        if let Some(region) = region {
            arguments["region"] = json!(region);
        }
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "weather", "arguments": arguments,
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}});
        let params = HashMap::from([(
            "weather".to_string(),
            vec![("region".to_string(), "region".to_string())],
        )]);
        check_stateless(
            &request,
            &body,
            Some("2026-07-28"),
            Some("2026-07-28"),
            &params,
        )
    }

    #[test]
    fn routing_headers_must_mirror_the_body() {
        let base = [("Mcp-Method", "tools/call"), ("Mcp-Name", " weather ")];
        let with = |extra: &[(&'static str, &'static str)], region| {
            let mut headers = base.to_vec();
            headers.extend_from_slice(extra);
            stateless_call(&headers, region)
        };
        assert_eq!(with(&[], None), Ok(()));
        assert_eq!(
            with(
                &[("Mcp-Param-Region", "=?base64?SGVsbG8=?=")],
                Some("Hello")
            ),
            Ok(())
        );
        assert_eq!(
            with(&[("mcp-param-region", "SGVsbG8=")], Some("SGVsbG8=")),
            Ok(())
        );
        assert_eq!(
            with(
                &[("Mcp-Param-Region", "=?base64?SGVsbG8=")],
                Some("=?base64?SGVsbG8=")
            ),
            Ok(())
        );
        assert!(with(&[("Mcp-Param-Region", "=?base64?SGVsbG8?=")], Some("Hello")).is_err());
        assert!(with(
            &[("Mcp-Param-Region", "=?base64?SGVs!!!bG8=?=")],
            Some("Hello")
        )
        .is_err());
        assert!(with(&[], Some("test-value")).is_err(), "header missing");
        assert!(
            stateless_call(&[("Mcp-Method", "tools/call")], None).is_err(),
            "no Mcp-Name"
        );
        assert!(stateless_call(
            &[("Mcp-Method", "TOOLS/CALL"), ("Mcp-Name", "weather")],
            None
        )
        .is_err());
        assert!(
            stateless_call(&[("Mcp-Name", "weather")], None).is_err(),
            "no Mcp-Method"
        );
        assert!(
            stateless_call(&[("Mcp-Method", "tools/call"), ("Mcp-Name", "other")], None).is_err()
        );
    }

    #[test]
    fn a_session_route_is_hex_from_the_configured_header_only() {
        let with = |value: &str| Request {
            method: "POST".into(),
            path: "/mcp".into(),
            authority: None,
            headers: vec![("X-Mcp-Route".into(), value.into())],
            body: Vec::new(),
            close: false,
        };
        let key = "0123456789abcdef0123456789abcdef";
        assert_eq!(
            session_route(&with(key), Some("x-mcp-route")),
            Ok(Some(key.into()))
        );
        assert_eq!(session_route(&with(key), None), Ok(None));
        for bad in ["", "ABC", "12.34", "xyz", &"a".repeat(65)] {
            assert!(
                session_route(&with(bad), Some("X-Mcp-Route")).is_err(),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn accept_matches_types_and_wildcards_case_insensitively() {
        let with = |accept: &str| Request {
            method: "POST".into(),
            path: "/mcp".into(),
            authority: None,
            headers: vec![("Accept".into(), accept.into())],
            body: Vec::new(),
            close: false,
        };
        let json = "application/json";
        for yes in [
            json,
            "Application/JSON",
            "application/*",
            "*/*",
            "text/html, APPLICATION/*;q=0.5",
        ] {
            assert!(accepts(&with(yes), json), "{yes}");
        }
        for no in [
            "text/event-stream",
            "application/xml",
            "app/*",
            "*",
            "application/json*",
            "",
        ] {
            assert!(!accepts(&with(no), json), "{no}");
        }
    }

    #[test]
    fn loopback_hosts_with_and_without_ports() {
        for host in [
            "localhost",
            "LOCALHOST:8080",
            "127.0.0.1:1",
            "127.0.0.1",
            "127.1.2.3:",
            "[::1]:9",
            "[::1]",
            "[0:0:0:0:0:0:0:1]",
        ] {
            assert!(is_loopback_host(host), "{host}");
        }
        for host in [
            "evil.example.com",
            "evil.example.com:80",
            "10.0.0.1:80",
            "localhost.evil",
            "[::2]",
            "127.0.0.01",
            "localhost:1@evil.example",
            "127.0.0.1:80@evil.example",
            "localhost/x",
            "",
        ] {
            assert!(!is_loopback_host(host), "{host}");
        }
    }

    fn access(headers: &[(&str, &str)], authority: Option<&str>, token: bool) -> Option<u16> {
        let request = Request {
            method: "POST".into(),
            path: "/mcp".into(),
            authority: authority.map(str::to_string),
            headers: headers
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
            body: Vec::new(),
            close: false,
        };
        let mut config = HttpConfig::new(SocketAddr::from(([127, 0, 0, 1], 0)));
        config.allowed_origins = vec!["https://app.example".into()];
        if token {
            config.token = Some("s3cret".into());
        }
        check_access(&request, &config, SocketAddr::from(([127, 0, 0, 1], 0)))
            .map(|(status, _)| status)
    }

    #[test]
    fn origin_is_a_serialized_origin_and_null_is_foreign() {
        let with = |origin: &str| access(&[("Host", "localhost"), ("Origin", origin)], None, false);
        for ok in [
            "http://localhost",
            "https://127.0.0.1:5173",
            "http://[::1]:80",
            "https://app.example",
        ] {
            assert_eq!(with(ok), None, "{ok}");
        }
        for foreign in [
            "null",
            "http://evil.example",
            "ftp://localhost",
            "https://app.example:1",
        ] {
            assert_eq!(with(foreign), Some(403), "{foreign}");
        }
        for malformed in [
            "http://localhost:1@evil.example",
            "http://user@localhost",
            "http://localhost/",
            "http://localhost/path",
            "http://localhost?x",
            "localhost",
            "http:/localhost",
            "://localhost",
            "1http://localhost",
            "http://",
            "http://local host",
        ] {
            assert_eq!(with(malformed), Some(400), "{malformed}");
        }
    }

    #[test]
    fn an_absolute_target_names_this_machine_too() {
        let host = [("Host", "localhost")];
        assert_eq!(access(&host, Some("127.0.0.1:8080"), false), None);
        assert_eq!(access(&host, Some("evil.example"), false), Some(403));
        assert_eq!(
            access(&[("Host", "evil.example")], Some("localhost"), false),
            Some(403)
        );
        assert_eq!(
            access(&[], Some("localhost"), false),
            Some(400),
            "Host still required"
        );
    }

    #[test]
    fn the_bearer_scheme_is_case_insensitive_with_one_or_more_spaces() {
        let with = |value: &str| {
            access(
                &[("Host", "localhost"), ("Authorization", value)],
                None,
                true,
            )
        };
        for ok in ["Bearer s3cret", "bearer s3cret", "BEARER   s3cret"] {
            assert_eq!(with(ok), None, "{ok}");
        }
        for wrong in [
            "Bearer s3cre",
            "Bearers3cret",
            "Bearer\ts3cret",
            "Basic s3cret",
            "s3cret",
            "Bearer s3cret x",
            "Bearer",
            "",
        ] {
            assert_eq!(with(wrong), Some(401), "{wrong}");
        }
        assert_eq!(access(&[("Host", "localhost")], None, true), Some(401));
    }
}
