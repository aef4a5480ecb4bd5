//! How the HTTP transport listens, and its limits: the public configuration
//! (`minimcp_http::HttpConfig`), which every other file of the transport reads.

use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// Where the HTTP transport listens (`--http`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Listen {
    /// A TCP address; loopback unless [`HttpConfig::allow_remote`].
    Tcp(SocketAddr),
    /// A Unix-domain socket created at this path with mode 0600 (Unix only; elsewhere
    /// [`serve`](super::serve) refuses it). The file's permissions are the access control: no loopback
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

/// How the HTTP transport listens, and its limits. Every limit is in docs/limits.md.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpConfig {
    /// Where to listen (`--http`).
    pub listen: Listen,
    /// The MCP endpoint (`--http-path`, default `/mcp`).
    pub path: String,
    /// Open connections at once. When every place is taken, a new connection takes the
    /// place of the one that has waited longest for a request with nothing in flight
    /// (which is closed); when every connection is being served, it is answered 503.
    pub max_connections: usize,
    /// Legacy-era sessions at once; one more `initialize` is answered 503.
    pub max_sessions: usize,
    /// A session unused this long is ended (its id then gets 404).
    pub session_idle: Duration,
    /// A request must arrive whole within this time, and an idle keep-alive connection is
    /// closed after it (slow and half-open clients never hold a thread for longer).
    pub read_timeout: Duration,
    /// A new connection's first request head must arrive within this time (and within
    /// `read_timeout`): a peer that connects and says nothing, or dribbles, is let go soon.
    pub head_timeout: Duration,
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
            head_timeout: Duration::from_secs(10),
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
