//! One client session: the session state machine and everything that has to happen between
//! receiving a message and sending its answer, over any transport (a [`Port`]). Every
//! `impl Connection` is in this folder, one file per job; this file only names them.
//!
//! ```text
//!                 initialize                  notifications/initialized
//!   ┌─────┐ ─────────────────▶ ┌──────────────┐ ─────────────────────────▶ ┌───────┐
//!   │ New │                    │ Initializing │                            │ Ready │
//!   └─────┘                    └──────────────┘                            └───────┘
//!   ping only                  every request served;                      server may also
//!   (+ stateless requests)     the server sends no requests               send requests
//! ```
//!
//! A request whose `params._meta` carries `io.modelcontextprotocol/protocolVersion` is a
//! 2026-07-28 request: it is served statelessly whatever the state, and never changes it.
//!
//! Handlers run one at a time on this thread. While one waits for the client (a
//! server-to-client request, over a transport with one client), input keeps being read with
//! the same rules as outside a handler ([`incoming::sort`]): `ping` is answered at once,
//! cancellations are recorded, other requests are queued and served after the handler
//! returns. Over a transport serving many clients the handler does not wait: its request is
//! parked until the answer comes (`parked/`). A handler that only checks for cancellation
//! reads no requests at all: they stay in the transport.

mod answer;
mod completion;
mod connection;
mod dispatch;
mod handler;
mod incoming;
mod lifecycle;
#[cfg(feature = "http")]
mod parked;
pub(crate) mod port;
mod prompts;
mod resources;
mod state;
mod tools;
mod waiting;
mod watch;

pub(crate) use connection::Connection;
pub(crate) use port::{Origin, Port, Received, Unit};
