//! The seam between the session core and a transport: the core reads and writes messages
//! through a [`Port`], never knowing whether they came from a stdin line (`crate::stdio`) or
//! an HTTP POST (`crate::http`). Every unit of input carries an [`Origin`] and everything the
//! core writes names the origin it answers, so a transport that multiplexes (HTTP: one POST
//! per message, each with its own response) knows where each message goes; [`Port::finish`]
//! says when an origin gets nothing more.

use std::time::Instant;

use serde_json::Value;

use crate::error::{EnvelopeError, Error};
use crate::jsonrpc::RequestId;

/// Where a unit of input came from, as the transport numbers it (stdio: always 0).
pub(crate) type Origin = u64;

/// Messages that belong to the session rather than to one request (legacy
/// `notifications/resources/updated` and `list_changed`).
pub(crate) const SESSION: Origin = u64::MAX;

/// One unit of input: parsed JSON, or why it could not be parsed (with the request id
/// recovered from its first bytes, when there was one).
pub(crate) type Unit = Result<Value, (EnvelopeError, Option<RequestId>)>;

/// What one [`Port::receive`] produced.
pub(crate) enum Received {
    /// A unit, and where it came from.
    Unit(Unit, Origin),
    /// The next unit was refused by the `take` filter and left where it was.
    Left,
    /// The deadline passed with nothing to read.
    Idle,
    /// The input is closed: nothing more will come.
    Closed,
    /// The client of this origin went away before its answer (a closed HTTP stream of a
    /// 2026-07-28 request): the request is cancelled.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    Gone(Origin),
}

/// Which units a waiting handler takes: a filter on parsed JSON.
pub(crate) type Take<'a> = &'a dyn Fn(&Value) -> bool;

/// A transport, as the session core sees it.
pub(crate) trait Port {
    /// The next unit of input. Blocks until one arrives, the input closes, or `deadline`
    /// passes. With `take`, a parsed unit it refuses is not consumed: it stays in the
    /// transport (a pipe keeps it, so the client is slowed down rather than refused) and
    /// [`Received::Left`] is returned.
    fn receive(
        &mut self,
        deadline: Option<Instant>,
        take: Option<Take<'_>>,
    ) -> Result<Received, Error>;
    /// Sends one complete, serialized message (compact JSON, no line ending) to `to`;
    /// `error` is its code when it is an error response (HTTP answers some codes of a
    /// 2026-07-28 request with their own status, and need not read the message again).
    fn send(&mut self, to: Origin, message: &[u8], error: Option<i64>);
    /// Nothing more will be sent to `to`: its exchange is complete.
    fn finish(&mut self, to: Origin);
    /// The handler lets the transport end `to`'s delivery early: the client resumes it and
    /// receives the rest (HTTP: SEP-1699 polling). Stdio has nothing to end.
    fn release(&mut self, _to: Origin) {}
    /// Makes everything sent so far visible to the client.
    fn flush(&mut self) -> Result<(), Error>;
    /// True once the client can no longer receive anything.
    fn is_closed(&self) -> bool;
    /// True when this transport serves many clients from one thread (HTTP): a handler
    /// waiting for its client must not block the others, so its request is parked instead
    /// (see `session::parked`). Stdio has one client, and blocks.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    fn multiplexes(&self) -> bool {
        false
    }
}

/// Parses one line or body into JSON; on failure, the error (and never an id: the bytes
/// are not JSON, so nothing in them can be trusted to be one).
pub(crate) fn parse(bytes: &[u8]) -> Unit {
    let text = std::str::from_utf8(bytes)
        .map_err(|e| (EnvelopeError::InvalidUtf8(e.valid_up_to()), None))?;
    serde_json::from_str(text).map_err(|e| (EnvelopeError::Syntax(e.to_string()), None))
}
