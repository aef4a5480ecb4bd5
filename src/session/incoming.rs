//! The one classification of a unit of input: a single message, a batch, or something to
//! refuse. The main loop and a handler waiting for the client both use it, so a line has
//! the same meaning whether or not a handler runs.

use serde_json::Value;

use super::port::Unit;
use crate::error::EnvelopeError;
use crate::jsonrpc::{classify, Message, Rejected};
use crate::protocol::Version;

/// A classified unit of input.
pub(crate) enum Incoming {
    /// One message.
    Single(Message),
    /// A non-empty JSON-RPC batch in a 2025-03-26 session, its items classified in order.
    Batch(Vec<Result<Message, Rejected>>),
    /// Not a message this session accepts.
    Rejected(Rejected),
}

/// Classifies `unit` for a session that negotiated `version` (`None` before `initialize`).
/// Batches exist only in 2025-03-26 (MCP B-11); an empty one is always invalid.
pub(crate) fn sort(unit: Unit, version: Option<Version>) -> Incoming {
    let refuse = |id, error| Rejected {
        id,
        error,
        answer: true,
    };
    let items = match unit {
        Err((error, id)) => return Incoming::Rejected(refuse(id, error)),
        Ok(Value::Array(items)) => items,
        Ok(value) => return classify(value).map_or_else(Incoming::Rejected, Incoming::Single),
    };
    let error = match version {
        _ if items.is_empty() => EnvelopeError::EmptyBatch,
        Some(Version::V2025_03_26) => {
            let items = items.into_iter().map(|item| match item {
                Value::Array(_) => Err(refuse(None, EnvelopeError::NotAnObject)),
                item => classify(item),
            });
            return Incoming::Batch(items.collect());
        }
        Some(_) => EnvelopeError::BatchNotSupported(""),
        None => EnvelopeError::BatchNotSupported("; initialize first"),
    };
    Incoming::Rejected(refuse(None, error))
}

/// True for input a handler that only checks for cancellation must read now: anything but
/// requests it cannot serve yet (a `ping` is answered at once). Requests stay in the
/// transport, so a pipelining client is slowed down instead of refused.
pub(crate) fn wanted_while_busy(value: &Value) -> bool {
    let is_deferred_request = |v: &Value| {
        v.get("id").is_some()
            && v.get("method")
                .and_then(Value::as_str)
                .is_some_and(|m| m != "ping")
    };
    match value {
        Value::Array(items) => items.is_empty() || !items.iter().all(is_deferred_request),
        value => !is_deferred_request(value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn refused(unit: Value, version: Option<Version>) -> Option<EnvelopeError> {
        match sort(Ok(unit), version) {
            Incoming::Rejected(r) => Some(r.error),
            _ => None,
        }
    }

    #[test]
    fn batches_only_in_2025_03_26_and_never_empty() {
        let response = json!([{"jsonrpc": "2.0", "id": 1, "result": {}}]);
        assert_eq!(
            refused(json!([]), Some(Version::V2025_03_26)),
            Some(EnvelopeError::EmptyBatch)
        );
        assert_eq!(
            refused(response.clone(), Some(Version::V2025_06_18)),
            Some(EnvelopeError::BatchNotSupported(""))
        );
        assert!(matches!(
            sort(Ok(response), Some(Version::V2025_03_26)),
            Incoming::Batch(items) if items.len() == 1
        ));
    }

    #[test]
    fn a_busy_handler_leaves_requests_but_takes_the_rest() {
        let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
        assert!(!wanted_while_busy(&request));
        assert!(!wanted_while_busy(&json!([request])));
        assert!(wanted_while_busy(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})
        ));
        assert!(wanted_while_busy(
            &json!({"jsonrpc": "2.0", "method": "notifications/cancelled"})
        ));
        assert!(wanted_while_busy(
            &json!({"jsonrpc": "2.0", "id": 1, "result": {}})
        ));
        assert!(wanted_while_busy(&json!([])));
        assert!(wanted_while_busy(&json!("not a message")));
    }
}
