//! Streamable HTTP: `minimcp serve --http ADDR:PORT`, with `std::net` only; on Unix also
//! over a Unix-domain socket (`--http unix:PATH`, see `unix`).
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
mod exchange;
mod grammar;
mod guard;
mod hub;
mod link;
mod parse;
mod reply;
mod route;
mod sessions;
mod socket;
#[cfg(unix)]
mod unix;
mod wire;

use std::collections::HashMap;
use std::fmt;
use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize};
use std::sync::mpsc;
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use crate::error::Error;
use crate::log;
use crate::server::Server;

/// Where the HTTP transport listens (`--http`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Listen {
    /// A TCP address; loopback unless [`HttpConfig::allow_remote`].
    Tcp(SocketAddr),
    /// A Unix-domain socket created at this path with mode 0600 (Unix only; elsewhere
    /// [`serve`] refuses it). The file's permissions are the access control: no loopback
    /// `Host` rule applies, and `allow_remote` is meaningless. A bearer token, if set, is
    /// still required, and so is a loopback or allowed `Origin` when one is sent.
    Unix(PathBuf),
}

impl From<SocketAddr> for Listen {
    fn from(addr: SocketAddr) -> Self {
        Listen::Tcp(addr)
    }
}

impl fmt::Display for Listen {
    /// `127.0.0.1:8080`, or `unix:/path/to.sock` (as `--http` takes it).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Listen::Tcp(addr) => write!(f, "{addr}"),
            Listen::Unix(path) => write!(f, "unix:{}", path.display()),
        }
    }
}

/// How the HTTP transport listens, and its limits. Every limit is in the README.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpConfig {
    /// Where to listen (`--http`).
    pub listen: Listen,
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
    /// Serve a non-loopback TCP address (needs `token`).
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
    /// Defaults for listening on `listen` (a [`SocketAddr`] or a [`Listen`]).
    pub fn new(listen: impl Into<Listen>) -> Self {
        HttpConfig {
            listen: listen.into(),
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
    Bind(Listen, #[source] std::io::Error),
    /// The Unix socket's path is a socket some server answers on.
    #[error("another server is listening on {}", .0.display())]
    InUse(PathBuf),
    /// The Unix socket's path exists and is not a socket (`.1` says what it is).
    #[error("{path} exists and is {what}: remove it or choose another path", path = .0.display(), what = .1)]
    Occupied(PathBuf, &'static str),
    /// `unix:` on a system without Unix-domain sockets.
    #[error("--http unix:{} needs Unix-domain sockets, which this system lacks", .0.display())]
    UnixUnsupported(PathBuf),
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

/// What `check_access` is told a Unix socket's local address is: the unspecified address,
/// which is not loopback, so a Unix connection gets the rules of a non-loopback listener:
/// the bearer token when one is configured, and a loopback or `--allow-origin` `Origin`
/// when one is sent (only browsers send it, and a browser reaches a socket file only
/// through something bridging it, where cross-site requests are a risk again). The
/// loopback `Host` rule is skipped: it stops DNS rebinding of a loopback address, and a
/// socket file has no address to rebind; its permissions (0600) are the access control.
#[cfg(unix)]
const UNIX_LOCAL: SocketAddr = SocketAddr::V4(std::net::SocketAddrV4::new(
    std::net::Ipv4Addr::UNSPECIFIED,
    0,
));

/// Serves `server` over Streamable HTTP until the process ends. The calling thread becomes
/// the dispatch thread. A Unix socket is removed when this returns; a server ended by a
/// signal leaves it behind, and the next start replaces it once no one answers on it.
pub fn serve(server: &Server, config: HttpConfig) -> Result<(), HttpError> {
    match config.listen.clone() {
        Listen::Tcp(addr) => {
            if !addr.ip().is_loopback() && (!config.allow_remote || config.token.is_none()) {
                return Err(HttpError::NotLoopback(addr));
            }
            let bind = |e| HttpError::Bind(config.listen.clone(), e);
            let listener = TcpListener::bind(addr).map_err(bind)?;
            let local = listener.local_addr().map_err(bind)?;
            log::notice(format_args!("listening on http://{local}{}", config.path));
            run(server, config, socket::Listener::Tcp(listener), local)
        }
        #[cfg(unix)]
        Listen::Unix(path) => {
            let (listener, placed) = unix::bind(&path)?;
            log::notice(format_args!(
                "listening on unix:{} (http://localhost{})",
                path.display(),
                config.path
            ));
            let served = run(server, config, socket::Listener::Unix(listener), UNIX_LOCAL);
            drop(placed); // removes the socket file
            served
        }
        #[cfg(not(unix))]
        Listen::Unix(path) => Err(HttpError::UnixUnsupported(path)),
    }
}

/// Serves on `listener` until every I/O thread is gone; `local` is what `check_access`
/// sees as the listening address.
fn run(
    server: &Server,
    config: HttpConfig,
    listener: socket::Listener,
    local: SocketAddr,
) -> Result<(), HttpError> {
    let (tx, rx) = mpsc::channel();
    let listen = config.listen.clone();
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
        .map_err(|e| HttpError::Bind(listen, e))?;
    sessions::run(server, &shared.config, rx);
    Ok(())
}
