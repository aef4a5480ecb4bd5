//! Requests parked while their client answers a question of ours (sampling, elicitation,
//! roots), on every transport.
//!
//! A handler never waits for its client: the one dispatch thread may serve many clients
//! (HTTP), and one that never answers must hold up nobody. So a handshake-era handler that
//! asks gets [`InputError::Pending`] and returns, as it does in 2026-07-28; its question
//! goes out as a request of the server's, and the request is parked here with the answers
//! collected so far. When the client's answer arrives (or `request_timeout` passes) the
//! handler runs again from the start, and this time gets it. The rule for handler authors
//! is the one [`crate::Context`] states: ask before doing anything that should not be done
//! twice.
//!
//! Meanwhile everything else is served, except that input carrying a request waits behind
//! a parked request of the same origin (over stdio: the one client), so that one origin's
//! answers go out in the order of its requests. A `ping` is answered at once; a full queue
//! refuses with −32003.
//!
//! Here too are the session's timers: a parked question's timeout and change polling for
//! subscriptions ([`Session::deadline`], [`Session::tick`]).

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::{Incoming, Session};
use crate::context::{Answer, Answers, Question};
use crate::error::McpError;
use crate::jsonrpc::{Message, Outgoing, Request, RequestId, Response};
use crate::model::InputError;
use crate::session::port::{Origin, SESSION};
use minimcp_base::log;

/// A request whose handler waits for the client's answer to question `awaiting`.
pub(crate) struct Parked {
    pub(crate) request: Request,
    pub(crate) origin: Origin,
    /// The answers of the earlier runs.
    answers: Answers,
    /// The key the answer will be given under.
    key: String,
    awaiting: u64,
    pub(crate) deadline: Instant,
    timeout: Duration,
    /// When the request first ran, if its log line is written: the line counts the wait.
    started: Option<Instant>,
}

/// A session that ends (DELETE, expiry, the server stopping) ends its parked requests'
/// exchanges without a response: their clients are gone or ended the session.
impl Drop for Session<'_> {
    fn drop(&mut self) {
        for parked in std::mem::take(&mut self.parked) {
            self.port.finish(parked.origin);
        }
    }
}

impl Session<'_> {
    /// When [`Session::tick`] next has something to do: a change check, if anything is
    /// watched, or a parked question's timeout.
    pub fn deadline(&self) -> Option<Instant> {
        let watch = self.is_watching().then_some(self.watch.next_poll);
        let parked = self.parked.iter().map(|p| p.deadline).min();
        watch.into_iter().chain(parked).min()
    }

    /// Does what is due: checks watched resources, and runs again the parked requests
    /// whose client did not answer in time.
    pub fn tick(&mut self) {
        let now = Instant::now();
        if self.is_watching() && now >= self.watch.next_poll {
            self.answering(SESSION, Session::poll_changes);
        }
        self.expire_parked(now);
        self.serve_queue();
    }

    /// Sends the client `question` and parks `request`, first run at `started`, until it
    /// answers.
    pub(super) fn park(
        &mut self,
        request: Request,
        question: Question,
        answers: Answers,
        started: Option<Instant>,
    ) {
        let id = self.next_question_id;
        self.next_question_id += 1;
        let Question {
            key,
            method,
            params,
            timeout,
        } = question;
        self.write(
            &Outgoing::Request(&RequestId::Unsigned(id), method, &params),
            None,
        );
        self.port.flush();
        self.parked.push(Parked {
            request,
            origin: self.origin,
            answers,
            key,
            awaiting: id,
            deadline: Instant::now() + timeout,
            timeout,
            started,
        });
    }

    /// A response from the client: the answer a parked request waits for, or late (its
    /// question timed out or was withdrawn) and ignored.
    pub(super) fn answered(&mut self, response: Response) {
        let awaits = |p: &Parked| RequestId::Unsigned(p.awaiting) == response.id;
        let Some(at) = self.parked.iter().position(awaits) else {
            let id = &response.id;
            return log::warn(format_args!(
                "ignored a response to {id:?}: no question of ours waits for it"
            ));
        };
        let parked = self.parked.swap_remove(at);
        self.resume(parked, response.outcome.map_err(InputError::Refused));
    }

    /// Runs a parked request's handler again with one more answer, and sends its reply
    /// unless it parks again.
    fn resume(&mut self, parked: Parked, answer: Answer) {
        let Parked {
            request,
            origin,
            mut answers,
            key,
            started,
            ..
        } = parked;
        answers.insert(key, answer);
        let id = request.id.clone();
        log::debug(format_args!(
            "request {id:?} resumes with {} answer(s)",
            answers.len()
        ));
        self.answering(origin, |this| {
            let copy = request.clone();
            let trace = this.trace(&request, started);
            let reply = this.run(request, Some(copy), Some(answers), trace);
            if this.parked.iter().any(|p| p.request.id == id) {
                return;
            }
            if let Some(reply) = reply {
                this.send_reply(&id, reply);
            }
            this.port.finish(origin);
            this.port.flush();
        });
    }

    /// Tells the client to stop working on our question `id` (MCP L-10); a late answer is
    /// ignored.
    fn withdraw(&mut self, parked: &Parked) {
        let params = json!({ "requestId": parked.awaiting, "reason": "no longer needed" });
        self.answering(parked.origin, |this| {
            this.notify_now("notifications/cancelled", &params)
        });
    }

    /// Runs again, with a timeout for an answer, every request whose client did not answer
    /// in time.
    pub(super) fn expire_parked(&mut self, now: Instant) {
        while let Some(at) = self.parked.iter().position(|p| p.deadline <= now) {
            let parked = self.parked.swap_remove(at);
            self.withdraw(&parked);
            let timed_out = Err(InputError::TimedOut(parked.timeout.as_millis() as u64));
            self.resume(parked, timed_out);
        }
    }

    /// The client cancelled parked request `id`: it gets no response, and our question is
    /// withdrawn. False when no parked request has that id.
    pub(super) fn cancel_parked(&mut self, id: &RequestId) -> bool {
        let Some(at) = self.parked.iter().position(|p| p.request.id == *id) else {
            return false;
        };
        let parked = self.parked.swap_remove(at);
        self.withdraw(&parked);
        self.port.finish(parked.origin);
        true
    }

    /// `origin`'s client is gone for good: a request parked there will never deliver its
    /// answer, so it ends now (its question is left to time out on the client's side).
    pub fn abandon(&mut self, origin: Origin) {
        let before = self.parked.len();
        self.parked.retain(|p| p.origin != origin);
        if before != self.parked.len() {
            log::debug(format_args!("dropped a parked request: its client left"));
        }
    }

    /// The input ended: every parked request withdraws its question and runs again without
    /// the answer (a tool reports that), and what waited behind it is served; nothing more
    /// may be asked.
    pub fn close(&mut self) {
        self.closed = true;
        while let Some(parked) = self.parked.pop() {
            self.withdraw(&parked);
            self.resume(parked, Err(InputError::Cancelled));
            self.serve_queue();
        }
        self.serve_queue();
    }

    /// True when `id` is the id of a request in flight: running, parked, queued, or an open
    /// `subscriptions/listen` (a second request with it would make its reply ambiguous).
    pub(super) fn in_flight(&self, id: &RequestId) -> bool {
        let queued = |(q, _): &(Incoming, Origin)| match q {
            Incoming::Single(Message::Request(r)) => r.id == *id,
            _ => false,
        };
        self.running.as_ref().is_some_and(|r| r.id == *id)
            || self.parked.iter().any(|p| p.request.id == *id)
            || self.queue.iter().any(queued)
            || self.listens.iter().any(|l| l.id == *id)
    }

    /// True when input carrying a request from `origin` must wait: a request of `origin` is
    /// parked, or waits already.
    pub(super) fn is_waiting(&self, origin: Origin) -> bool {
        self.parked.iter().any(|p| p.origin == origin)
            || self.queue.iter().any(|(_, o)| *o == origin)
    }

    /// Queues `incoming` behind its origin's parked request, or refuses it (−32003) when
    /// the queue is full.
    pub(super) fn enqueue(&mut self, incoming: Incoming, origin: Origin) {
        if self.queue.len() < self.server.limits.max_queued_requests {
            return self.queue.push_back((incoming, origin));
        }
        let error = McpError::Overloaded(self.queue.len()).to_object(false);
        let id = match &incoming {
            Incoming::Single(Message::Request(r)) => Some(&r.id),
            _ => None,
        };
        self.answering(origin, |this| {
            let id = this.response_id(id);
            this.write(&Outgoing::<Value>::Error(id, &error), Some(error.code));
            this.port.finish(origin);
        });
    }

    /// Serves what was queued behind requests that are no longer parked, oldest first.
    pub(super) fn serve_queue(&mut self) {
        while !self.queue.is_empty() {
            let parked = |o: &Origin| self.parked.iter().any(|p| p.origin == *o);
            let Some(at) = self.queue.iter().position(|(_, o)| !parked(o)) else {
                return;
            };
            if let Some((incoming, origin)) = self.queue.remove(at) {
                self.handle(incoming, origin);
            }
        }
    }
}
