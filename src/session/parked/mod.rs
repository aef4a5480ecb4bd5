//! Requests parked while their client answers a question of ours, over a transport that
//! serves many clients (HTTP).
//!
//! Over stdio a handler that asks the client (sampling, elicitation, roots) blocks until
//! the answer comes: the pipe has one client, so nobody else waits. Over HTTP the one
//! dispatch thread serves every client, and a handler blocked on one client's answer would
//! hold up all the others for up to `--request-timeout` (conformance/HTTP.md, "No client
//! waits for another's answer"). So there the handler does not block: its question is
//! sent, the handler returns [`InputError::Pending`] as it does in 2026-07-28, and the
//! request is parked here with the answers collected so far. The dispatch thread goes back
//! to serving everyone; when the client's answer arrives (or the timeout passes), the
//! handler is run again from the start and this time gets the answer — the same replay the
//! 2026-07-28 `input_required` round trip uses, so a handler written for one works for the
//! other, and handlers still run one at a time on one thread.
//!
//! The rule for handler authors is the one [`crate::Context`] already states: ask before
//! doing anything that should not be done twice.

pub(super) mod state;

use std::time::{Duration, Instant};

use serde_json::Value;

use super::answer::Reply;
use super::connection::Connection;
use super::port::Origin;
use super::state::Answer;
use crate::jsonrpc::{Request, RequestId};
use crate::log;
use crate::model::InputError;
use state::{Parked, Replay};

/// Why a request inside a JSON-RPC batch cannot ask the client over HTTP.
const IN_BATCH: &str = "a request inside a JSON-RPC batch cannot ask the client for input over HTTP; send this request on its own";

/// A session that ends (DELETE, expiry, the server stopping) ends its parked requests'
/// exchanges without a response: their clients are gone or ended the session.
impl Drop for Connection<'_> {
    fn drop(&mut self) {
        for parked in std::mem::take(&mut self.parked) {
            self.port.finish(parked.origin);
        }
    }
}

impl Connection<'_> {
    /// Routes `request` with the handler able to park; `None` when it gets no response now
    /// (cancelled, an open listen stream, or parked until the client answers).
    pub(crate) fn dispatch_resumable(
        &mut self,
        request: Request,
        answers: Vec<Answer>,
    ) -> Option<Reply> {
        let copy = request.clone();
        let saved = self.replay.replace(Replay {
            answers,
            taken: 0,
            asked: None,
        });
        let reply = self.dispatch(request);
        let replay = std::mem::replace(&mut self.replay, saved).unwrap_or_default();
        let Some((awaiting, timeout)) = replay.asked else {
            return reply;
        };
        // Whatever this run answered was computed without the answer: it is dropped.
        self.parked.push(Parked {
            request: copy,
            origin: self.origin,
            answers: replay.answers,
            awaiting,
            deadline: Instant::now() + timeout,
            timeout,
            started: Instant::now(),
        });
        None
    }

    /// Whether `request`'s handler could ask the client over a transport serving many, and
    /// so must be able to park: only a handshake-era request (2026-07-28 asks with
    /// `input_required`) in a session whose client declared something to ask for (else
    /// asking fails before any question is sent), outside a batch. The others skip the
    /// copy a replay needs.
    pub(crate) fn may_park(&self, request: &Request) -> bool {
        self.port.multiplexes()
            && self.session.negotiated().is_some_and(|n| {
                ["sampling", "elicitation", "roots"]
                    .iter()
                    .any(|c| n.client_capabilities.get(c).is_some())
            })
            && !crate::protocol::is_stateless(&request.method, request.params.as_ref())
    }

    /// [`crate::context::Link::request`] over a transport serving many clients, which
    /// must not block: the answer from an earlier run, or the question sent now and
    /// [`InputError::Pending`]. `None` over a transport with one client: it blocks.
    pub(crate) fn ask_multiplexed(
        &mut self,
        method: &str,
        params: &Value,
        timeout: Duration,
    ) -> Option<Result<Value, InputError>> {
        if !self.port.multiplexes() {
            return None;
        }
        // Only a batch's requests run without a replay here (see `may_park`): one array
        // answers them all, so none can park, and blocking would hold up every other client.
        let Some(replay) = self.replay.as_mut() else {
            return Some(Err(InputError::Invalid(IN_BATCH.into())));
        };
        if let Some(answer) = replay.next_answer() {
            return Some(answer);
        }
        if replay.asked.is_some() {
            // The handler went on after Pending and asks again: one question at a time.
            return Some(Err(InputError::Pending));
        }
        Some(self.ask(method, params).and_then(|id| {
            if let Some(replay) = self.replay.as_mut() {
                replay.asked = Some((id, timeout));
            }
            Err(InputError::Pending)
        }))
    }

    /// True when `id` is the id of a question a parked request waits on.
    pub(crate) fn awaits_parked(&self, id: &RequestId) -> bool {
        self.parked
            .iter()
            .any(|p| RequestId::number(p.awaiting) == *id)
    }

    /// Where request `id` came from, when it is parked (its exchange stays open).
    pub(crate) fn parked_origin(&self, id: &RequestId) -> Option<Origin> {
        self.parked
            .iter()
            .find(|p| p.request.id == *id)
            .map(|p| p.origin)
    }

    /// The client answered question `id`: its request runs again with the answer. False
    /// when no parked request asked it.
    pub(crate) fn answer_parked(&mut self, id: &RequestId, answer: Answer) -> bool {
        let Some(at) = self
            .parked
            .iter()
            .position(|p| RequestId::number(p.awaiting) == *id)
        else {
            return false;
        };
        let parked = self.parked.swap_remove(at);
        self.outstanding.remove(&parked.awaiting);
        self.resume(parked, answer);
        true
    }

    /// When the first parked question times out.
    pub(crate) fn next_parked_deadline(&self) -> Option<Instant> {
        self.parked.iter().map(|p| p.deadline).min()
    }

    /// Runs again, with a timeout for an answer, every request whose client did not answer
    /// in time.
    pub(crate) fn expire_parked(&mut self) {
        let now = Instant::now();
        while let Some(at) = self.parked.iter().position(|p| p.deadline <= now) {
            let parked = self.parked.swap_remove(at);
            self.outstanding.remove(&parked.awaiting);
            self.answering(parked.origin, |this| this.withdraw(parked.awaiting));
            let timed_out = Err(InputError::TimedOut(parked.timeout.as_millis() as u64));
            self.resume(parked, timed_out);
        }
    }

    /// The client cancelled parked request `id`: it gets no response, and our question is
    /// withdrawn. False when no parked request has that id.
    pub(crate) fn cancel_parked(&mut self, id: &RequestId) -> bool {
        let Some(at) = self.parked.iter().position(|p| p.request.id == *id) else {
            return false;
        };
        let parked = self.parked.swap_remove(at);
        self.outstanding.remove(&parked.awaiting);
        self.answering(parked.origin, |this| this.withdraw(parked.awaiting));
        self.port.finish(parked.origin);
        true
    }

    /// Keeps `started` as when the request `id` parked at the current origin was first
    /// dispatched, for its log line.
    pub(crate) fn keep_started(&mut self, id: &RequestId, started: Instant) {
        let origin = self.origin;
        let parked = self
            .parked
            .iter_mut()
            .find(|p| p.origin == origin && p.request.id == *id);
        if let Some(parked) = parked {
            parked.started = started;
        }
    }

    /// `origin`'s client is gone for good: a request parked there will never deliver its
    /// answer, so it ends now (its question is left to time out on the client's side).
    pub(crate) fn drop_parked_at(&mut self, origin: Origin) {
        let before = self.parked.len();
        self.parked.retain(|p| {
            let keep = p.origin != origin;
            if !keep {
                self.outstanding.remove(&p.awaiting);
            }
            keep
        });
        if before != self.parked.len() {
            log::debug(format_args!("dropped a parked request: its client left"));
        }
    }

    /// Runs a parked request's handler again with one more answer, and sends its response
    /// unless it parks again.
    fn resume(&mut self, parked: Parked, answer: Answer) {
        let Parked {
            request,
            origin,
            mut answers,
            started,
            ..
        } = parked;
        answers.push(answer);
        log::debug(format_args!(
            "request {} resumes with {} answer(s)",
            request.id,
            answers.len()
        ));
        let id = request.id.clone();
        self.answering(origin, |this| {
            let trace = this.trace(&request).map(|t| t.since(started));
            this.current = Some((id.clone(), false));
            let reply = this.dispatch_resumable(request, answers);
            let cancelled = matches!(this.current.take(), Some((_, true)));
            let reply = reply.filter(|_| !cancelled);
            if let Some(trace) = trace {
                this.end_trace(trace, &id, reply.as_ref());
            }
            if this.parked_origin(&id) == Some(origin) {
                return;
            }
            if let Some(reply) = reply {
                this.send_reply(&id, reply);
            }
            this.port.finish(origin);
            this.flush_quietly();
        });
    }
}
