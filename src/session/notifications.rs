//! What the client notifies: the end of the handshake, a cancellation, changed roots.

use serde_json::{Map, Value};

use super::connection::Connection;
use super::state::{Queued, Session};
use crate::jsonrpc::{Notification, RequestId};
use crate::log;

impl Connection<'_> {
    pub(super) fn handle_notification(&mut self, notification: Notification) {
        let params = notification.params.unwrap_or_default();
        match notification.method.as_str() {
            "notifications/initialized" => {
                self.session = match std::mem::replace(&mut self.session, Session::New) {
                    Session::Initializing(n) => Session::Ready(n),
                    other => {
                        log::warn(format_args!(
                            "ignored notifications/initialized outside the handshake"
                        ));
                        other
                    }
                };
            }
            "notifications/cancelled" => self.cancel(&params),
            "notifications/roots/list_changed" => {
                if let Some(n) = self.session.negotiated_mut() {
                    n.roots.roots = None;
                    n.roots.generation += 1;
                }
            }
            method => log::debug(format_args!("ignored notification {method}")),
        }
    }

    /// `notifications/cancelled`: a running handler learns of it through its context, a
    /// queued request is dropped, an open listen stream is closed. No response is ever sent
    /// for the cancelled request (MCP C-2; late or unknown ids are ignored: C-3/C-4).
    pub(super) fn cancel(&mut self, params: &Map<String, Value>) {
        let Some(id) = params.get("requestId").and_then(RequestId::from_value) else {
            log::warn(format_args!(
                "ignored notifications/cancelled without a valid requestId"
            ));
            return;
        };
        if let Some((current, cancelled)) = &mut self.current {
            if *current == id {
                *cancelled = true;
                return;
            }
        }
        if self.cancel_parked(&id) {
            return;
        }
        // Ids in flight are unique (a duplicate is refused), so there is at most one of each.
        let queued = self.queue.iter().position(|q| match q {
            Queued::Request(r, _) => r.id == id,
            _ => false,
        });
        if let Some(Queued::Request(_, origin)) = queued.and_then(|at| self.queue.remove(at)) {
            self.port.finish(origin);
        }
        let listen = self.listens.iter().position(|l| l.id == id);
        if let Some(listen) = listen.map(|at| self.listens.remove(at)) {
            self.port.finish(listen.origin);
            self.unwatch_unused();
        } else if queued.is_none() {
            log::debug(format_args!("ignored cancellation of {id}: not in flight"));
        }
    }
}
