//! Resources: listing them and their templates, reading one, the subscriptions of both eras
//! (`resources/subscribe` in a session, a 2026-07-28 `subscriptions/listen` stream), and
//! change detection: subscribed resources, and the resource list, are checked every
//! `poll_interval` while a subscription is open.

use std::collections::{BTreeSet, HashMap};
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::handler::{bad_cursor, decode_cursor, encode_cursor, handler_error, with_cursor};
use super::handler::{invalid, object, string};
use super::port::Origin;
use super::{Handshake, Outcome, Session};
use crate::context::Client;
use crate::error::McpError;
use crate::jsonrpc::{Outgoing, RequestId};
use crate::model::{HandlerError, ResourceInfo};
use crate::protocol::meta;
use crate::server::trim_listing;
use minimcp_base::request_state::Binding;

const URI: &str = "`uri` must be a string";

/// An open 2026-07-28 `subscriptions/listen` stream.
pub(crate) struct Listen {
    pub(crate) id: RequestId,
    /// Where its notifications go.
    pub(crate) origin: Origin,
    resources_list_changed: bool,
    uris: BTreeSet<String>,
}

/// Change detection for subscriptions.
pub(crate) struct Watch {
    fingerprints: HashMap<String, Option<u64>>,
    list: Option<u64>,
    pub(crate) next_poll: Instant,
}

impl Watch {
    /// Nothing watched yet. The first check waits one `interval`: a short session
    /// (`minimcp call`) never pays for walking a large source.
    pub(crate) fn new(interval: Duration) -> Self {
        Watch {
            fingerprints: HashMap::new(),
            list: None,
            next_poll: Instant::now() + interval,
        }
    }
}

impl Session<'_> {
    pub(super) fn list_resources(
        &mut self,
        params: &Map<String, Value>,
        client: &Client,
    ) -> Outcome {
        let server = self.server;
        let sources = &server.sources;
        let (first, first_offset) = match params.get("cursor") {
            None => (0, 0),
            Some(cursor) => decode_cursor(cursor, "resources")
                .filter(|(s, _)| *s < sources.len())
                .ok_or_else(bad_cursor)?,
        };
        let page_size = server.limits.page_size;
        let scope = self.scope(client);
        // Sources list under a context: one listing the client's roots may need to ask for them.
        let (result, _) = self.run_handler(scope, |ctx| {
            let mut listed = Vec::new();
            for (at, source) in sources.iter().enumerate().skip(first) {
                if listed.len() == page_size {
                    return Ok((listed, Some(encode_cursor("resources", at, 0))));
                }
                let offset = if at == first { first_offset } else { 0 };
                let page = source.list(offset, page_size - listed.len(), ctx)?;
                let end = offset + page.items.len();
                listed.extend(page.items);
                if page.more {
                    return Ok((listed, Some(encode_cursor("resources", at, end))));
                }
            }
            Ok((listed, None))
        });
        let (listed, next) = match result {
            Some(Ok(page)) => page,
            Some(Err(error)) => return Err(handler_error(error, "resources/list")),
            None => return Err(McpError::Internal),
        };
        let trim = |r: ResourceInfo| trim_listing(json!(r), client.version);
        let listed: Vec<Value> = listed.into_iter().map(trim).collect();
        Ok(with_cursor(json!({ "resources": listed }), next))
    }

    pub(super) fn list_templates(&self, params: &Map<String, Value>, client: &Client) -> Outcome {
        let sources = self.server.sources.iter();
        let templates: Vec<_> = sources.flat_map(|s| s.templates()).collect();
        self.list(params, "templates", "resourceTemplates", &templates, |t| {
            trim_listing(json!(t), client.version)
        })
    }

    pub(super) fn read_resource(&mut self, params: Map<String, Value>, client: &Client) -> Outcome {
        let server = self.server;
        let uri = string(&params, "uri", URI)?.to_string();
        let bound = json!(uri);
        let binding = Binding {
            method: "resources/read",
            target: &uri,
            arguments: &bound,
        };
        let mut scope = self.scope(client);
        scope.inputs = self.sealed_inputs(client, &binding, &params)?;
        let (result, inputs) = self.run_handler(scope, |ctx| {
            for source in &server.sources {
                if let Some(contents) = source.read(&uri, ctx)? {
                    return Ok(Some(contents));
                }
            }
            Ok(None)
        });
        match result {
            // An empty `contents` is never an answer for a missing resource (MCP R-8).
            Some(Ok(Some(contents))) if !contents.is_empty() => Ok(json!({ "contents": contents })),
            Some(Ok(_) | Err(HandlerError::NotFound(_))) => Err(McpError::ResourceNotFound(uri)),
            Some(Err(error)) => self
                .input_outcome(client, &error, &binding, &inputs)
                .unwrap_or_else(|| Err(handler_error(error, &format!("resource {uri}")))),
            None => Err(McpError::Internal),
        }
    }

    pub(super) fn subscribe(&mut self, params: &Map<String, Value>) -> Outcome {
        let uri = string(params, "uri", URI)?;
        if self.fingerprint(uri).is_none() {
            return Err(McpError::ResourceNotFound(uri.to_string()));
        }
        let limit = self.server.limits.max_subscriptions;
        if let Some(n) = self.handshake.negotiated_mut() {
            if n.subscriptions.len() + 1 > limit && !n.subscriptions.contains(uri) {
                return Err(McpError::Overloaded(limit));
            }
            n.subscriptions.insert(uri.to_string());
        }
        self.watch_uri(uri);
        Ok(json!({}))
    }

    pub(super) fn unsubscribe(&mut self, params: &Map<String, Value>) -> Outcome {
        let uri = string(params, "uri", URI)?;
        if let Some(n) = self.handshake.negotiated_mut() {
            n.subscriptions.remove(uri);
        }
        self.unwatch_unused();
        Ok(json!({}))
    }

    /// Opens a `subscriptions/listen` stream: acknowledges what will be honoured, then stays
    /// open (no response) until the client cancels it or the session ends.
    pub(super) fn listen(&mut self, params: &Map<String, Value>) -> Result<(), McpError> {
        let id = self.running_id();
        let what = "`notifications` must be an object saying which notifications to receive";
        let filter = object(params, "notifications", what)?;
        let wants = |key: &str| filter.get(key).and_then(Value::as_bool).unwrap_or(false);
        let mut uris = match filter.get("resourceSubscriptions") {
            None => BTreeSet::new(),
            Some(uris) => BTreeSet::<String>::deserialize(uris).map_err(|_| {
                invalid("`notifications.resourceSubscriptions` must be an array of URIs")
            })?,
        };
        let open: usize = self.listens.iter().map(|l| 1 + l.uris.len()).sum();
        if open + 1 + uris.len() > self.server.limits.max_subscriptions {
            return Err(McpError::Overloaded(open));
        }
        let mut honoured = Map::new();
        let list_changed = wants("resourcesListChanged") && self.server.list_changes;
        if list_changed {
            honoured.insert("resourcesListChanged".into(), json!(true));
        }
        if self.server.sources.is_empty() {
            uris.clear();
        }
        if !uris.is_empty() {
            honoured.insert("resourceSubscriptions".into(), json!(uris));
        }
        let ack = json!({ "_meta": { meta::SUBSCRIPTION_ID: &id }, "notifications": honoured });
        self.notify_now("notifications/subscriptions/acknowledged", &ack);
        for uri in &uris {
            self.watch_uri(uri);
        }
        self.listens.push(Listen {
            id,
            origin: self.origin,
            resources_list_changed: list_changed,
            uris,
        });
        if list_changed {
            self.start_list_watch();
        }
        Ok(())
    }

    /// The client of `origin` went away: a `subscriptions/listen` stream it held is closed.
    pub fn left(&mut self, origin: Origin) {
        let before = self.listens.len();
        self.listens.retain(|l| l.origin != origin);
        if before != self.listens.len() {
            self.unwatch_unused();
        }
    }

    pub(super) fn is_watching(&self) -> bool {
        !self.watch.fingerprints.is_empty() || self.watching_list()
    }

    fn watching_list(&self) -> bool {
        let legacy = matches!(&self.handshake, Handshake::Ready(_)) && self.server.list_changes;
        legacy || self.listens.iter().any(|l| l.resources_list_changed)
    }

    /// The fingerprint of `uri` from the first source that knows it.
    fn fingerprint(&self, uri: &str) -> Option<u64> {
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
    fn watch_uri(&mut self, uri: &str) {
        let fingerprint = self.fingerprint(uri);
        let fingerprints = &mut self.watch.fingerprints;
        fingerprints.entry(uri.to_string()).or_insert(fingerprint);
        self.start_list_watch();
    }

    /// Stops watching URIs no subscription refers to any more.
    pub(crate) fn unwatch_unused(&mut self) {
        let legacy = self.handshake.negotiated().map(|n| &n.subscriptions);
        let (listens, fingerprints) = (&self.listens, &mut self.watch.fingerprints);
        let listened = |uri: &String| listens.iter().any(|l| l.uris.contains(uri));
        fingerprints.retain(|uri, _| legacy.is_some_and(|s| s.contains(uri)) || listened(uri));
    }

    /// Takes the resource list's first fingerprint once anyone wants its changes.
    fn start_list_watch(&mut self) {
        if self.watching_list() && self.watch.list.is_none() {
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
        let legacy = match (&self.handshake, uri) {
            (Handshake::Ready(n), Some(uri)) => n.subscriptions.contains(uri),
            (Handshake::Ready(_), None) => self.server.list_changes,
            _ => false,
        };
        let (method, mut params) = match uri {
            Some(uri) => ("notifications/resources/updated", json!({ "uri": uri })),
            None => ("notifications/resources/list_changed", json!({})),
        };
        if legacy {
            self.write(&Outgoing::Notification(method, &params), None);
        }
        let listens: Vec<(RequestId, Origin)> = self
            .listens
            .iter()
            .filter(|l| uri.map_or(l.resources_list_changed, |u| l.uris.contains(u)))
            .map(|l| (l.id.clone(), l.origin))
            .collect();
        for (id, origin) in listens {
            params["_meta"] = json!({ meta::SUBSCRIPTION_ID: id });
            self.answering(origin, |this| {
                this.write(&Outgoing::Notification(method, &params), None)
            });
        }
    }
}
