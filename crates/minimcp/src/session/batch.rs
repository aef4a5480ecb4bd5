//! Input that is not one well-formed message: JSON-RPC batches (2025-03-26 only), every item
//! served in order and the answers written as one array, a batch that arrives while a
//! request of its origin is parked; and units that are no message at all.

use serde_json::Value;

use super::{Incoming, Reply, Session};
use crate::error::EnvelopeError;
use crate::jsonrpc::{Message, Outgoing, Rejected, RequestId, ResponseId};
use crate::session::port::Origin;
use minimcp_base::log;
use minimcp_base::to_json_limited;

/// One item of a batch.
type Item = Result<Message, Rejected>;

impl Session<'_> {
    /// Serves the items of a batch; the answers go out as one array (none at all for a
    /// batch of notifications and responses only).
    pub(super) fn serve_batch(&mut self, items: Vec<Item>) {
        let mut out = Vec::new();
        for item in items {
            out.push(b',');
            let start = out.len();
            self.serve_item(item, &mut out);
            if out.len() == start {
                out.pop();
            }
        }
        if let Some(first) = out.first_mut() {
            *first = b'[';
            out.push(b']');
            self.port.send(self.origin, &out, None);
        }
    }

    /// Serves one item of a batch, appending its answer (if it gets one) to `out`.
    fn serve_item(&mut self, item: Item, out: &mut Vec<u8>) {
        let limit = self.server.limits.max_response_bytes;
        match item {
            Ok(Message::Request(request)) if request.method == "initialize" => {
                let error = EnvelopeError::InitializeInBatch.to_object();
                let reply = Reply {
                    outcome: Err(error),
                    tool_call: None,
                };
                super::encode_reply(&request.id, &reply, limit, out);
            }
            Ok(Message::Request(request)) => {
                let id = request.id.clone();
                // One array answers the batch, so its requests cannot be parked.
                if let Some(reply) = self.answer(request, false) {
                    super::encode_reply(&id, &reply, limit, out);
                }
            }
            Ok(Message::Notification(notification)) => self.notified(notification),
            Ok(Message::Response(response)) => self.answered(response),
            Err(rejected) if rejected.answer => {
                let id = self.response_id(rejected.id.as_ref());
                let error = rejected.error.to_object();
                let _ = to_json_limited(&Outgoing::<Value>::Error(id, &error), usize::MAX, out);
            }
            Err(rejected) => log::warn(format_args!("ignored in batch: {}", rejected.error)),
        }
    }

    /// Answers a unit that is not a message this session accepts (a notification-shaped or
    /// response-shaped one is only logged).
    pub(super) fn reject(&mut self, rejected: Rejected) {
        if !rejected.answer {
            let error = &rejected.error;
            return log::warn(format_args!(
                "ignored an invalid notification or response: {error}"
            ));
        }
        if matches!(rejected.error, EnvelopeError::TooLarge { .. }) {
            log::warn(format_args!("skipped: {}", rejected.error));
        }
        let id = self.response_id(rejected.id.as_ref());
        let error = rejected.error.to_object();
        log::debug(format_args!("error {}: {}", error.code, error.message));
        self.write(&Outgoing::<Value>::Error(id, &error), Some(error.code));
    }

    /// The id of an error about a unit: the one read from it, else `null` as JSON-RPC 2.0
    /// says, or none where a version's schema has no null id (`Version::omits_unreadable_id`).
    pub(super) fn response_id<'a>(&self, id: Option<&'a RequestId>) -> ResponseId<'a> {
        match (id, self.version()) {
            (Some(id), _) => ResponseId::Id(id),
            (None, Some(v)) if v.omits_unreadable_id() => ResponseId::Omit,
            (None, _) => ResponseId::Null,
        }
    }

    /// A batch from `origin` while a request of `origin` is parked: its notifications and
    /// responses count now (a cancellation in a batch is as good as one on its own line);
    /// the rest waits its turn, as one batch.
    pub(super) fn defer_batch(&mut self, items: Vec<Item>, origin: Origin) {
        let (later, now): (Vec<Item>, Vec<Item>) = items
            .into_iter()
            .partition(|item| matches!(item, Ok(Message::Request(_)) | Err(_)));
        self.answering(origin, |this| {
            for item in now {
                this.serve_item(item, &mut Vec::new());
            }
        });
        if later.is_empty() {
            self.port.finish(origin);
        } else {
            self.enqueue(Incoming::Batch(later), origin);
        }
    }
}
