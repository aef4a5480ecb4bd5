//! Change detection for subscriptions: resources a client subscribed to, and the resource
//! list, are checked every `poll_interval` while a subscription is open.

use std::collections::BTreeSet;
use std::time::Instant;

use serde_json::json;

use super::connection::Connection;
use super::port::Origin;
use super::state::Session;
use crate::jsonrpc::{Outgoing, RequestId};
use crate::protocol;

impl Connection<'_> {
    pub(super) fn is_watching(&self) -> bool {
        !self.watch.fingerprints.is_empty() || self.watching_list()
    }

    fn watching_list(&self) -> bool {
        let legacy =
            matches!(&self.session, Session::Ready(_)) && self.server.resources_list_changes();
        legacy || self.listens.iter().any(|l| l.resources_list_changed)
    }

    /// The fingerprint of `uri` from the first source that knows it.
    pub(crate) fn fingerprint(&self, uri: &str) -> Option<u64> {
        self.server.sources.iter().find_map(|s| s.fingerprint(uri))
    }

    fn list_fingerprint(&self) -> Option<u64> {
        let mut combined = None;
        for source in self.server.sources.iter().filter(|s| s.lists_changes()) {
            if let Some(fp) = source.list_fingerprint() {
                combined = Some(combined.unwrap_or(0u64).rotate_left(5) ^ fp);
            }
        }
        combined
    }

    /// Starts watching `uri` (when a subscription to it opens).
    pub(crate) fn watch_uri(&mut self, uri: &str) {
        let fingerprint = self.fingerprint(uri);
        self.watch
            .fingerprints
            .entry(uri.to_string())
            .or_insert(fingerprint);
        if self.watching_list() && self.watch.list.is_none() {
            self.watch.list = self.list_fingerprint();
        }
    }

    /// Stops watching URIs no subscription refers to any more.
    pub(crate) fn unwatch_unused(&mut self) {
        let legacy: BTreeSet<String> = self
            .session
            .negotiated()
            .map(|n| n.subscriptions.clone())
            .unwrap_or_default();
        let listens = &self.listens;
        self.watch
            .fingerprints
            .retain(|uri, _| legacy.contains(uri) || listens.iter().any(|l| l.uris.contains(uri)));
    }

    pub(crate) fn start_list_watch(&mut self) {
        if self.watch.list.is_none() {
            self.watch.list = self.list_fingerprint();
        }
    }

    /// Checks watched resources and sends `updated` / `list_changed` notifications.
    pub(super) fn poll_changes(&mut self) {
        self.watch.next_poll = Instant::now() + self.server.limits.poll_interval;
        let uris: Vec<String> = self.watch.fingerprints.keys().cloned().collect();
        for uri in uris {
            let now = self.fingerprint(&uri);
            if self.watch.fingerprints.get(&uri) != Some(&now) {
                self.watch.fingerprints.insert(uri.clone(), now);
                self.announce(Some(&uri));
            }
        }
        if self.watching_list() {
            let now = self.list_fingerprint();
            if self.watch.list.is_some() && self.watch.list != now {
                self.announce(None);
            }
            self.watch.list = now;
        }
    }

    /// Tells a changed resource (`Some(uri)`) or list (`None`) to the legacy session, when it
    /// subscribed, and to every listen stream that asked for it.
    fn announce(&mut self, uri: Option<&str>) {
        let legacy = match (&self.session, uri) {
            (Session::Ready(n), Some(uri)) => n.subscriptions.contains(uri),
            (Session::Ready(_), None) => self.server.resources_list_changes(),
            _ => false,
        };
        let (method, mut params) = match uri {
            Some(uri) => ("notifications/resources/updated", json!({ "uri": uri })),
            None => ("notifications/resources/list_changed", json!({})),
        };
        if legacy {
            self.write(&Outgoing::Notification(method, &params));
        }
        let listens: Vec<(RequestId, Origin)> = self
            .listens
            .iter()
            .filter(|l| uri.map_or(l.resources_list_changed, |u| l.uris.contains(u)))
            .map(|l| (l.id.clone(), l.origin))
            .collect();
        for (id, origin) in listens {
            params["_meta"] = json!({ protocol::meta::SUBSCRIPTION_ID: id });
            self.answering(origin, |this| {
                this.write(&Outgoing::Notification(method, &params))
            });
        }
    }
}
