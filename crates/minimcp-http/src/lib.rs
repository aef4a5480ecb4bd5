//! # minimcp-http
//!
//! Streamable HTTP for the `minimcp` library, built only on its public transport API
//! (`minimcp::transport`): `minimcp serve --http ADDR:PORT`, with `std::net` only; on Unix also
//! over a Unix-domain socket (`--http unix:PATH`, see `unix`).
//!
//! Two kinds of threads, so the session core stays single-threaded:
//!
//! - **I/O threads** (`conn`; one per open connection, at most
//!   [`HttpConfig::max_connections`], plus one waiting in `accept`; each accepts the
//!   connection it then serves): they read requests (`wire`, framed by `parse`), check
//!   what needs no session (`guard`: `Host`, `Origin`, the token; `route`: headers and the
//!   JSON body) and hand each to the dispatch thread (`reply`), then read on.
//!   A connection whose client reads slowly also gets a writer thread for as long as its
//!   answer waits for the client (see `link`). None of them runs a handler: a slow or
//!   hostile client can only ever tie up its own threads.
//! - **The dispatch thread** (the caller of [`serve`]) owns every session and runs
//!   dispatch and every handler, one at a time, exactly as over stdio (`sessions`): each
//!   session is a `Connection` over a `Port` that reads from the shared inbound channel
//!   (`hub`), and each request's answer is an `exchange`. It writes answers itself
//!   (`link`), never waiting for a client, and a handler that asks its client
//!   for input (sampling, elicitation, roots) is parked until the answer arrives instead of
//!   blocking, so one client that never answers holds up no other (the library's parking).
//!
//! Blocking I/O per connection rather than a poll loop: `std` has no portable readiness
//! API, and a bounded set of threads that only copy bytes costs little memory (small
//! stacks) while keeping every step a plain, readable function.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod access;
mod config;
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
mod slots;
mod socket;
#[cfg(unix)]
mod unix;
mod wire;

use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::mpsc;
use std::sync::Arc;
use std::thread;

use minimcp::{Error, Server};
use minimcp_base::log;

pub use config::{HttpConfig, Listen};

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
    /// A directory on the way to the Unix socket's path (`.0`) can be changed by another
    /// user (`.1` says how), who could replace the socket with their own.
    #[error("{dir} can be changed by another user ({why}): they could replace the socket with their own and receive your clients' requests; use a directory that only you or root can change, such as $XDG_RUNTIME_DIR, or make this one so (chmod go-w, or chmod +t)", dir = .0.display(), why = .1)]
    UnsafeDirectory(PathBuf, String),
    /// The Unix socket's path does not fit a socket address.
    #[error("unix:{} does not fit a Unix socket address, which holds {max} bytes here: {what} {} is {len} bytes; choose a shorter path", given.display(), measured.display())]
    PathTooLong {
        /// The path as given.
        given: PathBuf,
        /// Which path was measured: the absolute one, or the temporary one.
        what: &'static str,
        /// The path measured.
        measured: PathBuf,
        /// Its length in bytes.
        len: usize,
        /// The most a socket address holds, without the NUL.
        max: usize,
    },
    /// `unix:` on a system without Unix-domain sockets.
    #[error("--http unix:{} needs Unix-domain sockets, which this system lacks", .0.display())]
    UnixUnsupported(PathBuf),
    /// The session core failed.
    #[error(transparent)]
    Core(#[from] Error),
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
            // The absolute path: the one to give clients, whatever the working directory.
            let absolute = std::path::absolute(&path).unwrap_or(path);
            log::notice(format_args!(
                "listening on unix:{} (http://localhost{})",
                absolute.display(),
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
    let slots = slots::Slots::new(config.max_connections);
    let shared = Arc::new(conn::Shared {
        config,
        max_body_bytes: server.limits().max_message_bytes,
        inbound: tx,
        next_origin: AtomicU64::new(1),
        slots,
        local,
        param_headers: route::param_headers(server),
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
