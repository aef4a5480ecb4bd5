//! The data a session keeps; what it does with it is in the other files of this folder.

use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;
use std::time::Instant;

use serde_json::Value;

use super::port::Origin;
use crate::context::RootsCache;
use crate::jsonrpc::RequestId;
use crate::model::InputError;
use crate::protocol::{LogLevel, Version};

/// The handshake-era session state.
pub(crate) enum Session {
    /// Before `initialize`: only `ping`, `initialize` and stateless requests are served.
    New,
    /// `initialize` answered; `notifications/initialized` not yet received.
    Initializing(Negotiated),
    /// Fully operating.
    Ready(Negotiated),
}

/// What `initialize` settled, plus state a handshake session keeps.
pub(crate) struct Negotiated {
    pub(crate) version: Version,
    pub(crate) client_capabilities: Rc<Value>,
    pub(crate) client_info: Rc<Value>,
    /// The least severe level sent as `notifications/message` (`logging/setLevel`).
    pub(crate) log_level: LogLevel,
    /// URIs from `resources/subscribe`.
    pub(crate) subscriptions: BTreeSet<String>,
    /// The client's answer to `roots/list`, kept until it says they changed.
    pub(crate) roots: RootsCache,
}

impl Session {
    pub(crate) fn negotiated(&self) -> Option<&Negotiated> {
        match self {
            Session::New => None,
            Session::Initializing(n) | Session::Ready(n) => Some(n),
        }
    }

    pub(crate) fn negotiated_mut(&mut self) -> Option<&mut Negotiated> {
        match self {
            Session::New => None,
            Session::Initializing(n) | Session::Ready(n) => Some(n),
        }
    }
}

/// An open 2026-07-28 `subscriptions/listen` stream.
pub(crate) struct Listen {
    pub(crate) id: RequestId,
    /// Where its notifications go.
    pub(crate) origin: Origin,
    pub(crate) resources_list_changed: bool,
    pub(crate) uris: BTreeSet<String>,
}

/// Change detection for subscriptions.
pub(crate) struct Watch {
    pub(crate) fingerprints: HashMap<String, Option<u64>>,
    pub(crate) list: Option<u64>,
    pub(crate) next_poll: Instant,
}

/// A token bucket for `--rate-limit`.
pub(crate) struct TokenBucket {
    rate: f64,
    tokens: f64,
    last: Instant,
}

impl TokenBucket {
    pub(crate) fn new(rate: f64) -> Self {
        TokenBucket {
            rate,
            tokens: rate.max(1.0),
            last: Instant::now(),
        }
    }

    /// Takes a token, or says in how many milliseconds one will be there.
    pub(crate) fn take(&mut self) -> Result<(), u64> {
        let now = Instant::now();
        let capacity = self.rate.max(1.0);
        self.tokens =
            (self.tokens + now.duration_since(self.last).as_secs_f64() * self.rate).min(capacity);
        self.last = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            Ok(())
        } else {
            Err((((1.0 - self.tokens) / self.rate) * 1000.0).ceil() as u64)
        }
    }
}

/// One answer the client gave (or did not give) to a question of a parked request.
pub(crate) type Answer = Result<Value, InputError>;
