//! Streamable HTTP: `minimcp serve --http ADDR:PORT`, with `std::net` only.
//!
//! Two kinds of threads, so the session core stays single-threaded:
//!
//! - **I/O threads** (one per open connection, at most [`HttpConfig::max_connections`],
//!   plus one waiting in `accept`; each accepts the connection it then serves): they read
//!   and check HTTP (sizes, timeouts, `Host`, `Origin`, the token, headers), parse the JSON
//!   body and hand it to the dispatch thread with the connection's `link`, then read on.
//!   A connection whose client reads slowly also gets a writer thread for as long as its
//!   answer waits for the client (see `link`). None of them runs a handler: a slow or
//!   hostile client can only ever tie up its own threads.
//! - **The dispatch thread** (the caller of [`serve`]) owns every session and runs
//!   dispatch and every handler, one at a time, exactly as over stdio: each session is a
//!   `Connection` over a `Port` that reads from the shared inbound channel (see `hub`). It
//!   writes answers itself, never waiting for a client, and a handler that asks its client
//!   for input (sampling, elicitation, roots) is parked until the answer arrives instead of
//!   blocking, so one client that never answers holds up no other (`session::parked`).
//!
//! Blocking I/O per connection rather than a poll loop: `std` has no portable readiness
//! API, and a bounded set of threads that only copy bytes costs little memory (small
//! stacks) while keeping every step a plain, readable function.

mod access;
mod conn;
mod hub;
mod link;
mod wire;

use std::collections::HashMap;
use std::net::{SocketAddr, TcpListener};
use std::sync::atomic::{AtomicU64, AtomicUsize};
use std::sync::mpsc;
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use crate::error::Error;
use crate::log;
use crate::server::Server;

/// How the HTTP transport listens, and its limits. Every limit is in the README.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpConfig {
    /// Where to listen (`--http`); loopback unless `allow_remote`.
    pub addr: SocketAddr,
    /// The MCP endpoint (`--http-path`, default `/mcp`).
    pub path: String,
    /// Open connections at once; one more is answered 503 and closed.
    pub max_connections: usize,
    /// Legacy-era sessions at once; one more `initialize` is answered 503.
    pub max_sessions: usize,
    /// A session unused this long is ended (its id then gets 404).
    pub session_idle: Duration,
    /// A request must arrive whole within this time, and an idle keep-alive connection is
    /// closed after it (slow and half-open clients never hold a thread for longer).
    pub read_timeout: Duration,
    /// Bytes of request line plus headers; more is answered 431.
    pub max_head_bytes: usize,
    /// Header lines per request; more is answered 431.
    pub max_headers: usize,
    /// Serve a non-loopback address (needs `token`).
    pub allow_remote: bool,
    /// The bearer token every request must carry (`Authorization: Bearer …`).
    pub token: Option<String>,
    /// Extra `Origin` values accepted besides loopback ones (`--allow-origin`).
    pub allowed_origins: Vec<String>,
    /// Write an access line per request whatever the log level (`--access-log`).
    pub access_log: bool,
    /// This instance's name in access lines (`--instance-id`).
    pub instance_id: Option<String>,
    /// The header carrying the balancer's routing key (`--session-route-header`): new
    /// session ids start with it, so the balancer can hash later requests to this instance.
    pub session_route_header: Option<String>,
}

impl HttpConfig {
    /// Defaults for listening on `addr`.
    pub fn new(addr: SocketAddr) -> Self {
        HttpConfig {
            addr,
            path: "/mcp".into(),
            max_connections: 64,
            max_sessions: 256,
            session_idle: Duration::from_secs(30 * 60),
            read_timeout: Duration::from_secs(30),
            max_head_bytes: 16 * 1024,
            max_headers: 64,
            allow_remote: false,
            token: None,
            allowed_origins: Vec::new(),
            access_log: false,
            instance_id: None,
            session_route_header: None,
        }
    }
}

/// Why the HTTP server cannot start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HttpError {
    /// A non-loopback address without `allow_remote` and a token.
    #[error("{0} is not a loopback address: pass --allow-remote and a token (--token-file or MINIMCP_TOKEN) to serve it")]
    NotLoopback(SocketAddr),
    /// Binding failed.
    #[error("cannot listen on {0}")]
    Bind(SocketAddr, #[source] std::io::Error),
    /// The session core failed.
    #[error(transparent)]
    Core(#[from] Error),
}

/// Per tool, the string arguments its input schema marks with `x-mcp-header`.
fn param_headers(server: &Server) -> HashMap<String, Vec<(String, String)>> {
    let mut map = HashMap::new();
    for tool in &server.tools {
        let Some(properties) = tool
            .input_schema
            .get("properties")
            .and_then(|p| p.as_object())
        else {
            continue;
        };
        let marked: Vec<(String, String)> = properties
            .iter()
            .filter_map(|(name, schema)| {
                let suffix = schema.get("x-mcp-header")?.as_str()?;
                Some((name.clone(), suffix.to_ascii_lowercase()))
            })
            .collect();
        if !marked.is_empty() {
            map.insert(tool.name.clone(), marked);
        }
    }
    map
}

/// Serves `server` over Streamable HTTP until the process ends. The calling thread becomes
/// the dispatch thread.
pub fn serve(server: &Server, config: HttpConfig) -> Result<(), HttpError> {
    if !config.addr.ip().is_loopback() && (!config.allow_remote || config.token.is_none()) {
        return Err(HttpError::NotLoopback(config.addr));
    }
    let listener = TcpListener::bind(config.addr).map_err(|e| HttpError::Bind(config.addr, e))?;
    let local = listener
        .local_addr()
        .map_err(|e| HttpError::Bind(config.addr, e))?;
    log::notice(format_args!("listening on http://{local}{}", config.path));
    let (tx, rx) = mpsc::channel();
    let shared = Arc::new(conn::Shared {
        config,
        max_body_bytes: server.limits.max_message_bytes,
        inbound: tx,
        next_origin: AtomicU64::new(1),
        open: AtomicUsize::new(0),
        local,
        param_headers: param_headers(server),
    });
    // The first I/O thread: it accepts and serves, and starts the others as needed.
    let first = Arc::clone(&shared);
    thread::Builder::new()
        .name("minimcp-http".into())
        .stack_size(conn::STACK)
        .spawn(move || conn::accept(listener, first))
        .map_err(|e| HttpError::Bind(local, e))?;
    hub::run(server, &shared.config, rx);
    Ok(())
}
