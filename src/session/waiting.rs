//! While a handler waits for the client: reading on, answering `ping`, queueing other
//! requests, recording cancellations — and the [`Link`] a running handler talks through.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::answer::Reply;
use super::connection::Connection;
use super::incoming::{self, Incoming};
use super::port::{Origin, Received, Take};
use super::state::Session;
use crate::context::Link;
use crate::context::RootsCache;
use crate::error::McpError;
use crate::jsonrpc::{ErrorObject, Message, Outgoing, Request, RequestId, ResponseId};
use crate::log;
use crate::model::InputError;
use crate::protocol;

impl Connection<'_> {
    /// Reads one unit while a handler runs and deals with it: our awaited response is
    /// returned; anything else is answered, recorded or queued, by the same classification
    /// as outside a handler. With `take`, units it refuses are left unread.
    fn interleave(
        &mut self,
        deadline: Option<Instant>,
        awaited: Option<u64>,
        take: Option<Take<'_>>,
    ) -> Interleaved {
        let (unit, origin) = match self.port.receive(deadline, take) {
            Ok(Received::Unit(unit, origin)) => (unit, origin),
            Ok(Received::Idle | Received::Left) => return Interleaved::Idle,
            Ok(Received::Closed) => return Interleaved::Closed,
            Ok(Received::Gone(origin)) => {
                self.origin_gone(origin);
                if let (true, Some((_, cancelled))) = (origin == self.origin, &mut self.current) {
                    *cancelled = true;
                }
                return Interleaved::Handled;
            }
            Err(e) => {
                log::error(format_args!("{e}"));
                return Interleaved::Closed;
            }
        };
        let is_awaited = |id: &RequestId| awaited.is_some_and(|a| RequestId::number(a) == *id);
        let outcome = self.answering(origin, |this| match incoming::sort(unit, this.version()) {
            Incoming::Single(Message::Response(r)) if is_awaited(&r.id) => {
                Interleaved::Answer(r.outcome)
            }
            // A parked request's answer: it runs once this handler has returned.
            Incoming::Single(Message::Response(r)) if this.awaits_parked(&r.id) => {
                this.enqueue(Incoming::Single(Message::Response(r)), origin)
            }
            Incoming::Single(Message::Response(r)) => {
                this.late_response(&r.id);
                Interleaved::Handled
            }
            Incoming::Single(Message::Request(r)) => this.interleave_request(r, origin),
            Incoming::Single(Message::Notification(n)) => {
                this.handle_notification(n);
                Interleaved::Handled
            }
            Incoming::Batch(items) => {
                // Responses and notifications count now (a cancellation in a batch is as
                // good as one on its own line); requests wait their turn, as one batch.
                let mut found = None;
                let mut rest = Vec::new();
                for item in items {
                    match item {
                        Ok(Message::Response(r)) if is_awaited(&r.id) => found = Some(r.outcome),
                        Ok(Message::Response(r)) if !this.awaits_parked(&r.id) => {
                            this.late_response(&r.id)
                        }
                        Ok(Message::Notification(n)) => this.handle_notification(n),
                        other => rest.push(other),
                    }
                }
                let queued = match rest.is_empty() {
                    true => Interleaved::Handled,
                    false => this.enqueue(Incoming::Batch(rest), origin),
                };
                found.map_or(queued, Interleaved::Answer)
            }
            Incoming::Rejected(rejected) => {
                this.reject(rejected);
                Interleaved::Handled
            }
        });
        if !matches!(outcome, Interleaved::Queued) {
            // Everything that unit gets has been sent (a queued one is finished when served).
            self.port.finish(origin);
        }
        outcome
    }

    /// A request arriving while a handler runs: a duplicate id is refused, `ping` answered
    /// at once, anything else queued.
    fn interleave_request(&mut self, r: Request, origin: Origin) -> Interleaved {
        // Checked before ping: a ping reusing the in-flight id must not be answered with a
        // result the client would take for the in-flight request's answer.
        if self.in_flight(&r.id) {
            let error = McpError::DuplicateId(r.id.to_string());
            self.send_reply(&r.id, Reply::plain(Err(error), false));
            return Interleaved::Handled;
        }
        if r.method == "ping" && !protocol::is_stateless(&r.method, r.params.as_ref()) {
            self.send_reply(&r.id, Reply::plain(Ok(json!({})), false));
            return Interleaved::Handled;
        }
        self.enqueue(Incoming::Single(Message::Request(r)), origin)
    }

    /// True when `id` is the request being handled, one queued behind it, or one parked.
    fn in_flight(&self, id: &RequestId) -> bool {
        self.current
            .as_ref()
            .is_some_and(|(current, _)| current == id)
            || self.parked_origin(id).is_some()
            || self
                .queue
                .iter()
                .any(|q| matches!(q, (Incoming::Single(Message::Request(q)), _) if q.id == *id))
    }

    /// Sends the client our request `method`: its id, or `TooMany` when as many of ours
    /// already wait for an answer as the limit allows.
    pub(super) fn ask(&mut self, method: &str, params: &Value) -> Result<u64, InputError> {
        if self.outstanding.len() >= self.server.limits.max_outstanding_requests {
            return Err(InputError::TooMany);
        }
        let id = self.next_request_id;
        self.next_request_id += 1;
        self.outstanding.insert(id);
        self.write(&Outgoing::Request(&RequestId::number(id), method, params));
        self.flush_quietly();
        Ok(id)
    }

    /// Tells the client to stop working on our question `id` (MCP L-10); a late answer is
    /// ignored.
    pub(super) fn withdraw(&mut self, id: u64) {
        let params = json!({ "requestId": id, "reason": "no longer needed" });
        self.write(&Outgoing::Notification("notifications/cancelled", &params));
        self.flush_quietly();
    }

    fn late_response(&mut self, id: &RequestId) {
        log::debug(format_args!("ignored a late or unknown response to {id}"));
    }

    /// Queues `item` for after the handler, or refuses it (−32003) when the queue is full.
    fn enqueue(&mut self, item: Incoming, origin: Origin) -> Interleaved {
        if self.queue.len() < self.server.limits.max_queued_requests {
            self.queue.push_back((item, origin));
            return Interleaved::Queued;
        }
        let error = McpError::Overloaded(self.queue.len()).to_object(false);
        let id = match &item {
            Incoming::Single(Message::Request(r)) => Some(&r.id),
            Incoming::Single(Message::Response(r)) => {
                // Not kept: the parked request gets its timeout instead.
                let id = &r.id;
                log::warn(format_args!(
                    "dropped the answer to {id}: too much input waiting"
                ));
                return Interleaved::Handled;
            }
            _ => None,
        };
        let id = ResponseId::recovered(id, self.unreadable_id());
        self.send_error(id, &error);
        self.port.finish(origin);
        self.flush_quietly();
        Interleaved::Queued
    }
}

/// What one interleaved read produced.
enum Interleaved {
    /// The awaited response.
    Answer(Result<Value, ErrorObject>),
    /// Dealt with now.
    Handled,
    /// Queued for after the handler (its exchange finishes when served), or refused as too
    /// many (finished now).
    Queued,
    /// Nothing arrived before the deadline, or the next unit is one the wait does not take
    /// (it stays in the transport).
    Idle,
    /// The input is closed.
    Closed,
}

impl Link for Connection<'_> {
    fn notify(&mut self, method: &str, params: Value) {
        self.notify_now(method, &params);
    }

    fn request(
        &mut self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, InputError> {
        if let Some(outcome) = self.ask_multiplexed(method, &params, timeout) {
            return outcome;
        }
        let id = self.ask(method, &params)?;
        let deadline = Instant::now() + timeout;
        let outcome = loop {
            if self.current_cancelled() {
                break Err(InputError::Cancelled);
            }
            // Everything is read here: the answer may come after requests the client
            // pipelined, which are queued (up to `max_queued_requests`, then −32003).
            match self.interleave(Some(deadline), Some(id), None) {
                Interleaved::Answer(Ok(result)) => break Ok(result),
                Interleaved::Answer(Err(error)) => break Err(InputError::Refused(error)),
                Interleaved::Handled | Interleaved::Queued => {}
                Interleaved::Idle if Instant::now() >= deadline => {
                    break Err(InputError::TimedOut(timeout.as_millis() as u64))
                }
                Interleaved::Idle => {}
                Interleaved::Closed => break Err(InputError::Cancelled),
            }
        };
        self.outstanding.remove(&id);
        if matches!(
            outcome,
            Err(InputError::TimedOut(_) | InputError::Cancelled)
        ) {
            self.withdraw(id);
        }
        outcome
    }

    fn poll_cancelled(&mut self) -> bool {
        let now = Some(Instant::now());
        loop {
            if self.current_cancelled() {
                return true;
            }
            // Only what can matter now is read: requests stay in the transport, so a
            // pipelining client waits instead of being refused (benches/busy_pipeline.sh).
            match self.interleave(now, None, Some(&incoming::wanted_while_busy)) {
                Interleaved::Handled | Interleaved::Queued | Interleaved::Answer(_) => {}
                Interleaved::Idle | Interleaved::Closed => return self.current_cancelled(),
            }
        }
    }

    fn client_ready(&self) -> bool {
        matches!(self.session, Session::Ready(_))
    }

    fn release_stream(&mut self) {
        self.flush_quietly();
        self.port.release(self.origin);
    }

    fn roots_cache(&mut self) -> Option<&mut RootsCache> {
        self.session.negotiated_mut().map(|n| &mut n.roots)
    }
}

#[cfg(test)]
mod tests {
    use std::io::{self, Write};
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};

    use serde_json::json;

    use crate::{Server, Tool, ToolOutput};

    /// An output the test can watch while the session runs.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, data: &[u8]) -> io::Result<usize> {
            self.0.lock().expect("not poisoned").extend_from_slice(data);
            Ok(data.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl Shared {
        /// Waits up to two seconds for `needle` to be written (flushed) to the output.
        fn wait_for(&self, needle: &str) -> bool {
            let deadline = Instant::now() + Duration::from_secs(2);
            while Instant::now() < deadline {
                let text =
                    String::from_utf8_lossy(&self.0.lock().expect("not poisoned")).into_owned();
                if text.contains(needle) {
                    return true;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            false
        }
    }

    fn asking_server() -> Server {
        Server::builder("t", "1")
            .tool(Tool::new(
                "ask",
                "Asks for a name.",
                json!({"type": "object"}),
                |_, ctx| {
                    ctx.elicit("Name?", json!({"type": "object", "properties": {}}))?;
                    Ok(ToolOutput::text("asked"))
                },
            ))
            .build()
            .expect("valid")
    }

    /// Runs a session whose client calls `ask` (id 1) and, once the server waits for the
    /// elicitation answer, runs `script`; then answers it. Returns the script's result and
    /// everything the server wrote.
    fn while_waiting<T: Send + 'static>(
        script: impl FnOnce(&mut dyn FnMut(&str), &Shared) -> T + Send + 'static,
    ) -> (T, String) {
        let (input, mut client) = io::pipe().expect("pipe");
        let output = Shared::default();
        let watched = output.clone();
        let driver = std::thread::spawn(move || {
            let mut send = |line: &str| {
                client
                    .write_all(format!("{line}\n").as_bytes())
                    .expect("write");
            };
            send(
                r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}"#,
            );
            send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
            send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask"}}"#);
            assert!(watched.wait_for("elicitation/create"), "the handler asks");
            let outcome = script(&mut send, &watched);
            send(r#"{"jsonrpc":"2.0","id":1,"result":{"action":"decline"}}"#);
            outcome
        });
        crate::serve(&asking_server(), input, output.clone()).expect("clean end");
        let outcome = driver.join().expect("no panic");
        let written = String::from_utf8_lossy(&output.0.lock().expect("not poisoned")).into_owned();
        (outcome, written)
    }

    #[test]
    fn answers_written_while_a_handler_waits_are_flushed_at_once() {
        let ((duplicate, parse_error), written) = while_waiting(|send, output| {
            // A duplicate id and a line that is not JSON: their errors must reach the
            // client now, before it answers the elicitation.
            send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
            let duplicate = output.wait_for("already in use");
            send("not json");
            (duplicate, output.wait_for("-32700"))
        });
        assert!(duplicate, "the duplicate id is refused at once");
        assert!(parse_error, "the parse error is reported at once");
        assert!(
            written.contains(r#""id":1,"result""#),
            "the call is answered"
        );
    }

    #[test]
    fn a_ping_reusing_the_in_flight_id_is_refused_not_answered() {
        let (refused, written) = while_waiting(|send, output| {
            send(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
            output.wait_for("already in use")
        });
        assert!(refused, "the duplicate ping is refused at once");
        let answers: Vec<&str> = written
            .lines()
            .filter(|l| l.contains(r#""id":1,"result""#))
            .collect();
        assert_eq!(answers.len(), 1, "one result for id 1: {written}");
        assert!(
            answers[0].contains("content"),
            "and it is the tool's: {written}"
        );
    }
}
