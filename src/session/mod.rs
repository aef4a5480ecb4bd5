//! One client session: the session state machine and everything between receiving a
//! message and sending its answer, over any transport (a [`Port`]). Every `impl Connection`
//! is in this folder, one file per job.
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
//! Handlers run one at a time on this thread; what happens to input while one waits for the
//! client is in `waiting.rs`, and over HTTP in `parked/`.

mod answer;
mod completion;
mod connection;
mod dispatch;
mod handler;
mod incoming;
#[cfg(feature = "http")]
mod parked;
pub(crate) mod port;
mod prompts;
mod resources;
mod state;
mod tools;
mod trace;
mod waiting;

pub(crate) use connection::Connection;
pub(crate) use port::{Origin, Port, Received, Unit};
