//! What a parked request keeps, and what the handler replaying it has been told.

use std::time::{Duration, Instant};

use crate::jsonrpc::Request;
use crate::session::port::Origin;
use crate::session::state::Answer;

/// What the handler running now has been told and has asked, while replaying.
#[derive(Default)]
pub(crate) struct Replay {
    /// The answers to the questions of earlier runs, in asking order.
    pub(crate) answers: Vec<Answer>,
    /// How many of them this run has taken.
    pub(crate) taken: usize,
    /// The question this run sent and waits for: our request id, and its timeout.
    pub(crate) asked: Option<(u64, Duration)>,
}

impl Replay {
    /// The answer to the handler's next question, if an earlier run got it.
    pub(crate) fn next_answer(&mut self) -> Option<Answer> {
        let answer = self.answers.get(self.taken)?.clone();
        self.taken += 1;
        Some(answer)
    }
}

/// A request whose handler waits for the client's answer to `awaiting`.
pub(crate) struct Parked {
    pub(crate) request: Request,
    pub(crate) origin: Origin,
    pub(crate) answers: Vec<Answer>,
    pub(crate) awaiting: u64,
    pub(crate) deadline: Instant,
    pub(crate) timeout: Duration,
    /// When the request was first dispatched: its log line counts the wait.
    pub(crate) started: Instant,
}
