//! What passes from the I/O threads to the dispatch thread: one request ([`Inbound`]: where
//! it goes and what it says) and the [`Responder`] its answer is written through.

use std::sync::Arc;

use super::access;
use super::link::Link;
use super::wire::{error_body, response};
use minimcp::transport::{code as rpc, Origin, Unit};

/// One message for the dispatch thread, with the connection its answer is written to.
pub(crate) struct Inbound {
    pub(crate) origin: Origin,
    pub(crate) kind: Kind,
    pub(crate) reply: Responder,
}

/// Where a message's answer goes. Every request is answered exactly once: a `Responder`
/// dropped unanswered (which would be a bug) still ends its exchange, with 503, rather than
/// leave the client waiting.
pub(crate) struct Responder {
    link: Arc<Link>,
    /// The access line, written once the answer is out (when the access log is on).
    access: Option<access::Entry>,
    done: bool,
}

impl Responder {
    pub(crate) fn new(link: &Arc<Link>, access: Option<access::Entry>) -> Self {
        Responder {
            link: Arc::clone(link),
            access,
            done: false,
        }
    }

    /// Nothing is owed on `link` (a client's leaving is news, not a request).
    pub(crate) fn none(link: &Arc<Link>) -> Self {
        Responder {
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

impl Drop for Responder {
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::time::Duration;

    #[test]
    fn a_reply_dropped_unanswered_still_answers_503_once() {
        let (link, mut client) = super::super::link::tests::pair(1024);
        let wait = Some(Duration::from_secs(5));
        client.set_read_timeout(wait).expect("timeout");
        link.begin(true);
        drop(Responder::new(&link, None));
        // A reply taken care of writes nothing more.
        link.begin(true);
        Responder::new(&link, None).abandon();
        let mut all = String::new();
        client.read_to_string(&mut all).expect("read to the close");
        assert!(all.starts_with("HTTP/1.1 503 "), "{all}");
        assert!(all.contains("the request was dropped"), "{all}");
        assert_eq!(all.matches("HTTP/1.1").count(), 1, "{all}");
    }
}
