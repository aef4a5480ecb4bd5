//! The seam between a session and its transport. A session never reads or writes: the
//! transport hands it each unit of input (`Session::receive`) and it hands back what to send
//! through a [`Port`], naming the [`Origin`] each message answers, so a transport that
//! multiplexes (HTTP: one POST per message, each with its own response) knows where each
//! message goes. [`Port::finish`] says when an origin gets nothing more.

use serde_json::Value;

use crate::jsonrpc::Unit;

/// Where a unit of input came from, as the transport numbers it (stdio: always 0).
pub type Origin = u64;

/// Messages that belong to the session rather than to one request (legacy
/// `notifications/resources/updated` and `list_changed`).
pub const SESSION: Origin = u64::MAX;

/// What [`Port::poll`] found.
pub enum Polled {
    /// A unit, and where it came from.
    Unit(Unit, Origin),
    /// The client of this origin went away before its answer (a closed HTTP stream of a
    /// 2026-07-28 request): a request running for it is cancelled.
    Gone(Origin),
}

/// A transport, as a session sees it.
pub trait Port {
    /// Sends one complete, serialized message (compact JSON, no line ending) to `to`;
    /// `error` is its code when it is an error response (HTTP answers some codes of a
    /// 2026-07-28 request with their own status, and need not read the message again).
    fn send(&mut self, to: Origin, message: &[u8], error: Option<i64>);
    /// Nothing more will be sent to `to`: its exchange is complete.
    fn finish(&mut self, to: Origin);
    /// The handler lets the transport end `to`'s delivery early: the client resumes it and
    /// receives the rest (HTTP: SEP-1699 polling). Stdio has nothing to end.
    fn release(&mut self, _to: Origin) {}
    /// Makes everything sent so far visible to the client (a running handler's progress).
    fn flush(&mut self);
    /// The next unit already received for this session that `wanted` accepts, without
    /// waiting: what a running handler's cancellation check reads. A unit `wanted` refuses
    /// stays where it is, ahead of everything after it (a pipe keeps it, so a pipelining
    /// client is slowed down rather than refused).
    fn poll(&mut self, wanted: &dyn Fn(&Value) -> bool) -> Option<Polled>;
    /// The number the transport's own log gives the exchange of `origin` (HTTP: the `req=`
    /// of its access line), for the request's line to carry; stdio has none.
    fn request_number(&self, _origin: Origin) -> Option<u64> {
        None
    }
}
